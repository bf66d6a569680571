pragma circom 2.0.0;

// A circuit of N constraints without external libraries, for bench/snarkjs_scale/make.sh (which writes the main
// component): a chain s[i] = s[i-1] * (s[i-1] + y) + x, one constraint per link, so the witness is dense and
// random-looking.
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
