// Probe: the G1 bucket addition (mixed XYZZ, madd-2008-s) on fp64_field.cuh's products against ec.cuh's
// xyzz_add_affine, the addition msm_piece_sum runs. Not part of the prover: bench/probe_fp64_madd.py times both on the
// same gathers in one call and compares their sums word for word.
//
// Both kernels compute the same sums: thread t starts at point probe_index(t, 0) and adds probe_index(t, s) for
// s = 1 .. steps - 1 (a pseudo-random gather, as a bucket's sorted run gathers random bases), then writes its XYZZ
// accumulator in field.cuh's form, fully reduced. madd-2008-s computes the same field values in both, so equal
// inputs give equal words (X3, Y3, ZZ3 and ZZZ3 are formulas of the inputs, not a choice of representative).
//
// The FP64 addition keeps Fq in fp64_field.cuh's form for Fq: 8 limbs of 48 bits with field.cuh's own Montgomery
// radix, so a stored base becomes it by moving bits (fq64_from_fq) and no product converts anything. Values are lazy:
// signed, only congruent to the coordinate. Differences stay limb-wise; `reduce` brings a value back to within about
// q / 2 with small limbs where the next step needs it (X3 and Y3, which are kept and subtracted from, and P and R,
// whose zero test needs that form). Bounds, with q / R < 0.11: stored X, Y within q / 2 and ZZ, ZZZ within 1.25 q
// (products of values within 1.5 q land in (-0.25 q, 1.25 q)); every limb product stays below 2^97 against the
// 2^99 the split allows. The rare cases take ec.cuh's own code: P + P (the doubling of the affine point, converted).
#include "ec.cuh"
#include "fp64_field.cuh"

typedef fp64_field::fq_params fq64_params;
typedef fp64_field::element<fq64_params> fq64_t;
typedef unsigned long long probe_index_t;

// The point that thread t adds at step s: Knuth's multiplicative hash of the flat index, mod the number of points
// (as bench/probes/batched_affine.cu's probe_index with one accumulator a thread).
__host__ __device__ inline unsigned int probe_index(probe_index_t t, unsigned int s, unsigned int steps,
                                                    unsigned int points) {
    return (unsigned int)(((t * steps + s) * 2654435761ull) % points);
}

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

// Thread t's sum, by ec.cuh (FP64 = false) or by the FP64 addition, written to out[t].
template <bool FP64>
__host__ __device__ void madd_sum_body(probe_index_t t, const g1_affine_t* bases, unsigned int points,
                                       unsigned int threads, unsigned int steps, g1_xyzz_t* out) {
    if (t >= threads) return;
    if (FP64) {
        fq64_xyzz_t acc = fq64_from_xyzz(xyzz_from_affine(bases[probe_index(t, 0, steps, points)]));
#pragma unroll 1
        for (unsigned int s = 1; s < steps; ++s) acc = fq64_add_affine(acc, bases[probe_index(t, s, steps, points)]);
        out[t] = fq64_to_xyzz(acc);
    } else {
        g1_xyzz_t acc = xyzz_from_affine(bases[probe_index(t, 0, steps, points)]);
#pragma unroll 1
        for (unsigned int s = 1; s < steps; ++s) acc = xyzz_add_affine(acc, bases[probe_index(t, s, steps, points)]);
        out[t] = acc;
    }
}

#ifdef PROBE_HOST
// Host entries for tests/test_probe_fp64_madd.py: both sums for every thread (field.cuh's words, 48 a point
// affine, 96 XYZZ), and the field pieces alone (fq_t words in and out).
extern "C" void probe_host_madd_sums(const u32* bases, unsigned int points, unsigned int threads, unsigned int steps,
                                     int fp64, u32* out) {
    for (probe_index_t t = 0; t < threads; ++t) {
        if (fp64) madd_sum_body<true>(t, reinterpret_cast<const g1_affine_t*>(bases), points, threads, steps,
                                      reinterpret_cast<g1_xyzz_t*>(out));
        else madd_sum_body<false>(t, reinterpret_cast<const g1_affine_t*>(bases), points, threads, steps,
                                  reinterpret_cast<g1_xyzz_t*>(out));
    }
}

// op 0: a b, 1: a^2, 2: a - b (then reduced), 3: a + b (then reduced), 4: a b - c d, 5: (a - b)(c - d) (products
// of signed differences), 6: whether a - b reduces to zero (out's first word 1 or 0); each result an fq_t, fully
// reduced. a, b, c, d: count fq_t each.
extern "C" void probe_host_fq64_op(int op, const u32* a_words, const u32* b_words, const u32* c_words,
                                   const u32* d_words, u32* out_words, unsigned int count) {
    using fp64_field::add;
    using fp64_field::sub;
    const fq_t* a = reinterpret_cast<const fq_t*>(a_words);
    const fq_t* b = reinterpret_cast<const fq_t*>(b_words);
    const fq_t* c = reinterpret_cast<const fq_t*>(c_words);
    const fq_t* d = reinterpret_cast<const fq_t*>(d_words);
    fq_t* out = reinterpret_cast<fq_t*>(out_words);
    for (unsigned int i = 0; i < count; ++i) {
        const fq64_t w = fq64_from_fq(a[i]), x = fq64_from_fq(b[i]), y = fq64_from_fq(c[i]), z = fq64_from_fq(d[i]);
        if (op == 6) {
            out[i] = fq_t::zero();
            out[i].l[0] = fp64_field::is_zero_reduced(fq64_reduce(sub(w, x))) ? 1u : 0u;
            continue;
        }
        const fq64_t r = op == 0 ? fq64_mul(w, x) : op == 1 ? fq64_sqr(w) : op == 2 ? fq64_reduce(sub(w, x))
                       : op == 3 ? fq64_reduce(add(w, x)) : op == 4 ? fq64_mul_sub(w, x, y, z)
                       : fq64_mul(sub(w, x), sub(y, z));
        out[i] = fq64_to_fq(r);
    }
}
#else
#define PROBE_THREADS_PER_BLOCK 128
#ifndef PROBE_BLOCKS_PER_SM
#define PROBE_BLOCKS_PER_SM 2  // 255 registers, no spill (nvcc 13); -DPROBE_BLOCKS_PER_SM=3: 168, with spills
#endif
#define PROBE_TID ((probe_index_t)blockIdx.x * blockDim.x + threadIdx.x)
extern "C" __global__ void __launch_bounds__(PROBE_THREADS_PER_BLOCK, 3)  // msm_piece_sum_g1's residency
probe_madd_ec_g1(const g1_affine_t* bases, unsigned int points, unsigned int threads, unsigned int steps,
                 g1_xyzz_t* out) {
    madd_sum_body<false>(PROBE_TID, bases, points, threads, steps, out);
}
extern "C" __global__ void __launch_bounds__(PROBE_THREADS_PER_BLOCK, PROBE_BLOCKS_PER_SM)
probe_madd_fp64_g1(const g1_affine_t* bases, unsigned int points, unsigned int threads, unsigned int steps,
                   g1_xyzz_t* out) {
    madd_sum_body<true>(PROBE_TID, bases, points, threads, steps, out);
}
#endif
