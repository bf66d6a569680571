pragma circom 2.1.0;

// A small circuit for the snarkjs interop fixtures (see regenerate.sh).
// Public inputs x and z, one output y, private input k. It exercises: ONE in A and B with
// non-trivial coefficients, negative (r - c) coefficients, a purely linear constraint
// (empty A and B rows), and a public input that appears in B.
template Interop() {
    signal input x;
    signal input z;
    signal input k;
    signal output y;

    signal x2;
    signal x3;
    signal t;
    signal u;

    x2 <== x * x;
    x3 <== x2 * x;
    t <== (x + 7) * (k - 2);
    u <== (3 * k - z) * (z + 5);
    y <== x3 + 5 * t - 4 * u + 11;
}

component main {public [x, z]} = Interop();
