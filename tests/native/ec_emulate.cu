// Host build of the GPU curve code, for tests on machines without a GPU.
//
// Compiled by tests/native/ec_host.py (g++/clang++, or nvcc) into a shared library (host code only: the
// __global__ wrappers are left out by EC_HOST_EMULATION), it exports
//   * ec_<op>_<group>(...)  single point / field operations from ec.cuh and fq2.cuh, which the
//     tests compare with py_ecc;
//   * emu_<kernel>(threads, args)  every kernel body of EC_KERNEL_FILE run for thread indices
//     0 .. threads-1 in order, args laid out as cuLaunchKernel takes them (args[k] points at
//     parameter k). tests/native/ec_host.py (emulation_backend) calls these in place of a GPU launch, so that the
//     Python drivers in gpu/ run unchanged against the very same kernel code.
#define EC_HOST_EMULATION 1
#include EC_KERNEL_FILE

#include <cstddef>
#include <type_traits>
#include <utility>

typedef unsigned int u32;

template <class... A, std::size_t... I>
static void call_body(void (*body)(ec_index_t, A...), ec_index_t tid, void** args, std::index_sequence<I...>) {
    body(tid, *static_cast<std::remove_reference_t<A>*>(args[I])...);
}

template <class... A>
static void run_body(void (*body)(ec_index_t, A...), ec_index_t threads, void** args) {
    for (ec_index_t tid = 0; tid < threads; ++tid) call_body(body, tid, args, std::index_sequence_for<A...>{});
}

#define EMULATE(name, body) \
    extern "C" void emu_##name(ec_index_t threads, void** args) { run_body(body, threads, args); }
#define EMULATE_G1_G2(name)                   \
    EMULATE(name##_g1, name##_body<fq_t>)     \
    EMULATE(name##_g2, name##_body<fq2_t>)

EMULATE_G1_G2(sum_groups)
#ifdef EC_EMULATE_MSM
EMULATE(msm_digits, msm_digits_body)
EMULATE(msm_scatter, msm_scatter_body)
EMULATE(msm_piece_count, msm_piece_count_body)
EMULATE(msm_piece_keys, msm_piece_keys_body)
EMULATE_G1_G2(msm_piece_sum)
EMULATE_G1_G2(msm_bucket_sum)
EMULATE_G1_G2(msm_window_segments)
EMULATE_G1_G2(msm_combine)
EMULATE_G1_G2(progression_points)

// Single operations on one point, for the formula tests (words as in gpu/points.py).
#define EXPORT_POINT_OPS(group, F)                                                                    \
    extern "C" void ec_add_affine_##group(const u32* p, const u32* q, u32* out) {                    \
        *ec_xyzz<F>(out) = xyzz_add_affine(*ec_xyzz<F>(p), *ec_affine<F>(q));                        \
    }                                                                                                 \
    extern "C" void ec_add_##group(const u32* p, const u32* q, u32* out) {                           \
        *ec_xyzz<F>(out) = xyzz_add(*ec_xyzz<F>(p), *ec_xyzz<F>(q));                                 \
    }                                                                                                 \
    extern "C" void ec_double_##group(const u32* p, u32* out) { *ec_xyzz<F>(out) = xyzz_double(*ec_xyzz<F>(p)); } \
    extern "C" void ec_double_affine_##group(const u32* p, u32* out) {                               \
        *ec_xyzz<F>(out) = xyzz_double_affine(*ec_affine<F>(p));                                     \
    }                                                                                                 \
    extern "C" void ec_from_affine_##group(const u32* p, u32* out) {                                 \
        *ec_xyzz<F>(out) = xyzz_from_affine(*ec_affine<F>(p));                                       \
    }                                                                                                 \
    extern "C" void ec_to_affine_##group(const u32* p, u32* out) { *ec_affine<F>(out) = xyzz_to_affine(*ec_xyzz<F>(p)); } \
    extern "C" void ec_mul_small_##group(const u32* p, u32 k, u32* out) {                            \
        *ec_xyzz<F>(out) = xyzz_mul_small(*ec_xyzz<F>(p), k);                                        \
    }
EXPORT_POINT_OPS(g1, fq_t)
EXPORT_POINT_OPS(g2, fq2_t)

extern "C" void ec_fq2_mul(const u32* a, const u32* b, u32* out) {
    *reinterpret_cast<fq2_t*>(out) = *reinterpret_cast<const fq2_t*>(a) * *reinterpret_cast<const fq2_t*>(b);
}
extern "C" void ec_fq2_sqr(const u32* a, u32* out) {
    *reinterpret_cast<fq2_t*>(out) = reinterpret_cast<const fq2_t*>(a)->sqr();
}
extern "C" void ec_fq2_inverse(const u32* a, u32* out) {
    *reinterpret_cast<fq2_t*>(out) = reinterpret_cast<const fq2_t*>(a)->inverse();
}
#endif

#ifdef EC_EMULATE_KEYGEN
EMULATE(qap_pieces, qap_pieces_body)
EMULATE(qap_columns, qap_columns_body)
EMULATE(fr_combine, fr_combine_body)
EMULATE_G1_G2(fixed_base)
#endif

#ifdef EC_EMULATE_ASSEMBLE
EMULATE_G1_G2(linear_combination)
#endif

#ifdef EC_EMULATE_BATCH_ADD
EMULATE_G1_G2(batch_add_chunks)
EMULATE_G1_G2(batch_add_finish)
EMULATE(bitmap_popcount, bitmap_popcount_body)
EMULATE(batch_chunk_keys, batch_chunk_keys_body)
EMULATE(batch_patterns, batch_patterns_body)
EMULATE_G1_G2(pattern_row_sums)
#endif
