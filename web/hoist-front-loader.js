// Starts source mode's compiler (web/src/wire/front.rs), on the page's first use of source
// mode: Trunk builds hoist-front.js and hoist-front_bg.wasm next to this file. A failed load
// is posted to the page as a string, which the page shows.
try {
  importScripts('./hoist-front.js');
  wasm_bindgen({ module_or_path: './hoist-front_bg.wasm' }).catch((e) => {
    postMessage(`the compiler could not start: ${e}`);
    close();
  });
} catch (e) {
  postMessage(`the compiler could not load: ${e}`);
  close();
}
