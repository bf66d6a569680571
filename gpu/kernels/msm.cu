// Pippenger multi-scalar multiplication, sum_i s_i * P_i, for G1 and G2 (Pippenger 1976; the
// bucket method as in Bernstein, Doumen, Lange, Oosterwijk, "Faster batch forgery identification",
// INDOCRYPT 2012, section 4), with signed digits (each window's digit in [-2^(c-1), 2^(c-1)]).
//
// One pass computes a batch of independent MSMs, its *jobs* (gpu/msm.py msm_batch groups them): job j
// sums its own scalars against its own bases, optionally through an index list (a tail MSM's subset of
// a query's points). The jobs of a pass share every launch: their buckets are the rows (job, window)
// of one bucket table, so small MSMs (each circuit's tail, per query) cost one set of launches and one
// serial Horner step instead of one each.
//
// Steps (gpu/msm.py drives them):
//   1. msm_digits        scalar t -> W signed c-bit digits; histogram of |digit| per (job, window)
//   2. (host) offsets    exclusive prefix sum of the histogram (cupy.cumsum)
//   3. msm_scatter       counting sort: (job, window, |digit|) bucket -> list of (point index, sign); a launch
//                        a slice of the magnitudes (gpu/msm.py _Plan.scatter_slices: 4 at c = 20)
//   4. msm_piece_count   a bucket's run is cut into pieces of ~sqrt(run) points (at least the pass's min_points),
//                        so a bucket that holds many points (equal scalars) does not serialise one thread
//   5. msm_piece_keys    each piece's length and index in one sort key; (host) sorted (cupy), so that a warp's 32
//                        threads take pieces of equal length: a warp runs as long as its longest piece
//   6. msm_piece_sum     one thread per piece, in that order: mixed additions over its points
//   7. msm_bucket_sum    one thread per bucket: sum of its pieces
//   8. msm_window_segments  running-sum reduction sum_b (b+1) B_b of each window, cut into segments
//   9. sum_groups        tree reduction of the segments -> one point per window
//   10. msm_combine       after all passes, one thread per MSM: Horner over its windows, sum_w 2^(c w) S_w,
//                        then to affine
// Points are affine (identity (0, 0)); accumulators XYZZ (see ec.cuh). Scalars are 8 little-endian
// u32 limbs, in Montgomery form (as ntt_h leaves them) or plain, and must be < r.
#include "ec_kernels.cuh"

// A digit word: its sign, its bucket's magnitude and its rank in the bucket (ec_kernels.cuh msm_count_digit).
// A sorted entry: the digit's sign in bit 31 (MSM_SIGN_BIT), the index of its point in its job's bases below it.
#define MSM_POINT_MASK 0x7fffffffu
#define FR_LIMBS 8
#define LIMB_BITS 32

// Row j of a pass's job table (gpu/msm.py _job_table writes it, one u64 per field): device addresses
// of the job's scalars (count x 8 u32), bases (affine points) and index list (u32 per scalar, or 0:
// scalar k goes with base k), and `first`, the pass-wide index of its first scalar. Row `jobs` is a
// sentinel whose `first` is the pass's scalar count.
struct msm_job_t {
    unsigned long long scalars, bases, indices, first;
};

// The job holding pass-wide scalar t: the last row with first <= t (binary search; rows are
// non-decreasing in `first` and row 0 has first = 0).
__host__ __device__ inline unsigned int msm_job_of(const msm_job_t* table, unsigned int jobs,
                                                       unsigned int t) {
    unsigned int lo = 0, hi = jobs;  // invariant: table[lo].first <= t < table[hi].first
    while (hi - lo > 1) {
        unsigned int mid = lo + (hi - lo) / 2;
        if (table[mid].first <= t) lo = mid; else hi = mid;
    }
    return lo;
}

