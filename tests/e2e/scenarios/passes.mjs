// The later passes as page options: "R600 peepholes", "schedule for register pressure" and
// "fit temp limits" each keep the result validated and bit-identical, never add fragment
// slots, and scheduling never raises the optimized programs' peak pressure; the options
// travel with the permalink.

import { scenario, fail, log, done, SLOW } from '../common.mjs';

const report = (page) => page.evaluate(() => window.hoistReport());
const slots = (c) => c.alu + c.tex + c.flow;
const fpSlots = (s) => slots(s.fpSlots ?? s.fp_slots);
const settled = (page) => page.waitForFunction(done, null, { timeout: SLOW });
const current = (page) => page.waitForFunction(() => window.hoistReport?.()?.current, null, { timeout: SLOW });

async function pick(page, id) {
  await page.click('#examples-button');
  await page.click(`#ex-${id.replace('/', '-')}`);
  await page.waitForFunction((ex) => window.hoistReport()?.example === ex && window.hoistReport().current, id, { timeout: SLOW });
  await settled(page);
}

async function set(page, sel, on) {
  if (on) await page.check(sel); else await page.uncheck(sel);
  await current(page);
  await settled(page);
  return report(page);
}

scenario('passes', async ({ page, base, open }) => {
  for (const id of ['paper/conv2d-arb', 'paper/gauss13']) {
    await pick(page, id);
    const off = await report(page);
    if (off.verdict !== 'bit-identical') fail(`${id}: ${off.verdict}`);
    for (const [sel, name] of [['#opt-peepholes', 'peepholes'], ['#opt-schedule', 'schedule'], ['#opt-fit', 'fit']]) {
      const on = await set(page, sel, true);
      if (!on.validated) fail(`${id} with ${name}: not validated: ${on.validation}`);
      if (on.verdict !== 'bit-identical') fail(`${id} with ${name}: ${on.verdict}`);
      if (fpSlots(on.after) > fpSlots(off.after)) fail(`${id} with ${name}: fragment slots ${fpSlots(off.after)} → ${fpSlots(on.after)}`);
      if (name === 'schedule') {
        const [a, b] = [off.liveness, on.liveness];
        if (!a || !b) fail(`${id}: hoistReport() has no liveness`);
        if (b.fpAfter > a.fpAfter || b.vpAfter > a.vpAfter) fail(`${id}: scheduling raised the peak: ${JSON.stringify(a)} → ${JSON.stringify(b)}`);
        log(`${id} schedule: peaks vp ${a.vpAfter} → ${b.vpAfter}, fp ${a.fpAfter} → ${b.fpAfter}`);
      } else {
        log(`${id} ${name}: fragment slots ${fpSlots(off.after)} → ${fpSlots(on.after)}, ${on.verdict}`);
      }
      if (name !== 'fit') await set(page, sel, false);
    }
  }
  // With "fit" still on, the link carries it.
  const link = (await report(page)).link;
  const other = await open('page 2');
  await other.goto(`${base}#${link}`);
  await other.waitForFunction(() => window.hoistReport?.()?.current, null, { timeout: SLOW });
  if (!(await other.isChecked('#opt-fit'))) fail('the permalink lost "fit temp limits"');
  if (await other.isChecked('#opt-peepholes')) fail('the permalink turned the peepholes on');
});
