// Prime fields of BLS12-381 in Montgomery form: Fr (scalars, 8 x 32-bit limbs) and Fq (base
// field, 12 limbs), one template for both (the shape of sppark's ff/mont_t.cuh).
//
// An element x is stored as the little-endian limbs of x * R mod m, R = 2^(32 N) (Montgomery
// form; P. L. Montgomery, "Modular multiplication without trial division", Math. Comp. 44, 1985).
// Every operation takes and returns fully reduced limbs (value in [0, m)), so equal elements have
// equal limbs and == is a limb comparison.
//
// Multiplication is CIOS, "coarsely integrated operand scanning" (C. K. Koc, T. Acar,
// B. S. Kaliski, "Analyzing and Comparing Montgomery Multiplication Algorithms", IEEE Micro 16(3),
// 1996, section 4). Both moduli have their top bit clear (m < 2^(32 N - 1)), which keeps the
// running CIOS sum below 2^(32 (N + 1)): N + 1 accumulator limbs suffice and the final result is
// below 2m, so one conditional subtraction finishes it.
//
// Two implementations of the same arithmetic:
// * device code (__CUDA_ARCH__): inline PTX carry chains (mad.lo.cc / madc.hi.cc, add.cc, sub.cc),
//   multiplication as CIOS with even/odd accumulators (mul_even_odd): 57.6 G Fr-mul/s and
//   26.3 G Fq-mul/s on an H200, against 36.6 / 17.2 for the row-by-row chains (bench/RESULTS_ntt.md, "Wide
//   multiply-adds in the Fr reduction");
// * host code, or device code built with -DFIELD_PORTABLE: plain C++ with 64-bit accumulators.
// The carry-chain code also runs on the host with every PTX instruction emulated
// (-DFIELD_EMULATE_PTX). tests/native/ checks the portable and the emulated carry-chain paths
// against Python ints on the CPU; tests/test_gpu_field.py checks every build on the GPU.
//
// NVRTC-compatible: no host standard headers. Also compiles as plain C++ (g++) for host tests.
#pragma once

#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
// A plain host compiler: the CUDA execution-space qualifiers mean nothing there.
#define __host__
#define __device__
#define __forceinline__ inline __attribute__((always_inline))
#define FIELD_UNROLL
#else
#define FIELD_UNROLL _Pragma("unroll")  // loops over limbs: unrolled, so limb arrays stay in registers
#endif

typedef unsigned int u32;
typedef unsigned long long u64;

#if defined(__CUDA_ARCH__) && !defined(FIELD_PORTABLE)
#define FIELD_USE_PTX 1
#else
#define FIELD_USE_PTX 0
#endif
// The carry-chain algorithms run on the device with PTX, or on the host with an exact emulation
// of each PTX instruction (-DFIELD_EMULATE_PTX, used by tests/native/).
#if FIELD_USE_PTX || defined(FIELD_EMULATE_PTX)
#define FIELD_USE_CARRY_CHAINS 1
#else
#define FIELD_USE_CARRY_CHAINS 0
#endif
// Lazy reduction (field_detail::mul_sub_lazy, fq2.cuh's product) rides on the even/odd carry chains.
#if FIELD_USE_CARRY_CHAINS && !defined(FIELD_MUL_SPLIT_CHAINS)
#define FIELD_LAZY_REDUCTION 1
#else
#define FIELD_LAZY_REDUCTION 0
#endif