// Scalar t of the pass (job j, its scalar k) -> digits[w * total + t] for w < windows, and
// counts[(j * windows + w) * 2^(c-1) + |d| - 1] += 1, the digit word taking the counter's old value as its rank.
// Signed-digit recoding: v = window bits + carry; if v > 2^(c-1) the digit is v - 2^c (negative)
// and 1 is carried into the next window. With windows = ceil(256 / c) and s < r < 2^255 the top
// window's bits are < 2^(c-1), so the last carry is always absorbed (no digit past the top).
__host__ __device__ void msm_digits_body(ec_index_t tid, const unsigned long long* job_table,
                                         unsigned int jobs, unsigned int total, unsigned int montgomery,
                                         unsigned int c, unsigned int windows, unsigned int* digits,
                                         unsigned int* counts) {
    if (tid >= total) return;
    const msm_job_t* table = reinterpret_cast<const msm_job_t*>(job_table);
    unsigned int t = (unsigned int)tid;
    unsigned int job = msm_job_of(table, jobs, t);
    const unsigned int* scalar = reinterpret_cast<const unsigned int*>(table[job].scalars) +
                                 (ec_index_t)(t - table[job].first) * FR_LIMBS;
    fr_t s;
    for (int k = 0; k < FR_LIMBS; ++k) s.l[k] = scalar[k];
    if (montgomery) s = s.from_mont();
    const unsigned int half = 1u << (c - 1);
    unsigned int* job_counts = counts + (ec_index_t)job * windows * half;
    unsigned int carry = 0;
    for (unsigned int w = 0; w < windows; ++w) {
        unsigned int v = scalar_window(s.l, w * c, c) + carry;
        unsigned int word = 0;
        if (v > half) {
            word = ((1u << c) - v) | MSM_SIGN_BIT;  // d = v - 2^c < 0
            carry = 1;
        } else {
            word = v;
            carry = 0;
        }
        if (v == (1u << c)) word = 0;  // v - 2^c = 0: nothing in this window, the carry moves on
        if (word != 0) word = msm_count_digit(&job_counts[w * half + msm_magnitude(word, c) - 1], word, c);
        digits[(ec_index_t)w * total + t] = word;
    }
}
EC_KERNEL(msm_digits,
          (const unsigned long long* job_table, unsigned int jobs, unsigned int total,
           unsigned int montgomery, unsigned int c, unsigned int windows, unsigned int* digits,
           unsigned int* counts),
          (EC_TID, job_table, jobs, total, montgomery, c, windows, digits, counts))

// Counting sort's scatter: thread w * total + t puts (point | sign) at its bucket's offset + its rank, point being
// the index into the job's bases (through its index list, if any); the digits whose rank overflowed take the slots
// after offset + msm_rank_overflow(c) in the order of their atomic additions to overflowed[bucket] (zeros before).
// The order inside a bucket depends on the atomics, but a bucket's sum does not.
// A launch writes only the digits of magnitudes first <= |d| < end (gpu/msm.py _Plan.scatter_slices): its writes
// then advance through fewer buckets at once, whose partly written cache lines stay in L2 until filled.
__host__ __device__ void msm_scatter_body(ec_index_t tid, const unsigned int* digits,
                                          const unsigned long long* job_table, unsigned int jobs,
                                          unsigned int total, unsigned int windows, unsigned int c,
                                          unsigned int first, unsigned int end,
                                          const unsigned int* offsets, unsigned int* overflowed,
                                          unsigned int* sorted) {
    if (tid >= (ec_index_t)total * windows) return;
    unsigned int word = ec_load_streaming(&digits[tid]);
    unsigned int magnitude = msm_magnitude(word, c);
    if (magnitude < first || magnitude >= end) return;  // word 0 has magnitude 0 < first
    const msm_job_t* table = reinterpret_cast<const msm_job_t*>(job_table);
    unsigned int window = (unsigned int)(tid / total);
    unsigned int t = (unsigned int)(tid % total);
    unsigned int job = msm_job_of(table, jobs, t);
    unsigned int k = t - (unsigned int)table[job].first;
    const unsigned int* indices = reinterpret_cast<const unsigned int*>(table[job].indices);
    unsigned int point = indices ? indices[k] : k;
    unsigned int bucket = ((job * windows + window) << (c - 1)) + magnitude - 1;
    unsigned int rank = msm_rank(word, c);
    unsigned int overflow = msm_rank_overflow(c);
    unsigned int slot = offsets[bucket] + (rank < overflow ? rank
                                                           : overflow + ec_atomic_add(&overflowed[bucket], 1u));
    sorted[slot] = point | (word & MSM_SIGN_BIT);
}
EC_KERNEL(msm_scatter,
          (const unsigned int* digits, const unsigned long long* job_table, unsigned int jobs,
           unsigned int total, unsigned int windows, unsigned int c, unsigned int first, unsigned int end,
           const unsigned int* offsets, unsigned int* overflowed, unsigned int* sorted),
          (EC_TID, digits, job_table, jobs, total, windows, c, first, end, offsets, overflowed, sorted))

