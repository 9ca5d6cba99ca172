// Long texts in the editor (built dist/, headless Chromium; a measurement, not a test):
// loads the 500-, 1000- and 2000-line fragment programs of `bigPair` into Figure 3 by
// setting the textarea and firing `input` (time in the handler, to the next frame, until
// the page settles), then types 20 keys every 250 ms into the 2002-line text's comment and
// prints keydown-to-frame. The 1000- and 2000-line programs exceed ps_3_0's slots, so no
// job runs for them: those figures are the editor and the page's parse alone.
//
//   DIST=path/to/dist node tests/e2e/long-text.mjs
import { chromium } from 'playwright-core';
import { bigPair, serve, done } from './common.mjs';
const server = await serve(process.env.DIST || new URL('../../dist', import.meta.url).pathname);
const base = `http://127.0.0.1:${server.address().port}/`;
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await b.newPage();
await page.goto(base + '#ex=paper/fig3');
await page.waitForFunction(done, null, { timeout: 60000 });
for (const blocks of [61, 125, 249]) {
  const { fp } = bigPair(blocks);
  const t = await page.evaluate((fp) => {
    const ta = document.querySelector('#fp');
    const t0 = performance.now();
    ta.value = fp;
    ta.dispatchEvent(new InputEvent('input', { bubbles: true }));
    return performance.now() - t0;
  }, fp);
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  const frame = Date.now() - t0;
  let settle = Date.now();
  let ok = true;
  try { await page.waitForFunction(done, null, { timeout: 120000 }); } catch { ok = false; }
  console.log(`${fp.split('\n').length} lines: input handler ${t.toFixed(0)} ms, next frame ${frame} ms, settled ${ok ? Date.now() - settle : 'no'} ms; ${await page.textContent('#stat-opt-time').catch(() => '?')}`);
}
// Keys typed into the 2002-line text (it does not parse: no job runs, so this is the editor alone).
await page.evaluate(() => {
  window.__lat = [];
  const t = document.querySelector('#fp');
  t.addEventListener('keydown', (e) => { const s = e.timeStamp; requestAnimationFrame(() => setTimeout(() => window.__lat.push(performance.now() - s), 0)); }, { capture: true });
  const at = t.value.indexOf('// typing here:') + '// typing here:'.length;
  t.focus(); t.setSelectionRange(at, at);
});
for (let i = 0; i < 20; i++) { await page.keyboard.press(String.fromCharCode(97 + i)); await page.waitForTimeout(250); }
const lat = (await page.evaluate(() => window.__lat)).sort((a, b) => a - b);
console.log(`2002 lines, keys every 250 ms: median ${lat[lat.length >> 1].toFixed(1)} ms, p90 ${lat[Math.floor(lat.length * 0.9)].toFixed(1)} ms (n=${lat.length})`);
await b.close(); server.close();
