// msm_piece_sum's pieces (gpu/kernels/msm.cu msm_piece_sum_body), for the probes that redo its work on its own
// arguments (affine_pieces.cu, fp64_pieces.cu): piece `piece` sums entries [first, last) of `sorted`, points of job
// `job`'s bases. Not part of the prover; the probes compare their sums with msm_piece_sum's, so a drift from msm.cu
// fails them (tests/test_probe_affine_pieces.py, test_probe_fp64_pieces.py).
#pragma once

struct piece_entries_t {
    unsigned int first, last, job;
};

__host__ __device__ inline piece_entries_t piece_entries(unsigned int piece, const unsigned int* offsets,
                                                         const unsigned int* piece_offsets, unsigned int buckets,
                                                         unsigned int buckets_per_job, unsigned int min_points) {
    const unsigned int bucket = bucket_of_piece(piece_offsets, buckets, piece);
    const unsigned int run_start = offsets[bucket], run_end = offsets[bucket + 1];
    const unsigned int length = piece_length(run_end - run_start, min_points);
    const unsigned int first = run_start + (piece - piece_offsets[bucket]) * length;
    return piece_entries_t{first, first + length < run_end ? first + length : run_end, bucket / buckets_per_job};
}
