// The GPU view (issue 23): both pairs rendered by the browser's GPU (SwiftShader behind
// WebGPU and WebGL2 here) with the exact executor's inputs, beside the exact images, their
// agreement, the classes of difference, and timings of both pairs.
//   - WebGPU (Chromium's WebGPU flags): Figure 3, then the K = 13 Gaussian: both GPU images
//     agree with the exact ones within the stated tolerance (and their canvases with the
//     exact canvases), the timing gives both medians and names its method, the heavier
//     variant runs at 1024x1024; the verdict word is the exact executor's before and after;
//     a pair typed in whose GPU image differs (a cube-map lookup at a tie of the major axis)
//     is reported as differing, with where, and the verdict stays the executor's;
//   - WebGL2 only (ANGLE on SwiftShader, no WebGPU flags): the view falls back to WebGL2 and
//     does the same on Figure 3;
//   - no API (--disable-gpu --disable-webgl): the view says so and the page gives its verdict.
// Screenshots of each; the timings seen are logged (BENCHMARKS.md quotes them).

import { GPU_FLAGS, SLOW, done, fail, log, scenario, shot, text, waitText } from '../common.mjs';

const report = (page) => page.evaluate(() => window.hoistReport());
/// The GPU view's own files (its worker's bundle, the runner), fetched so far.
const gpuFetched = (page) => page.evaluate(() => performance.getEntriesByType('resource')
  .map((e) => e.name).filter((n) => /hoist-gpu-worker|runner\.mjs/.test(n)));
/// ms: timings on SwiftShader with two shared cores.
const TIMING = 10 * 60_000;

async function openExample(page, base, id) {
  await page.goto(`${base}#ex=${id}`);
  await page.waitForFunction((e) => window.hoistReport?.()?.example === e && window.hoistReport().current, id, { timeout: SLOW });
  await page.waitForFunction(done, null, { timeout: SLOW });
  return report(page);
}

async function showGpu(page) {
  if ((await page.getAttribute('#gpu-toggle', 'aria-expanded')) !== 'true') await page.click('#gpu-toggle');
}

/// Pixels of a canvas (RGBA8, top row first).
const pixels = (page, sel) => page.evaluate((s) => {
  const c = document.querySelector(s);
  if (!c || c.width < 2) return null;
  return { w: c.width, h: c.height, d: Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data) };
}, sel);

/// Waits for the view's renders of the current text; checks agreement, the words on the
/// page and the canvases.
async function gpuRenders(page, what, api) {
  await page.waitForFunction(() => {
    const g = window.hoistReport().gpu;
    return g.unavailable || g.error || g.runErrors.some(Boolean) || (g.current && !g.busy && g.agreement[0] && g.agreement[1]);
  }, null, { timeout: SLOW });
  const g = (await report(page)).gpu;
  if (g.unavailable) fail(`${what}: ${g.unavailable}`);
  if (g.error) fail(`${what}: ${g.error}`);
  if (g.runErrors.some(Boolean)) fail(`${what}: ${g.runErrors.join('; ')}`);
  if (g.api !== api) fail(`${what}: the view runs on ${g.api}, expected ${api}`);
  if (!g.adapter) fail(`${what}: no adapter name`);
  for (const [k, id] of ['original', 'optimized'].entries()) {
    const a = g.agreement[k];
    if (!a.agrees || !(a.maxAbs <= a.tolerance)) fail(`${what}: ${id}: ${a.words}`);
    const shown = await text(page, `#gpu-agree-${id}`);
    if (shown !== a.words) fail(`${what}: the page says "${shown}", the report "${a.words}"`);
    const [e, q] = [await pixels(page, `#gpu-exact-${id}`), await pixels(page, `#gpu-image-${id}`)];
    if (!e || !q) fail(`${what}: the ${id} canvases are empty`);
    if (e.w !== q.w || e.h !== q.h) fail(`${what}: ${id} canvases ${e.w}x${e.h} and ${q.w}x${q.h}`);
    let off = 0;
    let lit = 0;
    for (let i = 0; i < e.d.length; i++) {
      if (Math.abs(e.d[i] - q.d[i]) > 1) off++;
      if (i % 4 !== 3 && q.d[i] > 0) lit++;
    }
    if (off) fail(`${what}: ${off} channels of the ${id} GPU canvas differ from the exact one by more than 1/255`);
    if (!lit) fail(`${what}: the ${id} GPU canvas is black`);
  }
  if (!g.differences.includes('interpolation')) fail(`${what}: differences ${g.differences}`);
  log(`${what}: ${g.api} on ${g.adapter}: original ${g.agreement[0].words}; optimized ${g.agreement[1].words}; classes ${g.differences.join(', ')}`);
  return g;
}

