// Probe: msm_piece_sum's work, the bucket additions of one MSM pass, as batched affine additions (Montgomery's trick)
// on the prover's own inputs. Not part of the prover: bench/probe_affine_pieces.py captures the arguments of a real
// msm_piece_sum launch (gpu/msm.py), times that launch again and this kernel on the same arguments, and compares
// their piece sums as affine points. It decides whether msm_piece_sum is worth rewriting around batched affine
// additions now that the shared inversion can be the binary GCD's (fq_inverse_gcd.cuh; bench/probes/batched_affine.cu
// measured the additions alone, bench/RESULTS_probe_batched_affine.md).
//
// A thread owns `lanes` pieces at a time: a group of that many consecutive pieces in msm_piece_sum's order (the sorted
// keys, longest first, so a group's pieces are about as long as each other, and so are a warp's groups), and threads
// take groups grid-stride. Each step adds the next point of every lane that has one: the lanes' denominators are
// multiplied up (prefix_m = product of the earlier lanes' denominators), one inversion, then going down each lane gets
// 1 / d_m = inv prefix_m, inv <- inv d_m, and its affine addition. A step costs a lane 6 products (1 up, 2 down, and
// lambda, lambda^2, y' = lambda (x - x') - y), plus its share of the inversion, against 10 for a mixed XYZZ addition.
// The cases the slope formula gets wrong are decided first, as ec.cuh's additions do:
//   accumulator empty (a lane's first point, or after P + (-P)): the point becomes the accumulator, no denominator;
//   point the identity (0, 0): skipped; x equal, y opposite (P = -A): the accumulator empties;
//   x and y equal (P = A): a doubling, denominator 2y, slope 3 x^2 / 2y.
// An empty accumulator is marked by an x no field element has (every limb all ones): one read of x tells it.
// Lane state lives in global memory, slot = lane * threads + thread, so that a warp's reads of one lane coalesce:
// the accumulator (x, y), the prefix, and the cursor (the piece's next and last entry, its index, its job).
#ifdef PROBE_HOST
#define EC_HOST_EMULATION 1
#endif
#include "msm.cu"
#include "fq_inverse_gcd.cuh"

// Where a lane is: entries [next, end) of `sorted` are its piece's points still to add; piece_sums[piece] gets the
// sum; job's bases hold its points. next = end: nothing left (or no piece: a group's tail past total_pieces).
struct lane_cursor_t {
    unsigned int next, end, piece, job;
};

template <class F>
__host__ __device__ inline F empty_mark() {
    F x;
    unsigned int* words = reinterpret_cast<unsigned int*>(&x);
    for (unsigned int i = 0; i < sizeof(F) / sizeof(unsigned int); ++i) words[i] = 0xffffffffu;
    return x;
}

template <class F>
__host__ __device__ inline bool is_empty_mark(const F& x) {
    const unsigned int* words = reinterpret_cast<const unsigned int*>(&x);
    return words[sizeof(F) / sizeof(unsigned int) - 1] == 0xffffffffu;  // the top limb of an element is below p's
}

// What a step does to a lane (see the file comment); the last two need a denominator.
enum lane_step_t { STEP_SKIP, STEP_LOAD, STEP_EMPTY, STEP_DOUBLE, STEP_ADD };

// The lane's step for its point (base, sign) and accumulator, with the slope's denominator d for the last two; y is
// read only where x does not decide (so the up pass reads the x coordinates alone).
template <class F>
__host__ __device__ inline lane_step_t lane_step(const affine_t<F>* base, bool negative, const affine_t<F>* acc, F& d) {
    const F px = base->x;
    if (px.is_zero() && base->y.is_zero()) return STEP_SKIP;  // the identity (0, 0)
    const F ax = acc->x;
    if (is_empty_mark(ax)) return STEP_LOAD;
    if (px != ax) {
        d = px - ax;
        return STEP_ADD;
    }
    const F ay = acc->y;
    if ((negative ? base->y.neg() : base->y) != ay) return STEP_EMPTY;  // P = -A
    d = ay + ay;  // P = A: the tangent, 3 x^2 / 2y (a = 0)
    return STEP_DOUBLE;
}

// The base a lane's next entry names, and the entry's sign.
template <class F>
__host__ __device__ inline const affine_t<F>* lane_base(const msm_job_t* table, const unsigned int* sorted,
                                                        const lane_cursor_t& c, unsigned int s, bool& negative) {
    unsigned int entry = sorted[c.next + s];
    negative = (entry & MSM_SIGN_BIT) != 0;
    return ec_affine<F>(reinterpret_cast<const unsigned int*>(table[c.job].bases)) + (entry & MSM_POINT_MASK);
}

