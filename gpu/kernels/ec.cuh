// Short Weierstrass point arithmetic for BLS12-381's G1 (over Fq) and G2 (over Fq2), a = 0.
//
//   G1: y^2 = x^3 + 4           over Fq
//   G2: y^2 = x^3 + 4 (u + 1)   over Fq2 = Fq[u] / (u^2 + 1)
//
// Two representations, templated on the coordinate field F (fq_t or fq2_t):
//
// * affine_t<F> (x, y): what the device stores for bases and results. The identity is (0, 0),
//   which is on neither curve (0 != 4 and 0 != 4(u + 1)), so no flag word is needed.
// * xyzz_t<F> (X, Y, ZZ, ZZZ) with x = X / ZZ, y = Y / ZZZ and ZZ^3 = ZZZ^2: the accumulator used
//   for buckets and sums (EFD, "Short Weierstrass curves, XYZZ coordinates",
//   https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html). The identity is ZZ = ZZZ = 0.
//
// The point operations are EC_NOINLINE (ec_field.cuh): one copy per module, which keeps NVRTC's
// compile time to seconds. The EFD formulas are incomplete: they are wrong for P + P (they return the identity's
// encoding instead of a doubling) and for the identity as an input. Every addition here tests
// those cases first and falls back to the doubling or the pass-through. NVRTC-compatible (no host
// standard headers) and __host__ __device__, so tests/native/ checks it on the CPU.
#pragma once

#include "field.cuh"
#include "fq2.cuh"

template <class F>
struct affine_t {
    F x;
    F y;

    static __host__ __device__ affine_t identity() { return affine_t{F::zero(), F::zero()}; }
    __host__ __device__ bool is_identity() const { return x.is_zero() && y.is_zero(); }
    // -(x, y) = (x, -y); the identity (0, 0) maps to itself because -0 = 0.
    __host__ __device__ affine_t neg() const { return affine_t{x, y.neg()}; }
};

template <class F>
struct xyzz_t {
    F X;
    F Y;
    F ZZ;
    F ZZZ;

    // EFD's neutral element for XYZZ is (1 : 1 : 0 : 0).
    static __host__ __device__ xyzz_t identity() { return xyzz_t{F::one(), F::one(), F::zero(), F::zero()}; }
    __host__ __device__ bool is_identity() const { return ZZ.is_zero(); }
    __host__ __device__ xyzz_t neg() const { return xyzz_t{X, Y.neg(), ZZ, ZZZ}; }
};

typedef affine_t<fq_t> g1_affine_t;
typedef affine_t<fq2_t> g2_affine_t;
typedef xyzz_t<fq_t> g1_xyzz_t;
typedef xyzz_t<fq2_t> g2_xyzz_t;

// (x, y) -> (x : y : 1 : 1); the identity (0, 0) -> (1 : 1 : 0 : 0).
template <class F>
__host__ __device__ xyzz_t<F> xyzz_from_affine(const affine_t<F>& p) {
    if (p.is_identity()) return xyzz_t<F>::identity();
    return xyzz_t<F>{p.x, p.y, F::one(), F::one()};
}

// 2 * (x, y) for an affine point: mdbl-2008-s-1 (EFD xyzz, Sutherland 2008), a = 0.
// y = 0 (a 2-torsion point, never in G1 or G2) gives U = 0, so ZZ3 = 0: the identity, correctly.
template <class F>
__host__ __device__ EC_NOINLINE xyzz_t<F> xyzz_double_affine(affine_t<F> p) {
    if (p.is_identity()) return xyzz_t<F>::identity();
    F U = p.y + p.y;
    F V = ec_sqr(U);
    F W = ec_mul(U, V);
    F S = ec_mul(p.x, V);
    F xx = ec_sqr(p.x);
    F M = xx + xx + xx;  // 3 x^2 + a, a = 0
    F X3 = ec_sqr(M) - (S + S);
    F Y3 = ec_mul_sub(M, S - X3, W, p.y);
    return xyzz_t<F>{X3, Y3, V, W};
}

// 2 * P: dbl-2008-s-1 (EFD xyzz, Sutherland 2008), a = 0. Complete for our inputs: the identity
// (ZZ = 0) stays the identity (ZZ3 = V ZZ1 = 0), and a 2-torsion point (Y = 0) gives V = 0.
template <class F>
__host__ __device__ EC_NOINLINE xyzz_t<F> xyzz_double(xyzz_t<F> p) {
    F U = p.Y + p.Y;
    F V = ec_sqr(U);
    F W = ec_mul(U, V);
    F S = ec_mul(p.X, V);
    F xx = ec_sqr(p.X);
    F M = xx + xx + xx;  // 3 X^2 + a ZZ^2, a = 0
    F X3 = ec_sqr(M) - (S + S);
    F Y3 = ec_mul_sub(M, S - X3, W, p.Y);
    return xyzz_t<F>{X3, Y3, ec_mul(V, p.ZZ), ec_mul(W, p.ZZZ)};
}

