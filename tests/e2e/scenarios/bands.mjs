// Renders shared with helper workers (issue 26): with the test switch
// `hoist-test-band-workers` = 2 every render's last draw is shared with two helper
// workers; with 0 the page's worker draws alone. For each example (and gauss13 at 512²)
// both pages must show the same float images, bit for bit (hoistImageHashes()), the same
// verdict and the same statistics, and the shared page must say that helpers drew bands
// (hoistReport().helped, the statistics' executor line). Helpers start after the first
// job, so a render may run before they are ready: "time again" until one is shared. With
// no switch, a machine with more than two processors shares gauss13 by itself (one
// processor is left to the lead, one to the page and the browser); one with two shares
// only large renders (gauss13 at 1024², not at its default 256²).

import { scenario, fail, log, settledReport, shot, SLOW } from '../common.mjs';

const EXAMPLES = ['paper/fig3', 'paper/gauss13', 'paper/sort', 'fluid/advect', 'graphics/dot3'];

async function pick(page, id) {
  await page.click('#examples-button');
  await page.click(`#ex-${id.replace('/', '-')}`);
  await page.waitForFunction((ex) => window.hoistReport()?.example === ex && window.hoistReport().current, id, { timeout: SLOW });
  return settledReport(page, id);
}

const helped = (r) => (r.helped ?? [0, 0]).reduce((a, b) => a + b, 0);

/// Runs the render again until helpers drew some of it (they start after the first job).
async function shared(page, what, r) {
  const until = Date.now() + SLOW;
  while (helped(r) === 0) {
    if (Date.now() > until) fail(`${what}: no helper drew a band (${JSON.stringify(r.helped)})`);
    await page.waitForTimeout(300);
    const rev = r.renderMs;
    await page.evaluate(() => document.querySelector('#stat-time-again').click());
    await page.waitForFunction((old) => JSON.stringify(window.hoistReport()?.renderMs) !== JSON.stringify(old), rev, { timeout: SLOW })
      .catch(() => {});
    r = await settledReport(page, what);
  }
  return r;
}

const summary = (r) => JSON.stringify([r.verdict, r.before, r.after, r.probes]);

scenario('bands', async ({ page, open, base }) => {
  const alone = await open('one worker');
  await alone.addInitScript(() => localStorage.setItem('hoist-test-band-workers', '0'));
  await alone.goto(base);
  const many = await open('three workers');
  await many.addInitScript(() => localStorage.setItem('hoist-test-band-workers', '2'));
  await many.goto(base);
  const cases = EXAMPLES.map((id) => [id, null]).concat([['paper/gauss13', [512, 512]]]);
  for (const [id, size] of cases) {
    const what = size ? `${id} at ${size.join('×')}` : id;
    const reports = [];
    for (const p of [alone, many]) {
      let r = await pick(p, id);
      if (size) {
        for (const [label, v] of [['Render width', size[0]], ['Render height', size[1]]]) {
          await p.fill(`[aria-label="${label}"]`, String(v));
          await p.press(`[aria-label="${label}"]`, 'Tab');
        }
        await p.waitForFunction((s) => JSON.stringify(window.hoistReport()?.size) === JSON.stringify(s), size, { timeout: SLOW });
        r = await settledReport(p, what);
      }
      if (p === many) r = await shared(p, what, r);
      reports.push([r, await p.evaluate(() => window.hoistImageHashes())]);
    }
    const [[a, ha], [b, hb]] = reports;
    if (helped(a) !== 0) fail(`${what}: helpers drew bands with the switch at 0: ${JSON.stringify(a.helped)}`);
    if (!ha[0]) fail(`${what}: no image hash`);
    if (JSON.stringify(ha) !== JSON.stringify(hb)) fail(`${what}: images ${JSON.stringify(hb)} with helpers, ${JSON.stringify(ha)} alone`);
    if (summary(a) !== summary(b)) fail(`${what}: ${summary(b)} with helpers, ${summary(a)} alone`);
    const stat = await many.textContent('#stat-exec');
    const said = stat.match(/(\d+) of (\d+) bands drawn by helper workers/);
    if (!said || Number(said[1]) !== helped(b) || Number(said[1]) > Number(said[2])) {
      fail(`${what}: the statistics do not say what helpers drew (${JSON.stringify(b.helped)}): "${stat}"`);
    }
    log(`${what}: ${b.verdict}, images ${hb.join(' / ')} alone and shared; helpers drew ${b.helped.join(' + ')} bands ("${stat}")`);
  }
  await many.locator('#stats').scrollIntoViewIfNeeded();
  await shot(many, 'bands-stats.png');

  // No switch: one helper per spare processor, for renders large enough to pay; on two
  // processors one helper, for large renders only (gauss13 at 1024², not at 256²).
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  if (cores > 2) {
    const r = await shared(page, 'gauss13, automatic', await pick(page, 'paper/gauss13'));
    log(`automatic (${cores} processors): gauss13's renders shared, helpers drew ${r.helped.join(' + ')} bands`);
  } else if (cores === 2) {
    let r = await pick(page, 'paper/gauss13');
    for (let i = 0; i < 2; i++) {
      await page.evaluate(() => document.querySelector('#stat-time-again').click());
      await page.waitForTimeout(300);
      r = await settledReport(page, 'gauss13 at 256², automatic');
    }
    if (helped(r) !== 0) fail(`gauss13 at 256², two processors: helpers drew ${JSON.stringify(r.helped)}`);
    for (const label of ['Render width', 'Render height']) {
      await page.fill(`[aria-label="${label}"]`, '1024');
      await page.press(`[aria-label="${label}"]`, 'Tab');
    }
    await page.waitForFunction(() => window.hoistReport()?.size?.[1] === 1024, null, { timeout: SLOW });
    r = await shared(page, 'gauss13 at 1024², automatic', await settledReport(page, 'gauss13 at 1024²'));
    log(`automatic (2 processors): gauss13 at 256² drawn alone, at 1024² shared (helpers drew ${r.helped.join(' + ')} bands)`);
  } else {
    log(`automatic: this browser reports ${cores} processor(s); no helper is started`);
  }
});
