"""bench/bench_staging.py's arithmetic on the CPU: the array sizes it uploads (against the key sizes measured by
bench_prove at 2^27, RESULTS_prove.json) and the table's pin cost, gain and break-even from synthetic stage times."""
import json
from pathlib import Path

import pytest
from conftest import bench_module

ROOT = Path(__file__).resolve().parents[1]


def test_array_sizes_match_the_keys_measured_at_2_27():
    bench = bench_module("bench_staging")
    measured = next(s["key_transfer"]["queries"] for run in json.loads((ROOT / "bench" / "RESULTS_prove.json").read_text())["runs"]
                    for s in run["sizes"] if s.get("key_transfer"))
    sizes = bench.array_bytes(27)
    for query, facts in measured.items():
        assert sizes[f"key_{query}"] == pytest.approx(facts["bytes"], rel=1e-4), query
    assert sizes["witnesses"] == (1 + 328 + 130_169_893) * 32


def test_summary_rows_pin_cost_gain_and_break_even():
    bench = bench_module("bench_staging")
    size = {"log_n": 24, "runs": 3, "bytes": {"key_h": 2 << 30, "witnesses": 2 << 30}, "modes": {
        "pageable": {"key_h": {"h2d": [1.0, 1.2, 1.1]}, "witnesses": {"h2d": [1.0, 1.0, 1.0]}},
        "pinned-copy": {"key_h": {"pin": [0.5] * 3, "h2d": [0.2] * 3, "unpin": [0.1] * 3},
                        "witnesses": {"pin": [0.5] * 3, "h2d": [0.2] * 3, "unpin": [0.1] * 3}},
        "registered": {"key_h": {"pin": [0.3] * 3, "h2d": [0.2] * 3, "unpin": [0.1] * 3},
                       "witnesses": {"pin": [0.3] * 3, "h2d": [0.2] * 3, "unpin": [0.1] * 3}},
        "cupy-asarray": {"key_h": {"h2d": [1.5] * 3}, "witnesses": {"h2d": [1.5] * 3}}}}
    rows = {r["mode"]: r for r in bench.summary_rows(size)}
    assert rows["pageable"]["h2d"] == pytest.approx(2.1) and rows["pageable"]["h2d_gib_per_s"] == pytest.approx(4 / 2.1)
    pinned = rows["pinned-copy"]
    assert pinned["total"] == pytest.approx(1.6) and pinned["pin_s_per_gib"] == pytest.approx(1.2 / 4)
    assert pinned["gain_s_per_gib"] == pytest.approx((2.1 - 0.4) / 4)
    assert pinned["break_even_uploads"] == pytest.approx(1.2 / 1.7)
    assert rows["registered"]["break_even_uploads"] == pytest.approx(0.8 / 1.7)
    table = bench.markdown([size], {"gpu": {"name": "NVIDIA H200"}, "cpu": "x"})
    assert "| 2^24 (3 runs) | 4.00 | pinned-copy | 1.000 | 0.400 | 0.200 | 1.600 | 10.0 | 0.300 | 0.425 | 0.71 |" in table
    entries = bench.timing_entries([size])
    assert {e["backend"] for e in entries} == {"gpu pageable", "gpu pinned-copy", "gpu registered", "gpu cupy-asarray"}
