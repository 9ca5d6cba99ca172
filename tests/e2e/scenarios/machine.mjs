// The Machine panel (issue 13): the fragment and vertex programs on an R600-family VLIW-5
// GPU before and after the code motion — the figures row with utilisation bars, and the
// bundled listings with slot letters — and hoistReport().machine for scripts.
//   - on the first example, moving work to the vertex program leaves fewer fragment ALU
//     groups and no more fetches, and the panel shows the same figures the report gives;
//   - the listings name their slots (x: … t:) and their TEX clauses;
//   - every utilisation is a fraction in [0, 1], and its bar is drawn at that width;
//   - the cost model "R600 machine" (then "R700 machine"): the selection runs under it, the
//     result is validated and bit-identical, the machine model prices it no higher than
//     the original pair, the statistics and hoistReport() say which model and what it
//     minimised, the Machine panel shows that chip, and the link carries the choice.

import { SLOW, done, fail, log, scenario, shot, text, waitText } from '../common.mjs';

const report = (page) => page.evaluate(() => window.hoistReport());

/// Chooses a cost model and waits for the page to settle on it.
async function choose(page, id) {
  await page.check(`#cost-${id}`);
  await page.waitForFunction((m) => window.hoistReport?.()?.current && window.hoistReport().cost.model === m, id, { timeout: SLOW });
  await page.waitForFunction(done, null, { timeout: SLOW });
  return report(page);
}

async function machineCost(page, chip) {
  const r = await choose(page, chip);
  if (!r.validated) fail(`${chip}: not validated: ${r.validation}`);
  if (r.verdict !== 'bit-identical') fail(`${chip}: verdict ${r.verdict}`);
  if (!/cycles per wavefront/.test(r.cost.minimises)) fail(`${chip}: cost.minimises = ${r.cost.minimises}`);
  const m = r.machine;
  if (m.chip !== chip) fail(`${chip}: machine.chip is ${m.chip}`);
  const p = m.priced;
  if (!p || !(p.before > 0) || !(p.after > 0)) fail(`${chip}: machine.priced = ${JSON.stringify(p)}`);
  if (p.after > p.before) fail(`${chip}: the selection costs ${p.after} > the original's ${p.before}`);
  const line = await text(page, '#stat-cost');
  const want = `${p.before.toFixed(2)} → ${p.after.toFixed(2)}`;
  if (!line.includes(`cost model: ${chip}`) || !line.includes(want)) fail(`${chip}: the statistics say "${line}", want ${want}`);
  const groups = `${m.fp_before.alu_groups} → ${m.fp_after.alu_groups} ALU groups`;
  if (!line.includes(groups)) fail(`${chip}: the statistics lack "${groups}": "${line}"`);
  await waitText(page, '#machine h2', (t) => t.includes(chip.toUpperCase()), `the Machine panel on ${chip}`);
  log(`${chip}: cycles ${p.before.toFixed(2)} → ${p.after.toFixed(2)}, fragment ${groups}, ${r.verdict}`);
  return r;
}

scenario('machine', async ({ page, base, open }) => {
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

  const paper = await report(page);
  if (paper.cost.model !== 'paper' || m.priced) fail(`the default cost model: ${JSON.stringify(paper.cost)}, priced ${JSON.stringify(m.priced)}`);
  await machineCost(page, 'r600');
  await page.locator('#stats').scrollIntoViewIfNeeded();
  await shot(page, 'machine-cost-r600.png');
  const r700 = await machineCost(page, 'r700');
  const other = await open('page 2');
  await other.goto(`${base}#${r700.link}`);
  await other.waitForFunction(() => window.hoistReport?.()?.current, null, { timeout: SLOW });
  if (!(await other.isChecked('#cost-r700'))) fail('the permalink lost the r700 cost model');
  if ((await report(other)).cost.model !== 'r700') fail('the permalink loads another cost model');
  await choose(page, 'paper');
});
