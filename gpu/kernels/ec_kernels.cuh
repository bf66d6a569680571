// Kernel bodies shared by msm.cu and batch_add.cu, and the plumbing that lets every kernel be
// run on the CPU.
//
// Each kernel is a thin __global__ wrapper around a __host__ __device__ "body" that takes the
// global thread index first: body(tid, args...). The GPU launches the wrapper; the host tests in
// tests/native/ call the body once per thread index (tests/native/ec_emulate.cu), so that the same
// code is checked without a GPU. Bodies therefore use no __syncthreads, reach atomics only through ec_atomic_add,
// and shared memory only through accumulator_slot (a thread's own slot, which the host build replaces by a local).
// Buffers are passed as u32 words and reinterpreted here, which gives the G1 and G2 kernels the same parameter lists
// (see EC_KERNEL_G1_G2).
#pragma once

#include "ec.cuh"

typedef unsigned long long ec_index_t;

// Global thread index of a 1-D launch.
#define EC_TID ((ec_index_t)blockIdx.x * blockDim.x + threadIdx.x)

// EC_GROUP selects the group whose kernels a module holds: 1 = G1, 2 = G2, undefined = both.
// gpu/points.py builds one module per group (-DEC_GROUP=1 / 2) so the two compile in parallel and
// each NVRTC run stays short. Group-independent kernels are in every module.
#if defined(EC_HOST_EMULATION)
// Host build (tests/native/ec_emulate.cu): the bodies are called directly, no kernels.
#define EC_KERNEL_G1(name, params, args)
#define EC_KERNEL_G1_MIN_BLOCKS(name, min_blocks, params, args)
#define EC_KERNEL_G2(name, params, args)
#define EC_KERNEL(name, params, args)
#else
#define EC_GLOBAL extern "C" __global__ void __launch_bounds__(EC_THREADS_PER_BLOCK)
#if !defined(EC_GROUP) || EC_GROUP == 1
#define EC_KERNEL_G1(name, params, args) EC_GLOBAL name##_g1 params { name##_body<fq_t> args; }
// A G1 kernel that keeps min_blocks blocks an SM resident: ptxas holds it to 65536 / (min_blocks x 128) registers.
#define EC_KERNEL_G1_MIN_BLOCKS(name, min_blocks, params, args)                                       \
    extern "C" __global__ void __launch_bounds__(EC_THREADS_PER_BLOCK, min_blocks) name##_g1 params { \
        name##_body<fq_t> args;                                                                     \
    }
#else
#define EC_KERNEL_G1(name, params, args)
#define EC_KERNEL_G1_MIN_BLOCKS(name, min_blocks, params, args)
#endif
#if !defined(EC_GROUP) || EC_GROUP == 2
#define EC_KERNEL_G2(name, params, args) EC_GLOBAL name##_g2 params { name##_body<fq2_t> args; }
#else
#define EC_KERNEL_G2(name, params, args)
#endif
// One group-independent kernel from name_body (extern "C", so cupy finds it unmangled).
#define EC_KERNEL(name, params, args) EC_GLOBAL name params { name##_body args; }
#endif
// name_g1 and name_g2 from the template name_body<F>, F = fq_t (G1) or fq2_t (G2).
#define EC_KERNEL_G1_G2(name, params, args) EC_KERNEL_G1(name, params, args) EC_KERNEL_G2(name, params, args)

// Block size every launch uses (gpu/points.py THREADS_PER_BLOCK must match).
#define EC_THREADS_PER_BLOCK 128

// Where a thread keeps the running sum of an accumulation loop (msm.cu's piece sums, batch_add.cu's chunks): on the
// device its own slot of a shared array of one point a thread (a G2 XYZZ point is 384 bytes: 48 KiB a block of 128),
// added to in place through xyzz_add_affine_to, so that the out-of-line addition neither copies the point in and out
// nor spills it (measured: bench/RESULTS_msm.md, "The shared-memory running sum"); on the host, `host_slot`.
template <class F>
__host__ __device__ inline xyzz_t<F>* accumulator_slot(xyzz_t<F>* host_slot) {
#ifdef __CUDA_ARCH__
    __shared__ xyzz_t<F> slots[EC_THREADS_PER_BLOCK];
    (void)host_slot;
    return &slots[threadIdx.x];
#else
    return host_slot;
#endif
}

// *addr += value, returning the old value: atomicAdd on the device; on the host the emulation
// runs threads one after another, so a plain read-modify-write is exact.
__host__ __device__ inline unsigned int ec_atomic_add(unsigned int* addr, unsigned int value) {
#ifdef __CUDA_ARCH__
    return atomicAdd(addr, value);
#else
    unsigned int old = *addr;
    *addr = old + value;
    return old;
#endif
}

