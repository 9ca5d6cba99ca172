// The register liveness panel (seed 002): on Figure 3, shown on demand, four grids (both
// programs, original and optimized) whose rows sit on the editors' instruction lines; the
// peak and the limit in words and drawn; hovering a cell names where its value was written
// and last read; the jump scrolls the peak row into view; hoistReport() gives the peaks.

import { scenario, waitText, shot, fail, log, done, SLOW } from '../common.mjs';

const report = (page) => page.evaluate(() => window.hoistReport());
const settled = (page) => page.waitForFunction(done, null, { timeout: SLOW });

async function pick(page, id) {
  await page.click('#examples-button');
  await page.click(`#ex-${id.replace('/', '-')}`);
  await page.waitForFunction((ex) => window.hoistReport()?.example === ex && window.hoistReport().current, id, { timeout: SLOW });
  await settled(page);
}

/// Lines of the fragment editor's text that hold an instruction (ps_2_0: not the header,
/// a declaration, a definition, a comment or blank).
async function instructionLines(page) {
  const src = await page.evaluate(() => document.querySelector('#fp').value);
  return src.split('\n').map((l, i) => [l.trim(), i + 1])
    .filter(([l]) => l && !/^(ps_|dcl|def|;|\/\/)/.test(l))
    .map(([, n]) => n);
}

scenario('liveness', async ({ page }) => {
  await pick(page, 'paper/fig3');
  if (await page.$('#live-fp-before')) fail('the grids are drawn before the panel is shown');
  await page.click('#liveness-toggle');
  const head = await waitText(page, '#live-fp-before .live-headline', (t) => t.startsWith('peak'), 'the original fragment grid');
  if (!/^peak 3 of 12 temporaries at line \d+/.test(head)) fail(`fragment headline: ${head}`);
  await waitText(page, '#live-fp-after .live-headline', (t) => t.startsWith('peak'), 'the optimized fragment grid');
  await waitText(page, '#live-vp-after .live-headline', (t) => t.startsWith('peak'), 'the optimized vertex grid');

  // Rows sit on the editor's instruction lines, and every row draws the limit.
  const rows = await page.evaluate(() => [...document.querySelectorAll('#live-fp-before .live-row[id]')]
    .map((r) => Number(r.id.replace('live-fp-before-line-', ''))));
  const want = await instructionLines(page);
  if (JSON.stringify(rows) !== JSON.stringify(want)) fail(`rows on lines ${rows}, instructions on lines ${want}`);
  const limits = await page.$$eval('#live-fp-before .live-row[id] .bar .limit', (l) => l.length);
  if (limits !== rows.length) fail(`${limits} limit marks for ${rows.length} rows`);
  log(`rows on the instruction lines ${rows.join(', ')}; ${head}`);

  // Hovering a written cell names the value.
  const cell = page.locator('#live-fp-before .live-row[id] .cell.c-w').first();
  await cell.hover();
  const title = await cell.getAttribute('title');
  if (!/^r\d+\.[xyzw]: written on line \d+, last read on line \d+$/.test(title ?? '')) fail(`hover text: ${title}`);
  log(`hover: ${title}`);

  // The jump brings the peak row into view inside its scroll box.
  await page.locator('#liveness').scrollIntoViewIfNeeded();
  await page.evaluate(() => { document.querySelector('#live-fp-before .live-table').scrollTop = 0; });
  await page.click('#live-fp-before .live-jump');
  const peakLine = Number(/at line (\d+)/.exec(head)[1]);
  await page.waitForFunction((l) => {
    const row = document.getElementById(`live-fp-before-line-${l}`);
    const box = row?.closest('.live-table');
    if (!row || !box) return false;
    const r = row.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    return r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.top >= -1 && r.bottom <= innerHeight + 1;
  }, peakLine, { timeout: 5000 }).catch(() => fail(`the peak row (line ${peakLine}) is not in view after the jump`));
  const peakClass = await page.getAttribute(`#live-fp-before-line-${peakLine}`, 'class');
  if (!peakClass.includes('peak')) fail(`the peak row is not marked: ${peakClass}`);

  const rep = (await report(page)).liveness;
  if (!rep || rep.fpBefore !== 3 || rep.fpLimit !== 12 || rep.vpLimit !== 12) fail(`hoistReport().liveness: ${JSON.stringify(rep)}`);
  if (!(rep.fpAfter <= rep.fpBefore) || !(rep.vpAfter >= rep.vpBefore)) fail(`peaks after motion: ${JSON.stringify(rep)}`);
  log(`hoistReport().liveness: ${JSON.stringify(rep)}`);
  await page.evaluate(() => { document.querySelector('#live-fp-before .live-table').scrollTop = 0; });
  await page.evaluate(() => document.querySelector('#liveness').scrollIntoView());
  await shot(page, 'liveness-panel.png');
});
