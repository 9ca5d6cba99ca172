// Vector packing (SLP) in the code-motion mode: on sort-arb, checking "pack vectors (SLP)"
// merges fragment instructions the motion left (the statistics and hoistReport() count the
// merges), the fragment slot count drops below the result without it, validation still
// passes and the render stays bit-identical; the option survives the permalink, and
// unchecking it restores the slots.

import { scenario, waitText, shot, fail, log, done, SLOW } from '../common.mjs';

const report = (page) => page.evaluate(() => window.hoistReport());
const slots = (c) => c.alu + c.tex + c.flow;
const fpSlots = (s) => slots(s.fpSlots ?? s.fp_slots);
const vpSlots = (s) => slots(s.vpSlots ?? s.vp_slots);
const settled = (page) => page.waitForFunction(done, null, { timeout: SLOW });
const current = (page) => page.waitForFunction(() => window.hoistReport?.()?.current, null, { timeout: SLOW });

async function pick(page, id) {
  await page.click('#examples-button');
  await page.click(`#ex-${id.replace('/', '-')}`);
  await page.waitForFunction((ex) => window.hoistReport()?.example === ex && window.hoistReport().current, id, { timeout: SLOW });
  await settled(page);
}

async function toggle(page, on) {
  if (on) await page.check('#opt-slp'); else await page.uncheck('#opt-slp');
  await current(page);
  await settled(page);
  return report(page);
}

scenario('slp', async ({ page, base, open }) => {
  const id = 'paper/sort-arb';
  await pick(page, id);
  const off = await report(page);
  if (off.slpMerges != null) fail(`SLP merges reported while the option is off: ${JSON.stringify(off.slpMerges)}`);
  if (off.verdict !== 'bit-identical') fail(`${id} without SLP: ${off.verdict}`);

  const on = await toggle(page, true);
  const [v, f] = on.slpMerges ?? fail('hoistReport() has no slpMerges with the option on');
  if (v + f === 0) fail(`${id}: SLP merged nothing`);
  if (!(fpSlots(on.after) < fpSlots(off.after))) fail(`${id}: fragment slots did not drop: ${fpSlots(off.after)} → ${fpSlots(on.after)}`);
  if (!on.validated) fail(`${id} with SLP: not validated: ${on.validation}`);
  if (on.verdict !== 'bit-identical') fail(`${id} with SLP: ${on.verdict}`);
  const row = await waitText(page, '#stat-slp', (t) => t.includes(`${f} fragment`), 'the merges in the statistics');
  log(`${id}: fragment slots ${fpSlots(off.after)} → ${fpSlots(on.after)}, vertex ${vpSlots(off.after)} → ${vpSlots(on.after)}; “${row}”; ${on.verdict}`);
  await page.locator('#stats').scrollIntoViewIfNeeded();
  await shot(page, 'slp-stats.png');
  await page.locator('#opt-fp').scrollIntoViewIfNeeded();
  await shot(page, 'slp-optimized.png');

  // The option travels with the document's link.
  const other = await open('page 2');
  await other.goto(`${base}#${on.link}`);
  await other.waitForFunction(() => window.hoistReport?.()?.current, null, { timeout: SLOW });
  await other.waitForFunction(done, null, { timeout: SLOW });
  if (!(await other.isChecked('#opt-slp'))) fail('the permalink lost "pack vectors (SLP)"');
  const again = await report(other);
  if (JSON.stringify(again.slpMerges) !== JSON.stringify(on.slpMerges)) fail(`the permalink merges ${JSON.stringify(again.slpMerges)}`);

  const back = await toggle(page, false);
  if (fpSlots(back.after) !== fpSlots(off.after) || back.slpMerges != null) fail('unchecking SLP did not restore the result');
});
