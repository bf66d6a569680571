// Probe: msm_piece_sum's work, the G1 bucket additions of one MSM pass, with bench/probes/fp64_curve.cuh's addition on
// FP64 products, on the prover's own inputs. Not part of the prover: bench/probe_fp64_pieces.py captures the arguments
// of a real msm_piece_sum launch (gpu/msm.py), times that launch again and this kernel on the same arguments, and
// compares their piece sums word for word. Where bench/probes/fp64_madd.cu times the addition on pseudo-random
// gathers, this times it where it would run: the sorted entries, the pieces longest first, a thread a piece.
#ifdef PROBE_HOST
#define EC_HOST_EMULATION 1
#endif
#include "msm.cu"
#include "fp64_curve.cuh"

// msm_piece_sum_body with the FP64 addition: thread tid sums the piece piece_order[tid] names, written in field.cuh's
// form to piece_sums, as msm_piece_sum writes it.
__host__ __device__ void fp64_piece_sum_body(ec_index_t tid, const unsigned long long* job_table,
                                             unsigned int buckets_per_job, const unsigned int* sorted,
                                             const unsigned int* offsets, const unsigned int* piece_offsets,
                                             const unsigned long long* piece_order, unsigned int buckets,
                                             unsigned int total_pieces, unsigned int min_points,
                                             unsigned int* piece_sums) {
    if (tid >= total_pieces) return;
    const unsigned int piece = (unsigned int)piece_order[tid];  // the key's low word, as msm_piece_sum
    const msm_piece_entries_t run =
        msm_piece_entries(piece, offsets, piece_offsets, buckets, buckets_per_job, min_points);
    const msm_job_t* table = reinterpret_cast<const msm_job_t*>(job_table);
    const g1_affine_t* points = ec_affine<fq_t>(reinterpret_cast<const unsigned int*>(table[run.job].bases));
    fq64_xyzz_t acc = fq64_from_xyzz(g1_xyzz_t::identity());
    for (unsigned int e = run.first; e < run.last; ++e) {
        const unsigned int entry = sorted[e];
        const g1_affine_t p = points[entry & MSM_POINT_MASK];
        acc = fq64_add_affine(acc, (entry & MSM_SIGN_BIT) ? p.neg() : p);
    }
    ec_xyzz<fq_t>(piece_sums)[piece] = fq64_to_xyzz(acc);
}

#define FP64_PIECE_SUM_PARAMS                                                                                     \
    const unsigned long long *job_table, unsigned int buckets_per_job, const unsigned int *sorted,              \
        const unsigned int *offsets, const unsigned int *piece_offsets, const unsigned long long *piece_order,   \
        unsigned int buckets, unsigned int total_pieces, unsigned int min_points, unsigned int *piece_sums
#define FP64_PIECE_SUM_ARGS \
    job_table, buckets_per_job, sorted, offsets, piece_offsets, piece_order, buckets, total_pieces, min_points, \
        piece_sums

#ifdef PROBE_HOST
// Host build (tests/test_probe_fp64_pieces.py): every piece's thread, one after another.
extern "C" void probe_host_fp64_piece_sum(FP64_PIECE_SUM_PARAMS) {
    for (ec_index_t tid = 0; tid < total_pieces; ++tid) fp64_piece_sum_body(tid, FP64_PIECE_SUM_ARGS);
}
#else
#ifndef PROBE_BLOCKS_PER_SM
#define PROBE_BLOCKS_PER_SM 2  // as fp64_madd.cu: 255 registers, no spill; -DPROBE_BLOCKS_PER_SM=3 spills
#endif
extern "C" __global__ void __launch_bounds__(EC_THREADS_PER_BLOCK, PROBE_BLOCKS_PER_SM)
fp64_piece_sum_g1(FP64_PIECE_SUM_PARAMS) {
    fp64_piece_sum_body(EC_TID, FP64_PIECE_SUM_ARGS);
}
#endif