// Fr: r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001.
struct fr_params {
    static constexpr int N = 8;
    static constexpr u32 M0_INV = 0xffffffffu;  // -r^-1 mod 2^32
    static __host__ __device__ __forceinline__ constexpr u32 modulus(int i) {
        const u32 v[N] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                          0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
        return v[i];
    }
    // R mod r: the Montgomery form of 1.
    static __host__ __device__ __forceinline__ constexpr u32 one(int i) {
        const u32 v[N] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                          0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
        return v[i];
    }
    // R^2 mod r: multiplying by it converts into Montgomery form.
    static __host__ __device__ __forceinline__ constexpr u32 r_squared(int i) {
        const u32 v[N] = {0xf3f29c6d, 0xc999e990, 0x87925c23, 0x2b6cedcb,
                          0x7254398f, 0x05d31496, 0x9f59ff11, 0x0748d9d9};
        return v[i];
    }
    // r - 2: the Fermat inversion exponent.
    static __host__ __device__ __forceinline__ constexpr u32 inverse_exponent(int i) {
        const u32 v[N] = {0xffffffff, 0xfffffffe, 0xfffe5bfe, 0x53bda402,
                          0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
        return v[i];
    }
};

// Fq: p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab.
struct fq_params {
    static constexpr int N = 12;
    static constexpr u32 M0_INV = 0xfffcfffdu;  // -p^-1 mod 2^32
    static __host__ __device__ __forceinline__ constexpr u32 modulus(int i) {
        const u32 v[N] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
                          0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
        return v[i];
    }
    static __host__ __device__ __forceinline__ constexpr u32 one(int i) {
        const u32 v[N] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857,
                          0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
        return v[i];
    }
    static __host__ __device__ __forceinline__ constexpr u32 r_squared(int i) {
        const u32 v[N] = {0x1c341746, 0xf4df1f34, 0x09d104f1, 0x0a76e6a6, 0x4c95b6d5, 0x8de5476c,
                          0x939d83c0, 0x67eb88a9, 0xb519952d, 0x9a793e85, 0x92cae3aa, 0x11988fe5};
        return v[i];
    }
    static __host__ __device__ __forceinline__ constexpr u32 inverse_exponent(int i) {
        const u32 v[N] = {0xffffaaa9, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
                          0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
        return v[i];
    }
};

namespace field_detail {

#if defined(__CUDACC__)
// 2^32 - 1 where ptxas cannot see it (m0_inv_multiplier, below). Defined in both of nvcc's passes: its host stub
// registers the variable.
__constant__ u32 all_ones_in_constant_memory = 0xffffffffu;
#endif

constexpr u32 BITS_PER_LIMB = 32;

// ---------------------------------------------------------------- portable C++ (64-bit accumulators)

// out = t - m if t >= m else t, for t < 2m (the "final subtraction" of Montgomery's algorithm).
template <class P>
__host__ __device__ __forceinline__ void reduce_once_portable(u32* out, const u32* t) {
    u32 d[P::N];
    u64 borrow = 0;
FIELD_UNROLL
    for (int j = 0; j < P::N; ++j) {
        u64 diff = (u64)t[j] - P::modulus(j) - borrow;
        d[j] = (u32)diff;
        borrow = (diff >> 63) & 1;  // wrapped below zero
    }
FIELD_UNROLL
    for (int j = 0; j < P::N; ++j) out[j] = borrow ? t[j] : d[j];
}

// out = a * b * R^-1 mod m: CIOS (Koc-Acar-Kaliski 1996), one multiply row then one reduction row per limb of b.
template <class P>
__host__ __device__ __forceinline__ void mul_portable(u32* out, const u32* a, const u32* b) {
    constexpr int N = P::N;
    u32 t[N + 2];
FIELD_UNROLL
    for (int j = 0; j < N + 2; ++j) t[j] = 0;
FIELD_UNROLL
    for (int i = 0; i < N; ++i) {
        u64 carry = 0;
FIELD_UNROLL
        for (int j = 0; j < N; ++j) {
            u64 s = (u64)a[j] * b[i] + t[j] + carry;
            t[j] = (u32)s;
            carry = s >> BITS_PER_LIMB;
        }
        u64 top = (u64)t[N] + carry;
        t[N] = (u32)top;
        t[N + 1] = (u32)(top >> BITS_PER_LIMB);

        u32 q = t[0] * P::M0_INV;  // makes t + q*m divisible by 2^32
        carry = ((u64)q * P::modulus(0) + t[0]) >> BITS_PER_LIMB;
FIELD_UNROLL
        for (int j = 1; j < N; ++j) {
            u64 s = (u64)q * P::modulus(j) + t[j] + carry;
            t[j - 1] = (u32)s;
            carry = s >> BITS_PER_LIMB;
        }
        top = (u64)t[N] + carry;
        t[N - 1] = (u32)top;
        t[N] = t[N + 1] + (u32)(top >> BITS_PER_LIMB);
    }
    reduce_once_portable<P>(out, t);  // t < 2m: t[N] is 0 here
}

template <class P>
__host__ __device__ __forceinline__ void add_portable(u32* out, const u32* a, const u32* b) {
    u32 t[P::N];
    u64 carry = 0;
FIELD_UNROLL
    for (int j = 0; j < P::N; ++j) {
        u64 s = (u64)a[j] + b[j] + carry;
        t[j] = (u32)s;
        carry = s >> BITS_PER_LIMB;
    }
    reduce_once_portable<P>(out, t);  // a + b < 2m < 2^(32N): no carry out
}

template <class P>
__host__ __device__ __forceinline__ void sub_portable(u32* out, const u32* a, const u32* b) {
    u32 d[P::N];
    u64 borrow = 0;
FIELD_UNROLL
    for (int j = 0; j < P::N; ++j) {
        u64 diff = (u64)a[j] - b[j] - borrow;
        d[j] = (u32)diff;
        borrow = (diff >> 63) & 1;
    }
    u32 mask = 0u - (u32)borrow;  // add m back when a < b
    u64 carry = 0;
FIELD_UNROLL
    for (int j = 0; j < P::N; ++j) {
        u64 s = (u64)d[j] + (P::modulus(j) & mask) + carry;
        out[j] = (u32)s;
        carry = s >> BITS_PER_LIMB;
    }
}

#if FIELD_USE_CARRY_CHAINS
// ---------------------------------------------------------------- carry-chain primitives
// One function per PTX instruction. On the device each is one volatile asm statement (volatile
// asm keeps its order, so the carry flag CC.CF flows from one statement to the next); on the host
// (FIELD_EMULATE_PTX, for tests/native/) each computes the same result with an explicit flag, so
// the algorithms below run and are tested on the CPU exactly as the device runs them.
#if FIELD_USE_PTX
struct carry_flag {};  // the hardware flag CC.CF
#define FIELD_PTX_3(op, d, a, b) asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define FIELD_PTX_4(op, d, a, b, c) asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
__device__ __forceinline__ u32 add_cc(u32 a, u32 b, carry_flag&) { u32 d; FIELD_PTX_3("add.cc.u32", d, a, b); return d; }
__device__ __forceinline__ u32 addc_cc(u32 a, u32 b, carry_flag&) { u32 d; FIELD_PTX_3("addc.cc.u32", d, a, b); return d; }
__device__ __forceinline__ u32 addc(u32 a, u32 b, carry_flag&) { u32 d; FIELD_PTX_3("addc.u32", d, a, b); return d; }
__device__ __forceinline__ u32 sub_cc(u32 a, u32 b, carry_flag&) { u32 d; FIELD_PTX_3("sub.cc.u32", d, a, b); return d; }
__device__ __forceinline__ u32 subc_cc(u32 a, u32 b, carry_flag&) { u32 d; FIELD_PTX_3("subc.cc.u32", d, a, b); return d; }
__device__ __forceinline__ u32 subc(u32 a, u32 b, carry_flag&) { u32 d; FIELD_PTX_3("subc.u32", d, a, b); return d; }
__device__ __forceinline__ u32 mad_lo_cc(u32 a, u32 b, u32 c, carry_flag&) { u32 d; FIELD_PTX_4("mad.lo.cc.u32", d, a, b, c); return d; }
__device__ __forceinline__ u32 madc_lo_cc(u32 a, u32 b, u32 c, carry_flag&) { u32 d; FIELD_PTX_4("madc.lo.cc.u32", d, a, b, c); return d; }
__device__ __forceinline__ u32 mad_hi_cc(u32 a, u32 b, u32 c, carry_flag&) { u32 d; FIELD_PTX_4("mad.hi.cc.u32", d, a, b, c); return d; }
__device__ __forceinline__ u32 madc_hi_cc(u32 a, u32 b, u32 c, carry_flag&) { u32 d; FIELD_PTX_4("madc.hi.cc.u32", d, a, b, c); return d; }
__device__ __forceinline__ u32 madc_hi(u32 a, u32 b, u32 c, carry_flag&) { u32 d; FIELD_PTX_4("madc.hi.u32", d, a, b, c); return d; }
#undef FIELD_PTX_3
#undef FIELD_PTX_4
#else
struct carry_flag {
    u32 cf = 0;
};
__host__ __device__ __forceinline__ u32 carry_out(u64 s, carry_flag& f) { f.cf = (u32)(s >> BITS_PER_LIMB); return (u32)s; }
__host__ __device__ __forceinline__ u32 borrow_out(u64 s, carry_flag& f) { f.cf = (u32)(s >> 63); return (u32)s; }
__host__ __device__ __forceinline__ u32 lo(u32 a, u32 b) { return a * b; }
__host__ __device__ __forceinline__ u32 hi(u32 a, u32 b) { return (u32)(((u64)a * b) >> BITS_PER_LIMB); }
__host__ __device__ __forceinline__ u32 add_cc(u32 a, u32 b, carry_flag& f) { return carry_out((u64)a + b, f); }
__host__ __device__ __forceinline__ u32 addc_cc(u32 a, u32 b, carry_flag& f) { return carry_out((u64)a + b + f.cf, f); }
__host__ __device__ __forceinline__ u32 addc(u32 a, u32 b, carry_flag& f) { return a + b + f.cf; }
__host__ __device__ __forceinline__ u32 sub_cc(u32 a, u32 b, carry_flag& f) { return borrow_out((u64)a - b, f); }
__host__ __device__ __forceinline__ u32 subc_cc(u32 a, u32 b, carry_flag& f) { return borrow_out((u64)a - b - f.cf, f); }
__host__ __device__ __forceinline__ u32 subc(u32 a, u32 b, carry_flag& f) { return a - b - f.cf; }
__host__ __device__ __forceinline__ u32 mad_lo_cc(u32 a, u32 b, u32 c, carry_flag& f) { return carry_out((u64)lo(a, b) + c, f); }
__host__ __device__ __forceinline__ u32 madc_lo_cc(u32 a, u32 b, u32 c, carry_flag& f) { return carry_out((u64)lo(a, b) + c + f.cf, f); }
__host__ __device__ __forceinline__ u32 mad_hi_cc(u32 a, u32 b, u32 c, carry_flag& f) { return carry_out((u64)hi(a, b) + c, f); }
__host__ __device__ __forceinline__ u32 madc_hi_cc(u32 a, u32 b, u32 c, carry_flag& f) { return carry_out((u64)hi(a, b) + c + f.cf, f); }
__host__ __device__ __forceinline__ u32 madc_hi(u32 a, u32 b, u32 c, carry_flag& f) { return hi(a, b) + c + f.cf; }
#endif

// ---------------------------------------------------------------- carry-chain arithmetic

// out = t - m if t >= m else t, for t < 2m.
template <class P>
__host__ __device__ __forceinline__ void reduce_once_cc(u32* out, const u32* t) {
    constexpr int N = P::N;
    carry_flag f;
    u32 d[N];
    d[0] = sub_cc(t[0], P::modulus(0), f);
FIELD_UNROLL
    for (int j = 1; j < N; ++j) d[j] = subc_cc(t[j], P::modulus(j), f);
    u32 borrow = subc(0, 0, f);  // 0xffffffff when t < m
FIELD_UNROLL
    for (int j = 0; j < N; ++j) out[j] = borrow ? t[j] : d[j];
}

template <class P>
__host__ __device__ __forceinline__ void add_cc_chain(u32* out, const u32* a, const u32* b) {
    constexpr int N = P::N;
    carry_flag f;
    u32 t[N];
    t[0] = add_cc(a[0], b[0], f);
FIELD_UNROLL
    for (int j = 1; j < N; ++j) t[j] = addc_cc(a[j], b[j], f);
    reduce_once_cc<P>(out, t);  // a + b < 2m < 2^(32N): the final carry is 0
}

template <class P>
__host__ __device__ __forceinline__ void sub_cc_chain(u32* out, const u32* a, const u32* b) {
    constexpr int N = P::N;
    carry_flag f;
    u32 d[N];
    d[0] = sub_cc(a[0], b[0], f);
FIELD_UNROLL
    for (int j = 1; j < N; ++j) d[j] = subc_cc(a[j], b[j], f);
    u32 mask = subc(0, 0, f);  // 0xffffffff when a < b: add m back
    d[0] = add_cc(d[0], P::modulus(0) & mask, f);
FIELD_UNROLL
    for (int j = 1; j < N - 1; ++j) d[j] = addc_cc(d[j], P::modulus(j) & mask, f);
    d[N - 1] = addc(d[N - 1], P::modulus(N - 1) & mask, f);
FIELD_UNROLL
    for (int j = 0; j < N; ++j) out[j] = d[j];
}

// CIOS with even/odd accumulators (the arrangement of sppark's ff/mont_t.cuh, supranational,
// Apache-2.0; derived and bounded afresh here). The running sum is T = E + 2^32 O:
//   E holds the products a_j b_i (and q m_j) of even j, each a (lo, hi) limb pair at limbs (j, j+1);
//   O holds those of odd j at limbs (j - 1, j) of O, i.e. one limb up in T.
// The lo and hi halves of one product are neighbours in one carry chain, which ptxas can issue as
// one 32x32+64-bit multiply-add; splitting every row into a low-half chain and a high-half chain
// (mul_split_chains below) cannot be fused that way.
// After row i's reduction E[0] = 0, and T / 2^32 = O + E[1] + 2^32 (E[2] + E[3] 2^32 + ...): so the
// next row uses O as its E (adding E[1] at the head of its first chain) and E shifted down by two
// limbs as its O (the shift folded into that chain's operands), i.e. the arrays swap roles.
// Bounds (m < 2^(32N - 1)): T < 2m before a row, T + a b_i + q m < 2^(32(N+1)), so O < 2^(32N)
// never overflows and E's carries out of limb N - 1 are added into O[N - 1] (the same weight 2^(32N)).
template <int N>
__host__ __device__ __forceinline__ void mul_pairs_first(u32* acc, const u32* a, u32 bi) {
    // acc = sum over j = 0, 2, 4, ... of a_j bi 2^(32 j) (a points at the first limb of the parity)
FIELD_UNROLL
    for (int j = 0; j < N; j += 2) {
        u64 product = (u64)a[j] * bi;  // one 32x32 -> 64-bit product (IMAD.WIDE), not a low and a high half apart
        acc[j] = (u32)product;
        acc[j + 1] = (u32)(product >> BITS_PER_LIMB);
    }
}

// acc += sum over j = 0, 2, ... of a_j bi 2^(32 j), a fresh chain; returns with the final carry in f. Limbs a_j
// with j < first are zero (sqr_even_odd's rows) and take no instruction; returns false when no limb was left (then
// f holds no carry of this chain).
template <int N>
__host__ __device__ __forceinline__ bool mad_pairs(u32* acc, const u32* a, u32 bi, carry_flag& f, int first = 0) {
    bool chained = false;
FIELD_UNROLL
    for (int j = 0; j < N; j += 2) {
        if (j < first) continue;  // resolved at compile time: the loops are unrolled and first is a constant
        acc[j] = chained ? madc_lo_cc(a[j], bi, acc[j], f) : mad_lo_cc(a[j], bi, acc[j], f);
        acc[j + 1] = madc_hi_cc(a[j], bi, acc[j + 1], f);
        chained = true;
    }
    return chained;
}

// acc[k] = acc[k + 2] + (sum over odd j of a_j bi 2^(32 (j - 1)))[k], continuing the chain in f:
// the two-limb shift of the old E into the new O, fused with the new row's odd products. Limbs a_j with
// j < first are zero: the shift then only carries (first <= N - 1, so the top product always remains).
template <int N>
__host__ __device__ __forceinline__ void madc_pairs_shift2(u32* acc, const u32* a_odd, u32 bi, carry_flag& f,
                                                          int first = 0) {
FIELD_UNROLL
    for (int j = 0; j < N - 2; j += 2) {
        if (j + 1 < first) {
            acc[j] = addc_cc(acc[j + 2], 0, f);
            acc[j + 1] = addc_cc(acc[j + 3], 0, f);
        } else {
            acc[j] = madc_lo_cc(a_odd[j], bi, acc[j + 2], f);
            acc[j + 1] = madc_hi_cc(a_odd[j], bi, acc[j + 3], f);
        }
    }
    acc[N - 2] = madc_lo_cc(a_odd[N - 2], bi, 0, f);
    acc[N - 1] = madc_hi(a_odd[N - 2], bi, 0, f);  // O < 2^(32N): no carry out
}

// The multiplier of q = T_0 m' in the even/odd rows. Fr's m' is 2^32 - 1: seen as a constant, ptxas computes q as
// -T_0 and then multiplies it by the modulus limbs in separate low and high halves (IMAD.X + IMAD.HI.U32.X, 48 pairs
// an Fr product) instead of one wide multiply-add each; read from constant memory, which ptxas cannot see through,
// the same source keeps them wide. With mul_pairs_first's one wide product, a kernel of one Fr product went from 64
// to 112 wide multiply-adds and from 280 to 216 SASS instructions (cuobjdump, nvcc 13.0), and the Fr product rate
// from 48.7 to 57.6 G/s on an H200 (bench/RESULTS_ntt.md, "Wide multiply-adds in the Fr reduction"). Fq's m' is
// not special and stays an immediate.
template <class P>
__host__ __device__ __forceinline__ u32 m0_inv_multiplier() {
#if defined(__CUDA_ARCH__)
    if constexpr (P::M0_INV == 0xffffffffu) return all_ones_in_constant_memory;
#endif
    return P::M0_INV;
}

// The reduction of one row: q = E[0] (-m^-1) mod 2^32; E += q m_even, O += q m_odd; E[0] becomes 0.
template <class P>
__host__ __device__ __forceinline__ void reduce_pairs(u32* even, u32* odd) {
    constexpr int N = P::N;
    u32 m_even[N / 2 * 2], m_odd[N / 2 * 2];
FIELD_UNROLL
    for (int j = 0; j < N; j += 2) {
        m_even[j] = P::modulus(j);
        m_odd[j] = P::modulus(j + 1);
    }
    u32 q = even[0] * m0_inv_multiplier<P>();
    carry_flag f;
    mad_pairs<N>(odd, m_odd, q, f);  // O < 2^(32N): its final carry is 0
    mad_pairs<N>(even, m_even, q, f);
    odd[N - 1] = addc(odd[N - 1], 0, f);  // E's carry out of 2^(32N)
}

// One row i >= 1 with roles (even, odd): T <- T / 2^32 (from the previous row) + a bi.
// Limbs a_j with j < first are zero.
template <int N>
__host__ __device__ __forceinline__ void mul_row_pairs(u32* even, u32* odd, const u32* a_even, const u32* a_odd,
                                                      u32 bi, int first = 0) {
    // here even = the previous O, odd = the previous E (whose limb 0 is 0)
    carry_flag f;
    even[0] = add_cc(even[0], odd[1], f);  // + E[1], carrying into weight 2^32 = odd[0]
    madc_pairs_shift2<N>(odd, a_odd, bi, f, first);
    if (mad_pairs<N>(even, a_even, bi, f, first)) odd[N - 1] = addc(odd[N - 1], 0, f);
}

// t = x + y / 2^32 (N limbs), the running sum T / 2^32 = O + E / 2^32 after a last reduction row left E = y (whose
// limb 0 is 0) and O = x; below 2m, reduced by the caller.
template <int N>
__host__ __device__ __forceinline__ void fold_even_odd(u32* t, const u32* x, const u32* y) {
    carry_flag f;
    t[0] = add_cc(x[0], y[1], f);
FIELD_UNROLL
    for (int j = 1; j < N - 1; ++j) t[j] = addc_cc(x[j], y[j + 1], f);
    t[N - 1] = addc(x[N - 1], 0, f);
}

// The CIOS rows over per-row multiplicands: row i adds v^(i) * b_i, where row(i, v_even, v_odd, b_i) gives v^(i)'s
// even and odd limbs (v_even[j] = v_j, v_odd[j] = v_{j+1}, j even) and b_i, and returns the first limb that may be
// non-zero (every v_j below it is 0 and costs no product). mul_even_odd: v^(i) = a for every row, and the bounds
// above; sqr_even_odd states its own.
template <class P, class Row>
__host__ __device__ __forceinline__ void cios_rows_even_odd(u32* out, Row row) {
    constexpr int N = P::N;
    static_assert(N % 2 == 0, "the even/odd split needs an even number of limbs");
    u32 v_even[N], v_odd[N], bi;
    u32 x[N], y[N];  // the two accumulators; rows alternate which is E
    row(0, v_even, v_odd, bi);  // row 0's v_0 is never 0 here (both callers' v^(0) = a up to doubling)
    mul_pairs_first<N>(x, v_even, bi);
    mul_pairs_first<N>(y, v_odd, bi);
    reduce_pairs<P>(x, y);
FIELD_UNROLL
    for (int i = 1; i < N; ++i) {  // unrolled: the parity test is resolved at compile time
        int first = row(i, v_even, v_odd, bi);
        if (i & 1) {
            mul_row_pairs<N>(y, x, v_even, v_odd, bi, first);
            reduce_pairs<P>(y, x);
        } else {
            mul_row_pairs<N>(x, y, v_even, v_odd, bi, first);
            reduce_pairs<P>(x, y);
        }
    }
    // N even: the last row (N - 1) had E = y, O = x: the result is x + y / 2^32
    u32 t[N];
    fold_even_odd<N>(t, x, y);
    reduce_once_cc<P>(out, t);
}

template <class P>
__host__ __device__ __forceinline__ void mul_even_odd(u32* out, const u32* a, const u32* b) {
    cios_rows_even_odd<P>(out, [&](int i, u32* v_even, u32* v_odd, u32& bi) {
FIELD_UNROLL
        for (int j = 0; j < P::N; j += 2) {
            v_even[j] = a[j];
            v_odd[j] = a[j + 1];
        }
        bi = b[i];
        return 0;
    });
}

// a^2 with the symmetric products once: a^2 = sum_i a_i (a_i 2^(32 i) + 2 sum_{j>i} a_j 2^(32 j)), so row i's
// multiplicand v^(i) has limbs 0 below i (skipped: N (N + 1) / 2 limb products instead of N^2), a_i at i, and the
// limbs of 2 sum_{j>i} a_j 2^(32 j) above: a_{i+1} << 1 at i + 1, then the limbs d_j of 2a (2a < 2^(32 N) as
// a < m < 2^(32 N - 1)). Bounds: v^(i) < 2a, and before row i the running sum is below 2a + m < 3m (its rows so
// far add up to less than 2^(32 i) 2a); so T + v^(i) b_i + q m < 3m (2^32 + 1) < 2^(32 (N + 1)) needs m < 2^(32 N) / 3
// (asserted below as m < 2^(32 N - 2): Fq, not Fr). The result is a^2 R^-1 + (a multiple of m) below 2m, as for
// a product, so one conditional subtraction finishes it.
template <class P>
__host__ __device__ __forceinline__ void sqr_even_odd(u32* out, const u32* a) {
    constexpr int N = P::N;
    static_assert(P::modulus(N - 1) < (1u << (BITS_PER_LIMB - 2)), "sqr_even_odd needs m < 2^(32 N - 2)");
    u32 d[N];
FIELD_UNROLL
    for (int j = 0; j < N; ++j) d[j] = (a[j] << 1) | (j ? a[j - 1] >> (BITS_PER_LIMB - 1) : 0u);
    cios_rows_even_odd<P>(out, [&](int i, u32* v_even, u32* v_odd, u32& bi) {
FIELD_UNROLL
        for (int j = 0; j < N; ++j) {
            u32 v = j < i ? 0u : j == i ? a[j] : j == i + 1 ? a[j] << 1 : d[j];
            if (j & 1) v_odd[j - 1] = v; else v_even[j] = v;
        }
        bi = a[i];
        return i;
    });
}

// The plain CIOS row by row, each row as a low-half chain and a high-half chain (kept for comparison:
// bench/bench_ntt.py times it with -DFIELD_MUL_SPLIT_CHAINS). t has N + 1 limbs; t[N] = 0 between rows.
template <class P>
__host__ __device__ __forceinline__ void mul_split_chains(u32* out, const u32* a, const u32* b) {
    constexpr int N = P::N;
    u32 t[N + 1];
FIELD_UNROLL
    for (int j = 0; j <= N; ++j) t[j] = 0;
FIELD_UNROLL
    for (int i = 0; i < N; ++i) {
        carry_flag f;
        u32 bi = b[i];
        t[0] = mad_lo_cc(a[0], bi, t[0], f);  // t += a bi: low halves, then high halves one limb up
FIELD_UNROLL
        for (int j = 1; j < N; ++j) t[j] = madc_lo_cc(a[j], bi, t[j], f);
        t[N] = addc(t[N], 0, f);
        t[1] = mad_hi_cc(a[0], bi, t[1], f);
FIELD_UNROLL
        for (int j = 1; j < N - 1; ++j) t[j + 1] = madc_hi_cc(a[j], bi, t[j + 1], f);
        t[N] = madc_hi(a[N - 1], bi, t[N], f);
        u32 q = t[0] * P::M0_INV;  // t = (t + q m) / 2^32, the shift folded into the high chain
        t[0] = mad_lo_cc(q, P::modulus(0), t[0], f);
FIELD_UNROLL
        for (int j = 1; j < N; ++j) t[j] = madc_lo_cc(q, P::modulus(j), t[j], f);
        t[N] = addc(t[N], 0, f);
        t[0] = mad_hi_cc(q, P::modulus(0), t[1], f);
FIELD_UNROLL
        for (int j = 1; j < N - 1; ++j) t[j] = madc_hi_cc(q, P::modulus(j), t[j + 1], f);
        t[N - 1] = madc_hi(q, P::modulus(N - 1), t[N], f);
        t[N] = 0;
    }
    reduce_once_cc<P>(out, t);
}

// ---------------------------------------------------------------- lazy reduction: products kept wide, reduced once
// A sum or difference of products needs one Montgomery reduction, not one a product (lazy reduction: D. F. Aranha,
// K. Karabina, P. Longa, C. H. Gebotys, J. Lopez, "Faster explicit formulas for computing pairings over ordinary
// curves", EUROCRYPT 2011, section 3). A reduction is half of a product's limb products: ec.cuh's a b - c d takes 2
// products and 1 reduction instead of 2 and 2, fq2.cuh's product 3 and 2 instead of 3 and 3. The wide values are
// integers of 2N limbs, never elements.

// out (2N limbs) = sum over k of a_k b_k, for a sum below 2^(64N): schoolbook rows on two accumulators split by
// the parity of each product's limb i + j, so that every (lo, hi) pair sits at an even limb of its accumulator, as in
// the CIOS above (ptxas keeps each pair in one register pair and fuses it into one wide multiply-add):
//   E holds the products of even i + j at limbs (i + j, i + j + 1);
//   O holds those of odd i + j at limbs (i + j - 1, i + j) of O, one limb up in T = E + 2^32 O.
// Row i's chain into E takes a_j of the parity of i, the chain into O the other parity. Each chain starts at the
// lowest limb its products reach and carries into the limb above its top, which holds at most the carries of the
// same row's other products and of the row before (both accumulators start at 0).
template <int N, int K>
__host__ __device__ __forceinline__ void sum_of_products_wide(u32* out, const u32* const (&a)[K],
                                                              const u32* const (&b)[K]) {
    u32 a_even[K][N], a_odd[K][N];  // a_even[k][j] = a_k,j and a_odd[k][j] = a_k,j+1 for even j
FIELD_UNROLL
    for (int k = 0; k < K; ++k) {
FIELD_UNROLL
        for (int j = 0; j < N; j += 2) {
            a_even[k][j] = a[k][j];
            a_odd[k][j] = a[k][j + 1];
        }
    }
    u32 e[2 * N + 2], o[2 * N + 2];
FIELD_UNROLL
    for (int j = 0; j < 2 * N + 2; ++j) e[j] = o[j] = 0;
FIELD_UNROLL
    for (int i = 0; i < N; ++i) {
        const int e_start = i & 1 ? i + 1 : i;  // i odd: a_j of odd j, at limbs i + j (even) from i + 1
        const int o_start = i & 1 ? i - 1 : i;  // i odd: a_j of even j, at limbs i + j - 1 of O from i - 1
FIELD_UNROLL
        for (int k = 0; k < K; ++k) {
            carry_flag f;
            mad_pairs<N>(e + e_start, i & 1 ? a_odd[k] : a_even[k], b[k][i], f);
            e[e_start + N] = addc(e[e_start + N], 0, f);
            mad_pairs<N>(o + o_start, i & 1 ? a_even[k] : a_odd[k], b[k][i], f);
            o[o_start + N] = addc(o[o_start + N], 0, f);
        }
    }
    carry_flag f;  // T = E + 2^32 O < 2^(64N): the final carry and the limbs above are 0
    out[0] = e[0];
    out[1] = add_cc(e[1], o[0], f);
FIELD_UNROLL
    for (int k = 2; k < 2 * N - 1; ++k) out[k] = addc_cc(e[k], o[k - 1], f);
    out[2 * N - 1] = addc(e[2 * N - 1], o[2 * N - 2], f);
}

// out = a + b over L limbs, for a + b < 2^(32L) (the wide sums below 2^(64N); two elements' sum below 2m, unreduced).
template <int L>
__host__ __device__ __forceinline__ void add_limbs(u32* out, const u32* a, const u32* b) {
    carry_flag f;
    out[0] = add_cc(a[0], b[0], f);
FIELD_UNROLL
    for (int k = 1; k < L - 1; ++k) out[k] = addc_cc(a[k], b[k], f);
    out[L - 1] = addc(a[L - 1], b[L - 1], f);
}

// out = a - b over L limbs, for a >= b.
template <int L>
__host__ __device__ __forceinline__ void sub_limbs(u32* out, const u32* a, const u32* b) {
    carry_flag f;
    out[0] = sub_cc(a[0], b[0], f);
FIELD_UNROLL
    for (int k = 1; k < L - 1; ++k) out[k] = subc_cc(a[k], b[k], f);
    out[L - 1] = subc(a[L - 1], b[L - 1], f);
}

// out = a - b (2N limbs), plus m R when a < b: for a, b < m R the result is a - b mod m R, again below m R.
template <class P>
__host__ __device__ __forceinline__ void sub_wide_mod(u32* out, const u32* a, const u32* b) {
    constexpr int N = P::N;
    carry_flag f;
    out[0] = sub_cc(a[0], b[0], f);
FIELD_UNROLL
    for (int k = 1; k < 2 * N; ++k) out[k] = subc_cc(a[k], b[k], f);
    u32 mask = subc(0, 0, f);  // 0xffffffff when a < b
    u32 m_or_0[N];
FIELD_UNROLL
    for (int j = 0; j < N; ++j) m_or_0[j] = P::modulus(j) & mask;
    add_limbs<N>(out + N, out + N, m_or_0);
}

// out = m - a (N limbs) without reduction, for a < m: in (0, m], the negation that keeps a product non-negative.
template <class P>
__host__ __device__ __forceinline__ void negate_unreduced(u32* out, const u32* a) {
    u32 m[P::N];
FIELD_UNROLL
    for (int j = 0; j < P::N; ++j) m[j] = P::modulus(j);
    sub_limbs<P::N>(out, m, a);
}

// One reduction row's shift, with no product: from T / 2^32 = O + E[1] + 2^32 (E[2] + E[3] 2^32 + ...) (E[0] = 0
// after the previous reduction), the previous O becomes E with E[1] added at its head, and the previous E shifted
// down by two limbs becomes O; mul_row_pairs with a zero multiplier, which redc_even_odd's rows are.
template <int N>
__host__ __device__ __forceinline__ void shift_row_pairs(u32* even, u32* odd) {
    carry_flag f;  // here even = the previous O, odd = the previous E
    even[0] = add_cc(even[0], odd[1], f);  // carrying into weight 2^32 = odd[0]
FIELD_UNROLL
    for (int k = 0; k < N - 2; ++k) odd[k] = addc_cc(odd[k + 2], 0, f);
    odd[N - 2] = addc(0, 0, f);
    odd[N - 1] = 0;
}

// out = t R^-1 mod m for t (2N limbs) < m R: Montgomery's REDC. With t = t_lo + R t_hi, t R^-1 = t_lo R^-1 + t_hi:
// the CIOS reduction rows on t_lo alone (E = t_lo, O = 0; no products) leave (t_lo + Q m) / R <= m, and t_hi < m,
// so the sum is below 2m and one conditional subtraction finishes it.
template <class P>
__host__ __device__ __forceinline__ void redc_even_odd(u32* out, const u32* t) {
    constexpr int N = P::N;
    u32 x[N], y[N];  // the two accumulators; rows alternate which is E
FIELD_UNROLL
    for (int j = 0; j < N; ++j) {
        x[j] = t[j];
        y[j] = 0;
    }
    reduce_pairs<P>(x, y);
FIELD_UNROLL
    for (int i = 1; i < N; ++i) {  // unrolled: the parity test is resolved at compile time
        if (i & 1) {
            shift_row_pairs<N>(y, x);
            reduce_pairs<P>(y, x);
        } else {
            shift_row_pairs<N>(x, y);
            reduce_pairs<P>(x, y);
        }
    }
    // N even: the last row had E = y, O = x: (t_lo + Q m) / R = x + y / 2^32, then + t_hi
    u32 s[N];
    fold_even_odd<N>(s, x, y);
    add_limbs<N>(s, s, t + N);
    reduce_once_cc<P>(out, s);
}

// out = (a b - c d) R^-1 mod m with one reduction: a b + c (m - d) is congruent to a b - c d, non-negative and
// below 2m^2 < m R, so both products accumulate into one wide sum.
template <class P>
__host__ __device__ __forceinline__ void mul_sub_lazy(u32* out, const u32* a, const u32* b, const u32* c,
                                                     const u32* d) {
    constexpr int N = P::N;
    u32 neg_d[N], t[2 * N];
    negate_unreduced<P>(neg_d, d);
    sum_of_products_wide<N, 2>(t, {a, c}, {b, neg_d});
    redc_even_odd<P>(out, t);
}

template <class P>
__host__ __device__ __forceinline__ void mul_cc_chain(u32* out, const u32* a, const u32* b) {
#ifdef FIELD_MUL_SPLIT_CHAINS
    mul_split_chains<P>(out, a, b);
#else
    mul_even_odd<P>(out, a, b);
#endif
}
#endif  // FIELD_USE_CARRY_CHAINS

}  // namespace field_detail

template <class P>
struct alignas(16) mont_t {  // 16-byte alignment lets the compiler use 128-bit loads (32 and 48 bytes are multiples)
    static constexpr int N = P::N;  // number of 32-bit limbs
    u32 l[P::N];                    // little-endian limbs of x * 2^(32N) mod m

