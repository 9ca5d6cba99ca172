#!/usr/bin/env bash
# Writes what the `hoist` CLI prints (stdout, stderr, exit status) for every example and
# every piglit scene into OUT, one file per command, so that two builds can be compared
# byte for byte: a refactor that must not change behaviour runs this with the binary of
# the base commit and with its own, then `diff -r` the two directories.
#
#   scripts/cli-snapshot.sh path/to/hoist OUT [PIGLIT_DIR]
#
# PIGLIT_DIR defaults to ../shared/corpus/piglit (skipped when absent).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1")
out=$2
piglit=${3:-../shared/corpus/piglit}
mkdir -p "$out"

n=0
# One command: its output files are named after the subject and the command's words.
snap() {
  local name=$1
  shift
  local f="$out/$(echo "$name" | tr '/ ' '__')"
  "$bin" "$@" >"$f.out" 2>"$f.err"
  echo $? >"$f.rc"
  n=$((n + 1))
}

scenes=$(find examples -name '*.shader_test' | sort)
if [ -d "$piglit" ]; then
  scenes="$scenes $(find "$piglit" -name '*.shader_test' | sort)"
fi
for s in $scenes; do
  k=${s#../}
  snap "$k run" run --stats --exec interp "$s"
  snap "$k run-compiled" run --exec compiled "$s"
  snap "$k opt" opt "$s"
  snap "$k opt-json" opt --json "$s"
  snap "$k opt-all" opt --slp --schedule --fit --peepholes --mirror-params "$s"
  snap "$k opt-greedy-r600" opt --selection greedy --cost r600 "$s"
  snap "$k live" live --optimized "$s"
  snap "$k live-json" live --json --fit --schedule "$s"
  snap "$k stats" stats --optimized "$s"
  snap "$k stats-json" stats --json --target r700 "$s"
done
for p in $(find examples -name '*.vp' -o -name '*.fp' -o -name '*.vsh' -o -name '*.psh' | sort); do
  snap "$p check" check "$p"
  snap "$p live" live "$p"
  snap "$p stats" stats "$p"
  snap "$p linear" linear "$p"
  snap "$p linear-json" linear --json --unpermute "$p"
done
for sys in wave2d runge-kutta gauss-seidel fig2 fig10 fig13 fig14; do
  snap "paper-$sys linear" linear --paper "$sys"
  snap "paper-$sys linear-json" linear --json --unpermute --paper "$sys"
done
snap "paper-gauss-seidel linear-converge" linear --converge 1e-6 --paper gauss-seidel
snap "gauss13 render" render --vp examples/paper/gauss13.vp --fp examples/paper/gauss13.fp \
  --size 64x64
snap "gauss13 opt" opt --vp examples/paper/gauss13.vp --fp examples/paper/gauss13.fp
snap "fig3 opt" opt --vp examples/paper/fig3.vsh --fp examples/paper/fig3.psh --fit --slp
echo "cli-snapshot: $n commands into $out"
