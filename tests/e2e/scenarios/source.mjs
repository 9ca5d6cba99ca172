// Source mode (issue 22): WGSL and GLSL in the page. The compiler is a worker of its own, not
// loaded with the page: only the first source document fetches it. A WGSL example compiles,
// optimizes and renders with its probes (Chromium's WebGPU pixels) passing; the binding table
// lists its uniforms and interpolants; hovering a moved instruction of the optimized vertex
// program highlights its source expression, the source says the work "runs per vertex now",
// and a place in the source lights its generated and optimized instructions. A pasted error
// shows naga's message at its line with no verdict on the page, which stays usable, and the
// fix brings a verdict back. A WebGL-style GLSL pair works, edited too, and its permalink
// restores the source, not the assembly.

import { scenario, waitText, shot, fail, log, done, SLOW } from '../common.mjs';

const report = (page) => page.evaluate(() => window.hoistReport());
const settled = (page) => page.waitForFunction(done, null, { timeout: SLOW });
const frontLoaded = (page) => page.evaluate(() =>
  performance.getEntriesByType('resource').some((e) => /hoist-front/.test(e.name)));
const VERDICT = /^(bit-identical|equivalent)/;

/// Waits for the source to be compiled and the result of the current text shown.
async function ready(page, what) {
  await page.waitForFunction(() => {
    const r = window.hoistReport();
    return r?.source?.status === 'ready' && r.current;
  }, null, { timeout: SLOW }).catch(async () => fail(`${what}: not ready: ${JSON.stringify((await report(page))?.source)}`));
  await settled(page);
  return report(page);
}

async function pick(page, id) {
  await page.click('#examples-button');
  await page.click(`#ex-${id.replace('/', '-')}`);
  await page.waitForFunction((ex) => window.hoistReport()?.example === ex, id, { timeout: SLOW });
  return ready(page, id);
}

/// Puts the caret of `sel` at byte offset `at` (ASCII text) the way a click does.
async function caret(page, sel, at) {
  await page.focus(sel);
  await page.evaluate(([s, a]) => {
    const t = document.querySelector(s);
    t.setSelectionRange(a, a);
  }, [sel, at]);
  await page.click(sel, { position: { x: 2, y: 2 }, trial: true });
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowLeft');
}

