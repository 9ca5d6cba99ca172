// The page's first worker starts from index.html, before the page's own bundle (issue 27,
// load time): the page adopts it (one worker, not two, and the first verdict arrives) and a
// worker that dies while the page is still loading is not forgotten — a dist/ without the
// worker's wasm shows why the optimizer stopped, as it did before the early start. The page's
// first job reaches that worker before the app has drawn its editors, and only once.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scenario, waitText, fail, log, dist, serve, launch } from '../common.mjs';

/// Counts the workers each page makes, by script.
const count = () => {
  window.__workers = {};
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(url, opts) {
      super(url, opts);
      const name = String(url).split('/').pop();
      window.__workers[name] = (window.__workers[name] ?? 0) + 1;
      // Each job posted (a request's first byte is its variant: 0 is a job) and whether
      // the editors had been drawn then.
      window.__jobs = window.__jobs ?? [];
      const post = this.postMessage.bind(this);
      this.postMessage = (m, tr) => {
        if (Array.isArray(m) && m[0] instanceof Uint8Array && m[0][0] === 0) {
          window.__jobs.push({ name, editors: (document.querySelector('#fp')?.value ?? '').length > 0 });
        }
        return post(m, tr);
      };
    }
  };
};

scenario('worker-start', async ({ base, open }) => {
  const page = await open('counted');
  await page.addInitScript(count);
  await page.goto(base);
  await waitText(page, '#verdict', (t) => t === 'bit-identical', 'the first verdict');
  const made = await page.evaluate(() => window.__workers);
  if (made['hoist-worker-loader.js'] !== 1) fail(`workers made: ${JSON.stringify(made)} (the early one not adopted?)`);
  log(`one worker for the first verdict: ${JSON.stringify(made)}`);
  const jobs = await page.evaluate(() => window.__jobs);
  if (jobs.length !== 1 || jobs[0].editors) fail(`jobs posted for the first verdict: ${JSON.stringify(jobs)} (one, before the editors were drawn)`);
  log('the first job was posted once, before the editors were drawn');

  // The same page with the worker's wasm missing.
  const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'hoist-nowasm-'));
  for (const f of fs.readdirSync(dist)) {
    if (f !== 'hoist-worker_bg.wasm' && fs.statSync(path.join(dist, f)).isFile()) fs.copyFileSync(path.join(dist, f), path.join(bad, f));
  }
  const server = await serve(bad);
  const errors = [];
  const b = await launch(errors, 'no worker wasm');
  try {
    const p = b.ctx.pages()[0] || (await b.ctx.newPage());
    await p.goto(`http://127.0.0.1:${server.address().port}/`);
    const shown = await p.waitForFunction(() => {
      const why = window.hoistReport?.().engineError;
      return why && document.body.innerText.includes(why) ? why : null;
    }, null, { timeout: 30_000 }).then((h) => h.jsonValue())
      .catch(() => fail('no failure shown on the page without the worker\'s wasm'));
    if (!/worker could not start/.test(shown)) fail(`the page says ${JSON.stringify(shown)}`);
    log(`without the worker's wasm the page says: ${shown.slice(0, 120)}`);
  } finally {
    await b.ctx.close();
    server.close();
    fs.rmSync(bad, { recursive: true, force: true });
  }
});
