#!/usr/bin/env bash
# Soaks the optimizer and the executor: N generated vertex/fragment pairs per dialect (ARB
# and Direct3D 9) through optimize, translation validation and a fresh render check, each
# pair also run compiled and interpreted (kernels of both stages and a render, bit for bit);
# and N generated WGSL programs (through hoist-front, both dialects) through optimize,
# validation and a render check. Prints panics, mismatches, groups validation rejected,
# compiled-versus-interpreted differences and the counts of every texture target, fetch,
# mask and texture drawn; exits non-zero on a panic, a mismatch, a round-trip failure or a
# difference. Extra arguments go to hoist-soak (--first SEED, --only arb|d3d9|wgsl, ...).
# Built with the `soak` profile: optimized, with the per-pass IR checks and overflow checks.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000}"
shift || true
exec cargo run --quiet --profile soak -p hoist-verify --features cli,front --bin hoist-soak -- "$n" "$@"