scenario('source', async ({ page, base, open }) => {
  // The page starts without the compiler's bundle.
  if (await frontLoaded(page)) fail('the front worker was loaded with the page');
  const r = await pick(page, 'wgsl/lighting');
  if (!(await frontLoaded(page))) fail('source mode did not load the front worker');
  if (!VERDICT.test(r.verdict ?? '')) fail(`wgsl/lighting: verdict ${r.verdict}`);
  if (!r.validated) fail(`not validated: ${r.validation}`);
  if (!r.probes || r.probes[0] === 0 || r.probes[1] !== 0) fail(`probes ${JSON.stringify(r.probes)}`);
  const s = r.source;
  if (s.lang !== 'WGSL' || s.dialect !== 'Arb') fail(`compiled as ${s.lang} → ${s.dialect}`);
  log(`wgsl/lighting: ${r.verdict}, probes ${r.probes}, F ${JSON.stringify(r.before.fpSlots ?? r.before.fp_slots)} → ${JSON.stringify(r.after.fpSlots ?? r.after.fp_slots)}`);

  // The binding table: uniforms to program.local slots, interpolants to texcoords.
  const uniforms = s.bindings.uniforms.map((u) => u[0]);
  for (const u of ['light.pos', 'light.eye', 'light.colour', 'light.shininess']) {
    if (!uniforms.includes(u)) fail(`binding table lacks ${u}: ${uniforms}`);
  }
  const table = await waitText(page, '#bind-uniforms', (t) => t.includes('light.shininess'), 'the uniforms table');
  if (!/program\.local\[\d+\]/.test(table)) fail(`uniform slots: ${table}`);
  const rows = await waitText(page, '#bind-rows', (t) => t.includes('texcoord'), 'the interpolant rows');
  if (!rows.includes('@location(1)') || !/perspective/.test(rows)) fail(`interpolant rows: ${rows.slice(0, 400)}`);
  await page.locator('#bindings').scrollIntoViewIfNeeded();
  await shot(page, 'source-bindings.png');

  // Hover a moved instruction of the optimized vertex program: its source expression lights.
  const moved = page.locator('#opt-vp .ol.moved');
  if ((await moved.count()) === 0) fail('no moved instruction in the optimized vertex program');
  await moved.first().scrollIntoViewIfNeeded();
  await moved.first().hover();
  await page.waitForFunction(() => window.hoistReport()?.source?.lit, null, { timeout: SLOW });
  const hov = (await report(page)).source;
  if (!hov.lit.text.includes('i.world')) fail(`lit expression: ${JSON.stringify(hov.lit)}`);
  const litDom = await page.locator('#ed-src-wgsl .src-lit').allTextContents();
  if (litDom.join('') !== hov.lit.text) fail(`the editor highlights ${JSON.stringify(litDom)}, not ${hov.lit.text}`);
  if (hov.litOptimized[0].length === 0) fail('the hovered line is not lit');
  const runs = await page.locator('#ed-src-wgsl .lens.moved-note').allTextContents();
  if (!runs.some((t) => t.includes('runs per vertex now'))) fail(`no "runs per vertex now": ${runs}`);
  if (!hov.moved.some(([m]) => m.text.includes('light.pos - i.world'))) fail(`moved: ${JSON.stringify(hov.moved)}`);
  log(`hovered a moved line: "${hov.lit.text}" at line ${hov.lit.line}; notes: ${runs.join(' | ').slice(0, 160)}`);
  await page.locator('#ed-src-wgsl').scrollIntoViewIfNeeded();
  await shot(page, 'source-mapping.png');
  await page.mouse.move(2, 2);

  // And back: a place in the source lights its generated and optimized instructions.
  const src = await page.inputValue('#src-wgsl');
  await caret(page, '#src-wgsl', src.indexOf('light.pos - i.world') + 3);
  await page.waitForFunction(() => {
    const l = window.hoistReport()?.source;
    return l?.lit && l.litGenerated[1].length > 0;
  }, null, { timeout: SLOW });
  const back = (await report(page)).source;
  if ((await page.locator('#gen-fp .gen-line.lit').count()) === 0) fail('no generated line lit');
  if (back.litOptimized[0].length === 0) fail(`no optimized vertex line lit for ${back.lit.text}`);
  log(`source → ${back.litGenerated[1].length} generated and ${back.litOptimized[0].length} optimized vertex lines`);

  // A pasted error: naga's message at its line, no verdict, the page usable; fixed: a verdict.
  const lines = src.split('\n');
  const bad = lines.findIndex((l) => l.includes('let diffuse'));
  const broken = lines.map((l, i) => (i === bad ? '  let diffuse = max(dot(n, l), ;' : l)).join('\n');
  await page.fill('#src-wgsl', broken);
  await page.waitForFunction(() => window.hoistReport()?.source?.status === 'failed', null, { timeout: SLOW });
  const e = await report(page);
  const err = e.source.errors[0] ?? fail('no error reported');
  if (err.line !== bad + 1 || err.editor !== 'src-wgsl') fail(`error at ${err.editor}:${err.line}, expected line ${bad + 1}: ${err.text}`);
  if (e.verdict != null) fail(`a verdict is shown for a source that does not compile: ${e.verdict}`);
  await waitText(page, '#verdict', (t) => t === 'no verdict', 'no verdict');
  const lens = await page.locator('#ed-src-wgsl .lens.err').allTextContents();
  if (!lens.some((t) => t.includes(err.text))) fail(`the message is not at the line: ${lens}`);
  await waitText(page, '#src-status', (t) => t.startsWith('does not compile'), 'the status');
  log(`error at line ${err.line}: ${err.text}`);
  await page.locator('#ed-src-wgsl').scrollIntoViewIfNeeded();
  await shot(page, 'source-error.png');
  // Still usable: the options respond while the source is broken.
  await page.selectOption('#src-dialect', 'd3d9');
  await page.fill('#src-wgsl', src);
  const d3d = await ready(page, 'fixed, in D3D9');
  if (d3d.source.dialect !== 'D3d9' || !VERDICT.test(d3d.verdict ?? '')) fail(`fixed: ${d3d.source.dialect} ${d3d.verdict}`);
  await page.selectOption('#src-dialect', '');
  const fixed = await ready(page, 'fixed');
  if (!VERDICT.test(fixed.verdict ?? '')) fail(`after the fix: ${fixed.verdict}`);
  log(`fixed: ${fixed.verdict} (and ${d3d.verdict} in D3D9)`);

  // A WebGL-style GLSL pair, as pasted: edited, compiled and verified.
  const g = await pick(page, 'glsl/webgl-textured');
  if (g.source.lang !== 'GLSL' || !VERDICT.test(g.verdict ?? '')) fail(`webgl-textured: ${g.source.lang} ${g.verdict}`);
  if (!g.source.bindings.rows.some((b) => b[3].includes('by name'))) fail('attributes were not bound by name');
  const fs = await page.inputValue('#src-fs');
  const mine = fs.replace('c.rgb * 0.8 + 0.1', 'c.bgr * 0.75 + 0.125');
  if (mine === fs) fail('the fragment shader changed');
  await page.fill('#src-fs', mine);
  const edited = await ready(page, 'the edited GLSL pair');
  if (!VERDICT.test(edited.verdict ?? '') || edited.link.startsWith('ex=')) fail(`edited: ${edited.verdict} ${edited.link}`);
  await shot(page, 'source-glsl.png');

  // The permalink restores the source (and compiles it again).
  const other = await open('page 2');
  await other.goto(`${base}#${edited.link}`);
  const again = await ready(other, 'the permalink');
  if ((await other.inputValue('#src-fs')) !== mine) fail('the permalink did not restore the fragment shader');
  if (again.verdict !== edited.verdict) fail(`permalink verdict ${again.verdict}, was ${edited.verdict}`);
  log(`permalink (${edited.link.length} characters) restores the GLSL pair: ${again.verdict}`);

  // WGSL input with two fragment entry points: the compiler asks for a pick, the picker
  // lists them, and the pick compiles.
  await page.click('#input-wgsl');
  await ready(page, 'a new WGSL pair');
  const two = `struct V { @builtin(position) p: vec4<f32>, @location(0) uv: vec2<f32> }
@vertex fn vs(@location(0) p: vec4<f32>, @location(8) t: vec2<f32>) -> V { return V(p, t); }
@fragment fn red(i: V) -> @location(0) vec4<f32> { return vec4<f32>(1.0, 0.0, 0.0, 1.0); }
@fragment fn shade(i: V) -> @location(0) vec4<f32> { return vec4<f32>(i.uv * 2.0 + 0.25, 0.5, 1.0); }
`;
  await page.fill('#src-wgsl', two);
  await page.waitForFunction(() => window.hoistReport()?.source?.status === 'failed', null, { timeout: SLOW });
  const several = (await report(page)).source.errors[0]?.text ?? '';
  if (!several.includes('red, shade')) fail(`several entry points: ${several}`);
  const options = await page.locator('#src-fragment option').allTextContents();
  if (!options.includes('red') || !options.includes('shade')) fail(`the picker offers ${options}`);
  await page.selectOption('#src-fragment', 'shade');
  const picked = await ready(page, 'the picked entry point');
  if (!VERDICT.test(picked.verdict ?? '')) fail(`picked: ${picked.verdict}`);
  if (!picked.source.moved.some(([m]) => m.text.includes('i.uv * 2.0'))) fail(`moved: ${JSON.stringify(picked.source.moved)}`);
  log(`entry points: "${several}"; picked shade: ${picked.verdict}, moved ${picked.source.moved.map(([m]) => m.text).join('; ')}`);
});