// ceil(sqrt(x)) for x < 2^32, by binary search on the integers (exact, no floating point).
__host__ __device__ inline unsigned int ceil_sqrt(unsigned int x) {
    unsigned long long lo = 0, hi = 1ull << 16;  // invariant: lo^2 < x <= hi^2, or x == 0
    if (x == 0) return 0;
    while (hi - lo > 1) {
        unsigned long long mid = (lo + hi) / 2;
        if (mid * mid >= x) hi = mid; else lo = mid;
    }
    return (unsigned int)hi;
}

// Points per piece for a bucket of `run` points: max(min_points, ceil(sqrt(run))), min_points the pass's choice
// (gpu/msm.py _Plan.piece_min_points).
__host__ __device__ inline unsigned int piece_length(unsigned int run, unsigned int min_points) {
    unsigned int root = ceil_sqrt(run);
    return root > min_points ? root : min_points;
}

// pieces[b] = ceil(run_b / piece_length(run_b)), run_b = offsets[b + 1] - offsets[b].
__host__ __device__ void msm_piece_count_body(ec_index_t tid, const unsigned int* offsets, unsigned int buckets,
                                              unsigned int min_points, unsigned int* pieces) {
    if (tid >= buckets) return;
    unsigned int run = offsets[tid + 1] - offsets[tid];
    unsigned int length = piece_length(run, min_points);
    pieces[tid] = (run + length - 1) / length;
}
EC_KERNEL(msm_piece_count,
          (const unsigned int* offsets, unsigned int buckets, unsigned int min_points, unsigned int* pieces),
          (EC_TID, offsets, buckets, min_points, pieces))

// keys[piece] = ec_work_key(its points, piece) for every piece of bucket tid: its full pieces, then the last, shorter
// one (a pass has fewer than 2^32 digits, so fewer pieces). Sorted, they list the pieces longest first.
__host__ __device__ void msm_piece_keys_body(ec_index_t tid, const unsigned int* offsets,
                                             const unsigned int* piece_offsets, unsigned int buckets,
                                             unsigned int min_points, unsigned long long* keys) {
    if (tid >= buckets) return;
    unsigned int run = offsets[tid + 1] - offsets[tid];
    unsigned int length = piece_length(run, min_points);
    for (unsigned int piece = piece_offsets[tid], first = 0; piece < piece_offsets[tid + 1]; ++piece, first += length) {
        unsigned int points = run - first < length ? run - first : length;
        keys[piece] = ec_work_key(points, piece);
    }
}
EC_KERNEL(msm_piece_keys,
          (const unsigned int* offsets, const unsigned int* piece_offsets, unsigned int buckets,
           unsigned int min_points, unsigned long long* keys),
          (EC_TID, offsets, piece_offsets, buckets, min_points, keys))

// The bucket b with piece_offsets[b] <= piece < piece_offsets[b + 1] (binary search; the array
// is non-decreasing and has buckets + 1 entries).
__host__ __device__ inline unsigned int bucket_of_piece(const unsigned int* piece_offsets, unsigned int buckets,
                                                        unsigned int piece) {
    unsigned int lo = 0, hi = buckets;  // invariant: piece_offsets[lo] <= piece < piece_offsets[hi]
    while (hi - lo > 1) {
        unsigned int mid = lo + (hi - lo) / 2;
        if (piece_offsets[mid] <= piece) lo = mid; else hi = mid;
    }
    return lo;
}

// Piece `piece`'s slice of its bucket's sorted run: the entries [first, last) of `sorted`, points of job `job`'s bases
// (buckets_per_job = windows * 2^(c-1) buckets each). bench/probes' piece sums read their pieces through it too.
struct msm_piece_entries_t {
    unsigned int first, last, job;
};
__host__ __device__ inline msm_piece_entries_t msm_piece_entries(unsigned int piece, const unsigned int* offsets,
                                                                 const unsigned int* piece_offsets,
                                                                 unsigned int buckets, unsigned int buckets_per_job,
                                                                 unsigned int min_points) {
    const unsigned int bucket = bucket_of_piece(piece_offsets, buckets, piece);
    const unsigned int run_start = offsets[bucket], run_end = offsets[bucket + 1];
    const unsigned int length = piece_length(run_end - run_start, min_points);
    const unsigned int first = run_start + (piece - piece_offsets[bucket]) * length;
    return msm_piece_entries_t{first, first + length < run_end ? first + length : run_end, bucket / buckets_per_job};
}

