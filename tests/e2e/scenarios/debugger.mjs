// The pixel debugger (issue 25):
// (i) Figure 3 (the default example): a click on the original image opens the debugger on
//     that pixel; the vertex stage pairs the instructions both programs share and marks the
//     moved ones with their fragment line; moved instructions sit on the fragment rows they replaced with their three
//     vertex values and their blend; no divergence; ArrowDown/ArrowUp and j/k step through
//     the rows with the fragment editor's line following; hex shows the exact bits; the link
//     holds the pixel and reopens the debugger on it in a fresh page;
// (ii) the cancellation pair (DIFFERENT): the culprit's action opens the debugger at the
//     worst pixel and the first divergence is marked;
//     the dependence graph's lit node is the current row's instruction and follows the step;
// (iii) the page agrees with `hoist debug --json` bit for bit on the same pair and pixel, for
//     ARB (the cancellation pair) and D3D9 (a pair with a `loop`), original and optimized.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { scenario, waitText, text, shot, fail, log, root, settledReport, SLOW } from '../common.mjs';

const NAME = 'debugger';

function link(doc) {
  const packed = zlib.deflateRawSync(Buffer.from(JSON.stringify(doc)), { level: 9 });
  return '#v1.' + packed.toString('base64url');
}

const VP = '!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n';
const CANCEL_FP = '!!ARBfp1.0\nTEMP a, b;\nMUL b, fragment.texcoord[0], 0.5;\nMUL a, fragment.texcoord[0], 0.3;\n'
  + 'ADD a, a, 1e4;\nADD a, a, -1e4;\nADD result.color, a, b;\nEND\n';
const VS3 = 'vs_3_0\ndcl_position v0\ndcl_texcoord0 v1\ndcl_position o0\ndcl_texcoord0 o1\nmov o0, v0\nmov o1, v1\n';
const LOOP_PS = 'ps_3_0\ndefi i0, 3, 0, 1, 0\ndef c0, 0.25, 0.5, 0, 1\ndcl_texcoord0 v0\n'
  + 'mul r1, v0, c0.y\nmov r0, c0.z\nloop aL, i0\nadd r0, r0, r1\nendloop\nmov oC0, r0\n';

/// `hoist debug ... --json`: the built binary when there is one, else through cargo.
function hoistDebug(args) {
  const bins = ['target/release/hoist', 'target/debug/hoist'].map((b) => path.join(root, b));
  const bin = bins.find((b) => fs.existsSync(b));
  const [cmd, pre] = bin ? [bin, []] : ['cargo', ['run', '-q', '-p', 'hoist-cli', '--']];
  return JSON.parse(execFileSync(cmd, [...pre, 'debug', ...args, '--json'], { cwd: root, encoding: 'utf8' }));
}

async function report(page) {
  return page.evaluate(() => window.hoistReport());
}

/// Waits for the debugger's trace of pixel `px` (or any pixel) and returns the report's `debug`.
async function traced(page, what, px = null) {
  await page.waitForFunction((px) => {
    const d = window.hoistReport().debug;
    return d && d.view && (!px || (d.pixel[0] === px[0] && d.pixel[1] === px[1]));
  }, px, { timeout: SLOW }).catch(() => fail(`no trace: ${what}`));
  const d = (await report(page)).debug;
  if (!d.view.Ok) fail(`the trace failed (${what}): ${JSON.stringify(d.view)}`);
  return d;
}

/// Clicks pixel (x, y) (origin bottom-left) of a canvas.
async function clickPixel(page, id, x, y, size) {
  const c = page.locator(`#${id}`);
  await c.scrollIntoViewIfNeeded();
  const box = await c.boundingBox();
  await c.click({ position: { x: (x + 0.5) * box.width / size[0], y: (size[1] - y - 0.5) * box.height / size[1] } });
}

const hex = (s) => (s === null ? null : parseInt(s, 16) >>> 0);

