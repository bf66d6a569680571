// Fq inversion by the optimized binary GCD (T. Pornin, "Optimized Binary GCD for Modular Inversion", IACR ePrint
// 2020/972, Algorithm 2), for the batched affine probe (bench/probe_batched_affine.py --inversion gcd). Not part of
// the prover: it measures whether an inversion cheaper than Fermat's (ec_field.cuh fq_inv: about 380 squarings and
// 190 products, all on the multiply-add pipe) moves the break-even of batched affine bucket additions
// (bench/RESULTS_probe_batched_affine.md: 21.6 ns of the chip an inversion with Fermat).
//
// The classic binary GCD keeps a = u y and b = v y (mod p), starting from (a, b, u, v) = (y, p, 1, 0):
//   if a is odd:  if a < b, swap (a, u) with (b, v);  a -= b, u -= v
//   a /= 2, u /= 2 (mod p)
// until a = 0; then b = gcd(y, p) = 1 and v = y^-1. Each step shortens len(a) + len(b) by at least one bit, so
// 2 len(p) - 1 steps always suffice. Algorithm 2 runs GCD_STEPS of them at a time on 62-bit summaries of a and b
// (their low GCD_STEPS bits, exact, and their top GCD_TOP_BITS bits, which decide the comparisons), recording them as
// a 2 x 2 matrix of small signed factors, then applies the matrix to the full a, b (and u, v) once: the steps' work
// is on two 64-bit words, not on 12-limb numbers. The summaries' comparisons may err (a row's result then comes out
// negative and is negated, with its factors); the paper argues that 2 len(p) - 1 steps still suffice, so GCD_OUTER
// rounds of GCD_STEPS are run, and the check below does not take that on trust.
//
// Every result is checked where it is made: b must end at 1 (p is prime, so any y != 0 is invertible). If it did not,
// the Fermat inversion's value is returned instead, so a wrong summary can cost time, never a wrong inverse.
// __host__ __device__ plain C++ (64-bit accumulators, no PTX), so the host build checks it against Python's pow.
#pragma once

#include "ec_field.cuh"
#include "fq2.cuh"

