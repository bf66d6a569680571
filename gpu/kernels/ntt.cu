// Number-theoretic transforms over Fr (BLS12-381 scalar field), natural order in and out.
//
// NTT_n(v)_j = sum_i v_i w^(ij), w a primitive n-th root of unity (the inverse transform uses
// w^-1; its 1/n, and the coset factors g^i, are per-element scale factors applied on the fly).
//
// Algorithm: Stockham's self-sorting FFT with a large radix R per pass ("autosort": no bit-reversal
// pass; formulation of N. K. Govindaraju, B. Lloyd, Y. Dotsenko, B. Smith, J. Manferdelli,
// "High Performance Discrete Fourier Transforms on Graphics Processors", SC 2008, Figure 2).
// n = R_0 R_1 ... R_{P-1}, every R_p <= 2^MAX_LOG_RADIX, so n <= 2^30 takes P <= 3 passes: each
// element is read and written P times, not log n times. In pass p, with Ns = R_0 ... R_{p-1}:
//
//   for every j < n / R:   x_r = src[j + r n/R] * w_{Ns R}^(r (j mod Ns))       (r < R)
//                          X   = DFT_R(x)
//                          dst[(j div Ns) Ns R + (j mod Ns) + k Ns] = X_k       (k < R)
//
// One thread block holds T consecutive j (T R = min(n, 2^BLOCK_LOG_ELEMENTS) elements) in shared
// memory and computes their R-point DFTs with radix-2 decimation-in-frequency (Gentleman-Sande)
// stages, which leave the DFT in bit-reversed order; the store reads it back through the
// bit reversal. In every pass but the last (ntt_pass_grouped) each thread runs three consecutive stages
// at a time on the 8 elements they mix, in registers (dif_stages): a shared-memory round trip and a
// barrier every three stages, not every stage. The last pass (ntt_pass) runs one stage at a time.
// Consecutive threads touch consecutive j, so global reads and writes come in contiguous runs of T
// elements (pass 0 writes whole contiguous blocks).
//
// Twiddles w_{Ns R}^(rk) = w_n^e with e = r k n / (Ns R) < n come from tables of powers of w_n
// (computed on the device by fr_powers, cached per log n by gpu/ntt.py):
//   hi[i] = w_n^(i 2^b) (i < n / 2^b), lo[i] = w_n^i (i < 2^b), b = log2 R_{P-1};
// every pass but the last has e divisible by 2^b and needs hi only. The last pass reads w_n^e from the half table
// half[i] = w_n^i (i < n/2, w_n the forward root) when memory allows (half_table_twiddle: one lookup, both
// directions), else multiplies hi by lo (one Fr product more an element).
// Inside a DFT of size R the stage twiddles are powers of w_{2^MAX_LOG_RADIX} (a 512-entry table):
// all roots come from one generator (w_n = g^((r-1)/n), g = 7 for bellman, 5 for snarkjs; gpu/ntt.py
// builds both tables from the same g), so w_R = w_{2^10}^(2^10 / R).
#include "field.cuh"

// NTT_MAX_LOG_RADIX / NTT_BLOCK_LOG_ELEMENTS may be overridden (never above 10) only by the host
// emulation in tests/native/ntt_emulate.cpp, to reach 3 and 4 passes at small n; NTT_REGISTER_STAGES
// (1..3) there too, and by bench/bench_ntt.py to time the grouping against one stage at a time.
#ifndef NTT_MAX_LOG_RADIX
#define NTT_MAX_LOG_RADIX 10
#endif
#ifndef NTT_BLOCK_LOG_ELEMENTS
#define NTT_BLOCK_LOG_ELEMENTS 10
#endif
constexpr int MAX_LOG_RADIX = NTT_MAX_LOG_RADIX;            // largest DFT inside one pass: 2^10 points
constexpr int BLOCK_LOG_ELEMENTS = NTT_BLOCK_LOG_ELEMENTS;  // elements per block: 1024 x 32 B = 32 KiB shared memory
constexpr int BLOCK_ELEMENTS = 1 << BLOCK_LOG_ELEMENTS;
#ifndef NTT_REGISTER_STAGES
#define NTT_REGISTER_STAGES 3
#endif
constexpr int REGISTER_STAGES = NTT_REGISTER_STAGES;  // DIF stages a thread runs in registers (dif_stages), 1..3
static_assert(REGISTER_STAGES >= 1 && REGISTER_STAGES <= 3, "dif_stages is instantiated for 1, 2 and 3 stages");
constexpr int GROUPED_THREADS = BLOCK_ELEMENTS >> REGISTER_STAGES;  // threads a block of ntt_pass_grouped: one a group
constexpr int STAGED_THREADS = BLOCK_ELEMENTS >> 2;  // threads a block of ntt_pass: two butterflies a stage each
// Blocks an SM that both pass kernels are compiled for (registers capped at 128 and 64): the occupancy they had with
// the products inlined, which shared memory (32 KiB a block) caps at 4 anyway. Without the cap the out-of-line
// products (stage_product) take 138 and 70 registers, 3 blocks an SM: measured no faster than before (ntt_h at 2^27
// 316.2 against 314.2 ms); with it ntt_pass_grouped spills 116 bytes and is faster (bench/RESULTS_ntt.md).
constexpr int BLOCKS_PER_SM = 4;
constexpr int SWIZZLE_BITS = 3;         // 8 threads share one 128-byte shared-memory wavefront
constexpr int SWIZZLE_MASK = (1 << SWIZZLE_BITS) - 1;