    static __host__ __device__ __forceinline__ mont_t zero() {
        mont_t z;
FIELD_UNROLL
        for (int j = 0; j < N; ++j) z.l[j] = 0;
        return z;
    }

    // 1 in Montgomery form: R mod m.
    static __host__ __device__ __forceinline__ mont_t one() {
        mont_t o;
FIELD_UNROLL
        for (int j = 0; j < N; ++j) o.l[j] = P::one(j);
        return o;
    }

    // a * b * R^-1 mod m (Montgomery product, CIOS): for Montgomery-form inputs, the form of the product.
    friend __host__ __device__ __forceinline__ mont_t operator*(const mont_t& a, const mont_t& b) {
        mont_t out;
#if FIELD_USE_CARRY_CHAINS
        field_detail::mul_cc_chain<P>(out.l, a.l, b.l);
#else
        field_detail::mul_portable<P>(out.l, a.l, b.l);
#endif
        return out;
    }

    // a + b mod m.
    friend __host__ __device__ __forceinline__ mont_t operator+(const mont_t& a, const mont_t& b) {
        mont_t out;
#if FIELD_USE_CARRY_CHAINS
        field_detail::add_cc_chain<P>(out.l, a.l, b.l);
#else
        field_detail::add_portable<P>(out.l, a.l, b.l);
#endif
        return out;
    }

