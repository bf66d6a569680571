// Probe: what a G1 bucket addition costs as a batched affine addition (Montgomery's trick) against the mixed XYZZ
// addition msm_piece_sum runs now (gpu/kernels/ec.cuh xyzz_add_affine, 8M + 2S). Not part of the prover: it decides
// whether issue 18's "batched affine bucket additions" are worth rewriting msm_piece_sum for
// (bench/probe_batched_affine.py drives it; results in bench/RESULTS_probe_batched_affine.md).
//
// Both kernels compute the same sums: thread t owns k accumulators; accumulator i of thread t starts at point
// probe_index(t, i, 0) and adds the points probe_index(t, i, s) for s = 1 .. steps - 1 (a pseudo-random gather, as a
// bucket's sorted run gathers random bases).
//
// * probe_xyzz_g1: each accumulator in XYZZ, one mixed addition a point; written back as XYZZ.
// * probe_affine_g1: every step adds one point to each of the thread's k affine accumulators. The k slopes need k
//   inverses of d_i = x_p - x_i; Montgomery's trick takes them from one inversion: prefix_i = d_0 ... d_(i-1) going
//   up, inv = (d_0 ... d_(k-1))^-1, then going down 1 / d_i = inv prefix_i and inv <- inv d_i. An addition then costs
//   3 products for the trick and 3 for the addition (lambda = (y_p - y_i) / d_i, x' = lambda^2 - x_i - x_p,
//   y' = lambda (x_i - x') - y_i): 5M + 1S, plus 1 / k of an inversion (fq_inv, Fermat: about 380 squarings and 190
//   products). The accumulators and prefixes live in global memory, laid out [i][thread] so that a warp's loads
//   coalesce.
//   Common path only: d_i = 0 (P + P or P + (-P)) and the identity are not handled. A random gather of distinct
//   points never meets them (probability about k steps threads / q); a prover kernel would need a fallback.
// * probe_affine_gcd_g1: the same with the shared inversion by the optimized binary GCD (fq_inverse_gcd.cuh) instead
//   of Fermat's; probe_inverse_{fermat,gcd}_g1 time the two inversions alone, a dependent chain a thread.
#include "ec.cuh"
#include "fq_inverse_gcd.cuh"
#include "probe_gather.cuh"

template <class F>
__host__ __device__ void probe_xyzz_body(probe_index_t t, const unsigned int* points_words, unsigned int points,
                                         unsigned int threads, unsigned int k, unsigned int steps,
                                         unsigned int* out_words) {
    if (t >= threads) return;
    const affine_t<F>* bases = reinterpret_cast<const affine_t<F>*>(points_words);
    xyzz_t<F>* out = reinterpret_cast<xyzz_t<F>*>(out_words);
#pragma unroll 1
    for (unsigned int i = 0; i < k; ++i) {
        xyzz_t<F> acc = xyzz_from_affine(bases[probe_index(t, i, 0, k, steps, points)]);
#pragma unroll 1
        for (unsigned int s = 1; s < steps; ++s) acc = xyzz_add_affine(acc, bases[probe_index(t, i, s, k, steps, points)]);
        out[(probe_index_t)i * threads + t] = acc;
    }
}

