#!/usr/bin/env bash
# Fuzzes one entry point with cargo-fuzz (nightly): scripts/fuzz.sh TARGET [SECONDS]
# (default 1800 = 30 CPU-minutes, one job). TARGET is parse, optimize, execute, scene or
# permalink. The corpus lives in fuzz/corpus/TARGET (not committed); it is seeded from
# fuzz/regressions/TARGET, the examples and generated pairs the first time.
#   scripts/fuzz.sh --keep TARGET   minimises the corpus into fuzz/regressions/TARGET,
#                                   which the tests replay (crates/verify/tests/fuzz.rs,
#                                   web/tests/permalink.rs).
# A crash leaves its input in fuzz/artifacts/TARGET; copy it into fuzz/regressions/TARGET
# once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

keep=0
if [ "${1:-}" = --keep ]; then keep=1; shift; fi
target="${1:?usage: scripts/fuzz.sh [--keep] TARGET [SECONDS]}"
seconds="${2:-1800}"
case "$target" in parse|optimize|execute|scene|permalink) ;; *) echo "unknown target $target" >&2; exit 2 ;; esac
command -v cargo-fuzz >/dev/null || cargo install -q cargo-fuzz

corpus="fuzz/corpus/$target"
regressions="fuzz/regressions/$target"
mkdir -p "$corpus" "$regressions"

if [ "$keep" = 1 ]; then
  tmp="$(mktemp -d)"
  (cd fuzz && cargo +nightly fuzz cmin -O "$target" "../$corpus" -- -rss_limit_mb=4096 -timeout=30)
  cp "$corpus"/* "$tmp"/
  rm -f "$regressions"/[0-9a-f]*
  # Content-named files; the hand-named seeds (example-*, pair-*) stay.
  for f in "$tmp"/*; do cp "$f" "$regressions/$(sha1sum "$f" | cut -c1-16)"; done
  rm -rf "$tmp"
  echo "fuzz/regressions/$target: $(ls "$regressions" | wc -l) inputs"
  exit 0
fi

if [ -z "$(ls -A "$corpus")" ]; then
  cp "$regressions"/* "$corpus"/ 2>/dev/null || true
  case "$target" in
    scene) cp examples/*/*.shader_test "$corpus"/ ;;
    parse|optimize|execute)
      dump="$(mktemp -d)"
      for flavor in arb d3d9; do
        for seed in $(seq 1 12); do
          cargo run -q --release -p hoist-verify --bin hoist-soak -- 1 --only "$flavor" --first "$seed" --dump "$dump/p" >/dev/null
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
