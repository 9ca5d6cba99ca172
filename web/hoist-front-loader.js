// Starts source mode's compiler (web/src/wire/front.rs), on the page's first use of source
// mode: Trunk builds hoist-front.js and hoist-front_bg.wasm next to this file. A failed load
// is posted to the page as a string, which the page shows.
// The bundle's download starts before its glue is fetched (importScripts waits for it).
const wasm = fetch('./hoist-front_bg.wasm');
wasm.catch(() => {}); // handled where it is awaited; a failed load is reported below
try {
  importScripts('./hoist-front.js');
  wasm_bindgen({ module_or_path: wasm }).catch((e) => {
    postMessage(`the compiler could not start: ${e}`);
    close();
  });
} catch (e) {
  postMessage(`the compiler could not load: ${e}`);
  close();
}
