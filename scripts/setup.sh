#!/usr/bin/env bash
# Installs what is missing for building and testing Hoist on a Debian + rustup machine.
# Idempotent: every step checks first and does nothing when the tool is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
TRUNK_VERSION=0.22.1
TRUNK_STABLE_VERSION=0.21.14

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

# Rust target for the web build and the wasm tests.
if ! rustup target list --installed | grep -q '^wasm32-unknown-unknown$'; then
  log "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# Debian packages: Chromium for browser tests; OSMesa + GL headers for the optional llvmpipe oracle.
need_pkgs=()
for p in chromium chromium-driver; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done
if [ "${HOIST_WITH_ARBREF:-1}" = 1 ] && [ -d ../shared/tools/arbref ]; then
  for p in libosmesa6 libosmesa6-dev libgl-dev libegl-dev mesa-common-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
  done
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  log "installing Debian packages: ${need_pkgs[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

# wasm-bindgen CLI (also provides wasm-bindgen-test-runner), pinned to the crate version.
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION"; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  CARGO_PROFILE_RELEASE_LTO=false cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

# Trunk: 0.22 needs a newer rustc than stable 1.95; use the preinstalled nightly when there is one.
if ! command -v trunk >/dev/null 2>&1; then
  if rustup toolchain list | grep -q '^nightly'; then
    log "installing trunk $TRUNK_VERSION with nightly (takes a few minutes)"
    CARGO_PROFILE_RELEASE_LTO=false cargo +nightly install -q --locked trunk --version "$TRUNK_VERSION"
  else
    log "installing trunk $TRUNK_STABLE_VERSION (takes a few minutes)"
    CARGO_PROFILE_RELEASE_LTO=false cargo install -q --locked trunk --version "$TRUNK_STABLE_VERSION"
  fi
fi

# npm tools: wasm-opt (binaryen) for Trunk, playwright-core for the end-to-end test.
if [ ! -x tests/e2e/node_modules/.bin/wasm-opt ] || [ ! -d tests/e2e/node_modules/playwright-core ]; then
  log "installing npm tools in tests/e2e (binaryen, playwright-core)"
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
fi

# Everything the offline Trunk build needs.
cargo fetch -q
log "setup complete"
