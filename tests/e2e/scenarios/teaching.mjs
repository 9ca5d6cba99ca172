// Teaching with the playground: the stepwise slider stops at the last k that fits (gauss13,
// conv2d) and says why, next to the optimized code; the dependence graph's last node is
// reachable in its scroll box, nodes take the keyboard focus and link to their source lines
// both ways; opcodes explain themselves with their slot cost; hand edits survive unchecking
// and go stale when the original changes; figures export as SVG and PNG; presentation mode
// steps through views and groups and leaves on Escape.

import fs from 'node:fs';
import { scenario, waitText, text, shot, fail, log, done, SLOW } from '../common.mjs';

const report = (page) => page.evaluate(() => window.hoistReport());
const slots = (c) => c.alu + c.tex + c.flow;
const fpSlots = (s) => slots(s.fpSlots ?? s.fp_slots);
const settled = (page) => page.waitForFunction(done, null, { timeout: SLOW });

async function pick(page, id) {
  await page.click('#examples-button');
  await page.click(`#ex-${id.replace('/', '-')}`);
  await page.waitForFunction((ex) => window.hoistReport()?.example === ex && window.hoistReport().current, id, { timeout: SLOW });
  await settled(page);
}

/// The slider stops at the feasible maximum, says why, and that k really moves work.
async function slider(page, id) {
  await pick(page, id);
  const before = fpSlots((await report(page)).before);
  await page.check('#stepwise');
  await settled(page);
  const limit = await waitText(page, '#steps-limit', (t) => /^k > \d+: /.test(t), 'the reason the slider stops');
  const fits = Number(/^k > (\d+)/.exec(limit)[1]);
  const max = Number(await page.getAttribute('#steps', 'max'));
  if (max !== fits) fail(`${id}: the slider goes to ${max}, the reason says ${fits} fits`);
  await page.focus('#steps');
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((k) => document.querySelector('#steps-count')?.textContent.startsWith(`${k} of`), fits);
  await page.waitForFunction((k) => window.hoistReport?.()?.current, null, { timeout: SLOW });
  await settled(page);
  const rep = await report(page);
  const after = fpSlots(rep.after);
  if (!(after < before)) fail(`${id}: at k = ${fits} fragment slots go ${before} → ${after}: undone`);
  if (rep.verdict !== 'bit-identical') fail(`${id}: at k = ${fits} the verdict is ${rep.verdict}`);
  // The slider stays in view beside the optimized code while scrubbing.
  await page.locator('#opt-fp').scrollIntoViewIfNeeded();
  const both = await page.evaluate(() => {
    const vis = (el) => { const r = el.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; };
    return vis(document.querySelector('#stepper')) && vis(document.querySelector('#opt-fp'));
  });
  if (!both) fail(`${id}: the slider and the optimized fragment program are not both visible`);
  log(`${id}: slider stops at k = ${fits} (“${limit}”), fragment slots ${before} → ${after}, ${rep.verdict}`);
  return fits;
}

