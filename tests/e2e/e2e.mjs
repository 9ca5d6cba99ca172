// End-to-end test of the Hoist playground: serves dist/ (built by `trunk build --release`)
// from a tiny static server, drives headless Chromium with playwright-core and checks the
// Figure 3 example (with its validation status), a worker that dies (forced through the
// test switch `hoist-test-worker-panic` in local storage) and the recovery, inline
// diagnostics, a hand edit that changes the result, permalinks and the console.
// Screenshots go to tests/e2e/screenshots/. Exits non-zero on any failure.
//
//   node tests/e2e/e2e.mjs            (from the repository root or anywhere)
//   HOIST_E2E_DIST=path/to/dist node tests/e2e/e2e.mjs

import fs from 'node:fs';
import path from 'node:path';
import {
  SLOW, dist, root, shots, log, fail, Failure, launch, text, waitText, shot, serve,
} from './common.mjs';

// ---- the test ------------------------------------------------------------------------------
async function main() {
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    fail(`${dist}/index.html not found: run \`trunk build --release\` first`);
  }
  fs.mkdirSync(shots, { recursive: true });
  const server = await serve(dist);
  const base = `http://127.0.0.1:${server.address().port}/`;
  log('serving', path.relative(root, dist) || dist, 'at', base);
  const errors = [];
  const opened = [];
  try {
    const a = await launch(errors, 'page 1');
    opened.push(a);
    const page = a.ctx.pages()[0] || (await a.ctx.newPage());
    await page.goto(base);
    await waitText(page, '#verdict', (t) => t.length > 0, 'the app to start', SLOW);
    log('page loaded');

    // 0. Escape closes the gallery and gives the focus back to the button that opened it.
    await page.click('#examples-button');
    await page.waitForSelector('#gallery');
    await page.focus('#ex-paper-fig3');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#gallery', { state: 'detached', timeout: 5000 })
      .catch(() => fail('Escape did not close the example gallery'));
    const refocused = await page.evaluate(() => document.activeElement?.id);
    if (refocused !== 'examples-button') fail(`after Escape the focus is on ${JSON.stringify(refocused)}, not the Examples button`);
    log('Escape closes the gallery; the focus is back on the Examples button');

    // 1. Pick the Figure 3 example from the gallery.
    await page.click('#examples-button');
    await page.click('#ex-paper-fig3');
    await waitText(page, '#stat-fp', (t) => /^16 → \d+$/.test(t), 'Figure 3 statistics');
    const fp = await waitText(page, '#stat-fp', (t) => t === '16 → 7', 'fragment slots 16 → 7', 20_000)
      .catch(async (e) => fail(`${e.message} (the optimizer decides this number)`));
    const vp = await text(page, '#stat-vp');
    const m = /^2 → (\d+)$/.exec(vp || '');
    if (!m || Number(m[1]) > 14) fail(`vertex slots should be 2 → 14 or fewer, the page shows ${JSON.stringify(vp)}`);
    log('statistics: fragment', fp, '| vertex', vp);
    await waitText(page, '#verdict', (t) => t === 'bit-identical', 'a bit-identical verdict');
    log('verdict: bit-identical');
    // The page shows what the optimizer computed (window.hoistReport() is the data).
    const rep = await page.evaluate(() => window.hoistReport());
    const slots = (c) => c.alu + c.tex + c.flow;
    const shown = `${slots(rep.before.fpSlots ?? rep.before.fp_slots)} → ${slots(rep.after.fpSlots ?? rep.after.fp_slots)}`;
    if (shown !== fp || rep.verdict !== 'bit-identical' || !rep.current || rep.example !== 'paper/fig3') {
      fail(`hoistReport() disagrees with the page: ${JSON.stringify({ shown, fp, verdict: rep.verdict, current: rep.current, example: rep.example })}`);
    }
    const moved = rep.fates.filter((f) => f.fate === 'moved').length;
    log(`report: ${moved} of ${rep.fates.length} fragment instructions moved; optimizer ${rep.optimizerMs.toFixed(1)} ms, render ${rep.renderMs.map((x) => x.toFixed(1)).join(' / ')} ms`);
    // The verdict comes with the validation status of the optimized pair.
    const validation = await waitText(page, '#validation', (t) => t.length > 0, 'the validation status', 20_000);
    if (!/^validated on \d+ input sets? · \d+ vertices · \d+ transported values · \d+ fragments/.test(validation)) {
      fail(`the validation status next to the verdict is ${JSON.stringify(validation)}`);
    }
    if (!rep.validated || rep.validation !== validation) {
      fail(`hoistReport() disagrees on validation: ${JSON.stringify({ validated: rep.validated, validation: rep.validation })}`);
    }
    const beside = await page.evaluate(() => {
      const v = document.querySelector('.verdict').getBoundingClientRect();
      const s = document.querySelector('#validation').getBoundingClientRect();
      return s.top - v.bottom;
    });
    if (beside < 0 || beside > 40) fail(`the validation status is not next to the verdict (${beside}px below it)`);
    log('validation:', validation);

    // The summary line: the statistics panel's figures and the verdict, above the fold at
    // 1366×768.
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.evaluate(() => window.scrollTo(0, 0));
    const summary = await waitText(page, '#summary', (t) => t.endsWith('bit-identical'), 'the summary line');
    const expected = `F ${fp} · V ${vp} · bit-identical`;
    if (summary !== expected) fail(`the summary line is ${JSON.stringify(summary)}, expected ${JSON.stringify(expected)}`);
    const box = await page.locator('#summary').boundingBox();
    if (!box || box.y < 0 || box.y + box.height > 768 || box.x < 0 || box.x + box.width > 1366) {
      fail(`the summary line is not visible without scrolling at 1366×768: ${JSON.stringify(box)}`);
    }
    log(`summary: ${JSON.stringify(summary)} at y = ${Math.round(box.y)}–${Math.round(box.y + box.height)} px of 768`);
    // A focused moved row has a visible outline.
    const row = '#opt-vp .ol.moved';
    await page.focus(row);
    await page.keyboard.press('Shift');
    const outline = await page.evaluate((s) => {
      const el = document.querySelector(s);
      const cs = getComputedStyle(el);
      return { visible: el.matches(':focus-visible'), style: cs.outlineStyle, width: cs.outlineWidth, color: cs.outlineColor };
    }, row);
    if (!outline.visible || outline.style !== 'solid' || parseFloat(outline.width) < 1) {
      fail(`a focused moved row shows no outline: ${JSON.stringify(outline)}`);
    }
    log('focused moved row:', `${outline.style} ${outline.width} ${outline.color}`);
    await shot(page, '01-figure3.png');
    await page.evaluate(() => document.activeElement?.blur());
    await page.setViewportSize({ width: 1440, height: 1000 });
    // A reduction is green.
    const good = await page.evaluate(() => document.querySelector('#estimate-change').className);
    if (good !== 'good') fail(`the Figure 3 estimate change has class ${JSON.stringify(good)}`);

    // 1b. The worker dies (test switch): the page says so, keeps the programs, and the next
    // edit after the switch is off starts a fresh worker that works. Console errors of this
    // phase are the forced failure's own; they are checked and set aside.
    const errorsBefore = errors.length;
    const fig3fp = await page.inputValue('#fp');
    const failures = [
      ['panic', /forced failure \(test switch\)/],
      ['throw', /forced exception \(test switch\)/],
      ['load', /could not be loaded|could not (start|load)/],
    ];
    for (const [mode, why] of failures) {
      await page.evaluate((m) => localStorage.setItem('hoist-test-worker-panic', m), mode);
      // The pending summary can last less than a polling interval before the forced panic:
      // an observer records it.
      await page.evaluate(() => {
        window.__sawPending = false;
        const el = document.querySelector('#summary');
        const seen = () => { if (document.querySelector('#summary-verdict')?.textContent === 'checking…') window.__sawPending = true; };
        new MutationObserver(seen).observe(el, { childList: true, characterData: true, subtree: true });
      });
      const edited = `${fig3fp}\n// worker failure test: ${mode}`;
      await page.fill('#fp', edited);
      if (mode === 'panic') {
        await page.waitForFunction(() => window.__sawPending, null, { timeout: 5000 })
          .catch(() => fail('the summary never said "checking…" while the worker worked'));
      }
      const msg = await waitText(page, '#engine-error', (t) => why.test(t), `the message about the dead worker (${mode})`, 30_000);
      await waitText(page, '#summary-verdict', (t) => t === 'no verdict', `the summary for a dead worker (${mode})`, 5000);
      if (!msg.startsWith('the optimizer stopped unexpectedly: ') || !msg.endsWith('your programs are kept; edit to try again')) {
        fail(`the message about the dead worker (${mode}) is ${JSON.stringify(msg)}`);
      }
      if ((await page.inputValue('#fp')) !== edited) fail(`the editor lost its text when the worker died (${mode})`);
      if ((await text(page, '#verdict')) !== 'no verdict') fail(`a verdict is shown for a dead worker (${mode})`);
      if (!(await page.isEditable('#fp'))) fail('the editor is not editable after the worker died');
      log(`worker failure (${mode}):`, JSON.stringify(msg));
      if (mode === 'panic') {
        await page.locator('#output').scrollIntoViewIfNeeded();
        await shot(page, '05-worker-failure.png');
        await page.evaluate(() => window.scrollTo(0, 0));
      }
    }
    await page.evaluate(() => localStorage.removeItem('hoist-test-worker-panic'));
    await page.fill('#fp', fig3fp);
    await waitText(page, '#verdict', (t) => t === 'bit-identical', 'the verdict after the worker came back');
    await waitText(page, '#validation', (t) => t.startsWith('validated on'), 'the validation status after recovery');
    if (await page.locator('#engine-error').count()) fail('the worker failure message stayed after the recovery');
    const unexpected = errors.splice(errorsBefore).filter(
      (e) => !/forced (failure|exception) \(test switch\)|hoist-worker-missing\.js|status of 404/.test(e),
    );
    if (unexpected.length) fail(`unexpected console errors while the worker failed:\n  ${unexpected.join('\n  ')}`);
    log('the page recovers with a fresh worker');

    // 2. A syntax error shows inline, at its line.
    const original = await page.inputValue('#fp');
    const lines = original.split('\n');
    const at = lines.findIndex((l) => l.startsWith('mov oC0'));
    if (at < 0) fail('the Figure 3 fragment program has no `mov oC0` line');
    const broken = [...lines];
    broken[at] = 'mov oC0, r0,, r1';
    await page.fill('#fp', broken.join('\n'));
    await waitText(page, '#ed-fp .lens.err', (t) => t.length > 2, 'an inline diagnostic');
    const markedLine = await page.evaluate(() => {
      const g = [...document.querySelectorAll('#ed-fp .ed-gutter .gl')];
      return g.findIndex((d) => d.classList.contains('err')) + 1;
    });
    if (markedLine !== at + 1) fail(`the error marker is on line ${markedLine}, expected ${at + 1}`);
    const lensLine = await page.evaluate(() => {
      const ls = [...document.querySelectorAll('#ed-fp .ed-hl .cl')];
      return ls.findIndex((l) => l.querySelector('.lens.err')) + 1;
    });
    if (lensLine !== at + 1) fail(`the inline message is on line ${lensLine}, expected ${at + 1}`);
    const squiggle = await text(page, '#ed-fp .sq-err');
    const listed = await text(page, '#ed-fp .diags .diag');
    if (!listed || !listed.startsWith(`${at + 1}:`)) fail(`the diagnostic list shows ${JSON.stringify(listed)}`);
    log(`diagnostic on line ${at + 1}:`, JSON.stringify(await text(page, '#ed-fp .lens.err')), 'under', JSON.stringify(squiggle));
    // Its position button puts the cursor there and scrolls the editor to it.
    await page.click('#ed-fp .diags .diag-pos');
    const caretLine = await page.evaluate(() => {
      const t = document.querySelector('#fp');
      return t.value.slice(0, t.selectionStart).split('\n').length;
    });
    if (caretLine !== at + 1) fail(`the diagnostic's button put the cursor on line ${caretLine}`);
    const visible = await page.evaluate(() => {
      const box = document.querySelector('#ed-fp .ed-scroll').getBoundingClientRect();
      const lens = document.querySelector('#ed-fp .lens.err').getBoundingClientRect();
      return lens.top >= box.top && lens.bottom <= box.bottom;
    });
    if (!visible) fail('the erroneous line is not scrolled into view');
    // The textarea is exactly as large as the highlighted text under it, so it never
    // scrolls on its own and the caret stays on the highlighted characters.
    const fit = await page.evaluate(() => {
      const t = document.querySelector('#fp');
      const pre = document.querySelector('#ed-fp .ed-hl');
      return { top: t.scrollTop, left: t.scrollLeft, h: t.clientHeight, sh: t.scrollHeight,
        w: t.clientWidth, sw: t.scrollWidth, ph: pre.offsetHeight, pw: pre.offsetWidth };
    });
    if (fit.top || fit.left || fit.h !== fit.sh || fit.w !== fit.sw || fit.h !== fit.ph || fit.w !== fit.pw) {
      fail(`the editor's textarea and its highlighting do not line up: ${JSON.stringify(fit)}`);
    }
    await page.locator('#ed-fp').scrollIntoViewIfNeeded();
    await shot(page, '02-diagnostic.png');
    await page.fill('#fp', original);
    await waitText(page, '#verdict', (t) => t === 'bit-identical', 'the verdict after fixing the error');
    const gone = await page.locator('#ed-fp .lens').count();
    if (gone !== 0) fail('the diagnostic stayed after the fix');

    // 3. Hand-edit the optimized fragment program so it computes something else.
    await page.check('#hand-edit');
    await page.waitForSelector('#hand-fp');
    const mine = await page.inputValue('#hand-fp');
    // The original pair as the hand edit: no change, shown as +0.0% in a neutral colour.
    const handVp = await page.inputValue('#hand-vp');
    await page.fill('#hand-vp', await page.inputValue('#vp'));
    await page.fill('#hand-fp', await page.inputValue('#fp'));
    await waitText(page, '#estimate-change', (t) => t.startsWith('+0.0%'), 'a zero change in the estimate');
    const zero = await page.evaluate(() => {
      const el = document.querySelector('#estimate-change');
      return { cls: el.className, color: getComputedStyle(el).color, ink: getComputedStyle(document.body).color };
    });
    if (/good|bad/.test(zero.cls) || zero.color !== zero.ink) fail(`a zero change is coloured: ${JSON.stringify(zero)}`);
    log('zero change:', JSON.stringify(await text(page, '#estimate-change')), 'in', zero.color);
    await page.fill('#hand-vp', handVp);
    const ml = mine.split('\n');
    const out = ml.findIndex((l) => /^\s*mov oC0/.test(l));
    if (out < 0) fail('the optimized fragment program has no `mov oC0` line');
    // Drop the red channel: white pixels turn cyan.
    ml.splice(out, 0, 'add r0.x, r0.y, -r0.y');
    await page.fill('#hand-fp', ml.join('\n'));
    const diff = await waitText(page, '#verdict', (t) => t.startsWith('DIFFERENT'), 'a DIFFERENT verdict');
    const detail = await text(page, '.verdict-detail');
    const sv = await waitText(page, '#summary-verdict', (t) => t.startsWith('DIFFERENT'), 'the summary of a DIFFERENT verdict');
    if (sv !== diff) fail(`the summary says ${JSON.stringify(sv)}, the verdict ${JSON.stringify(diff)}`);
    if (!/worst pixel \(\d+, \d+\)/.test(detail || '')) fail(`the verdict does not name the worst pixel: ${detail}`);
    log('hand edit:', diff, '—', detail);
    await page.locator('#output').scrollIntoViewIfNeeded();
    await shot(page, '03-different.png');

    // 4. Copy the permalink and open it in a fresh browser profile.
    await page.click('#copy-link');
    await page.waitForSelector('#permalink');
    const link = await page.inputValue('#permalink');
    if (!/#v1\.[A-Za-z0-9_-]+$/.test(link)) fail(`unexpected permalink ${link}`);
    log(`permalink: ${link.length} characters`);
    const before = {
      fp: await page.inputValue('#fp'), vp: await page.inputValue('#vp'),
      handFp: await page.inputValue('#hand-fp'), handVp: await page.inputValue('#hand-vp'),
      stats: await text(page, '#stat-fp'), verdict: await text(page, '#verdict'),
    };
    const b = await launch(errors, 'page 2');
    opened.push(b);
    const page2 = b.ctx.pages()[0] || (await b.ctx.newPage());
    await page2.goto(link);
    await waitText(page2, '#verdict', (t) => t.startsWith('DIFFERENT'), 'the restored verdict');
    const after = {
      fp: await page2.inputValue('#fp'), vp: await page2.inputValue('#vp'),
      handFp: await page2.inputValue('#hand-fp'), handVp: await page2.inputValue('#hand-vp'),
      stats: await text(page2, '#stat-fp'), verdict: await text(page2, '#verdict'),
    };
    for (const k of Object.keys(before)) {
      if (before[k] !== after[k]) fail(`the permalink did not restore ${k}: ${JSON.stringify(before[k])} vs ${JSON.stringify(after[k])}`);
    }
    if (!(await page2.isChecked('#hand-edit'))) fail('the permalink did not restore hand-edit mode');
    log('permalink restores the same state in a fresh profile');
    await shot(page2, '04-permalink.png');

    // 5. Reload keeps the last state (local storage / address).
    await page2.reload();
    await waitText(page2, '#verdict', (t) => t.startsWith('DIFFERENT'), 'the verdict after a reload');
    if ((await page2.inputValue('#hand-fp')) !== before.handFp) fail('a reload lost the hand edit');
    log('reload keeps the state');

    // 6. A hostile link is refused with a message, not a crash.
    await page2.goto(base + '#v1.' + 'A'.repeat(200000));
    await waitText(page2, '.notice.error', (t) => t.includes('link'), 'the message about a bad link', 20_000);
    log('oversized link refused:', JSON.stringify(await text(page2, '.notice.error span')));

    // 7. A broken link stays in the address bar, to be repaired, with its message.
    await page2.goto('about:blank');
    await page2.goto(base + '#v1.garbage');
    const refused = await waitText(page2, '.notice.error', (t) => t.includes('link'), 'the message about a broken link', 20_000);
    await waitText(page2, '#summary-verdict', (t) => t !== 'checking…', 'the page to settle after a broken link');
    await page2.waitForTimeout(2500);
    const hash = await page2.evaluate(() => location.hash);
    if (hash !== '#v1.garbage') fail(`the broken link was replaced by ${JSON.stringify(hash)}`);
    if (!(await page2.locator('.notice.error').count())) fail('the message about the broken link went away');
    log('broken link kept in the address bar:', hash, '—', JSON.stringify(refused.replace(/×$/, '')));

    // Full-page picture for the README.
    await page.goto(base + '#ex=paper/fig3');
    await waitText(page, '#verdict', (t) => t === 'bit-identical', 'the verdict for the screenshot');
    await page.screenshot({ path: path.join(shots, '00-full.png'), fullPage: true });
    log('screenshot', path.relative(root, path.join(shots, '00-full.png')));

    if (errors.length) fail(`console errors:\n  ${errors.join('\n  ')}`);
    log('no console errors');
    log('PASS');
  } finally {
    for (const o of opened) {
      await o.ctx.close().catch(() => {});
      fs.rmSync(o.dir, { recursive: true, force: true });
    }
    server.close();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error('[e2e] FAIL:', e instanceof Failure ? e.message : e.stack || e);
    process.exit(1);
  },
);
