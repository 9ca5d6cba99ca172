#!/usr/bin/env bash
# Soaks the optimizer: N generated vertex/fragment pairs per dialect (ARB and Direct3D 9)
# and N generated WGSL programs (through hoist-front, both dialects) through optimize,
# translation validation and a fresh render check. Prints panics,
# mismatches and groups validation rejected; exits non-zero on a panic, a mismatch or a
# round-trip failure. Extra arguments go to hoist-soak (--first SEED, --only arb|d3d9, ...).
# Built with the `soak` profile: optimized, with the per-pass IR checks and overflow checks.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000}"
shift || true
exec cargo run --quiet --profile soak -p hoist-verify --features cli,front --bin hoist-soak -- "$n" "$@"
