"""bench/bench_msm.py and bench/bench_ntt.py write timing records (conformance/TIMING_SCHEMA.md) that
``python -m conformance compare`` reads: the records built by the scripts' own functions from synthetic rows (times
in ms, as CUDA events give them), written to files, and compared: identical runs within noise, a row 30% slower with
tight spreads named slower (and gated), a batch of another size refused as a mismatch."""
import json
from pathlib import Path

import pytest

from conformance.__main__ import main
from conformance.compare_timings import NOT_JUDGED, SLOWER, WITHIN_NOISE, compare_files
from reference.cli import run_main
from conftest import bench_module

ROOT = Path(__file__).resolve().parents[1]
H200 = {"date": "2026-12-03T00:00:00+00:00", "commit": "abc", "python": "3.12.3", "cpu": "x86",
        "gpu": {"name": "NVIDIA H200", "driver": "580.159.04"}}
CEILINGS = {"copy": 4e12, "fr_mul": 1e11}
"""bench_ntt's measured ceilings (bytes/s, products/s): only its table's floors use them."""


def _write(tmp_path, name: str, bench, rows: list, date: str = H200["date"]) -> str:
    """The rows' record; ``date``: another run's (compare refuses a record compared with itself)."""
    path = tmp_path / name
    path.write_text(json.dumps({"rows": rows, "timings": bench.timing_record(rows, "synthetic", {**H200, "date": date})}))
    return str(path)


LATER = "2026-12-04T00:00:00+00:00"
"""Another run's date: the same times recorded again."""


def _verdicts(comparison) -> dict:
    return {(r.case, r.phase): r.verdict for r in comparison.rows}


def msm_rows(g1_2_20_ms: float) -> list[dict]:
    """Rows as bench_msm.py appends them: an MSM, forced-window MSMs (one, and a batch of ten) and a batch addition
    (5 timed runs each)."""
    around = lambda ms: [ms - 0.1, ms, ms + 0.1, ms - 0.05, ms + 0.05]
    return [
        {"op": "msm", "group": "g1", "log2": 20, "window_bits": 16, "median_ms": g1_2_20_ms, "times_ms": around(g1_2_20_ms)},
        {"op": "msm (forced c)", "group": "g2", "log2": 16, "window_bits": 15, "circuits": 1, "median_ms": 9.0,
         "per_circuit_ms": 9.0, "times_ms": around(9.0)},
        {"op": "msm (forced c)", "group": "g1", "log2": 18, "window_bits": 16, "circuits": 10, "median_ms": 60.0,
         "per_circuit_ms": 6.0, "times_ms": around(60.0)},
        {"op": "batch_add", "group": "g1", "log2": 24, "density": 0.99, "circuits": 10, "first_call_ms": 400.0,
         "median_ms": 300.0, "per_circuit_ms": 30.0, "times_ms": around(300.0)},
    ]


def test_bench_msm_record_holds_every_row_in_seconds():
    bench = bench_module("bench_msm")
    record = bench.timing_record(msm_rows(18.0), "synthetic", H200)
    assert record["tool"] == "bench_msm" and record["environment"] == H200
    entries = {(e["case"], e["phase"]): e for e in record["entries"]}
    assert set(entries) == {("G1 2^20", "msm"), ("G2 2^16 c=15", "msm"), ("G1 2^18 c=16 x10", "msm"),
                            ("G1 2^24 x10 density 0.99", "batch_add"), ("G1 2^24 x10 density 0.99", "batch_add_first_call")}
    msm = entries[("G1 2^20", "msm")]
    assert msm["runs"] == pytest.approx([0.0179, 0.018, 0.0181, 0.01795, 0.01805])
    assert (msm["median"], msm["spread"], msm["warmup_runs"]) == (pytest.approx(0.018), pytest.approx(0.0002), 1)
    assert msm["shape"] == {"group": "g1", "log2": 20}
    assert entries[("G2 2^16 c=15", "msm")]["shape"] == {"group": "g2", "log2": 16, "window_bits": 15}
    assert entries[("G1 2^18 c=16 x10", "msm")]["shape"] == {"group": "g1", "log2": 18, "window_bits": 16, "circuits": 10}
    assert entries[("G1 2^18 c=16 x10", "msm")]["median"] == pytest.approx(0.06)  # the batch's whole call
    batch = entries[("G1 2^24 x10 density 0.99", "batch_add")]
    assert batch["warmup_runs"] == 2 and batch["median"] == pytest.approx(0.3)  # the timed first call, then a warm-up
    assert entries[("G1 2^24 x10 density 0.99", "batch_add_first_call")]["runs"] == [0.4]


