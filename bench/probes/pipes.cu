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

extern "C" __global__ void probe_imad(unsigned int seed, int iterations, unsigned int* out) {
    unsigned int x[PIPE_CHAINS];
    const unsigned int m = seed | 1u;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) x[c] = threadIdx.x + c;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < PIPE_CHAINS; ++c) {  // one mad.lo and one mad.hi a chain: a limb product's two halves
            asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x[c]) : "r"(m), "r"(c));
            asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(x[c]) : "r"(m), "r"(c));
        }
    }
    unsigned int acc = 0;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) acc ^= x[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void probe_dfma(double seed, int iterations, double* out) {
    double y[PIPE_CHAINS];
    const double m = seed;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) y[c] = threadIdx.x + c;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < PIPE_CHAINS; ++c) {  // two fma a chain: as many operations as probe_imad's
            asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(y[c]) : "d"(m), "d"((double)c));
            asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(y[c]) : "d"(m), "d"((double)c));
        }
    }
    double acc = 0;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) acc += y[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Both kernels' loops in one: do the two pipes issue side by side?
extern "C" __global__ void probe_both(unsigned int seed, double fseed, int iterations, unsigned int* out,
                                      double* fout) {
    unsigned int x[PIPE_CHAINS];
    double y[PIPE_CHAINS];
    const unsigned int m = seed | 1u;
    const double fm = fseed;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) {
        x[c] = threadIdx.x + c;
        y[c] = threadIdx.x + c;
    }
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < PIPE_CHAINS; ++c) {
            asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x[c]) : "r"(m), "r"(c));
            asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(y[c]) : "d"(fm), "d"((double)c));
            asm volatile("mad.hi.u32 %0, %0, %1, %2;" : "+r"(x[c]) : "r"(m), "r"(c));
            asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(y[c]) : "d"(fm), "d"((double)c));
        }
    }
    unsigned int acc = 0;
    double facc = 0;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) {
        acc ^= x[c];
        facc += y[c];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    fout[blockIdx.x * blockDim.x + threadIdx.x] = facc;
}

// What field.cuh's products are made of (SASS of msm_piece_sum_g1: IMAD.WIDE.U32[.X], 32 x 32 -> 64 bits a limb pair).
__device__ __forceinline__ void wide_step(unsigned long long& x, unsigned int m) {
    asm volatile("{ .reg .u32 lo; cvt.u32.u64 lo, %0; mad.wide.u32 %0, lo, %1, %0; }" : "+l"(x) : "r"(m));
}

extern "C" __global__ void probe_imad_wide(unsigned int seed, int iterations, unsigned long long* out) {
    unsigned long long x[PIPE_CHAINS];
    const unsigned int m = seed | 1u;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) x[c] = threadIdx.x + c;
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < PIPE_CHAINS; ++c) {
            wide_step(x[c], m);
            wide_step(x[c], m);
        }
    }
    unsigned long long acc = 0;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) acc ^= x[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void probe_wide_both(unsigned int seed, double fseed, int iterations, unsigned long long* out,
                                           double* fout) {
    unsigned long long x[PIPE_CHAINS];
    double y[PIPE_CHAINS];
    const unsigned int m = seed | 1u;
    const double fm = fseed;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) {
        x[c] = threadIdx.x + c;
        y[c] = threadIdx.x + c;
    }
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int c = 0; c < PIPE_CHAINS; ++c) {
            wide_step(x[c], m);
            asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(y[c]) : "d"(fm), "d"((double)c));
            wide_step(x[c], m);
            asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(y[c]) : "d"(fm), "d"((double)c));
        }
    }
    unsigned long long acc = 0;
    double facc = 0;
#pragma unroll
    for (int c = 0; c < PIPE_CHAINS; ++c) {
        acc ^= x[c];
        facc += y[c];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    fout[blockIdx.x * blockDim.x + threadIdx.x] = facc;
}
