// The compiled executor in the page: with the test switch `hoist-test-executor=compile` the
// worker draws both images with the fragment programs compiled to wasm (the statistics and
// hoistReport().executor say "compiled") and the verdict stays bit-identical; by default
// each draw takes the executor predicted to finish sooner (same pixels, an interpreted draw
// says "predicted faster"); with the switch set to refuse or throw the interpreter draws
// exactly the same pixels and the page names it and the reason.

import { scenario, fail, log, done, shot, waitText, SLOW } from '../common.mjs';

const report = (page) => page.evaluate(() => window.hoistReport());
const settled = (page) => page.waitForFunction(done, null, { timeout: SLOW });

async function pick(page, id) {
  await page.click('#examples-button');
  await page.click(`#ex-${id.replace('/', '-')}`);
  await page.waitForFunction((ex) => window.hoistReport()?.example === ex && window.hoistReport().current, id, { timeout: SLOW });
  await settled(page);
}

/// Both canvases' pixels (what the page drew), as one string per canvas.
const pixels = (page) => page.evaluate(() => ['#canvas-original', '#canvas-optimized'].map((s) => {
  const c = document.querySelector(s);
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let h = 2166136261;
  for (let i = 0; i < d.length; i++) h = Math.imul(h ^ d[i], 16777619) >>> 0;
  return `${c.width}x${c.height}:${h.toString(16)}`;
}));

async function check(page, id, want) {
  await pick(page, id);
  const r = await report(page);
  if (r.verdict !== 'bit-identical') fail(`${id}: verdict ${r.verdict}`);
  const ex = r.executor;
  if (!ex || !ex[0] || !ex[1]) fail(`${id}: hoistReport().executor is ${JSON.stringify(ex)}`);
  for (const e of ex) if (!want(e)) fail(`${id}: executor ${JSON.stringify(ex)}`);
  const stat = await waitText(page, '#stat-exec', (t) => want(t), `${id}: the executor in the statistics`);
  log(`${id}: ${r.verdict}, executor ${JSON.stringify(ex)}, statistics "${stat}", render ${r.renderMs.map((m) => m.toFixed(1)).join(' / ')} ms`);
  return pixels(page);
}

scenario('compiled', async ({ page, base, open }) => {
  const ids = ['paper/fig3', 'paper/gauss13'];
  const compiled = {};
  const forced = await open('forced compile');
  await forced.addInitScript(() => localStorage.setItem('hoist-test-executor', 'compile'));
  await forced.goto(base);
  await settled(forced);
  for (const id of ids) compiled[id] = await check(forced, id, (e) => e === 'compiled');
  await forced.locator('#stats').scrollIntoViewIfNeeded();
  await shot(forced, 'compiled-stats.png');
  // The page's default: the executor each draw is predicted to finish sooner with; either
  // draws the same pixels, and an interpreted draw says why.
  for (const id of ids) {
    const px = await check(page, id, (e) => e === 'compiled'
      || (e.startsWith('interpreter:') && e.includes('predicted faster')));
    if (JSON.stringify(px) !== JSON.stringify(compiled[id])) {
      fail(`${id} by prediction: drew ${px}, compiled code ${compiled[id]}`);
    }
  }
  for (const [mode, why] of [['refuse', 'forced refusal'], ['throw', 'WebAssembly.Module']]) {
    const p = await open(`forced ${mode}`);
    // Set before the page starts (a reload would cancel the worker's script mid-load).
    await p.addInitScript((m) => localStorage.setItem('hoist-test-executor', m), mode);
    await p.goto(base);
    await settled(p);
    for (const id of ids) {
      const px = await check(p, id, (e) => e.startsWith('interpreter:') && e.includes(why));
      if (JSON.stringify(px) !== JSON.stringify(compiled[id])) {
        fail(`${id} with ${mode}: the interpreter drew ${px}, compiled code ${compiled[id]}`);
      }
    }
    if (mode === 'refuse') {
      await p.locator('#stats').scrollIntoViewIfNeeded();
      await shot(p, 'compiled-refused.png');
    }
  }
});
