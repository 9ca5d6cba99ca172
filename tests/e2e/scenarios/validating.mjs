// The images before validation (issue 26's critical path): after an edit the page shows the
// new images as soon as they are drawn, with "validating…" where the verdict goes, and
// gives the verdict word only when validation has answered. Every change of the page is
// recorded (a MutationObserver: no state between two renders can be missed): no record
// shows a verdict word for the new text before one shows "validating…" with the new images,
// and while validating hoistReport() has no verdict. With validation's answer held back
// (the test switch `hoist-test-validation-delay`) every edit must paint "validating…".

import { scenario, fail, log, settledReport, shot } from '../common.mjs';

const watch = () => {
  window.__seen = [];
  const obs = new MutationObserver(() => {
    const r = window.hoistReport?.();
    const v = document.querySelector('#verdict')?.textContent ?? '';
    const last = window.__seen[window.__seen.length - 1];
    const rec = [v, !!r?.current, !!r?.validating, r?.verdict ?? null, !!r?.rendering];
    if (!last || JSON.stringify(last) !== JSON.stringify(rec)) window.__seen.push(rec);
  });
  obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
};

/// Edits `from` into `to` in the fragment program and checks the states the page went
/// through; returns whether "validating…" was among them.
async function edit(page, fp, from, to, what) {
  await page.evaluate(watch);
  await page.fill('#fp', fp.replace(from, to));
  const r = await settledReport(page, what);
  if (r.verdict !== 'bit-identical') fail(`${what}: verdict ${r.verdict}`);
  const seen = await page.evaluate(() => window.__seen);
  const validating = seen.findIndex(([v, current, pending, , rendering]) => v === 'validating…' && current && pending && !rendering);
  const earned = seen.findIndex(([, current, pending, verdict]) => current && !pending && verdict);
  if (earned < 0) fail(`${what}: no verdict recorded: ${JSON.stringify(seen)}`);
  if (validating >= 0 && earned < validating) fail(`${what}: a verdict before validation: ${JSON.stringify(seen)}`);
  // Drawn and validating: no verdict, and the page says "validating…" — or still
  // "checking…" for the moment Yew's scheduler yields between the app's render and the
  // output panel's (it yields every 16 ms of work; a record can fall in between on a busy
  // machine), never a verdict word.
  for (const [v, current, pending, verdict, rendering] of seen) {
    if (current && pending && !rendering && (verdict !== null || !['validating…', 'checking…'].includes(v))) {
      fail(`${what}: while validating the page said "${v}", the report ${verdict}`);
    }
  }
  log(`${what}: ${seen.length} states; "validating…" ${validating >= 0 ? `at ${validating}` : 'not painted (validation answered in the same task)'}, the verdict at ${earned}`);
  return validating >= 0;
}

scenario('validating', async ({ page }) => {
  await settledReport(page, 'Figure 3');
  let shown = 0;
  const fp = await page.inputValue('#fp');
  if (!fp.includes('def c1, 0.5,')) fail('Figure 3 changed: no `def c1, 0.5,`');
  for (const w of ['0.375', '0.625']) shown += await edit(page, fp, 'def c1, 0.5,', `def c1, ${w},`, `Figure 3, weight ${w}`);
  await page.click('#examples-button');
  await page.click('#ex-paper-gauss13');
  await settledReport(page, 'gauss13');
  const g = await page.inputValue('#fp');
  const from = 'def c4, 0.00398996682,';
  if (!g.includes(from)) fail(`gauss13 changed: no \`${from}\``);
  for (const w of ['0.25', '0.125']) {
    shown += await edit(page, g, from, `def c4, ${w},`, `gauss13, weight ${w}`);
  }
  // Validation of a small pair often answers within the worker's hold (engine::HOLD_MS),
  // or before the page has drawn the images, and then arrives with them: the edits above
  // need not paint "validating…". With validation's answer held back 300 ms (the test
  // switch), each edit must paint the images with "validating…" and no verdict, then the
  // verdict.
  await page.evaluate(() => localStorage.setItem('hoist-test-validation-delay', '300'));
  for (const w of ['0.375', '0.5']) {
    if (!(await edit(page, g, from, `def c4, ${w},`, `gauss13, slow validation, weight ${w}`))) {
      fail(`gauss13, slow validation, weight ${w}: "validating…" was not painted before the verdict`);
    }
  }
  await page.evaluate(() => localStorage.removeItem('hoist-test-validation-delay'));
  await shot(page, 'validating-done.png');
  log(`"validating…" painted on ${shown} of the 4 edits with the hold`);
});