/// Runs a timing (`button`) and waits for its result with `repeat` draws per sample.
async function gpuTiming(page, what, button, repeat) {
  await page.click(button);
  await page.waitForFunction((r) => {
    const g = window.hoistReport().gpu;
    return g.timingError || (!g.busy && g.timing && g.timing.repeat === r);
  }, repeat, { timeout: TIMING });
  const g = (await report(page)).gpu;
  if (g.timingError) fail(`${what}: the timing failed: ${g.timingError}`);
  const t = g.timing;
  for (const k of ['original', 'optimized']) {
    if (!(t[k].median > 0) || !(t[k].n > 3)) fail(`${what}: ${k}: ${JSON.stringify(t[k])}`);
  }
  if (!['timestamp-query', 'EXT_disjoint_timer_query_webgl2', 'wall'].includes(t.method)) fail(`${what}: method ${t.method}`);
  const head = await text(page, '#gpu-timing-headline');
  if (!head.startsWith('on your GPU') || !head.includes(g.adapter)) fail(`${what}: the headline "${head}"`);
  const method = await text(page, '#gpu-timing-method');
  if (!method.includes(t.methodWords)) fail(`${what}: the method line "${method}"`);
  if (t.same && !(await text(page, '#gpu-timing-why')).includes('not ALU-bound')) fail(`${what}: a ratio of 1 is not explained`);
  log(`${what}: ${t.width}x${t.height}, ${t.repeat} draw(s)/sample, ${t.method}: original ${t.original.median.toFixed(3)} ms `
    + `[${t.original.q1.toFixed(3)}, ${t.original.q3.toFixed(3)}], optimized ${t.optimized.median.toFixed(3)} ms `
    + `[${t.optimized.q1.toFixed(3)}, ${t.optimized.q3.toFixed(3)}], ratio ${t.ratio.toFixed(3)}${t.same ? ' (1 within the spread)' : ''}`
    + `${t.notes.length ? `; ${t.notes.join('; ')}` : ''}`);
  return t;
}

/// A cube-map lookup along (x, y, y): where y > x the direction ties y and z for the major
/// axis (ARB: D3D9's ps_2_0 takes no arbitrary swizzle).
const TIE_VP = '!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n';
const TIE_FP = '!!ARBfp1.0\nTEMP r;\nMOV r, fragment.texcoord[0].xyyx;\nTEX result.color, r, texture[0], CUBE;\nEND\n';

async function verdictOf(page) {
  return (await report(page)).verdict;
}