// How a pass multiplies its inputs by twiddles.
constexpr int TWIDDLE_NONE = 0;          // pass 0: every twiddle is w^0
constexpr int TWIDDLE_HI = 1;            // middle passes: hi[e >> b]
constexpr int TWIDDLE_HI_LO = 2;         // last pass: hi[e >> b] * lo[e mod 2^b]
constexpr int TWIDDLE_HALF = 3;          // last pass of a forward transform: w_n^e from the half table
constexpr int TWIDDLE_HALF_INVERSE = 4;  // last pass of an inverse transform: w_n^-e from the same table

// How a pass scales the elements it reads (pass 0) or writes (last pass), by element index i.
constexpr int SCALE_NONE = 0;
constexpr int SCALE_CONST = 1;  // lo[0]: the 1/n of an inverse transform
constexpr int SCALE_TABLE = 2;  // lo[i mod 2^bits] * hi[i >> bits] = c * g^i for coset transforms
static_assert(TWIDDLE_HI == 1 && TWIDDLE_HALF_INVERSE == 4 && SCALE_TABLE == 2, "gpu/ntt.py passes these mode numbers");

// Shared memory keeps each 32-byte element as two 16-byte halves in separate arrays, so that
// 8 threads reading 8 elements fill one wavefront; the XOR swizzle folds the index bits in groups
// of three, which puts any 8 indices that differ only in 3 consecutive bits (all the patterns
// below: runs of t, butterfly partners, bit-reversed reads) on 8 different bank groups.
__device__ __forceinline__ int swizzle(int idx) {
    int fold = (idx >> SWIZZLE_BITS) ^ (idx >> (2 * SWIZZLE_BITS)) ^ (idx >> (3 * SWIZZLE_BITS));
    return idx ^ (fold & SWIZZLE_MASK);
}

struct shared_elements {
    uint4 low[BLOCK_ELEMENTS];
    uint4 high[BLOCK_ELEMENTS];

    __device__ __forceinline__ void put(int idx, const fr_t& x) {
        int p = swizzle(idx);
        low[p] = make_uint4(x.l[0], x.l[1], x.l[2], x.l[3]);
        high[p] = make_uint4(x.l[4], x.l[5], x.l[6], x.l[7]);
    }
    __device__ __forceinline__ fr_t get(int idx) const {
        int p = swizzle(idx);
        uint4 a = low[p], b = high[p];
        return fr_t{{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w}};
    }
};

__device__ __forceinline__ fr_t scale_factor(u64 i, const fr_t* __restrict__ lo, const fr_t* __restrict__ hi,
                                             int bits, int mode) {
    if (mode == SCALE_CONST) return lo[0];
    return lo[i & ((1ull << bits) - 1)] * hi[i >> bits];
}

// w_n^e (or w_n^-e) for 0 <= e < n from half[i] = w_n^i, i < 2^half_bits = n/2: w_n^(n/2) = -1 (w_n is primitive), so
// w_n^e = -half[e - n/2] for e >= n/2, and w_n^-e = w_n^(n - e). A negation is additions, not a product.
__device__ __forceinline__ fr_t half_table_twiddle(u64 e, const fr_t* __restrict__ half, int half_bits, bool inverse) {
    const u64 half_n = 1ull << half_bits;
    if (inverse) e = (2 * half_n - e) & (2 * half_n - 1);
    fr_t w = half[e & (half_n - 1)];
    return (e & half_n) ? w.neg() : w;
}

