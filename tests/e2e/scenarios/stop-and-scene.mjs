// Render jobs that can be stopped and seen, the scene's text in the page, the work cap and
// the dark theme (issue 10, slice d):
//   - the scene editor shows the example's scene; a broken line gets a diagnostic at its line,
//     and an edit re-renders (a `clear` at the end turns the images red);
//   - 1501 full-screen draws at 1024×1024 (under the cap) show progress and Stop; Stop ends
//     the job within two seconds, the page says stopped, and a small edit then gets its
//     verdict promptly (the worker is free); Run again starts the job again;
//   - 3001 draws at 1024×1024 (over the cap) are refused with a message naming the numbers
//     and the cap before anything renders, in the page and when opened from a link;
//   - prefers-color-scheme: dark changes the page's colours; text keeps its contrast.

import { done, fail, log, scenario, shot, text, waitText } from '../common.mjs';

/// Time (ms) until `pred()` holds in the page, polled every animation frame.
async function until(page, pred, what, timeout = 90_000, arg = null) {
  const t0 = Date.now();
  try {
    await page.waitForFunction(pred, arg, { timeout, polling: 'raf' });
  } catch {
    fail(`timed out waiting for ${what}`);
  }
  return Date.now() - t0;
}

/// In the page: records in `window.__rendered` whether the render bar ever grew above 0 %.
const rendered = () => {
  window.__rendered = false;
  new MutationObserver(() => {
    const bar = document.querySelector('.progress');
    if (bar && parseFloat(bar.getAttribute('aria-valuenow')) > 0) window.__rendered = true;
  }).observe(document, { subtree: true, childList: true, attributes: true });
};

const settled = () => {
  const r = window.hoistReport?.();
  const v = document.querySelector('#verdict');
  return r && r.current && !r.rendering && v && !v.textContent.startsWith('waiting');
};

async function setScene(page, scene) {
  await page.fill('#scene', scene);
}

/// Types both size fields; the document (not only the fields) must then have that size.
async function setSize(page, w, h) {
  for (const [label, v] of [['Render width', w], ['Render height', h]]) {
    await page.fill(`[aria-label="${label}"]`, String(v));
    await page.press(`[aria-label="${label}"]`, 'Tab');
  }
  await until(page, ([w, h]) => {
    const s = window.hoistReport().size;
    return s[0] === w && s[1] === h;
  }, `the document's size to become ${w}×${h}`, 10_000, [w, h]);
}

/// Red, green, blue of the original canvas's pixel at (x, y) from the top left.
async function pixel(page, x, y) {
  return page.evaluate(([x, y]) => {
    const c = document.querySelector('#canvas-original');
    return [...c.getContext('2d').getImageData(x, y, 1, 1).data].slice(0, 3);
  }, [x, y]);
}

/// WCAG contrast of an element's text against the first opaque background behind it.
async function contrast(page, sel) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return null;
    const rgb = (s) => s.match(/[\d.]+/g).map(Number);
    const lum = ([r, g, b]) => {
      const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    let bg = [255, 255, 255];
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || c[3] > 0.5) { bg = c.slice(0, 3); break; }
    }
    const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(bg)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }, sel);
}

