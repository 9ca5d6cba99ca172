// Starts the playground's worker (web/src/worker.rs): Trunk builds hoist-worker.js and
// hoist-worker_bg.wasm next to this file. A failed load is posted to the page as a string,
// which the page shows (an unhandled rejection here would reach it as nothing at all).
// Messages that arrive while the bundle loads (the page's first job is posted as soon as
// the page's own bundle runs) are kept and handed to the worker's handler once it is set.
const early = [];
self.onmessage = (e) => early.push(e);
// The bundle's download starts before its glue is fetched (importScripts waits for it).
const wasm = fetch('./hoist-worker_bg.wasm');
wasm.catch(() => {}); // handled where it is awaited; a failed load is reported below
try {
  importScripts('./hoist-worker.js');
  wasm_bindgen({ module_or_path: wasm }).then(() => {
    for (const e of early.splice(0)) self.onmessage?.(e);
  }).catch((e) => {
    postMessage(`the worker could not start: ${e}`);
    close();
  });
} catch (e) {
  postMessage(`the worker could not load: ${e}`);
  close();
}
