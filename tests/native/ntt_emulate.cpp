// Host emulation of gpu/kernels/ntt.cu: the kernels run unchanged on the CPU, one block at a time
// with one thread per block (blockDim.x = 1). Every kernel loop strides by blockDim.x and puts
// __syncthreads() between its phases, so a single thread running each phase to the end is a valid
// schedule of the block. The pass driver mirrors gpu/ntt.py's _launch_passes, each pass's twiddle mode given by the
// caller from gpu/ntt.py's own pass_twiddle_modes; tests/test_gpu_ntt.py compares the output with reference/domain.py. Build with g++ -x c++ (not nvcc: it defines the
// CUDA built-ins this file replaces). Compile with -DNTT_MAX_LOG_RADIX=3 -DNTT_BLOCK_LOG_ELEMENTS=4
// to reach 3 and 4 passes at small n.
//
// stdin:  log_n batch
//         root_n root_max           (hex, plain: w_n and w_(2^MAX_LOG_RADIX) of the direction)
//         forward_root passes mode_0 .. mode_(passes-1)
//                                   (each pass's TWIDDLE_* mode; a half-table mode reads the half table of forward_root's
//                                    powers; passes must be this build's plan_passes count)
//         in_mode in_c in_base      (0 none / 1 constant / 2 table; factor in_c * in_base^i)
//         out_mode out_c out_base
//         factor minus              (factor: 0 none, 1 one vector a vector of the batch, 2 one shared by the batch, 3
//                                    shared and made here by fr_scale_table; minus 1: the last pass subtracts a vector
//                                    (out_minus); the vectors given after the values: batch * n, n, none, batch * n)
//         [table_c table_base]      (factor 3 only: the scale c base^i the table holds)
//         batch * n values (hex, plain)
// stdout: batch * n values (hex, plain)
#include <cstdio>
#include <cstring>
#include <vector>

#include "field.cuh"

struct emulated_dim3 {
    unsigned x, y, z;
};
static emulated_dim3 threadIdx{0, 0, 0}, blockIdx{0, 0, 0}, blockDim{1, 1, 1}, gridDim{1, 1, 1};
struct uint4 {
    u32 x, y, z, w;
};
static inline uint4 make_uint4(u32 x, u32 y, u32 z, u32 w) { return uint4{x, y, z, w}; }
static inline u32 __brev(u32 x) {
    u32 r = 0;
    for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b);
    return r;
}
#define __global__
#define __shared__ static
#define __launch_bounds__(...)
#define __restrict__
#define __syncthreads()

#include "ntt.cu"

typedef std::vector<fr_t> vec;

static fr_t parse(const char* text) {
    fr_t x = fr_t::zero();
    size_t len = strlen(text);
    for (size_t k = 0; k < len && k < 64; ++k) {
        char c = text[len - 1 - k];
        u32 d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
        x.l[k / 8] |= d << (4 * (k % 8));
    }
    return x.to_mont();
}

static fr_t read_value() {
    char buf[80];
    if (scanf("%79s", buf) != 1) { fprintf(stderr, "input ended early\n"); throw 1; }
    return parse(buf);
}

// Emulated launch of fr_powers: scale * base^i for i < count.
static vec powers(fr_t base, fr_t scale, u64 count) {
    vec out(count);
    fr_t params[2] = {base, scale};
    for (u64 b = 0; b < count; ++b) {
        blockIdx.x = (unsigned)b;
        fr_powers(out.data(), count, params);
    }
    return out;
}

static fr_t power(fr_t base, u64 e) {
    fr_t acc = fr_t::one();
    for (; e; e >>= 1, base = base.sqr())
        if (e & 1) acc = acc * base;
    return acc;
}

static std::vector<int> plan_passes(int log_n) {
    int passes = (log_n + MAX_LOG_RADIX - 1) / MAX_LOG_RADIX;
    std::vector<int> radices;
    for (int p = 0; p < passes; ++p) radices.push_back(log_n / passes + (p < log_n % passes ? 1 : 0));
    return radices;
}

struct scale_tables {
    int mode = SCALE_NONE, bits = 0;
    vec lo = vec(1, fr_t::zero()), hi = vec(1, fr_t::zero());
};

static scale_tables make_scale(int mode, fr_t c, fr_t base, int log_n) {
    scale_tables s;
    s.mode = mode;
    if (mode == SCALE_CONST) s.lo = vec(1, c);
    if (mode == SCALE_TABLE) {
        s.bits = (log_n + 1) / 2;
        s.lo = powers(base, c, 1ull << s.bits);
        s.hi = powers(power(base, 1ull << s.bits), fr_t::one(), 1ull << (log_n - s.bits));
    }
    return s;
}