namespace gcd_inverse {

constexpr int LIMBS = fq_params::N;   // 12 limbs of 32 bits
constexpr int WIDE = LIMBS + 1;       // a f + b g as a signed 416-bit integer: |a f + b g| < 2^(381 + 31)
constexpr int GCD_LIMB_BITS = field_detail::BITS_PER_LIMB;
constexpr int MODULUS_BITS = 381;     // len(p)
constexpr int GCD_STEPS = 30;         // steps a round: the factors stay in (-2^30, 2^30], an int each
constexpr int GCD_TOP_BITS = GCD_STEPS + 2;  // Algorithm 2's k + 1 top bits (k - 1 = GCD_STEPS)
constexpr int SUMMARY_BITS = GCD_STEPS + GCD_TOP_BITS;  // 62: one u64
constexpr int GCD_OUTER = (2 * MODULUS_BITS - 1 + GCD_STEPS - 1) / GCD_STEPS;  // 26 rounds: 780 >= 761 steps
constexpr u32 LOW_MASK = (1u << GCD_STEPS) - 1;
static_assert(GCD_TOP_BITS == GCD_LIMB_BITS, "summary() takes the top bits as one 32-bit window");

// R^3 mod p (R = 2^384): the Montgomery product of y^-1 with it turns the inverse of y = x R into x^-1 R.
__host__ __device__ inline u32 r_cubed(int i) {
    const u32 v[LIMBS] = {0xd94ca1e0, 0xed48ac6b, 0x03a7adf8, 0x315f831e, 0x615e29dd, 0x9a53352a,
                          0x921e1761, 0x34c04e5e, 0x65724728, 0x2512d435, 0x91755d4d, 0x0aa63460};
    return v[i];
}

__host__ __device__ inline int leading_zeros(u32 word) {
#ifdef __CUDA_ARCH__
    return __clz(word);
#else
    return word ? __builtin_clz(word) : GCD_LIMB_BITS;
#endif
}

// len(max(a, b)) = len(a | b), in bits.
__host__ __device__ inline int bit_length_of_either(const u32* a, const u32* b) {
    int length = 0;
FIELD_UNROLL
    for (int i = 0; i < LIMBS; ++i) {
        u32 word = a[i] | b[i];
        if (word) length = GCD_LIMB_BITS * (i + 1) - leading_zeros(word);
    }
    return length;
}

// Algorithm 2's summary of x for n >= SUMMARY_BITS: bits [n - GCD_TOP_BITS, n) above the low GCD_STEPS bits. The limb
// loop selects by index instead of indexing, so that x stays in registers.
__host__ __device__ inline u64 summary(const u32* x, int n) {
    int start = n - GCD_TOP_BITS;
    int limb = start / GCD_LIMB_BITS, shift = start % GCD_LIMB_BITS;
    u32 low = 0, high = 0;
FIELD_UNROLL
    for (int i = 0; i < LIMBS; ++i) {
        if (i == limb) low = x[i];
        if (i == limb + 1) high = x[i];
    }
    u64 top = ((((u64)high << GCD_LIMB_BITS) | low) >> shift) & 0xffffffffull;
    return (x[0] & LOW_MASK) | (top << GCD_STEPS);
}

// The matrix of one round: a' 2^GCD_STEPS = f0 a + g0 b, b' 2^GCD_STEPS = f1 a + g1 b.
struct round_factors {
    int f0, g0, f1, g1;
};

// GCD_STEPS steps of the classic algorithm on the summaries; the halvings of a are kept exact by doubling b's row
// instead (Algorithm 2, lines 8-17).
__host__ __device__ inline round_factors summary_steps(u64 a, u64 b) {
    int f0 = 1, g0 = 0, f1 = 0, g1 = 1;
FIELD_UNROLL
    for (int step = 0; step < GCD_STEPS; ++step) {
        bool odd = a & 1;
        bool swap = odd && a < b;
        u64 low = swap ? b : a, high = swap ? a : b;
        int sf0 = swap ? f1 : f0, sg0 = swap ? g1 : g0, sf1 = swap ? f0 : f1, sg1 = swap ? g0 : g1;
        a = odd ? low - high : low;
        b = high;
        f0 = odd ? sf0 - sf1 : sf0;
        g0 = odd ? sg0 - sg1 : sg0;
        f1 = 2 * sf1;
        g1 = 2 * sg1;
        a >>= 1;
    }
    return round_factors{f0, g0, f1, g1};
}

// t = x f (+ t if accumulate), two's complement on WIDE limbs, |f| <= 2^30.
__host__ __device__ inline void mul_small_signed(const u32* x, int f, u32* t, bool accumulate) {
    u32 magnitude = f < 0 ? (u32)(-f) : (u32)f;
    u32 negative = f < 0 ? 0xffffffffu : 0u;
    u32 product[WIDE];
    u64 carry = 0;
FIELD_UNROLL
    for (int i = 0; i < LIMBS; ++i) {
        u64 s = (u64)x[i] * magnitude + carry;
        product[i] = (u32)s;
        carry = s >> GCD_LIMB_BITS;
    }
    product[LIMBS] = (u32)carry;
    u64 sum = negative & 1u;  // -v = (v xor 1...1) + 1
FIELD_UNROLL
    for (int i = 0; i < WIDE; ++i) {
        sum += (u64)(product[i] ^ negative) + (accumulate ? t[i] : 0u);
        t[i] = (u32)sum;
        sum >>= GCD_LIMB_BITS;
    }
}

__host__ __device__ inline bool is_negative(const u32* t) { return t[WIDE - 1] >> (GCD_LIMB_BITS - 1); }

// t >> GCD_STEPS, arithmetic (the sign extends), WIDE limbs in place.
__host__ __device__ inline void shift_right_signed(u32* t) {
FIELD_UNROLL
    for (int i = 0; i < WIDE - 1; ++i) t[i] = (t[i] >> GCD_STEPS) | (t[i + 1] << (GCD_LIMB_BITS - GCD_STEPS));
    t[WIDE - 1] = (u32)((int)t[WIDE - 1] >> GCD_STEPS);
}

// out = |x f + y g| / 2^GCD_STEPS (exact: the round's steps made it divisible); true when x f + y g < 0.
__host__ __device__ inline bool apply_row(const u32* x, const u32* y, int f, int g, u32* out) {
    u32 t[WIDE];
    mul_small_signed(x, f, t, false);
    mul_small_signed(y, g, t, true);
    bool negative = is_negative(t);
    u64 sum = negative ? 1u : 0u;
    u32 flip = negative ? 0xffffffffu : 0u;
FIELD_UNROLL
    for (int i = 0; i < WIDE; ++i) {
        sum += (u64)(t[i] ^ flip);
        t[i] = (u32)sum;
        sum >>= GCD_LIMB_BITS;
    }
    shift_right_signed(t);
FIELD_UNROLL
    for (int i = 0; i < LIMBS; ++i) out[i] = t[i];
    return negative;
}

// out = (u f + v g) / 2^GCD_STEPS mod p for u, v < p: the division is Montgomery's (add q p, q < 2^GCD_STEPS, so that
// the low GCD_STEPS bits vanish, then shift), which leaves a value in (-p, 2p) when |f| + |g| <= 2^GCD_STEPS.
__host__ __device__ inline void apply_row_mod_p(const u32* u, const u32* v, int f, int g, u32* out) {
    u32 t[WIDE];
    mul_small_signed(u, f, t, false);
    mul_small_signed(v, g, t, true);
    u32 q = (t[0] * fq_params::M0_INV) & LOW_MASK;  // M0_INV = -p^-1 mod 2^32, so also mod 2^GCD_STEPS
    u64 carry = 0;
FIELD_UNROLL
    for (int i = 0; i < LIMBS; ++i) {
        u64 s = (u64)q * fq_params::modulus(i) + t[i] + carry;
        t[i] = (u32)s;
        carry = s >> GCD_LIMB_BITS;
    }
    t[LIMBS] += (u32)carry;
    shift_right_signed(t);  // in (-p, 2p): add p below zero, then the final subtraction of Montgomery's algorithm
    u32 p_if_negative = is_negative(t) ? 0xffffffffu : 0u;
    u64 sum = 0;
FIELD_UNROLL
    for (int i = 0; i < LIMBS; ++i) {
        sum += (u64)t[i] + (fq_params::modulus(i) & p_if_negative);
        t[i] = (u32)sum;
        sum >>= GCD_LIMB_BITS;
    }
    field_detail::reduce_once_portable<fq_params>(out, t);  // t < 2p now fits LIMBS limbs
}

}  // namespace gcd_inverse

