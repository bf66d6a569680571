"""bench/probe_segment_buckets.py on the CPU: the MSM's window reduction (msm.cu msm_window_segments) at the segment
lengths the probe sets, against py_ecc.

The probe times gpu/msm.py's MSM with SEGMENT_BUCKETS changed; its timings mean something only if every length sums
the same point. Under the kernels' host build (tests/native/ec_host.py) the MSM of bases with known discrete logs is
compared with py_ecc's multiple of the generator at lengths from 2 buckets a segment to more than a window holds
(one segment a window), and the probe's own run checks its lengths against each other.
"""
from __future__ import annotations

import pytest
from py_ecc.optimized_bls12_381 import G1, curve_order, eq, multiply

from conftest import assert_usage_errors, bench_module
from gpu import msm
from gpu.points import G1_GROUP, backend, download_points

probe = bench_module("probe_segment_buckets")
fixed_base = bench_module("probe_fixed_base")
bench_msm = bench_module("bench_msm")


@pytest.fixture
def emulated(kernel_emulation, monkeypatch):
    monkeypatch.setattr(msm, "SEGMENT_BUCKETS", msm.SEGMENT_BUCKETS)  # restored after the test
    with kernel_emulation("msm.cu"):
        yield


@pytest.mark.parametrize("segment_buckets", [2, 8, 32, 128, 512])
def test_every_segment_length_sums_the_msm_py_ecc_computes(emulated, segment_buckets):
    """40 bases (3 - 5 k) G, random scalars, c = 8 (128 buckets a window: 64 segments of 2 down to one segment of
    128 when the length passes the window)."""
    count = 40
    bases = fixed_base.progression_bases(count, G1, G1_GROUP)
    scalars = bench_msm.random_scalars(1, count, seed=segment_buckets)
    values = [sum(int(limb) << (32 * j) for j, limb in enumerate(row)) for row in backend().xp.asnumpy(scalars)[0]]
    logs = sum(v * (fixed_base.START - fixed_base.STEP * k) for k, v in enumerate(values)) % curve_order
    msm.SEGMENT_BUCKETS = segment_buckets
    [total] = download_points(msm.MsmEngine(bases, G1_GROUP).msm(scalars, montgomery=False, window_bits=8), G1_GROUP)
    assert eq(total, multiply(G1, logs))


def _one_ms(run, repeats):
    run()
    return 1.0, [1.0] * repeats


def test_the_probe_runs_its_lengths_against_each_other(emulated, monkeypatch):
    """probe() on 2^10 points at three lengths (the last past the window's buckets): a row a length, in order,
    SEGMENT_BUCKETS restored after."""
    monkeypatch.setattr(probe, "cuda_time_ms", _one_ms)
    before, c = msm.SEGMENT_BUCKETS, msm.kernel_window_bits(1 << 10)
    rows = probe.probe("g1", 10, [2, 4, 1024], repeats=3)
    assert [(r["segment_buckets"], r["window_bits"]) for r in rows] == [(2, c), (4, c), (1024, c)]
    assert msm.SEGMENT_BUCKETS == before
    text = probe.markdown(rows, {"commit": "abc", "gpu_sources": "8305a7027ec3" + "0" * 52})
    assert f"| G1 | 2^10 | {c} | 4 | 1.00 | +0.00 ms |" in text
    assert "commit abc, GPU sources 8305a7027ec3" in text.splitlines()[0]  # the code measured, by content too


def test_a_length_whose_msm_differs_is_an_error(emulated, monkeypatch, capsys):
    """A planted fault: the MSM's first word flipped while segments are 4 buckets long; the probe stops, exit 1."""
    monkeypatch.setattr(probe, "cuda_time_ms", _one_ms)
    honest = msm.MsmEngine.msm

    def faulty(self, scalars, **kwargs):
        out = honest(self, scalars, **kwargs)
        if msm.SEGMENT_BUCKETS == 4:
            out[0, 0] ^= 1
        return out

    monkeypatch.setattr(msm.MsmEngine, "msm", faulty)
    with pytest.raises(SystemExit) as stop:
        probe.probe("g1", 10, [2, 4], repeats=3)
    assert stop.value.code == 1 and "segments of 4 buckets differs from 2's" in capsys.readouterr().err


def test_the_probe_refuses_bad_arguments_before_looking_for_a_gpu():
    assert_usage_errors("probe_segment_buckets.py", [
        (["--buckets", "48"], "--buckets: powers of two from 2"),
        (["--sizes", "g3:24"], "expected g1:N or g2:N"),
        (["--repeats", "2"], "--repeats must be at least 3"),
    ])
