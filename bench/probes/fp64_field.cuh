// Probe: a Montgomery product whose limb products run on the FP64 pipe (fused multiply-adds of 48- or 51-bit limbs)
// and whose column sums run on the integer ALU, for Fr and Fq, and what a bucket addition needs beside it (lazy Fq:
// difference, reduction, zero test). Not part of the prover: bench/probe_fp64_product.py times the product against
// field.cuh's (32-bit limbs on the integer multiply-add pipe), bench/probe_fp64_madd.py the addition against ec.cuh's.
//
// Why: field.cuh's products keep the integer multiply-add pipe busy (IMAD.WIDE, 24.8 an SM a clock on the H200)
// while the FP64 pipe, 63.5 fused multiply-adds an SM a clock, and most of the ALU sit idle; integer additions issue
// beside FP64 FMAs (bench/RESULTS_probe_pipes.md). The method is Emmart, Zheng and Weems, "Faster Modular
// Exponentiation Using Double Precision Floating Point Arithmetic on the GPU" (ARITH 2018): a limb product's high
// and low halves each come out of one FMA as a double whose bit pattern, read as an integer, is the half plus a
// known constant, so that columns of such halves are summed by integer additions and the constants removed once.
//
// An element is L limbs of w bits, x = sum x_i 2^(w i), held as doubles (exact: below 2^53), in Montgomery form
// x R mod m with R = 2^(w L). Fq: 8 limbs of 48 bits, R = 2^384, field.cuh's R, so that an fq_t's 12 words become
// these limbs by moving bits alone. Fr: 5 limbs of 51 bits, R = 2^255, not field.cuh's 2^256 (5 x 48 bits are too few):
// the probe converts on the host; a linear transform could read field.cuh's x 2^256 as the value 2x in this form.
//
// One limb product x y in two FMAs and one subtraction, for |x y| <= 2^(w + 51) (so signed limbs are fine):
//   high = fma(x, y, HIGH_OFFSET), HIGH_OFFSET = 1.5 2^(w + 52): high lies in [2^(w + 52), 2^(w + 53)], whose ulp is
//          2^w, so high = HIGH_OFFSET + H 2^w with H = x y / 2^w rounded to nearest; its bit pattern is HIGH_BITS + H;
//   low  = fma(x, y, LOW_OFFSET - high), LOW_OFFSET = HIGH_OFFSET + 3 2^51 (representable for w <= 51): the
//          subtraction is exact (both operands in high's binade, both multiples of 2^w) and gives 3 2^51 - H 2^w, so
//          low = (x y - H 2^w) + 3 2^51 with x y - H 2^w in [-2^(w-1), 2^(w-1)]: low lies in [2^52, 2^53), whose ulp
//          is 1, so the FMA is exact and low's bit pattern is LOW_BITS + (x y - H 2^w).
// x y = H 2^w + (x y - H 2^w): H goes to the next column, the signed remainder to this one. Both constants are
// multiples of 2^w, so a column's low w bits are right before its constants are removed: the reduction's quotient
// digit reads them; each column starts at minus the sum of its terms' constants (column_bias) and is exact, as a
// signed 64-bit integer, once its last term is in (its magnitude stays below 2^58).
//
// NVRTC-compatible (no standard headers); a plain C++ compiler builds it for the host tests
// (tests/test_probe_fp64_product.py, test_probe_fp64_madd.py), where __builtin_fma is IEEE's fused multiply-add, as
// fma.rn.f64 is.
#pragma once

#include "field.cuh"  // u32, u64, FIELD_UNROLL, and the execution-space qualifiers on a host compiler

namespace fp64_field {

typedef long long i64;

constexpr double TWO_52 = 0x1p52;
constexpr u64 TWO_52_BITS = 0x4330000000000000ull;  // the pattern of 2^52 (exponent 1023 + 52, mantissa 0)
constexpr u64 LOW_BITS = 0x4338000000000000ull;     // the pattern of 3 2^51 (= 2^52 + 2^51)

__host__ __device__ constexpr double power_of_two(int e) { return e == 0 ? 1.0 : 2.0 * power_of_two(e - 1); }
__host__ __device__ constexpr double high_offset(int w) { return 1.5 * power_of_two(w + 52); }
__host__ __device__ constexpr double low_offset(int w) { return high_offset(w) + 3 * power_of_two(51); }
// The pattern of 1.5 2^(w + 52): exponent 1023 + w + 52, mantissa 2^51.
__host__ __device__ constexpr u64 high_bits(int w) { return ((u64)(1023 + w + 52) << 52) | (1ull << 51); }

__host__ __device__ __forceinline__ double fma_rn(double a, double b, double c) {
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return __builtin_fma(a, b, c);
#endif
}

__host__ __device__ __forceinline__ double sub_rn(double a, double b) {
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, b);  // an intrinsic: never contracted into an FMA
#else
    return a - b;
#endif
}

