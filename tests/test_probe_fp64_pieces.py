"""bench/probes/fp64_pieces.cu on the CPU: msm_piece_sum's pieces summed with the FP64 addition, word for word.

The probe times msm_piece_sum's work with the bucket addition on FP64 products (bench/probes/fp64_curve.cuh) against
msm_piece_sum on the same captured arguments; the time means something only if it sums the same pieces. Here gpu/msm.py
runs an MSM on the kernels' host build, its msm_piece_sum launch is captured as the probe captures it on the device
(bench/probe_affine_pieces.py), and the probe's host build sums the same pieces: every piece sum must equal
msm_piece_sum's word for word, on bases with a point and its negation, a point twice and the identity (so that the
cancellation, the doubling and the skip are taken), at two window widths.
"""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import G1, Z1, eq

from conftest import assert_usage_errors, bench_module, captured_edge_case_piece_sum, probe_host_library, run_bench_script
from gpu.points import G1_GROUP, xyzz_words_to_points

probe = bench_module("probe_fp64_pieces")


@pytest.fixture(scope="module")
def fp64_pieces_library(tmp_path_factory):
    return probe_host_library(tmp_path_factory, probe.PROBE_SOURCE)


def _host_piece_sums(library, captured) -> np.ndarray:
    out = np.full_like(captured.piece_sums, probe.UNWRITTEN)  # a body that writes nothing cannot pass
    arguments = probe.piece_sum_arguments(captured, out)
    pointers = [ctypes.c_uint32(int(a)) if isinstance(a, np.uint32) else ctypes.c_void_p(a.ctypes.data)
                for a in arguments]
    library.probe_host_fp64_piece_sum(*pointers)
    return out


@pytest.mark.parametrize("count, window_bits", [(150, 2), (40, 5)], ids=["c2", "c5"])
def test_fp64_piece_sums_equal_msm_piece_sums_word_for_word(kernel_emulation, fp64_pieces_library, count,
                                                             window_bits):
    with kernel_emulation("msm.cu"):
        captured = captured_edge_case_piece_sum(G1_GROUP, G1, Z1, count, window_bits)
        assert any(not eq(s, Z1) for s in xyzz_words_to_points(captured.piece_sums, G1_GROUP))
        got = _host_piece_sums(fp64_pieces_library, captured)
    mismatched = np.flatnonzero((got != captured.piece_sums).any(axis=1))
    assert mismatched.size == 0, f"pieces {mismatched[:5].tolist()} of {captured.total_pieces} differ"


def test_the_probe_refuses_bad_arguments_before_looking_for_a_gpu():
    assert_usage_errors("probe_fp64_pieces.py", [
        (["--log2-points", "30"], "every --log2-points in 10..27"),
        (["--repeats", "0"], "--repeats >= 1"),
    ])


@pytest.mark.gpu
def test_the_probe_runs_and_checks_on_the_device(tmp_path):
    done = run_bench_script("probe_fp64_pieces.py", "--log2-points", "12", "--repeats", "1", "--json", str(tmp_path / "p.json"))
    assert done.returncode == 0, done.stderr
    assert "FP64 / msm_piece_sum" in done.stdout and (tmp_path / "p.json").exists()