async function graph(page) {
  await page.locator('#dag').scrollIntoViewIfNeeded();
  const last = await page.evaluate(() => {
    const box = document.querySelector('#dag-scroll');
    box.scrollTop = box.scrollHeight;
    box.scrollLeft = 0;
    const nodes = [...document.querySelectorAll('.dag-node')];
    const lowest = nodes.reduce((a, n) => (n.getBoundingClientRect().bottom > a.getBoundingClientRect().bottom ? n : a));
    const b = box.getBoundingClientRect();
    const r = lowest.getBoundingClientRect();
    return { visible: r.top >= b.top && r.bottom <= b.top + box.clientHeight, label: lowest.querySelector('text').textContent, r: r.bottom, b: b.top + box.clientHeight };
  });
  if (!last.visible) fail(`the last node (${last.label}) is hidden by its scroll box: ${JSON.stringify(last)}`);
  log(`graph: the last node ${JSON.stringify(last.label)} shows fully in the scroll box`);
  await page.focus('#dag-node-3');
  await page.keyboard.press('ArrowRight');
  const active = await page.evaluate(() => document.activeElement?.id);
  if (active !== 'dag-node-4') fail(`ArrowRight moved the focus to ${active}`);
  const why = await waitText(page, '#dag-why', (t) => /^line \d+: /.test(t), 'the focused node explained');
  const line = Number(/^line (\d+)/.exec(why)[1]);
  const lit = await page.evaluate(() => [...document.querySelectorAll('#ed-fp .gl.hl-line')].map((g) => g.textContent));
  if (lit.length !== 1 || Number(lit[0]) !== line) fail(`node of line ${line} lit source lines ${JSON.stringify(lit)}`);
  log(`graph: keyboard focus explains “${why.slice(0, 70)}…” and lights source line ${line}`);
  await shot(page, 'teaching-graph.png');
  // The other way: the caret on a source line outlines its node.
  await page.evaluate((n) => {
    const t = document.querySelector('#fp');
    const off = t.value.split('\n').slice(0, n - 1).join('\n').length + 1;
    t.focus();
    t.setSelectionRange(off, off);
    t.dispatchEvent(new KeyboardEvent('keyup', { bubbles: true, key: 'ArrowDown' }));
  }, line);
  await page.waitForFunction((n) => [...document.querySelectorAll('.dag-node.dag-lit')].some((g) => g.querySelector('text').textContent.startsWith(`L${n} `)), line);
  log(`graph: the caret on line ${line} outlines its node`);
}

async function help(page) {
  await page.locator('#opt-fp').scrollIntoViewIfNeeded();
  await page.locator('#opt-fp .tk-op').nth(3).hover();
  const tip = await waitText(page, '#opt-fp-tip', (t) => /Cost: \d+ slots? in ps_/.test(t), 'instruction help over an opcode');
  const onScreen = await page.evaluate(() => {
    const r = document.querySelector('#opt-fp-tip').getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
  });
  if (!onScreen) fail(`the instruction help runs off the screen: ${JSON.stringify(await page.evaluate(() => [document.querySelector('#opt-fp-tip').getBoundingClientRect(), document.querySelector('#opt-fp-tip').getAttribute('style'), innerWidth, innerHeight]))}`);
  log(`help (optimized): ${tip.slice(0, 110)}…`);
  await shot(page, 'teaching-help.png');
  // The original fragment editor: hover the opcode of the first instruction line.
  await page.locator('#ed-fp').scrollIntoViewIfNeeded();
  const at = await page.evaluate(() => {
    const t = document.querySelector('#fp');
    const lines = t.value.split('\n');
    const n = lines.findIndex((l) => /^\s*(mul|mad|add|texld|mov|dp3|rcp)\b/.test(l));
    document.querySelector('#ed-fp .ed-scroll').scrollTop = Math.max(0, n * 20 - 40);
    let r = t.getBoundingClientRect();
    window.scrollBy(0, r.top + 8 + n * 20 - innerHeight / 2);
    r = t.getBoundingClientRect();
    const cw = document.querySelector('#ed-fp .ed-measure').offsetWidth / 10;
    const col = lines[n].length - lines[n].trimStart().length;
    return { x: r.left + 12 + (col + 1) * cw, y: r.top + 8 + n * 20 + 10 };
  });
  await page.mouse.move(at.x, at.y);
  const tip2 = await waitText(page, '#ed-fp-tip', (t) => t.includes('Cost:'), 'instruction help in the editor');
  log(`help (editor): ${tip2.slice(0, 110)}…`);
  await page.mouse.move(0, 0);
}

