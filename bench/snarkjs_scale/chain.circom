pragma circom 2.0.0;

// A circuit of about 2^15 constraints without external libraries, for bench/snarkjs_scale/make.sh:
// a chain s[i] = s[i-1] * (s[i-1] + y) + x, one constraint per link, so the witness is dense and random-looking.
template Chain(N) {
    signal input x;
    signal input y;
    signal output out;
    signal s[N];
    s[0] <== x * y;
    for (var i = 1; i < N; i++) {
        s[i] <== s[i - 1] * (s[i - 1] + y) + x;
    }
    out <== s[N - 1];
}

// 32000 links + 2 public signals (out, x) + snarkjs's one row per public signal and ONE: 32003 rows, domain 2^15.
component main {public [x]} = Chain(32000);
