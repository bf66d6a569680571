#!/usr/bin/env bash
# Source trees' benchmarks of one tool in ONE device call, so that their comparison comes from one machine and one
# run (a kernel change against its base, or several candidates against it), judged by `python -m conformance compare`
# (per row: medians, spread, change, and the noise rule's verdict; docs/PERFORMANCE.md). Tools:
#   msm  bench/bench_msm.py: MSMs and batch addition (default options: --msm-sizes 20 24 --batch-sizes 27); each tree
#        first gets its own empty NVRTC cache and a --compile-only run, so the cold compile time of its modules is
#        measured too (compile_*.log)
#   ntt  bench/bench_ntt.py: the four transforms and ntt_h (default options: --sizes 24,27 --batch 1); its warm-up
#        calls absorb compilation (not timed apart)
#   prove  bench/bench_prove.py: the whole proof, phase by phase (default options: --log-n 20 --circuits 1 10
#        --check); for changes to the phases outside the MSM and the NTT (prep, assemble, evaluate, ...), whose
#        time bench_prove takes at each phase's boundary
#
# Usage on the device machine, after the wheel prelude:
#   [A_COMMIT=.. B_COMMIT=.. C_COMMIT=..] [AB_ORDER=abba] bash bench/ab.sh msm|ntt|prove OUT_DIR TREE_A TREE_B [TREE_C ..]
#       [options of the tool's script]
#   The trees are the arguments up to the first one that starts with '-' (at most 8); A is the baseline, each other
#   tree is compared with it. (A_COMMIT, B_COMMIT, ...: the commits the records name; set them: the device copy's git
#   history is stale.)
#   AB_ORDER=ab runs each tree once, in order (rounds <tool>_a, _b, _c, ..). AB_ORDER=abba runs them forth and back,
#   A B B A, or A B C C B A (rounds <tool>_a1, _b1, _c1, _c2, _b2, _a2), and pools each tree's two rounds
#   (python -m conformance pool) before the comparisons: a drift in the call (the tree run second was slower in
#   unchanged phases in earlier A/Bs) then widens both sides' spread instead of landing on a later tree. Twice the
#   device time.
# A tree is a checkout of this repository (e.g. `git archive BRANCH | tar -x -C wt_b` on the CPU machine, an
# untracked folder that travels with the working tree, or a copy patched with a branch's diff on the device).
# OUT_DIR receives per tree <tool>_a/b/...json and .log (ntt also its table, ntt_a.md, ..; with AB_ORDER=abba each
# round's files and the pooled <tool>_a.json, ..) and the comparisons with A (comparison.md, .json, waterfall.png):
# compare/ for B, compare_c/ for C, and so on.
# Measured (2026-12-03, H200): msm with its defaults 25-40 s a tree, compilation included; ntt --sizes 24,27 --batch 1
# about 25-35 s a tree. (2026-12-04: msm --msm-sizes 24 --g2-sizes 24 --batch-sizes 27 about 11 s a tree, modules
# already compiled.)
set -uo pipefail
usage="usage: ab.sh msm|ntt|prove OUT_DIR TREE_A TREE_B [TREE_C ..] [options of bench/bench_msm.py, bench_ntt.py or bench_prove.py]"
MAX_TREES=8
SIDES=(a b c d e f g h)  # a tree's letter: its round names, its records and its *_COMMIT variable
[ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
tool=$1
case $tool in
  msm) defaults="--msm-sizes 20 24 --batch-sizes 27" ;;
  ntt) defaults="--sizes 24,27 --batch 1" ;;
  prove) defaults="--log-n 20 --circuits 1 10 --check" ;;
  *) echo "error: tool: '$tool' is not msm, ntt or prove; $usage" >&2; exit 2 ;;
esac
script=bench/bench_$tool.py
out=$2
shift 2
trees=()
while [ $# -gt 0 ] && [[ $1 != -* ]]; do trees+=("$1"); shift; done
[ ${#trees[@]} -ge 2 ] || { echo "error: trees: ${#trees[@]} given, a comparison needs 2; $usage" >&2; exit 2; }
[ ${#trees[@]} -le $MAX_TREES ] || { echo "error: trees: ${#trees[@]} given, at most $MAX_TREES; $usage" >&2; exit 2; }
for k in "${!trees[@]}"; do  # all checked before any runs, and made absolute (each round runs in its tree's folder)
  tree=${trees[$k]}
  [ -f "$tree/$script" ] || { echo "error: $tree: not a checkout of this repository (no $script); $usage" >&2; exit 2; }
  trees[$k]=$(cd "$tree" && pwd)
done
sides=("${SIDES[@]:0:${#trees[@]}}")
declare -A tree_of
for k in "${!trees[@]}"; do tree_of[${sides[$k]}]=${trees[$k]}; done
options=${*:-$defaults}
case ${AB_ORDER:-ab} in
  ab) rounds=("${sides[@]}") ;;
  abba)
    rounds=()
    for side in "${sides[@]}"; do rounds+=("${side}1"); done
    for ((k = ${#sides[@]} - 1; k >= 0; k--)); do rounds+=("${sides[$k]}2"); done
    ;;
  *) echo "error: AB_ORDER: '$AB_ORDER' is not ab or abba; $usage" >&2; exit 2 ;;
esac
mkdir -p "$out" && out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
for round in "${rounds[@]}"; do
  side=${round:0:1}
  tree=${tree_of[$side]}
  export CUPY_CACHE_DIR=$(mktemp -d)
  commit_var=${side^^}_COMMIT
  if [ -n "${!commit_var:-}" ]; then export BENCH_COMMIT=${!commit_var}; else unset BENCH_COMMIT; fi
  if [ "$tool" = msm ]; then
    start=$(date +%s%N)
    (cd "$tree" && PYTHONPATH="$tree${PYTHONPATH:+:$PYTHONPATH}" python3 "$script" --compile-only) > "$out/compile_$round.log" 2>&1 || status=1
    echo "cold compile, tree $side ($tree): $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$out/compile_$round.log"
  fi
  table=()
  [ "$tool" = ntt ] && table=("$out/ntt_$round.md")  # bench_ntt.py's first argument: where its table goes
  # shellcheck disable=SC2086  # the options are words
  (cd "$tree" && PYTHONPATH="$tree${PYTHONPATH:+:$PYTHONPATH}" python3 "$script" "${table[@]}" $options \
    --json "$out/${tool}_$round.json") > "$out/${tool}_$round.log" 2>&1 || status=1
done
if [ "${AB_ORDER:-ab}" = abba ]; then
  for side in "${sides[@]}"; do
    (cd "$root" && python3 -m conformance pool "$out/${tool}_$side.json" "$out/${tool}_${side}1.json" "$out/${tool}_${side}2.json") || status=1
  done
fi
for side in "${sides[@]:1}"; do  # each tree against A; B's comparison keeps the folder name of the two-tree form
  report=$out/compare
  [ "$side" = b ] || report=${report}_$side
  (cd "$root" && python3 -m conformance compare "$out/${tool}_a.json" "$out/${tool}_$side.json" --report "$report") || status=1
done
exit $status
