"""bench/probes/affine_pieces.cu on the CPU: its piece sums equal msm_piece_sum's, point for point (py_ecc).

The probe times batched affine piece sums against msm_piece_sum on the arguments of a real msm_piece_sum launch;
what it times is worth something only if both sum the same pieces. Here gpu/msm.py runs an MSM on the kernels' host
build (tests/native/ec_host.py), the probe's capture keeps its msm_piece_sum launch, and the probe's kernel body,
built for the host (-DPROBE_HOST), sums the same pieces: every piece sum must be the same point. The bases make every
case of the lane step happen: a base twice (a doubling in its buckets), a base and its negation (P + (-P): the lane's
accumulator empties, then takes the next point), the identity (skipped), and buckets of more than 64 points (pieces
cut from one bucket, lanes of unequal lengths); each case's code, broken on purpose, fails this test.
"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import G1, G2, Z1, Z2, eq

from conftest import assert_usage_errors, bench_module, captured_edge_case_piece_sum, probe_host_library
from gpu.points import G1_GROUP, G2_GROUP, xyzz_words_to_points

probe = bench_module("probe_affine_pieces")


@pytest.fixture(scope="module")
def pieces_library(tmp_path_factory):
    return probe_host_library(tmp_path_factory, probe.PROBE_SOURCE)


def _host_piece_sums(library, group, captured, threads: int, lanes: int, gcd: int) -> np.ndarray:
    acc, prefix, cursor = probe.scratch(group, threads, lanes)
    out = np.full_like(captured.piece_sums, probe.UNWRITTEN)
    arguments = probe.affine_arguments(captured, threads, lanes, (acc, prefix, cursor), out)
    pointers = [ctypes.c_uint32(int(a)) if isinstance(a, np.uint32) else ctypes.c_void_p(a.ctypes.data)
                for a in arguments]
    getattr(library, f"probe_host_affine_piece_sum_{group.name}")(ctypes.c_uint32(gcd), *pointers)
    return out


@pytest.mark.parametrize("group, generator, identity, count, window_bits",
                         [(G1_GROUP, G1, Z1, 150, 2), (G1_GROUP, G1, Z1, 40, 5), (G2_GROUP, G2, Z2, 24, 3)],
                         ids=["g1-c2", "g1-c5", "g2-c3"])
def test_affine_piece_sums_equal_msm_piece_sums(kernel_emulation, pieces_library, group, generator, identity, count,
                                                window_bits):
    with kernel_emulation("msm.cu"):
        captured = captured_edge_case_piece_sum(group, generator, identity, count, window_bits)
        expected = xyzz_words_to_points(captured.piece_sums, group)
        assert any(not eq(p, identity) for p in expected)
        if window_bits == 2:  # buckets of ~count / 2 points: pieces of 64 cut from one bucket
            assert captured.total_pieces > 2 * (256 // window_bits)
        for threads, lanes, gcd in ((1, 1, 1), (2, 3, 1), (3, 8, 0)):
            got = xyzz_words_to_points(_host_piece_sums(pieces_library, group, captured, threads, lanes, gcd), group)
            mismatched = [k for k, (a, b) in enumerate(zip(got, expected)) if not eq(a, b)]
            assert not mismatched, f"threads {threads}, lanes {lanes}, gcd {gcd}: pieces {mismatched[:5]} differ"


def test_the_probe_refuses_bad_arguments_before_looking_for_a_gpu():
    assert_usage_errors("probe_affine_pieces.py", [
        (["--log2-points", "30"], "need every --log2-points in 10..27"),
        (["--lanes", "0"], "every --lanes >= 1"),
    ])
