// Probe: a Montgomery product whose limb products run on the FP64 pipe (fused multiply-adds of 51-bit limbs) and
// whose column sums run on the integer ALU, for Fr and Fq. Not part of the prover: bench/probe_fp64_product.py times
// it against field.cuh's product (32-bit limbs on the integer multiply-add pipe) in one call.
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
// (tests/test_probe_fp64_product.py), where __builtin_fma is IEEE's fused multiply-add, as fma.rn.f64 is.
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

// The constants that column k's terms carry, the product's and the reduction's (the same pairs): low parts of the
// pairs summing to k, high parts of those summing to k - 1.
__host__ __device__ constexpr u64 column_bias(int k, int limbs, int w) {
    return 2 * pairs_summing_to(k, limbs) * LOW_BITS + 2 * pairs_summing_to(k - 1, limbs) * high_bits(w);
}

// A field's parameters: LIMBS of LIMB_BITS; modulus(j), its limbs; M_INV = -m^-1 mod 2^LIMB_BITS; LAZY: products may
// stay in [0, 2m) (true where 4m < R: their inputs may then be below 2m too, the Montgomery bound T / R < 2m still
// holds). tests/test_probe_fp64_product.py recomputes every constant from the modulus.
struct fr_params {  // r = 0x73eda753...00000001, 255 bits: 2r > R = 2^255, so every product is fully reduced
    static constexpr int LIMBS = 5;
    static constexpr int LIMB_BITS = 51;
    static constexpr bool LAZY = false;
    static constexpr u64 M_INV = 0x7fffeffffffffull;
    __host__ __device__ static constexpr u64 modulus(int j) {
        return j == 0 ? 0x7ffff00000001ull : j == 1 ? 0x5fffcb7fdfffull : j == 2 ? 0x68760154ef690ull
             : j == 3 ? 0x6a4199cec0404ull : 0x73eda753299d7ull;
    }
};

struct fq_params {  // q = 0x1a0111ea...ffffaaab, 381 bits: 4q < R = 2^384
    static constexpr int LIMBS = 8;
    static constexpr int LIMB_BITS = 48;
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
__host__ __device__ constexpr u64 limb_mask() { return (1ull << P::LIMB_BITS) - 1; }

// limbs (each below 2^w) with top * 2^(w L) above them, a value below 2m: minus m if it is at least m.
template <class P>
__host__ __device__ __forceinline__ void subtract_modulus_if_above(u64 (&limbs)[P::LIMBS], i64 top) {
    u64 difference[P::LIMBS];
    i64 borrow = 0;
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) {
        const i64 v = (i64)limbs[k] - (i64)P::modulus(k) + borrow;
        difference[k] = (u64)v & limb_mask<P>();
        borrow = v >> P::LIMB_BITS;  // 0 or -1
    }
    const bool below_modulus = top + borrow < 0;
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) limbs[k] = below_modulus ? limbs[k] : difference[k];
}

// a b / R mod m: below m, or below 2m where P::LAZY (then a and b may be below 2m too). Separated operand scanning:
// the L^2 limb products into 2L columns, then L steps of the reduction, each adding q_i m 2^(w i), which clears
// column i, and moving column i's carry up.
template <class P>
__host__ __device__ __forceinline__ element<P> mont_mul(const element<P>& a, const element<P>& b) {
    constexpr int L = P::LIMBS, W = P::LIMB_BITS;
    u64 column[2 * L];
    FIELD_UNROLL
    for (int k = 0; k < 2 * L; ++k) column[k] = 0ull - column_bias(k, L, W);  // folded: k is a constant
    FIELD_UNROLL
    for (int i = 0; i < L; ++i) {
        FIELD_UNROLL
        for (int j = 0; j < L; ++j) add_product<W>(a.limb[i], b.limb[j], column[i + j], column[i + j + 1]);
    }
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
    for (int k = 0; k < L; ++k) {
        limbs[k] = column[L + k] & limb_mask<P>();
        if (k + 1 < L) column[L + k + 1] += (u64)((i64)column[L + k] >> W);
    }
    if (!P::LAZY) subtract_modulus_if_above<P>(limbs, (i64)column[2 * L - 1] >> W);
    element<P> out;
    FIELD_UNROLL
    for (int k = 0; k < L; ++k) out.limb[k] = limb_to_double(limbs[k]);
    return out;
}

template <class P>
__host__ __device__ __forceinline__ element<P> from_limbs(const u64* limbs) {
    element<P> x;
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) x.limb[k] = limb_to_double(limbs[k]);
    return x;
}

// x's limbs, fully reduced (below m).
template <class P>
__host__ __device__ __forceinline__ void to_limbs(const element<P>& x, u64* out) {
    u64 limbs[P::LIMBS];
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) limbs[k] = (u64)x.limb[k];
    if (P::LAZY) subtract_modulus_if_above<P>(limbs, 0);
    FIELD_UNROLL
    for (int k = 0; k < P::LIMBS; ++k) out[k] = limbs[k];
}

}  // namespace fp64_field
