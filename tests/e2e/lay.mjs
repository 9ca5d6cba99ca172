import fs from 'node:fs';
import { dist, done, launch, serve, log } from './common.mjs';
const server = await serve(process.env.HOIST_E2E_DIST || dist);
const base = `http://127.0.0.1:${server.address().port}/`;
const { ctx, dir } = await launch([], 'lay');
const page = ctx.pages()[0] || (await ctx.newPage());
await page.goto(base);
await page.waitForFunction(done, null, { timeout: 120_000, polling: 16 });
await page.waitForTimeout(1000);
const r = await page.evaluate(() => {
  const relayout = () => { const t = performance.now(); document.body.style.width = document.body.style.width === '1439px' ? '1438px' : '1439px'; void document.body.offsetHeight; return performance.now() - t; };
  const out = { full: [relayout(), relayout(), relayout()] };
  // hide each top-level section in turn
  const sections = [...document.querySelectorAll('.app > *, .app > * > *')];
  for (const s of sections) {
    const old = s.style.display; s.style.display = 'none'; void document.body.offsetHeight;
    const t = [relayout(), relayout()];
    s.style.display = old; void document.body.offsetHeight;
    out[(s.tagName + '.' + [...s.classList].join('.') + '#' + s.id).slice(0, 60)] = Math.min(...t).toFixed(1);
  }
  return out;
});
log(JSON.stringify(r, null, 1));
await ctx.close(); fs.rmSync(dir, { recursive: true, force: true }); server.close();