    // a - b mod m.
    friend __host__ __device__ __forceinline__ mont_t operator-(const mont_t& a, const mont_t& b) {
        mont_t out;
#if FIELD_USE_CARRY_CHAINS
        field_detail::sub_cc_chain<P>(out.l, a.l, b.l);
#else
        field_detail::sub_portable<P>(out.l, a.l, b.l);
#endif
        return out;
    }

    __host__ __device__ __forceinline__ mont_t& operator+=(const mont_t& b) { return *this = *this + b; }
    __host__ __device__ __forceinline__ mont_t& operator-=(const mont_t& b) { return *this = *this - b; }
    __host__ __device__ __forceinline__ mont_t& operator*=(const mont_t& b) { return *this = *this * b; }

    // x^2 mod m: with the carry chains and a modulus below 2^(32 N - 2) (Fq), the CIOS rows with the symmetric
    // products once (sqr_even_odd); otherwise (Fr, the portable path) the product with itself.
    __host__ __device__ __forceinline__ mont_t sqr() const {
#if FIELD_USE_CARRY_CHAINS && !defined(FIELD_MUL_SPLIT_CHAINS)
        if constexpr (P::modulus(N - 1) < (1u << (field_detail::BITS_PER_LIMB - 2))) {
            mont_t out;
            field_detail::sqr_even_odd<P>(out.l, l);
            return out;
        }
#endif
        return *this * *this;
    }

