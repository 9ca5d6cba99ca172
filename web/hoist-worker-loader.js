// Starts the playground's worker (web/src/worker.rs): Trunk builds hoist-worker.js and
// hoist-worker_bg.wasm next to this file. A failed load is posted to the page as a string,
// which the page shows (an unhandled rejection here would reach it as nothing at all).
try {
  importScripts('./hoist-worker.js');
  wasm_bindgen({ module_or_path: './hoist-worker_bg.wasm' }).catch((e) => {
    postMessage(`the worker could not start: ${e}`);
    close();
  });
} catch (e) {
  postMessage(`the worker could not load: ${e}`);
  close();
}
