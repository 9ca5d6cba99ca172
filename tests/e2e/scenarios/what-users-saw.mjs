// Issue 27, second batch: what users saw. (3) Presentation mode fits: Figure 3's code views
// at 1440×1000 and 1920×1080 show their last marked row inside the viewport; Shift+↓ scrolls
// a figure taller than the screen (gauss13's), and the key help says so. (5) gauss13's
// slider lists what each of its 12 groups moves and which fit, agreeing with its range and
// its note. (8) The dependence graph's edges (Figure 3, gauss13) run under no node but their
// own two and share no stretch of line. (11) The Estimate panel counts under the cost model
// chosen: the modern model's formula and figures are `hoist opt --cost modern --json`'s.
// (13) At 390×844 the slider does not cover the first moved vertex row. (14) Parameter
// fields of a long env[] list line up; "none: one full-screen quad…" is not error red.

import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { scenario, waitText, text, shot, fail, log, root, settledReport as settled } from '../common.mjs';

function hoistOpt(args) {
  const bins = ['target/release/hoist', 'target/debug/hoist'].map((b) => path.join(root, b));
  const bin = bins.find((b) => fs.existsSync(b));
  if (!bin) fail('no hoist binary (cargo build -p hoist-cli) for the Estimate comparison');
  return JSON.parse(execFileSync(bin, ['opt', ...args, '--json'], { cwd: root, encoding: 'utf8' }));
}

const num = (s) => Number(s.replace(/,/g, ''));

