// Responsiveness of the playground (built dist/, headless Chromium): not a test, a
// measurement that prints numbers.
//   - keystroke-to-verdict: Figure 3, one edit (a comment appended to the fragment program),
//     from the edit until the page shows the verdict of the new text (analysis current, no
//     render in progress);
//   - keystroke-to-verdict on the 500-line pair, the same way;
//   - typing latency: a 500-line and a 2000-line vs_3_0/ps_3_0 pair, keys typed into a
//     comment of the fragment program; per key, from the key event to the frame after it was handled
//     (event.timeStamp to a task after the next animation frame). Two cadences: a burst
//     (every 120 ms, below the page's debounce) and paused typing (every 300 and 500 ms, so
//     keys land while the previous revision is being optimized and rendered), with the
//     main thread's long tasks (over 50 ms) in each phase.
// Works on builds before and after the worker (it reads only the DOM). DEBOUNCES=220,80,...
// measures keystroke-to-verdict once per pause before a job (ms; builds that read the
// measurement-only local storage key `hoist-test-debounce-ms`; others ignore it).
// LINES=500,2000 picks the typing-latency pairs.
//   - keystroke-to-image per executor: Figure 3 and the largest example scene (LARGEST,
//     default paper/sort: three 256² draws), one edit as above, with the worker's compiled
//     executor (the default) and with the interpreter (test switch `hoist-test-executor`),
//     alternating; ONLY=image measures just this.
//
//   node tests/e2e/latency.mjs                 HOIST_E2E_DIST=path/to/dist  ROUNDS=10

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigPair, done, serve } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(process.env.HOIST_E2E_DIST || path.join(here, '../../dist'));
const ROUNDS = Number(process.env.ROUNDS || 10);
const DEBOUNCES = (process.env.DEBOUNCES || '').split(',').filter(Boolean);
const LINES = (process.env.LINES || '500,2000').split(',').map(Number);
const BLOCKS = { 500: 61, 2000: 249 };
/// Replaces the text of `sel` and returns the ms until the page shows the verdict of the new
/// text: a DOM observer sees the page go stale, then settle (no poll can miss either).
async function editAndWait(page, sel, text, timeout = 300_000) {
  await page.evaluate(([isDone, ms]) => {
    const finished = new Function(`return (${isDone})()`);
    window.__done = new Promise((resolve, reject) => {
      let seen = false;
      const t0 = performance.now();
      const obs = new MutationObserver(() => {
        if (document.querySelector('.app.stale')) seen = true;
        else if (seen && finished()) { obs.disconnect(); resolve(performance.now() - t0); }
      });
      obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      setTimeout(() => reject(new Error('no verdict')), ms);
    });
  }, [done.toString(), timeout]);
  await page.fill(sel, text);
  return page.evaluate(() => window.__done);
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms (n=${s.length})`;
};

/// Keystroke-to-verdict on Figure 3 and on the 500-line pair, with the page's pause before a
/// job set to `pause` ms (`null`: the build's own).
async function keystrokeToVerdict(page, pause) {
  await page.evaluate((p) => {
    if (p === null) localStorage.removeItem('hoist-test-debounce-ms');
    else localStorage.setItem('hoist-test-debounce-ms', p);
  }, pause);
  const label = pause === null ? '' : ` (pause ${pause} ms)`;
  await page.goto('about:blank');
  await page.goto(`${base}#ex=paper/fig3`);
  await page.waitForFunction(done, null, { timeout: 120_000, polling: 16 });
  const fp0 = await page.inputValue('#fp');
  const k2v = [];
  for (let i = 0; i < ROUNDS; i++) {
    k2v.push(await editAndWait(page, '#fp', i % 2 ? fp0 : `${fp0}// edit ${i}\n`));
  }
  console.log(`keystroke-to-verdict, Figure 3${label}: ${stats(k2v)}`);
  console.log(`  verdict: ${await page.textContent('#verdict')}; page optimizer time ${await page.textContent('#stat-opt-time')}`);
  const { vp, fp } = bigPair();
  await page.fill('#vp', vp);
  await editAndWait(page, '#fp', fp);
  const big = [];
  for (let i = 0; i < Math.max(3, ROUNDS / 2); i++) {
    big.push(await editAndWait(page, '#fp', i % 2 ? fp : fp.replace('// typing here: ', '// typing here:  ')));
  }
  console.log(`keystroke-to-verdict, 500-line pair${label}: ${stats(big)}; fragment slots ${await page.textContent('#stat-fp')}; `
    + `verdict ${JSON.stringify(await page.textContent('#verdict'))}; optimizer time ${await page.textContent('#stat-opt-time')}`);
}

