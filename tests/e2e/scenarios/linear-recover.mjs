// The linear mode's program input, un-permute MOVs and convergence (issue 11, slice 11b):
//   - "a program" as input loads the colour-matrix ARB vertex program: its 12 output
//     components are recovered over the attributes, checked on 8 executor probes, packed,
//     and the packed code is equivalent;
//   - the YUV pixel shader: each texld result is a variable named after its line;
//   - a register to recover (r3) replaces the outputs; a permalink keeps input kind, text
//     and register;
//   - flow control is refused with a diagnostic at its line, and the worker says so;
//   - "un-permute the outputs" ends both programs with MOVs into result.texcoord[k], counts
//     them, and the verdict runs those programs;
//   - "Iterate to convergence" on Fig. 13 and Jacobi: both programs reach the fixed point in
//     the worker, and their solutions agree.

import { fail, log, scenario, shot, text, waitText } from '../common.mjs';

const linear = (page) => page.evaluate(() => window.hoistReport?.()?.linear ?? null);

async function result(page, pred, what, timeout = 90_000) {
  const end = Date.now() + timeout;
  let last = null;
  while (Date.now() < end) {
    last = await linear(page);
    if (last && last.mode === 'linear' && last.current && !last.searching && (last.cost_after !== null || last.error) && pred(last)) {
      return last;
    }
    await page.waitForTimeout(100);
  }
  fail(`timed out waiting for ${what}: last report ${JSON.stringify(last)}`);
}

const count = (page, sel) => page.evaluate((s) => document.querySelectorAll(s).length, sel);

