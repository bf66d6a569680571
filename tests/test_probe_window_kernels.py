"""bench/probe_window_kernels.py on the CPU: its widths and piece lengths are checked against each other on the kernels'
host build, the window limit and the piece length it sets come back, msm.cu is rewritten in one line only, its table
reads a point-window's cost, and bad arguments are usage errors."""
from __future__ import annotations

import pytest

import reference.msm as reference_msm
from conftest import assert_usage_errors, bench_module, ec_host_module
from gpu import msm
from gpu.device import KERNEL_DIR
from gpu.points import Backend, backend, use_backend

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


def test_bad_arguments_are_usage_errors():
    assert_usage_errors("probe_window_kernels.py", [
        (["--log2", "15"], "--log2: must be in 16..27"),
        (["--widths", "20", "25"], "--widths: distinct widths in 16..24"),
        (["--widths", "22", "22"], "--widths: distinct widths"),
        (["--repeats", "0"], "--repeats must be at least 1"),
        (["--piece-points", "64", "8"], "--piece-points: distinct lengths in 16..4096"),
        (["--piece-points", "256", "256"], "--piece-points: distinct lengths"),
    ])  # its outputs' folders: tests/test_bench_cli.py, as every script's


def test_the_kernel_text_changes_in_the_piece_line_only(monkeypatch):
    original = (KERNEL_DIR / msm.MSM_KERNELS).read_text().splitlines()
    rewritten = probe.kernel_text_with_piece_points(256).splitlines()
    changed = [(a, b) for a, b in zip(original, rewritten) if a != b]
    assert len(original) == len(rewritten) and changed == [
        ("#define MSM_PIECE_MIN_POINTS 64", "#define MSM_PIECE_MIN_POINTS 256")]
    monkeypatch.setattr(msm, "PIECE_MIN_POINTS", 65)  # the mirror out of step with msm.cu: its line is not found
    with pytest.raises(ValueError, match="not there exactly once"):
        probe.kernel_text_with_piece_points(256)


def test_piece_points_answer_msm_cu_loads_only_and_come_back():
    """Within piece_points(256): msm.cu's loads get compile_text's module of the rewritten text, other files the
    active backend's; PIECE_MIN_POINTS follows, and both come back after, an error inside too. 64 changes nothing."""
    compiled = []

    def compile_text(text, options):
        compiled.append((text.count("#define MSM_PIECE_MIN_POINTS 256"), options))
        return "rewritten module"

    outer = Backend(xp=None, load=lambda cu_file, options: f"{cu_file} as built", launch=print, check=print,
                    reserve=print, address=id)
    with use_backend(outer):
        with pytest.raises(RuntimeError, match="inside"):
            with probe.piece_points(256, compile_text):
                assert msm.PIECE_MIN_POINTS == 256
                assert backend().load(msm.MSM_KERNELS, ("-DEC_GROUP=1",)) == "rewritten module"
                assert backend().load("batch_add.cu", ()) == "batch_add.cu as built"
                assert backend().launch is outer.launch
                raise RuntimeError("inside")
        assert compiled == [(1, ("-DEC_GROUP=1",))]
        assert msm.PIECE_MIN_POINTS == 64 and backend() is outer
        with probe.piece_points(64, compile_text):
            assert backend() is outer and msm.PIECE_MIN_POINTS == 64
    assert len(compiled) == 1


def test_piece_lengths_are_checked_against_each_other(kernel_emulation, monkeypatch, tmp_path):
    """probe() on 2^10 - 1 points at c = 8 with pieces of 64 (msm.cu's) and of 2 or more (buckets of ~8 points then
    cut in 3): the host build of the rewritten msm.cu is the one msm_piece_sum runs on, with more pieces than buckets,
    and its sum equals msm.cu's (else SystemExit(1))."""
    monkeypatch.setattr(probe, "time_call", _one_call)
    ec_host = ec_host_module()
    folder = tmp_path / "kernels"
    folder.mkdir()
    for header in KERNEL_DIR.glob("*.cuh"):
        (folder / header.name).write_bytes(header.read_bytes())
    pieces = []

    class Recording:
        def __init__(self, library):
            self.library = library

        def get_function(self, name):
            kernel = ec_host._HostKernel(self.library, name)
            if name != "msm_piece_sum_g1":
                return kernel

            def run(grid, block, args, shared_mem=0):
                pieces.append(int(args[7]))  # total_pieces
                kernel(grid, block, args, shared_mem)

            return run

    def host_compile(text, options):
        (folder / msm.MSM_KERNELS).write_text(text)
        with monkeypatch.context() as scoped:
            scoped.setattr(ec_host, "KERNEL_DIR", folder)
            return Recording(ec_host.host_library.__wrapped__(msm.MSM_KERNELS))  # not the cached build of msm.cu

    with kernel_emulation("msm.cu"):
        docs = probe.probe(10, [8], repeats=1, piece_lengths=[64, 2], compile_text=host_compile)
    assert [(d["window_bits"], d["piece_points"]) for d in docs] == [(8, 64), (8, 2)]
    buckets = reference_msm.num_windows(8) << 7
    assert pieces and all(p > buckets for p in pieces), (pieces, buckets)
    assert msm.PIECE_MIN_POINTS == 64
