// Batch addition: for each bitmap row, the sum of the bases whose bit is set, for G1 and G2.
//
//   sum_c = sum_{i : bit i of row c is set} P_i      (bit i = bit i%32 of little-endian word i/32)
//
// One pass over the bases serves every row: thread (chunk, row) walks the chunk's words of its
// row and adds the selected points with madd-2008-s (ec.cuh). The rows of one chunk are adjacent
// thread indices, so they read the same bases at about the same time and DRAM sees each base
// once; the chunks go most selected bits first (batch_chunk_keys). Per-chunk sums are then reduced by sum_groups (a
// tree in global memory).
//
// Complement rule: a row with more than half of its bits set is summed over its CLEAR bits and
// subtracted from the total of all bases, sum_c = T - sum_{i : bit clear} P_i. A Groth16 witness
// is mostly ones, so this turns a 99% row into a 1% row; T is summed once (a row in ALL mode)
// and then kept with the bases by gpu/batch_add.py.
//
// Several rows that share the bases can instead be summed by their patterns (batch_patterns, pattern_row_sums, below;
// gpu/batch_add.py says when): one addition a base that any row selects, instead of one a row that selects it.
#include "ec_kernels.cuh"

#define BATCH_MODE_BITS 0u        // sum the set bits
#define BATCH_MODE_COMPLEMENT 1u  // sum the clear bits (finish: T - that sum)
#define BATCH_MODE_ALL 2u         // sum every base (T); the row's bitmap is not read
#define WORD_BITS 32u

// Word `word_index` of a row as the mode selects it, with the bits past the last base cleared.
__host__ __device__ inline unsigned int selected_word(const unsigned int* row_words, unsigned int word_index,
                                                      unsigned int mode, unsigned int n) {
    unsigned int word = mode == BATCH_MODE_ALL ? ~0u : row_words[word_index];
    if (mode == BATCH_MODE_COMPLEMENT) word = ~word;
    unsigned int valid = n - word_index * WORD_BITS;  // bases left from this word on (>= 1)
    if (valid < WORD_BITS) word &= (1u << valid) - 1u;
    return word;
}

// A chunk of a pass: words [chunk * chunk_words, (chunk + 1) * chunk_words) of every row, the last chunk shorter.
__host__ __device__ inline void chunk_words_of(unsigned int n, unsigned int chunk_words, unsigned int chunk,
                                               unsigned int* first, unsigned int* last) {
    unsigned int total_words = (n + WORD_BITS - 1) / WORD_BITS;
    *first = chunk * chunk_words;
    *last = *first + chunk_words < total_words ? *first + chunk_words : total_words;
}

// keys[chunk] = ec_work_key(the chunk's selected bits over all rows, chunk): sorted, they give batch_add_chunks its
// chunks with the most additions first. A row's chunks hold equal words but not equal bits (at density 1/2 a warp of
// chunks in index order kept 29.2 of its 32 lanes busy, and its last wave ran 3.7% past the SMs' busy cycles:
// bench/RESULTS_msm.md, "Session 38"). A chunk's rows stay together, on adjacent threads.
__host__ __device__ void batch_chunk_keys_body(ec_index_t tid, unsigned int n, const unsigned int* bitmaps,
                                               unsigned int words_per_row, const unsigned int* modes,
                                               unsigned int rows, unsigned int chunk_words, unsigned int chunks,
                                               unsigned long long* keys) {
    if (tid >= chunks) return;
    unsigned int first, last, bits = 0;
    chunk_words_of(n, chunk_words, (unsigned int)tid, &first, &last);
    for (unsigned int row = 0; row < rows; ++row) {
        const unsigned int* row_words = bitmaps + (ec_index_t)row * words_per_row;
        for (unsigned int w = first; w < last; ++w) bits += ec_popcount(selected_word(row_words, w, modes[row], n));
    }
    keys[tid] = ec_work_key(bits, (unsigned int)tid);
}
EC_KERNEL(batch_chunk_keys,
          (unsigned int n, const unsigned int* bitmaps, unsigned int words_per_row, const unsigned int* modes,
           unsigned int rows, unsigned int chunk_words, unsigned int chunks, unsigned long long* keys),
          (EC_TID, n, bitmaps, words_per_row, modes, rows, chunk_words, chunks, keys))