scenario('gpu', async ({ base, open }) => {
  // WebGPU.
  const page = await open('webgpu', GPU_FLAGS.webgpu);
  await openExample(page, base, 'paper/fig3');
  const v0 = await verdictOf(page);
  if (v0 !== 'bit-identical') fail(`Figure 3's verdict: ${v0}`);
  const early = await gpuFetched(page);
  if (early.length) fail(`the GPU view's files were fetched before it was shown: ${early.join(', ')}`);
  await showGpu(page);
  await gpuRenders(page, 'webgpu fig3', 'webgpu');
  const late = await gpuFetched(page);
  if (!late.some((n) => /hoist-gpu-worker/.test(n)) || !late.some((n) => /runner\.mjs/.test(n))) {
    fail(`the GPU view rendered without fetching its worker and runner: ${late.join(', ')}`);
  }
  await gpuTiming(page, 'webgpu fig3', '#gpu-time', 1);
  await page.locator('#gpu').scrollIntoViewIfNeeded();
  await shot(page, 'gpu-webgpu-fig3.png');
  if ((await verdictOf(page)) !== v0) fail('the GPU view changed the verdict');

  await openExample(page, base, 'paper/gauss13');
  const v1 = await verdictOf(page);
  await gpuRenders(page, 'webgpu gauss13', 'webgpu');
  await gpuTiming(page, 'webgpu gauss13', '#gpu-time', 1);
  await page.selectOption('#gpu-size', '1024');
  const heavy = await gpuTiming(page, 'webgpu gauss13 heavier', '#gpu-heavier', 12);
  if (heavy.width !== 1024) fail(`the heavier timing ran at ${heavy.width}x${heavy.height}`);
  await page.locator('#gpu').scrollIntoViewIfNeeded();
  await shot(page, 'gpu-webgpu-gauss13.png');
  if ((await verdictOf(page)) !== v1) fail('the GPU view changed the verdict');
  const word = await text(page, '#verdict');
  if (word !== v1) fail(`the verdict shows "${word}", the report "${v1}"`);

  // A pair whose GPU image differs: a cube-map lookup at a tie of the major axis
  // (|y| = |z|), a class docs/gpu-translation.md measures (the executor takes the y face,
  // SwiftShader the z face). The view says where; the verdict stays the executor's.
  // A new document (no scene): the unit gets a cube map of the default checkerboard.
  await page.click('#new-doc');
  await page.fill('#vp', TIE_VP);
  await page.fill('#fp', TIE_FP);
  // Its GPU renders come after its exact render (the classes name its cube map).
  await page.waitForFunction(() => {
    const g = window.hoistReport().gpu;
    return g.error || g.runErrors.some(Boolean)
      || (g.current && !g.busy && g.agreement[0] && g.agreement[1] && g.differences.includes('cube-maps'));
  }, null, { timeout: SLOW });
  await page.waitForFunction(done, null, { timeout: SLOW });
  const v2 = await verdictOf(page);
  const tie = (await report(page)).gpu;
  if (tie.error || tie.runErrors.some(Boolean)) fail(`the tie pair: ${tie.error || tie.runErrors}`);
  const [ta, tb] = tie.agreement;
  if (ta.agrees || !ta.words.startsWith('differs: max |Δ| = ') || !ta.at) fail(`the tie pair's original agrees: ${ta.words}`);
  if ((await page.getAttribute('#gpu-agree-original', 'class')).split(' ').indexOf('bad') < 0) fail('the difference is not marked');
  if ((await verdictOf(page)) !== v2 || (await text(page, '#verdict')) !== v2) fail('the GPU difference changed the verdict');
  await page.locator('#gpu').scrollIntoViewIfNeeded();
  await shot(page, 'gpu-webgpu-differs.png');
  log(`the tie pair: verdict ${v2}; GPU original ${ta.words}; optimized ${tb.words}`);

  // WebGL2 only.
  const gl = await open('webgl2', GPU_FLAGS.webgl2);
  await openExample(gl, base, 'paper/fig3');
  await showGpu(gl);
  await gpuRenders(gl, 'webgl2 fig3', 'webgl2');
  await gpuTiming(gl, 'webgl2 fig3', '#gpu-time', 1);
  await gl.locator('#gpu').scrollIntoViewIfNeeded();
  await shot(gl, 'gpu-webgl2-fig3.png');
  if ((await verdictOf(gl)) !== 'bit-identical') fail('WebGL2: the verdict changed');

  // Neither.
  const none = await open('no GPU API', GPU_FLAGS.none);
  await openExample(none, base, 'paper/fig3');
  await showGpu(none);
  const why = await waitText(none, '#gpu-unavailable', (t) => t.length > 0, 'the no-API note');
  if (!why.startsWith('Neither WebGPU nor WebGL2')) fail(`no API: the view says "${why}"`);
  const g = (await report(none)).gpu;
  if (g.api || g.agreement.some(Boolean) || g.unavailable !== why) fail(`no API: ${JSON.stringify(g)}`);
  if ((await verdictOf(none)) !== 'bit-identical') fail(`no API: the verdict is ${await verdictOf(none)}`);
  if ((await text(none, '#verdict')) !== 'bit-identical') fail('no API: the verdict is not shown');
  await none.locator('#gpu').scrollIntoViewIfNeeded();
  await shot(none, 'gpu-none.png');
  log(`no API: ${why}`);
});
