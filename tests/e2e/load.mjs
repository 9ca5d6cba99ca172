// Page load as a first-time visitor sees it (issue 27): a fresh browser profile per run (no
// HTTP or wasm code cache), the built dist/ served locally, the default example. Not a test,
// a measurement that prints numbers: per run, from navigation start, the first paint, the
// editors filled, the first image drawn, the first verdict (shown, with a current report
// that carries one) and the panels below the output (drawn a paint after it); then the
// medians, the load average and the bundle sizes.
//
// The browser is already running when the page is opened, as a visitor's is: each fresh
// browser shows about:blank first and the page is the next navigation. COLD_BROWSER=1 opens
// the page as the new browser's first navigation instead, which also counts the browser's
// own start-up work still under way then (earlier figures in BENCHMARKS.md were taken so).
//
//   node tests/e2e/load.mjs            RUNS=5  HOIST_E2E_DIST=path/to/dist  TIMELINE=1  COLD_BROWSER=1

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { dist, done, launch, log, serve, verdictShown } from './common.mjs';

const RUNS = Number(process.env.RUNS || 5);

/// Records, inside the page, when each milestone is first seen (checked on every frame).
const watch = (isShown, isDone) => {
  const t = { worker: [] };
  window.__hoistLoad = t;
  // The worker's timeline: when each worker is made, and when each of its messages (in and
  // out) passes, from navigation start.
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(url, opts) {
      super(url, opts);
      const name = String(url).split('/').pop();
      t.worker.push([name, 'new', Math.round(performance.now())]);
      this.addEventListener('message', (e) => t.worker.push([name, 'in', Math.round(performance.now()),
        e.data?.byteLength ?? e.data?.length ?? typeof e.data]));
      const post = this.postMessage.bind(this);
      this.postMessage = (m, tr) => { t.worker.push([name, 'out', Math.round(performance.now())]); return post(m, tr); };
    }
  };
  const mark = (k, ok) => { if (t[k] === undefined && ok()) t[k] = performance.now(); };
  const check = () => {
    mark('editors', () => (document.querySelector('#fp')?.value ?? '').length > 0);
    if (!window.hoistReport) return;
    const r = window.hoistReport();
    mark('image', () => r && r.current && r.renderMs);
    mark('verdict', () => isShown() && r && r.current && !r.rendering && r.verdict);
    mark('panels', () => t.verdict !== undefined && isDone());
  };
  const frame = () => { check(); if (t.panels === undefined) requestAnimationFrame(frame); };
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
    await page.addInitScript(`(${watch})(${verdictShown}, ${done})`);
    if (!process.env.COLD_BROWSER) {
      await page.goto('about:blank');
      await new Promise((r) => setTimeout(r, 500));
    }
    load.push(os.loadavg()[0]);
    await page.goto(base);
    await page.waitForFunction(() => window.__hoistLoad?.panels !== undefined, null, { timeout: 120_000 });
    const r = await page.evaluate(() => ({
      ...window.__hoistLoad,
      paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      wasm: performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.wasm'))
        .map((e) => [e.name.split('/').pop(), Math.round(e.responseEnd)]),
      verdictText: document.querySelector('#verdict')?.textContent,
      optimizerMs: window.hoistReport().optimizerMs,
      renderMs: window.hoistReport().renderMs,
    }));
    rows.push(r);
    log(`run ${i + 1}: paint ${r.paint?.toFixed(0)} ms, editors ${r.editors?.toFixed(0)}, image ${r.image?.toFixed(0)}, `
      + `verdict ${r.verdict.toFixed(0)} ms ("${r.verdictText}"), panels ${r.panels.toFixed(0)} ms; wasm fetched ${JSON.stringify(r.wasm)}`);
    if (process.env.TIMELINE) {
      log(`  worker timeline: ${JSON.stringify(r.worker)}; optimizer ${r.optimizerMs?.toFixed(1)} ms, renders ${JSON.stringify(r.renderMs)} ms`);
    }
    if (errors.length) log('console errors:', errors.join('; '));
    await b.ctx.close();
    fs.rmSync(b.dir, { recursive: true, force: true });
  }
  server.close();
  const m = (k) => median(rows.map((r) => r[k]).filter((x) => x !== undefined));
  log(`median of ${RUNS}: first paint ${m('paint')?.toFixed(0)} ms, editors ${m('editors')?.toFixed(0)} ms, `
    + `first image ${m('image')?.toFixed(0)} ms, first verdict ${m('verdict').toFixed(0)} ms `
    + `(min ${Math.min(...rows.map((r) => r.verdict)).toFixed(0)}, max ${Math.max(...rows.map((r) => r.verdict)).toFixed(0)}), `
    + `panels below the output ${m('panels').toFixed(0)} ms; `
    + `load average ${load.map((x) => x.toFixed(1)).join(', ')}; ${os.cpus().length} CPUs; `
    + `${process.env.COLD_BROWSER ? "the browser's first navigation" : 'after about:blank'}`);
  for (const f of fs.readdirSync(dist).filter((f) => f.endsWith('.wasm') || f.endsWith('.js'))) {
    const data = fs.readFileSync(path.join(dist, f));
    log(`bundle ${f}: ${data.length} B, ${zlib.gzipSync(data, { level: 9 }).length} B gzipped`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
