// The Machine panel (issue 13): the fragment and vertex programs on an R600-family VLIW-5
// GPU before and after the code motion — the figures row with utilisation bars, and the
// bundled listings with slot letters — and hoistReport().machine for scripts.
//   - on the first example, moving work to the vertex program leaves fewer fragment ALU
//     groups and no more fetches, and the panel shows the same figures the report gives;
//   - the listings name their slots (x: … t:) and their TEX clauses;
//   - every utilisation is a fraction in [0, 1], and its bar is drawn at that width.

import { done, fail, log, scenario, shot, text, waitText } from '../common.mjs';

scenario('machine', async ({ page }) => {
  await page.waitForFunction(done, null, { timeout: 90_000 });
  const rep = await page.evaluate(() => window.hoistReport());
  const m = rep.machine;
  if (!m) fail('hoistReport() has no machine');
  if (m.chip !== 'r600') fail(`machine.chip is ${m.chip}`);
  for (const k of ['fp_before', 'fp_after', 'vp_before', 'vp_after']) {
    const s = m[k];
    if (!s) fail(`machine.${k} missing`);
    for (const u of ['slot_utilization', 'fetch_utilization']) {
      if (!(s[u] >= 0 && s[u] <= 1)) fail(`machine.${k}.${u} = ${s[u]}`);
    }
  }
  const b = m.fp_before;
  const a = m.fp_after;
  if (!(a.alu_groups < b.alu_groups)) fail(`fragment ALU groups ${b.alu_groups} → ${a.alu_groups}: the motion saved nothing`);
  if (a.fetches > b.fetches) fail(`fragment fetches ${b.fetches} → ${a.fetches}`);
  await page.locator('#machine').scrollIntoViewIfNeeded();
  const row = await text(page, '#machine-fp-after');
  if (!row.includes(String(a.alu_groups))) fail(`the panel's row "${row}" lacks ${a.alu_groups} groups`);
  const width = await page.evaluate(() => document.querySelector('#machine-fp-after-slots .machine-fill').style.width);
  const want = 100 * a.slot_utilization;
  if (!(Math.abs(parseFloat(width) - want) < 0.051)) fail(`slot-use bar at ${width}, the report says ${want.toFixed(1)}%`);
  const before = await waitText(page, '#machine-listing-before', (t) => /\bx: /.test(t), 'the original listing');
  const after = await text(page, '#machine-listing-after');
  if (!/TEX: \d+ fetches/.test(before)) fail('the original listing has no TEX clause');
  if (!/\b[xyzwt]: [A-Z_0-9]+/.test(after)) fail('the optimized listing has no slot letters');
  await shot(page, 'machine-panel.png');
  log(`fragment on R600: ${b.alu_groups} → ${a.alu_groups} ALU groups, slot use ${(100 * b.slot_utilization).toFixed(1)}% → ${(100 * a.slot_utilization).toFixed(1)}%, ${b.fetches} → ${a.fetches} fetches, GPRs ${b.gprs} → ${a.gprs}`);
});