template <class F, bool GCD>
__host__ __device__ void affine_piece_sum_body(ec_index_t tid, unsigned int threads, unsigned int lanes,
                                               const unsigned long long* job_table, unsigned int buckets_per_job,
                                               const unsigned int* sorted, const unsigned int* offsets,
                                               const unsigned int* piece_offsets,
                                               const unsigned long long* piece_order, unsigned int buckets,
                                               unsigned int total_pieces, unsigned int min_points,
                                               unsigned int* acc_words, unsigned int* prefix_words,
                                               unsigned int* cursor_words, unsigned int* piece_sums) {
    if (tid >= threads) return;
    const msm_job_t* table = reinterpret_cast<const msm_job_t*>(job_table);
    affine_t<F>* acc = ec_affine<F>(acc_words);
    F* prefix = reinterpret_cast<F*>(prefix_words);
    lane_cursor_t* cursor = reinterpret_cast<lane_cursor_t*>(cursor_words);
    const unsigned int groups = (total_pieces + lanes - 1) / lanes;
#pragma unroll 1
    for (unsigned int group = (unsigned int)tid; group < groups; group += threads) {
        unsigned int steps = 0;
#pragma unroll 1
        for (unsigned int m = 0; m < lanes; ++m) {  // the group's pieces: cursors, accumulators empty
            ec_index_t slot = (ec_index_t)m * threads + tid;
            unsigned int rank = group * lanes + m;
            lane_cursor_t c{0, 0, 0, 0};
            if (rank < total_pieces) {
                unsigned int piece = (unsigned int)piece_order[rank];  // the key's low word, as msm_piece_sum
                const msm_piece_entries_t run =
                    msm_piece_entries(piece, offsets, piece_offsets, buckets, buckets_per_job, min_points);
                c = lane_cursor_t{run.first, run.last, piece, run.job};
                steps = run.last - run.first > steps ? run.last - run.first : steps;
            }
            cursor[slot] = c;
            acc[slot].x = empty_mark<F>();
        }
#pragma unroll 1
        for (unsigned int s = 0; s < steps; ++s) {
            F running = F::one();
#pragma unroll 1
            for (unsigned int m = 0; m < lanes; ++m) {  // up: prefix_m = the product of the earlier denominators
                ec_index_t slot = (ec_index_t)m * threads + tid;
                const lane_cursor_t c = cursor[slot];
                if (c.next + s >= c.end) continue;
                bool negative;
                const affine_t<F>* base = lane_base<F>(table, sorted, c, s, negative);
                F d;
                if (lane_step(base, negative, &acc[slot], d) < STEP_DOUBLE) continue;
                prefix[slot] = running;
                running = ec_mul(running, d);
            }
            F inv = probe_inverse<GCD>(running);
#pragma unroll 1
            for (unsigned int m = lanes; m-- > 0;) {  // down: 1 / d_m = inv prefix_m, inv <- inv d_m; the addition
                ec_index_t slot = (ec_index_t)m * threads + tid;
                const lane_cursor_t c = cursor[slot];
                if (c.next + s >= c.end) continue;
                bool negative;
                const affine_t<F>* base = lane_base<F>(table, sorted, c, s, negative);
                const affine_t<F> a = acc[slot];
                F d;
                lane_step_t step = lane_step(base, negative, &a, d);
                if (step == STEP_SKIP) continue;
                if (step == STEP_EMPTY) {
                    acc[slot].x = empty_mark<F>();
                    continue;
                }
                affine_t<F> p = *base;
                if (negative) p = p.neg();
                if (step == STEP_LOAD) {
                    acc[slot] = p;
                    continue;
                }
                F numerator;
                if (step == STEP_ADD) {
                    numerator = p.y - a.y;
                } else {
                    F xx = ec_sqr(a.x);
                    numerator = xx + xx + xx;
                }
                F d_inv = ec_mul(inv, prefix[slot]);
                inv = ec_mul(inv, d);
                F lambda = ec_mul(numerator, d_inv);
                F x = ec_sqr(lambda) - a.x - p.x;  // p.x = a.x when doubling
                acc[slot] = affine_t<F>{x, ec_mul(lambda, a.x - x) - a.y};
            }
        }
#pragma unroll 1
        for (unsigned int m = 0; m < lanes && group * lanes + m < total_pieces; ++m) {  // XYZZ, as msm_piece_sum
            ec_index_t slot = (ec_index_t)m * threads + tid;
            affine_t<F> a = acc[slot];
            ec_xyzz<F>(piece_sums)[cursor[slot].piece] = is_empty_mark(a.x) ? xyzz_t<F>::identity() : xyzz_from_affine(a);
        }
    }
}

