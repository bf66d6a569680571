#!/usr/bin/env bash
# Time `snarkjs groth16 prove` (median of 3) and `python -m vectors import-snarkjs` on make.sh's circuit, and the
# import's parsing stage alone (time_parsing.py). Run from anywhere after make.sh; logs go to OUT.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="${OUT:-/tmp/snarkjs_scale}"
TOOLS="${TOOLS:-$HOME/.cache/groth16-toolkit/snarkjs-0.7.6/node_modules/.bin}"
cd "$OUT"
seconds() { local start=$(date +%s.%N); "$@" > /dev/null; echo "$(date +%s.%N) - $start" | bc; }
prove_times=()
for i in 1 2 3; do prove_times+=("$(seconds "$TOOLS/snarkjs" groth16 prove chain.zkey witness.wtns proof.json public.json)"); done
"$TOOLS/snarkjs" zkey export verificationkey chain.zkey verification_key.json > /dev/null
"$TOOLS/snarkjs" groth16 verify verification_key.json public.json proof.json
echo "snarkjs groth16 prove: ${prove_times[*]} s (median $(printf '%s\n' "${prove_times[@]}" | sort -n | sed -n 2p) s)"
cd "$REPO"
python bench/snarkjs_scale/time_parsing.py "$OUT"
start=$(date +%s.%N)
python -m vectors import-snarkjs "$OUT/chain.r1cs" "$OUT/witness.wtns" "$OUT/chain.zkey" --sidecar-min 1024 \
    --out "$OUT/vector/chain.json" 2> "$OUT/import.log"
echo "python -m vectors import-snarkjs: $(echo "$(date +%s.%N) - $start" | bc) s (progress lines with elapsed times: $OUT/import.log)"
