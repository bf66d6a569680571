#!/usr/bin/env bash
# A candidate's first device call (bench/candidates/README.md): its fast GPU tests, then the MSM and batch-addition
# A/B of the base tree against the candidate trees (bench/ab.sh msm, forth and back), and beside them, on cores 8-15 at
# low priority, the gate's seeded vectors built into build/seeded-cache, so that the gate call that follows reads them
# if it finds this machine still warm (their key does not depend on gpu/: conformance/seeded.py BUILDER_FILE).
# Usage on the device machine, after the wheel prelude, from the last candidate's checkout (the last tree):
#   A_COMMIT=<base> B_COMMIT=<..> [C_COMMIT=<..>] bash bench/candidates/device_ab.sh OUT BASE_TREE [TREE ..]
# With NTT_COMMIT set (this checkout's commit), the NTT A/B of the base tree against this checkout next (bench/ab.sh ntt,
# forth and back, 2^24 and 2^27: 0003's rule). Then, if before PROBE_IF_BEFORE seconds (default 420),
# bench/probe_circuit_patterns.py in the base tree: BatchAdder against one pattern pass at densities 1/2, 1/4 and 1/8,
# which places 0002's PATTERN_SHARE. DEADLINE (default 560): seconds after which it stops waiting for the seeded build.
set -u
[ $# -ge 2 ] || { echo "usage: device_ab.sh OUT BASE_TREE [TREE ..]" >&2; exit 2; }
out=$(cd "$1" 2>/dev/null && pwd) || { echo "error: OUT: '$1' is not a folder" >&2; exit 2; }
shift
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
(SEEDED_CACHE="$PWD/build/seeded-cache" taskset -c 8-15 nice -n 19 bash bench/device_session.sh "$out" seeded > /dev/null
 echo "seeded step exit $? at $(elapsed) s" >> "$out/seeded.log") &
seeded=$!
bash bench/device_session.sh "$out" tests
echo "tests done at $(elapsed) s"
AB_ORDER=abba taskset -c 0-7 bash bench/ab.sh msm "$out/ab" "$@" . --msm-sizes 24 --g2-sizes 24 --batch-sizes 27 \
  --repeats 5 > "$out/ab.log" 2>&1
echo "A/B exit $? at $(elapsed) s"
grep -h "cold compile" "$out"/ab/compile_*.log
for report in "$out"/ab/compare*/comparison.md; do echo "== $report"; head -20 "$report"; done
if [ -n "${NTT_COMMIT:-}" ]; then  # the base tree's NTT against this checkout's (the trees between share the base's)
  B_COMMIT=$NTT_COMMIT bash bench/candidates/ntt_ab.sh "$out" "$1"
  echo "NTT A/B exit $? at $(elapsed) s"
fi
if [ "$(elapsed)" -lt "${PROBE_IF_BEFORE:-420}" ]; then  # fits 0002's PATTERN_SHARE: where patterns start to pay
  (cd "$1" && PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" python3 bench/probe_circuit_patterns.py \
    --densities 0.5 0.25 0.125 --json "$out/patterns.json" --md "$out/patterns.md") > "$out/patterns.log" 2>&1
  echo "patterns probe exit $? at $(elapsed) s"; cat "$out/patterns.md" 2>/dev/null
fi
left=$(( ${DEADLINE:-560} - $(elapsed) ))
[ $left -gt 0 ] && timeout $left tail --pid=$seeded -f /dev/null
tail -2 "$out/seeded.log"
echo "end at $(elapsed) s"
