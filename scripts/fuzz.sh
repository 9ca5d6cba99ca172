#!/usr/bin/env bash
# Fuzzes one entry point with cargo-fuzz (nightly): scripts/fuzz.sh TARGET [SECONDS]
# (default 1800 = 30 CPU-minutes, one job). TARGET is parse, optimize, execute, scene,
# permalink, compiled (compiled kernels against the interpreter, bit for bit), front_wgsl
# or front_glsl. The corpus lives in fuzz/corpus/TARGET (not committed); it is seeded from
# fuzz/regressions/TARGET, the examples and generated pairs the first time.
#   scripts/fuzz.sh --keep TARGET   keeps the fewest inputs covering every edge the corpus
#                                   covers in fuzz/regressions/TARGET, which the tests replay (crates/verify/tests/fuzz.rs,
#                                   web/tests/permalink.rs).
# A crash leaves its input in fuzz/artifacts/TARGET; copy it into fuzz/regressions/TARGET
# once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

keep=0
if [ "${1:-}" = --keep ]; then keep=1; shift; fi
target="${1:?usage: scripts/fuzz.sh [--keep] TARGET [SECONDS]}"
seconds="${2:-1800}"
case "$target" in parse|optimize|execute|scene|permalink|compiled|front_wgsl|front_glsl) ;; *) echo "unknown target $target" >&2; exit 2 ;; esac
command -v cargo-fuzz >/dev/null || cargo install -q cargo-fuzz

corpus="fuzz/corpus/$target"
regressions="fuzz/regressions/$target"
mkdir -p "$corpus" "$regressions"

if [ "$keep" = 1 ]; then
  # The smallest set of inputs that covers every edge the corpus covers (hit counts
  # ignored), named by content; the hand-named seeds (example-*, pair-*) stay.
  (cd fuzz && cargo +nightly fuzz build -O "$target")
  bin="$(ls fuzz/target/*/release/"$target" | head -1)"
  tmp="$(mktemp -d)"
  "$bin" -set_cover_merge=1 -use_counters=0 -rss_limit_mb=4096 -timeout=30 "$tmp" "$corpus" "$regressions" 2>&1 | tail -1
  find "$regressions" -type f -regextype posix-extended -regex '.*/[0-9a-f]{16}' -delete
  for f in "$tmp"/*; do
    case "$(basename "$f")" in example-*|pair-*) continue ;; esac
    cp "$f" "$regressions/$(sha1sum "$f" | cut -c1-16)"
  done
  rm -rf "$tmp"
  echo "fuzz/regressions/$target: $(ls "$regressions" | wc -l) inputs, $(du -sh "$regressions" | cut -f1)"
  exit 0
fi

if [ -z "$(ls -A "$corpus")" ]; then
  cp "$regressions"/* "$corpus"/ 2>/dev/null || true
  case "$target" in
    scene) cp examples/*/*.shader_test "$corpus"/ ;;
    front_wgsl)
      cp crates/front/tests/wgsl/*.wgsl "$corpus"/ 2>/dev/null || true
      for f in examples/wgsl/*.shader_test; do
        awk '/^\[wgsl\]/{on=1;next} /^\[/{on=0} on' "$f" > "$corpus/example-$(basename "${f%.shader_test}")"
      done ;;
    front_glsl)
      for f in examples/glsl/*.shader_test; do
        { awk '/^\[vertex shader\]/{on=1;next} /^\[/{on=0} on' "$f"; printf '\0'
          awk '/^\[fragment shader\]/{on=1;next} /^\[/{on=0} on' "$f"; } > "$corpus/example-$(basename "${f%.shader_test}")"
      done ;;
    parse|optimize|execute|compiled)
      dump="$(mktemp -d)"
      for flavor in arb d3d9; do
        for seed in $(seq 1 12); do
          cargo run -q --release -p hoist-verify --features cli --bin hoist-soak -- 1 --only "$flavor" --first "$seed" --dump "$dump/p" >/dev/null
          if [ "$target" = parse ]; then
            cp "$dump/p/vp.txt" "$corpus/pair-$flavor-$seed-vp"
            cp "$dump/p/fp.txt" "$corpus/pair-$flavor-$seed-fp"
          else
            { printf "$(printf '\\x%02x' $((seed * 37 % 256)))"; cat "$dump/p/vp.txt"; printf '\n@@\n'; cat "$dump/p/fp.txt"; } > "$corpus/pair-$flavor-$seed"
          fi
        done
      done
      rm -rf "$dump" ;;
  esac
fi

cd fuzz
exec cargo +nightly fuzz run -O "$target" "../$corpus" -- \
  -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=30 -print_final_stats=1