__device__ __forceinline__ int bit_reverse(int x, int bits) { return (int)(__brev((u32)x) >> (32 - bits)); }

// The DIF stages' products go through one out-of-line copy of the product instead of one inlined copy a butterfly
// (12 in a group of 3 stages: ntt_pass_grouped was 118 KiB of code, 59 KiB now). Nsight Compute at 2^27 had the
// grouped passes' warps waiting for instructions up to 17.5% of their cycles (bench/RESULTS_ntt.md, "What bounds the
// NTT passes"); with this and BLOCKS_PER_SM, ntt_h at 2^27 took 302.0 ms against 314.2 (same device call; same file).
#ifdef __CUDA_ARCH__
#define NTT_NOINLINE __noinline__
#else
#define NTT_NOINLINE
#endif
__device__ NTT_NOINLINE fr_t stage_product(fr_t a, fr_t b) { return a * b; }

// STAGES consecutive radix-2 DIF stages of every R-point DFT in the block, spans 2^(log_m - 1) down to
// 2^(log_m - STAGES): (a, b) -> (a + b, (a - b) w_m^jj), m = 2^lm the stage's size, jj = the upper
// element's offset mod m/2 (Gentleman-Sande butterfly; natural order in, bit-reversed order out).
// The 2^STAGES elements that these stages mix, base + e 2^(log_m - STAGES) for e < 2^STAGES, go through
// them in one thread's registers: one shared-memory round trip and one barrier per STAGES stages
// instead of per stage.
template <int STAGES>
__device__ __forceinline__ void dif_stages(shared_elements& smem, int count, int log_r, int log_m,
                                           const fr_t* __restrict__ roots) {
    constexpr int GROUP = 1 << STAGES;
    const int low_log = log_m - STAGES;     // index bits below the mixed ones
    const int per_dft_log = log_r - STAGES;  // groups per DFT
    for (int q = threadIdx.x; q < (count >> STAGES); q += blockDim.x) {
        int t = q >> per_dft_log;
        int k = q & ((1 << per_dft_log) - 1);
        int low = k & ((1 << low_log) - 1);
        int base = (t << log_r) + ((k >> low_log) << log_m) + low;
        fr_t x[GROUP];
FIELD_UNROLL
        for (int e = 0; e < GROUP; ++e) x[e] = smem.get(base + (e << low_log));
FIELD_UNROLL
        for (int s = 0; s < STAGES; ++s) {
            const int lm = log_m - s;
            const int half = GROUP >> (s + 1);  // the pair's distance in x; 2^(lm - 1) in the block
FIELD_UNROLL
            for (int e = 0; e < GROUP; ++e) {
                if (e & half) continue;  // e is the lower element of a pair
                fr_t a = x[e], b = x[e + half];
                fr_t diff = a - b;
                int jj = low + ((e & (half - 1)) << low_log);
                // w^0 = 1: no product. Always so in the span-1 stage (lm = 1). In a pass's last group low_log = 0, so
                // low = 0 in every thread, and jj = 0 exactly for the e with no bits below half: the whole warp skips
                // those products (3 of the 8 a group of 8 elements made at STAGES = 3). Elsewhere jj = 0 only in
                // some lanes, which then wait: no gain, no loss.
                if (lm > 1 && jj != 0) diff = stage_product(diff, roots[jj << (MAX_LOG_RADIX - lm)]);
                x[e] = a + b;
                x[e + half] = diff;
            }
        }
FIELD_UNROLL
        for (int e = 0; e < GROUP; ++e) smem.put(base + (e << low_log), x[e]);
    }
}

// The parameters of every NTT pass (ntt_pass_body's, the kernels'; the fused pass adds three), their names in order.
#define NTT_PASS_PARAMETERS                                                                                      \
    const fr_t* __restrict__ src, fr_t* __restrict__ dst, int log_n, int log_r, int log_ns, int log_t,          \
    const fr_t* __restrict__ roots, const fr_t* __restrict__ tw_hi, const fr_t* __restrict__ tw_lo,             \
    int tw_lo_bits, int tw_mode, const fr_t* __restrict__ in_lo, const fr_t* __restrict__ in_hi, int in_bits,   \
    int in_mode, const fr_t* __restrict__ out_lo, const fr_t* __restrict__ out_hi, int out_bits, int out_mode