/// (3) Each code view: its last marked row (→ moved, + added) and its last row inside the
/// viewport.
async function presentFits(page, w, h) {
  await page.setViewportSize({ width: w, height: h });
  await page.click('#present-open');
  await page.waitForSelector('#present');
  for (const [n, view] of [[1, 'Fragment'], [2, 'Vertex']]) {
    await waitText(page, '#present-title', (t) => t.startsWith(`${n}/4 · Optimized ${view.toLowerCase()}`), `the ${view} view`);
    const r = await page.evaluate(() => {
      const texts = [...document.querySelectorAll('#present-body svg text')];
      const marked = texts.filter((t) => t.textContent === '→' || t.textContent === '+');
      const box = (e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
      return { marked: marked.length, lastMarked: marked.length ? box(marked.at(-1)) : null,
        last: box(texts.at(-1)), font: texts.at(-1).getBoundingClientRect().height, vw: innerWidth, vh: innerHeight };
    });
    const inside = (b) => b && b[0] >= 0 && b[1] >= 0 && b[2] <= r.vw && b[3] <= r.vh;
    if (!r.marked && view === 'Vertex') fail(`${view} view at ${w}×${h}: no marked row`);
    if ((r.marked && !inside(r.lastMarked)) || !inside(r.last)) fail(`${view} view at ${w}×${h}: rows outside the viewport ${JSON.stringify(r)}`);
    log(`present ${w}×${h}: ${view} fits (${r.marked} marked rows, last row bottom ${r.last[3].toFixed(0)} of ${h}, line box ${r.font.toFixed(0)} px)`);
    if (n === 1) await shot(page, `what-users-saw-present-${w}x${h}.png`);
    await page.keyboard.press('ArrowRight');
  }
  const keys = await text(page, '#present-keys');
  if (!keys.includes('Shift+↑/↓ scroll')) fail(`the key help reads ${JSON.stringify(keys)}`);
  await page.keyboard.press('Escape');
  await page.waitForSelector('#present', { state: 'detached' });
}

/// (3) A figure taller than the screen scrolls with Shift+↓ and back with Shift+↑.
async function presentScrolls(page) {
  // A laptop-sized window: gauss13's programs fit 1440×1000 at 12 px type or more.
  await page.setViewportSize({ width: 1280, height: 520 });
  await page.click('#present-open');
  await page.waitForSelector('#present');
  await page.keyboard.press('ArrowRight');
  await waitText(page, '#present-title', (t) => t.startsWith("2/4 · Optimized vertex"), 'the vertex view');
  const tall = () => page.evaluate(() => { const b = document.querySelector('#present-body'); return [b.scrollTop, b.scrollHeight, b.clientHeight]; });
  const [t0, sh, ch] = await tall();
  if (!(sh > ch)) fail(`gauss13's vertex program fits 1280×520 (${sh} ≤ ${ch}): nothing to scroll`);
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  const [t1] = await tall();
  const k = await text(page, '#present-title');
  if (!(t1 > t0) || !k.startsWith('2/4')) fail(`Shift+↓ did not scroll (${t0} → ${t1}) or left the view (${k})`);
  await page.keyboard.press('Shift+ArrowUp');
  const [t2] = await tall();
  if (!(t2 < t1)) fail(`Shift+↑ did not scroll back (${t1} → ${t2})`);
  log(`present: gauss13's vertex program (${sh} px in ${ch}) scrolls ${t0} → ${t1} → ${t2} with Shift+↓↓↑`);
  await page.keyboard.press('Escape');
  await page.waitForSelector('#present', { state: 'detached' });
  await page.setViewportSize({ width: 1440, height: 1000 });
}

/// (5) The slider's groups: what each moves, which fit, in agreement with its range.
async function sliderGroups(page) {
  const rep = await page.evaluate(() => window.hoistReport());
  const max = Number(await page.getAttribute('#steps', 'max'));
  const count = await waitText(page, '#steps-count', (t) => t.startsWith('all'), 'the slider count');
  const limit = await text(page, '#steps-limit');
  const m = /^all that fit: (\d+) of (\d+) groups$/.exec(count);
  if (!m || Number(m[1]) !== max) fail(`the count ${JSON.stringify(count)} and the range 0…${max} disagree`);
  await page.click('#steps-groups-summary');
  const items = await page.$$eval('#steps-groups li', (ls) => ls.map((l) => [l.className, l.textContent]));
  const summary = await text(page, '#steps-groups-summary');
  if (items.length !== Number(m[2])) fail(`${items.length} groups listed, the count says ${m[2]}`);
  const fit = items.filter(([c]) => c === 'applied' || c === 'fits').length;
  const beyond = items.filter(([c, t]) => c === 'beyond' && t.includes(`does not fit after groups 1–${max}`)).length;
  if (fit !== max || beyond !== items.length - max) fail(`groups: ${fit} fit, ${beyond} beyond, range ${max}: ${JSON.stringify(items)}`);
  if (!items.every(([, t], i) => t.startsWith(`${i + 1}. line`))) fail(`a group does not say what it moves: ${JSON.stringify(items)}`);
  if (!summary.includes(`1–${max} fit, ${max + 1}–${items.length} do not fit`)) fail(`summary: ${JSON.stringify(summary)}`);
  if (!limit.startsWith(`k > ${max}: `)) fail(`the note ${JSON.stringify(limit)} disagrees with the range ${max}`);
  log(`gauss13: "${summary}"; group 1 "${items[0][1]}"; group ${items.length} "${items.at(-1)[1]}"; note "${limit}"; ${rep.groups ?? ''}`);
  await page.locator('#steps-groups').scrollIntoViewIfNeeded();
  await shot(page, 'what-users-saw-groups.png');
}

/// (8) Samples every edge each 2 px: no sample inside a node other than its two ends, and
/// no run of 6+ samples (12 px) along another edge, away from the ends they share.
async function graphClear(page, what) {
  await page.locator('#dag').scrollIntoViewIfNeeded();
  const r = await page.evaluate(() => {
    const boxes = [...document.querySelectorAll('.dag-node')].map((g) => {
      const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute('transform'));
      const rect = g.querySelector('rect');
      return [Number(m[1]), Number(m[2]), Number(rect.getAttribute('width')), Number(rect.getAttribute('height'))];
    });
    const edges = [...document.querySelectorAll('path.dag-edge')].map((p) => {
      const len = p.getTotalLength();
      const pts = [];
      for (let s = 0; s <= len; s += 2) { const q = p.getPointAtLength(s); pts.push([q.x, q.y]); }
      return { from: Number(p.dataset.from), to: Number(p.dataset.to), pts };
    });
    const under = [];
    edges.forEach((e, i) => {
      for (const [x, y] of e.pts) {
        boxes.forEach(([bx, by, bw, bh], k) => {
          if (k !== e.from && k !== e.to && x > bx + 0.5 && x < bx + bw - 0.5 && y > by + 0.5 && y < by + bh - 0.5) under.push([i, k]);
        });
      }
    });
    const cells = new Map();
    edges.forEach((e, i) => e.pts.forEach(([x, y]) => {
      const key = `${Math.round(x)},${Math.round(y)}`;
      if (!cells.has(key)) cells.set(key, new Set());
      cells.get(key).add(i);
    }));
    const near = (e, [x, y]) => [e.from, e.to].some((k) => {
      const [bx, by, bw, bh] = boxes[k];
      return x > bx - 10 && x < bx + bw + 10 && y > by - 10 && y < by + bh + 10;
    });
    let longest = 0; let pair = null;
    edges.forEach((e, i) => {
      let run = 0;
      for (const p of e.pts) {
        const others = new Set();
        for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
          for (const j of cells.get(`${Math.round(p[0]) + dx},${Math.round(p[1]) + dy}`) ?? []) if (j !== i) others.add(j);
        }
        const shared = [...others].some((j) => !near(edges[j], p) && !near(e, p));
        run = shared ? run + 1 : 0;
        if (run > longest) { longest = run; pair = [i, [...others]]; }
      }
    });
    return { nodes: boxes.length, edges: edges.length, under: under.slice(0, 5), underCount: under.length, longest, pair };
  });
  if (r.underCount) fail(`${what}: ${r.underCount} edge samples run under nodes, e.g. ${JSON.stringify(r.under)}`);
  if (r.longest >= 6) fail(`${what}: edges share ${r.longest * 2} px of line (${JSON.stringify(r.pair)})`);
  log(`${what}: ${r.edges} edges around ${r.nodes} nodes, none under a node, longest shared run ${r.longest * 2} px`);
}

