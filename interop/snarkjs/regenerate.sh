#!/usr/bin/env bash
# Regenerate the snarkjs interop fixtures in this folder (tests/test_snarkjs.py reads them).
#
# Pinned tools: circom2 0.2.23 (the WASM build of circom 2.2.3) and snarkjs 0.7.6, installed exactly
# as package-lock.json says (npm ci). Every step is deterministic except `snarkjs groth16 prove`,
# which draws its own r and s: the powers of tau and the zkey get their randomness from fixed beacons.
#
# THE CEREMONY HERE IS NOT SECURE: the beacon values are public, so anyone can recompute the toxic
# waste. These keys are test fixtures only.
#
# Needs node >= 18 with npm, and python3 with this repository's dependencies (for the final import).
set -euo pipefail
cd "$(dirname "$0")"
HERE="$(pwd)"
REPO="$(cd ../.. && pwd)"

POWER=5                     # 2^5 >= 2 * the domain (16): the H query needs the 2n-th roots' Lagrange basis
PTAU_BEACON=0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
ZKEY_BEACON=2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f
BEACON_ITERATIONS_EXP=10    # 2^10 hash iterations: the minimum snarkjs accepts, enough for a fixture

npm ci --no-audit --no-fund
circom=(node_modules/.bin/circom2)
snarkjs=(node_modules/.bin/snarkjs)
BUILD="$HERE/build"
rm -rf "$BUILD"
mkdir -p "$BUILD"

# curve (snarkjs name), circom prime name, suffix of the checked-in files
make_key() {
    local curve=$1 prime=$2 suffix=$3
    local out="$BUILD/$curve"
    mkdir -p "$out"
    "${circom[@]}" circuit.circom --r1cs --wasm -p "$prime" -o "$out"
    "${snarkjs[@]}" powersoftau new "$curve" "$POWER" "$out/pot_0.ptau"
    "${snarkjs[@]}" powersoftau beacon "$out/pot_0.ptau" "$out/pot_1.ptau" "$PTAU_BEACON" "$BEACON_ITERATIONS_EXP" -n="fixture beacon"
    "${snarkjs[@]}" powersoftau prepare phase2 "$out/pot_1.ptau" "$out/pot_final.ptau"
    "${snarkjs[@]}" groth16 setup "$out/circuit.r1cs" "$out/pot_final.ptau" "$out/circuit_0.zkey"
    "${snarkjs[@]}" zkey beacon "$out/circuit_0.zkey" "circuit$suffix.zkey" "$ZKEY_BEACON" "$BEACON_ITERATIONS_EXP" -n="fixture zkey beacon"
    cp "$out/circuit.r1cs" "circuit$suffix.r1cs"
    "${snarkjs[@]}" wtns calculate "$out/circuit_js/circuit.wasm" input.json "witness$suffix.wtns"
}

make_key bls12381 bls12381 ""
make_key bn128 bn128 "-bn128"     # a key for the wrong curve: the readers must refuse it

# A second witness for the same circuit (a multi-circuit vector).
"${snarkjs[@]}" wtns calculate "$BUILD/bls12381/circuit_js/circuit.wasm" input2.json witness2.wtns

# snarkjs's own verification key and proof, and its own JSON decodings of the binary files: the
# tests compare this toolkit's readers against them.
"${snarkjs[@]}" zkey export verificationkey circuit.zkey verification_key.json
"${snarkjs[@]}" groth16 prove circuit.zkey witness.wtns proof.json public.json
"${snarkjs[@]}" groth16 verify verification_key.json public.json proof.json
"${snarkjs[@]}" r1cs export json circuit.r1cs circuit.r1cs.json
"${snarkjs[@]}" wtns export json witness.wtns witness.json
"${snarkjs[@]}" zkey export json circuit.zkey circuit.zkey.json

# The same circuit as a test vector (convention "snarkjs"), expected outputs from the reference prover: a bundled
# vector (vectors/bundled.py), so the conformance gate runs the snarkjs convention on both backends.
# The import command is vectors/bundled.py SNARKJS_INTEROP_IMPORT, which `regenerate --check` reruns.
(cd "$REPO" && python3 -m vectors regenerate snarkjs-interop)

rm -rf "$BUILD"
echo "regenerated: $(ls "$HERE" | grep -v node_modules | tr '\n' ' ')"
