// Out-of-line Fq multiplication and inversion for the curve code.
//
// field.cuh's operators are __forceinline__: a 12-limb Montgomery product is ~600 instructions,
// and a point addition inlining 10-14 of them in every kernel took NVRTC over 10 s per call site
// (measured: one G1 mixed-addition kernel 12.6 s, versus 1 s with the product out of line). So the
// curve code multiplies through fq_mul / fq_sqr / fq_inv, compiled once per module (__noinline__ on
// the device; the arguments travel in registers, no stack frame). ec_mul / ec_sqr / ec_inv are the
// same operations overloaded for fq_t and fq2_t, so ec.cuh's formulas are written once for both.
#pragma once

#include "field.cuh"

#ifdef __CUDA_ARCH__
#define EC_NOINLINE __noinline__
#else
#define EC_NOINLINE
#endif

__host__ __device__ EC_NOINLINE fq_t fq_mul(fq_t a, fq_t b) { return a * b; }
// Squarings take field.cuh's squaring (the symmetric limb products once: about 78% of a product's multiply-adds).
__host__ __device__ EC_NOINLINE fq_t fq_sqr(fq_t a) { return a.sqr(); }

// a b - c d, the Y coordinate of every point addition and doubling: one reduction (field.cuh, lazy reduction).
__host__ __device__ EC_NOINLINE fq_t fq_mul_sub(fq_t a, fq_t b, fq_t c, fq_t d) { return fq_t::mul_sub(a, b, c, d); }

// Limb i (little-endian) of p - 2, the exponent of Fermat inversion.
__host__ __device__ inline u32 fq_inverse_exponent_limb(int i) {
    const u32 limbs[12] = {0xffffaaa9, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
                           0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
    return limbs[i];
}

// a^-1 = a^(p-2) (Fermat's little theorem), left-to-right square-and-multiply; 0 -> 0. The same
// value as field.cuh's inverse(), with the loops kept rolled ("#pragma unroll 1") and the products
// out of line, which took NVRTC from 16 s to well under 1 s for this function.
__host__ __device__ EC_NOINLINE fq_t fq_inv(fq_t a) {
    fq_t acc = fq_t::one();
#pragma unroll 1
    for (int i = fq_t::N - 1; i >= 0; --i) {
        u32 e = fq_inverse_exponent_limb(i);
#pragma unroll 1
        for (int bit = 31; bit >= 0; --bit) {
            acc = fq_sqr(acc);
            if ((e >> bit) & 1u) acc = fq_mul(acc, a);
        }
    }
    return acc;
}

__host__ __device__ inline fq_t ec_mul(const fq_t& a, const fq_t& b) { return fq_mul(a, b); }
__host__ __device__ inline fq_t ec_sqr(const fq_t& a) { return fq_sqr(a); }
__host__ __device__ inline fq_t ec_inv(const fq_t& a) { return fq_inv(a); }
__host__ __device__ inline fq_t ec_mul_sub(const fq_t& a, const fq_t& b, const fq_t& c, const fq_t& d) {
    return fq_mul_sub(a, b, c, d);
}
