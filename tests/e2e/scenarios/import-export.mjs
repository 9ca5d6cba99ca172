// Bring your own program: import a real piglit shader_test (../shared/corpus/piglit when
// present, else tests/e2e/fixtures/import.shader_test) through the file input, check the
// editors, the scene's size, the verdict and its probes against the real `hoist run`;
// export it (the download), run the exported file through `hoist run`, import it back to the
// same state; paste a scene file into an editor; New gives an untitled pass-through pair;
// a 500-instruction ARB fragment program fails under R300 with a one-click offer of NV40,
// which switches the target and gets it analyzed. Also: no file input label is cut off.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { scenario, waitText, text, shot, fail, log, root, settledReport as settled } from '../common.mjs';

const PIGLIT = path.resolve(root, '../shared/corpus/piglit/tests/spec/arb_fragment_program/texturing/tex-2d.shader_test');
const FIXTURE = path.join(root, 'tests/e2e/fixtures/import.shader_test');

/// `hoist run FILE`: the built binary when there is one, else through cargo.
function hoistRun(file) {
  const bins = ['target/release/hoist', 'target/debug/hoist'].map((b) => path.join(root, b));
  const bin = bins.find((b) => fs.existsSync(b));
  const [cmd, args] = bin ? [bin, ['run', file]] : ['cargo', ['run', '-q', '-p', 'hoist-cli', '--', 'run', file]];
  try {
    return { ok: true, out: execFileSync(cmd, args, { cwd: root, encoding: 'utf8' }) };
  } catch (e) {
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

function counts(out) {
  const m = /(\d+) passed, (\d+) failed\s*$/.exec(out);
  if (!m) fail(`hoist run printed no summary:\n${out}`);
  return [Number(m[1]), Number(m[2])];
}

/// The body of `[<stage> program]` in a scene file, as the editor holds it.
function section(textOf, stage) {
  const lines = textOf.split('\n');
  const at = lines.findIndex((l) => l.trim().toLowerCase() === `[${stage} program]`);
  if (at < 0) return null;
  const body = [];
  for (const l of lines.slice(at + 1)) {
    if (l.startsWith('[')) break;
    body.push(l);
  }
  return body.join('\n').trimEnd() + '\n';
}

/// No file input (nor its label) is narrower than it wants to be or sticks out of its panel.
async function fileInputsWhole(page) {
  const bad = await page.evaluate(() => {
    const out = [];
    for (const input of document.querySelectorAll('input[type=file]')) {
      const label = input.closest('label');
      const panel = input.closest('.panel, .docbar');
      if (!label || !panel) continue;
      const lb = label.getBoundingClientRect();
      const pb = panel.getBoundingClientRect();
      if (lb.right > pb.right + 0.5 || label.scrollWidth > label.clientWidth + 1) {
        out.push(`${input.id || input.getAttribute('aria-label')}: label ${Math.round(lb.left)}–${Math.round(lb.right)} in panel ${Math.round(pb.left)}–${Math.round(pb.right)}`);
      }
      if (!input.classList.contains('visually-hidden')) {
        const w = input.getBoundingClientRect().width;
        const saved = input.style.cssText;
        input.style.maxWidth = 'none';
        input.style.width = 'max-content';
        const natural = input.getBoundingClientRect().width;
        input.style.cssText = saved;
        if (w + 0.5 < natural) out.push(`${input.getAttribute('aria-label')}: ${w}px of ${natural}px shown`);
      }
    }
    return out;
  });
  if (bad.length) fail(`file inputs cut off:\n  ${bad.join('\n  ')}`);
}

scenario('import-export', async ({ page }) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hoist-import-'));
  const source = fs.existsSync(PIGLIT) ? PIGLIT : FIXTURE;
  if (source === FIXTURE) log('SKIP notice: ../shared/corpus/piglit is absent; importing the checked-in fixture');
  const file = fs.readFileSync(source, 'utf8');
  const name = path.basename(source);

  // The first page (Figure 3) has texture units with picture inputs.
  await settled(page, 'the first example');
  const units = await page.locator('.panel input[type=file]').count();
  if (units === 0) fail('no texture picture input to check on the first page');
  await fileInputsWhole(page);
  log(`${units} picture input(s) and the import input are whole`);

  // 1. Import through the file input.
  await page.setInputFiles('#import-file', source);
  await waitText(page, '#doc-title', (t) => t === name, `the imported file's name as the title`);
  if (await page.locator('#about').count()) fail('the example panel is still shown after an import');
  const vp = await page.inputValue('#vp');
  const fp = await page.inputValue('#fp');
  if (vp !== section(file, 'vertex') || fp !== section(file, 'fragment')) {
    fail(`the editors do not hold the file's programs:\n${vp}\n---\n${fp}`);
  }
  const size = [await page.inputValue('[aria-label="Render width"]'), await page.inputValue('[aria-label="Render height"]')];
  if (size.join('×') !== '250×250') fail(`the render size is ${size.join('×')}, piglit's window is 250×250`);
  const rep = await settled(page, 'the imported scene');
  if (rep.verdict !== 'bit-identical') fail(`the imported scene's verdict is ${rep.verdict}`);
  const run = hoistRun(source);
  if (!run.ok) fail(`hoist run refused the original:\n${run.out}`);
  const expected = counts(run.out);
  if (JSON.stringify(rep.probes) !== JSON.stringify(expected)) {
    fail(`the page's probes ${JSON.stringify(rep.probes)} differ from hoist run's ${JSON.stringify(expected)}`);
  }
  log(`imported ${name}: verdict ${rep.verdict}, probes ${expected[0]} passed, ${expected[1]} failed (as hoist run)`);
  await shot(page, 'import-export-imported.png');

  // 2. Export: the download is a file `hoist run` accepts, with the same probes.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const exported = path.join(tmp, download.suggestedFilename());
  await download.saveAs(exported);
  if (!exported.endsWith('.shader_test')) fail(`the download is named ${download.suggestedFilename()}`);
  const again = hoistRun(exported);
  if (!again.ok) fail(`hoist run refused the exported file:\n${again.out}\n${fs.readFileSync(exported, 'utf8')}`);
  if (JSON.stringify(counts(again.out)) !== JSON.stringify(expected)) fail(`the exported file's probes: ${again.out}`);
  log(`exported ${path.basename(exported)}: hoist run says ${counts(again.out).join(' passed, ')} failed`);

  // 3. New: an untitled pass-through pair, no example identity.
  await page.click('#new-doc');
  await waitText(page, '#doc-title', (t) => t === 'Untitled', 'an untitled document');
  if (!(await page.inputValue('#fp')).startsWith('!!ARBfp1.0')) fail('New did not keep the ARB dialect');
  const fresh = await settled(page, 'the new document');
  if (fresh.example != null || !fresh.verdict) fail(`New: ${JSON.stringify({ example: fresh.example, verdict: fresh.verdict })}`);
  log(`New: untitled, verdict ${fresh.verdict}`);
  await shot(page, 'import-export-new.png');

  // 4. Import the export back: the same programs and verdict.
  await page.setInputFiles('#import-file', exported);
  await waitText(page, '#doc-title', (t) => t === path.basename(exported), 'the re-imported file');
  if ((await page.inputValue('#vp')) !== vp || (await page.inputValue('#fp')) !== fp) fail('the re-imported programs differ');
  const back = await settled(page, 'the re-imported scene');
  if (back.verdict !== rep.verdict || JSON.stringify(back.probes) !== JSON.stringify(rep.probes)) {
    fail(`re-imported: ${JSON.stringify({ verdict: back.verdict, probes: back.probes })}`);
  }
  log('re-imported the export: same programs, verdict and probes');

  // 5. A scene file pasted into an editor is imported whole.
  await page.click('#new-doc');
  await waitText(page, '#doc-title', (t) => t === 'Untitled', 'an untitled document');
  await page.fill('#fp', file);
  await waitText(page, '#doc-title', (t) => t === 'Imported scene', 'the pasted scene imported');
  if ((await page.inputValue('#fp')) !== fp) fail('the pasted scene did not become the document');
  await settled(page, 'the pasted scene');
  log('pasted scene file imported');

  // 6. 500 instructions: over R300, one click to NV40, analyzed there.
  await page.click('#new-doc');
  await waitText(page, '#doc-title', (t) => t === 'Untitled', 'an untitled document');
  const long = ['!!ARBfp1.0', 'TEMP r;', 'MOV r, fragment.texcoord[0];'];
  for (let i = 0; i < 498; i++) long.push(i % 2 ? 'ADD r, r, -fragment.texcoord[0];' : 'MAD r, r, {0.5, 0.25, 0.125, 1}, fragment.texcoord[0];');
  long.push('MOV result.color, r;', 'END');
  await page.fill('#fp', long.join('\n') + '\n');
  const offer = await waitText(page, '#fp-target-offer', (t) => t.includes('Analyze under NV40'), 'the one-click target offer');
  const diags = await text(page, '#ed-fp .diags');
  if (!/E0301/.test(diags || '')) fail(`no E0301 under R300: ${diags}`);
  log(`under R300: ${offer.trim()}`);
  await page.locator('#fp-target-offer').scrollIntoViewIfNeeded();
  await shot(page, 'import-export-target-offer.png');
  await page.click('#fp-fit-target');
  await page.waitForSelector('#fp-target-offer', { state: 'detached', timeout: 20_000 }).catch(() => fail('the offer stayed after the click'));
  const chosen = await page.inputValue('#arb-target');
  if (chosen !== 'nv40') fail(`the ARB target is ${chosen} after the click`);
  await waitText(page, '#summary-target', (t) => t === 'NV40', 'NV40 in the summary');
  const big = await settled(page, 'the long program under NV40');
  if (!big.verdict || big.problem) { await shot(page, "import-export-debug.png"); fail(`under NV40: ${JSON.stringify({ ...big, fates: big.fates?.length })} verdict text: ${await text(page, "#output")}`); }
  const fpSlots = big.before.fpSlots ?? big.before.fp_slots;
  log(`under NV40: analyzed, ${fpSlots.alu + fpSlots.tex} fragment slots, verdict ${big.verdict}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'import-export-nv40.png');
  fs.rmSync(tmp, { recursive: true, force: true });
});
