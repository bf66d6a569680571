// Probe: the issue rates of the two arithmetic pipes a multiprecision product can use on this chip, alone and side
// by side: 32-bit integer multiply-adds (mad.lo.u32 / mad.hi.u32, what field.cuh's Montgomery products are made of)
// and double-precision fused multiply-adds (fma.rn.f64, which products of 52-bit limbs could use: Emmart, Zheng,
// Weems, "Faster Modular Exponentiation Using Double Precision Floating Point Arithmetic on the GPU", ARITH 2018).
// Not part of the prover: bench/probe_pipes.py drives it, to decide whether an Fq product on both pipes is worth
// writing (issue 18: the G1 bucket additions are bound by the integer multiply-add pipe, bench/RESULTS_vs_sppark.md).
//
// Each thread runs PIPE_CHAINS independent dependency chains of `iterations` operations (enough chains to hide the
// pipes' latency); the result is written so that no chain is optimised away.
#define PIPE_CHAINS 8

// The integer steps, two operations on one chain each: mad.lo and mad.hi (a limb product's two halves, as separate
// instructions) ...
struct lohi_steps {
    static constexpr bool active = true;
    typedef unsigned int word;
    static __device__ __forceinline__ void run(word& x, unsigned int m, unsigned int c) {
        asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(m), "r"(c));
        asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(m), "r"(c));
    }
};
// ... two mad.wide.u32, the IMAD.WIDE.U32 that field.cuh's limb products compile to (SASS of msm_piece_sum_g1:
// IMAD.WIDE.U32[.X], 32 x 32 -> 64 bits a limb pair) ...
struct wide_steps {
    static constexpr bool active = true;
    typedef unsigned long long word;
    static __device__ __forceinline__ void run(word& x, unsigned int m, unsigned int) {
        asm volatile("{ .reg .u32 lo; cvt.u32.u64 lo, %0; mad.wide.u32 %0, lo, %1, %0; }" : "+l"(x) : "r"(m));
        asm volatile("{ .reg .u32 lo; cvt.u32.u64 lo, %0; mad.wide.u32 %0, lo, %1, %0; }" : "+l"(x) : "r"(m));
    }
};
// ... or one 64-bit addition as add.cc + addc (the carry propagation that column sums of 52-bit limb products, read
// back as integers, would need).
struct add_steps {
    static constexpr bool active = true;
    typedef unsigned long long word;
    static __device__ __forceinline__ void run(word& x, unsigned int m, unsigned int c) {
        unsigned int lo = (unsigned int)x, hi = (unsigned int)(x >> 32);
        asm volatile("add.cc.u32 %0, %0, %2;\n\taddc.u32 %1, %1, %3;" : "+r"(lo), "+r"(hi) : "r"(m), "r"(c));
        x = ((word)hi << 32) | lo;
    }
};
struct no_int_steps {
    static constexpr bool active = false;
    typedef unsigned int word;
    static __device__ __forceinline__ void run(word&, unsigned int, unsigned int) {}
};
// Two FP64 fused multiply-adds on one chain.
__device__ __forceinline__ void fp_steps(double& y, double m, double c) {
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(y) : "d"(m), "d"(c));
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(y) : "d"(m), "d"(c));
}

// PIPE_CHAINS chains of IntSteps, of FP64 steps (FP), or of both in one thread; out and fout receive the chains'
// results.
template <class IntSteps, bool FP>
__device__ __forceinline__ void pipes_body(unsigned int seed, double fseed, int iterations,
                                           typename IntSteps::word* out, double* fout) {
    typedef typename IntSteps::word X;
    X x[PIPE_CHAINS];
    double y[PIPE_CHAINS];
    const unsigned int m = seed | 1u;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) {
        x[c] = threadIdx.x + c;
        y[c] = threadIdx.x + c;
    }
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < PIPE_CHAINS; ++c) {
            IntSteps::run(x[c], m, c);
            if (FP) fp_steps(y[c], fseed, (double)c);
        }
    }
    X acc = 0;
    double facc = 0;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) {
        acc ^= x[c];
        facc += y[c];
    }
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (IntSteps::active) out[t] = acc;
    if (FP) fout[t] = facc;
}

#define PIPES_KERNEL(name, IntSteps, FP)                                                                      \
    extern "C" __global__ void name(unsigned int seed, double fseed, int iterations, IntSteps::word* out,     \
                                    double* fout) {                                                           \
        pipes_body<IntSteps, FP>(seed, fseed, iterations, out, fout);                                         \
    }
PIPES_KERNEL(probe_imad, lohi_steps, false)
PIPES_KERNEL(probe_dfma, no_int_steps, true)
PIPES_KERNEL(probe_both, lohi_steps, true)
PIPES_KERNEL(probe_imad_wide, wide_steps, false)
PIPES_KERNEL(probe_wide_both, wide_steps, true)
PIPES_KERNEL(probe_iadd, add_steps, false)
PIPES_KERNEL(probe_iadd_both, add_steps, true)
