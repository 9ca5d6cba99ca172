// A picture picked for a texture unit (issue 27: the page checks only a PNG's header and
// leaves decoding to the worker, so it does not carry the decoder). A valid PNG becomes the
// unit's source and the page reaches a verdict with it; a file that is not a PNG, and one
// whose size is beyond the limit, are refused at the field; a PNG with a valid header and
// damaged pixel data is accepted at the field and the worker's render says what is wrong.

import zlib from 'node:zlib';
import { scenario, waitText, fail, log, shot, settledReport as settled } from '../common.mjs';

/// A PNG chunk: length, type, data, CRC of type and data.
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

/// An 8-bit RGB PNG of w×h (a gradient), its IDAT optionally replaced.
function png(w, h, idat = null) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w * 3; x++) raw[y * (w * 3 + 1) + 1 + x] = (x * 7 + y * 13) & 255;
  }
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', idat ?? zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const picker = '[aria-label="Texture 0 picture"]';
const fieldError = () => `fieldset[data-unit="0"] .field-error`;

async function pick(page, name, buffer) {
  await page.setInputFiles(picker, { name, mimeType: 'image/png', buffer });
}

scenario('texture-picture', async ({ page, base }) => {
  await page.goto(`${base}#ex=paper/fig3`);
  await settled(page, 'Figure 3');
  await page.locator('#inputs').scrollIntoViewIfNeeded();

  await pick(page, 'gradient.png', png(16, 8));
  await waitText(page, `fieldset[data-unit="0"] select`, () => true, 'the unit');
  await page.waitForFunction(() => document.querySelector('fieldset[data-unit="0"] select')?.value === 'image', null, { timeout: 30_000 })
    .catch(() => fail('the picture did not become unit 0\'s source'));
  const rep = await settled(page, 'Figure 3 with the picture');
  if (await page.locator(fieldError()).count()) fail(`a valid PNG was refused: ${await page.textContent(fieldError())}`);
  log(`gradient.png (16×8) is unit 0's source; verdict ${rep.verdict}`);

  await pick(page, 'notes.png', Buffer.from('these are not pixels'));
  const notPng = await waitText(page, fieldError(), (t) => t.includes('not a PNG'), 'the refusal of a non-PNG');
  log(`refused at the field: ${notPng}`);

  await pick(page, 'huge.png', png(4096, 4096, zlib.deflateSync(Buffer.alloc(1))));
  const huge = await waitText(page, fieldError(), (t) => t.includes('4096x4096'), 'the refusal of a picture beyond the limit');
  log(`refused at the field: ${huge}`);

  await pick(page, 'damaged.png', png(16, 8, Buffer.from('not a zlib stream at all')));
  await page.waitForFunction(() => !document.querySelector('fieldset[data-unit="0"] .field-error'), null, { timeout: 30_000 })
    .catch(() => fail('a PNG with a valid header was refused at the field'));
  const said = await page.waitForFunction(() => {
    const t = document.body.innerText;
    const m = /[^\n]*PNG:[^\n]*/.exec(t);
    return m ? m[0] : null;
  }, null, { timeout: 60_000 }).then((h) => h.jsonValue())
    .catch(() => fail('the damaged picture\'s decoding error is shown nowhere'));
  log(`damaged.png: accepted at the field; the render says "${said.slice(0, 160)}"`);
  await shot(page, 'texture-picture-damaged.png');
});
