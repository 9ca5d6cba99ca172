#!/usr/bin/env bash
# The executor benchmark (K = 13 Gaussian pass, 1024x1024, single-threaded wasm with
# SIMD128) in headless Chromium via wasm-bindgen-test-runner and chromedriver.
# Prints the BENCH line of crates/raster/tests/browser_bench.rs (the interpreter), then that
# of web/tests/bench.rs (interpreter and compiled executor through the page's runtime, with
# code generation and instantiation times).
# Needs: rustup target wasm32-unknown-unknown, wasm-bindgen-cli 0.2.130, chromium and
# chromium-driver (scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export WASM_BINDGEN_TEST_TIMEOUT=900
# wasm-bindgen-test-runner reads browser capabilities from webdriver.json in the working
# directory (the package directory when cargo runs it).
cfg=crates/raster/webdriver.json
webcfg=web/webdriver.json
trap 'rm -f "$cfg" "$webcfg"' EXIT
cat > "$cfg" <<'JSON'
{ "goog:chromeOptions": { "binary": "/usr/bin/chromium",
    "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] } }
JSON
cp "$cfg" "$webcfg"
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128" \
  cargo test --release --target wasm32-unknown-unknown -p hoist-raster --test browser_bench -- --include-ignored --nocapture 2>&1 \
  | grep -E 'BENCH|test result|^error|panicked' || true
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128" \
  cargo test --release --target wasm32-unknown-unknown -p hoist-web --test bench -- --include-ignored --nocapture 2>&1 \
  | grep -E 'BENCH|test result|^error|panicked' || true
