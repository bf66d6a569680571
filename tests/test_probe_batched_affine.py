"""bench/probes/batched_affine.cu on the CPU: its sums against py_ecc, its binary-GCD inversion against Python's pow.

The probe times batched affine additions (Montgomery's trick) against mixed XYZZ additions; what it times is worth
something only if both kernels sum the right points. Built for the host (-DPROBE_HOST, g++: field.cuh and ec.cuh are
plain C++ outside CUDA), its kernel bodies run here for a few threads, and every accumulator is compared with the
sum py_ecc makes of the same points, with either inversion shared by the trick (Fermat's, the binary GCD's). The GCD
inversion (bench/probes/fq_inverse_gcd.cuh) is also checked alone: its rounds must reach b = 1 for every non-zero
input, so that what the probe times is the GCD and not its Fermat fallback.
"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import G1, add, eq, field_modulus, multiply

from conftest import BENCH_DIR, probe_gather_index, probe_host_library
from gpu.points import G1_GROUP, points_to_words, words_to_points, xyzz_words_to_points

PROBE_SOURCE = BENCH_DIR / "probes" / "batched_affine.cu"
FQ_LIMBS, LIMB_BITS = 12, 32
MONTGOMERY_R = 1 << (FQ_LIMBS * LIMB_BITS)


@pytest.fixture(scope="module")
def probe_library(tmp_path_factory):
    return probe_host_library(tmp_path_factory, PROBE_SOURCE)


@pytest.mark.parametrize("gcd", [0, 1], ids=["fermat", "gcd"])
def test_batched_affine_and_xyzz_sums_equal_py_ecc(probe_library, gcd):
    count, threads, k, steps = 37, 3, 5, 4
    bases = [multiply(G1, 1000 + 7 * j) for j in range(count)]  # distinct points, none the identity
    words = np.ascontiguousarray(points_to_words(bases, G1_GROUP))
    accumulators = threads * k
    xyzz = np.zeros((accumulators, G1_GROUP.xyzz_words), dtype=np.uint32)
    affine = np.zeros((accumulators, G1_GROUP.affine_words), dtype=np.uint32)
    prefix = np.zeros((accumulators, G1_GROUP.field_words), dtype=np.uint32)
    pointer = ctypes.POINTER(ctypes.c_uint32)
    probe_library.probe_host_sums(words.ctypes.data_as(pointer), ctypes.c_uint(count), ctypes.c_uint(threads),
                                  ctypes.c_uint(k), ctypes.c_uint(steps), ctypes.c_uint(gcd),
                                  xyzz.ctypes.data_as(pointer), affine.ctypes.data_as(pointer),
                                  prefix.ctypes.data_as(pointer))
    from_affine = words_to_points(affine, G1_GROUP)
    from_xyzz = xyzz_words_to_points(xyzz, G1_GROUP)
    for t in range(threads):
        for i in range(k):
            # The probe's common path only: no accumulator meets its own point again (P + P) or its negation; the
            # bases 1000 + 7 j make every partial sum of up to 3 of them differ from +-any base.
            indices = [probe_gather_index(t, i, s, k, steps, count) for s in range(steps)]
            assert len(set(indices)) == steps, "the test's gathers must not repeat a point within an accumulator"
            expected = bases[probe_gather_index(t, i, 0, k, steps, count)]
            for s in range(1, steps):
                expected = add(expected, bases[probe_gather_index(t, i, s, k, steps, count)])
            slot = i * threads + t  # the kernels' [accumulator][thread] layout
            assert eq(from_affine[slot], expected), f"affine sum of thread {t}, accumulator {i}"
            assert eq(from_xyzz[slot], expected), f"XYZZ sum of thread {t}, accumulator {i}"


def _limbs(values: list[int]) -> np.ndarray:
    return np.array([[(v >> (LIMB_BITS * i)) & 0xFFFFFFFF for i in range(FQ_LIMBS)] for v in values], dtype=np.uint32)


def _ints(rows: np.ndarray) -> list[int]:
    return [sum(int(word) << (LIMB_BITS * i) for i, word in enumerate(row)) for row in rows]


def test_binary_gcd_inverse_equals_pow_and_never_falls_back(probe_library):
    """fq_inv_gcd(x R) = x^-1 R for Montgomery-form inputs: random ones, short ones (few bits, where b stays long) and
    the edges; every non-zero one by the GCD's rounds themselves (converged), zero by the fallback, to zero."""
    import random

    rng = random.Random(20261205)
    p = field_modulus
    values = [0, 1, 2, 3, p - 1, p - 2, (p - 1) // 2, p // 3, 1 << 380, MONTGOMERY_R % p, (MONTGOMERY_R ** 2) % p]
    values += [rng.randrange(1, p) for _ in range(3000)]
    values += [rng.randrange(1, 1 << rng.randrange(1, 381)) | 1 for _ in range(1000)]  # short, never zero
    values += [rng.randrange(1, 1 << 40) << rng.randrange(0, 340) for _ in range(500)]  # many trailing zeros
    words = np.ascontiguousarray(_limbs(values))
    out = np.zeros_like(words)
    converged = np.zeros(len(values), dtype=np.uint32)
    pointer = ctypes.POINTER(ctypes.c_uint32)
    probe_library.probe_host_inverse_gcd(words.ctypes.data_as(pointer), ctypes.c_uint(len(values)),
                                         out.ctypes.data_as(pointer), converged.ctypes.data_as(pointer))
    for value, got, ok in zip(values, _ints(out), converged):
        expected = 0 if value == 0 else pow(value, -1, p) * MONTGOMERY_R * MONTGOMERY_R % p  # (v R^-1)^-1 R
        assert got == expected, f"inverse of {value:#x}"
        assert bool(ok) == (value != 0), f"rounds {'did not converge' if ok == 0 else 'converged'} for {value:#x}"


def test_binary_gcd_fq2_inverse_times_its_input_is_one(probe_library):
    """fq2_inv_gcd(a) a = 1 in Fq2 = Fq[u] / (u^2 + 1), Montgomery form: (c0 d0 - c1 d1) = R^2 and c0 d1 + c1 d0 = 0
    (mod p) for the representatives c = a R, d = a^-1 R; and 0 -> 0."""
    import random

    rng = random.Random(7)
    p = field_modulus
    pairs = [(0, 0), (1, 0), (0, 1), (p - 1, 1)] + [(rng.randrange(p), rng.randrange(p)) for _ in range(300)]
    words = np.ascontiguousarray(np.concatenate([_limbs([c0 for c0, _ in pairs]), _limbs([c1 for _, c1 in pairs])],
                                                axis=1))
    out = np.zeros_like(words)
    pointer = ctypes.POINTER(ctypes.c_uint32)
    probe_library.probe_host_fq2_inverse_gcd(words.ctypes.data_as(pointer), ctypes.c_uint(len(pairs)),
                                             out.ctypes.data_as(pointer))
    inverses = zip(_ints(out[:, :FQ_LIMBS]), _ints(out[:, FQ_LIMBS:]))
    for (c0, c1), (d0, d1) in zip(pairs, inverses):
        if (c0, c1) == (0, 0):
            assert (d0, d1) == (0, 0)
            continue
        assert (c0 * d0 - c1 * d1) % p == MONTGOMERY_R * MONTGOMERY_R % p, f"real part for {(c0, c1)}"
        assert (c0 * d1 + c1 * d0) % p == 0, f"u part for {(c0, c1)}"