scenario('linear-recover', async ({ page, base, open }) => {
  await page.click('#mode-linear');
  await page.selectOption('#linear-input-kind', 'program');
  let r = await result(page, (l) => l.input === 'program' && l.recovered_rows, 'the colour-matrix program recovered');
  log('colour-matrix', JSON.stringify(r));
  if ((await page.inputValue('#linear-example')) !== 'colour-matrix') fail('the program example is not picked');
  const rows = r.recovered_rows;
  for (const want of ['result.position.x', 'result.color.w', 'result.texcoord[0].z']) {
    if (!rows.includes(want)) fail(`the recovered rows ${JSON.stringify(rows)} lack ${want}`);
  }
  if (rows.length !== 12 || r.recovered_variables.length !== 12 || r.recovered_nonlinear !== 0) {
    fail(`colour matrix: ${rows.length} rows, ${r.recovered_variables.length} variables, ${r.recovered_nonlinear} non-affine`);
  }
  if (!r.recovered_variables.includes('vertex.color.x')) fail(`variables: ${r.recovered_variables}`);
  if (!r.recover_agrees || r.recover_probes !== 8 || !r.recover_check.startsWith('recovered system checked on 8 probes')) {
    fail(`the recovery check: ${r.recover_check}`);
  }
  if (!r.equivalent) fail(`colour matrix verdict: ${r.verdict}`);
  if (await count(page, '#linear-recovered-rows li') !== 12) fail('the page does not list 12 rows');
  await waitText(page, '#linear-recover-check', (t) => t.startsWith('recovered system checked on 8 probes'), 'the check line');
  // The sepia row: y of result.color.x is 0.393·vertex.color.x + 0.769·… + 0.05.
  const forms = await page.evaluate(() => [...document.querySelectorAll('#linear-recovered-rows li')].map((li) => li.textContent));
  const sepia = forms.find((f) => f.includes('result.color.x'));
  if (!sepia || !sepia.includes('0.393·vertex.color.x') || !sepia.endsWith('+ 0.05')) fail(`the colour row: ${sepia}`);
  log('row', sepia);

  // The YUV pixel shader: texture results become variables named after their lines.
  await page.selectOption('#linear-example', 'yuv-texture');
  r = await result(page, (l) => l.recovered_rows && l.recovered_rows[0]?.startsWith('oC0'), 'the YUV shader recovered');
  const src = (await page.inputValue('#linear-text')).split('\n');
  const texld = src.map((l, i) => (l.startsWith('texld') ? i + 1 : 0)).filter((n) => n);
  const named = r.recovered_variables.filter((v) => /^line \d+ texld \.[xyzw]$/.test(v));
  log('yuv', JSON.stringify(r.recovered_variables), 'texld lines', texld);
  if (named.length !== 12 || r.recovered_nonlinear !== 12) fail(`texld variables: ${named}`);
  for (const n of texld) if (!named.includes(`line ${n} texld .x`)) fail(`no variable for line ${n}`);
  if (!r.recovered_variables.includes('c0.x')) fail('the host-set constant c0 is not a variable');
  if (!r.recover_agrees || !r.equivalent) fail(`YUV: ${r.recover_check}; ${r.verdict}`);
  await page.evaluate(() => document.querySelector('#linear-recovered')?.scrollIntoView());
  await shot(page, 'linear-recover-program.png');

  // A register instead of the outputs, and the permalink of a program input.
  await page.fill('#linear-register', 'r3');
  await page.press('#linear-register', 'Enter');
  r = await result(page, (l) => l.recovered_rows?.[0] === 'r3.x', 'r3 recovered');
  if (r.recovered_rows.join() !== 'r3.x,r3.y,r3.z,r3.w' || !r.recover_agrees || !r.equivalent) fail(`r3: ${JSON.stringify(r)}`);
  const link = await page.evaluate(() => window.hoistReport().link);
  const text0 = await page.inputValue('#linear-text');
  const p2 = await open('permalink');
  await p2.goto(`${base}#${link}`);
  const r2 = await result(p2, (l) => l.recovered_rows?.[0] === 'r3.x', 'the permalink to restore r3');
  if ((await p2.inputValue('#linear-text')) !== text0) fail('the permalink changed the program');
  if ((await p2.inputValue('#linear-register')) !== 'r3') fail('the permalink lost the register');
  if ((await p2.inputValue('#linear-input-kind')) !== 'program') fail('the permalink lost the input kind');
  if (r2.cost_after !== r.cost_after || r2.recovered_variables.join() !== r.recovered_variables.join()) fail('the permalink recovers another system');
  log('permalink', link.length, 'chars');
  await page.fill('#linear-register', '');
  await page.press('#linear-register', 'Enter');

  // Flow control: a diagnostic at its line, and the worker's refusal.
  const flow = ['vs_3_0', 'dcl_position v0', 'dcl_position o0', 'mov r0, v0', 'if_lt r0.x, r0.y', 'mov r0, -r0', 'endif', 'mov o0, r0'].join('\n');
  await page.fill('#linear-text', flow);
  const diag = await waitText(page, '#ed-linear-text .diags', (t) => t.includes('flow control'), 'the refusal diagnostic');
  const pos = await text(page, '#ed-linear-text .diag-pos');
  log('refusal:', pos, diag.trim());
  if (!pos.startsWith('5:')) fail(`the refusal is at ${pos}, the if is on line 5`);
  await result(page, (l) => l.error?.startsWith('line 5: flow control'), 'the worker to refuse the program');
  await shot(page, 'linear-recover-refusal.png');

  // Un-permute MOVs on Fig. 13 (a system whose packed order is not the original).
  await page.selectOption('#linear-input-kind', 'system');
  await page.selectOption('#linear-example', 'fig13');
  r = await result(page, (l) => l.input === 'system' && l.cost_before === 38, 'Fig. 13');
  if (r.unpermute || !r.unpermute_moves) fail(`un-permute before ticking: ${JSON.stringify(r)}`);
  const plain = await text(page, '#linear-code-after');
  await page.check('#linear-unpermute');
  r = await result(page, (l) => l.unpermute && l.cost_before === 38, 'the un-permuted Fig. 13');
  const [mb, ma] = r.unpermute_moves;
  const groups = r.m / 4;
  if (mb !== groups || r.unpermute_extra[0] !== 0) fail(`the original order needs one MOV per output: ${mb} for ${groups}`);
  if (ma < groups || r.unpermute_extra[1] !== ma - groups) fail(`packed un-permute: ${ma} moves, ${r.unpermute_extra[1]} extra`);
  // ARB: MOV result.texcoord[k].mask, yG.swz; vs_3_0: mov ok.mask, rG.swz.
  const movs = (t) => (t.match(/MOV result\.texcoord\[\d+\]|mov o\d+\./g) || []).length;
  if (movs(plain) !== 0) fail('the code had un-permute MOVs before the option');
  await waitText(page, '#linear-code-after', (t) => movs(t) === ma, `${ma} un-permute MOVs in the packed code`);
  if (!r.equivalent) fail(`un-permuted verdict: ${r.verdict}`);
  await waitText(page, '#linear-verdict', (t) => t.includes('with their un-permute MOVs'), 'the verdict to name the MOVs');
  await waitText(page, '#linear-unpermute-cost', (t) => t.includes(`packed ${ma}`), 'the cost panel to count them');
  log(`fig13 un-permute: ${mb} → ${ma} MOVs (${r.unpermute_extra[1]} beyond one per output); ${r.verdict}`);

  // Convergence of Fig. 13 and Jacobi in the worker.
  await page.click('#linear-converge-button');
  r = await result(page, (l) => l.converge && l.convergence, 'Fig. 13 iterated', 120_000);
  log('fig13 convergence', r.convergence, JSON.stringify(r.converge_steps));
  if (!r.converge_agrees || r.converge_steps[0] < 2 || r.converge_steps[0] >= 2000) fail(`Fig. 13 convergence: ${r.convergence}`);
  await page.selectOption('#linear-example', 'jacobi');
  r = await result(page, (l) => l.cost_before !== 38 && l.converge && l.convergence, 'Jacobi iterated', 120_000);
  log('jacobi convergence', r.convergence, JSON.stringify(r.converge_steps), `${r.ms.toFixed(0)} ms packing`);
  if (!r.converge_agrees) fail(`Jacobi convergence: ${r.convergence}`);
  if ((await count(page, '#linear-converge-table tbody tr')) !== 2) fail('no convergence table');
  await page.evaluate(() => document.querySelector('#linear-converge')?.scrollIntoView());
  await shot(page, 'linear-recover-converge.png');
});
