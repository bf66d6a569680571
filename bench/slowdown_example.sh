#!/usr/bin/env bash
# The worked example of docs/PERFORMANCE.md ("is my change slower?") on a GPU machine: a plain whole-proof run at
# 2^20 as the baseline, the same with a slowdown planted in ntt_h (bench/plant_slowdown.py), and the comparison with
# its waterfall. About 1 minute of device time.
# Usage (repository root, GPU machine): bash bench/slowdown_example.sh OUT_DIR   (then commit OUT_DIR/comparison.*
# and OUT_DIR/waterfall.png as docs/examples/slowdown/). Exit 0 when the comparison gave its verdict (PASS, or the
# FAIL / INCOMPLETE the example can show: exit 1 of compare, expected here), 1 when a run or the comparison failed.
set -uo pipefail
out=${1:?output folder}
mkdir -p "$out"
args=(--log-n 20 --circuits 1 --runs 6)
python3 bench/bench_prove.py "${args[@]}" --json "$out/baseline.json" > "$out/baseline.log" 2>&1 || { tail -20 "$out/baseline.log"; exit 1; }
python3 bench/plant_slowdown.py "${args[@]}" --json "$out/slowed.json" > "$out/slowed.log" 2>&1 || { tail -20 "$out/slowed.log"; exit 1; }
python3 -m conformance compare "$out/baseline.json" "$out/slowed.json" --max-slowdown 5 --allow-unjudged --report "$out" | tee "$out/compare.txt"
rc=${PIPESTATUS[0]}
echo "compare exit status: $rc (1 when ntt_h is slower by more than 5% of the baseline beyond noise; see docs/examples/slowdown/README.md)"
# The example demonstrates the comparison's verdict, whichever it is: PASS (exit 0) or FAIL / INCOMPLETE (exit 1, with
# its result line) are the expected outcomes and end this script with 0. Anything else did not compare at all: exit 2
# (bad input, runs not comparable), another status, or exit 1 without a result line (a crash); the script fails then.
verdict=$(grep -oE '^result: (PASS|FAIL|INCOMPLETE)' "$out/compare.txt" | tail -1)
case "$rc:$verdict" in
  "0:result: PASS" | "1:result: FAIL" | "1:result: INCOMPLETE")
    echo "slowdown example: done; the comparison's ${verdict#result: } is an expected outcome of the example" ;;
  *)
    echo "error: compare did not give a verdict (exit status $rc${verdict:+, $verdict}): no comparison was made" >&2
    exit 1 ;;
esac
