#!/usr/bin/env bash
# The worked example of docs/PERFORMANCE.md ("is my change slower?") on a GPU machine: a plain whole-proof run at
# 2^20 as the baseline, the same with a slowdown planted in ntt_h (bench/plant_slowdown.py), and the comparison with
# its waterfall. About 1 minute of device time.
# Usage (repository root, GPU machine): bash bench/slowdown_example.sh OUT_DIR   (then commit OUT_DIR/comparison.*
# and OUT_DIR/waterfall.png as docs/examples/slowdown/)
set -uo pipefail
out=${1:?output folder}
mkdir -p "$out"
args=(--log-n 20 --circuits 1 --runs 6)
python3 bench/bench_prove.py "${args[@]}" --json "$out/baseline.json" > "$out/baseline.log" 2>&1 || { tail -20 "$out/baseline.log"; exit 1; }
python3 bench/plant_slowdown.py "${args[@]}" --json "$out/slowed.json" > "$out/slowed.log" 2>&1 || { tail -20 "$out/slowed.log"; exit 1; }
python3 -m conformance compare "$out/baseline.json" "$out/slowed.json" --max-slowdown 5 --allow-unjudged --report "$out" | tee "$out/compare.txt"
echo "compare exit status: ${PIPESTATUS[0]} (1 when ntt_h is slower by more than 5% of the baseline beyond noise; see docs/examples/slowdown/README.md)"
