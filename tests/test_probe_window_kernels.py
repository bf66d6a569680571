"""bench/probe_window_kernels.py on the CPU: its widths and piece lengths are checked against each other on the kernels'
host build, the window limit and the piece length it sets come back, its table reads a point-window's cost, and bad
arguments are usage errors."""
from __future__ import annotations

import pytest

import reference.msm as reference_msm
from conftest import assert_usage_errors, bench_module
from gpu import msm
from gpu.points import G1_GROUP

probe = bench_module("probe_window_kernels")


def _one_call(run, repeats, nvtx):
    """kernel_times.time_call's document for one untimed call: a kernel row and the outside row."""
    run()
    return {"call_ms": 3.0, "rows": [{"kernel": "msm.cu:msm_piece_sum_g1", "launches": 1, "ms": 2.0, "share": 2 / 3},
                                     {"kernel": probe.OUTSIDE, "launches": 0, "ms": 1.0, "share": 1 / 3}]}


def test_the_widths_are_checked_against_each_other_and_the_limit_comes_back(kernel_emulation, monkeypatch):
    """probe() on 2^10 - 1 points at c = 8 and 10 (the host build's MSM): a document a width, in order, with its
    windows; MAX_WINDOW_BITS as before in both modules."""
    monkeypatch.setattr(probe, "time_call", _one_call)
    for module in (reference_msm, msm):
        monkeypatch.setattr(module, "MAX_WINDOW_BITS", 8)  # so that c = 10 needs the probe's raised limit
    with kernel_emulation("msm.cu"):
        docs = probe.probe(10, [8, 10], repeats=1)
    assert [(d["window_bits"], d["windows"], d["points"]) for d in docs] == [
        (8, reference_msm.num_windows(8), 1023), (10, reference_msm.num_windows(10), 1023)]
    assert reference_msm.MAX_WINDOW_BITS == msm.MAX_WINDOW_BITS == 8, "the limit comes back"


def test_a_width_whose_sum_differs_is_an_error(kernel_emulation, monkeypatch, capsys):
    monkeypatch.setattr(probe, "time_call", _one_call)
    real = msm.MsmEngine.msm

    def wrong_at_ten(self, scalars, *, montgomery, window_bits=None):
        out = real(self, scalars, montgomery=montgomery, window_bits=window_bits)
        if window_bits == 10:
            out[0, 0] ^= 1
        return out

    monkeypatch.setattr(msm.MsmEngine, "msm", wrong_at_ten)
    for module in (reference_msm, msm):
        monkeypatch.setattr(module, "MAX_WINDOW_BITS", 8)
    with kernel_emulation("msm.cu"), pytest.raises(SystemExit) as stop:
        probe.probe(10, [8, 10], repeats=1)
    assert stop.value.code == 1 and "at c = 10 differs from c = 8's" in capsys.readouterr().err
    assert reference_msm.MAX_WINDOW_BITS == msm.MAX_WINDOW_BITS == 8, "restored on the error too"


def test_the_raised_limit_admits_wider_windows_until_restored():
    limit = msm.MAX_WINDOW_BITS
    assert limit < 22 and reference_msm.MAX_WINDOW_BITS == limit
    restore = probe.raised_window_limit(22)
    try:
        assert reference_msm.MAX_WINDOW_BITS == msm.MAX_WINDOW_BITS == 22
        msm._check_window_bits(22)  # accepted while raised
    finally:
        restore()
    assert reference_msm.MAX_WINDOW_BITS == msm.MAX_WINDOW_BITS == limit
    with pytest.raises(Exception, match="window_bits"):
        msm._check_window_bits(22)


