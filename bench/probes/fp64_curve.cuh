// The G1 bucket addition (mixed XYZZ, madd-2008-s) on bench/probes/fp64_field.cuh's FP64 products, for the probes
// that time it against ec.cuh's xyzz_add_affine: bench/probes/fp64_madd.cu (on pseudo-random gathers) and
// fp64_pieces.cu (on msm_piece_sum's own arguments). Not part of the prover.
//
// Fq in fp64_field.cuh's form for Fq: 8 limbs of 48 bits with field.cuh's own Montgomery radix, so a stored base
// becomes it by moving bits (fq64_from_fq) and no product converts anything. Values are lazy: signed, only congruent to
// the coordinate. Differences stay limb-wise; `reduce` brings a value back to within about q / 2 with small limbs where
// the next step needs it (X3 and Y3, which are kept and subtracted from, and P and R, whose zero test needs that form).
// Bounds, with q / R < 0.11: stored X, Y within q / 2 and ZZ, ZZZ within 1.25 q (products of values within 1.5 q land
// in (-0.25 q, 1.25 q)); every limb product stays below 2^97 against the 2^99 the split allows. The rare cases take
// ec.cuh's own code: P + P (the doubling of the affine point, converted). madd-2008-s computes the same field values
// as ec.cuh's, so equal inputs give equal words once converted back (fq64_to_xyzz): X3, Y3, ZZ3 and ZZZ3 are formulas
// of the inputs, not a choice of representative.
#pragma once

#include "ec.cuh"
#include "fp64_field.cuh"

typedef fp64_field::fq_params fq64_params;
typedef fp64_field::element<fq64_params> fq64_t;

// fq_t's 12 words -> 8 limbs of 48 bits: limb k starts at bit 48 k, in word 3k / 2 at bit 0 (k even) or 16 (k odd).
__host__ __device__ __forceinline__ fq64_t fq64_from_fq(const fq_t& x) {
    fq64_t out;
    FIELD_UNROLL
    for (int k = 0; k < fq64_params::LIMBS; ++k) {
        const int word = 3 * k / 2;
        const u64 v = (k & 1) ? ((u64)(x.l[word] >> 16) | ((u64)x.l[word + 1] << 16))
                              : ((u64)x.l[word] | ((u64)(x.l[word + 1] & 0xffffu) << 32));
        out.limb[k] = fp64_field::limb_to_double(v);
    }
    return out;
}

// The fully reduced fq_t of a lazy value: word j holds bits 32 j .. 32 j + 31 of the canonical limbs.
__host__ __device__ __forceinline__ fq_t fq64_to_fq(const fq64_t& x) {
    u64 limbs[fq64_params::LIMBS];
    fp64_field::to_limbs<fq64_params>(x, limbs);
    fq_t out;
    FIELD_UNROLL
    for (int j = 0; j < fq_t::N; ++j) {
        const int bit = 32 * j, k = bit / 48, shift = bit % 48;  // shift is 0, 32 or 16
        u64 v = limbs[k] >> shift;
        if (shift > 16) v |= limbs[k + 1] << (48 - shift);
        out.l[j] = (u32)v;
    }
    return out;
}

// The products out of line on the device, as ec_field.cuh's (a product inlined ten times an addition would be
// about 80 KiB of code); FP64_MADD_INLINE inlines them, for the driver to time both.
#if defined(__CUDA_ARCH__) && !defined(FP64_MADD_INLINE)
#define FP64_NOINLINE __noinline__
#else
#define FP64_NOINLINE
#endif
__host__ __device__ FP64_NOINLINE fq64_t fq64_mul(fq64_t a, fq64_t b) { return fp64_field::mont_mul<fq64_params>(a, b); }
__host__ __device__ FP64_NOINLINE fq64_t fq64_sqr(fq64_t a) { return fp64_field::mont_sqr<fq64_params>(a); }
__host__ __device__ FP64_NOINLINE fq64_t fq64_mul_sub(fq64_t a, fq64_t b, fq64_t c, fq64_t d) {
    return fp64_field::mont_mul_sub<fq64_params>(a, b, c, d);
}
__host__ __device__ FP64_NOINLINE fq64_t fq64_reduce(fq64_t a) { return fp64_field::reduce<fq64_params>(a); }

struct fq64_xyzz_t {
    fq64_t X, Y, ZZ, ZZZ;
    bool identity;
};

__host__ __device__ __forceinline__ fq64_xyzz_t fq64_from_xyzz(const g1_xyzz_t& p) {
    return fq64_xyzz_t{fq64_from_fq(p.X), fq64_from_fq(p.Y), fq64_from_fq(p.ZZ), fq64_from_fq(p.ZZZ), p.is_identity()};
}

__host__ __device__ __forceinline__ g1_xyzz_t fq64_to_xyzz(const fq64_xyzz_t& p) {
    if (p.identity) return g1_xyzz_t::identity();
    return g1_xyzz_t{fq64_to_fq(p.X), fq64_to_fq(p.Y), fq64_to_fq(p.ZZ), fq64_to_fq(p.ZZZ)};
}

// P + Q, Q affine in field.cuh's form: ec.cuh's xyzz_add_affine (madd-2008-s, its special cases) on FP64 products.
__host__ __device__ __forceinline__ fq64_xyzz_t fq64_add_affine(const fq64_xyzz_t& p, const g1_affine_t& q) {
    using fp64_field::add;
    using fp64_field::sub;
    if (q.is_identity()) return p;
    if (p.identity) return fq64_from_xyzz(xyzz_from_affine(q));
    const fq64_t U2 = fq64_mul(fq64_from_fq(q.x), p.ZZ);
    const fq64_t S2 = fq64_mul(fq64_from_fq(q.y), p.ZZZ);
    const fq64_t P = fq64_reduce(sub(U2, p.X));
    const fq64_t R = fq64_reduce(sub(S2, p.Y));
    if (fp64_field::is_zero_reduced(P)) {
        if (fp64_field::is_zero_reduced(R)) return fq64_from_xyzz(xyzz_double_affine(q));
        return fq64_from_xyzz(g1_xyzz_t::identity());
    }
    const fq64_t PP = fq64_sqr(P);
    const fq64_t PPP = fq64_mul(P, PP);
    const fq64_t Q = fq64_mul(p.X, PP);
    const fq64_t X3 = fq64_reduce(sub(sub(fq64_sqr(R), PPP), add(Q, Q)));
    const fq64_t Y3 = fq64_reduce(fq64_mul_sub(R, sub(Q, X3), p.Y, PPP));
    return fq64_xyzz_t{X3, Y3, fq64_mul(p.ZZ, PP), fq64_mul(p.ZZZ, PPP), false};
}