__host__ __device__ __forceinline__ u64 bits_of(double x) {
#ifdef __CUDA_ARCH__
    return (u64)__double_as_longlong(x);
#else
    u64 bits;
    __builtin_memcpy(&bits, &x, sizeof bits);
    return bits;
#endif
}

__host__ __device__ __forceinline__ double double_of(u64 bits) {
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)bits);
#else
    double x;
    __builtin_memcpy(&x, &bits, sizeof x);
    return x;
#endif
}

// v < 2^52 as a double without the conversion unit: the pattern of 2^52 with v as mantissa is 2^52 + v.
__host__ __device__ __forceinline__ double limb_to_double(u64 v) { return sub_rn(double_of(v | TWO_52_BITS), TWO_52); }

// x y into two columns of w-bit limbs: its signed low part into low_column, H into high_column (the header's comment).
template <int W>
__host__ __device__ __forceinline__ void add_product(double x, double y, u64& low_column, u64& high_column) {
    constexpr double HIGH_OFFSET = high_offset(W), LOW_OFFSET = low_offset(W);  // made at compile time
    const double high = fma_rn(x, y, HIGH_OFFSET);
    const double low = fma_rn(x, y, sub_rn(LOW_OFFSET, high));
    high_column += bits_of(high);
    low_column += bits_of(low);
}

// Limb pairs (i, j), i, j < L, with i + j = k.
__host__ __device__ constexpr u64 pairs_summing_to(int k, int limbs) {
    return (k < 0 || k > 2 * limbs - 2) ? 0 : (u64)(k < limbs ? k + 1 : 2 * limbs - 1 - k);
}

// A square's limb products in column k: the pairs i <= j with i + j = k (i < j ones doubled: one product each).
__host__ __device__ constexpr u64 square_terms(int k, int limbs) {
    return (pairs_summing_to(k, limbs) + ((k >= 0 && k <= 2 * limbs - 2 && k % 2 == 0) ? 1 : 0)) / 2;
}

// The limb products of a product in column k: every pair (PRODUCT), a square's pairs i <= j (SQUARE), or two products'
// pairs (PRODUCT_DIFFERENCE, a b - c d).
enum product_shape { PRODUCT, SQUARE, PRODUCT_DIFFERENCE };
__host__ __device__ constexpr u64 product_terms(int k, int limbs, product_shape shape) {
    return shape == SQUARE ? square_terms(k, limbs) : (shape == PRODUCT ? 1 : 2) * pairs_summing_to(k, limbs);
}

// The constants that column k's terms carry: low parts of the terms landing in k, high parts of those landing in
// k - 1; the product's terms and the reduction's (every pair).
__host__ __device__ constexpr u64 column_bias(int k, int limbs, int w, product_shape shape) {
    return (product_terms(k, limbs, shape) + pairs_summing_to(k, limbs)) * LOW_BITS
         + (product_terms(k - 1, limbs, shape) + pairs_summing_to(k - 1, limbs)) * high_bits(w);
}

// A field's parameters: LIMBS of BITS_PER_LIMB; modulus(j), its limbs; M_INV = -m^-1 mod 2^BITS_PER_LIMB. LAZY:
// products take and give values that are only congruent to the element, signed and within a few m (4m < R keeps the
// Montgomery bound T / R < |a b| / R + m small), with a signed top limb; otherwise (Fr) products take and give values
// in [0, m). (Not LIMB_BITS: gpu/kernels/msm.cu, which fp64_pieces.cu includes, defines that macro.)
// tests/test_probe_fp64_product.py recomputes every constant from the modulus.
struct fr_params {  // r = 0x73eda753...00000001, 255 bits: 2r > R = 2^255, so every product is fully reduced
    static constexpr int LIMBS = 5;
    static constexpr int BITS_PER_LIMB = 51;
    static constexpr bool LAZY = false;
    static constexpr u64 M_INV = 0x7fffeffffffffull;
    __host__ __device__ static constexpr u64 modulus(int j) {
        return j == 0 ? 0x7ffff00000001ull : j == 1 ? 0x5fffcb7fdfffull : j == 2 ? 0x68760154ef690ull
             : j == 3 ? 0x6a4199cec0404ull : 0x73eda753299d7ull;
    }
};