async function hand(page) {
  await page.check('#hand-edit');
  await page.waitForSelector('#hand-fp');
  const mine = (await page.inputValue('#hand-fp')) + '// mine\n';
  await page.fill('#hand-fp', mine);
  await page.uncheck('#hand-edit');
  await page.waitForSelector('#hand-kept');
  await page.check('#hand-edit');
  await page.waitForSelector('#hand-fp');
  if ((await page.inputValue('#hand-fp')) !== mine) fail('unchecking and checking “edit by hand” lost the edit');
  log('hand edit: kept across uncheck/check');
  const fp = await page.inputValue('#fp');
  await page.fill('#fp', fp + '\n');
  await page.waitForSelector('#hand-stale');
  await settled(page);
  await page.click('#hand-restart');
  await page.waitForSelector('#hand-stale', { state: 'detached' });
  if ((await page.inputValue('#hand-fp')) === mine) fail('restarting kept the stale hand edit');
  log('hand edit: stale after editing the original, restarted from the optimizer output');
  await page.uncheck('#hand-edit');
  await page.click('#hand-discard');
  await page.fill('#fp', fp);
  await settled(page);
}

async function exports(page) {
  const grab = async (id) => {
    const [d] = await Promise.all([page.waitForEvent('download', { timeout: 20_000 }), page.click(id)]);
    const file = await d.path();
    const bytes = fs.readFileSync(file);
    return { name: d.suggestedFilename(), bytes };
  };
  for (const v of ['fragment', 'vertex', 'graph', 'images']) {
    const svg = await grab(`#export-hoist-${v}-svg`);
    const s = svg.bytes.toString('utf8');
    if (!s.startsWith('<svg xmlns="http://www.w3.org/2000/svg"') || !s.endsWith('</svg>') || s.length < 500) {
      fail(`${svg.name}: not a complete SVG (${s.length} bytes)`);
    }
    if (v === 'images' && (s.match(/<image /g) || []).length !== 3) fail('the images figure lacks a picture');
    const png = await grab(`#export-hoist-${v}-png`);
    const sig = png.bytes.subarray(0, 8).toString('hex');
    if (sig !== '89504e470d0a1a0a' || png.bytes.length < 1000) fail(`${png.name}: not a PNG (${png.bytes.length} bytes)`);
    log(`export: ${svg.name} ${svg.bytes.length} B, ${png.name} ${png.bytes.length} B`);
  }
}

async function present(page) {
  await page.click('#present-open');
  await page.waitForSelector('#present');
  await waitText(page, '#present-title', (t) => t.startsWith('1/4'), 'the first view');
  await page.keyboard.press('ArrowRight');
  await waitText(page, '#present-title', (t) => t.startsWith('2/4'), 'the next view');
  await page.keyboard.press('PageDown');
  await waitText(page, '#present-title', (t) => t.startsWith('3/4 · Dependence graph'), 'the graph');
  const k0 = await text(page, '#present-k');
  await page.keyboard.press('ArrowDown');
  const k1 = await waitText(page, '#present-k', (t) => t !== k0, 'a group step');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await waitText(page, '#present-title', (t) => t.startsWith('1/4'), 'back to the first view');
  const big = await page.evaluate(() => document.querySelector('#present-body svg')?.getBoundingClientRect().width);
  if (!(big > 700)) fail(`the presented figure is ${big}px wide`);
  await settled(page);
  await shot(page, 'teaching-present.png');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#present', { state: 'detached', timeout: 5000 });
  const back = await page.evaluate(() => document.activeElement?.id);
  if (back !== 'present-open') fail(`after Escape the focus is on ${back}`);
  log(`present: views step, groups step (${k0} → ${k1}), Escape leaves`);
}

scenario('teaching', async ({ page }) => {
  await slider(page, 'paper/conv2d');
  await slider(page, 'paper/gauss13');
  await page.locator('#stepper').scrollIntoViewIfNeeded();
  await shot(page, 'teaching-slider.png');
  await graph(page);
  await help(page);
  await hand(page);
  await exports(page);
  await present(page);
});
