#!/usr/bin/env bash
# Record the H200 timing baselines that bench/baselines/ holds (docs/PERFORMANCE.md, "Baselines"):
#   conformance/report.json   the bundled conformance vectors, GPU backend only, every phase run 6 times
#                             (the first is a warm-up: 5 timed runs per phase and vector)
#   prove-2pNN.json           whole proofs of one PoRep-shaped circuit at 2^20, 2^24, 2^27 (bench/bench_prove.py:
#                             a warm-up proof, then 6 timed runs per phase), one file per size
# Each file holds a timing record (conformance/TIMING_SCHEMA.md) with the environment (GPU, driver, CUDA, CuPy,
# clocks, commit). About 3 minutes of device time (most of it building and keying the 2^27 circuit).
# Usage (repository root, GPU machine): bash bench/record_baselines.sh OUT_DIR   then copy OUT_DIR/* to bench/baselines/
set -uo pipefail
out=${1:?output folder}
mkdir -p "$out/logs"
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,pstate --format=csv,noheader
python3 -m conformance run --backends gpu --repeat 6 --require-gpu --quiet --report "$out/conformance" \
  > "$out/logs/conformance.log" 2>&1 || status=1
tail -4 "$out/logs/conformance.log"
for n in 20 24 27; do
  python3 bench/bench_prove.py --log-n "$n" --circuits 1 --runs 6 --json "$out/prove-2p$n.json" \
    > "$out/logs/prove-2p$n.log" 2>&1 || status=1
  tail -3 "$out/logs/prove-2p$n.log"
done
exit $status