#define NTT_PASS_ARGUMENTS                                                                                       \
    src, dst, log_n, log_r, log_ns, log_t, roots, tw_hi, tw_lo, tw_lo_bits, tw_mode, in_lo, in_hi, in_bits,     \
    in_mode, out_lo, out_hi, out_bits, out_mode

// One Stockham pass over a batch of vectors (blockIdx.y = vector), its DIF stages STAGES at a time. See the file
// comment. roots: w_{2^10}^e for e < 2^9 in the transform's direction. tw_lo_bits: log2 of lo's length (b), or of the
// half table's (log n - 1) in the TWIDDLE_HALF modes. FUSED (ntt_pass_fused only): out_factor and out_minus, vectors
// of the batch's shape or nullptr, output o multiplied by out_factor[o], then out_minus[o] subtracted, after its
// scale: bellman's ntt_h fuses its product A B into B's transform and its "- c / Z(g)" into the last one this way
// (gpu/ntt_h.py), instead of two element-wise passes over memory; with factor_shared, out_factor is one vector for
// the whole batch (ntt_h's coset factors g^i / n read from one table: one Fr product an element instead of the two of
// SCALE_TABLE). A template parameter, not a null test alone: the tests in every transform's last pass made the plain
// coset transforms 0.5-0.9% slower (bench/RESULTS_ntt.md).
template <int STAGES, bool FUSED>
__device__ __forceinline__ void ntt_pass_body(
    NTT_PASS_PARAMETERS, const fr_t* __restrict__ out_factor, const fr_t* __restrict__ out_minus, bool factor_shared) {
    __shared__ shared_elements smem;
    const u64 vector_offset = (u64)blockIdx.y << log_n;
    src += vector_offset;
    dst += vector_offset;
    if (FUSED && out_factor && !factor_shared) out_factor += vector_offset;
    if (FUSED && out_minus) out_minus += vector_offset;

    const int radix = 1 << log_r;
    const int count = radix << log_t;  // elements in this block
    const int t_mask = (1 << log_t) - 1;
    const u64 ns_mask = (1ull << log_ns) - 1;
    const u64 j0 = (u64)blockIdx.x << log_t;
    const int stride_log = log_n - log_r;       // inputs of one DFT are n / R apart
    const int exponent_shift = stride_log - log_ns;  // w_{Ns R} = w_n^(n / (Ns R))

    // Load x_r = src[j + r n/R] (times its scale and twiddle) into slot t R + r.
    for (int u = threadIdx.x; u < count; u += blockDim.x) {
        int t = u & t_mask, r = u >> log_t;
        u64 j = j0 + t;
        u64 i = j + ((u64)r << stride_log);
        fr_t x = src[i];
        if (in_mode != SCALE_NONE) x = x * scale_factor(i, in_lo, in_hi, in_bits, in_mode);
        if (tw_mode != TWIDDLE_NONE) {
            u64 e = ((u64)r * (j & ns_mask)) << exponent_shift;
            fr_t w;
            if (tw_mode >= TWIDDLE_HALF) {  // tw_lo: the half table, 2^tw_lo_bits entries
                w = half_table_twiddle(e, tw_lo, tw_lo_bits, tw_mode == TWIDDLE_HALF_INVERSE);
            } else {
                w = tw_hi[e >> tw_lo_bits];
                if (tw_mode == TWIDDLE_HI_LO) w = w * tw_lo[e & ((1ull << tw_lo_bits) - 1)];
            }
            x = x * w;
        }
        smem.put((t << log_r) + r, x);
    }
    __syncthreads();

    // Radix-2 DIF stages from span 2^(log_r - 1) down to span 1, STAGES at a time (dif_stages).
    for (int log_m = log_r; log_m >= 1; log_m -= STAGES) {
        switch (log_m < STAGES ? log_m : STAGES) {
            case 3: dif_stages<3>(smem, count, log_r, log_m, roots); break;
            case 2: dif_stages<2>(smem, count, log_r, log_m, roots); break;
            default: dif_stages<1>(smem, count, log_r, log_m, roots); break;
        }
        __syncthreads();
    }

    // Store X_k to dst[(j div Ns) Ns R + (j mod Ns) + k Ns], consecutive threads on consecutive addresses.
    for (int u = threadIdx.x; u < count; u += blockDim.x) {
        int t, k;
        u64 o;
        if (log_ns >= log_t) {  // the block's T values of j lie in one run of Ns: runs of T outputs
            t = u & t_mask;
            k = u >> log_t;
            o = ((j0 >> log_ns) << (log_ns + log_r)) + (j0 & ns_mask) + t + ((u64)k << log_ns);
        } else {  // Ns < T (pass 0 has Ns = 1): the block's outputs are one contiguous range
            int group = u >> (log_ns + log_r);
            int within = u & ((1 << (log_ns + log_r)) - 1);
            k = within >> log_ns;
            t = (group << log_ns) + (within & (int)ns_mask);
            o = (j0 << log_r) + u;
        }
        fr_t x = smem.get((t << log_r) + bit_reverse(k, log_r));
        if (out_mode != SCALE_NONE) x = x * scale_factor(o, out_lo, out_hi, out_bits, out_mode);
        if (FUSED && out_factor) x = x * out_factor[o];
        if (FUSED && out_minus) x = x - out_minus[o];
        dst[o] = x;
    }
}

