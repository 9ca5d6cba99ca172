// `./scripts/dev.sh` (trunk serve) as a developer sees it (issue 27 item 16): the served HTML
// holds no raw `{{__TRUNK_...}}` placeholder, and the page's live-reload WebSocket connects
// (no "WebSocket connection … failed" every 5 s in the console). Starts dev.sh on a free
// port, waits for its first build, checks, and stops it. Exits non-zero on any failure.
//
//   node tests/e2e/dev-serve.mjs

import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { root, log, fail, Failure, launch } from './common.mjs';

const freePort = () => new Promise((ok) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => ok(port)); });
});

async function main() {
  const port = await freePort();
  const dev = spawn(path.join(root, 'scripts/dev.sh'), [], {
    env: { ...process.env, PORT: String(port) }, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  dev.stdout.on('data', (d) => { out += d; });
  dev.stderr.on('data', (d) => { out += d; });
  const url = `http://127.0.0.1:${port}/`;
  const errors = [];
  let browser = null;
  try {
    // The first build may take minutes on a loaded machine.
    let html = null;
    for (let t = 0; t < 1800 && html === null; t++) {
      if (dev.exitCode !== null) fail(`dev.sh exited with ${dev.exitCode}:\n${out.slice(-2000)}`);
      try {
        const r = await fetch(url);
        if (r.ok) html = await r.text();
      } catch { /* not yet listening */ }
      if (html === null) await new Promise((ok) => setTimeout(ok, 1000));
    }
    if (html === null) fail(`dev.sh served nothing at ${url}:\n${out.slice(-2000)}`);
    const raw = html.match(/\{\{__TRUNK[A-Z_ ]*__\}\}/g);
    if (raw) fail(`the served HTML holds raw placeholders: ${[...new Set(raw)].join(', ')}`);
    if (!html.includes('.well-known/trunk/ws')) fail('the served HTML has no live-reload script');
    log(`served ${html.length} B of HTML at ${url}, no raw placeholder`);

    browser = await launch(errors, 'dev');
    const page = browser.ctx.pages()[0] || (await browser.ctx.newPage());
    const sockets = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto(url);
    // Three of the reload script's 5 s retry periods.
    await page.waitForTimeout(16_000);
    const ws = errors.filter((e) => /WebSocket/i.test(e));
    if (ws.length) fail(`the live-reload socket fails:\n  ${ws.join('\n  ')}`);
    const want = `ws://127.0.0.1:${port}/.well-known/trunk/ws`;
    if (!sockets.includes(want)) fail(`the page opened ${JSON.stringify(sockets)}, not ${want}`);
    log(`live reload: ${sockets.length} socket(s), ${want} open, no WebSocket error in 16 s`);
    log('dev-serve: PASS');
  } finally {
    if (browser) await browser.ctx.close().catch(() => {});
    // dev.sh execs trunk in its own process group: stop that group only.
    try { process.kill(-dev.pid, 'SIGTERM'); } catch { /* already gone */ }
  }
}

main().then(() => process.exit(0), (e) => {
  console.error('[e2e] dev-serve: FAIL:', e instanceof Failure ? e.message : e.stack || e);
  process.exit(1);
});
