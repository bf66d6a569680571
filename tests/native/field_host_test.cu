// Host-side check of gpu/kernels/field.cuh (the portable C++ path): a line-oriented calculator
// driven by tests/test_gpu_field.py, which compares every answer with Python ints.
//
// stdin, one query per line:  <fr|fq> <op> <a hex> <b hex>   (plain integers, not Montgomery form)
// stdout, one line per query: the result in hex (plain), or 0/1 for predicates.
// ops: add sub mul sqr neg inv dbl eq iszero one tomont frommont, and mulsub: a and b are then "a:c" and "b:d",
//   and the answer is a b - c d.
//   tomont prints the raw limbs of a.to_mont() (a R mod m); frommont reads a as raw limbs.
// Field fq2 (fq2.cuh; an operand "x0:x1" is x0 + x1 u): mul, sqr, and mulsub with "a0:a1:c0:c1" and "b0:b1:d0:d1";
//   the answer is its two coefficients, c0 then c1, on one line.
// Builds with nvcc (as CUDA, host path) or with g++ -x c++.
#include <cstdio>
#include <cstring>

#include "field.cuh"
#include "fq2.cuh"

template <class F>
static bool parse_hex(const char* text, F& out) {
    size_t len = strlen(text);
    for (int j = 0; j < F::N; ++j) out.l[j] = 0;
    for (size_t k = 0; k < len; ++k) {
        char c = text[len - 1 - k];
        u32 digit;
        if (c >= '0' && c <= '9') digit = c - '0';
        else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
        else return false;
        size_t limb = k / 8;
        if (limb >= (size_t)F::N) return digit == 0;
        out.l[limb] |= digit << (4 * (k % 8));
    }
    return true;
}

template <class F>
static void print_hex(const F& x, const char* end = "\n") {
    printf("0x");
    for (int j = F::N - 1; j >= 0; --j) printf("%08x", x.l[j]);
    printf("%s", end);
}

// Splits "x:y:..." into at most `count` hex numbers, each parsed into Montgomery form; false unless exactly `count`.
template <class F>
static bool parse_list(const char* text, F* out, int count) {
    char buffer[512];
    if (strlen(text) >= sizeof(buffer)) return false;
    strcpy(buffer, text);
    int k = 0;
    for (char* part = strtok(buffer, ":"); part; part = strtok(nullptr, ":")) {
        F raw;
        if (k == count || !parse_hex(part, raw)) return false;
        out[k++] = raw.to_mont();
    }
    return k == count;
}

template <class F>
static bool run_mul_sub(const char* a_list, const char* b_list) {
    F ac[2], bd[2];
    if (!parse_list(a_list, ac, 2) || !parse_list(b_list, bd, 2)) return false;
    print_hex(F::mul_sub(ac[0], bd[0], ac[1], bd[1]).from_mont());
    return true;
}

static bool run_fq2(const char* op, const char* a_list, const char* b_list) {
    fq_t a[4], b[4];
    bool mul_sub = !strcmp(op, "mulsub");
    int count = mul_sub ? 4 : 2;
    if (!parse_list(a_list, a, count) || !parse_list(b_list, b, count)) return false;
    fq2_t x{a[0], a[1]}, y{b[0], b[1]}, r;
    if (!strcmp(op, "mul")) r = x * y;
    else if (!strcmp(op, "sqr")) r = x.sqr();
    else if (mul_sub) r = fq2_t::mul_sub(x, y, fq2_t{a[2], a[3]}, fq2_t{b[2], b[3]});
    else return false;
    print_hex(r.c0.from_mont(), " ");
    print_hex(r.c1.from_mont());
    return true;
}

template <class F>
static bool run(const char* op, const char* a_hex, const char* b_hex) {
    if (!strcmp(op, "mulsub")) return run_mul_sub<F>(a_hex, b_hex);
    F a_raw, b_raw;
    if (!parse_hex(a_hex, a_raw) || !parse_hex(b_hex, b_raw)) return false;
    F a = a_raw.to_mont(), b = b_raw.to_mont();
    if (!strcmp(op, "add")) print_hex((a + b).from_mont());
    else if (!strcmp(op, "sub")) print_hex((a - b).from_mont());
    else if (!strcmp(op, "mul")) print_hex((a * b).from_mont());
    else if (!strcmp(op, "sqr")) print_hex(a.sqr().from_mont());
    else if (!strcmp(op, "neg")) print_hex(a.neg().from_mont());
    else if (!strcmp(op, "inv")) print_hex(a.inverse().from_mont());
    else if (!strcmp(op, "dbl")) print_hex(a.dbl().from_mont());
    else if (!strcmp(op, "eq")) printf("%d\n", (int)(a == b) + 2 * (int)(a != b));
    else if (!strcmp(op, "iszero")) printf("%d\n", (int)a.is_zero());
    else if (!strcmp(op, "one")) print_hex(F::one().from_mont());
    else if (!strcmp(op, "tomont")) print_hex(a);
    else if (!strcmp(op, "frommont")) print_hex(a_raw.from_mont());
    else return false;
    return true;
}

int main() {
    char field[8], op[16], a[512], b[512];
    while (scanf("%7s %15s %511s %511s", field, op, a, b) == 4) {
        bool ok = !strcmp(field, "fr") ? run<fr_t>(op, a, b)
                : !strcmp(field, "fq") ? run<fq_t>(op, a, b)
                : !strcmp(field, "fq2") ? run_fq2(op, a, b) : false;
        if (!ok) {
            printf("error: bad query %s %s %s %s\n", field, op, a, b);
            return 1;
        }
    }
    return 0;
}
