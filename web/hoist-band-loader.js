// Starts a helper of shared renders (web/src/wire/bands.rs), a nested worker of the page's
// worker: Trunk builds hoist-band.js and hoist-band_bg.wasm next to this file. Requests
// that arrive while the bundle loads are kept and handed to the helper's handler once it
// is set. A failed load is posted as a string; the worker then draws alone.
const early = [];
self.onmessage = (e) => early.push(e);
const wasm = fetch('./hoist-band_bg.wasm');
wasm.catch(() => {}); // handled where it is awaited; a failed load is reported below
try {
  importScripts('./hoist-band.js');
  wasm_bindgen({ module_or_path: wasm }).then(() => {
    for (const e of early.splice(0)) self.onmessage?.(e);
  }).catch((e) => {
    postMessage(`a render helper could not start: ${e}`);
    close();
  });
} catch (e) {
  postMessage(`a render helper could not load: ${e}`);
  close();
}