def test_bench_msm_records_compare_identical_within_noise_and_30_percent_slower_as_slower(tmp_path):
    bench = bench_module("bench_msm")
    base = _write(tmp_path, "base.json", bench, msm_rows(18.0))
    # (another run of the same speed: 1 ns apart, as two timers are; compare refuses a record's own runs)
    same = compare_files(base, _write(tmp_path, "same.json", bench, msm_rows(18.000001), LATER), max_slowdown_pct=0)
    assert _verdicts(same) == {("G1 2^20", "msm"): WITHIN_NOISE, ("G2 2^16 c=15", "msm"): WITHIN_NOISE,
                               ("G1 2^18 c=16 x10", "msm"): WITHIN_NOISE,
                               ("G1 2^24 x10 density 0.99", "batch_add"): WITHIN_NOISE,
                               ("G1 2^24 x10 density 0.99", "batch_add_first_call"): NOT_JUDGED}
    assert same.result == "incomplete"  # the one-run first call cannot be judged: no PASS over it
    same = compare_files(base, str(tmp_path / "same.json"), max_slowdown_pct=0, allow_unjudged=True)
    assert same.result == "pass"
    slower_path = _write(tmp_path, "slower.json", bench, msm_rows(18.0 * 1.3))
    slower = compare_files(base, slower_path, max_slowdown_pct=20)
    verdicts = _verdicts(slower)
    assert verdicts.pop(("G1 2^20", "msm")) == SLOWER
    assert set(verdicts.values()) == {WITHIN_NOISE, NOT_JUDGED}
    row = next(r for r in slower.rows if r.verdict == SLOWER)
    assert row.change_pct == pytest.approx(30.0)
    assert row.beyond_noise_pct == pytest.approx((18.0 * 0.3 - 0.2) / 18.0 * 100)  # noise: the 0.2 ms spread
    assert slower.result == "fail"
    assert main(["compare", base, slower_path, "--max-slowdown", "20"]) == 1


def ntt_rows(bench, forward_2_20_ms: float, batch: int) -> list[dict]:
    """bench_ntt.py's rows at 2^20 made by its own row(): the four transforms, ntt_h (1 and ``batch`` circuits) and ntt_h
    on the prover's route (one circuit)."""
    around = lambda ms: [ms * f for f in (0.99, 1.0, 1.01, 0.995, 1.005)]
    rows = [bench.row(op, 20, 1, around(forward_2_20_ms if op == "forward" else 0.5), 1e9, 1e9, CEILINGS)
            for op in bench.TRANSFORMS]
    rows += [bench.row("ntt_h", 20, c, around(4.0 * c), 1e9, 1e9, CEILINGS) for c in (1, batch)]
    return rows + [bench.row(bench.CONSUMED_NTT_H, 20, 1, around(4.2), 1e9, 1e9, CEILINGS)]


def test_bench_ntt_record_and_comparison(tmp_path):
    bench = bench_module("bench_ntt")
    rows = ntt_rows(bench, 0.5, 4)
    assert rows[0]["ms"] == 0.5 and rows[0]["times_ms"] == pytest.approx([0.495, 0.5, 0.505, 0.4975, 0.5025])
    record = bench.timing_record(rows, "synthetic", H200)
    assert record["tool"] == "bench_ntt"
    assert [(e["case"], e["phase"]) for e in record["entries"]] == [
        ("2^20 x1", "forward"), ("2^20 x1", "inverse"), ("2^20 x1", "coset_forward"), ("2^20 x1", "coset_inverse"),
        ("2^20 x1", "ntt_h"), ("2^20 x4", "ntt_h"), ("2^20 x1", "ntt_h_consumed")]
    first = record["entries"][0]
    assert (first["median"], first["warmup_runs"], first["shape"]) == (pytest.approx(0.0005), 2, {"log_n": 20, "circuits": 1})

    base = _write(tmp_path, "base.json", bench, rows)
    same = compare_files(base, _write(tmp_path, "same.json", bench, ntt_rows(bench, 0.500001, 4), LATER))  # 1 ns apart
    assert set(_verdicts(same).values()) == {WITHIN_NOISE}
    slower = compare_files(base, _write(tmp_path, "slower.json", bench, ntt_rows(bench, 0.65, 4)))
    verdicts = _verdicts(slower)
    assert verdicts.pop(("2^20 x1", "forward")) == SLOWER and set(verdicts.values()) == {WITHIN_NOISE}
    other_batch = _write(tmp_path, "batch3.json", bench, ntt_rows(bench, 0.5, 3))
    assert run_main(main, ["compare", base, other_batch]) == 2  # 2^20 x4 against 2^20 x3: not comparable


@pytest.mark.gpu
def test_bench_ntt_setup_runs_before_every_call_outside_the_timed_interval():
    """timed_runs_ms(setup=) (the prover's ntt_h route refills its inputs so): setup before every call, warm-ups
    included, and its device work not in the times: a setup of 1 GiB copies against a call of one small copy."""
    import cupy

    bench = bench_module("bench_ntt")
    big, big_copy = cupy.ones(1 << 28, dtype=cupy.uint32), cupy.empty(1 << 28, dtype=cupy.uint32)
    small, small_copy = cupy.ones(1 << 10, dtype=cupy.uint32), cupy.empty(1 << 10, dtype=cupy.uint32)
    calls = []

    def setup():
        calls.append("setup")
        for _ in range(4):
            cupy.copyto(big_copy, big)

    def call():
        calls.append("call")
        cupy.copyto(small_copy, small)

    setup_ms = min(bench.timed_runs_ms(setup, 5))
    calls.clear()
    times = bench.timed_runs_ms(call, 5, setup=setup)
    assert calls == ["setup", "call"] * (bench.WARMUP_CALLS + 5)
    assert max(times) < setup_ms / 10, (times, setup_ms)


def test_bench_msm_table_shows_issue_18_goals_and_none_where_it_sets_none():
    bench = bench_module("bench_msm")
    rows = [{"op": "msm", "group": "g1", "log2": log2, "median_ms": 1.0} for log2 in (20, 24, 26)]
    goals = [line.split("|")[-2].strip() for line in bench.table(rows).splitlines()[2:]]
    assert goals == ["", "80.0", "300.0"]  # issue 18: G1 MSM 2^24 <= 80 ms, 2^26 <= 300 ms; 2^20 has no goal
