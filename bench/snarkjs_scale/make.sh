#!/usr/bin/env bash
# Build a circom circuit of LINKS constraints (chain.circom) for BLS12-381 with a snarkjs Groth16 key and a witness,
# for bench/RESULTS_import.md (issue 16: import of a 2^15-constraint snarkjs circuit in <= 10x `snarkjs groth16 prove`).
# snarkjs adds one row per public signal and ONE: LINKS + 3 rows. The domain 2^k must hold them; POWER = k + 1.
# Default: 2^15 (LINKS=32000, POWER=16). `powersoftau prepare phase2` dominates: about 1.5-2 hours for POWER=16 on the
# 2-core machine, about 12 minutes for POWER=13 (LINKS=4000, domain 2^12).
#
# Pinned tools as in interop/snarkjs/regenerate.sh: circom2 0.2.23, snarkjs 0.7.6 (TOOLS below). The large files
# (ptau, zkey, wtns, r1cs) go to OUT (default /tmp/snarkjs_scale), never into the repository.
# THE CEREMONY IS NOT SECURE: fixed public beacons. Benchmark input only.
#
#   bench/snarkjs_scale/make.sh                                  # OUT/chain.r1cs, OUT/chain.zkey, OUT/witness.wtns
#   LINKS=4000 POWER=13 OUT=/tmp/snarkjs_2e12 bench/snarkjs_scale/make.sh   # a 2^12 circuit
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="${OUT:-/tmp/snarkjs_scale}"
TOOLS="${TOOLS:-$HOME/.cache/groth16-toolkit/snarkjs-0.7.6/node_modules/.bin}"
LINKS="${LINKS:-32000}"
POWER="${POWER:-16}"        # 2^POWER >= 2 * the domain: the H query needs the 2n-th roots' Lagrange basis
PTAU_BEACON=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
ZKEY_BEACON=2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
BEACON_ITERATIONS_EXP=10

mkdir -p "$OUT"
cd "$OUT"
cp "$HERE/chain.circom" chain.circom    # circom2 (WASI) reads files under the working folder only
printf 'pragma circom 2.0.0;\ninclude "chain.circom";\ncomponent main {public [x]} = Chain(%d);\n' "$LINKS" > chain_main.circom
"$TOOLS/circom2" chain_main.circom --r1cs --wasm -p bls12381 -o "$OUT"
mv chain_main.r1cs chain.r1cs
[ -f pot_final.ptau ] || {
    "$TOOLS/snarkjs" powersoftau new bls12381 "$POWER" pot_0.ptau
    "$TOOLS/snarkjs" powersoftau beacon pot_0.ptau pot_1.ptau "$PTAU_BEACON" "$BEACON_ITERATIONS_EXP" -n="bench beacon"
    "$TOOLS/snarkjs" powersoftau prepare phase2 pot_1.ptau pot_prepared.ptau
    mv pot_prepared.ptau pot_final.ptau     # only a finished file counts
}
"$TOOLS/snarkjs" groth16 setup chain.r1cs pot_final.ptau chain_0.zkey
"$TOOLS/snarkjs" zkey beacon chain_0.zkey chain.zkey "$ZKEY_BEACON" "$BEACON_ITERATIONS_EXP" -n="bench zkey beacon"
"$TOOLS/snarkjs" wtns calculate chain_main_js/chain_main.wasm "$HERE/input.json" witness.wtns
"$TOOLS/snarkjs" r1cs info chain.r1cs
echo "built: $(ls "$OUT")"