struct fq_params {  // q = 0x1a0111ea...ffffaaab, 381 bits: 4q < R = 2^384
    static constexpr int LIMBS = 8;
    static constexpr int BITS_PER_LIMB = 48;
    static constexpr bool LAZY = true;
    static constexpr u64 M_INV = 0xfffcfffcfffdull;
    __host__ __device__ static constexpr u64 modulus(int j) {
        return j == 0 ? 0xffffffffaaabull : j == 1 ? 0xb153ffffb9feull : j == 2 ? 0xf6241eabfffeull
             : j == 3 ? 0x6730d2a0f6b0ull : j == 4 ? 0x4b84f38512bfull : j == 5 ? 0x434bacd76477ull
             : j == 6 ? 0xe69a4b1ba7b6ull : 0x1a0111ea397full;
    }
};

template <class P>
struct element {
    double limb[P::LIMBS];
};

template <class P>
__host__ __device__ constexpr u64 limb_mask() { return (1ull << P::BITS_PER_LIMB) - 1; }

// A signed v, |v| < 2^51, as a double: the pattern of 1.5 2^52 plus v is 1.5 2^52 + v.
__host__ __device__ __forceinline__ double signed_to_double(i64 v) {
    return sub_rn(double_of(LOW_BITS + (u64)v), 1.5 * TWO_52);
}

// limbs (each below 2^w) with top * 2^(w L) above them, a value below 2m: minus m if it is at least m.
template <class P>
__host__ __device__ __forceinline__ void subtract_modulus_if_above(u64 (&limbs)[P::LIMBS], i64 top) {
    u64 difference[P::LIMBS];
    i64 borrow = 0;
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) {
        const i64 v = (i64)limbs[k] - (i64)P::modulus(k) + borrow;
        difference[k] = (u64)v & limb_mask<P>();
        borrow = v >> P::BITS_PER_LIMB;  // 0 or -1
    }
    const bool below_modulus = top + borrow < 0;
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) limbs[k] = below_modulus ? limbs[k] : difference[k];
}

// The reduction of a product's 2L columns (every product term in): L steps, each adding q_i m 2^(w i), which clears
// column i, and moving column i's carry up; then the upper L columns are the result (mont_mul's comment).
template <class P>
__host__ __device__ __forceinline__ element<P> montgomery_reduce(u64 (&column)[2 * P::LIMBS]) {
    constexpr int L = P::LIMBS, W = P::BITS_PER_LIMB;
    FIELD_UNROLL
    for (int i = 0; i < L; ++i) {
        const u64 q = ((column[i] & limb_mask<P>()) * P::M_INV) & limb_mask<P>();  // the constants are 0 mod 2^w
        const double q_limb = limb_to_double(q);
        FIELD_UNROLL
        for (int j = 0; j < L; ++j) add_product<W>(q_limb, (double)P::modulus(j), column[i + j], column[i + j + 1]);
        column[i + 1] += (u64)((i64)column[i] >> W);  // column i is complete and 0 mod 2^w
    }
    u64 limbs[L];
    FIELD_UNROLL
    for (int k = 0; k + 1 < L; ++k) {
        limbs[k] = column[L + k] & limb_mask<P>();
        column[L + k + 1] += (u64)((i64)column[L + k] >> W);
    }
    element<P> out;
    if (P::LAZY) {
        out.limb[L - 1] = signed_to_double((i64)column[2 * L - 1]);  // the top limb keeps the sign
    } else {
        limbs[L - 1] = column[2 * L - 1] & limb_mask<P>();
        subtract_modulus_if_above<P>(limbs, (i64)column[2 * L - 1] >> W);
        out.limb[L - 1] = limb_to_double(limbs[L - 1]);
    }
    FIELD_UNROLL
    for (int k = 0; k + 1 < L; ++k) out.limb[k] = limb_to_double(limbs[k]);
    return out;
}