/// The page's side `side` of its rows against a `hoist debug --json` trace, bit for bit.
function agree(view, json, side, what) {
  let checked = 0;
  for (const r of view.rows) {
    const k = r.step[side];
    if (k === null || k === undefined) continue;
    const stage = (r.part === 'Vertex' || (side === 1 && r.moved)) ? 'vertex' : 'fragment';
    const row = json[stage].rows[k];
    if (!row) fail(`${what}: no ${stage} row ${k} in hoist debug's JSON`);
    if (row.op.trim() !== r.op[side].trim()) fail(`${what}: ${stage} row ${k} is \`${r.op[side]}\` on the page, \`${row.op}\` in the CLI`);
    // A moved row's side 1 shows the vertex step's three values and their blend.
    const cells = r.values[side].filter((c) => c.who !== 'interp');
    cells.forEach((c, i) => {
      const want = row.bits[i];
      if (c.mask === 0) { if (want !== null) fail(`${what}: ${stage} row ${k} invocation ${i} ran in the CLI only`); return; }
      for (let comp = 0; comp < 4; comp++) {
        if (!(c.mask & (1 << comp)) || want[comp] === null) continue;
        if (hex(want[comp]) !== c.bits[comp]) {
          fail(`${what}: ${stage} row ${k} (${row.op}) ${c.who}.${'xyzw'[comp]}: page 0x${c.bits[comp].toString(16)}, CLI ${want[comp]}`);
        }
        checked++;
      }
    });
  }
  const fin = view.rows[view.rows.length - 1];
  const px = fin.values[side][0];
  json.final.bits.forEach((b, c) => {
    if (hex(b) !== px.bits[c]) fail(`${what}: the final pixel's ${'xyzw'[c]} is 0x${px.bits[c].toString(16)} on the page, ${b} in the CLI`);
  });
  return checked + 4;
}

