// Every texture target gets a texture of its shape (issue 20):
// (i) a pair that normalises a direction through a cube map and reads a 3D and a 1D
//     texture: the Inputs panel names each unit's target and texture ("texture unit 0 ·
//     CUBE", "CUBE six 256×256 faces"), nothing is flagged, and the render is not the
//     incomplete texture's constant black;
// (ii) the same cube lookup in a scene that binds a 2D texture to the unit: the unit is
//     flagged in the Inputs panel, the verdict says it proves little (never bit-identical
//     or equivalent), hoistReport() lists the unit; choosing a pattern for the unit in the
//     Inputs panel supplies a cube map and the flag goes;
// (iii) a SHADOW2D lookup: the Inputs panel says the unit is a depth texture with compare
//     LEQUAL ("2D 256×256, depth, compare LEQUAL"), nothing is flagged, and the render holds
//     real shadow results: the gradient's depth (its red channel, s) against r = t passes in
//     one half of the square, so every pixel is black or white and about half are white,
//     where a blank render has one value and the colour fetch of the gradient has greys.

import zlib from 'node:zlib';
import { scenario, waitText, text, shot, fail, log, done, SLOW } from '../common.mjs';

const NAME = 'texture-targets';

function link(doc) {
  const packed = zlib.deflateRawSync(Buffer.from(JSON.stringify(doc)), { level: 9 });
  return '#v1.' + packed.toString('base64url');
}

const VP = '!!ARBvp1.0\nMOV result.position, vertex.position;\nMOV result.texcoord[0], vertex.texcoord[0];\nEND\n';
const LIGHT_FP = '!!ARBfp1.0\nTEMP d, n, v, r;\nMAD d, fragment.texcoord[0], 2, -1;\nMOV d.z, 0.4;\n'
  + 'TEX n, d, texture[0], CUBE;\nTEX v, fragment.texcoord[0], texture[1], 3D;\n'
  + 'TEX r, fragment.texcoord[0], texture[2], 1D;\nDP3 n.w, n, v;\nMAD result.color, n, v, r.w;\nEND\n';
const CUBE_FP = '!!ARBfp1.0\nTEMP d;\nMAD d, fragment.texcoord[0], 2, -1;\nMOV d.z, 0.4;\n'
  + 'TEX result.color, d, texture[0], CUBE;\nEND\n';
const SHADOW_FP = '!!ARBfp1.0\nOPTION ARB_fragment_program_shadow;\nTEMP c;\n'
  + 'MOV c, fragment.texcoord[0];\nMOV c.z, fragment.texcoord[0].y;\n'
  + 'TEX result.color, c, texture[0], SHADOW2D;\nEND\n';
const RGBW_SCENE = '[test]\nwindow rgba32f 64 64\ntexture rgbw 0 (8, 8)\ndraw quad\n';

async function settle(page, what) {
  await page.waitForFunction(done, null, { timeout: SLOW }).catch(() => fail(`the page did not settle: ${what}`));
}

async function open(page, base, doc, what) {
  await page.goto(base + link(doc));
  await settle(page, what);
}

const unit = (u) => `#inputs fieldset[data-unit="${u}"]`;

