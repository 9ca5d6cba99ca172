// Page load as a first-time visitor sees it (issue 27): a fresh browser profile per run (no
// HTTP or wasm code cache), the built dist/ served locally, the default example. Not a test,
// a measurement that prints numbers: per run, from navigation start, the first paint, the
// editors filled, the first image drawn, and the first verdict (the page settled with a
// current report that carries a verdict); then the medians, the load average and the
// bundle sizes.
//
//   node tests/e2e/load.mjs            RUNS=5  HOIST_E2E_DIST=path/to/dist

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { dist, done, launch, log, serve } from './common.mjs';

const RUNS = Number(process.env.RUNS || 5);

/// Records, inside the page, when each milestone is first seen (checked on every frame).
const watch = (isDone) => {
  const t = {};
  window.__hoistLoad = t;
  const mark = (k, ok) => { if (t[k] === undefined && ok()) t[k] = performance.now(); };
  const check = () => {
    mark('editors', () => (document.querySelector('#fp')?.value ?? '').length > 0);
    if (!window.hoistReport) return;
    const r = window.hoistReport();
    mark('image', () => r && r.current && r.renderMs);
    mark('verdict', () => isDone() && r && r.current && !r.rendering && r.verdict);
  };
  const frame = () => { check(); if (t.verdict === undefined) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
};

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

async function main() {
  const server = await serve(dist);
  const base = `http://127.0.0.1:${server.address().port}/`;
  const rows = [];
  const load = [];
  for (let i = 0; i < RUNS; i++) {
    const errors = [];
    const b = await launch(errors, `run ${i + 1}`);
    const page = b.ctx.pages()[0] || (await b.ctx.newPage());
    await page.addInitScript(`(${watch})(${done})`);
    load.push(os.loadavg()[0]);
    await page.goto(base);
    await page.waitForFunction(() => window.__hoistLoad?.verdict !== undefined, null, { timeout: 120_000 });
    const r = await page.evaluate(() => ({
      ...window.__hoistLoad,
      paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      wasm: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm'))
        .map((e) => [e.name.split('/').pop(), Math.round(e.responseEnd)]),
      verdictText: document.querySelector('#verdict')?.textContent,
    }));
    rows.push(r);
    log(`run ${i + 1}: paint ${r.paint?.toFixed(0)} ms, editors ${r.editors?.toFixed(0)}, image ${r.image?.toFixed(0)}, `
      + `verdict ${r.verdict.toFixed(0)} ms ("${r.verdictText}"); wasm fetched ${JSON.stringify(r.wasm)}`);
    if (errors.length) log('console errors:', errors.join('; '));
    await b.ctx.close();
    fs.rmSync(b.dir, { recursive: true, force: true });
  }
  server.close();
  const m = (k) => median(rows.map((r) => r[k]).filter((x) => x !== undefined));
  log(`median of ${RUNS}: first paint ${m('paint')?.toFixed(0)} ms, editors ${m('editors')?.toFixed(0)} ms, `
    + `first image ${m('image')?.toFixed(0)} ms, first verdict ${m('verdict').toFixed(0)} ms `
    + `(min ${Math.min(...rows.map((r) => r.verdict)).toFixed(0)}, max ${Math.max(...rows.map((r) => r.verdict)).toFixed(0)}); `
    + `load average ${load.map((x) => x.toFixed(1)).join(', ')}; ${os.cpus().length} CPUs`);
  for (const f of fs.readdirSync(dist).filter((f) => f.endsWith('.wasm') || f.endsWith('.js'))) {
    const data = fs.readFileSync(path.join(dist, f));
    log(`bundle ${f}: ${data.length} B, ${zlib.gzipSync(data, { level: 9 }).length} B gzipped`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
