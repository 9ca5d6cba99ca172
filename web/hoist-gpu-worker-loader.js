// Starts the GPU view's worker (web/src/wire/gpu.rs) when the view first renders: Trunk
// builds hoist-gpu-worker.js and hoist-gpu-worker_bg.wasm next to this file. A failed load
// is posted to the page as a string, which the view shows.
// The bundle's download starts before its glue is fetched (importScripts waits for it).
const wasm = fetch('./hoist-gpu-worker_bg.wasm');
wasm.catch(() => {}); // handled where it is awaited; a failed load is reported below
try {
  importScripts('./hoist-gpu-worker.js');
  wasm_bindgen({ module_or_path: wasm }).catch((e) => {
    postMessage(`the GPU worker could not start: ${e}`);
    close();
  });
} catch (e) {
  postMessage(`the GPU worker could not load: ${e}`);
  close();
}
