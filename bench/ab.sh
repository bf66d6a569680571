#!/usr/bin/env bash
# Two source trees' benchmarks of one tool in ONE device call, so that their comparison comes from one machine and one
# run (a kernel change against its base), judged by `python -m conformance compare` (per row: medians, spread,
# change, and the noise rule's verdict; docs/PERFORMANCE.md). Tools:
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
#   [A_COMMIT=.. B_COMMIT=..] [AB_ORDER=abba] bash bench/ab.sh msm|ntt|prove OUT_DIR TREE_A TREE_B [options of the tool's script]
#   (A_COMMIT / B_COMMIT: the commits the records name; set them: the device copy's git history is stale)
#   AB_ORDER=abba runs the trees A, B, B, A (rounds <tool>_a1, _b1, _b2, _a2) and pools each tree's two rounds
#   (python -m conformance pool) before the comparison: a drift in the call (the tree run second was slower in
#   unchanged phases in earlier A/Bs) then widens both sides' spread instead of landing on B. Twice the device time.
# A tree is a checkout of this repository (e.g. `git archive BRANCH | tar -x -C wt_b` on the CPU machine, an
# untracked folder that travels with the working tree, or a copy patched with a branch's diff on the device).
# OUT_DIR receives per tree <tool>_a/b.json and .log (ntt also its table, ntt_a/b.md; with AB_ORDER=abba each round's
# files, <tool>_a1, _b1, _b2, _a2, and the pooled <tool>_a/b.json) and compare/ (comparison.md,
# .json, waterfall.png): A is the baseline, B the new run.
# Measured (2026-12-03, H200): msm with its defaults 25-40 s a tree, compilation included; ntt --sizes 24,27 --batch 1
# about 25-35 s a tree.
set -uo pipefail
usage="usage: ab.sh msm|ntt|prove OUT_DIR TREE_A TREE_B [options of bench/bench_msm.py, bench_ntt.py or bench_prove.py]"
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
for tree in "$3" "$4"; do  # each checked: a=$(..) b=$(..) || .. would see only the last one's status
  [ -f "$tree/$script" ] || { echo "error: $tree: not a checkout of this repository (no $script); $usage" >&2; exit 2; }
done
a=$(cd "$3" && pwd) b=$(cd "$4" && pwd)
shift 4
options=${*:-$defaults}
mkdir -p "$out" && out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
case ${AB_ORDER:-ab} in
  ab) rounds="a b" ;;
  abba) rounds="a1 b1 b2 a2" ;;
  *) echo "error: AB_ORDER: '$AB_ORDER' is not ab or abba; $usage" >&2; exit 2 ;;
esac
status=0
for round in $rounds; do
  side=${round:0:1}
  tree=${!side}
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
  for side in a b; do
    (cd "$root" && python3 -m conformance pool "$out/${tool}_$side.json" "$out/${tool}_${side}1.json" "$out/${tool}_${side}2.json") || status=1
  done
fi
(cd "$root" && python3 -m conformance compare "$out/${tool}_a.json" "$out/${tool}_b.json" --report "$out/compare") || status=1
exit $status
