// Verdicts that prove little, and DIFFERENT verdicts with guidance:
// (i) a pair whose image depends only on an unset parameter is constant, and the verdict,
//     the summary line and hoistReport() say "proves little", not "bit-identical"; the
//     Inputs panel lists what the draw supplies; "randomise inputs" (seeded, shown,
//     permalinked) makes the check mean something, and "defaults" goes back;
// (ii) the cancellation example (a coordinate pushed through 1e4 and back) is
//     DIFFERENT at the default tolerance after motion: the verdict names the culprit group
//     and its lines (a link highlights them), marks the worst pixel on all three images, and
//     explains that the optimized image is the more accurate one, with the tolerance a click
//     away; a hand edit that breaks the optimized program is DIFFERENT with guidance too.

import zlib from 'node:zlib';
import { scenario, waitText, text, shot, fail, log, done, SLOW } from '../common.mjs';

const NAME = 'verdict-guidance';

/// A state link for a document (the page's own encoding: raw deflate of the JSON, base64url).
function link(doc) {
  const packed = zlib.deflateRawSync(Buffer.from(JSON.stringify(doc)), { level: 9 });
  return '#v1.' + packed.toString('base64url');
}

const VP = '!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n';
const CONST_FP = '!!ARBfp1.0\nPARAM k = program.env[0];\nMUL result.color, fragment.texcoord[0], k;\nEND\n';
const CANCEL_FP = '!!ARBfp1.0\nTEMP a, b;\nMUL b, fragment.texcoord[0], 0.5;\nMUL a, fragment.texcoord[0], 0.3;\n'
  + 'ADD a, a, 1e4;\nADD a, a, -1e4;\nADD result.color, a, b;\nEND\n';

async function settle(page, what) {
  await page.waitForFunction(done, null, { timeout: SLOW }).catch(() => fail(`the page did not settle: ${what}`));
}

async function open(page, base, doc, what) {
  // A same-document navigation: the page follows the new fragment without reloading (a
  // reload would abort the worker's scripts in flight).
  await page.goto(base + link(doc));
  await settle(page, what);
}