/// (11) The Estimate under the paper's and the modern model, against the CLI's figures.
async function estimate(page) {
  const read = async () => ({
    formula: await text(page, '#estimate-formula'),
    model: await text(page, '#estimate-model'),
    before: num(await text(page, '#estimate-before')),
    after: num(await text(page, '#estimate-after')),
  });
  const paper = await read();
  await page.check('#cost-modern');
  await settled(page, 'Figure 3 under the modern model');
  const modern = await waitText(page, '#estimate-formula', (t) => t.includes('× I'), 'the modern formula').then(read);
  if (paper.formula === modern.formula || paper.after === modern.after) fail(`the Estimate did not change: ${JSON.stringify([paper, modern])}`);
  if (!modern.model.startsWith('cost model modern')) fail(`the Estimate names ${JSON.stringify(modern.model)}`);
  const j = hoistOpt(['--vp', 'examples/paper/fig3.vsh', '--fp', 'examples/paper/fig3.psh', '--cost', 'modern', '--size', '256x256']);
  const rule = j.rules.find((x) => x.rule === j.chosen) ?? j.rules.at(-1);
  const frags = 256 * 256;
  const slots = (c) => c.alu + c.tex + c.flow;
  const work = (s) => slots(s.vp_slots) * 4 + (slots(s.fp_slots) + 0.5 * s.interp_components) * frags;
  // The CLI's chosen cost is per fragment: (F + 0.5 I) + V × 4 / fragments.
  if (Math.round(rule.cost * frags) !== modern.after || work(j.after) !== modern.after || work(j.before) !== modern.before) {
    fail(`Estimate ${JSON.stringify(modern)} vs CLI cost ${rule.cost} × ${frags} = ${rule.cost * frags}, before ${work(j.before)}`);
  }
  log(`Estimate: paper "${paper.formula}" ${paper.before} → ${paper.after}; modern "${modern.formula}" ${modern.before} → ${modern.after} (= CLI ${rule.cost} × ${frags})`);
  await page.locator('#estimate').scrollIntoViewIfNeeded();
  await shot(page, 'what-users-saw-estimate.png');
  await page.check('#cost-paper');
  await settled(page, 'Figure 3 back under the paper model');
  const back = await waitText(page, '#estimate-formula', (t) => t === paper.formula, 'the paper formula again').then(read);
  if (back.after !== paper.after) fail(`back to paper: ${JSON.stringify(back)} vs ${JSON.stringify(paper)}`);
}

