"""bench/probes/fp64_madd.cu on the CPU: the G1 bucket addition on FP64 products against ec.cuh's and py_ecc.

The probe times the FP64 addition against ec.cuh's; what it times means something only if both compute the same
sums. Built for the host (-DPROBE_HOST, g++), every thread's sum of the FP64 addition must equal ec.cuh's word for word
and py_ecc's point, on distinct bases and on bases that repeat, cancel and include the identity (so that the doubling
and the cancellation are taken: the test counts them); the field pieces (product, square, difference of products,
products of signed differences, the reduction and its zero test) are compared with Python's integers.
"""
from __future__ import annotations

import ctypes
import random

import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import G1, Z1, add, eq, multiply, neg

from conftest import assert_usage_errors, bench_module, probe_gather_index, probe_host_library, run_bench_script
from gpu.limbs import FQ, ints_to_limbs, limbs_to_ints
from gpu.points import G1_GROUP, points_to_words, xyzz_words_to_points

probe = bench_module("probe_fp64_madd")
U32_POINTER = ctypes.POINTER(ctypes.c_uint32)
OPS = {"mul": 0, "sqr": 1, "sub": 2, "add": 3, "mul_sub": 4, "mul_of_differences": 5, "difference_is_zero": 6}
"""fp64_madd.cu probe_host_fq64_op's operations."""


@pytest.fixture(scope="module")
def madd_library(tmp_path_factory):
    return probe_host_library(tmp_path_factory, probe.PROBE_SOURCE)


def _pointer(array: np.ndarray):
    return array.ctypes.data_as(U32_POINTER)


def _sums(library, bases, threads: int, steps: int, fp64: bool) -> np.ndarray:
    words = np.ascontiguousarray(points_to_words(bases, G1_GROUP))
    out = np.full((threads, G1_GROUP.xyzz_words), 0xFFFFFFFF, dtype=np.uint32)  # unwritten words fail the checks
    library.probe_host_madd_sums(_pointer(words), len(bases), threads, steps, int(fp64), _pointer(out))
    return out


def _expected(bases, threads: int, steps: int) -> tuple[list, dict]:
    """py_ecc's sum of each thread's gathers, and how often an addition met P + P or P + (-P)."""
    sums, cases = [], {"doubling": 0, "cancellation": 0}
    for t in range(threads):
        acc = Z1
        for s in range(steps):
            point = bases[probe_gather_index(t, 0, s, 1, steps, len(bases))]
            if s and point != Z1 and acc != Z1:
                cases["doubling"] += eq(acc, point)
                cases["cancellation"] += eq(acc, neg(point))
            acc = add(acc, point)
        sums.append(acc)
    return sums, cases


@pytest.mark.parametrize("case", ["distinct", "repeating"])
def test_fp64_sums_equal_ec_cuh_word_for_word_and_py_ecc(madd_library, case):
    if case == "distinct":
        bases, threads, steps = [multiply(G1, 1000 + 7 * j) for j in range(37)], 24, 40
    else:  # G twice, -G, the identity, 5G: the doubling, the cancellation and the identity's skip all occur
        bases, threads, steps = [G1, G1, neg(G1), Z1, multiply(G1, 5)], 60, 12
    fp64 = _sums(madd_library, bases, threads, steps, fp64=True)
    ec = _sums(madd_library, bases, threads, steps, fp64=False)
    assert (fp64 == ec).all(), f"{int((fp64 != ec).any(axis=1).sum())} of {threads} sums differ from ec.cuh's"
    expected, cases = _expected(bases, threads, steps)
    got = xyzz_words_to_points(fp64, G1_GROUP)
    assert all(eq(g, e) for g, e in zip(got, expected))
    if case == "repeating":
        assert cases["doubling"] > 0 and cases["cancellation"] > 0, cases


def _montgomery_words(values: list[int]) -> np.ndarray:
    return np.ascontiguousarray(ints_to_limbs([v * FQ.montgomery_radix % FQ.modulus for v in values], FQ))


def _op(library, op: str, a, b=None, c=None, d=None) -> list[int]:
    """probe_host_fq64_op on Montgomery-form inputs; the results as plain ints (out of Montgomery form)."""
    zeros = [0] * len(a)
    arrays = [_montgomery_words(x if x is not None else zeros) for x in (a, b, c, d)]
    out = np.zeros_like(arrays[0])
    library.probe_host_fq64_op(OPS[op], *(_pointer(x) for x in arrays), _pointer(out), len(a))
    if op == "difference_is_zero":
        return [int(word) for word in out[:, 0]]
    return [v * pow(FQ.montgomery_radix, -1, FQ.modulus) % FQ.modulus for v in limbs_to_ints(out)]


def test_field_pieces_equal_pythons_integers(madd_library):
    q = FQ.modulus
    rng = random.Random(3)
    edges = [0, 1, 2, q - 1, q - 2, (1 << 48) - 1, 1 << 48, (1 << 336) % q, ((1 << 384) - 1) % q]
    a = edges + [rng.randrange(q) for _ in range(300)]
    b = list(reversed(edges)) + [rng.randrange(q) for _ in range(300)]
    c = [rng.randrange(q) for _ in a]
    d = [rng.randrange(q) for _ in a]
    assert _op(madd_library, "mul", a, b) == [x * y % q for x, y in zip(a, b)]
    assert _op(madd_library, "sqr", a) == [x * x % q for x in a]
    assert _op(madd_library, "sub", a, b) == [(x - y) % q for x, y in zip(a, b)]
    assert _op(madd_library, "add", a, b) == [(x + y) % q for x, y in zip(a, b)]
    assert _op(madd_library, "mul_sub", a, b, c, d) == [(x * y - z * w) % q for x, y, z, w in zip(a, b, c, d)]
    assert _op(madd_library, "mul_of_differences", a, b, c, d) == [(x - y) * (z - w) % q for x, y, z, w in zip(a, b, c, d)]
    same = a[:50]
    assert _op(madd_library, "difference_is_zero", same, same) == [1] * len(same)
    assert _op(madd_library, "difference_is_zero", a, b) == [int(x == y) for x, y in zip(a, b)]


def test_the_probe_refuses_bad_arguments_before_looking_for_a_gpu():
    assert_usage_errors("probe_fp64_madd.py", [
        (["--log2-points", "30"], "every --log2-points in 8..24"),
        (["--steps", "1"], "--steps >= 2"),
    ])


@pytest.mark.gpu
def test_the_probe_runs_and_checks_on_the_device(tmp_path):
    done = run_bench_script("probe_fp64_madd.py", "--log2-points", "10", "--steps", "4", "--waves", "1", "--repeats", "1",
                            "--json", str(tmp_path / "m.json"))
    assert done.returncode == 0, done.stderr
    assert "fp64, out of line, 2 blocks" in done.stdout and (tmp_path / "m.json").exists()
