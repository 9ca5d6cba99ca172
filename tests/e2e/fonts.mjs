import fs from 'node:fs';
import { dist, done, launch, serve, log } from './common.mjs';
const server = await serve(process.env.HOIST_E2E_DIST || dist);
const base = `http://127.0.0.1:${server.address().port}/`;
const { ctx, dir } = await launch([], 'lay');
const page = ctx.pages()[0] || (await ctx.newPage());
await page.goto(base);
await page.waitForFunction(done, null, { timeout: 120_000, polling: 16 });
const r = await page.evaluate(() => {
  const m = new Map();
  for (const el of document.querySelectorAll('body *')) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const s = getComputedStyle(el);
    if (s.display === 'none') continue;
    const k = `${s.fontFamily.slice(0, 40)} | ${s.fontSize} | ${s.fontWeight} | ${s.fontStyle}`;
    m.set(k, (m.get(k) || 0) + 1);
  }
  return [...m].sort((a, b) => b[1] - a[1]);
});
for (const [k, n] of r) log(n, k);
log('distinct', r.length);
await ctx.close(); fs.rmSync(dir, { recursive: true, force: true }); server.close();
