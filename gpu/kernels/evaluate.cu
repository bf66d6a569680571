// Phase evaluate: a_j = <A_j, z>, b_j = <B_j, z>, c_j = <C_j, z> (mod r) for every row j of every
// circuit's witness z, as sparse matrix - dense vector products (CSR: compressed sparse rows).
//
// The three matrices are stacked into one CSR of 3n rows (A's n rows, then B's, then C's; rows past
// the R1CS's last are empty, which gives the zero padding to the domain size n). One thread
// computes one row for one circuit (blockIdx.y), so a launch evaluates every circuit:
//   out[(matrix * circuits + circuit) * n + row] = sum_{k in row} coeff_k * z[circuit][var_k].
#include "field.cuh"

extern "C" __global__ void evaluate_rows(const long long* __restrict__ row_start, const int* __restrict__ var,
                                         const fr_t* __restrict__ coeff, const fr_t* __restrict__ witnesses,
                                         u64 num_variables, u64 n, fr_t* __restrict__ out) {
    const u64 stacked_row = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    const u64 stacked_rows = 3 * n;  // A, B, C
    if (stacked_row >= stacked_rows) return;
    const u64 circuit = blockIdx.y;
    const fr_t* z = witnesses + circuit * num_variables;
    const fr_t one = fr_t::one();

    fr_t acc = fr_t::zero();
    for (long long k = row_start[stacked_row]; k < row_start[stacked_row + 1]; ++k) {
        fr_t c = coeff[k];
        fr_t value = z[var[k]];
        acc = acc + (c == one ? value : c * value);  // unit coefficients are the common case: skip the product
    }
    const u64 matrix = stacked_row / n, row = stacked_row % n;
    out[(matrix * gridDim.y + circuit) * n + row] = acc;
}

// The rows a witness leaves unsatisfied: first_failing[circuit] = min(first_failing[circuit], j) for every row
// j < num_rows with a_j * b_j != c_j (a, b, c: evaluate_rows' outputs, (circuits, n) elements each, Montgomery form;
// elements are fully reduced, so limb inequality is value inequality). The caller sets first_failing to all ones.
// One thread a (row, circuit): a, b and c are read once and nothing else is written, where a product array and a
// difference array computed apart would write and read two more arrays of their size.
extern "C" __global__ void first_unsatisfied_rows(const fr_t* __restrict__ a, const fr_t* __restrict__ b,
                                                  const fr_t* __restrict__ c, u64 n, u64 num_rows,
                                                  u64* __restrict__ first_failing) {
    const u64 row = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= num_rows) return;
    const u64 at = blockIdx.y * n + row;
    if (a[at] * b[at] != c[at]) atomicMin(first_failing + blockIdx.y, row);
}
