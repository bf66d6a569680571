"""bench/probe_sort_overlap.py on the CPU: on the kernels' host build, the pass it captures, the sort it re-runs into
scratch (equal to the pass's, its checks failing on a changed digit, count or entry, not on a rank) and the piece sums
it re-runs; its table; bad arguments are usage errors."""
from __future__ import annotations

import pytest

from conftest import assert_usage_errors, bench_module
from gpu.points import G1_GROUP

probe = bench_module("probe_sort_overlap")
bench_msm = bench_module("bench_msm")

POINTS = 1023
WINDOW_BITS = 8
"""A width with buckets of ~8 points at 1023 points, so that buckets hold several entries each (ranks matter)."""


@pytest.fixture
def captured(kernel_emulation):
    """The pass of one G1 MSM of 1023 random points and scalars at c = 8, on the host build."""
    from gpu.msm import MsmEngine

    with kernel_emulation("msm.cu"):
        bases = bench_msm.bases_for(G1_GROUP, POINTS, seed=1)
        scalars = bench_msm.random_scalars(1, POINTS, seed=2)[0]
        engine = MsmEngine(bases, G1_GROUP)
        captured = probe.captured_pass(lambda: engine.msm(scalars, montgomery=True, window_bits=WINDOW_BITS))
        captured.owners = (bases, scalars, engine)
        yield captured


def test_the_pass_is_captured_with_its_width(captured):
    assert captured.window_bits == WINDOW_BITS
    assert captured.digits.kernel == "msm_digits" and captured.piece_sum.kernel == "msm_piece_sum_g1"
    assert captured.scatters and all(item.kernel == "msm_scatter" for item in captured.scatters)


def test_the_sort_rerun_into_scratch_equals_the_pass(captured):
    scratch = probe.SortScratch.like(captured)
    probe.reset_sort(scratch)
    probe.run_launches(probe.sort_launches(captured, scratch))
    assert probe.sort_mismatch(captured, scratch) is None
    assert scratch.digits is not captured.digits.args[-2], "the pass's own digit words are left alone"
    rank_bit = 1 << WINDOW_BITS
    scratch.digits[0] ^= rank_bit  # a rank differs: the atomic order is free
    assert probe.sort_mismatch(captured, scratch) is None


def test_the_sort_checks_catch_a_digit_a_count_and_an_entry(captured):
    scratch = probe.SortScratch.like(captured)
    for name, expected in [("digits", "digit words (rank fields masked)"), ("counts", "bucket counts"),
                           ("sorted_entries", "sorted entries' sum")]:
        probe.reset_sort(scratch)
        probe.run_launches(probe.sort_launches(captured, scratch))
        getattr(scratch, name)[0] ^= 1  # a magnitude, a count, a point index
        assert probe.sort_mismatch(captured, scratch) == expected


def test_the_piece_sums_rerun_equal_the_pass(captured):
    piece_sums = captured.piece_sum.args[-1]
    expected = piece_sums.copy()
    piece_sums.fill(0)
    probe.run_launches([captured.piece_sum])
    assert (piece_sums == expected).all()


def test_two_passes_are_refused(kernel_emulation):
    from gpu.msm import MsmEngine

    with kernel_emulation("msm.cu"):
        bases = bench_msm.bases_for(G1_GROUP, 64, seed=1)
        scalars = bench_msm.random_scalars(1, 64, seed=2)[0]
        engine = MsmEngine(bases, G1_GROUP)
        with pytest.raises(ValueError, match="expected one pass: msm_digits x2"):
            probe.captured_pass(lambda: [engine.msm(scalars, montgomery=True) for _ in range(2)])


def test_the_table_sets_each_variant_against_the_sequential_sum():
    doc = {"points": (1 << 27) - 1, "window_bits": 20, "scatter_launches": 4, "piece_threads": 6_900_000,
           "own_blocks_per_sm": 4, "limited_blocks_per_sm": 3, "limiting_shared_bytes": 35840,
           "rows": [{"variant": "piece4", "ms": 600.0}, {"variant": "piece3", "ms": 612.0},
                    {"variant": "sort", "ms": 90.0}, {"variant": "piece4 & sort", "ms": 688.0},
                    {"variant": "piece3 & sort", "ms": 640.5}]}
    lines = probe.markdown(doc, {"commit": "abc", "date": "2026-12-06"}).splitlines()
    assert lines[0].startswith("### msm_h's sort beside its piece sums: G1 MSM of 2^27 - 1 points, c = 20")
    assert "piece4 + sort = 690.00 ms." in lines[2] and "3 with 35840 bytes" in lines[2]
    assert "| piece3 & sort | 640.50 | -49.50 |" in lines and "| piece4 | 600.00 | -90.00 |" in lines


def test_bad_arguments_are_usage_errors():
    assert_usage_errors("probe_sort_overlap.py", [
        (["--log2", "15"], "--log2: must be in 16..27"),
        (["--repeats", "0"], "--repeats must be at least 1"),
    ])
