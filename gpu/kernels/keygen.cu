// The test-only key generator's kernels (gpu/keygen.py drives them): the QAP polynomials at tau,
// column by column, and fixed-base scalar multiplication k_i * G for millions of known scalars.
//
//   qap_pieces, qap_columns   out[m V + i] = sum_{j} M[j][i] l_j(tau) for matrix m in (A, B, C) and
//                 variable i (u_i, v_i, w_i of reference/setup.py), over the stacked CSR's terms sorted
//                 by (matrix, variable): pieces of a column in parallel, then the pieces of each column
//   fr_combine    out_i = k0 u_i + k1 v_i + k2 w_i for three constants: the L and IC scalars
//   fixed_base    out_i = s_i * G (affine) with a window table of G's multiples; runs of points
//                 share one inversion (xyzz_run_to_affine)
#include "ec_kernels.cuh"

// Column sums in two steps, so that a long column (the ONE variable is in most B rows: ~85M terms at
// 2^27) is not summed by one thread:
//   qap_pieces   partial[p] = sum over piece p's terms (at most piece_terms consecutive terms of one column)
//                of coeff[term] * lagrange[row(term) mod n], term = order[t]
//   qap_columns  out[col] = sum of the column's pieces partial[piece_start[col] .. piece_start[col + 1])
// Every array of Fr elements is in Montgomery form; pieces and columns are disjoint, so no atomics.
__host__ __device__ void qap_pieces_body(ec_index_t tid, const long long* order, const long long* term_row,
                                         const unsigned int* coeff, const long long* column_start,
                                         const long long* piece_column, const long long* piece_start,
                                         unsigned long long piece_terms, const unsigned int* lagrange,
                                         unsigned long long n, unsigned long long pieces, unsigned int* partial) {
    if (tid >= pieces) return;
    const fr_t* c = reinterpret_cast<const fr_t*>(coeff);
    const fr_t* l = reinterpret_cast<const fr_t*>(lagrange);
    const long long column = piece_column[tid];
    const long long first = column_start[column] + (long long)((tid - piece_start[column]) * piece_terms);
    const long long end = column_start[column + 1];
    const long long last = first + (long long)piece_terms < end ? first + (long long)piece_terms : end;
    fr_t acc = fr_t::zero();
    for (long long t = first; t < last; ++t) {
        const long long term = order[t];
        acc = acc + c[term] * l[(unsigned long long)term_row[term] % n];
    }
    reinterpret_cast<fr_t*>(partial)[tid] = acc;
}
EC_KERNEL(qap_pieces,
          (const long long* order, const long long* term_row, const unsigned int* coeff, const long long* column_start,
           const long long* piece_column, const long long* piece_start, unsigned long long piece_terms,
           const unsigned int* lagrange, unsigned long long n, unsigned long long pieces, unsigned int* partial),
          (EC_TID, order, term_row, coeff, column_start, piece_column, piece_start, piece_terms, lagrange, n, pieces,
           partial))

__host__ __device__ void qap_columns_body(ec_index_t tid, const unsigned int* partial, const long long* piece_start,
                                          unsigned long long columns, unsigned int* out) {
    if (tid >= columns) return;
    const fr_t* p = reinterpret_cast<const fr_t*>(partial);
    fr_t acc = fr_t::zero();
    for (long long k = piece_start[tid]; k < piece_start[tid + 1]; ++k) acc = acc + p[k];
    reinterpret_cast<fr_t*>(out)[tid] = acc;
}
EC_KERNEL(qap_columns,
          (const unsigned int* partial, const long long* piece_start, unsigned long long columns, unsigned int* out),
          (EC_TID, partial, piece_start, columns, out))

// out_i = k[0] u_i + k[1] v_i + k[2] w_i (Montgomery Fr) for i < count.
__host__ __device__ void fr_combine_body(ec_index_t tid, const unsigned int* u, const unsigned int* v,
                                         const unsigned int* w, const unsigned int* constants,
                                         unsigned long long count, unsigned int* out) {
    if (tid >= count) return;
    const fr_t* k = reinterpret_cast<const fr_t*>(constants);
    const fr_t ui = reinterpret_cast<const fr_t*>(u)[tid];
    const fr_t vi = reinterpret_cast<const fr_t*>(v)[tid];
    const fr_t wi = reinterpret_cast<const fr_t*>(w)[tid];
    reinterpret_cast<fr_t*>(out)[tid] = k[0] * ui + k[1] * vi + k[2] * wi;
}
EC_KERNEL(fr_combine,
          (const unsigned int* u, const unsigned int* v, const unsigned int* w, const unsigned int* constants,
           unsigned long long count, unsigned int* out),
          (EC_TID, u, v, w, constants, count, out))

// Fixed-base multiplication: out[i] = s_i * G for i < count, s_i Montgomery-form scalars (< r).
// table[w * (2^c - 1) + d - 1] = d * 2^(c w) * G (affine) for windows w < ceil(256 / c) and digits
// 1 <= d < 2^c, so s * G = sum_w table[w][digit_w(s)]: one mixed addition (madd-2008-s) per non-zero
// c-bit window and no doubling. Thread t makes the run [t run, (t + 1) run) of points, keeping XYZZ
// sums and the prefix products of their ZZZ in the scratch arrays (indexed like out), and converts
// the run to affine with one inversion. A zero scalar gives the identity (0, 0).
template <class F>
__host__ __device__ void fixed_base_body(ec_index_t tid, const unsigned int* table, unsigned int window_bits,
                                         unsigned int windows, const unsigned int* scalars, unsigned int count,
                                         unsigned int run, unsigned int* xyzz_scratch, unsigned int* prefix_scratch,
                                         unsigned int* out) {
    ec_index_t first = tid * run;
    if (first >= count) return;
    ec_index_t last = first + run < count ? first + run : count;
    const affine_t<F>* entries = ec_affine<F>(table);
    const ec_index_t per_window = (1u << window_bits) - 1;
    xyzz_t<F>* points = ec_xyzz<F>(xyzz_scratch);
    F* prefix = reinterpret_cast<F*>(prefix_scratch);
    F product = F::one();
    for (ec_index_t i = first; i < last; ++i) {
        fr_t s = reinterpret_cast<const fr_t*>(scalars)[i];
        s = s.from_mont();
        xyzz_t<F> acc = xyzz_t<F>::identity();
        for (unsigned int w = 0; w < windows; ++w) {
            const unsigned int digit = scalar_window(s.l, w * window_bits, window_bits);
            if (digit) acc = xyzz_add_affine(acc, entries[w * per_window + digit - 1]);
        }
        points[i] = acc;
        if (!acc.is_identity()) product = ec_mul(product, acc.ZZZ);
        prefix[i] = product;
    }
    xyzz_run_to_affine(points, prefix, first, last, product, out);
}
EC_KERNEL_G1_G2(fixed_base,
                (const unsigned int* table, unsigned int window_bits, unsigned int windows, const unsigned int* scalars,
                 unsigned int count, unsigned int run, unsigned int* xyzz_scratch, unsigned int* prefix_scratch,
                 unsigned int* out),
                (EC_TID, table, window_bits, windows, scalars, count, run, xyzz_scratch, prefix_scratch, out))