scenario(NAME, async ({ page, base }) => {
  // (i) Three targets, each with its own shape.
  await open(page, base, { vp: VP, fp: LIGHT_FP, inputs: { width: 64, height: 64 } }, 'the lighting pair');
  const want = [
    ['texture unit 0 · CUBE', 'CUBE six 256×256 faces'],
    ['texture unit 1 · 3D', '3D 256×256×4'],
    ['texture unit 2 · 1D', '1D 256'],
  ];
  for (const [u, [legend, shape]] of want.entries()) {
    await waitText(page, `${unit(u)} legend`, (t) => t === legend, `the legend of unit ${u}`);
    const s = await text(page, `${unit(u)} .unit-shape`);
    if (s !== shape) fail(`unit ${u} is described as ${JSON.stringify(s)}, not ${JSON.stringify(shape)}`);
    if ((await page.locator(`${unit(u)} .unit-flag`).count()) !== 0) fail(`unit ${u} is flagged`);
  }
  const v = await waitText(page, '#verdict', (t) => t !== 'checking…', 'a verdict');
  if (v.startsWith('proves little')) fail(`the cube-map pair proves little: ${v}`);
  const rep = await page.evaluate(() => window.hoistReport());
  if (rep.unsupplied.length !== 0) fail(`units reported unsupplied: ${rep.unsupplied}`);
  log('cube, 3D and 1D units:', v);
  await page.locator('#inputs').scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-1-shapes.png`);

  // The cube lookup alone, on the default checkerboard: not the incomplete texture's
  // constant black, but the cube map's black and white cells.
  await open(page, base, { vp: VP, fp: CUBE_FP, inputs: { width: 64, height: 64 } }, 'the cube lookup');
  const cv = await waitText(page, '#verdict', (t) => t !== 'checking…', 'the cube verdict');
  if (cv.startsWith('proves little')) fail(`the cube lookup proves little: ${cv}`);
  const lit = await page.evaluate(() => {
    const c = document.querySelector('#canvas-original');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) n += d[i] + d[i + 1] + d[i + 2] > 0 ? 1 : 0;
    return n / (d.length / 4);
  });
  if (!(lit > 0.2 && lit < 0.8)) fail(`${Math.round(lit * 100)}% of the cube lookup's pixels are lit`);
  log(`cube lookup: ${cv}, ${Math.round(lit * 100)}% of the pixels lit`);

  // (ii) The scene binds a 2D texture to the CUBE unit.
  await open(page, base, { vp: VP, fp: CUBE_FP, scene: RGBW_SCENE, inputs: { width: 64, height: 64 } }, 'the 2D-bound cube unit');
  const flag = await waitText(page, `${unit(0)} .unit-flag`, (t) => t.length > 0, 'the flag');
  if (!flag.includes('sampled as CUBE but it holds a 2D texture')) fail(`the flag says ${JSON.stringify(flag)}`);
  const weak = 'proves little: a texture unit has no texture of its target';
  await waitText(page, '#verdict', (t) => t === weak, 'the verdict to prove little');
  const sv = await text(page, '#summary-verdict');
  if (/bit-identical|equivalent/.test(sv ?? '')) fail(`the summary says ${JSON.stringify(sv)}`);
  const r2 = await page.evaluate(() => window.hoistReport());
  if (r2.verdict !== weak || r2.unsupplied.length !== 1) fail(`hoistReport(): ${JSON.stringify([r2.verdict, r2.unsupplied])}`);
  await page.locator(unit(0)).scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-2-flagged.png`);

  // The Inputs panel's checkerboard replaces the scene's texture: a cube map, no flag.
  await page.selectOption(`${unit(0)} select[aria-label="Texture 0 source"]`, 'checker');
  await settle(page, 'after choosing a pattern');
  await waitText(page, `${unit(0)} .unit-shape`, (t) => t === 'CUBE six 256×256 faces', 'the cube map');
  if ((await page.locator(`${unit(0)} .unit-flag`).count()) !== 0) fail('the flag stayed');
  const v3 = await waitText(page, '#verdict', (t) => t !== 'checking…' && t !== weak, 'a verdict without the flag');
  const r3 = await page.evaluate(() => window.hoistReport());
  if (r3.unsupplied.length !== 0) fail(`still unsupplied: ${r3.unsupplied}`);
  log('after choosing the checkerboard:', v3);

  // (iii) A shadow lookup: a depth texture with compare LEQUAL, real 0/1 results.
  const gradient = { width: 64, height: 64, textures: [{ unit: 0, pattern: 'gradient' }] };
  await open(page, base, { vp: VP, fp: SHADOW_FP, inputs: gradient }, 'the shadow lookup');
  await waitText(page, `${unit(0)} legend`, (t) => t === 'texture unit 0 · SHADOW2D', 'the shadow unit legend');
  const ds = await text(page, `${unit(0)} .unit-shape`);
  if (ds !== '2D 256×256, depth, compare LEQUAL') fail(`the shadow unit is described as ${JSON.stringify(ds)}`);
  if ((await page.locator(`${unit(0)} .unit-flag`).count()) !== 0) fail('the shadow unit is flagged');
  const dv = await waitText(page, '#verdict', (t) => t !== 'checking…', 'the shadow verdict');
  if (dv.startsWith('proves little')) fail(`the shadow lookup proves little: ${dv}`);
  const px = await page.evaluate(() => {
    const c = document.querySelector('#canvas-original');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let white = 0, black = 0, other = 0;
    for (let i = 0; i < d.length; i += 4) {
      const [r, g, b, a] = [d[i], d[i + 1], d[i + 2], d[i + 3]];
      if (a !== 255 || r !== g || g !== b) other++;
      else if (r === 255) white++;
      else if (r === 0) black++;
      else other++;
    }
    return { white, black, other, n: d.length / 4 };
  });
  if (px.other !== 0) fail(`${px.other} of the shadow render's pixels are not a 0/1 shadow result`);
  const w = px.white / px.n;
  if (!(w > 0.2 && w < 0.8)) fail(`${Math.round(w * 100)}% of the shadow render's pixels pass the comparison`);
  await page.locator(unit(0)).scrollIntoViewIfNeeded();
  await shot(page, `${NAME}-3-shadow.png`);
  log(`shadow lookup: ${ds}; ${dv}; ${Math.round(w * 100)}% of the pixels pass`);
});