// GCD_OUTER rounds from (a, b, u, v) = (x, p, 1, 0); x^-1 R (for x in Montgomery form, x R -> x^-1 R) when they
// ended at b = 1, which `converged` says. x = 0 never converges (b stays p).
__host__ __device__ inline fq_t fq_inv_gcd_rounds(const fq_t& x, bool& converged) {
    using namespace gcd_inverse;
    u32 a[LIMBS], b[LIMBS], u[LIMBS], v[LIMBS];
FIELD_UNROLL
    for (int i = 0; i < LIMBS; ++i) {
        a[i] = x.l[i];
        b[i] = fq_params::modulus(i);
        u[i] = i == 0 ? 1u : 0u;
        v[i] = 0;
    }
#pragma unroll 1
    for (int round = 0; round < GCD_OUTER; ++round) {
        int n = bit_length_of_either(a, b);
        if (n < SUMMARY_BITS) n = SUMMARY_BITS;  // short values: the summary is the value itself
        round_factors m = summary_steps(summary(a, n), summary(b, n));
        u32 next_a[LIMBS], next_b[LIMBS];
        if (apply_row(a, b, m.f0, m.g0, next_a)) m.f0 = -m.f0, m.g0 = -m.g0;
        if (apply_row(a, b, m.f1, m.g1, next_b)) m.f1 = -m.f1, m.g1 = -m.g1;
        u32 next_u[LIMBS], next_v[LIMBS];
        apply_row_mod_p(u, v, m.f0, m.g0, next_u);
        apply_row_mod_p(u, v, m.f1, m.g1, next_v);
FIELD_UNROLL
        for (int i = 0; i < LIMBS; ++i) a[i] = next_a[i], b[i] = next_b[i], u[i] = next_u[i], v[i] = next_v[i];
    }
    u32 not_one = b[0] ^ 1u;
FIELD_UNROLL
    for (int i = 1; i < LIMBS; ++i) not_one |= b[i];
    converged = not_one == 0;
    fq_t inverse, cube;  // v = (x R)^-1; times R^3 by a Montgomery product: x^-1 R
FIELD_UNROLL
    for (int i = 0; i < LIMBS; ++i) inverse.l[i] = v[i], cube.l[i] = r_cubed(i);
    return inverse * cube;
}

// x^-1 for x in Montgomery form (x R -> x^-1 R); 0 -> 0, as ec_field.cuh's fq_inv, whose value is also taken in the
// case the bound excludes, rounds that did not reach b = 1.
__host__ __device__ inline fq_t fq_inv_gcd(const fq_t& x) {
    bool converged;
    fq_t inverse = fq_inv_gcd_rounds(x, converged);
    return converged ? inverse : fq_inv(x);
}

// Fq2: (c0 + c1 u)^-1 = (c0 - c1 u) / (c0^2 + c1^2), with the norm inverted by fq_inv_gcd (as fq2.cuh's invert does
// with Fermat's).
__host__ __device__ inline fq2_t fq2_inv_gcd(const fq2_t& a) {
    fq_t norm_inv = fq_inv_gcd(fq_sqr(a.c0) + fq_sqr(a.c1));
    return fq2_t{fq_mul(a.c0, norm_inv), fq_mul(a.c1, norm_inv).neg()};
}

// The inversion a probe's Montgomery trick shares: Fermat's (ec_field.cuh, the prover's) or the binary GCD's.
template <bool GCD>
__host__ __device__ inline fq_t probe_inverse(const fq_t& x) { return GCD ? fq_inv_gcd(x) : fq_inv(x); }
template <bool GCD>
__host__ __device__ inline fq2_t probe_inverse(const fq2_t& x) { return GCD ? fq2_inv_gcd(x) : x.inverse(); }
