// Issue 27, items 1 and 2. (1) An imported piglit test's probes are on the page: import
// txp-2d.shader_test (../shared/corpus/piglit; skipped with a notice when absent) and read
// each probe's pass, expected value, drawn value and place beside the verdict, as
// hoistReport().probes and .probeList give them. (2) One truth for the size: Figure 3
// resized to 512×384 shows `window rgba32f 512 384` in the Scene panel with a note on what
// moved, its probes pass on the page, and the exported file says the same size and passes
// them under the real `hoist run`.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { scenario, waitText, shot, fail, log, root, settledReport as settled } from '../common.mjs';

const TXP = path.resolve(root, '../shared/corpus/piglit/tests/spec/arb_fragment_program/texturing/txp-2d.shader_test');

function hoistRun(file) {
  const bins = ['target/release/hoist', 'target/debug/hoist'].map((b) => path.join(root, b));
  const bin = bins.find((b) => fs.existsSync(b));
  if (!bin) return null;
  try {
    return execFileSync(bin, ['run', file], { cwd: root, encoding: 'utf8' });
  } catch (e) {
    return `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
}

async function setSize(page, w, h) {
  for (const [label, v] of [['Render width', w], ['Render height', h]]) {
    await page.fill(`[aria-label="${label}"]`, String(v));
    await page.press(`[aria-label="${label}"]`, 'Tab');
  }
  await page.waitForFunction(([w, h]) => {
    const s = window.hoistReport().size;
    return s[0] === w && s[1] === h;
  }, [w, h], { timeout: 10_000 }).catch(() => fail(`the size did not become ${w}×${h}`));
}

/// The probe rows beside the verdict.
async function rows(page) {
  return page.$$eval('#probes tr.probe', (trs) => trs.map((tr) => ({
    pass: tr.dataset.pass === 'true',
    cells: [...tr.querySelectorAll('td')].map((td) => td.textContent.trim()),
  })));
}

scenario('probes-size', async ({ page, base }) => {
  // 1. txp-2d: eight relative probes, shown one by one.
  if (!fs.existsSync(TXP)) {
    log('SKIP notice: ../shared/corpus/piglit is absent; the txp-2d import was not checked');
  } else {
    await settled(page, 'the first example');
    await page.setInputFiles('#import-file', TXP);
    await waitText(page, '#doc-title', (t) => t === 'txp-2d.shader_test', 'the imported title');
    const rep = await settled(page, 'txp-2d');
    if (JSON.stringify(rep.probes) !== '[8,0]') fail(`hoistReport().probes is ${JSON.stringify(rep.probes)}`);
    if (rep.probeList.length !== 8 || rep.probeList.some((p) => !p.pass || !p.expected || !p.got || !p.at)) {
      fail(`hoistReport().probeList: ${JSON.stringify(rep.probeList)}`);
    }
    const summary = await waitText(page, '#probes > summary', (t) => t.includes('original 8 passed, 0 failed'),
      'the probe summary beside the verdict', 10_000);
    await page.click('#probes > summary');
    const r = await rows(page);
    if (r.length !== 8 || r.some((x) => !x.pass || x.cells[0] !== 'pass')) fail(`probe rows: ${JSON.stringify(r)}`);
    // The first probe: relative (0, 0), red, drawn red at pixel (0, 0).
    const [, where, expected, got] = r[0].cells;
    if (!where.startsWith('line ') || !where.includes('(0, 0) of the size: pixel (0, 0)')
      || expected !== '(1, 0, 0, 1)' || got !== '(1, 0, 0, 1)') {
      fail(`first probe row: ${JSON.stringify(r[0].cells)}`);
    }
    log(`txp-2d: ${summary.trim()}; first row: ${r[0].cells.join(' | ')}`);
    await page.locator('#probes').scrollIntoViewIfNeeded();
    await shot(page, 'probes-txp-2d.png');
  }

  // 2. Figure 3 at 512×384: the Scene panel, the page's probes and the export agree.
  await page.goto(`${base}#ex=paper/fig3`);
  await settled(page, 'Figure 3');
  await setSize(page, 512, 384);
  const rep = await settled(page, 'Figure 3 at 512×384');
  await page.click('#scene-panel > summary');
  const scene = await page.inputValue('#scene');
  if (!scene.includes('window rgba32f 512 384') || scene.includes('window rgba32f 256 256')) {
    fail(`the Scene panel at 512×384:\n${scene}`);
  }
  const note = await waitText(page, '#scene-size', (t) => t.includes('512×384') && t.includes('3 probes'),
    'the Scene panel saying what the size moved', 10_000);
  if (JSON.stringify(rep.probes) !== '[3,0]') {
    fail(`Figure 3's probes at 512×384 on the page: ${JSON.stringify(rep.probes)} ${JSON.stringify(rep.probeList)}`);
  }
  log(`Scene panel: ${note}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hoist-size-'));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const file = path.join(tmp, download.suggestedFilename());
  await download.saveAs(file);
  const exported = fs.readFileSync(file, 'utf8');
  if (!exported.includes('window rgba32f 512 384') || !exported.includes('3 probes placed in pixels moved')) {
    fail(`the exported file:\n${exported}`);
  }
  const out = hoistRun(file);
  if (out === null) {
    log('SKIP notice: no built `hoist` binary (target/release or target/debug); the export was not run');
  } else if (!/3 passed, 0 failed\s*$/.test(out)) {
    fail(`hoist run on the export at 512×384:\n${out}`);
  } else {
    log('hoist run on the export at 512×384: 3 passed, 0 failed');
  }
  await page.locator('#scene-size').scrollIntoViewIfNeeded();
  await shot(page, 'probes-size-fig3-512x384.png');
  fs.rmSync(tmp, { recursive: true, force: true });
});
