// Starts the GPU view's worker (web/src/wire/gpu.rs) when the view first renders: Trunk
// builds hoist-gpu-worker.js and hoist-gpu-worker_bg.wasm next to this file. A failed load
// is posted to the page as a string, which the view shows.
try {
  importScripts('./hoist-gpu-worker.js');
  wasm_bindgen({ module_or_path: './hoist-gpu-worker_bg.wasm' }).catch((e) => {
    postMessage(`the GPU worker could not start: ${e}`);
    close();
  });
} catch (e) {
  postMessage(`the GPU worker could not load: ${e}`);
  close();
}
