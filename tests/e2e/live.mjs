// Live feedback (issue 26): per gallery example at its default size, from an edit of the
// fragment program to the first new image (the current text's images shown) and to the
// validated verdict (the page settled with a verdict word). Not a test, a measurement that
// prints numbers. The text edited is the assembly fragment program; in a source example
// the WGSL module or the GLSL fragment shader (compiled, then optimized and drawn); in a
// linear example the system (no image: the first time is to its first verdict line, the
// structured seeds' packing checked; the second to the end of the whole search and of the
// iteration to the fixed point). Two kinds of edit:
//   - value: a digit appended to the first decimal literal of the fragment program, a new
//     one every round, so both programs, both kernels and both images change (a real edit);
//   - comment: a comment appended and removed in turn, which leaves every run's scene as it
//     was (the worker reuses its kept runs).
//
//   node tests/e2e/live.mjs     ROUNDS=6  ONLY=paper/fig3,paper/sort  HOIST_E2E_DIST=…

import fs from 'node:fs';
import os from 'node:os';
import { dist, done, launch, serve, verdictShown } from './common.mjs';

const ROUNDS = Math.min(9, Number(process.env.ROUNDS || 6));
const ONLY = (process.env.ONLY || '').split(',').filter(Boolean);

/// The editor a mode's edits go to, the first that is on the page.
const EDITORS = ['#fp', '#src-wgsl', '#src-fs', '#linear-text'];

/// In the page: the linear view is current, done searching and iterating, and shows its
/// verdict line.
const linearShown = () => {
  const l = document.querySelector('#linear');
  return !!l && !l.classList.contains('stale') && !document.querySelector('#linear-working')
    && !document.querySelector('#linear-searching') && !document.querySelector('#linear-converging')
    && !!document.querySelector('#linear-verdict');
};

/// Settled, whichever mode the page is in.
const settled = new Function(`return document.querySelector('#linear') ? (${linearShown})() : (${done})();`);

/// Sets the editor `sel` (a value change and one input event, timed from just before)
/// and returns [ms to the new images, ms to the verdict shown], both seen by a DOM observer (no
/// state can be missed between two mutations). In the linear view there is no image: the
/// first is the time to its first verdict line, the second to the end of the search.
async function edit(page, sel, text) {
  await page.evaluate(([isDone, isLinearDone, sel, text]) => {
    const linear = !!document.querySelector('#linear');
    const finished = new Function(`return (${linear ? isLinearDone : isDone})()`);
    window.__t = new Promise((resolve, reject) => {
      const t0 = performance.now();
      let image;
      let stale = false;
      // The DOM alone is read per mutation (the report serializes the whole state and
      // encodes the link: tens of ms a mutation, which earlier runs of this script counted
      // in the page's time). Stale: the analysis is older than the text. The new images:
      // current, no render under way, and the canvases not the previous render's.
      const check = () => {
        const app = document.querySelector(linear ? '#linear' : '.app');
        if (app?.classList.contains('stale')) stale = true;
        if (!stale || app?.classList.contains('stale')) return;
        if (image === undefined && (linear ? !document.querySelector('#linear-working')
          && document.querySelector('#linear-verdict') : !document.querySelector('.progress')
          && document.querySelector('.output .canvases:not(.previous)'))) image = performance.now() - t0;
        if (image !== undefined && finished()) {
          obs.disconnect();
          resolve([image, performance.now() - t0]);
        }
      };
      const obs = new MutationObserver(check);
      obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      setTimeout(() => reject(new Error('no verdict in 30 s')), 30_000);
    });
    // The edit as the browser delivers a keystroke's: the value changes and one input
    // event follows (Playwright's fill would add its own focus, selection and layout
    // checks to the page's time).
    const t = document.querySelector(sel);
    t.value = text;
    t.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
  }, [verdictShown.toString(), linearShown.toString(), sel, text]);
  const times = await page.evaluate(() => window.__t);
  // The panels below the output follow a paint later; the next edit waits for them.
  await page.waitForFunction(settled, null, { timeout: 120_000, polling: 16 });
  return times;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

/// The fragment program with its first decimal literal given digit `k` appended: a value
/// no earlier round drew, so no kept run answers for it.
function valueEdit(fp, k) {
  const m = /(?<![\w.])(\d+\.\d*[0-9])/.exec(fp.split('\n').filter((l) => !/^\s*(#|;|\/\/)/.test(l)).join('\n'));
  if (!m) return null;
  return fp.replace(new RegExp(`(?<![\\w.])${m[1].replace('.', '\\.')}`), `${m[1]}${k}`);
}

async function main() {
  const server = await serve(dist);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const errors = [];
  const { ctx, dir } = await launch(errors, 'live');
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    await page.goto(base);
    await page.waitForFunction(settled, null, { timeout: 120_000, polling: 16 });
    await page.click('#examples-button');
    let ids = await page.$$eval('[id^="ex-"]', (xs) => xs.map((x) => x.id.slice(3)));
    await page.keyboard.press('Escape');
    ids = ids.map((id) => id.replace('-', '/'));
    if (ONLY.length) ids = ids.filter((id) => ONLY.includes(id));
    console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(', ')}; ${os.cpus().length} CPUs; ${ids.length} examples`);
    console.log('| example | size | edit | first image, median (min–max) | verdict, median (min–max) | verdict | executor | render ms |');
    for (const id of ids) {
      await page.goto('about:blank');
      await page.goto(`${base}#ex=${id}`);
      try {
        await page.waitForFunction(settled, null, { timeout: 120_000, polling: 16 });
      } catch {
        console.log(`| ${id} | – | – | did not settle | | | | |`);
        continue;
      }
      const sel = await page.evaluate((xs) => xs.find((x) => document.querySelector(x)), EDITORS);
      const fp0 = sel ? await page.inputValue(sel) : null;
      if (fp0 === null) {
        console.log(`| ${id} | – | – | no editor found | | | | |`);
        continue;
      }
      const comment = sel === '#linear-text' || fp0.trimStart().startsWith('!!') ? '#' : '//';
      for (const kind of ['value', 'comment']) {
        // Values: a new one every round (1, 2, … appended to the literal). Comments: the
        // text alternates with the original, whose runs are kept.
        const text = (i) => (kind === 'value' ? valueEdit(fp0, i + 1) : i % 2 ? fp0 : `${fp0}${comment} edit\n`);
        if (!text(0)) continue;
        const img = [];
        const ver = [];
        try {
          for (let i = 0; i < ROUNDS; i++) {
            const [a, b] = await edit(page, sel, text(i));
            img.push(a);
            ver.push(b);
          }
        } catch (e) {
          console.log(`| ${id} | – | ${kind} | ${e.message.split('\n')[0]} | | | | |`);
          continue;
        }
        const r = await page.evaluate(() => window.hoistReport());
        const f = (xs) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
        const verdict = sel === '#linear-text'
          ? await page.evaluate(() => document.querySelector('#linear-verdict .headline')?.textContent) : r.verdict;
        console.log(`| ${id} | ${r.size.join('×')} | ${kind}${sel === '#fp' ? '' : ` (${sel.slice(1)})`} | ${f(img)} | ${f(ver)} | ${verdict} | `
          + `${(r.executor || []).map((e) => e.split(':')[0]).join(' / ')} | ${(r.renderMs || []).map((m) => m.toFixed(0)).join(' / ')} |`);
      }
    }
    if (errors.length) console.log(`console errors: ${errors.join('; ')}`);
  } finally {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
    server.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