def test_the_table_gives_each_kernel_a_point_window_cost():
    points = (1 << 27) - 1
    docs = [{"window_bits": 20, "windows": 13, "points": points, "call_ms": 744.3,
             "rows": [{"kernel": "msm.cu:msm_piece_sum_g1", "ms": 600.0}, {"kernel": probe.OUTSIDE, "ms": 4.0}]},
            {"window_bits": 22, "windows": 12, "points": points, "call_ms": 797.6,
             "rows": [{"kernel": "msm.cu:msm_piece_sum_g1", "ms": 560.0}, {"kernel": "msm.cu:msm_scatter", "ms": 90.0},
                      {"kernel": probe.OUTSIDE, "ms": 5.0}]}]
    lines = probe.markdown(docs, {"commit": "abc", "date": "2026-12-05"}).splitlines()
    assert lines[0].startswith("### G1 MSM of 2^27 - 1 points by kernel and window width")
    assert "| msm.cu:msm_piece_sum_g1 | 600.00 (0.3439) | 560.00 (0.3477) |" in lines  # 600 ms / (2^27 - 1) / 13
    assert "| msm.cu:msm_scatter | - | 90.00 (0.0559) |" in lines
    assert lines[-1].startswith(f"| {probe.OUTSIDE} |"), "the time outside the launches last"
    pieces = [{**docs[0], "piece_points": points, "varies_pieces": True} for points in (64, 256)]
    lines = probe.markdown(pieces, {"commit": "abc", "date": "2026-12-06"}).splitlines()
    assert lines[0].startswith("### G1 MSM of 2^27 - 1 points by kernel, window width and pieces' least length")
    assert "| kernel | c = 20, pieces >= 64 ms (ns a point-window) | c = 20, pieces >= 256 ms" in lines[4]


def test_bad_arguments_are_usage_errors():
    assert_usage_errors("probe_window_kernels.py", [
        (["--log2", "15"], "--log2: must be in 16..27"),
        (["--widths", "20", "25"], "--widths: distinct widths in 16..24"),
        (["--widths", "22", "22"], "--widths: distinct widths"),
        (["--repeats", "0"], "--repeats must be at least 1"),
        (["--piece-points", "64", "8"], "--piece-points: distinct lengths in 16..4096"),
        (["--piece-points", "256", "256"], "--piece-points: distinct lengths"),
    ])  # its outputs' folders: tests/test_bench_cli.py, as every script's


def test_piece_points_set_every_plans_length_and_come_back():
    """Within piece_points(2) every plan, small or msm_h's, cuts pieces of at least 2 points; after (an error inside
    too) each plan takes its own length again: 64 for 2^10 - 1 points at c = 8, 256 for msm_h's at c = 20."""
    small, large = msm._Plan((1023,), 8), msm._Plan(((1 << 27) - 1,), 20)
    with pytest.raises(RuntimeError, match="inside"):
        with probe.piece_points(2):
            assert small.piece_min_points == large.piece_min_points == 2
            raise RuntimeError("inside")
    assert (small.piece_min_points, large.piece_min_points) == (msm.PIECE_MIN_POINTS, msm.LONG_PIECE_MIN_POINTS)
    assert (msm.PIECE_MIN_POINTS, msm.LONG_PIECE_MIN_POINTS) == (64, 256)


def test_piece_lengths_are_checked_against_each_other(kernel_emulation, monkeypatch):
    """probe() on 2^10 - 1 points at c = 8, with the plan's pieces (64 points or more) and with pieces of 2 or more
    (buckets of ~8 points then cut in 3): msm_piece_sum runs on more pieces than buckets in the second, and its sum
    equals the first's (else SystemExit(1))."""
    monkeypatch.setattr(probe, "time_call", _one_call)
    capture = bench_module("probe_affine_pieces").captured_piece_sum_launches(G1_GROUP)
    with kernel_emulation("msm.cu"), capture as launches:
        docs = probe.probe(10, [8], repeats=1, piece_lengths=[64, 2])
        default = probe.probe(10, [8], repeats=1)
    pieces = [launch.total_pieces for launch in launches]
    assert [(d["window_bits"], d["piece_points"]) for d in docs] == [(8, 64), (8, 2)]
    assert [(d["piece_points"], d["varies_pieces"]) for d in default] == [(64, False)]
    buckets = reference_msm.num_windows(8) << 7
    assert len(pieces) == 6 and all(p <= buckets for p in pieces[:2]) and all(p > buckets for p in pieces[2:4])
