#!/usr/bin/env bash
# The GPU differential at full size: every example (original and optimized pair), the piglit
# tests, the all-opcode programs, the hand-written scenes and N generated pairs per dialect
# (default 64), on WebGPU and WebGL2 in headless Chromium (crates/gpu/tests/gpu.rs). Writes
# the tables and the explained differences into docs/gpu-translation.md between its
# `gpu-differential` markers. Needs tests/e2e/node_modules (scripts/setup.sh) and Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-64}"
mkdir -p target
out="$PWD/target/gpu-differential.md"
HOIST_GPU_SEEDS="$n" HOIST_GPU_REPORT="$out" \
  cargo test -p hoist-gpu --test gpu the_gpu_renders_what_the_executor_renders -- --nocapture
doc=docs/gpu-translation.md
{
  sed '/<!-- gpu-differential -->/q' "$doc"
  echo
  echo "Run of $(date -u +%Y-%m-%d) with $n generated pairs per dialect (\`scripts/gpu-differential.sh $n\`):"
  echo
  sed -n '/^$/,$p' "$out" | sed '/^\(webgpu\|webgl2\) .*: \(agrees\|cube\|interp\|nan\|trans\|div\|deriv\|fused\|texture\|refused\|unexplained\)/ s/^/- /'
  echo
  sed -n '/<!-- \/gpu-differential -->/,$p' "$doc"
} > "$doc.new"
mv "$doc.new" "$doc"
echo "figures written to $doc"