    // a b - c d mod m: with lazy reduction both products wide and one reduction (field_detail::mul_sub_lazy).
    static __host__ __device__ __forceinline__ mont_t mul_sub(const mont_t& a, const mont_t& b, const mont_t& c,
                                                             const mont_t& d) {
#if FIELD_LAZY_REDUCTION
        mont_t out;
        field_detail::mul_sub_lazy<P>(out.l, a.l, b.l, c.l, d.l);
        return out;
#else
        return a * b - c * d;
#endif
    }

    // 2x mod m.
    __host__ __device__ __forceinline__ mont_t dbl() const { return *this + *this; }

    // -x mod m: m - x, and 0 for 0 (so the result stays in [0, m)).
    __host__ __device__ __forceinline__ mont_t neg() const { return zero() - *this; }

    // x^-1 mod m by Fermat's little theorem, x^(m-2); maps 0 to 0 (0^(m-2) = 0).
    // Left-to-right square-and-multiply over the bits of m - 2.
    __host__ __device__ mont_t inverse() const {
        mont_t acc = one();
        for (int i = N - 1; i >= 0; --i) {
            u32 e = P::inverse_exponent(i);
            for (int bit = field_detail::BITS_PER_LIMB - 1; bit >= 0; --bit) {
                acc = acc.sqr();
                if ((e >> bit) & 1u) acc = acc * *this;
            }
        }
        return acc;
    }

