// The GPU view's timings (built dist/, headless Chromium on SwiftShader): not a test, a
// measurement that prints numbers (BENCHMARKS.md, "The GPU view"). For each API (WebGPU
// with Chromium's WebGPU flags, WebGL2 with only ANGLE's) and each example, the page's own
// timing buttons at each size: "Time both pairs" (one draw per sample) and "Heavier" (12 draws
// per sample), original and optimized interleaved; prints medians, interquartile ranges,
// the ratio and the method the page used, with the load average before and after.
//
//   node tests/e2e/gpu-timing.mjs     EXAMPLES=paper/fig3,paper/gauss13  SIZES=0,1024
//                                     HEAVY=1024  APIS=webgpu,webgl2  HOIST_E2E_DIST=...

import fs from 'node:fs';
import os from 'node:os';
import { GPU_FLAGS, SLOW, done, launch, serve, dist } from './common.mjs';

const list = (v, d) => (v || d).split(',').filter(Boolean);
const EXAMPLES = list(process.env.EXAMPLES, 'paper/fig3,paper/gauss13');
const SIZES = list(process.env.SIZES, '0,1024');
const HEAVY = list(process.env.HEAVY, '1024');
const APIS = list(process.env.APIS, 'webgpu,webgl2');

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

/// Clicks `button` and waits for a timing with `repeat` draws per sample at `width` (a new
/// one: no two timings of an example share both).
async function timing(page, button, repeat, width) {
  await page.click(button);
  await page.waitForFunction(([r, w]) => {
    const g = window.hoistReport().gpu;
    return g.timingError || (!g.busy && g.timing && g.timing.repeat === r && g.timing.width === w);
  }, [repeat, width], { timeout: 30 * 60_000 });
  const g = (await page.evaluate(() => window.hoistReport())).gpu;
  if (g.timingError) return { error: g.timingError };
  return g.timing;
}

const row = (api, ex, t) => (t.error ? `| ${api} | ${ex} | ${t.error} |` : `| ${api} | ${ex} | ${t.width}² | ${t.repeat} | `
  + `${t.original.median.toFixed(3)} [${t.original.q1.toFixed(3)}–${t.original.q3.toFixed(3)}] | `
  + `${t.optimized.median.toFixed(3)} [${t.optimized.q1.toFixed(3)}–${t.optimized.q3.toFixed(3)}] | `
  + `${t.ratio.toFixed(3)}${t.same ? ' (1 within the spread)' : ''} | ${t.method} |`);

const server = await serve(dist);
const base = `http://127.0.0.1:${server.address().port}/`;
const errors = [];
console.log(`start ${new Date().toISOString()}, load ${load()}, ${os.cpus().length} CPUs (${os.cpus()[0].model})`);
console.log('| API | example | size | draws/sample | original ms [IQR] | optimized ms [IQR] | ratio | method |');
console.log('|---|---|---|---|---|---|---|---|');
try {
  for (const api of APIS) {
    const b = await launch(errors, api, GPU_FLAGS[api]);
    const page = b.ctx.pages()[0] || (await b.ctx.newPage());
    for (const ex of EXAMPLES) {
      await page.goto(`${base}#ex=${ex}`);
      await page.waitForFunction((e) => window.hoistReport?.()?.example === e && window.hoistReport().current, ex, { timeout: SLOW });
      await page.waitForFunction(done, null, { timeout: SLOW });
      if ((await page.getAttribute('#gpu-toggle', 'aria-expanded')) !== 'true') await page.click('#gpu-toggle');
      await page.waitForFunction(() => {
        const g = window.hoistReport().gpu;
        return g.unavailable || g.error || (g.current && !g.busy && g.agreement[0] && g.agreement[1]);
      }, null, { timeout: SLOW });
      const g = (await page.evaluate(() => window.hoistReport())).gpu;
      if (g.unavailable || g.error) { console.log(`| ${api} | ${ex} | ${g.unavailable || g.error} |`); continue; }
      const docWidth = (await page.evaluate(() => window.hoistReport().size))[0];
      for (const [button, sizes, repeat] of [['#gpu-time', SIZES, 1], ['#gpu-heavier', HEAVY, 12]]) {
        for (const s of sizes) {
          await page.selectOption('#gpu-size', s);
          console.log(row(api, ex, await timing(page, button, repeat, Number(s) || docWidth)));
        }
      }
    }
    await b.ctx.close();
    fs.rmSync(b.dir, { recursive: true, force: true });
  }
} finally {
  server.close();
}
console.log(`end ${new Date().toISOString()}, load ${load()}`);
if (errors.length) console.log(`console errors:\n  ${errors.join('\n  ')}`);
