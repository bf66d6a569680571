// Probe: the G1 bucket addition (mixed XYZZ, madd-2008-s) on fp64_field.cuh's products against ec.cuh's
// xyzz_add_affine, the addition msm_piece_sum runs. Not part of the prover: bench/probe_fp64_madd.py times both on the
// same gathers in one call and compares their sums word for word.
//
// Both kernels compute the same sums: thread t (one accumulator) starts at point probe_index(t, 0, 0) and adds
// probe_index(t, 0, s) for s = 1 .. steps - 1 (a pseudo-random gather, as a bucket's sorted run gathers random bases), then writes its XYZZ
// accumulator in field.cuh's form, fully reduced, so that the two kernels' sums compare word for word
// (bench/probes/fp64_curve.cuh: the FP64 addition, its bounds, and why its words equal ec.cuh's).
#include "fp64_curve.cuh"
#include "probe_gather.cuh"

// Thread t's sum, by ec.cuh (FP64 = false) or by the FP64 addition, written to out[t].
template <bool FP64>
__host__ __device__ void madd_sum_body(probe_index_t t, const g1_affine_t* bases, unsigned int points,
                                       unsigned int threads, unsigned int steps, g1_xyzz_t* out) {
    if (t >= threads) return;
    if (FP64) {
        fq64_xyzz_t acc = fq64_from_xyzz(xyzz_from_affine(bases[probe_index(t, 0, 0, 1, steps, points)]));
#pragma unroll 1
        for (unsigned int s = 1; s < steps; ++s) acc = fq64_add_affine(acc, bases[probe_index(t, 0, s, 1, steps, points)]);
        out[t] = fq64_to_xyzz(acc);
    } else {
        g1_xyzz_t acc = xyzz_from_affine(bases[probe_index(t, 0, 0, 1, steps, points)]);
#pragma unroll 1
        for (unsigned int s = 1; s < steps; ++s) acc = xyzz_add_affine(acc, bases[probe_index(t, 0, s, 1, steps, points)]);
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