/// (14) A long env[] list: every field starts at the same x. No scene: not error red.
async function params(page) {
  await page.click('#new-doc');
  await waitText(page, '#doc-title', (t) => t === 'Untitled', 'an untitled document');
  // The new pair is D3D9: both programs become ARB.
  await page.fill('#vp', '!!ARBvp1.0\nMOV result.position, vertex.position;\n'
    + 'MOV result.texcoord[0], vertex.texcoord[0];\nEND\n');
  await page.fill('#fp', '!!ARBfp1.0\nTEMP t;\nMUL t, fragment.texcoord[0], program.env[2];\n'
    + 'MAD t, t, program.env[12], program.local[7];\nADD result.color, t, program.env[31];\nEND\n');
  await settled(page, 'the env[] pair');
  await page.locator('#inputs').scrollIntoViewIfNeeded();
  const xs = await page.$$eval('.param input.vec[id^="param-"]', (es) => es.map((e) => e.getBoundingClientRect().left));
  if (xs.length < 4 || Math.max(...xs) - Math.min(...xs) > 0.5) fail(`parameter fields start at ${JSON.stringify(xs)}`);
  log(`parameters: ${xs.length} fields start at x = ${xs[0].toFixed(1)}`);
  await shot(page, 'what-users-saw-params.png');
  const scene = await page.$eval('#scene-summary', (e) => {
    const muted = document.createElement('span');
    muted.className = 'muted';
    e.parentElement.append(muted);
    const r = [e.textContent, e.className, getComputedStyle(e).color, getComputedStyle(muted).color];
    muted.remove();
    return r;
  });
  if (!scene[0].startsWith('none: one full-screen quad') || scene[1].includes('bad') || scene[2] !== scene[3]) {
    fail(`the scene line: ${JSON.stringify(scene)}`);
  }
  log(`scene line "${scene[0]}" in ${scene[2]} (muted), not error red`);
}

/// (13) At phone width the slider does not cover the first moved vertex row.
async function phone(page, base) {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}#ex=paper/fig3`);
  await settled(page, 'Figure 3 at 390 px');
  const row = page.locator('#opt-vp .ol.moved').first();
  for (const block of ['start', 'center']) {
    await row.evaluate((e, b) => e.scrollIntoView({ block: b }), block);
    await page.waitForTimeout(200);
    const [r, s] = await page.evaluate(() => [document.querySelector('#opt-vp .ol.moved'), document.querySelector('#stepper')]
      .map((e) => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; }));
    const meet = r[0] < s[2] && s[0] < r[2] && r[1] < s[3] && s[1] < r[3];
    if (meet) fail(`at 390×844 (${block}) the slider ${JSON.stringify(s)} covers the first moved vertex row ${JSON.stringify(r)}`);
    log(`390×844, row scrolled to ${block}: row ${r.map((x) => x.toFixed(0))}, slider ${s.map((x) => x.toFixed(0))}: apart`);
    if (block === 'start') await shot(page, 'what-users-saw-390.png');
  }
}

scenario('what-users-saw', async ({ page, base }) => {
  await page.goto(`${base}#ex=paper/fig3`);
  await settled(page, 'Figure 3');
  await graphClear(page, 'Figure 3');
  await shot(page, 'what-users-saw-graph-fig3.png');
  await estimate(page);
  await presentFits(page, 1440, 1000);
  await presentFits(page, 1920, 1080);
  await page.setViewportSize({ width: 1440, height: 1000 });

  await page.goto(`${base}#ex=paper/gauss13`);
  // A hash change keeps the page: wait for the example, not for the last one's report.
  await page.waitForFunction(() => document.querySelector('#fp')?.value.split('\n').length > 60, null, { timeout: 30000 });
  await settled(page, 'gauss13');
  await graphClear(page, 'gauss13');
  await shot(page, 'what-users-saw-graph-gauss13.png');
  await sliderGroups(page);
  await presentScrolls(page);

  await params(page);
  await phone(page, base);
});