// partial[row * chunks + chunk] = sum of the row's selected bases in the chunk's words; thread tid takes row
// tid % rows of chunk (unsigned int)order[tid / rows] (batch_chunk_keys' keys, sorted), so that the rows of one chunk
// are adjacent thread indices, reading the same bases at about the same time.
template <class F>
__host__ __device__ void batch_add_chunks_body(ec_index_t tid, const unsigned int* bases, unsigned int n,
                                               const unsigned int* bitmaps, unsigned int words_per_row,
                                               const unsigned int* modes, unsigned int rows,
                                               unsigned int chunk_words, unsigned int chunks,
                                               const unsigned long long* order, unsigned int* partial) {
    if (tid >= (ec_index_t)chunks * rows) return;
    unsigned int chunk = (unsigned int)order[tid / rows];  // the key's low word
    unsigned int row = (unsigned int)(tid % rows);
    unsigned int mode = modes[row];
    const unsigned int* row_words = bitmaps + (ec_index_t)row * words_per_row;
    unsigned int first, last;
    chunk_words_of(n, chunk_words, chunk, &first, &last);
    const affine_t<F>* points = ec_affine<F>(bases);
    xyzz_t<F> host_slot;
    xyzz_t<F>* acc = accumulator_slot<F>(&host_slot);
    *acc = xyzz_t<F>::identity();
    // One loop over the chunk's selected bits, not one loop a word: a warp's lanes then stay together for the whole
    // chunk instead of meeting at every word, where each lane waited for the lane with the most bits (at density 1/2,
    // about 22 steps a word for 16 additions; over a chunk of 32 words about 546 for 512).
    unsigned int w = first;
    unsigned int word = w < last ? selected_word(row_words, w, mode, n) : 0u;
    for (;;) {
        while (word == 0u && ++w < last) word = selected_word(row_words, w, mode, n);
        if (word == 0u) break;  // no selected bit left in the chunk
        unsigned int bit = ec_lowest_bit(word);
        word &= word - 1u;
        xyzz_add_affine_to(acc, points[(ec_index_t)w * WORD_BITS + bit]);
    }
    ec_xyzz<F>(partial)[(ec_index_t)row * chunks + chunk] = *acc;
}
#define BATCH_ADD_CHUNKS_PARAMS                                                                                    \
    (const unsigned int* bases, unsigned int n, const unsigned int* bitmaps, unsigned int words_per_row,         \
     const unsigned int* modes, unsigned int rows, unsigned int chunk_words, unsigned int chunks,                \
     const unsigned long long* order, unsigned int* partial)
#define BATCH_ADD_CHUNKS_ARGS \
    (EC_TID, bases, n, bitmaps, words_per_row, modes, rows, chunk_words, chunks, order, partial)
// G1's chunks at 4 blocks an SM, as msm.cu's G1 piece sums (the same loop of mixed additions): 1.4% faster for ten
// circuits than 3 (bench/RESULTS_msm.md, "s, r and r2 in one call"); gpu/batch_add.py RESIDENT_THREADS counts the
// threads this keeps resident.
#define BATCH_ADD_CHUNKS_G1_BLOCKS_PER_SM 4
EC_KERNEL_G1_MIN_BLOCKS(batch_add_chunks, BATCH_ADD_CHUNKS_G1_BLOCKS_PER_SM, BATCH_ADD_CHUNKS_PARAMS,
                        BATCH_ADD_CHUNKS_ARGS)
EC_KERNEL_G2(batch_add_chunks, BATCH_ADD_CHUNKS_PARAMS, BATCH_ADD_CHUNKS_ARGS)

// Circuit patterns (gpu/batch_add.py BatchAdder, the pattern path): the rows of a call share the bases, so base i's
// selected bits across the rows, its pattern p_i = sum_k s_ki 2^k (s_ki: bit i of row k's selected_word), name one of
// 2^rows buckets. digits[i] = p_i as an msm.cu digit word (magnitude p_i, sign clear, its rank; 0: no bucket), and
// counts[s 2^rows + p_i - 1] += 1, s = i / segment_points the base's segment: one window of rows + 1 bits, a segment
// a job, for gpu/msm.py window_bucket_sums. MODE_ALL rows do not come here.
__host__ __device__ void batch_patterns_body(ec_index_t tid, const unsigned int* bitmaps, unsigned int words_per_row,
                                             const unsigned int* modes, unsigned int rows, unsigned int n,
                                             unsigned int segment_points, unsigned int* digits, unsigned int* counts) {
    if (tid >= n) return;
    unsigned int word_index = (unsigned int)(tid / WORD_BITS);
    unsigned int bit = (unsigned int)(tid % WORD_BITS);
    unsigned int pattern = 0;
    for (unsigned int k = 0; k < rows; ++k) {
        unsigned int word = selected_word(bitmaps + (ec_index_t)k * words_per_row, word_index, modes[k], n);
        pattern |= ((word >> bit) & 1u) << k;
    }
    ec_index_t segment_row = (tid / segment_points) << rows;
    digits[tid] = pattern == 0 ? 0u : msm_count_digit(&counts[segment_row + pattern - 1], pattern, rows + 1);
}
EC_KERNEL(batch_patterns,
          (const unsigned int* bitmaps, unsigned int words_per_row, const unsigned int* modes, unsigned int rows,
           unsigned int n, unsigned int segment_points, unsigned int* digits, unsigned int* counts),
          (EC_TID, bitmaps, words_per_row, modes, rows, n, segment_points, digits, counts))

