// Smoothness of the playground while it renders (built dist/, headless Chromium): not a
// test, a measurement that prints numbers. The render size is changed, so the worker
// optimizes, validates and renders both pairs, sending progress on the way; meanwhile the
// page's frames are timed with requestAnimationFrame and its long tasks (over 50 ms)
// collected, from the edit until the verdict of the new size is shown. Two scenes: the
// three-pass sorting example (SCENE=sort) and the 500-line pair of latency.mjs as a bare
// pair, a long single-target render (SCENE=big, the default).
//
//   node tests/e2e/frames.mjs          HOIST_E2E_DIST=path/to/dist  ROUNDS=4  SIZE=1024x768
//   HOIST_E2E_DIST=a/dist,b/dist node tests/e2e/frames.mjs   (alternates builds each round)

import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bigPair, done, serve } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dists = (process.env.HOIST_E2E_DIST || path.join(here, '../../dist')).split(',').map((d) => path.resolve(d));
const ROUNDS = Number(process.env.ROUNDS || 4);
const [W, H] = (process.env.SIZE || '1024x768').split('x').map(Number);
const SCENE = process.env.SCENE || 'big';
/// Sets the render size and times the frames until the new verdict is shown.
async function measure(page, w, h) {
  await page.evaluate(([isDone, w, h]) => {
    const finished = new Function(`return (${isDone})()`);
    window.__frames = [];
    window.__long = [];
    window.__obs?.disconnect();
    window.__obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__long.push(e.duration)));
    window.__obs.observe({ type: 'longtask' });
    window.__result = new Promise((resolve) => {
      let last = performance.now();
      const t0 = last;
      let seen = false;
      const tick = (t) => {
        window.__frames.push(t - last);
        last = t;
        if (document.querySelector('.app.stale') || document.querySelector('.progress')) seen = true;
        if (seen && finished()) resolve({ ms: t - t0, frames: window.__frames, long: window.__long });
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const set = (label, v) => {
      const i = document.querySelector(`input[aria-label="${label}"]`);
      i.value = String(v);
      i.dispatchEvent(new Event('change', { bubbles: true }));
    };
    set('Render width', w);
    set('Render height', h);
  }, [done.toString(), w, h]);
  return page.evaluate(() => window.__result);
}

/// Loads the scene to measure at a small size.
async function load(page, base) {
  if (SCENE === 'sort') {
    await page.goto(`${base}#ex=paper/sort`);
    await page.waitForFunction(done, null, { timeout: 300_000, polling: 50 });
    return;
  }
  await page.goto(`${base}#ex=paper/fig3`);
  await page.waitForFunction(done, null, { timeout: 300_000, polling: 50 });
  const { vp, fp } = bigPair();
  await page.fill('#vp', vp);
  await page.fill('#fp', fp);
  await page.evaluate(() => {
    for (const [l, v] of [['Render width', 64], ['Render height', 64]]) {
      const i = document.querySelector(`input[aria-label="${l}"]`);
      i.value = String(v);
      i.dispatchEvent(new Event('change', { bubbles: true }));
    }
  });
  await page.waitForTimeout(500);
  await page.waitForFunction(done, null, { timeout: 300_000, polling: 50 });
}

const q = (s, p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoist-frames-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], viewport: { width: 1440, height: 1000 },
  });
  const servers = await Promise.all(dists.map(serve));
  const all = dists.map(() => []);
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < dists.length; k++) {
        await load(page, `http://127.0.0.1:${servers[k].address().port}/`);
        const r = await measure(page, W, H - (round % 2));
        const s = [...r.frames].sort((a, b) => a - b);
        const over = (t) => r.frames.filter((f) => f > t).length;
        const line = {
          ms: r.ms, frames: r.frames.length, median: q(s, 0.5), p95: q(s, 0.95), max: s[s.length - 1],
          over50: over(50), over100: over(100), longN: r.long.length, longMs: r.long.reduce((a, b) => a + b, 0),
        };
        all[k].push(line);
        console.log(`round ${round + 1} ${path.basename(path.dirname(dists[k]))}/${path.basename(dists[k])}: render ${line.ms.toFixed(0)} ms, `
          + `${line.frames} frames (median ${line.median.toFixed(1)} ms, p95 ${line.p95.toFixed(1)} ms, max ${line.max.toFixed(0)} ms; `
          + `${line.over50} over 50 ms, ${line.over100} over 100 ms); long tasks ${line.longN}, ${line.longMs.toFixed(0)} ms`);
      }
    }
    for (let k = 0; k < dists.length; k++) {
      const m = (f) => { const v = all[k].map(f).sort((a, b) => a - b); return q(v, 0.5); };
      console.log(`${dists[k]}: median over rounds: frame p95 ${m((x) => x.p95).toFixed(1)} ms, max ${m((x) => x.max).toFixed(0)} ms, `
        + `${m((x) => x.over50)} frames over 50 ms, long tasks ${m((x) => x.longMs).toFixed(0)} ms per render`);
    }
  } finally {
    await ctx.close();
    fs.rmSync(dir, { recursive: true, force: true });
    servers.forEach((s) => s.close());
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
