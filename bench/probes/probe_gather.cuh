// The pseudo-random gathers of the probes that sum bases into accumulators (batched_affine.cu, fp64_madd.cu), as a
// bucket's sorted run gathers random bases. tests/conftest.py probe_gather_index mirrors it. Not part of the prover.
#pragma once

typedef unsigned long long probe_index_t;

// The point that accumulator i of thread t (k accumulators a thread) adds at step s: a multiplicative hash (Knuth's
// 2654435761) of the flat index, reduced mod the number of points.
__host__ __device__ inline unsigned int probe_index(probe_index_t t, unsigned int i, unsigned int s, unsigned int k,
                                                    unsigned int steps, unsigned int points) {
    probe_index_t flat = (t * k + i) * steps + s;
    return (unsigned int)((flat * 2654435761ull) % points);
}