// P += Q with Q affine: madd-2008-s (EFD xyzz, Sutherland 2008), 8M + 2S, in place: each coordinate of p is
// written after its last read, so that a caller may keep p in memory and add to it through a pointer
// (xyzz_add_affine_to, ec_kernels.cuh accumulator_slot). Special cases, which the formula gets wrong, are decided
// first: Q = O -> P; P = O -> Q; P = Q (U2 = X1 and S2 = Y1) -> mdbl-2008-s-1 on Q; P = -Q (U2 = X1, S2 != Y1) -> O.
template <class F>
__host__ __device__ __forceinline__ void madd_into(xyzz_t<F>& p, const affine_t<F>& q) {
    if (q.is_identity()) return;
    if (p.is_identity()) {
        p = xyzz_from_affine(q);
        return;
    }
    F U2 = ec_mul(q.x, p.ZZ);
    F S2 = ec_mul(q.y, p.ZZZ);
    F P = U2 - p.X;
    F R = S2 - p.Y;
    if (P.is_zero()) {
        if (R.is_zero()) p = xyzz_double_affine(q);
        else p = xyzz_t<F>::identity();
        return;
    }
    F PP = ec_sqr(P);
    F PPP = ec_mul(P, PP);
    p.ZZ = ec_mul(p.ZZ, PP);     // ZZ3 = ZZ1 PP (ZZ1 last read by U2)
    p.ZZZ = ec_mul(p.ZZZ, PPP);  // ZZZ3 = ZZZ1 PPP (ZZZ1 last read by S2)
    F Q = ec_mul(p.X, PP);
    p.X = ec_sqr(R) - PPP - (Q + Q);         // X3 (X1 last read by Q)
    p.Y = ec_mul_sub(R, Q - p.X, p.Y, PPP);  // Y3 = R (Q - X3) - Y1 PPP
}

// P + Q with Q affine (madd_into), by value: for accumulators kept in registers.
template <class F>
__host__ __device__ EC_NOINLINE xyzz_t<F> xyzz_add_affine(xyzz_t<F> p, affine_t<F> q) {
    madd_into(p, q);
    return p;
}

// *p += Q with Q affine (madd_into), through a pointer: for an accumulator kept in shared memory, which the
// out-of-line call then neither copies in nor out (a G2 XYZZ point is 96 registers).
template <class F>
__host__ __device__ EC_NOINLINE void xyzz_add_affine_to(xyzz_t<F>* p, affine_t<F> q) {
    madd_into(*p, q);
}

// P + Q, both XYZZ: add-2008-s (EFD xyzz, Sutherland 2008), 12M + 2S, with the same special cases
// as xyzz_add_affine decided first (P = Q falls back to dbl-2008-s-1).
template <class F>
__host__ __device__ EC_NOINLINE xyzz_t<F> xyzz_add(xyzz_t<F> p, xyzz_t<F> q) {
    if (q.is_identity()) return p;
    if (p.is_identity()) return q;
    F U1 = ec_mul(p.X, q.ZZ);
    F U2 = ec_mul(q.X, p.ZZ);
    F S1 = ec_mul(p.Y, q.ZZZ);
    F S2 = ec_mul(q.Y, p.ZZZ);
    F P = U2 - U1;
    F R = S2 - S1;
    if (P.is_zero()) {
        if (R.is_zero()) return xyzz_double(p);
        return xyzz_t<F>::identity();
    }
    F PP = ec_sqr(P);
    F PPP = ec_mul(P, PP);
    F Q = ec_mul(U1, PP);
    F X3 = ec_sqr(R) - PPP - (Q + Q);
    F Y3 = ec_mul_sub(R, Q - X3, S1, PPP);
    return xyzz_t<F>{X3, Y3, ec_mul(ec_mul(p.ZZ, q.ZZ), PP), ec_mul(ec_mul(p.ZZZ, q.ZZZ), PPP)};
}

// k * P for a small non-negative k, most significant bit first (left-to-right double-and-add).
// Used for a segment's offset weight in the bucket reduction and the window shifts; k < 2^32.
template <class F>
__host__ __device__ xyzz_t<F> xyzz_mul_small(const xyzz_t<F>& p, unsigned int k) {
    xyzz_t<F> acc = xyzz_t<F>::identity();
    int top = 31;
    while (top >= 0 && !((k >> top) & 1u)) --top;  // skip the leading zero bits: doublings of O
#pragma unroll 1
    for (int bit = top; bit >= 0; --bit) {
        acc = xyzz_double(acc);
        if ((k >> bit) & 1u) acc = xyzz_add(acc, p);
    }
    return acc;
}

// (X : Y : ZZ : ZZZ) -> (X / ZZ, Y / ZZZ) with one inversion: with ZZ = Z^2 and ZZZ = Z^3,
// 1/Z = ZZ * ZZZ^-1 and 1/ZZ = (1/Z)^2. The identity maps to (0, 0).
template <class F>
__host__ __device__ EC_NOINLINE affine_t<F> xyzz_to_affine(xyzz_t<F> p) {
    if (p.is_identity()) return affine_t<F>::identity();
    F zzz_inv = ec_inv(p.ZZZ);
    F z_inv = ec_mul(p.ZZ, zzz_inv);
    return affine_t<F>{ec_mul(p.X, ec_sqr(z_inv)), ec_mul(p.Y, zzz_inv)};
}
