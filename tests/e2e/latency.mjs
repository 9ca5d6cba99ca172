// Responsiveness of the playground (built dist/, headless Chromium): not a test, a
// measurement that prints numbers.
//   - keystroke-to-verdict: Figure 3, one edit (a comment appended to the fragment program),
//     from the edit until the page shows the verdict of the new text (analysis current, no
//     render in progress);
//   - typing latency: a 500-line vs_3_0/ps_3_0 pair, keys typed into a comment of the
//     fragment program; per key, from the key event to the frame after it was handled
//     (event.timeStamp to a task after the next animation frame). Two cadences: a burst
//     (every 120 ms, below the page's debounce) and paused typing (every 300 and 500 ms, so
//     keys land while the previous revision is being optimized and rendered), with the
//     main thread's long tasks (over 50 ms) in each phase.
// Works on builds before and after the worker (it reads only the DOM).
//
//   node tests/e2e/latency.mjs                 HOIST_E2E_DIST=path/to/dist  ROUNDS=10

import { chromium } from 'playwright-core';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(process.env.HOIST_E2E_DIST || path.join(here, '../../dist'));
const ROUNDS = Number(process.env.ROUNDS || 10);
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

function serve(dir) {
  const server = http.createServer((req, res) => {
    let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(dir, '.' + rel);
    fs.readFile(file, (err, data) => {
      if (err || !file.startsWith(dir + path.sep)) { res.writeHead(404).end(); return; }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' }).end(data);
    });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

/// A 500-line pair: 61 blocks of address arithmetic, a fetch and accumulation.
function bigPair() {
  const vp = 'vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\ndcl_texcoord0 o1\nmov o0, v0\nmov o1, v1\n';
  const fp = ['ps_3_0', '// typing here: ', '// a long fragment program for the latency measurement',
    'def c0, 0.001, 0.002, 0.5, 2', 'def c1, 0, 0, 0, 0', 'dcl_texcoord0 v0', 'dcl_2d s0', 'mov r3, c1'];
  for (let i = 0; i < 61; i++) {
    fp.push('mul r0, v0, c0.wzyx', 'add r0.x, r0.x, c0.x', 'mad r0.y, r0.y, c0.z, c0.y', 'texld r1, r0, s0',
      'mul r2, r1, c0.w', 'rsq r2.x, r2.x', 'mad r3, r2, c0.x, r3', 'add r3, r3, r0');
  }
  fp.push('mov oC0, r3');
  return { vp, fp: fp.join('\n') + '\n' };
}

const done = () => {
  const v = document.querySelector('#verdict');
  return !document.querySelector('.app.stale') && !document.querySelector('.progress') && v && v.textContent !== ''
    && !v.textContent.startsWith('waiting');
};

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

async function main() {
  const server = await serve(dist);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoist-lat-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], viewport: { width: 1440, height: 1000 },
  });
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    await page.goto(base + '#ex=paper/fig3');
    await page.waitForFunction(done, null, { timeout: 120_000, polling: 16 });

    // Keystroke-to-verdict, Figure 3.
    const fp0 = await page.inputValue('#fp');
    const k2v = [];
    for (let i = 0; i < ROUNDS; i++) {
      k2v.push(await editAndWait(page, '#fp', i % 2 ? fp0 : `${fp0}// edit ${i}\n`));
    }
    console.log(`keystroke-to-verdict, Figure 3: ${stats(k2v)}`);
    console.log(`  verdict: ${await page.textContent('#verdict')}; page optimizer time ${await page.textContent('#stat-opt-time')}`);

    // Typing latency, 500-line pair.
    const { vp, fp } = bigPair();
    await page.fill('#vp', vp);
    await editAndWait(page, '#fp', fp);
    const big = await editAndWait(page, '#fp', fp.replace('// typing here: ', '// typing here:  '));
    console.log(`500-line pair: ${fp.split('\n').length - 1} fragment lines; keystroke-to-verdict ${big.toFixed(0)} ms; `
      + `fragment slots ${await page.textContent('#stat-fp')}; verdict ${JSON.stringify(await page.textContent('#verdict'))}; `
      + `optimizer time ${await page.textContent('#stat-opt-time')}`);
    await page.evaluate(() => {
      window.__lat = [];
      document.querySelector('#fp').addEventListener('keydown', (e) => {
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
      console.log(`typing latency, 500-line pair, ${label}: ${stats(lat)}; main-thread tasks over 50 ms: `
        + `${long.length}, ${busy.toFixed(0)} ms in all, longest ${Math.max(0, ...long).toFixed(0)} ms`);
    }
  } finally {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
    server.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