// a b / R mod m (P's comment says in what range). Separated operand scanning: the L^2 limb products into 2L columns,
// then the reduction. Each limb product needs |a_i b_j| <= 2^(w + 51).
template <class P>
__host__ __device__ __forceinline__ element<P> mont_mul(const element<P>& a, const element<P>& b) {
    constexpr int L = P::LIMBS, W = P::BITS_PER_LIMB;
    u64 column[2 * L];
    FIELD_UNROLL
    for (int k = 0; k < 2 * L; ++k) column[k] = 0ull - column_bias(k, L, W, PRODUCT);  // folded: k is a constant
    FIELD_UNROLL
    for (int i = 0; i < L; ++i) {
        FIELD_UNROLL
        for (int j = 0; j < L; ++j) add_product<W>(a.limb[i], b.limb[j], column[i + j], column[i + j + 1]);
    }
    return montgomery_reduce<P>(column);
}

// a^2 / R mod m: the L (L + 1) / 2 products a_i (a_j or 2 a_j), j >= i, instead of L^2; each needs
// |2 a_i a_j| <= 2^(w + 51), which limbs of w <= 50 bits leave room for.
template <class P>
__host__ __device__ __forceinline__ element<P> mont_sqr(const element<P>& a) {
    constexpr int L = P::LIMBS, W = P::BITS_PER_LIMB;
    static_assert(W <= 50, "a square's doubled limb products need limbs of at most 50 bits");
    u64 column[2 * L];
    FIELD_UNROLL
    for (int k = 0; k < 2 * L; ++k) column[k] = 0ull - column_bias(k, L, W, SQUARE);
    FIELD_UNROLL
    for (int i = 0; i < L; ++i) {
        add_product<W>(a.limb[i], a.limb[i], column[2 * i], column[2 * i + 1]);
        const double twice = a.limb[i] + a.limb[i];  // exact
        FIELD_UNROLL
        for (int j = i + 1; j < L; ++j) add_product<W>(twice, a.limb[j], column[i + j], column[i + j + 1]);
    }
    return montgomery_reduce<P>(column);
}

// a b - c d / R mod m with one reduction (ec.cuh's Y3 = R (Q - X3) - Y1 PPP): the two products' limb products into
// the same columns, c d's with c negated (exact). Lazy fields only: the value may be negative.
template <class P>
__host__ __device__ __forceinline__ element<P> mont_mul_sub(const element<P>& a, const element<P>& b,
                                                            const element<P>& c, const element<P>& d) {
    constexpr int L = P::LIMBS, W = P::BITS_PER_LIMB;
    static_assert(P::LAZY, "a difference of products is signed: lazy fields only");
    u64 column[2 * L];
    FIELD_UNROLL
    for (int k = 0; k < 2 * L; ++k) column[k] = 0ull - column_bias(k, L, W, PRODUCT_DIFFERENCE);
    FIELD_UNROLL
    for (int i = 0; i < L; ++i) {
        const double minus_c = -c.limb[i];
        FIELD_UNROLL
        for (int j = 0; j < L; ++j) {
            add_product<W>(a.limb[i], b.limb[j], column[i + j], column[i + j + 1]);
            add_product<W>(minus_c, d.limb[j], column[i + j], column[i + j + 1]);
        }
    }
    return montgomery_reduce<P>(column);
}

template <class P>
__host__ __device__ __forceinline__ element<P> from_limbs(const u64* limbs) {
    element<P> x;
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) x.limb[k] = limb_to_double(limbs[k]);
    return x;
}

// The limbs of x's value as integers, carried so that every limb but the top lies in [0, 2^w) (the top signed).
template <class P>
__host__ __device__ __forceinline__ void carried_limbs(const element<P>& x, i64 (&v)[P::LIMBS]) {
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) v[k] = (i64)x.limb[k];  // exact: the limbs are integers below 2^53
    FIELD_UNROLL
    for (int k = 0; k + 1 < P::LIMBS; ++k) {
        v[k + 1] += v[k] >> P::BITS_PER_LIMB;
        v[k] &= (i64)limb_mask<P>();
    }
}