template <class F, bool GCD>
__host__ __device__ void probe_affine_body(probe_index_t t, const unsigned int* points_words, unsigned int points,
                                           unsigned int threads, unsigned int k, unsigned int steps,
                                           unsigned int* acc_words, unsigned int* prefix_words) {
    if (t >= threads) return;
    const affine_t<F>* bases = reinterpret_cast<const affine_t<F>*>(points_words);
    affine_t<F>* acc = reinterpret_cast<affine_t<F>*>(acc_words);
    F* prefix = reinterpret_cast<F*>(prefix_words);
#pragma unroll 1
    for (unsigned int i = 0; i < k; ++i) acc[(probe_index_t)i * threads + t] = bases[probe_index(t, i, 0, k, steps, points)];
#pragma unroll 1
    for (unsigned int s = 1; s < steps; ++s) {
        F running = F::one();
#pragma unroll 1
        for (unsigned int i = 0; i < k; ++i) {  // up: prefix_i = d_0 ... d_(i-1)
            probe_index_t slot = (probe_index_t)i * threads + t;
            prefix[slot] = running;
            running = ec_mul(running, bases[probe_index(t, i, s, k, steps, points)].x - acc[slot].x);
        }
        F inv = probe_inverse<GCD>(running);
#pragma unroll 1
        for (unsigned int i = k; i-- > 0;) {  // down: 1 / d_i = inv prefix_i, then inv <- inv d_i
            probe_index_t slot = (probe_index_t)i * threads + t;
            affine_t<F> p = bases[probe_index(t, i, s, k, steps, points)];
            affine_t<F> a = acc[slot];
            F d = p.x - a.x;
            F d_inv = ec_mul(inv, prefix[slot]);
            inv = ec_mul(inv, d);
            F lambda = ec_mul(p.y - a.y, d_inv);
            F x = ec_sqr(lambda) - a.x - p.x;
            acc[slot] = affine_t<F>{x, ec_mul(lambda, a.x - x) - a.y};
        }
    }
}

// `chain` dependent inversions a thread, x <- (x + 1)^-1 from the x coordinate of base t mod points (the + 1 keeps
// two inversions from cancelling); the last x is written, so that nothing is left out.
template <bool GCD>
__host__ __device__ void probe_inverse_body(probe_index_t t, const unsigned int* points_words, unsigned int points,
                                            unsigned int threads, unsigned int chain, unsigned int* out_words) {
    if (t >= threads) return;
    fq_t x = reinterpret_cast<const affine_t<fq_t>*>(points_words)[t % points].x;
#pragma unroll 1
    for (unsigned int i = 0; i < chain; ++i) x = probe_inverse<GCD>(x + fq_t::one());
    reinterpret_cast<fq_t*>(out_words)[t] = x;
}

// What the check compares: each XYZZ accumulator as affine (one thread each).
template <class F>
__host__ __device__ void probe_to_affine_body(probe_index_t t, const unsigned int* xyzz_words, unsigned int count,
                                              unsigned int* affine_words) {
    if (t >= count) return;
    reinterpret_cast<affine_t<F>*>(affine_words)[t] = xyzz_to_affine(reinterpret_cast<const xyzz_t<F>*>(xyzz_words)[t]);
}

#ifdef PROBE_HOST
// Host build (tests/test_probe_batched_affine.py): both sums for every thread, one after another; the affine sums
// with the binary GCD's inversion when gcd != 0.
extern "C" void probe_host_sums(const unsigned int* points_words, unsigned int points, unsigned int threads,
                                unsigned int k, unsigned int steps, unsigned int gcd, unsigned int* xyzz_words,
                                unsigned int* acc_words, unsigned int* prefix_words) {
    for (probe_index_t t = 0; t < threads; ++t) {
        probe_xyzz_body<fq_t>(t, points_words, points, threads, k, steps, xyzz_words);
        if (gcd) probe_affine_body<fq_t, true>(t, points_words, points, threads, k, steps, acc_words, prefix_words);
        else probe_affine_body<fq_t, false>(t, points_words, points, threads, k, steps, acc_words, prefix_words);
    }
}

// out[i] = fq_inv_gcd(x[i]) for Montgomery-form Fq elements (12 u32 limbs each); converged[i] = 1 when the GCD's
// rounds gave it (0: Fermat's fallback did).
extern "C" void probe_host_inverse_gcd(const unsigned int* x_words, unsigned int count, unsigned int* out_words,
                                       unsigned int* converged) {
    const fq_t* x = reinterpret_cast<const fq_t*>(x_words);
    fq_t* out = reinterpret_cast<fq_t*>(out_words);
    for (unsigned int i = 0; i < count; ++i) {
        bool ok;
        fq_inv_gcd_rounds(x[i], ok);
        converged[i] = ok ? 1u : 0u;
        out[i] = fq_inv_gcd(x[i]);
    }
}

