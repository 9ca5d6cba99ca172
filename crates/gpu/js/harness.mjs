// Runs hoist-gpu plans in headless Chromium (SwiftShader behind WebGPU and WebGL2) through
// runner.mjs, for the differential tests (crates/gpu/tests/gpu.rs) and scripts.
//
//   node crates/gpu/js/harness.mjs JOBS.json OUT.json
//
// JOBS.json: [{ name, api: "webgpu"|"webgl2", plan }]; OUT.json: [{ name, api, ...result }]
// with runner.mjs's result (or { error }). Chromium: $CHROMIUM or /usr/bin/chromium;
// playwright-core from tests/e2e/node_modules (scripts/setup.sh). HOIST_GPU_FLAGS=none
// starts Chromium without its GPU flags (for checking the no-API path).

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pw = path.resolve(here, '../../../tests/e2e/node_modules/playwright-core/index.mjs');
const { chromium } = await import(pathToFileURL(pw).href);

const [jobsPath, outPath] = process.argv.slice(2);
const jobs = JSON.parse(fs.readFileSync(jobsPath, 'utf8'));
const runner = fs.readFileSync(path.join(here, 'runner.mjs'));

const server = http.createServer((req, res) => {
  if (req.url === '/runner.mjs') {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end(runner);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html' });
  res.end('<!doctype html><title>hoist gpu</title>');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;

const gpuFlags = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless=new', '--disable-dev-shm-usage',
    ...(process.env.HOIST_GPU_FLAGS === 'none' ? ['--disable-gpu', '--disable-webgl'] : gpuFlags)],
});
const out = [];
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(0);
  await page.goto(url);
  for (const job of jobs) {
    const t0 = Date.now();
    try {
      const r = await page.evaluate(async ({ api, plan }) => {
        const m = await import('/runner.mjs');
        return m.run(api, plan);
      }, { api: job.api, plan: job.plan });
      out.push({ name: job.name, api: job.api, ms: Date.now() - t0, ...r });
    } catch (e) {
      out.push({ name: job.name, api: job.api, error: String(e.message || e) });
    }
  }
} finally {
  await browser.close();
  server.close();
}
fs.writeFileSync(outPath, JSON.stringify(out));