// Row k's selected sum from the pattern buckets: S_k = sum over the segments s and the patterns p with bit k set of
// B_{s,p} = bucket_sums[s 2^rows + p - 1]. The patterns with bit k are m with a 1 inserted at bit k, m < 2^(rows-1):
// the pairs (s, m) are numbered s 2^(rows-1) + m, and thread (k, slice) sums `fold` of them into
// partial[k * slices + slice]; sum_groups adds a row's slices.
template <class F>
__host__ __device__ void pattern_row_sums_body(ec_index_t tid, const unsigned int* bucket_sums, unsigned int rows,
                                               unsigned int segments, unsigned int fold, unsigned int slices,
                                               unsigned int* partial) {
    if (tid >= (ec_index_t)rows * slices) return;
    unsigned int k = (unsigned int)(tid / slices);
    unsigned int slice = (unsigned int)(tid % slices);
    unsigned int with_bit_k = 1u << (rows - 1);
    ec_index_t pairs = (ec_index_t)segments * with_bit_k;
    ec_index_t first = (ec_index_t)slice * fold;
    ec_index_t last = first + fold < pairs ? first + fold : pairs;
    const xyzz_t<F>* buckets = ec_xyzz<F>(bucket_sums);
    xyzz_t<F> acc = xyzz_t<F>::identity();
    for (ec_index_t pair = first; pair < last; ++pair) {
        ec_index_t segment_row = (pair >> (rows - 1)) << rows;
        unsigned int m = (unsigned int)(pair & (with_bit_k - 1u));
        unsigned int low = m & ((1u << k) - 1u);
        unsigned int pattern = ((m - low) << 1) | (1u << k) | low;
        acc = xyzz_add(acc, buckets[segment_row + pattern - 1]);
    }
    ec_xyzz<F>(partial)[tid] = acc;
}
EC_KERNEL_G1_G2(pattern_row_sums,
                (const unsigned int* bucket_sums, unsigned int rows, unsigned int segments, unsigned int fold,
                 unsigned int slices, unsigned int* partial),
                (EC_TID, bucket_sums, rows, segments, fold, slices, partial))

// out[row] = to_affine(sums[row]), or to_affine(T - sums[row]) for a COMPLEMENT row.
template <class F>
__host__ __device__ void batch_add_finish_body(ec_index_t tid, const unsigned int* sums, const unsigned int* modes,
                                               const unsigned int* total, unsigned int rows, unsigned int* out) {
    if (tid >= rows) return;
    xyzz_t<F> sum = ec_xyzz<F>(sums)[tid];
    if (modes[tid] == BATCH_MODE_COMPLEMENT) sum = xyzz_add(ec_xyzz<F>(total)[0], sum.neg());
    ec_affine<F>(out)[tid] = xyzz_to_affine(sum);
}
EC_KERNEL_G1_G2(batch_add_finish,
                (const unsigned int* sums, const unsigned int* modes, const unsigned int* total, unsigned int rows,
                 unsigned int* out),
                (EC_TID, sums, modes, total, rows, out))

// counts[row] += popcount of word (tid % words) of the row, bits past n cleared; one thread per
// word of every row, for bitmaps that are already on the device.
__host__ __device__ void bitmap_popcount_body(ec_index_t tid, const unsigned int* bitmaps, unsigned int rows,
                                              unsigned int words_per_row, unsigned int n, unsigned int* counts) {
    unsigned int total_words = (n + WORD_BITS - 1) / WORD_BITS;
    if (tid >= (ec_index_t)rows * total_words) return;
    unsigned int row = (unsigned int)(tid / total_words);
    unsigned int word_index = (unsigned int)(tid % total_words);
    const unsigned int* row_words = bitmaps + (ec_index_t)row * words_per_row;
    unsigned int word = selected_word(row_words, word_index, BATCH_MODE_BITS, n);
    if (word != 0) ec_atomic_add(&counts[row], ec_popcount(word));
}
EC_KERNEL(bitmap_popcount,
          (const unsigned int* bitmaps, unsigned int rows, unsigned int words_per_row, unsigned int n,
           unsigned int* counts),
          (EC_TID, bitmaps, rows, words_per_row, n, counts))

EC_KERNEL_G1_G2(sum_groups,
                (const unsigned int* in, unsigned int* out, unsigned int groups, unsigned int in_per_group,
                 unsigned int fold, unsigned int out_per_group),
                (EC_TID, in, out, groups, in_per_group, fold, out_per_group))
