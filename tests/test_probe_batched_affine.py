"""bench/probes/batched_affine.cu on the CPU: both of its sums against py_ecc.

The probe times batched affine additions (Montgomery's trick) against mixed XYZZ additions; what it times is worth
something only if both kernels sum the right points. Built for the host (-DPROBE_HOST, g++: field.cuh and ec.cuh are
plain C++ outside CUDA), its kernel bodies run here for a few threads, and every accumulator is compared with the
sum py_ecc makes of the same points.
"""
from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import G1, add, eq, multiply

from gpu.points import G1_GROUP, points_to_words, words_to_points, xyzz_words_to_points

ROOT = Path(__file__).resolve().parents[1]
PROBE_SOURCE = ROOT / "bench" / "probes" / "batched_affine.cu"
HASH_MULTIPLIER = 2654435761  # batched_affine.cu probe_index (Knuth's multiplicative hash)


def probe_index(t: int, i: int, s: int, k: int, steps: int, points: int) -> int:
    """batched_affine.cu probe_index: the point accumulator i of thread t adds at step s (u64 arithmetic)."""
    flat = (t * k + i) * steps + s
    return (flat * HASH_MULTIPLIER % (1 << 64)) % points


@pytest.fixture(scope="module")
def probe_library(tmp_path_factory):
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no host C++ compiler (g++ or c++) on PATH: the probe cannot be built for the CPU")
    library = tmp_path_factory.mktemp("probe") / "batched_affine.so"
    subprocess.run([compiler, "-std=c++17", "-O1", "-x", "c++", "-shared", "-fPIC", "-DPROBE_HOST",
                    f"-I{ROOT / 'gpu' / 'kernels'}", str(PROBE_SOURCE), "-o", str(library)], check=True)
    return ctypes.CDLL(str(library))


def test_batched_affine_and_xyzz_sums_equal_py_ecc(probe_library):
    count, threads, k, steps = 37, 3, 5, 4
    bases = [multiply(G1, 1000 + 7 * j) for j in range(count)]  # distinct points, none the identity
    words = np.ascontiguousarray(points_to_words(bases, G1_GROUP))
    accumulators = threads * k
    xyzz = np.zeros((accumulators, G1_GROUP.xyzz_words), dtype=np.uint32)
    affine = np.zeros((accumulators, G1_GROUP.affine_words), dtype=np.uint32)
    prefix = np.zeros((accumulators, G1_GROUP.field_words), dtype=np.uint32)
    pointer = ctypes.POINTER(ctypes.c_uint32)
    probe_library.probe_host_sums(words.ctypes.data_as(pointer), ctypes.c_uint(count), ctypes.c_uint(threads),
                                  ctypes.c_uint(k), ctypes.c_uint(steps), xyzz.ctypes.data_as(pointer),
                                  affine.ctypes.data_as(pointer), prefix.ctypes.data_as(pointer))
    from_affine = words_to_points(affine, G1_GROUP)
    from_xyzz = xyzz_words_to_points(xyzz, G1_GROUP)
    for t in range(threads):
        for i in range(k):
            # The probe's common path only: no accumulator meets its own point again (P + P) or its negation; the
            # bases 1000 + 7 j make every partial sum of up to 3 of them differ from +-any base.
            indices = [probe_index(t, i, s, k, steps, count) for s in range(steps)]
            assert len(set(indices)) == steps, "the test's gathers must not repeat a point within an accumulator"
            expected = bases[probe_index(t, i, 0, k, steps, count)]
            for s in range(1, steps):
                expected = add(expected, bases[probe_index(t, i, s, k, steps, count)])
            slot = i * threads + t  # the kernels' [accumulator][thread] layout
            assert eq(from_affine[slot], expected), f"affine sum of thread {t}, accumulator {i}"
            assert eq(from_xyzz[slot], expected), f"XYZZ sum of thread {t}, accumulator {i}"
