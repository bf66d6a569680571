// Probe kernels: dependent chains of bench/probes/fp64_field.cuh's Montgomery products, shaped as field.cuh's
// mul_chain_body (the rate bench/bench_ntt.py reports for the prover's product), so that
// bench/probe_fp64_product.py compares the two on the same inputs in one call. Not part of the prover.
//
// An element is stored as its L limbs (51 bits for Fr, 48 for Fq) in u64 words, element after element, in the probe's
// Montgomery form (x 2^(w L) mod m); the chain's result is stored fully reduced.
#include "fp64_field.cuh"

using fp64_field::element;

// x[i] <- x[i] * (x[i]^2)^iters: iters + 1 dependent products (the first squares), as field.cuh's mul_chain_body.
template <class P>
__host__ __device__ __forceinline__ void chain_element(u64* x, u32 iters) {
    element<P> a = fp64_field::from_limbs<P>(x);
    const element<P> b = fp64_field::mont_mul<P>(a, a);
    for (u32 k = 0; k < iters; ++k) a = fp64_field::mont_mul<P>(a, b);
    fp64_field::to_limbs<P>(a, x);
}

#ifndef PROBE_HOST
template <class P>
__device__ __forceinline__ void chain_body(u64* x, u64 count, u32 iters) {
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) chain_element<P>(x + i * P::LIMBS, iters);
}

extern "C" __global__ void probe_fp64_chain_fr(u64* x, u64 count, u32 iters) {
    chain_body<fp64_field::fr_params>(x, count, iters);
}
extern "C" __global__ void probe_fp64_chain_fq(u64* x, u64 count, u32 iters) {
    chain_body<fp64_field::fq_params>(x, count, iters);
}
#else
// Host entries for tests/test_probe_fp64_product.py; field: 0 Fr, 1 Fq.
template <class P>
static void host_mul(const u64* a, const u64* b, u64* out, u32 count) {
    for (u32 i = 0; i < count; ++i) {
        const u64 offset = (u64)i * P::LIMBS;
        fp64_field::to_limbs<P>(fp64_field::mont_mul<P>(fp64_field::from_limbs<P>(a + offset),
                                                        fp64_field::from_limbs<P>(b + offset)), out + offset);
    }
}

// out = a b / R mod m, fully reduced, for count pairs (a, b below m; below 2m for Fq, whose products are lazy).
extern "C" void probe_host_mul(int field, const u64* a, const u64* b, u64* out, u32 count) {
    if (field == 0) host_mul<fp64_field::fr_params>(a, b, out, count);
    else host_mul<fp64_field::fq_params>(a, b, out, count);
}

// The kernels' chains, element by element.
extern "C" void probe_host_chain(int field, u64* x, u32 count, u32 iters) {
    for (u32 i = 0; i < count; ++i) {
        if (field == 0) chain_element<fp64_field::fr_params>(x + (u64)i * fp64_field::fr_params::LIMBS, iters);
        else chain_element<fp64_field::fq_params>(x + (u64)i * fp64_field::fq_params::LIMBS, iters);
    }
}

// The constants of fp64_field.cuh, for the test to recompute: the limbs of m, M_INV, LIMBS, BITS_PER_LIMB, LAZY.
template <class P>
static void host_params(u64* modulus_limbs, u64* m_inv, int* limbs, int* limb_bits, int* lazy) {
    for (int j = 0; j < P::LIMBS; ++j) modulus_limbs[j] = P::modulus(j);
    *m_inv = P::M_INV, *limbs = P::LIMBS, *limb_bits = P::BITS_PER_LIMB, *lazy = P::LAZY;
}

extern "C" void probe_host_params(int field, u64* modulus_limbs, u64* m_inv, int* limbs, int* limb_bits, int* lazy) {
    if (field == 0) host_params<fp64_field::fr_params>(modulus_limbs, m_inv, limbs, limb_bits, lazy);
    else host_params<fp64_field::fq_params>(modulus_limbs, m_inv, limbs, limb_bits, lazy);
}
#endif