// piece_sums[p] = sum of the (signed) bases of piece p's entries (msm_piece_entries), p the low word of thread tid's
// sorted key (so the sums land in piece order, whichever thread computes them).
template <class F>
__host__ __device__ void msm_piece_sum_body(ec_index_t tid, const unsigned long long* job_table,
                                            unsigned int buckets_per_job, const unsigned int* sorted,
                                            const unsigned int* offsets, const unsigned int* piece_offsets,
                                            const unsigned long long* piece_order, unsigned int buckets,
                                            unsigned int total_pieces, unsigned int min_points,
                                            unsigned int* piece_sums) {
    if (tid >= total_pieces) return;
    unsigned int piece = (unsigned int)piece_order[tid];  // the key's low word
    const msm_piece_entries_t run =
        msm_piece_entries(piece, offsets, piece_offsets, buckets, buckets_per_job, min_points);
    const msm_job_t* table = reinterpret_cast<const msm_job_t*>(job_table);
    const affine_t<F>* points = ec_affine<F>(reinterpret_cast<const unsigned int*>(table[run.job].bases));
    xyzz_t<F> host_slot;
    xyzz_t<F>* acc = accumulator_slot<F>(&host_slot);
    *acc = xyzz_t<F>::identity();
    for (unsigned int e = run.first; e < run.last; ++e) {
        unsigned int entry = sorted[e];
        affine_t<F> p = points[entry & MSM_POINT_MASK];
        xyzz_add_affine_to(acc, (entry & MSM_SIGN_BIT) ? p.neg() : p);
    }
    ec_xyzz<F>(piece_sums)[piece] = *acc;
}
#define MSM_PIECE_SUM_PARAMS                                                                        \
    (const unsigned long long* job_table, unsigned int buckets_per_job, const unsigned int* sorted,   \
     const unsigned int* offsets, const unsigned int* piece_offsets,                                  \
     const unsigned long long* piece_order, unsigned int buckets, unsigned int total_pieces,          \
     unsigned int min_points, unsigned int* piece_sums)
#define MSM_PIECE_SUM_ARGS                                                                               \
    (EC_TID, job_table, buckets_per_job, sorted, offsets, piece_offsets, piece_order, buckets, total_pieces, \
     min_points, piece_sums)
// The G1 bucket additions (85% of an MSM's time, bound by the multiply-add pipe: bench/RESULTS_msm.md) keep 4 blocks,
// 16 warps, an SM (128 registers): with the running sum in shared memory (accumulator_slot) they fit, and 2.2-2.3%
// faster than a bound of 3 blocks, under which ptxas gave them 142 registers (bench/RESULTS_msm.md, "s, r and r2 in
// one call").
// The gain is the registers, not the 4th block: at 128 registers 3 resident blocks run as fast as 4 (615.11 against
// 615.07 ms at 2^27, RESULTS_msm.md session 41). Unbounded, ptxas gave them 176 registers once ec.cuh's Y coordinates
// took the lazily reduced a b - c d: 2 blocks, 1.3% slower than 3.
#define MSM_PIECE_SUM_G1_BLOCKS_PER_SM 4
EC_KERNEL_G1_MIN_BLOCKS(msm_piece_sum, MSM_PIECE_SUM_G1_BLOCKS_PER_SM, MSM_PIECE_SUM_PARAMS, MSM_PIECE_SUM_ARGS)
EC_KERNEL_G2(msm_piece_sum, MSM_PIECE_SUM_PARAMS, MSM_PIECE_SUM_ARGS)

// bucket_sums[b] = sum of the pieces piece_offsets[b] .. piece_offsets[b + 1] (identity if none).
template <class F>
__host__ __device__ void msm_bucket_sum_body(ec_index_t tid, const unsigned int* piece_sums,
                                             const unsigned int* piece_offsets, unsigned int buckets,
                                             unsigned int* bucket_sums) {
    if (tid >= buckets) return;
    const xyzz_t<F>* pieces = ec_xyzz<F>(piece_sums);
    xyzz_t<F> acc = xyzz_t<F>::identity();
    for (unsigned int p = piece_offsets[tid]; p < piece_offsets[tid + 1]; ++p) acc = xyzz_add(acc, pieces[p]);
    ec_xyzz<F>(bucket_sums)[tid] = acc;
}
EC_KERNEL_G1_G2(msm_bucket_sum,
                (const unsigned int* piece_sums, const unsigned int* piece_offsets, unsigned int buckets,
                 unsigned int* bucket_sums),
                (EC_TID, piece_sums, piece_offsets, buckets, bucket_sums))

