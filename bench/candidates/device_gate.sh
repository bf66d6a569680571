#!/usr/bin/env bash
# A candidate's second device call (bench/candidates/README.md): the gate on this checkout, reading the seeded vectors
# device_ab.sh left in build/seeded-cache if this machine is the same one, still warm; then, if the gate finished
# within FAULTS_IF_BEFORE seconds (default 330), the planted-fault table until DEADLINE (default 585).
# Usage on the device machine, after the wheel prelude: BENCH_COMMIT=<candidate> bash bench/candidates/device_gate.sh OUT
set -u
[ $# -eq 1 ] || { echo "usage: device_gate.sh OUT" >&2; exit 2; }
out=$(cd "$1" 2>/dev/null && pwd) || { echo "error: OUT: '$1' is not a folder" >&2; exit 2; }
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
ls build/seeded-cache > "$out/seeded-cache-at-start.txt" 2>&1
SEEDED_CACHE=$PWD/build/seeded-cache timeout "${GATE_LIMIT:-560}" bash bench/device_session.sh "$out" gate
echo "gate exit $? at $(elapsed) s"
if [ "$(elapsed)" -lt "${FAULTS_IF_BEFORE:-330}" ]; then
  timeout $(( ${DEADLINE:-585} - $(elapsed) )) bash bench/device_session.sh "$out" faults
  echo "faults exit $? at $(elapsed) s"
fi
echo "end at $(elapsed) s"
