// The linear mode's lane debugger (issue 25: "in linear mode, the debugger shows the packed
// system's lanes"), on Fig. 13:
//   - "Step through the lanes" opens it on x vector 1: both programs' rows side by side,
//     each lane labelled (x inputs, partial sums, final y);
//   - every variable's final lane, in both programs, holds the y the page's final table
//     shows for it (bit for bit), and that y is within the tolerance of A·x + b;
//   - ArrowDown/ArrowUp and j/k step; hex shows the exact bits, matching the report's;
//   - the selector picks another x vector and the trace follows it.

import { fail, log, scenario, shot, text } from '../common.mjs';

const linear = (page) => page.evaluate(() => window.hoistReport?.()?.linear ?? null);

/// Waits for the debugger's trace of x vector `vector` (0-based).
async function traced(page, vector, what) {
  await page.waitForFunction((v) => {
    const d = window.hoistReport()?.linear?.debug;
    return d && d.vector === v && d.view && (d.view.Err || d.view.Ok.vector === v);
  }, vector, { timeout: 90_000 }).catch(async () => fail(`no trace (${what}): ${JSON.stringify((await linear(page))?.debug)}`));
  const d = (await linear(page)).debug;
  if (!d.view.Ok) fail(`the trace failed (${what}): ${JSON.stringify(d.view)}`);
  return d.view.Ok;
}

const f32 = (bits) => new Float32Array(new Uint32Array([bits]).buffer)[0];

/// Final lanes against the final table: per variable and program, the lane labelled
/// `y{i} (final)` holds the y shown for it; y is within 1e-4 (relative) of A·x + b.
function finals(v, what) {
  for (const f of v.finals) {
    for (const s of [0, 1]) {
      const lanes = [];
      for (const r of v.rows) {
        const c = r[s];
        if (!c) continue;
        c.labels.forEach((l, k) => { if (l === `y${f.var} (final)`) lanes.push(c.bits[k]); });
      }
      if (lanes.length !== 1) fail(`${what}: y${f.var} has ${lanes.length} final lanes in program ${s}`);
      if (lanes[0] !== f.bits[s]) fail(`${what}: y${f.var}'s final lane 0x${lanes[0].toString(16)} is not the y shown, 0x${f.bits[s].toString(16)}`);
      const d = Math.abs(f32(f.bits[s]) - f.want);
      if (!(d <= 1e-4 * (1 + Math.abs(f.want)))) fail(`${what}: y${f.var} = ${f32(f.bits[s])}, A·x + b = ${f.want}`);
    }
  }
  return v.finals.length;
}

scenario('linear-debugger', async ({ page, base }) => {
  await page.goto(`${base}#ex=linear/fig13`);
  await page.waitForFunction(() => {
    const l = window.hoistReport()?.linear;
    return l && l.mode === 'linear' && l.current && !l.searching && l.cost_after !== null;
  }, null, { timeout: 90_000 }).catch(() => fail('Fig. 13 did not pack'));
  const r = await linear(page);
  if (!r.equivalent) fail(`Fig. 13's verdict: ${r.verdict}`);
  if (r.debug) fail('the lane debugger is open before it was asked for');
  await page.click('#lindebug-open');
  let v = await traced(page, 0, 'x vector 1');
  const labels = v.rows.flatMap((row) => row.flatMap((c) => (c ? c.labels : [])));
  const kinds = ['(input)', 'partial sum of', '(final)'].map((k) => labels.filter((l) => l.includes(k)).length);
  if (kinds.some((n) => n === 0)) fail(`lane labels (inputs, partial sums, finals): ${kinds}`);
  let n = finals(v, 'x vector 1');
  // The page's final table shows the same y (floats in their shortest exact text).
  for (const f of v.finals) {
    const cells = await page.$$eval(`#lindebug-y-${f.var} td`, (tds) => tds.map((t) => t.textContent));
    for (const s of [0, 1]) {
      if (Math.fround(Number(cells[1 + s])) !== f32(f.bits[s])) {
        fail(`y${f.var}: the table shows ${cells[1 + s]}, the trace ${f32(f.bits[s])}`);
      }
    }
  }
  log(`x vector 1: ${v.rows.length} rows, ${n} variables, labels ${kinds.join('/')} (inputs/partials/finals)`);

  // Stepping.
  await page.focus('#lindebug');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => window.hoistReport().linear.debug.row === 2, null, { timeout: 5000 })
    .catch(async () => fail(`after ↓↓↓ j k ↑ the row is ${(await linear(page)).debug.row}`));
  if (!(await page.locator('#lindebug-row-2.current').count())) fail('row 2 is not highlighted');

  // Exact bits: the final table's y in hex is the trace's bits.
  await page.check('#lindebug-hex');
  const f0 = v.finals[0];
  const hex = await text(page, `#lindebug-y-${f0.var} td:nth-child(3) .comp`);
  if (hex !== `0x${f0.bits[1].toString(16).padStart(8, '0')}`) fail(`hex shows ${hex} for y${f0.var}, the trace 0x${f0.bits[1].toString(16)}`);
  const first = await text(page, '#lindebug tr.lindebug-row .comp');
  if (!/^0x[0-9a-f]{8}$/.test(first)) fail(`a lane in hex: ${first}`);
  await page.locator('#lindebug').scrollIntoViewIfNeeded();
  await shot(page, 'linear-debugger-1-fig13.png');
  await page.uncheck('#lindebug-hex');

  // Another x vector.
  await page.selectOption('#lindebug-vector', '5');
  const w = await traced(page, 4, 'x vector 5');
  n += finals(w, 'x vector 5');
  if (JSON.stringify(w.x) === JSON.stringify(v.x)) fail('x vector 5 is x vector 1');
  log(`x vector 5: final lanes agree; ${n} variables checked in all`);
  await shot(page, 'linear-debugger-2-vector5.png');
});