/// Keystroke-to-image on example `id` with the executor `mode` ('' compiled, 'interpret').
async function keystrokeToImage(page, id, mode) {
  await page.evaluate((m) => {
    if (m) localStorage.setItem('hoist-test-executor', m);
    else localStorage.removeItem('hoist-test-executor');
  }, mode);
  await page.goto('about:blank');
  await page.goto(`${base}#ex=${id}`);
  await page.waitForFunction(done, null, { timeout: 120_000, polling: 16 });
  const fp0 = await page.inputValue('#fp');
  const k2i = [];
  for (let i = 0; i < ROUNDS; i++) {
    const c = fp0.trimStart().startsWith('!!') ? '#' : '//';
    k2i.push(await editAndWait(page, '#fp', i % 2 ? fp0 : `${fp0}${c} edit ${i}\n`));
  }
  const r = await page.evaluate(() => window.hoistReport());
  console.log(`keystroke-to-image, ${id}, ${mode || 'compiled'}: ${stats(k2i)}; executor ${JSON.stringify(r.executor)}; `
    + `render ${r.renderMs.map((m) => m.toFixed(1)).join(' / ')} ms; optimizer ${r.optimizerMs.toFixed(1)} ms; ${r.verdict}`);
  await page.evaluate(() => localStorage.removeItem('hoist-test-executor'));
}

/// Typing latency on a pair of `lines` lines, at three cadences.
async function typing(page, lines) {
  const pair = bigPair(BLOCKS[lines] ?? Math.round(lines / 8));
  const { vp } = pair;
  // A text of its own, so that the fill below is an edit whatever was measured before.
  const fp = `${pair.fp}// ${lines} lines\n`;
  await page.fill('#vp', vp);
  await editAndWait(page, '#fp', fp);
  console.log(`${lines}-line pair: ${fp.split('\n').length - 1} fragment lines`);
  await page.evaluate(() => {
    window.__lat = [];
    const t = document.querySelector('#fp');
    if (t.__timed) return;
    t.__timed = true;
    t.addEventListener('keydown', (e) => {
      const t = e.timeStamp;
      requestAnimationFrame(() => setTimeout(() => window.__lat.push(performance.now() - t), 0));
    }, { capture: true });
  });
  const cadences = [['burst, every 120 ms', 120, 30], ['paused, every 300 ms', 300, 20], ['paused, every 500 ms', 500, 20]];
  for (const [label, every, keys] of cadences) {
    await page.waitForFunction(done, null, { timeout: 300_000, polling: 16 });
    await page.evaluate(() => {
      const t = document.querySelector('#fp');
      const at = t.value.indexOf('// typing here:') + '// typing here:'.length;
      t.focus();
      t.setSelectionRange(at, at);
      window.__lat = [];
      window.__long = [];
      window.__obs?.disconnect();
      window.__obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__long.push(e.duration)));
      window.__obs.observe({ type: 'longtask' });
    });
    for (let i = 0; i < keys; i++) {
      await page.keyboard.press(String.fromCharCode(97 + (i % 26)));
      await page.waitForTimeout(every);
    }
    await page.waitForTimeout(300);
    const [lat, long] = await page.evaluate(() => [window.__lat, window.__long]);
    const busy = long.reduce((a, b) => a + b, 0);
    console.log(`typing latency, ${lines}-line pair, ${label}: ${stats(lat)}; main-thread tasks over 50 ms: `
      + `${long.length}, ${busy.toFixed(0)} ms in all, longest ${Math.max(0, ...long).toFixed(0)} ms`);
  }
}

let base;

async function main() {
  const server = await serve(dist);
  base = `http://127.0.0.1:${server.address().port}/`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoist-lat-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], viewport: { width: 1440, height: 1000 },
  });
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    await page.goto(base + '#ex=paper/fig3');
    await page.waitForFunction(done, null, { timeout: 120_000, polling: 16 });

    for (const id of ['paper/fig3', process.env.LARGEST || 'paper/sort']) {
      for (const mode of ['', 'interpret', '', 'interpret']) await keystrokeToImage(page, id, mode);
    }
    if (process.env.ONLY === 'image') return;
    for (const pause of DEBOUNCES.length ? DEBOUNCES : [null]) {
      await keystrokeToVerdict(page, pause);
    }
    for (const lines of LINES) {
      await typing(page, lines);
    }
  } finally {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
    server.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
