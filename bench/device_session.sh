#!/usr/bin/env bash
# One device call that checks a GPU change end to end and brings back the evidence:
#   1. every GPU test (fast ones in parallel, the large-size ones serially),
#   2. the conformance suite with both backends over all bundled vectors, recording the gate report,
#   3. the whole GPU prover's per-phase breakdown on the largest bundled vector.
# Usage on the device machine (after the wheel prelude): bash bench/device_session.sh "$OUT"
set -uo pipefail
out=${1:?output folder}
status=0
export GPU_SYNC_CHECK=1
python3 -m pytest -q -p no:cacheprovider -n 8 --require-gpu -m "gpu and not slow" tests/ 2>&1 | tee "$out/gpu-tests.log" | tail -15 || status=1
python3 -m pytest -q -p no:cacheprovider --require-gpu -m "gpu and slow" tests/ 2>&1 | tee "$out/gpu-slow-tests.log" | tail -8 || status=1
unset GPU_SYNC_CHECK
python3 -m conformance run --backends reference,gpu --record-gate --report "$out/conformance" 2>&1 | tee "$out/conformance.log" | tail -40 || status=1
cp conformance/reports/*.json "$out/" 2>/dev/null
python3 -m gpu prove vectors/data/porep-log10.json --quiet --timings --out "$out/proof-log10.json" 2>&1 | tail -14 || status=1
exit $status
