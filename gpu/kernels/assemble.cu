// Phase assemble on the device: every circuit's A, B, C as small linear combinations of points.
//
//   linear_combination   out[row] = sum_{t < terms} k[row][t] * P[row][t]   (affine in and out)
//
// Straus's method ("Shamir's trick"; Straus 1964, "Addition chains of vectors"): one double-and-add
// ladder over the bits of all the row's scalars at once, most significant bit first, so a row costs
// one doubling a bit (from the highest set bit of any of its scalars) plus one mixed addition
// (madd-2008-s) a set bit. One thread a row; gpu/assemble.py builds the rows (about ten per circuit).
#include "ec_kernels.cuh"

#define ASSEMBLE_SCALAR_LIMBS 8

template <class F>
__host__ __device__ void linear_combination_body(ec_index_t tid, const unsigned int* points, const unsigned int* scalars,
                                                 unsigned int terms, unsigned int rows, unsigned int* out) {
    if (tid >= rows) return;
    const affine_t<F>* p = ec_affine<F>(points) + tid * terms;
    const unsigned int* k = scalars + tid * terms * ASSEMBLE_SCALAR_LIMBS;
    int top = -1;  // the highest set bit of any scalar of the row
    for (unsigned int t = 0; t < terms; ++t)
        for (int limb = ASSEMBLE_SCALAR_LIMBS - 1; limb >= 0; --limb) {
            const unsigned int word = k[t * ASSEMBLE_SCALAR_LIMBS + limb];
            if (!word) continue;
            int bit = 31;
            while (!((word >> bit) & 1u)) --bit;
            if (32 * limb + bit > top) top = 32 * limb + bit;
            break;
        }
    xyzz_t<F> acc = xyzz_t<F>::identity();
    for (int bit = top; bit >= 0; --bit) {
        acc = xyzz_double(acc);
        for (unsigned int t = 0; t < terms; ++t)
            if ((k[t * ASSEMBLE_SCALAR_LIMBS + bit / 32] >> (bit % 32)) & 1u) acc = xyzz_add_affine(acc, p[t]);
    }
    ec_affine<F>(out)[tid] = xyzz_to_affine(acc);
}
EC_KERNEL_G1_G2(linear_combination,
                (const unsigned int* points, const unsigned int* scalars, unsigned int terms, unsigned int rows,
                 unsigned int* out),
                (EC_TID, points, scalars, terms, rows, out))
