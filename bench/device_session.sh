#!/usr/bin/env bash
# One device call that checks a GPU change end to end and brings back the evidence:
#   1. every fast GPU test, in parallel;
#   2. the conformance suite with both backends over all bundled vectors, recording the gate report;
#   3. the whole GPU prover's per-phase breakdown on the largest bundled vector;
#   4. the large-size GPU tests (2^15 .. 2^27), serially, last (the longest step).
# Usage on the device machine (after the wheel prelude): bash bench/device_session.sh "$OUT"
set -uo pipefail
out=${1:?output folder}
status=0
GPU_SYNC_CHECK=1 python3 -m pytest -q -p no:cacheprovider -n 8 --require-gpu -m "gpu and not slow" tests/ > "$out/gpu-tests.log" 2>&1 || status=1
tail -6 "$out/gpu-tests.log"
python3 -m conformance run --backends reference,gpu --record-gate --report "$out/conformance" > "$out/conformance.log" 2>&1 || status=1
tail -30 "$out/conformance.log"
cp conformance/reports/*.json conformance/reports/*.md "$out/" 2>/dev/null
python3 -m gpu prove vectors/data/porep-log10.json --quiet --timings --out "$out/proof-log10.json" 2>&1 | tail -12
python3 -m pytest -q -p no:cacheprovider --require-gpu -m "gpu and slow" tests/ > "$out/gpu-slow-tests.log" 2>&1 || status=1
tail -6 "$out/gpu-slow-tests.log"
exit $status