// *addr, not read again while it could still be in L2: on the device an evict-first load (__ldcs), so that a stream
// of such reads does not push other data out of L2.
__host__ __device__ inline unsigned int ec_load_streaming(const unsigned int* addr) {
#ifdef __CUDA_ARCH__
    return __ldcs(addr);
#else
    return *addr;
#endif
}

// The digit word of the MSM's counting sort (msm.cu msm_digits and batch_add.cu batch_patterns make it, msm.cu
// msm_scatter reads it), for a window of c bits (c <= 31):
//   bit 31         the sign (1 = negative)
//   bits c .. 30   the digit's rank in its bucket: the bucket counter's value before the digit's atomic addition,
//                  or msm_rank_overflow(c) (all ones) from that rank on
//   bits 0 .. c-1  the magnitude |d| <= 2^(c-1) (0 = no bucket; a digit word 0 is not counted)
// The rank comes free with the histogram's atomic addition, so that the scatter writes a digit's entry at its
// bucket's offset + rank without an atomic of its own (measured: the MSM no faster, batch_add's pattern pass 7.2%
// faster; bench/RESULTS_msm.md "The counting sort's ranks"). A bucket's digits from the overflow rank on (equal
// scalars; a random input of 2^n points has ~2^(n - c + 1) a bucket) share an atomic counter in the scatter.
#define MSM_SIGN_BIT 0x80000000u
#define MSM_RANK_FIELD_TOP 31u  // the rank field ends below the sign bit
__host__ __device__ inline unsigned int msm_rank_overflow(unsigned int c) {
    return (1u << (MSM_RANK_FIELD_TOP - c)) - 1u;  // 0 at c = 31: no rank fits, every digit overflows
}
__host__ __device__ inline unsigned int msm_magnitude(unsigned int word, unsigned int c) {
    return word & ((1u << c) - 1u);
}
__host__ __device__ inline unsigned int msm_rank(unsigned int word, unsigned int c) {
    return (word & ~MSM_SIGN_BIT) >> c;
}

// Counts a digit word (sign and magnitude, magnitude > 0) in its bucket's counter; returns the word with its rank.
__host__ __device__ inline unsigned int msm_count_digit(unsigned int* counter, unsigned int word, unsigned int c) {
    unsigned int rank = ec_atomic_add(counter, 1u);
    unsigned int overflow = msm_rank_overflow(c);
    return word | ((rank < overflow ? rank : overflow) << c);
}

// Work items in the order "most work first": key = the complement of an item's work in the high word, its index in
// the low word, so that an ascending sort of the keys lists the items with the most work first (ties in index order)
// and (unsigned int)key gives the index back. Threads that take the sorted items in turn (a thread an item) then
// share a warp with items of about equal work, and a warp runs as long as its longest item; the lightest come last,
// in the last wave (msm.cu's pieces of bucket runs, batch_add.cu's chunks of bitmap rows).
#define EC_WORK_KEY_INDEX_BITS 32
__host__ __device__ inline unsigned long long ec_work_key(unsigned int work, unsigned int index) {
    return ((unsigned long long)(~work) << EC_WORK_KEY_INDEX_BITS) | index;
}

// Number of set bits of a 32-bit word.
__host__ __device__ inline unsigned int ec_popcount(unsigned int word) {
#ifdef __CUDA_ARCH__
    return __popc(word);
#else
    return __builtin_popcount(word);
#endif
}

// Index (0..31) of the lowest set bit of a non-zero word.
__host__ __device__ inline unsigned int ec_lowest_bit(unsigned int word) {
#ifdef __CUDA_ARCH__
    return __ffs(word) - 1;
#else
    return __builtin_ctz(word);
#endif
}

// The c bits of a 256-bit little-endian scalar (8 u32 limbs) starting at bit `offset` (offset < 256, c <= 31).
__host__ __device__ inline unsigned int scalar_window(const unsigned int* limbs, unsigned int offset,
                                                      unsigned int c) {
    const unsigned int limb_bits = 32, scalar_limbs = 8;
    unsigned int limb = offset / limb_bits;
    unsigned int shift = offset % limb_bits;
    unsigned long long bits = limbs[limb] >> shift;
    if (shift + c > limb_bits && limb + 1 < scalar_limbs) bits |= (unsigned long long)limbs[limb + 1] << (limb_bits - shift);
    return (unsigned int)(bits & ((1ull << c) - 1));
}

