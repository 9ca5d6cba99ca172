#!/usr/bin/env bash
# Sets up what is missing, then runs every test: formatting, lints, native tests (with the
# piglit/llvmpipe conformance tests when ../shared exists), wasm tests in Node and in
# headless Chromium, the playground build, and the end-to-end browser test.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh

step() { printf '\n\033[1;32m== %s\033[0m\n' "$*"; }
export PATH="$PWD/tests/e2e/node_modules/.bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# The browser test files run every example and generated pair through both executors
# (about 25 s for `compiled` on this 2-core machine), past the runner's default 20 s.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"

step "rustfmt"
cargo fmt --all -- --check

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings
# The soak's command line is behind hoist-verify's `cli` feature.
cargo clippy -p hoist-verify --features cli --bin hoist-soak -- -D warnings
# The playground's components only build for wasm32; hoist-gpu is the page's GPU view.
cargo clippy -p hoist-web --all-targets --target wasm32-unknown-unknown -- -D warnings
cargo clippy -p hoist-gpu --target wasm32-unknown-unknown -- -D warnings

step "native tests"
mkdir -p target
cargo test --workspace --all-targets -- --nocapture 2>&1 | tee target/native-tests.log
echo "--- summary (full log: target/native-tests.log)"
grep -E '(corpus|piglit|differential|llvmpipe|optimizer|filetests|validation|soak|ARB:|D3D9:|passed, [0-9]+ failed|SKIP|^\| |^webgpu \(|^webgl2 \()' target/native-tests.log || true

step "wasm tests (Node)"
cargo test --target wasm32-unknown-unknown -p hoist-asm -p hoist-opt -p hoist-raster

step "wasm tests (headless Chromium)"
cargo test --target wasm32-unknown-unknown -p hoist-web

step "playground build"
trunk build --release
# Every file (the GPU view's worker and runner.mjs load only when the view first renders).
for f in dist/*; do
  if [ -f "$f" ]; then echo "bundle: $f $(stat -c %s "$f") bytes, $(gzip -9c "$f" | wc -c) gzipped"; fi
done

step "end-to-end browser test"
node tests/e2e/e2e.mjs
for f in tests/e2e/scenarios/*.mjs; do
  [ -e "$f" ] || continue
  step "end-to-end: $(basename "$f" .mjs)"
  node "$f"
done