// v +- m, carried as carried_limbs leaves it.
template <class P>
__host__ __device__ __forceinline__ void add_modulus_times(i64 (&v)[P::LIMBS], i64 sign) {
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) v[k] += sign * (i64)P::modulus(k);
    FIELD_UNROLL
    for (int k = 0; k + 1 < P::LIMBS; ++k) {
        v[k + 1] += v[k] >> P::BITS_PER_LIMB;
        v[k] &= (i64)limb_mask<P>();
    }
}

// x's limbs, fully reduced (below m): for a lazy x (a signed value within a few m), by adding or subtracting m.
template <class P>
__host__ __device__ __forceinline__ void to_limbs(const element<P>& x, u64* out) {
    i64 v[P::LIMBS];
    carried_limbs<P>(x, v);
    if (P::LAZY) {
        while (v[P::LIMBS - 1] < 0) add_modulus_times<P>(v, 1);  // negative: the top limb says so
        for (;;) {  // at least m: m subtracted stays non-negative
            i64 trial[P::LIMBS];
            FIELD_UNROLL
            for (int k = 0; k < P::LIMBS; ++k) trial[k] = v[k];
            add_modulus_times<P>(trial, -1);
            if (trial[P::LIMBS - 1] < 0) break;
            FIELD_UNROLL
            for (int k = 0; k < P::LIMBS; ++k) v[k] = trial[k];
        }
    }
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) out[k] = (u64)v[k];
}

// ---- What a bucket addition needs besides products (lazy fields: signed values within a few m) ----

template <class P>
__host__ __device__ __forceinline__ element<P> add(const element<P>& a, const element<P>& b) {
    element<P> out;
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) out.limb[k] = a.limb[k] + b.limb[k];  // exact: integers below 2^53
    return out;
}

template <class P>
__host__ __device__ __forceinline__ element<P> sub(const element<P>& a, const element<P>& b) {
    element<P> out;
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) out.limb[k] = sub_rn(a.limb[k], b.limb[k]);
    return out;
}

// 2^(w (L - 1)) / m, to estimate how many m a value holds from its top limbs.
template <class P>
__host__ __device__ constexpr double top_weight_over_modulus() {
    double m = 0;
    for (int k = P::LIMBS - 1; k >= 0; --k) m = m * power_of_two(P::BITS_PER_LIMB) + (double)P::modulus(k);
    return power_of_two(P::BITS_PER_LIMB * (P::LIMBS - 1)) / m;
}

// x - k m with k = round(x / m) from the top two limbs: a value within about m / 2 (the lower limbs move x / m by
// far less than 2^-40 for limbs below 2^53), its limbs carried to [-2^(w-1), 2^(w-1)] (round to nearest; the top
// limb keeps the rest). Zero has one such form, all limbs 0: is_zero_reduced.
template <class P>
__host__ __device__ __forceinline__ element<P> reduce(element<P> x) {
    constexpr int L = P::LIMBS, W = P::BITS_PER_LIMB;
    constexpr double ROUND = 1.5 * TWO_52;  // adding it rounds a |value| < 2^51 to an integer
    constexpr double LIMB = power_of_two(W), INVERSE_LIMB = 1.0 / power_of_two(W);
    const double top = fma_rn(x.limb[L - 2], INVERSE_LIMB, x.limb[L - 1]);
    const double k = sub_rn(fma_rn(top, top_weight_over_modulus<P>(), ROUND), ROUND);
    FIELD_UNROLL
    for (int j = 0; j < L; ++j) x.limb[j] = fma_rn(-k, (double)P::modulus(j), x.limb[j]);  // exact: k is small
    FIELD_UNROLL
    for (int j = 0; j + 1 < L; ++j) {
        const double carry = sub_rn(fma_rn(x.limb[j], INVERSE_LIMB, ROUND), ROUND);
        x.limb[j] = fma_rn(-carry, LIMB, x.limb[j]);
        x.limb[j + 1] += carry;
    }
    return x;
}

template <class P>
__host__ __device__ __forceinline__ bool is_zero_reduced(const element<P>& x) {
    bool zero = true;
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) zero = zero && x.limb[k] == 0.0;
    return zero;
}

}  // namespace fp64_field
