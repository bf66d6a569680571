#!/usr/bin/env bash
# One device call for the large-circuit path (issue 5): the new GPU tests, then the whole-proof benchmark
# with its correctness checks at the sizes given (default 2^16, 2^20, 2^24, 1 and 10 circuits).
# Usage on the device machine (after the wheel prelude): bash bench/device_large.sh "$OUT" [LOG_N ...]
set -uo pipefail
out=${1:?output folder}
shift
sizes=${*:-16 20 24}
status=0
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
if [ -z "${SKIP_TESTS:-}" ]; then
  timeout 300 python3 -m pytest -q -p no:cacheprovider -n 4 --require-gpu \
    tests/test_gpu_large.py tests/test_gpu_keygen.py tests/test_gpu_prover.py > "$out/large-tests.log" 2>&1 || status=1
  tail -15 "$out/large-tests.log"
fi
python3 bench/bench_prove.py --log-n $sizes --circuits 1 10 --check ${BENCH_ARGS:-} --json "$out/bench-prove.json" \
  > "$out/bench-prove.log" 2>&1 || status=1
tail -60 "$out/bench-prove.log"
exit $status