/// Opens a pair at a size, traces `px` on the page, and compares with the CLI.
async function agreement(page, base, vp, fp, size, px, what) {
  await page.goto(base + link({ vp, fp, inputs: { width: size[0], height: size[1] } }) + `;px=${px[0]},${px[1]}`);
  await settledReport(page, what);
  const d = await traced(page, what, px);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hoist-debug-'));
  const [fv, ff] = [path.join(tmp, 'p.vp'), path.join(tmp, 'p.fp')];
  fs.writeFileSync(fv, vp);
  fs.writeFileSync(ff, fp);
  const args = ['--vp', fv, '--fp', ff, '--size', `${size[0]}x${size[1]}`, '--pixel', `${px[0]},${px[1]}`];
  let n = agree(d.view.Ok, hoistDebug(args), 0, `${what}, original`);
  const opt = hoistDebug([...args, '--optimized']);
  n += agree(d.view.Ok, opt, 1, `${what}, optimized`);
  const div = d.view.Ok.divergence;
  if (Boolean(div) !== Boolean(opt.first_divergence)) {
    fail(`${what}: the page's divergence ${JSON.stringify(div)} and the CLI's ${JSON.stringify(opt.first_divergence)} disagree`);
  }
  if (div && !div[1].includes(`fragment line ${opt.first_divergence.line} `)) fail(`${what}: the page names ${div[1]}, the CLI line ${opt.first_divergence.line}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  log(`${what}: page and hoist debug agree on ${n} components at (${px[0]}, ${px[1]})`);
}

scenario(NAME, async ({ page, base, open }) => {
  // (i) Figure 3.
  let rep = await settledReport(page, 'Figure 3');
  if (rep.example !== 'paper/fig3') fail(`the default example is ${rep.example}`);
  const size = rep.size;
  await clickPixel(page, 'canvas-original', 20, 11, size);
  let d = await traced(page, 'a click on Figure 3');
  // The pixel under the click (the canvas's border and scaling allow a pixel or two).
  if (Math.abs(d.pixel[0] - 20) > 2 || Math.abs(d.pixel[1] - 11) > 2) fail(`the click at (20, 11) opened pixel ${d.pixel}`);
  const [px, py] = d.pixel;
  await page.waitForSelector('#debugger .debug-row');
  const v = d.view.Ok;
  const moved = v.rows.filter((r) => r.part === 'Fragment' && r.moved);
  if (!moved.length) fail('no moved row in Figure 3\'s trace');
  for (const r of moved) {
    const who = r.values[1].map((c) => c.who).join(' ');
    if (who !== 'v0 v1 v2 interp') fail(`moved row \`${r.op[0]}\` shows ${who}`);
    if (!r.op[1]) fail(`moved row \`${r.op[0]}\` names no vertex instruction`);
  }
  if (await page.locator('#debugger tr.debug-row.moved').count() < moved.length) fail('the moved rows are not marked');
  // The vertex stage paired: common instructions on one row with both programs' values;
  // the instructions moved into the vertex program alone, with their fragment line.
  // (`None` reaches scripts as undefined or null.)
  const vx = v.rows.filter((r) => r.part === 'Vertex' && (r.step[0] != null || r.step[1] != null));
  const pairs = vx.filter((r) => r.step[0] != null && r.step[1] != null);
  if (!pairs.length) fail('no paired vertex row in Figure 3');
  for (const r of pairs) {
    if (r.op[0].trim() !== r.op[1].trim()) fail(`paired vertex row: \`${r.op[0]}\` and \`${r.op[1]}\``);
    if (r.values[0].length !== 3 || r.values[1].length !== 3) fail(`paired vertex row \`${r.op[0]}\` lacks values`);
  }
  const movedVx = vx.filter((r) => r.moved);
  if (!movedVx.length) fail('no moved vertex row');
  for (const r of movedVx) {
    if (r.step[0] != null || !r.fp_line || !r.notes.includes(`moved here from fragment line ${r.fp_line}`)) {
      fail(`moved vertex row \`${r.op[1]}\`: ${JSON.stringify(r)}`);
    }
  }
  log(`Figure 3's vertex stage: ${pairs.length} paired rows, ${movedVx.length} moved rows with their fragment line`);
  if (v.divergence) fail(`Figure 3 diverges: ${v.divergence[1]}`);
  const dv = await text(page, '#debug-divergence');
  if (!dv.startsWith('no divergence')) fail(`the divergence line says ${dv}`);
  log(`Figure 3: ${v.rows.length} rows, ${moved.length} moved fragment rows aligned`);

  // Keyboard stepping: the current row follows, the fragment editor's line too.
  await page.focus('#debugger');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('j');
  await page.keyboard.press('k');
  await page.waitForFunction(() => window.hoistReport().debug.row === 3, null, { timeout: 5000 })
    .catch(async () => fail(`after ↓↓↓ j k the row is ${(await report(page)).debug.row}`));
  if (!(await page.locator('#debug-row-3.current').count())) fail('row 3 is not highlighted');
  const frag = v.rows.findIndex((r) => r.moved && r.part === 'Fragment' && r.fp_line);
  await page.keyboard.press('Home');
  for (let i = 0; i < frag; i++) await page.keyboard.press('ArrowDown');
  await page.waitForFunction((f) => window.hoistReport().debug.row === f, frag, { timeout: 5000 })
    .catch(() => fail(`stepping did not reach row ${frag}`));
  const line = v.rows[frag].fp_line;
  await page.waitForFunction((l) => {
    const rows = document.querySelectorAll('#ed-fp .ed-gutter .gl');
    return rows[l - 1] && rows[l - 1].classList.contains('hl-line');
  }, line, { timeout: 5000 }).catch(() => fail(`the fragment editor does not light line ${line}`));
  // The dependence graph follows: its one lit node is the current row's instruction, and it
  // moves with the step (to the next row of another fragment line), and goes out on a row
  // that stands for no fragment instruction.
  await page.locator('#dag').scrollIntoViewIfNeeded();
  const litNode = async (l, what) => {
    await page.waitForFunction((l) => {
      const lit = [...document.querySelectorAll('#dag g.dag-node.dag-lit')];
      return l === null ? lit.length === 0
        : lit.length === 1 && lit[0].getAttribute('aria-label').startsWith(`line ${l}: `);
    }, l, { timeout: 5000 }).catch(async () => {
      const lit = await page.$$eval('#dag g.dag-node.dag-lit', (ns) => ns.map((n) => n.getAttribute('aria-label')));
      fail(`${what}: the graph lights ${JSON.stringify(lit)}, not line ${l}`);
    });
  };
  await litNode(line, `row ${frag}`);
  const node = await page.$eval('#dag g.dag-node.dag-lit', (n) => n.getAttribute('aria-label'));
  const mnemonic = v.rows[frag].op[0].trim().split(/\s/)[0];
  if (!node.includes(mnemonic)) fail(`row ${frag} is \`${v.rows[frag].op[0]}\`, the lit node ${node}`);
  const other = v.rows.findIndex((r, i) => i > frag && r.part === 'Fragment' && r.fp_line && r.fp_line !== line);
  if (other < 0) fail('no later fragment row of another line to step to');
  await page.focus('#debugger');
  for (let i = frag; i < other; i++) await page.keyboard.press('j');
  await page.waitForFunction((f) => window.hoistReport().debug.row === f, other, { timeout: 5000 })
    .catch(() => fail(`stepping did not reach row ${other}`));
  await litNode(v.rows[other].fp_line, `row ${other}`);
  await page.keyboard.press('Home');
  await litNode(null, 'row 0 (the vertex stage\'s head)');
  for (let i = 0; i < frag; i++) await page.keyboard.press('ArrowDown');
  await litNode(line, `back at row ${frag}`);
  await page.locator('#dag g.dag-node.dag-lit').scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-1b-graph.png`);
  log(`the graph follows: row ${frag} lights line ${line}, row ${other} line ${v.rows[other].fp_line}, row 0 none`);
  await page.focus('#debugger');
  // Exact bits on demand.
  await page.check('#debug-hex');
  const comp = await text(page, '#debugger tr.debug-row .comp');
  if (!/^0x[0-9a-f]{8}$/.test(comp)) fail(`hex shows ${comp}`);
  await page.locator('#debugger').scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-1-fig3.png`);
  await page.uncheck('#debug-hex');

  // The link holds the pixel; a fresh page opens the debugger on it.
  rep = await report(page);
  if (!rep.link.endsWith(`;px=${px},${py}`)) fail(`the link does not hold the pixel: ${rep.link}`);
  const fresh = await open('permalink');
  await fresh.goto(base + '#' + rep.link);
  await settledReport(fresh, 'the permalink');
  const d2 = await traced(fresh, 'the permalink', [px, py]);
  if (JSON.stringify(d2.view) !== JSON.stringify(d.view)) fail('the permalink\'s trace differs from the click\'s');
  // An old link (no pixel) opens without the debugger.
  await fresh.goto(base + '#ex=paper/fig3');
  await settledReport(fresh, 'an old link');
  if ((await report(fresh)).debug) fail('a link without a pixel opened the debugger');

  // (ii) The cancellation pair: the culprit's action, the first divergence.
  await page.goto(base + link({ vp: VP, fp: CANCEL_FP, inputs: { width: 100, height: 100 } }));
  await settledReport(page, 'the cancellation pair');
  await waitText(page, '#verdict', (t) => t.startsWith('DIFFERENT'), 'a DIFFERENT verdict');
  await waitText(page, '#culprit', (t) => t.startsWith('caused by group'), 'the culprit', SLOW);
  const detail = await text(page, '.verdict-detail');
  const m = /worst pixel \((\d+), (\d+)\)/.exec(detail);
  if (!m) fail(`no worst pixel in ${detail}`);
  await page.click('#debug-worst');
  d = await traced(page, 'the worst pixel', [Number(m[1]), Number(m[2])]);
  const div = d.view.Ok.divergence;
  if (!div) fail('no first divergence at the worst pixel');
  const marked = await page.locator('#debugger tr.debug-row.diverges').getAttribute('id');
  if (marked !== `debug-row-${div[0]}`) fail(`the marked row is ${marked}, the divergence is row ${div[0]}`);
  const dt = await text(page, '#debug-divergence');
  if (!/^first divergence: fragment line \d+ `/.test(dt)) fail(`the divergence says ${dt}`);
  log('cancellation:', dt);
  await page.locator('#debugger').scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-2-cancellation.png`);

  // (iii) The page and `hoist debug --json`, ARB and a D3D9 loop.
  await agreement(page, base, VP, CANCEL_FP, [100, 100], [Number(m[1]), Number(m[2])], 'ARB cancellation');
  await agreement(page, base, VS3, LOOP_PS, [64, 48], [23, 17], 'D3D9 loop');
  const loops = (await report(page)).debug.view.Ok.rows.filter((r) => r.notes.some((n) => n.startsWith('loop iteration')));
  if (loops.length < 3) fail(`the D3D9 loop shows ${loops.length} iterations`);
  await page.locator('#debugger').scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-3-d3d9-loop.png`);
});
