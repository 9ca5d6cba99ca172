// Renders shared with helper workers (issue 26), measured in the page: gauss13 at SIZE²
// (default 1024), the compiled executor forced, "time again" ROUNDS times with no helper
// (`hoist-test-band-workers` 0) and with the page's own choice (one helper per spare
// processor), alternating; prints each render's worker time (hoistReport().renderMs: the
// run's whole step time, texture generation and vertex stage included), the bands
// helpers drew, and the medians. Not a test, a measurement.
//
// HIDE=1 hides the page's body during the renders, so the page paints nothing (what the
// workers do with the machine to themselves). Each page renders WARM times first, and
// every render waits PAUSE ms after the one before it, in either page: the browser
// compiles hot WebAssembly functions again in the background (V8's tier-up) for a while
// after each job, and on two cores that work landed in the other page's render.
//
//   node tests/e2e/bands-bench.mjs     ROUNDS=7 SIZE=1024 HELPERS=auto|N HIDE=1 WARM=3 PAUSE=600 HOIST_E2E_DIST=…

import fs from 'node:fs';
import { dist, done, launch, serve } from './common.mjs';

const ROUNDS = Number(process.env.ROUNDS || 7);
const SIZE = Number(process.env.SIZE || 1024);
const HELPERS = process.env.HELPERS || 'auto';
const WARM = Number(process.env.WARM || 3);
const PAUSE = Number(process.env.PAUSE || 600);

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

async function open(base, errors, label, helpers) {
  const b = await launch(errors, label);
  const page = b.ctx.pages()[0] || (await b.ctx.newPage());
  await page.addInitScript(([h]) => {
    localStorage.setItem('hoist-test-executor', 'compile');
    if (h !== null) localStorage.setItem('hoist-test-band-workers', h);
  }, [helpers]);
  await page.goto(`${base}#ex=paper/gauss13`);
  await page.waitForFunction(done, null, { timeout: 120_000 });
  await page.click('#examples-button');
  await page.click('#ex-paper-gauss13');
  await page.waitForFunction(() => window.hoistReport()?.example === 'paper/gauss13', null, { timeout: 120_000 });
  for (const label of ['Render width', 'Render height']) {
    await page.fill(`[aria-label="${label}"]`, String(SIZE));
    await page.press(`[aria-label="${label}"]`, 'Tab');
  }
  await page.waitForFunction((s) => window.hoistReport()?.size?.[1] === s, SIZE, { timeout: 120_000 });
  await page.waitForFunction(`(${done})() && window.hoistReport().current && !window.hoistReport().rendering`, null, { timeout: 120_000 });
  return { b, page };
}

async function again(page) {
  await page.waitForTimeout(PAUSE);
  const old = await page.evaluate(() => JSON.stringify(window.hoistReport().renderMs));
  await page.evaluate(() => document.querySelector('#stat-time-again').click());
  await page.waitForFunction((o) => {
    const r = window.hoistReport();
    return JSON.stringify(r.renderMs) !== o && r.current && !r.rendering && r.verdict;
  }, old, { timeout: 120_000, polling: 500 });
  return page.evaluate(() => { const r = window.hoistReport(); return { ms: r.renderMs, helped: r.helped, exec: r.executor }; });
}

const server = await serve(dist);
const base = `http://127.0.0.1:${server.address().port}/`;
const errors = [];
const modes = [['one worker', '0'], [`helpers ${HELPERS}`, HELPERS === 'auto' ? null : HELPERS]];
const pages = [];
for (const [label, h] of modes) pages.push(await open(base, errors, label, h));
// Helpers start after a job: one warm-up render each.
for (const { page } of pages) { await page.waitForTimeout(2000); for (let i = 0; i < WARM; i++) await again(page); }
if (process.env.HIDE) for (const { page } of pages) await page.evaluate(() => { document.body.style.display = 'none'; });
const rows = modes.map(() => []);
for (let i = 0; i < ROUNDS; i++) {
  for (let m = 0; m < modes.length; m++) {
    const r = await again(pages[m].page);
    rows[m].push(r);
    console.log(`${modes[m][0]}: original ${r.ms[0].toFixed(1)} ms, optimized ${r.ms[1].toFixed(1)} ms, helped ${JSON.stringify(r.helped)}`);
  }
}
for (let m = 0; m < modes.length; m++) {
  const o = rows[m].map((r) => r.ms[0]);
  const p = rows[m].map((r) => r.ms[1]);
  console.log(`BENCH ${modes[m][0]} gauss13 ${SIZE}²: original median ${median(o).toFixed(1)} ms (${Math.min(...o).toFixed(1)}–${Math.max(...o).toFixed(1)}), optimized median ${median(p).toFixed(1)} ms (${Math.min(...p).toFixed(1)}–${Math.max(...p).toFixed(1)}); executor ${JSON.stringify(rows[m][0].exec)}`);
}
if (errors.length) console.log(`console errors:\n  ${errors.join('\n  ')}`);
for (const { b } of pages) { await b.ctx.close(); fs.rmSync(b.dir, { recursive: true, force: true }); }
server.close();
