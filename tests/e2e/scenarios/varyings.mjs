// The Interpolators panel on the packed 13-tap Gaussian (issue 24): with mirrored parameters
// every tap address moves and the exact packing shares texcoord[0].y, so the fragment
// program drops from 41 to 27 slots, proven optimal, validated and bit-identical. The maps
// say it per component: one register (x, y) read before; after, five registers whose x, z
// and w carry the 13 moved MADs (named by their line) and whose y carries the moved
// `MOV tc`'s y, one value shared by all five, all perspective; varying_pack's reasons name
// it. Turning mirroring off
// moves nothing and the optimized map is the original one again.

import { scenario, waitText, shot, fail, log, done, SLOW } from '../common.mjs';

const report = (page) => page.evaluate(() => window.hoistReport());
const slots = (c) => c.alu + c.tex + c.flow;
const fpSlots = (s) => slots(s.fpSlots ?? s.fp_slots);
const settled = (page) => page.waitForFunction(done, null, { timeout: SLOW });
const current = (page) => page.waitForFunction(() => window.hoistReport()?.current, null, { timeout: SLOW });
const cells = (regs) => regs.flatMap((r) => r.comps.filter((c) => c));

async function pick(page, id) {
  await page.click('#examples-button');
  await page.click(`#ex-${id.replace('/', '-')}`);
  await page.waitForFunction((ex) => window.hoistReport()?.example === ex && window.hoistReport().current, id, { timeout: SLOW });
  await settled(page);
}

async function mirror(page, on) {
  if (on) await page.check('#opt-mirror'); else await page.uncheck('#opt-mirror');
  await current(page);
  await settled(page);
  return report(page);
}

scenario('varyings', async ({ page }) => {
  const id = 'paper/gauss13-packed';
  await pick(page, id);
  const r = await mirror(page, true);
  const [fb, fa] = [fpSlots(r.before), fpSlots(r.after)];
  if (fb !== 41 || fa !== 27) fail(`${id}: F ${fb} → ${fa}, expected 41 → 27`);
  if (!r.validated) fail(`${id}: not validated: ${r.validation}`);
  if (r.verdict !== 'bit-identical') fail(`${id}: ${r.verdict}`);
  const v = r.varyings ?? fail('hoistReport() has no varyings');

  // Before: texcoord[0].x and .y, perspective.
  const before = cells(v.before);
  if (v.before.length !== 1 || before.length !== 2) fail(`before: ${JSON.stringify(v.before)}`);
  if (v.before[0].name !== 'fragment.texcoord[0]' || v.before[0].qualifier !== 'perspective') {
    fail(`before: ${JSON.stringify(v.before[0])}`);
  }
  // After: 13 moved addresses in 5 registers, each with the shared y.
  const after = cells(v.after);
  if (v.after.length !== 5 || after.length !== 18) fail(`after: ${v.after.length} registers, ${after.length} components: ${JSON.stringify(v.after)}`);
  if (!after.every((c) => c.moved)) fail(`not every component after is moved: ${JSON.stringify(v.after)}`);
  const mads = new Set(after.filter((c) => c.source.includes('MAD tc.x')).map((c) => c.value));
  if (mads.size !== 13 || ![...mads].every((l) => /^line \d+ \.x$/.test(l))) fail(`moved addresses: ${[...mads]}`);
  const y0 = JSON.stringify(v.after[0].comps[1]);
  for (const reg of v.after) {
    if (reg.qualifier !== 'perspective') fail(`${reg.name}: ${reg.qualifier}`);
    if (!reg.comps[1]?.source.includes('MOV tc, fragment.texcoord[0]') || JSON.stringify(reg.comps[1]) !== y0) {
      fail(`${reg.name}.y carries ${JSON.stringify(reg.comps[1])}`);
    }
  }
  const pack = v.passes.find((p) => p.pass === 'varying_pack') ?? fail('no varying_pack effect');
  if (v.passes.map((p) => p.pass).join() !== 'varying_dead,varying_const,varying_dedup,varying_uniform,varying_pack') {
    fail(`passes: ${v.passes.map((p) => p.pass)}`);
  }
  if (!pack.steps.every((s) => s.text.startsWith('varying_pack'))) fail(`pack steps: ${JSON.stringify(pack.steps)}`);

  // The panel draws the same.
  const counts = await waitText(page, '#var-counts', (t) => t.includes('Registers read: 1 → 5; components: 2 → 18'), 'the counts');
  const afterRows = await page.locator('#var-after tbody tr').count();
  if (afterRows !== 5) fail(`the optimized map has ${afterRows} rows`);
  const movedCells = await page.locator('#var-after td.var-moved').count();
  if (movedCells !== 18) fail(`the optimized map marks ${movedCells} moved cells`);
  const packText = await waitText(page, '#var-pass-varying_pack', (t) => t.startsWith('varying_pack'), 'varying_pack');
  log(`${id}: F ${fb} → ${fa}; “${counts}”; “${packText.slice(0, 120)}”`);
  await page.locator('#varyings').scrollIntoViewIfNeeded();
  await shot(page, 'varyings.png');

  // Without mirrored parameters nothing moves: the optimized map is the original.
  const off = await mirror(page, false);
  if (fpSlots(off.after) !== 41) fail(`without mirroring: F ${fpSlots(off.after)}`);
  if (JSON.stringify(off.varyings.after) !== JSON.stringify(off.varyings.before)) {
    fail(`without mirroring the map changed: ${JSON.stringify(off.varyings.after)}`);
  }
});