int main() {
    int log_n, batch;
    if (scanf("%d %d", &log_n, &batch) != 2) return 1;
    const u64 n = 1ull << log_n;
    fr_t root_n = read_value(), root_max = read_value();
    fr_t forward_root = read_value();
    int passes;
    if (scanf("%d", &passes) != 1 || passes < 1) return 1;
    std::vector<int> modes(passes);
    for (auto& mode : modes)
        if (scanf("%d", &mode) != 1) return 1;
    int in_mode, out_mode;
    if (scanf("%d", &in_mode) != 1) return 1;
    fr_t in_c = read_value(), in_base = read_value();
    if (scanf("%d", &out_mode) != 1) return 1;
    fr_t out_c = read_value(), out_base = read_value();
    // out_factor: FACTOR_NONE, one per vector (n * batch values follow the data), one shared by the batch (n values),
    // or shared and made here by fr_scale_table from the constant and base on the next line (gpu/ntt.py scale_table)
    enum { FACTOR_NONE, FACTOR_PER_VECTOR, FACTOR_SHARED, FACTOR_SCALE_TABLE };
    int factor_kind, has_minus;
    if (scanf("%d %d", &factor_kind, &has_minus) != 2) return 1;
    const bool has_factor = factor_kind != FACTOR_NONE, factor_shared = factor_kind >= FACTOR_SHARED;
    fr_t table_c = fr_t::zero(), table_base = fr_t::zero();
    if (factor_kind == FACTOR_SCALE_TABLE) table_c = read_value(), table_base = read_value();
    vec data(n * batch), scratch(n * batch), out(n * batch);
    for (auto& x : data) x = read_value();
    vec factor(factor_kind == FACTOR_PER_VECTOR ? n * batch : factor_kind == FACTOR_SHARED ? n : 0),
        minus(has_minus ? n * batch : 0);
    for (auto& x : factor) x = read_value();
    for (auto& x : minus) x = read_value();
    if (factor_kind == FACTOR_SCALE_TABLE) {  // as gpu/ntt.py scale_table makes it, from the scale's two small tables
        scale_tables t = make_scale(SCALE_TABLE, table_c, table_base, log_n);
        factor.assign(n, fr_t::zero());
        for (u64 b = 0; b < n; ++b) {  // one element a block (blockDim.x = 1), as powers() launches fr_powers
            blockIdx.x = (unsigned)b;
            fr_scale_table(factor.data(), n, t.lo.data(), t.hi.data(), t.bits);
        }
    }

    std::vector<int> radices = plan_passes(log_n);
    if ((int)radices.size() != passes) {
        fprintf(stderr, "passes: %d given, this build plans %d for 2^%d\n", passes, (int)radices.size(), log_n);
        return 1;
    }
    const int last = passes - 1;
    bool half = false;
    for (int mode : modes) half = half || mode >= TWIDDLE_HALF;
    vec roots = powers(root_max, fr_t::one(), 1ull << (MAX_LOG_RADIX - 1));
    const int b = radices[last];
    // As gpu/ntt.py hands them: a one-pass transform gets one zero element for every table (it reads none).
    const vec placeholder(1, fr_t::zero());
    vec tw_hi = last > 0 ? powers(power(root_n, 1ull << b), fr_t::one(), 1ull << (log_n - b)) : placeholder;
    vec tw_lo = last > 0 ? powers(root_n, fr_t::one(), 1ull << b) : placeholder;
    vec half_table = half && last > 0 ? powers(forward_root, fr_t::one(), 1ull << (log_n - 1)) : placeholder;
    scale_tables in = make_scale(in_mode, in_c, in_base, log_n), outs = make_scale(out_mode, out_c, out_base, log_n);

    // pass p writes out when (last - p) is even, else scratch: the last pass writes out
    fr_t* src = data.data();
    int log_ns = 0;
    for (int p = 0; p <= last; ++p) {
        int log_r = radices[p];
        int log_t = (log_n < BLOCK_LOG_ELEMENTS ? log_n : BLOCK_LOG_ELEMENTS) - log_r;
        fr_t* dst = ((last - p) % 2 == 0) ? out.data() : scratch.data();
        const int tw_mode = modes[p];
        const bool half_pass = tw_mode >= TWIDDLE_HALF;  // the half table in tw_lo, its length 2^(log n - 1)
        u64 blocks = n >> (log_r + log_t);
        const bool fused = p == last && (has_factor || has_minus);  // as gpu/ntt.py launches them
        for (int y = 0; y < batch; ++y)
            for (u64 x = 0; x < blocks; ++x) {
                blockIdx.x = (unsigned)x;
                blockIdx.y = (unsigned)y;
                const fr_t* lo = half_pass ? half_table.data() : tw_lo.data();
                const int lo_bits = half_pass ? log_n - 1 : b, in_mode = p == 0 ? in.mode : SCALE_NONE;
                const int out_mode = p == last ? outs.mode : SCALE_NONE;
                if (p < last)
                    ntt_pass_grouped(src, dst, log_n, log_r, log_ns, log_t, roots.data(), tw_hi.data(), lo, lo_bits,
                                     tw_mode, in.lo.data(), in.hi.data(), in.bits, in_mode, outs.lo.data(),
                                     outs.hi.data(), outs.bits, out_mode);
                else if (fused)
                    ntt_pass_fused(src, dst, log_n, log_r, log_ns, log_t, roots.data(), tw_hi.data(), lo, lo_bits,
                                   tw_mode, in.lo.data(), in.hi.data(), in.bits, in_mode, outs.lo.data(),
                                   outs.hi.data(), outs.bits, out_mode, has_factor ? factor.data() : nullptr,
                                   has_minus ? minus.data() : nullptr, factor_shared);
                else
                    ntt_pass(src, dst, log_n, log_r, log_ns, log_t, roots.data(), tw_hi.data(), lo, lo_bits, tw_mode,
                             in.lo.data(), in.hi.data(), in.bits, in_mode, outs.lo.data(), outs.hi.data(), outs.bits,
                             out_mode);
            }
        src = dst;
        log_ns += log_r;
    }
    for (auto& x : out) {
        fr_t v = x.from_mont();
        printf("0x");
        for (int j = 7; j >= 0; --j) printf("%08x", v.l[j]);
        printf("\n");
    }
    return 0;
}