// out[i] = fq2_inv_gcd(x[i]) for Montgomery-form Fq2 elements (c0 then c1, 24 u32 limbs each).
extern "C" void probe_host_fq2_inverse_gcd(const unsigned int* x_words, unsigned int count, unsigned int* out_words) {
    const fq2_t* x = reinterpret_cast<const fq2_t*>(x_words);
    fq2_t* out = reinterpret_cast<fq2_t*>(out_words);
    for (unsigned int i = 0; i < count; ++i) out[i] = fq2_inv_gcd(x[i]);
}
#else
#define PROBE_THREADS_PER_BLOCK 128
// The residency of msm_piece_sum: G1 bounded to 3 blocks an SM (gpu/kernels/msm.cu MSM_PIECE_SUM_G1_BLOCKS_PER_SM),
// G2 unbounded (255 registers: 2 blocks).
#define PROBE_G1_BLOCKS_PER_SM 3
#define PROBE_G2_BLOCKS_PER_SM 1
#define PROBE_TID ((probe_index_t)blockIdx.x * blockDim.x + threadIdx.x)
#define PROBE_KERNELS(group, F, min_blocks)                                                                            \
    extern "C" __global__ void __launch_bounds__(PROBE_THREADS_PER_BLOCK, min_blocks)                             \
    probe_xyzz_##group(const unsigned int* points_words, unsigned int points, unsigned int threads, unsigned int k,  \
                       unsigned int steps, unsigned int* out_words) {                                              \
        probe_xyzz_body<F>(PROBE_TID, points_words, points, threads, k, steps, out_words);                         \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(PROBE_THREADS_PER_BLOCK, min_blocks)                             \
    probe_affine_##group(const unsigned int* points_words, unsigned int points, unsigned int threads,              \
                         unsigned int k, unsigned int steps, unsigned int* acc_words, unsigned int* prefix_words) { \
        probe_affine_body<F, false>(PROBE_TID, points_words, points, threads, k, steps, acc_words, prefix_words);  \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(PROBE_THREADS_PER_BLOCK, min_blocks)                             \
    probe_affine_gcd_##group(const unsigned int* points_words, unsigned int points, unsigned int threads,          \
                             unsigned int k, unsigned int steps, unsigned int* acc_words,                         \
                             unsigned int* prefix_words) {                                                         \
        probe_affine_body<F, true>(PROBE_TID, points_words, points, threads, k, steps, acc_words, prefix_words);   \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(PROBE_THREADS_PER_BLOCK)                                          \
    probe_to_affine_##group(const unsigned int* xyzz_words, unsigned int count, unsigned int* affine_words) {        \
        probe_to_affine_body<F>(PROBE_TID, xyzz_words, count, affine_words);                                        \
    }
PROBE_KERNELS(g1, fq_t, PROBE_G1_BLOCKS_PER_SM)
#define PROBE_INVERSE_KERNEL(name, gcd)                                                                             \
    extern "C" __global__ void __launch_bounds__(PROBE_THREADS_PER_BLOCK, PROBE_G1_BLOCKS_PER_SM)                 \
    name(const unsigned int* points_words, unsigned int points, unsigned int threads, unsigned int chain,          \
         unsigned int* out_words) {                                                                                \
        probe_inverse_body<gcd>(PROBE_TID, points_words, points, threads, chain, out_words);                       \
    }
PROBE_INVERSE_KERNEL(probe_inverse_fermat_g1, false)
PROBE_INVERSE_KERNEL(probe_inverse_gcd_g1, true)
PROBE_KERNELS(g2, fq2_t, PROBE_G2_BLOCKS_PER_SM)
#endif
