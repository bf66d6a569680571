"""bench/bench_prove.py's pool readings by phase (PoolByPhase) and their table, on the CPU with a stand-in pool and
clock: which phase set a run's peak is read from these, so they must keep each phase's largest reading."""
from conftest import bench_module


bench = bench_module("bench_prove")


def test_each_phase_keeps_its_largest_reading_over_its_calls(monkeypatch):
    readings = iter([(5, 10), (7, 15), (6, 14), (4, 13)])  # (live, held) after each call, two blocks of two phases
    timer = bench.PoolByPhase(pool_bytes=lambda: next(readings))
    monkeypatch.setattr(timer, "clock", lambda fn, args: (fn(*args), 1.5))
    for phase in ("evaluate", "ntt_h", "evaluate", "ntt_h"):
        assert timer.run(phase, lambda x: x + 1, 1) == 2
    assert timer.pool == {"evaluate": {"used_bytes": 6, "held_bytes": 14}, "ntt_h": {"used_bytes": 7, "held_bytes": 15}}
    assert timer.ms == {"evaluate": 3.0, "ntt_h": 3.0}  # still the phase timer


def test_the_table_gives_live_and_held_gib_in_phase_order(capsys):
    gib = bench.GIB
    pool = {phase: {"used_bytes": gib, "held_bytes": 2 * gib} for phase in bench.PHASES}
    pool["ntt_h"] = {"used_bytes": 3 * gib // 2, "held_bytes": int(136.2 * gib)}
    del pool["assemble"]
    bench.print_pool_table([{"batches": [{"log_n": 27, "circuits": 10, "pool_by_phase": pool}, {"fits": False}]}])
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "| 2^27 | 10 | 1.0 / 2.0 | 1.5 / 136.2 | 1.0 / 2.0 | 1.0 / 2.0 | 1.0 / 2.0 | 1.0 / 2.0 | - |"
    bench.print_pool_table([{"batches": [{"fits": False}]}])  # nothing read: no table
    assert capsys.readouterr().out == ""