scenario(NAME, async ({ page, base }) => {
  // (i) Constant: env[0] is unset, so the image is 0 everywhere.
  await open(page, base, { vp: VP, fp: CONST_FP, inputs: { width: 64, height: 64 } }, 'the constant pair');
  const weak = 'proves little: the image is constant';
  const v = await waitText(page, '#verdict', (t) => t === weak, 'the constant-image warning');
  const sv = await waitText(page, '#summary-verdict', (t) => t === weak, 'the summary to warn too');
  const rep = await page.evaluate(() => window.hoistReport());
  if (rep.verdict !== weak) fail(`hoistReport().verdict is ${JSON.stringify(rep.verdict)}`);
  if ([v, sv, rep.verdict].some((t) => t.includes('bit-identical'))) fail('a constant image is called bit-identical');
  // What the draw supplies: the quad's position and texcoord[0] per vertex, and the
  // parameter, unset (0).
  const supplied = await text(page, '#supplied');
  if (!/vertex position.*per vertex: the quad's corners/.test(supplied)) fail(`the position is not listed: ${supplied}`);
  if (!/vertex texcoord\[0\].*per vertex/.test(supplied)) fail(`texcoord[0] is not listed: ${supplied}`);
  const param = await text(page, '#inputs .param');
  if (!/program\.env\[0\].*unset \(0\)/.test(param)) fail(`the unset parameter is not shown as 0: ${param}`);
  await page.locator('#inputs').scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-1-constant.png`);

  // Randomise: seed 1, shown and in the link; the image now varies and the verdict is plain.
  await page.click('#randomise');
  await waitText(page, '#seed', (t) => t === 'random inputs, seed 1', 'the seed to be shown');
  await settle(page, 'after randomising');
  const rv = await waitText(page, '#verdict', (t) => !t.startsWith('proves little') && t !== 'checking…', 'a plain verdict after randomising');
  if (!/^(bit-identical|equivalent)/.test(rv)) fail(`after randomising the verdict is ${JSON.stringify(rv)}`);
  const k = await page.inputValue('#param-f-env-0');
  if (k === '0, 0, 0, 0') fail('randomise left the parameter at 0');
  await page.click('#randomise');
  await waitText(page, '#seed', (t) => t === 'random inputs, seed 2', 'a re-roll');
  await settle(page, 'after re-rolling');
  if ((await page.inputValue('#param-f-env-0')) === k) fail('a re-roll kept the same parameter value');
  const again = await page.evaluate(() => window.hoistReport());
  if (!/(^|#)v1\./.test(again.link)) fail(`the link is not a state link: ${again.link}`);
  log('randomised:', rv, '— env[0] =', await page.inputValue('#param-f-env-0'));
  await page.click('#defaults');
  await waitText(page, '#verdict', (t) => t === weak, 'the warning after going back to the defaults');
  if ((await page.locator('#seed').count()) !== 0) fail('the seed stayed after "defaults"');

  // (ii) The cancellation: DIFFERENT at the default tolerance 1e-4.
  await open(page, base, { vp: VP, fp: CANCEL_FP, inputs: { width: 100, height: 100 } }, 'the cancellation pair');
  const d = await waitText(page, '#verdict', (t) => t.startsWith('DIFFERENT'), 'a DIFFERENT verdict');
  const culprit = await waitText(page, '#culprit', (t) => t.startsWith('caused by group'), 'the culprit', SLOW);
  const lines = await page.$$eval('#culprit .line-link', (ls) => ls.map((l) => Number(l.dataset.line)));
  if (!lines.length || !lines.every((l) => [4, 5, 6].includes(l))) fail(`the culprit's lines are ${lines}: ${culprit}`);
  if (!/ADD a, a, 1e4;|MUL a, fragment.texcoord\[0\], 0.3;|ADD a, a, -1e4;/.test(culprit)) fail(`the culprit does not quote its lines: ${culprit}`);
  const detail = await text(page, '.verdict-detail');
  const m = /worst pixel \((\d+), (\d+)\)/.exec(detail);
  if (!m) fail(`no worst pixel in ${detail}`);
  for (const id of ['original', 'optimized', 'diff']) {
    const mark = await text(page, `#worst-${id}`);
    if (mark !== `(${m[1]}, ${m[2]})`) fail(`the ${id} image marks ${mark}, the verdict says (${m[1]}, ${m[2]})`);
    if (!(await page.locator(`#worst-${id}`).isVisible())) fail(`the marker on the ${id} image is not visible`);
  }
  const c = await text(page, '#cancellation');
  if (!c.startsWith('cancellation:') || !c.includes('the optimized image is the more accurate one')) fail(`no cancellation explanation: ${c}`);
  log(d, '—', culprit.slice(0, 80), '—', c.slice(0, 120));
  // The line link highlights the line in the original fragment program.
  await page.click('#culprit .line-link');
  await page.waitForFunction((l) => {
    const rows = document.querySelectorAll('#ed-fp .ed-gutter .gl');
    return rows[l - 1] && rows[l - 1].classList.contains('hl-line');
  }, lines[0], { timeout: 5000 }).catch(() => fail(`line ${lines[0]} of the fragment program is not highlighted`));
  await page.locator('#output').scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-2-cancellation.png`);
  // The offered tolerance accepts it.
  await page.click('#use-tolerance');
  await waitText(page, '#verdict', (t) => t.startsWith('equivalent'), 'equivalent at the offered tolerance');
  if ((await page.locator('#to-stepwise').count()) !== 0) fail('guidance stayed on an equivalent verdict');

  // A hand edit that breaks the optimized program.
  await open(page, base, { vp: VP, fp: CANCEL_FP, inputs: { width: 100, height: 100, tolerance: 0.001 } }, 'the pair again');
  await page.check('#hand-edit');
  await page.waitForSelector('#hand-fp');
  const hand = (await page.inputValue('#hand-fp')).split('\n');
  const out = hand.findIndex((l) => l.includes('result.color'));
  if (out < 0) fail('the optimized fragment program writes no result.color');
  hand[out] = 'MOV result.color, {0.25, 0.0, 0.0, 1.0};';
  await page.fill('#hand-fp', hand.join('\n'));
  await waitText(page, '#verdict', (t) => t.startsWith('DIFFERENT'), 'the broken hand edit to differ');
  const hl = await waitText(page, '#hand-lines', (t) => t.includes(`fragment line ${out + 1}`), 'the hand edit\'s line');
  if ((await page.locator('#worst-diff').count()) !== 1) fail('no worst-pixel marker for the hand edit');
  log('hand edit:', hl);
  await page.locator('#output').scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-3-hand-edit.png`);
});
