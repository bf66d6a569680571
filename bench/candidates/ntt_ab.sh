#!/usr/bin/env bash
# The NTT A/B of a candidate, for device_ab.sh and device_prove_ab.sh: BASE_TREE against this checkout, bench/ab.sh ntt
# forth and back (AB_ORDER=abba), 2^24 and 2^27, 5 timed runs a round, on cores 0-7 (device_ab.sh builds the seeded
# vectors on 8-15 meanwhile). The records' commits come from the caller's A_COMMIT and B_COMMIT. The log and the
# files (OUT/ab_ntt.log, OUT/ab_ntt/) are packed into OUT/ab_ntt.tgz, one file: a device call brings back eight; the
# comparison's head is printed; exit status bench/ab.sh's.
# Usage on the device machine, after the wheel prelude: A_COMMIT=.. B_COMMIT=.. bash bench/candidates/ntt_ab.sh OUT BASE_TREE
set -u
[ $# -eq 2 ] || { echo "usage: ntt_ab.sh OUT BASE_TREE" >&2; exit 2; }
out=$(cd "$1" 2>/dev/null && pwd) || { echo "error: OUT: '$1' is not a folder" >&2; exit 2; }
AB_ORDER=abba taskset -c 0-7 bash bench/ab.sh ntt "$out/ab_ntt" "$2" . --sizes 24,27 --batch 1 --repeats 5 \
  > "$out/ab_ntt.log" 2>&1
status=$?
head -20 "$out/ab_ntt/compare/comparison.md" 2>/dev/null
tar czf "$out/ab_ntt.tgz" -C "$out" ab_ntt ab_ntt.log && rm -rf "$out/ab_ntt" "$out/ab_ntt.log"
exit $status