// Every pass but the last: REGISTER_STAGES stages at a time, one thread a group of 2^REGISTER_STAGES elements.
extern "C" __global__ void __launch_bounds__(GROUPED_THREADS, BLOCKS_PER_SM) ntt_pass_grouped(NTT_PASS_PARAMETERS) {
    ntt_pass_body<REGISTER_STAGES, false>(NTT_PASS_ARGUMENTS, nullptr, nullptr, false);
}

// The last pass: one stage at a time with twice the threads. Its loads carry the twiddle product and the scale
// factor's, gathered from tables, and grouping its stages made it 4% slower at 2^27 (bench/RESULTS_ntt.md).
extern "C" __global__ void __launch_bounds__(STAGED_THREADS, BLOCKS_PER_SM) ntt_pass(NTT_PASS_PARAMETERS) {
    ntt_pass_body<1, false>(NTT_PASS_ARGUMENTS, nullptr, nullptr, false);
}

// ntt_pass with its outputs times out_factor, less out_minus (either nullptr: not applied): ntt_h's fused last passes.
// factor_shared != 0: out_factor is one vector for every vector of the batch.
extern "C" __global__ void __launch_bounds__(STAGED_THREADS, BLOCKS_PER_SM) ntt_pass_fused(
    NTT_PASS_PARAMETERS, const fr_t* __restrict__ out_factor, const fr_t* __restrict__ out_minus, int factor_shared) {
    ntt_pass_body<1, true>(NTT_PASS_ARGUMENTS, out_factor, out_minus, factor_shared != 0);
}

// out[i] = scale * base^i for i < count (base = params[0], scale = params[1], Montgomery form):
// right-to-left binary exponentiation per element, so every entry is exact and independent.
extern "C" __global__ void fr_powers(fr_t* __restrict__ out, u64 count, const fr_t* __restrict__ params) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    fr_t acc = params[1];
    fr_t power = params[0];  // base^(2^bit)
    for (u64 e = i; e != 0; e >>= 1) {
        if (e & 1) acc = acc * power;
        power = power.sqr();
    }
    out[i] = acc;
}

// out[i] = c base^i for i < count, from the two small tables of a SCALE_TABLE scale (scale_factor, the very product a
// pass makes): the whole table ntt_h's coset factors are read from when memory allows (gpu/ntt.py scale_table).
extern "C" __global__ void fr_scale_table(fr_t* __restrict__ out, u64 count, const fr_t* __restrict__ lo,
                                          const fr_t* __restrict__ hi, int bits) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    out[i] = scale_factor(i, lo, hi, bits, SCALE_TABLE);
}

// a[i] = a[i] * b[i] - c[i]: the numerator A B - C on the coset (snarkjs's ntt_h), in place.
extern "C" __global__ void fr_mul_sub(fr_t* __restrict__ a, const fr_t* __restrict__ b, const fr_t* __restrict__ c,
                                      u64 count) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    a[i] = a[i] * b[i] - c[i];
}
