// Fq2 = Fq[u] / (u^2 + 1), the quadratic extension BLS12-381's G2 lives over.
//
// An element is c0 + c1*u with c0, c1 in Fq (Montgomery form, see field.cuh); u^2 = -1, the
// same tower as py_ecc's FQ2 (modulus coefficients (1, 0)) and the IETF pairing-friendly-curves
// draft. NVRTC-compatible: no host standard headers. Every operation is __host__ __device__ so
// that tests/native/ can check it on the CPU.
#pragma once

#include "ec_field.cuh"

struct fq2_t {
    fq_t c0;  // real part
    fq_t c1;  // coefficient of u

    static __host__ __device__ fq2_t zero() { return fq2_t{fq_t::zero(), fq_t::zero()}; }
    static __host__ __device__ fq2_t one() { return fq2_t{fq_t::one(), fq_t::zero()}; }

    friend __host__ __device__ fq2_t operator+(const fq2_t& a, const fq2_t& b) {
        return fq2_t{a.c0 + b.c0, a.c1 + b.c1};
    }
    friend __host__ __device__ fq2_t operator-(const fq2_t& a, const fq2_t& b) {
        return fq2_t{a.c0 - b.c0, a.c1 - b.c1};
    }

    // (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u:
    // Karatsuba, 3 Fq multiplications (Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication
    // and Squaring on Pairing-Friendly Fields", ePrint 2006/471, section 3). With lazy reduction
    // (field.cuh) the three products stay wide and each coefficient is reduced once (lazy_product).
    // The out-of-line operations take their elements by value, in registers: an argument passed by reference to an
    // out-of-line function must be stored to local memory first. G2's bucket additions moved 40% of the DRAM peak
    // (bench/RESULTS_vs_sppark.md); by value, a G2 mixed addition's call path has about 360 local loads and stores
    // in its SASS instead of about 630 (nvcc 13.0, sm_90; the rest saves live registers across the calls).
    friend __host__ __device__ EC_NOINLINE fq2_t operator*(fq2_t a, fq2_t b) {
#if FIELD_LAZY_REDUCTION
        return lazy_product(a, b);
#else
        fq_t v0 = fq_mul(a.c0, b.c0);
        fq_t v1 = fq_mul(a.c1, b.c1);
        fq_t cross = fq_mul(a.c0 + a.c1, b.c0 + b.c1);
        return fq2_t{v0 - v1, cross - v0 - v1};
#endif
    }

#if FIELD_LAZY_REDUCTION
    // Karatsuba with its products unreduced: v0 = a0 b0 and v1 = a1 b1 (below p^2), v2 = (a0 + a1)(b0 + b1) (the
    // sums are below 2p, so v2 < 4p^2 fits 2N limbs). c0 = REDC(v0 - v1 mod p R) and c1 = REDC(v2 - v0 - v1), where
    // v2 - v0 - v1 = a0 b1 + a1 b0 < 2p^2: both inputs below p R (2p < R), so each REDC leaves a reduced element.
    static __host__ __device__ __forceinline__ fq2_t lazy_product(const fq2_t& a, const fq2_t& b) {
        constexpr int N = fq_t::N;
        u32 v0[2 * N], v1[2 * N], c0_wide[2 * N], sum_a[N], sum_b[N];
        field_detail::sum_of_products_wide<N, 1>(v0, {a.c0.l}, {b.c0.l});
        field_detail::sum_of_products_wide<N, 1>(v1, {a.c1.l}, {b.c1.l});
        field_detail::sub_wide_mod<fq_params>(c0_wide, v0, v1);
        fq2_t r;
        field_detail::redc_even_odd<fq_params>(r.c0.l, c0_wide);
        field_detail::add_limbs<2 * N>(v0, v0, v1);  // v0 + v1, below 2p^2
        field_detail::add_limbs<N>(sum_a, a.c0.l, a.c1.l);  // below 2p: unreduced
        field_detail::add_limbs<N>(sum_b, b.c0.l, b.c1.l);
        field_detail::sum_of_products_wide<N, 1>(v1, {sum_a}, {sum_b});  // v2, in v1's place
        field_detail::sub_limbs<2 * N>(v1, v1, v0);
        field_detail::redc_even_odd<fq_params>(r.c1.l, v1);
        return r;
    }
#endif

    // a b - c d: the products of fq2.cuh (one subtraction after them; each product already reduces only twice).
    static __host__ __device__ fq2_t mul_sub(const fq2_t& a, const fq2_t& b, const fq2_t& c, const fq2_t& d) {
        return a * b - c * d;
    }

    // (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: "complex squaring", 2 Fq multiplications
    // (same paper, section 3.2; valid because u^2 = -1).
    __host__ __device__ fq2_t sqr() const { return square(*this); }
    static __host__ __device__ EC_NOINLINE fq2_t square(fq2_t a) {
        fq_t cross = fq_mul(a.c0, a.c1);
        return fq2_t{fq_mul(a.c0 + a.c1, a.c0 - a.c1), cross + cross};
    }

    __host__ __device__ fq2_t neg() const { return fq2_t{c0.neg(), c1.neg()}; }

    // (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2): multiply by the conjugate, whose product with
    // the element is its norm in Fq (Guide to Pairing-Based Cryptography, 2017, Algorithm 5.16).
    // 0 maps to 0, as Fq's inverse does.
    __host__ __device__ fq2_t inverse() const { return invert(*this); }
    static __host__ __device__ EC_NOINLINE fq2_t invert(fq2_t a) {
        fq_t norm_inv = fq_inv(fq_sqr(a.c0) + fq_sqr(a.c1));
        return fq2_t{fq_mul(a.c0, norm_inv), fq_mul(a.c1, norm_inv).neg()};
    }

    __host__ __device__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }

    friend __host__ __device__ bool operator==(const fq2_t& a, const fq2_t& b) {
        return a.c0 == b.c0 && a.c1 == b.c1;
    }
    friend __host__ __device__ bool operator!=(const fq2_t& a, const fq2_t& b) { return !(a == b); }
};

__host__ __device__ inline fq2_t ec_mul(const fq2_t& a, const fq2_t& b) { return a * b; }
__host__ __device__ inline fq2_t ec_sqr(const fq2_t& a) { return a.sqr(); }
__host__ __device__ inline fq2_t ec_inv(const fq2_t& a) { return a.inverse(); }
__host__ __device__ inline fq2_t ec_mul_sub(const fq2_t& a, const fq2_t& b, const fq2_t& c, const fq2_t& d) {
    return fq2_t::mul_sub(a, b, c, d);
}
