#!/usr/bin/env bash
# One device call that checks a GPU change end to end and brings back the evidence (7 files, under $OUT's limit of 8):
#   1. every fast GPU test, in parallel                                                        -> gpu-tests.log
#   2. the gate: both backends over all bundled vectors in isolated and prover mode, plus the
#      generated cases (multi-pass NTT, c = 16 windows, one circuit at a time), recording the
#      gate report                                                                  -> conformance.log, gpu-latest.*
#   3. the planted faults in the GPU prover's code, each from a patched copy of gpu/, as a table
#      (also copied to conformance/reports/faults-gpu.md: commit it)                         -> faults-gpu.md, faults.log
#   4. the whole GPU prover's per-phase breakdown on the largest bundled vector (in conformance.log)
#   5. the large-size GPU tests (2^15 .. 2^27), serially, last (the longest step)            -> gpu-slow-tests.log
# Usage on the device machine (after the wheel prelude): bash bench/device_session.sh "$OUT" [--no-slow]
# Expected: about 9 minutes with --no-slow on an H200 (tests ~3, gate ~3, faults ~3); the slow tests add more.
set -uo pipefail
out=${1:?output folder}
slow=${2:-}
status=0
GPU_SYNC_CHECK=1 python3 -m pytest -q -p no:cacheprovider -n 8 --require-gpu -m "gpu and not slow" tests/ > "$out/gpu-tests.log" 2>&1 || status=1
tail -6 "$out/gpu-tests.log"
python3 -m conformance run --backends reference,gpu --record-gate --report /tmp/conformance-report > "$out/conformance.log" 2>&1 || status=1
tail -30 "$out/conformance.log"
cp conformance/reports/gpu-latest.json conformance/reports/gpu-latest.md "$out/" 2>/dev/null
python3 -m conformance faults --gpu-table "$out/faults-gpu.md" > "$out/faults.log" 2>&1 || status=1
cat "$out/faults-gpu.md"
cp "$out/faults-gpu.md" conformance/reports/faults-gpu.md 2>/dev/null
python3 -m gpu prove vectors/data/porep-log10.json --quiet --timings --out /tmp/proof-log10.json 2>&1 | tail -12 | tee -a "$out/conformance.log"
if [ "$slow" != "--no-slow" ]; then
  python3 -m pytest -q -p no:cacheprovider --require-gpu -m "gpu and slow" tests/ > "$out/gpu-slow-tests.log" 2>&1 || status=1
  tail -6 "$out/gpu-slow-tests.log"
fi
exit $status