template <class F>
__host__ __device__ inline const affine_t<F>* ec_affine(const unsigned int* words) {
    return reinterpret_cast<const affine_t<F>*>(words);
}
template <class F>
__host__ __device__ inline affine_t<F>* ec_affine(unsigned int* words) {
    return reinterpret_cast<affine_t<F>*>(words);
}
template <class F>
__host__ __device__ inline const xyzz_t<F>* ec_xyzz(const unsigned int* words) {
    return reinterpret_cast<const xyzz_t<F>*>(words);
}
template <class F>
__host__ __device__ inline xyzz_t<F>* ec_xyzz(unsigned int* words) {
    return reinterpret_cast<xyzz_t<F>*>(words);
}

// out[g][k] = sum of in[g][k*fold .. min((k+1)*fold, in_per_group)), for every group g and
// k < out_per_group = ceil(in_per_group / fold). Applied repeatedly by the host until one point is
// left per group: a tree reduction in global memory, fold-ary.
template <class F>
__host__ __device__ void sum_groups_body(ec_index_t tid, const unsigned int* in, unsigned int* out,
                                         unsigned int groups, unsigned int in_per_group, unsigned int fold,
                                         unsigned int out_per_group) {
    if (tid >= (ec_index_t)groups * out_per_group) return;
    ec_index_t group = tid / out_per_group;
    ec_index_t k = tid % out_per_group;
    ec_index_t first = k * fold;
    ec_index_t last = first + fold < in_per_group ? first + fold : in_per_group;
    const xyzz_t<F>* row = ec_xyzz<F>(in) + group * in_per_group;
    xyzz_t<F> acc = xyzz_t<F>::identity();
    for (ec_index_t i = first; i < last; ++i) acc = xyzz_add(acc, row[i]);
    ec_xyzz<F>(out)[tid] = acc;
}

// out[i] = to_affine(points[i]) for i in [first, last) with one field inversion (Montgomery's
// simultaneous inversion trick, Montgomery 1987, "Speeding the Pollard and elliptic curve methods
// of factorization", section 10.3.1): prefix[i] holds the product of the ZZZ of the non-identity
// points first..i and `product` the product of all of them. The identity maps to (0, 0).
template <class F>
__host__ __device__ void xyzz_run_to_affine(const xyzz_t<F>* points, const F* prefix, ec_index_t first, ec_index_t last,
                                            F product, unsigned int* out) {
    // Walk back: inv holds (prod_{j <= i} ZZZ_j)^-1, so ZZZ_i^-1 = inv * prefix_{i-1}.
    F inv = ec_inv(product);
    for (ec_index_t i = last; i-- > first;) {
        const xyzz_t<F> p = points[i];
        if (p.is_identity()) {
            ec_affine<F>(out)[i] = affine_t<F>::identity();
            continue;
        }
        F before = i > first ? prefix[i - 1] : F::one();
        F zzz_inv = ec_mul(inv, before);
        inv = ec_mul(inv, p.ZZZ);
        F z_inv = ec_mul(p.ZZ, zzz_inv);  // 1/Z = ZZ / ZZZ
        ec_affine<F>(out)[i] = affine_t<F>{ec_mul(p.X, ec_sqr(z_inv)), ec_mul(p.Y, zzz_inv)};
    }
}

// Points with known discrete logs for tests and benchmarks: out[i] = start + i * step (affine),
// i.e. (b + i a) * G for start = b G and step = a G. Thread t makes the run i in
// [t * run, (t + 1) * run): it starts from start + (t run) * step (double-and-add), then adds step
// (madd-2008-s) once per point, keeping XYZZ points and the prefix products of their ZZZ in the
// scratch arrays, and converts the whole run to affine with one inversion (xyzz_run_to_affine).
// The identity (ZZZ = 0) is skipped in the products.
template <class F>
__host__ __device__ void progression_points_body(ec_index_t tid, const unsigned int* start, const unsigned int* step,
                                                 unsigned int count, unsigned int run, unsigned int* xyzz_scratch,
                                                 unsigned int* prefix_scratch, unsigned int* out) {
    ec_index_t first = tid * run;
    if (first >= count) return;
    ec_index_t last = first + run < count ? first + run : count;
    const affine_t<F> step_point = ec_affine<F>(step)[0];
    xyzz_t<F>* points = ec_xyzz<F>(xyzz_scratch);
    F* prefix = reinterpret_cast<F*>(prefix_scratch);
    xyzz_t<F> current = xyzz_add_affine(xyzz_mul_small(xyzz_from_affine(step_point), (unsigned int)first),
                                        ec_affine<F>(start)[0]);
    F product = F::one();
    for (ec_index_t i = first; i < last; ++i) {
        points[i] = current;
        if (!current.is_identity()) product = ec_mul(product, current.ZZZ);
        prefix[i] = product;
        current = xyzz_add_affine(current, step_point);
    }
    xyzz_run_to_affine(points, prefix, first, last, product, out);
}