scenario('stop-and-scene', async ({ page, base, open }) => {
  await page.waitForFunction(settled, null, { timeout: 90_000 });

  // The scene is shown and editable.
  await page.click('#scene-panel > summary');
  const scene0 = await page.inputValue('#scene');
  if (!scene0.includes('[test]') || !scene0.includes('draw quad')) fail(`scene text: ${scene0}`);
  log('scene shown:', scene0.split('\n').length, 'lines');

  // A broken line: a diagnostic at its line, in the scene editor's gutter and list.
  const broken = `${scene0}draw sideways\n`;
  await setScene(page, broken);
  const line = broken.split('\n').length - 1;
  const diag = await waitText(page, '#ed-scene .diags', (t) => t.includes('sideways') || t.includes('draw'),
    'the scene diagnostic', 10_000);
  const pos = await text(page, '#ed-scene .diag-pos');
  if (!pos.startsWith(`${line}:`)) fail(`diagnostic at ${pos}, the broken line is ${line}: ${diag}`);
  const marked = await page.$$eval('#ed-scene .gl.err', (g) => g.map((e) => e.textContent));
  if (marked.join() !== String(line)) fail(`gutter marks ${marked} (want ${line})`);
  await waitText(page, '#output', (t) => t.includes(`line ${line}`), 'the render error naming the line', 30_000);
  log('broken scene line:', pos, diag.trim().slice(0, 90));
  await shot(page, 'stop-and-scene-diagnostic.png');

  // An edit re-renders: the images turn red.
  await setScene(page, `${scene0}clear color 1 0 0 1\nclear\n`);
  await page.waitForFunction(settled, null, { timeout: 90_000 });
  const red = await pixel(page, 5, 5);
  if (!(red[0] > 200 && red[1] < 40 && red[2] < 40)) fail(`after the scene's clear, pixel ${red}`);
  log('scene edit re-rendered: pixel', red.join(','));

  // Many draws at 1024² (under the cap): progress, Stop, stopped within two seconds.
  // The Scene panel shows the scene at the document's size (its window line follows the
  // size fields): the edits below start from that text, so the size stays 1024².
  await setSize(page, 1024, 1024);
  const scene1024 = await page.inputValue('#scene');
  if (scene0.includes('window') && !scene1024.includes('window rgba32f 1024 1024')) {
    fail(`after the resize the Scene panel says:\n${scene1024}`);
  }
  const many = `${scene1024}repeat 1500\ndraw quad\nend\n`;
  await setScene(page, many);
  await until(page, () => document.querySelector('.progress') && document.querySelector('#stop'),
    'progress and the Stop button');
  await until(page, () => Number(document.querySelector('.progress')?.getAttribute('aria-valuenow')) >= 1,
    'render progress of 1 % or more', 60_000);
  const progress = await text(page, '.progress');
  log('rendering 1501 draws at 1024²:', progress);
  await shot(page, 'stop-and-scene-rendering.png');
  const t0 = Date.now();
  await page.click('#stop');
  await until(page, () => !document.querySelector('.progress') && document.querySelector('#stopped'),
    'the stopped state', 5_000);
  const stopMs = Date.now() - t0;
  if (stopMs > 2000) fail(`Stop took ${stopMs} ms`);
  const report = await page.evaluate(() => window.hoistReport());
  if (!report.stopped || report.rendering) fail(`after Stop: ${JSON.stringify(report)}`);
  const summary = await text(page, '#summary-verdict');
  if (summary !== 'stopped') fail(`summary says ${summary}`);
  log(`stopped in ${stopMs} ms:`, await text(page, '#stopped'));
  await shot(page, 'stop-and-scene-stopped.png');

  // Run again starts the same job; stop it again.
  await page.click('#rerun');
  await until(page, () => document.querySelector('.progress'), 'the job to run again');
  await page.click('#stop');
  await until(page, () => document.querySelector('#stopped'), 'the second stop', 5_000);

  // The worker is free: a small edit (back to two draws) gets its verdict promptly.
  const t1 = Date.now();
  await setScene(page, scene1024);
  await page.waitForFunction(settled, null, { timeout: 60_000, polling: 'raf' });
  const freeMs = Date.now() - t1;
  if (freeMs > 15_000) fail(`the next edit took ${freeMs} ms: is the worker still busy?`);
  log(`next edit's verdict after Stop: ${freeMs} ms (${await text(page, '#verdict')})`);

  // Over the cap: refused with the numbers before anything renders.
  // (The bar may flash at 0 % between the optimizer's result and the refusal, which come
  // as two messages; any width above 0 would mean pixels were shaded.)
  await page.evaluate(rendered);
  await setScene(page, `${scene1024}repeat 3000\ndraw quad\nend\n`);
  const refused = await waitText(page, '#output', (t) => t.includes('cap of'), 'the work cap message', 30_000);
  const msg = refused.slice(refused.indexOf('not rendered'));
  for (const want of ['3001 times', '1024×1024', '6.3 G pixels', '4.3 G pixels']) {
    if (!msg.includes(want)) fail(`cap message lacks ${want}: ${msg}`);
  }
  if (await page.evaluate(() => window.__rendered)) fail('the over-cap job showed render progress');
  log('over the cap:', msg.slice(0, 200));
  await shot(page, 'stop-and-scene-cap.png');

  // The same document as a link, in a fresh page: refused the same way, nothing rendered.
  const link = await page.evaluate(() => window.hoistReport().link);
  const page2 = await open('hostile link');
  await page2.addInitScript(rendered);
  await page2.goto(`${base}#${link}`);
  await waitText(page2, '#output', (t) => t.includes('cap of') && t.includes('3001 times'), 'the cap from a link', 60_000);
  if (await page2.evaluate(() => window.__rendered)) fail('the over-cap link showed render progress');
  log('over-cap link refused without rendering');

  // Dark theme.
  await page.goto(`${base}#ex=paper/fig3`);
  await page.waitForFunction(done, null, { timeout: 90_000 });
  await page.click('#scene-panel > summary');
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await bg();
  const sels = ['body', '.tagline', '#verdict', '#summary', '.scene-panel .hint', '#validation'];
  const contrasts = async () => Object.fromEntries(await Promise.all(sels.map(async (s) => [s, await contrast(page, s)])));
  const cl = await contrasts();
  await shot(page, 'stop-and-scene-light.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(200);
  const dark = await bg();
  if (dark === light) fail(`dark theme: background still ${light}`);
  const lum = (s) => s.match(/\d+/g).slice(0, 3).reduce((a, b) => a + Number(b), 0);
  if (lum(dark) >= lum(light) || lum(dark) > 150) fail(`dark background ${dark} (light ${light})`);
  const cd = await contrasts();
  for (const [s, c] of Object.entries(cd)) {
    if (c !== null && c < 4.5) fail(`dark theme: contrast of ${s} is ${c.toFixed(2)}`);
  }
  for (const [s, c] of Object.entries(cl)) {
    if (c !== null && c < 4.5) fail(`light theme: contrast of ${s} is ${c.toFixed(2)}`);
  }
  const fmt = (o) => Object.entries(o).map(([s, c]) => `${s} ${c === null ? '–' : c.toFixed(1)}`).join(', ');
  log(`background ${light} → ${dark}; contrast light: ${fmt(cl)}; dark: ${fmt(cd)}`);
  await shot(page, 'stop-and-scene-dark.png');
});
