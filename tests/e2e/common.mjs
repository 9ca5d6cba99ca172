// What the browser scripts share: a static server for a built dist/, the page's "settled"
// condition, and the 500-line pair the measurements type into.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

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

/// In the page: the analysis is current, no render is under way and a verdict is shown.
export const done = () => {
  const v = document.querySelector('#verdict');
  return !document.querySelector('.app.stale') && !document.querySelector('.progress') && v && v.textContent !== ''
    && !v.textContent.startsWith('waiting');
};

/// A 500-line pair: 61 blocks of address arithmetic, a fetch and accumulation; keys are
/// typed after `// typing here:`.
export function bigPair() {
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
