#!/usr/bin/env bash
# The first call of a landing (bench/candidates/README.md, "Next"): the whole 2^27 proofs of a gated stack, run in its
# tree (BASE_TREE, an untracked folder of this checkout), then the NTT A/B of that tree against this checkout (bench/ab.sh
# ntt, forth and back, 2^24 and 2^27; ntt_ab.sh packs its files into one archive).
# Usage on an H200 (the 2^27 keys do not fit an H100), after the wheel prelude, from the checkout of the later patches:
#   BASE_COMMIT=<base> THIS_COMMIT=<this checkout> bash bench/candidates/device_prove_ab.sh OUT BASE_TREE
set -u
[ $# -eq 2 ] || { echo "usage: device_prove_ab.sh OUT BASE_TREE" >&2; exit 2; }
out=$(cd "$1" 2>/dev/null && pwd) || { echo "error: OUT: '$1' is not a folder" >&2; exit 2; }
[ -f "$2/bench/device_session.sh" ] || { echo "error: BASE_TREE: '$2' holds no bench/device_session.sh" >&2; exit 2; }
[ -n "${BASE_COMMIT:-}" ] || { echo "error: BASE_COMMIT: must name the base tree's commit (the records say it)" >&2; exit 2; }
[ -n "${THIS_COMMIT:-}" ] || { echo "error: THIS_COMMIT: must name this checkout's commit (the records say it)" >&2; exit 2; }
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
(cd "$2" && BENCH_COMMIT=$BASE_COMMIT bash bench/device_session.sh "$out" prove)  # its bench scripts import its own tree
echo "prove exit $? at $(elapsed) s"
A_COMMIT=$BASE_COMMIT B_COMMIT=$THIS_COMMIT bash bench/candidates/ntt_ab.sh "$out" "$2"
echo "NTT A/B exit $? at $(elapsed) s"
echo "end at $(elapsed) s"