// out[i] = to_affine(in[i]) for count XYZZ points: what the probe compares.
template <class F>
__host__ __device__ void xyzz_to_affine_body(ec_index_t tid, const unsigned int* in, unsigned int count,
                                             unsigned int* out) {
    if (tid >= count) return;
    ec_affine<F>(out)[tid] = xyzz_to_affine(ec_xyzz<F>(in)[tid]);
}

// The kernels' parameters after the thread index, and the arguments that pass them on to the body.
#define AFFINE_PIECE_SUM_PARAMS                                                                                   \
    unsigned int threads, unsigned int lanes, const unsigned long long* job_table, unsigned int buckets_per_job,  \
        const unsigned int* sorted, const unsigned int* offsets, const unsigned int* piece_offsets,               \
        const unsigned long long* piece_order, unsigned int buckets, unsigned int total_pieces,                   \
        unsigned int min_points, unsigned int* acc_words, unsigned int* prefix_words, unsigned int* cursor_words,  \
        unsigned int* piece_sums
#define AFFINE_PIECE_SUM_ARGS                                                                                     \
    threads, lanes, job_table, buckets_per_job, sorted, offsets, piece_offsets, piece_order, buckets,            \
        total_pieces, min_points, acc_words, prefix_words, cursor_words, piece_sums

#ifdef PROBE_HOST
// Host build (tests/test_probe_affine_pieces.py): every thread's body, one after another, with the binary GCD's
// inversion (gcd != 0) or Fermat's.
#define AFFINE_PIECES_HOST(group, F)                                                                              \
    extern "C" void probe_host_affine_piece_sum_##group(unsigned int gcd, AFFINE_PIECE_SUM_PARAMS) {             \
        for (ec_index_t tid = 0; tid < threads; ++tid) {                                                          \
            if (gcd) affine_piece_sum_body<F, true>(tid, AFFINE_PIECE_SUM_ARGS);                                   \
            else affine_piece_sum_body<F, false>(tid, AFFINE_PIECE_SUM_ARGS);                                      \
        }                                                                                                         \
    }
AFFINE_PIECES_HOST(g1, fq_t)
AFFINE_PIECES_HOST(g2, fq2_t)
#else
// Residency: G1 as msm_piece_sum_g1 on main (3 blocks of 128 an SM), G2 unbounded (as msm_piece_sum_g2).
#define AFFINE_PIECES_G1_BLOCKS_PER_SM 3
#define AFFINE_PIECES_KERNEL(name, F, gcd, min_blocks)                                                            \
    extern "C" __global__ void __launch_bounds__(EC_THREADS_PER_BLOCK, min_blocks) name(AFFINE_PIECE_SUM_PARAMS) { \
        affine_piece_sum_body<F, gcd>(EC_TID, AFFINE_PIECE_SUM_ARGS);                                             \
    }
#if !defined(EC_GROUP) || EC_GROUP == 1
AFFINE_PIECES_KERNEL(affine_piece_sum_gcd_g1, fq_t, true, AFFINE_PIECES_G1_BLOCKS_PER_SM)
AFFINE_PIECES_KERNEL(affine_piece_sum_fermat_g1, fq_t, false, AFFINE_PIECES_G1_BLOCKS_PER_SM)
extern "C" __global__ void xyzz_to_affine_g1(const unsigned int* in, unsigned int count, unsigned int* out) {
    xyzz_to_affine_body<fq_t>(EC_TID, in, count, out);
}
#endif
#if !defined(EC_GROUP) || EC_GROUP == 2
AFFINE_PIECES_KERNEL(affine_piece_sum_gcd_g2, fq2_t, true, 1)
AFFINE_PIECES_KERNEL(affine_piece_sum_fermat_g2, fq2_t, false, 1)
extern "C" __global__ void xyzz_to_affine_g2(const unsigned int* in, unsigned int count, unsigned int* out) {
    xyzz_to_affine_body<fq2_t>(EC_TID, in, count, out);
}
#endif
#endif
