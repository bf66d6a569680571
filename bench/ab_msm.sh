#!/usr/bin/env bash
# Two source trees' MSM and batch-addition benchmarks in ONE device call, so that their comparison comes from one
# machine and one run (a kernel change against its base), judged by `python -m conformance compare` (per row:
# medians, spread, change, and the noise rule's verdict; docs/PERFORMANCE.md). Each tree gets its own empty NVRTC
# cache, so the cold compile time of its modules is measured too.
#
# Usage on the device machine, after the wheel prelude:
#   [A_COMMIT=.. B_COMMIT=..] bash bench/ab_msm.sh OUT_DIR TREE_A TREE_B [bench_msm.py options]
#   (default options: --msm-sizes 20 24 --batch-sizes 27; A_COMMIT / B_COMMIT: the commits the records name)
# A tree is a checkout of this repository (e.g. `git archive BRANCH | tar -x -C wt_b` on the CPU machine, an
# untracked folder that travels with the working tree). OUT_DIR receives per tree compile_*.log, msm_*.json and
# msm_*.log, and compare/ (comparison.md, .json, waterfall.png): A is the baseline, B the new run.
# Measured (2026-12-03, H200): the default options take 25-40 s a tree, compilation included.
set -uo pipefail
usage="usage: ab_msm.sh OUT_DIR TREE_A TREE_B [bench_msm.py options]"
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
out=$1
for tree in "$2" "$3"; do  # each checked: a=$(..) b=$(..) || .. would see only the last one's status
  [ -f "$tree/bench/bench_msm.py" ] || { echo "error: $tree: not a checkout of this repository (no bench/bench_msm.py); $usage" >&2; exit 2; }
done
a=$(cd "$2" && pwd) b=$(cd "$3" && pwd)
shift 3
options=${*:---msm-sizes 20 24 --batch-sizes 27}
mkdir -p "$out" && out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
for side in a b; do
  tree=${!side}
  export CUPY_CACHE_DIR=$(mktemp -d)
  commit_var=${side^^}_COMMIT
  if [ -n "${!commit_var:-}" ]; then export BENCH_COMMIT=${!commit_var}; else unset BENCH_COMMIT; fi
  start=$(date +%s%N)
  (cd "$tree" && PYTHONPATH="$tree${PYTHONPATH:+:$PYTHONPATH}" python3 bench/bench_msm.py --compile-only) > "$out/compile_$side.log" 2>&1 || status=1
  echo "cold compile, tree $side ($tree): $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$out/compile_$side.log"
  # shellcheck disable=SC2086  # the options are words
  (cd "$tree" && PYTHONPATH="$tree${PYTHONPATH:+:$PYTHONPATH}" python3 bench/bench_msm.py $options --json "$out/msm_$side.json") \
    > "$out/msm_$side.log" 2>&1 || status=1
done
(cd "$root" && python3 -m conformance compare "$out/msm_a.json" "$out/msm_b.json" --report "$out/compare") || status=1
exit $status
