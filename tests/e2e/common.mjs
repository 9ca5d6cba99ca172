// What the browser scripts share: a static server for a built dist/, the browser launch and
// waiting helpers, the page's "settled" condition, the 500-line pair the measurements type
// into, and `scenario` — the harness of each end-to-end script in `scenarios/` (a fresh
// server and browser profile, console errors collected and failed on, a PASS/FAIL exit).

import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const dist = path.resolve(process.env.HOIST_E2E_DIST || path.join(root, 'dist'));
export const shots = path.join(here, 'screenshots');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
];
/// ms: a debug build or a busy machine renders slowly.
export const SLOW = 90_000;

export const log = (...a) => console.log('[e2e]', ...a);
export class Failure extends Error {}
export const fail = (msg) => { throw new Failure(msg); };

/// Chromium's flags for its GPU APIs on SwiftShader (WebGPU, WebGL2), and for neither;
/// `ARGS` alone (`--disable-gpu`) is what every other scenario runs with.
export const GPU_FLAGS = {
  webgpu: ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-vulkan=swiftshader',
    '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  webgl2: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  none: ['--disable-gpu', '--disable-webgl'],
};

/// A fresh persistent browser profile whose console errors go to `consoleErrors`; `gpu`
/// (a GPU_FLAGS entry) replaces `--disable-gpu` with those flags.
export async function launch(consoleErrors, label, gpu = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hoist-e2e-'));
  const args = gpu ? [...ARGS.filter((a) => a !== '--disable-gpu'), ...gpu] : ARGS;
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM, headless: true, args,
    viewport: { width: 1440, height: 1000 }, deviceScaleFactor: 1,
  });
  const watch = (page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`${label}: console.error: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`${label}: page error: ${e.message}`));
    page.on('requestfailed', (r) => consoleErrors.push(`${label}: request failed: ${r.url()}`));
  };
  ctx.pages().forEach(watch);
  ctx.on('page', watch);
  return { ctx, dir };
}

export async function text(page, sel) {
  return page.evaluate((s) => document.querySelector(s)?.textContent ?? null, sel);
}

/// Waits until `pred(text of sel)` holds; fails with the last text seen.
export async function waitText(page, sel, pred, what, timeout = SLOW) {
  const end = Date.now() + timeout;
  let last = null;
  while (Date.now() < end) {
    last = await text(page, sel);
    if (last !== null && pred(last)) return last;
    await page.waitForTimeout(100);
  }
  fail(`timed out waiting for ${what}: ${sel} shows ${JSON.stringify(last)}`);
}

/// A viewport screenshot into tests/e2e/screenshots/.
export async function shot(page, name) {
  fs.mkdirSync(shots, { recursive: true });
  const file = path.join(shots, name);
  await page.screenshot({ path: file, fullPage: false });
  log('screenshot', path.relative(root, file));
}

/// Runs one end-to-end scenario: serves dist/, opens a page at the app and waits for its
/// first verdict, calls `body({ page, base, errors, open })` (`open(label, gpu)` gives another
/// fresh page, in a browser with `gpu`'s flags when given), fails on console errors left in `errors`, and exits 0 on PASS, 1 on FAIL.
export function scenario(name, body) {
  const run = async () => {
    if (!fs.existsSync(path.join(dist, 'index.html'))) {
      fail(`${dist}/index.html not found: run \`trunk build --release\` first`);
    }
    const server = await serve(dist);
    const base = `http://127.0.0.1:${server.address().port}/`;
    const errors = [];
    const opened = [];
    const open = async (label, gpu = null) => {
      const b = await launch(errors, label, gpu);
      opened.push(b);
      return b.ctx.pages()[0] || (await b.ctx.newPage());
    };
    try {
      const page = await open('page 1');
      await page.goto(base);
      await waitText(page, '#verdict', (t) => t.length > 0, 'the app to start', SLOW);
      await body({ page, base, errors, open });
      if (errors.length) fail(`console errors:\n  ${errors.join('\n  ')}`);
      log(`${name}: PASS`);
    } finally {
      for (const o of opened) {
        await o.ctx.close().catch(() => {});
        fs.rmSync(o.dir, { recursive: true, force: true });
      }
      server.close();
    }
  };
  run().then(
    () => process.exit(0),
    (e) => {
      console.error(`[e2e] ${name}: FAIL:`, e instanceof Failure ? e.message : e.stack || e);
      process.exit(1);
    },
  );
}

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm', '.png': 'image/png', '.svg': 'image/svg+xml',
  '.json': 'application/json', '.ico': 'image/x-icon',
};

/// Serves `dir` on a free port of 127.0.0.1 (resolves to the server).
export function serve(dir) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let rel = decodeURIComponent(url.pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(dir, '.' + rel);
    if (!file.startsWith(dir + path.sep)) { res.writeHead(403).end(); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'); return; }
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
        'cache-control': 'no-store',
      }).end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/// In the page: nothing stale, no render under way, a verdict word earned and shown.
export const verdictShown = () => {
  const v = document.querySelector('#verdict');
  return !document.querySelector('.app.stale') && !document.querySelector('.progress') && v && v.textContent !== ''
    && !v.textContent.startsWith('waiting') && !v.textContent.startsWith('validating');
};

/// In the page: the verdict is shown and the panels below the output, drawn one paint
/// behind, have caught up. Built from `verdictShown`'s text, so that it too carries no
/// closure and can be passed into the page as text.
export const done = new Function(
  `return (${verdictShown})() && !document.querySelector('#panels-pending');`,
);

/// The page has settled (`done`) and its report agrees: current, rendered, with a verdict;
/// returns the report.
export async function settledReport(page, what) {
  const ready = () => {
    const r = window.hoistReport();
    return r && r.current && !r.rendering && r.verdict;
  };
  await page.waitForFunction(`(${done})() && (${ready})()`, null, { timeout: SLOW })
    .catch(() => fail(`the page did not settle: ${what}`));
  return page.evaluate(() => window.hoistReport());
}

/// A long pair: `blocks` blocks of address arithmetic, a fetch and accumulation (61: 500
/// lines, 249: 2004 lines); keys are typed after `// typing here:`.
export function bigPair(blocks = 61) {
  const vp = 'vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\ndcl_texcoord0 o1\nmov o0, v0\nmov o1, v1\n';
  const fp = ['ps_3_0', '// typing here: ', '// a long fragment program for the latency measurement',
    'def c0, 0.001, 0.002, 0.5, 2', 'def c1, 0, 0, 0, 0', 'dcl_texcoord0 v0', 'dcl_2d s0', 'mov r3, c1'];
  for (let i = 0; i < blocks; i++) {
    fp.push('mul r0, v0, c0.wzyx', 'add r0.x, r0.x, c0.x', 'mad r0.y, r0.y, c0.z, c0.y', 'texld r1, r0, s0',
      'mul r2, r1, c0.w', 'rsq r2.x, r2.x', 'mad r3, r2, c0.x, r3', 'add r3, r3, r0');
  }
  fp.push('mov oC0, r3');
  return { vp, fp: fp.join('\n') + '\n' };
}