// A window's sum is sum_{b < K} (b + 1) B_b. Segment j of a window holds buckets
// [j L, (j + 1) L), L = K / segments. With running sums from the top of the segment
// (running += B_b; total += running), total = sum_b (b - jL + 1) B_b and running = sum_b B_b, so the
// segment contributes total + (j L) * running. contributions[w * segments + j] receives it.
template <class F>
__host__ __device__ void msm_window_segments_body(ec_index_t tid, const unsigned int* bucket_sums,
                                                  unsigned int windows, unsigned int buckets_per_window,
                                                  unsigned int segments, unsigned int* contributions) {
    if (tid >= (ec_index_t)windows * segments) return;
    unsigned int window = (unsigned int)(tid / segments);
    unsigned int segment = (unsigned int)(tid % segments);
    unsigned int length = buckets_per_window / segments;
    const xyzz_t<F>* row = ec_xyzz<F>(bucket_sums) + (ec_index_t)window * buckets_per_window + segment * length;
    xyzz_t<F> running = xyzz_t<F>::identity();
    xyzz_t<F> total = xyzz_t<F>::identity();
    for (unsigned int b = length; b-- > 0;) {
        running = xyzz_add(running, row[b]);
        total = xyzz_add(total, running);
    }
    ec_xyzz<F>(contributions)[tid] = xyzz_add(total, xyzz_mul_small(running, segment * length));
}
EC_KERNEL_G1_G2(msm_window_segments,
                (const unsigned int* bucket_sums, unsigned int windows, unsigned int buckets_per_window,
                 unsigned int segments, unsigned int* contributions),
                (EC_TID, bucket_sums, windows, buckets_per_window, segments, contributions))

// out[j] = to_affine(sum_w 2^(c w) S_{j,w}) for every job j of a batch (one thread each), by Horner's rule from
// the top window. Row j of combine_table (MSM_COMBINE_FIELDS words) holds the job's first row in window_sums, its
// window count W and width c: S_{j,w} = window_sums[first + w]. One launch serves the jobs of every pass and window
// width of the batch, so their serial chains of doublings run side by side. While the accumulator is the
// identity its doublings are skipped (2^c O = O): a scalar whose top windows are empty, as the constant 1 of a
// tail's input ONE, costs no doublings.
#define MSM_COMBINE_FIELDS 3
template <class F>
__host__ __device__ void msm_combine_body(ec_index_t tid, const unsigned int* window_sums,
                                          const unsigned int* combine_table, unsigned int jobs, unsigned int* out) {
    if (tid >= jobs) return;
    const unsigned int* row = combine_table + tid * MSM_COMBINE_FIELDS;
    const unsigned int first = row[0], windows = row[1], c = row[2];
    const xyzz_t<F>* sums = ec_xyzz<F>(window_sums) + first;
    xyzz_t<F> acc = xyzz_t<F>::identity();
    for (unsigned int w = windows; w-- > 0;) {
        if (!acc.is_identity())
            for (unsigned int k = 0; k < c; ++k) acc = xyzz_double(acc);
        acc = xyzz_add(acc, sums[w]);
    }
    ec_affine<F>(out)[tid] = xyzz_to_affine(acc);
}
EC_KERNEL_G1_G2(msm_combine,
                (const unsigned int* window_sums, const unsigned int* combine_table, unsigned int jobs,
                 unsigned int* out),
                (EC_TID, window_sums, combine_table, jobs, out))

EC_KERNEL_G1_G2(sum_groups,
                (const unsigned int* in, unsigned int* out, unsigned int groups, unsigned int in_per_group,
                 unsigned int fold, unsigned int out_per_group),
                (EC_TID, in, out, groups, in_per_group, fold, out_per_group))
EC_KERNEL_G1_G2(progression_points,
                (const unsigned int* start, const unsigned int* step, unsigned int count, unsigned int run,
                 unsigned int* xyzz_scratch, unsigned int* prefix_scratch, unsigned int* out),
                (EC_TID, start, step, count, run, xyzz_scratch, prefix_scratch, out))
