#!/usr/bin/env bash
# Build a ~2^15-constraint circom circuit for BLS12-381 with a snarkjs Groth16 key and a witness, for
# bench/RESULTS_import.md (issue 16: import of a 2^15-constraint snarkjs circuit in <= 10x `snarkjs groth16 prove`).
#
# Pinned tools as in interop/snarkjs/regenerate.sh: circom2 0.2.23, snarkjs 0.7.6 (TOOLS below). The large files
# (ptau, zkey, wtns, r1cs) go to OUT (default /tmp/snarkjs_scale), never into the repository.
# THE CEREMONY IS NOT SECURE: fixed public beacons. Benchmark input only.
#
#   bench/snarkjs_scale/make.sh            # build OUT/chain.r1cs, OUT/chain.zkey, OUT/witness.wtns
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${OUT:-/tmp/snarkjs_scale}"
TOOLS="${TOOLS:-$HOME/.cache/groth16-toolkit/snarkjs-0.7.6/node_modules/.bin}"
POWER=16                    # 2^16 >= 2 * the domain (2^15): the H query needs the 2n-th roots' Lagrange basis
PTAU_BEACON=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
ZKEY_BEACON=2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
BEACON_ITERATIONS_EXP=10

mkdir -p "$OUT"
cd "$OUT"
"$TOOLS/circom2" "$HERE/chain.circom" --r1cs --wasm -p bls12381 -o "$OUT"
[ -f pot_final.ptau ] || {
    "$TOOLS/snarkjs" powersoftau new bls12381 "$POWER" pot_0.ptau
    "$TOOLS/snarkjs" powersoftau beacon pot_0.ptau pot_1.ptau "$PTAU_BEACON" "$BEACON_ITERATIONS_EXP" -n="bench beacon"
    "$TOOLS/snarkjs" powersoftau prepare phase2 pot_1.ptau pot_final.ptau
}
"$TOOLS/snarkjs" groth16 setup chain.r1cs pot_final.ptau chain_0.zkey
"$TOOLS/snarkjs" zkey beacon chain_0.zkey chain.zkey "$ZKEY_BEACON" "$BEACON_ITERATIONS_EXP" -n="bench zkey beacon"
"$TOOLS/snarkjs" wtns calculate chain_js/chain.wasm "$HERE/input.json" witness.wtns
"$TOOLS/snarkjs" r1cs info chain.r1cs
echo "built: $(ls "$OUT")"
