#!/usr/bin/env bash
# Executor benchmark, native: the seed paper's K = 13 Gaussian pass at 1024x1024 (RGBA32F
# noise texture, nearest, local_fp 0 = 1/1024), timed with `hoist render --repeat` side by
# side with arbref on Mesa llvmpipe (LP_NUM_THREADS=1 and 2) in the same run, then the
# criterion benchmark (crates/raster/benches/gauss13.rs). Hoist runs interpreted and compiled
# (--exec interp|compiled).
# Usage: scripts/bench-executor.sh [ROUNDS]   (HOIST_BENCH_NATIVE=0 builds for baseline x86-64)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
if [ "${HOIST_BENCH_NATIVE:-1}" = 1 ]; then
  export RUSTFLAGS="${RUSTFLAGS:-} -C target-cpu=native"
fi
ex=../shared/tools/arbref/examples
arbref="$CARGO_TARGET_DIR/arbref"
if [ -d ../shared/tools/arbref ] && [ ! -x "$arbref" ]; then
  ../shared/tools/arbref/build.sh "$arbref" >/dev/null || arbref=""
fi
cargo build -q --release -p hoist-cli
hoist="$CARGO_TARGET_DIR/release/hoist"
args=(--size 1024x1024 --vp "$ex/gauss13.vp" --fp "$ex/gauss13.fp" --local-fp 0 0.0009765625,0,0,0
      --texture 0 noise:1@1024x1024 --repeat 20)
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  for t in 1 2; do
    if [ -n "$arbref" ] && [ -d "$ex" ]; then
      printf 'round %s  llvmpipe %s thread(s): ' "$r" "$t"
      LP_NUM_THREADS=$t "$arbref" -q --osmesa "${args[@]}" | sed -n 's/^timing: .*, \([0-9.]* us\/draw\).*/\1/p' | head -1
    fi
    for exec in interp compiled; do
      printf 'round %s  hoist %-8s %s thread(s): ' "$r" "$exec" "$t"
      RAYON_NUM_THREADS=$t "$hoist" render -q --exec "$exec" "${args[@]}" | sed -n 's/^timing: .*, \([0-9.]* us\/draw\).*/\1/p'
    done
  done
done
cargo bench -q -p hoist-raster --features parallel --bench gauss13 -- --noplot 2>&1 | grep -vE '^\s*$|Warning|Gnuplot'