    __host__ __device__ __forceinline__ bool is_zero() const {
        u32 any = 0;
FIELD_UNROLL
        for (int j = 0; j < N; ++j) any |= l[j];
        return any == 0;
    }

    // Limb equality is value equality: every element is kept fully reduced.
    friend __host__ __device__ __forceinline__ bool operator==(const mont_t& a, const mont_t& b) {
        u32 diff = 0;
FIELD_UNROLL
        for (int j = 0; j < N; ++j) diff |= a.l[j] ^ b.l[j];
        return diff == 0;
    }
    friend __host__ __device__ __forceinline__ bool operator!=(const mont_t& a, const mont_t& b) { return !(a == b); }

    // Plain limbs x -> Montgomery form x R mod m: the Montgomery product with R^2 mod m.
    __host__ __device__ __forceinline__ mont_t to_mont() const {
        mont_t r2;
FIELD_UNROLL
        for (int j = 0; j < N; ++j) r2.l[j] = P::r_squared(j);
        return *this * r2;
    }

    // Montgomery form x R -> plain limbs x: the Montgomery product with the integer 1.
    __host__ __device__ __forceinline__ mont_t from_mont() const {
        mont_t unit = zero();
        unit.l[0] = 1;
        return *this * unit;
    }
};

typedef mont_t<fr_params> fr_t;
typedef mont_t<fq_params> fq_t;

#ifdef FIELD_KERNELS
// Element-wise kernels over arrays of field elements (count elements, each N little-endian u32
// limbs), compiled by gpu/field.py as '#define FIELD_KERNELS' + '#include "field.cuh"'.

// Operation codes of field_op_fr / field_op_fq (gpu/field.py FIELD_OPS names the same numbers).
constexpr int FIELD_OP_ADD = 0, FIELD_OP_SUB = 1, FIELD_OP_MUL = 2, FIELD_OP_SQR = 3, FIELD_OP_NEG = 4,
              FIELD_OP_INV = 5, FIELD_OP_DBL = 6, FIELD_OP_EQ = 7, FIELD_OP_IS_ZERO = 8;

__device__ __forceinline__ u64 element_index() {
    return (u64)blockIdx.x * blockDim.x + threadIdx.x;
}

// out[i] = x[i] R mod m (plain limbs -> Montgomery form); out may be x (in place).
template <class F>
__device__ __forceinline__ void to_mont_body(const F* x, F* out, u64 count) {
    u64 i = element_index();
    if (i < count) out[i] = x[i].to_mont();
}

// out[i] = x[i] R^-1 mod m (Montgomery form -> plain limbs); out may be x (in place).
template <class F>
__device__ __forceinline__ void from_mont_body(const F* x, F* out, u64 count) {
    u64 i = element_index();
    if (i < count) out[i] = x[i].from_mont();
}

// out[i] = op(a[i], b[i]) on Montgomery-form inputs; EQ and IS_ZERO write 0 or 1 (as Montgomery
// limbs of nothing: the raw integer) into out[i].l[0] and zero the other limbs.
template <class F>
__device__ __forceinline__ void field_op_body(int op, const F* a, const F* b, F* out, u64 count) {
    u64 i = element_index();
    if (i >= count) return;
    F x = a[i], y = b[i], r = F::zero();
    switch (op) {
        case FIELD_OP_ADD: r = x + y; break;
        case FIELD_OP_SUB: r = x - y; break;
        case FIELD_OP_MUL: r = x * y; break;
        case FIELD_OP_SQR: r = x.sqr(); break;
        case FIELD_OP_NEG: r = x.neg(); break;
        case FIELD_OP_INV: r = x.inverse(); break;
        case FIELD_OP_DBL: r = x.dbl(); break;
        case FIELD_OP_EQ: r.l[0] = (x == y) ? 1u : 0u; r.l[1] = (x != y) ? 1u : 0u; break;
        case FIELD_OP_IS_ZERO: r.l[0] = x.is_zero() ? 1u : 0u; break;
        default: break;
    }
    out[i] = r;
}

// x[i] <- x[i] * (x[i]^2)^iters: one dependent chain of iters products per thread, the
// multiplication-throughput probe of bench/bench_ntt.py (its result is checked there).
template <class F>
__device__ __forceinline__ void mul_chain_body(F* x, u64 count, u32 iters) {
    u64 i = element_index();
    if (i >= count) return;
    F a = x[i], b = a.sqr();
    for (u32 k = 0; k < iters; ++k) a = a * b;
    x[i] = a;
}

extern "C" __global__ void fr_mul_chain(fr_t* x, u64 count, u32 iters) { mul_chain_body(x, count, iters); }
extern "C" __global__ void fq_mul_chain(fq_t* x, u64 count, u32 iters) { mul_chain_body(x, count, iters); }
extern "C" __global__ void fr_to_mont(const fr_t* x, fr_t* out, u64 count) { to_mont_body(x, out, count); }
extern "C" __global__ void fr_from_mont(const fr_t* x, fr_t* out, u64 count) { from_mont_body(x, out, count); }
extern "C" __global__ void fq_to_mont(const fq_t* x, fq_t* out, u64 count) { to_mont_body(x, out, count); }
extern "C" __global__ void fq_from_mont(const fq_t* x, fq_t* out, u64 count) { from_mont_body(x, out, count); }
extern "C" __global__ void field_op_fr(int op, const fr_t* a, const fr_t* b, fr_t* out, u64 count) {
    field_op_body(op, a, b, out, count);
}
extern "C" __global__ void field_op_fq(int op, const fq_t* a, const fq_t* b, fq_t* out, u64 count) {
    field_op_body(op, a, b, out, count);
}
#endif  // FIELD_KERNELS
