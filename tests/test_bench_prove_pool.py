"""bench/bench_prove.py's pool readings by phase (PoolByPhase) and their table, on the CPU with a stand-in pool and
clock: which phase set a run's peak is read from these, so they must keep each phase's largest reading."""
from conftest import bench_module


bench = bench_module("bench_prove")


def test_each_phase_keeps_its_largest_reading_and_what_it_added_over_its_calls(monkeypatch):
    # (live, held) before and after each call, two blocks of two phases; block 1's ntt_h raises the held bytes to 15,
    # so block 2's evaluate reads the peak after it without having raised anything
    readings = iter([(1, 8), (5, 10), (5, 10), (7, 15), (7, 15), (6, 15), (6, 15), (4, 15)])
    timer = bench.PoolByPhase(pool_bytes=lambda: next(readings))
    monkeypatch.setattr(timer, "clock", lambda fn, args: (fn(*args), 1.5))
    for phase in ("evaluate", "ntt_h", "evaluate", "ntt_h"):
        assert timer.run(phase, lambda x: x + 1, 1) == 2
    assert timer.pool == {"evaluate": {"used_bytes": 6, "held_bytes": 15, "grown_bytes": 2},
                          "ntt_h": {"used_bytes": 7, "held_bytes": 15, "grown_bytes": 5}}
    assert timer.ms == {"evaluate": 3.0, "ntt_h": 3.0}  # still the phase timer


def test_the_table_gives_live_and_held_gib_in_phase_order(capsys):
    gib = bench.GIB
    pool = {phase: {"used_bytes": gib, "held_bytes": 2 * gib, "grown_bytes": 0} for phase in bench.PHASES}
    pool["ntt_h"] = {"used_bytes": 3 * gib // 2, "held_bytes": int(136.2 * gib), "grown_bytes": int(4.5 * gib)}
    pool["prep"] = {"used_bytes": gib, "held_bytes": 2 * gib}  # a document from before the growth was read
    del pool["assemble"]
    bench.print_pool_table([{"batches": [{"log_n": 27, "circuits": 10, "pool_by_phase": pool}, {"fits": False}]}])
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == ("| 2^27 | 10 | 1.0 / 2.0 (+0.0) | 1.5 / 136.2 (+4.5) | 1.0 / 2.0 (+0.0) | 1.0 / 2.0 (+?) | "
                       "1.0 / 2.0 (+0.0) | 1.0 / 2.0 (+0.0) | - |")
    bench.print_pool_table([{"batches": [{"fits": False}]}])  # nothing read: no table
    assert capsys.readouterr().out == ""


class StandInPool:
    """A pool whose live bytes follow its allocations and their frees, as CuPy's used_bytes does."""

    def __init__(self, live: int):
        self.live = live

    def used_bytes(self) -> int:
        return self.live

    def malloc(self, size: int):
        self.live += size
        return ("memory", size)

    def free(self, size: int):
        self.live -= size


def test_the_live_peak_is_the_largest_live_bytes_at_an_allocation_and_the_allocator_goes_back():
    pool, installed = StandInPool(live=100), ["the allocator before"]
    with bench.LivePeak(pool, set_allocator=installed.append, get_allocator=lambda: installed[-1]) as live:
        assert installed[-1] is live and live.peak == 100  # what was live before the run counts
        assert live(30) == ("memory", 30)
        pool.free(30)
        live(50)  # 150 live: the peak, though less was allocated at once than the pool may hold
        pool.free(50)
        live(20)
    assert live.peak == 150
    assert installed[-1] == "the allocator before", "the allocator in place before the run is back after it"


def test_the_table_gives_the_live_peak_beside_the_held_one(capsys):
    gib = bench.GIB
    batch = {"log_n": 27, "circuits": 10, "fits": True, "phases_ms": {p: 1.0 for p in bench.PHASES},
             "total_ms": 7.0, "per_circuit_ms": 0.7, "upload_witnesses_ms": 2.0, "peak_bytes": int(136.2 * gib)}
    meta = {"gpu": "NVIDIA H200", "commit": "abc1234", "date": "2026-12-05"}
    bench.print_table(meta, [{"batches": [{**batch, "live_peak_bytes": int(120.5 * gib)}, batch]}])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 2^27")]
    assert rows[0].endswith("| 2.0 | 136.2 | 120.5 |") and rows[1].endswith("| 2.0 | 136.2 | - |")


def test_each_proof_s_wall_clock_is_recorded_beside_the_sum_of_its_phases(capsys):
    """The table's 'total ms' is the sum of the phases' medians: host work between the phases (plans, waits, the
    proofs' conversion) was in no number. Each timed proof's wall clock is its 'wall ms' and the record's whole_run
    (host), which compare sums apart from the phases it spans; a batch recorded before it has no such entry."""
    from gpu.staging import WHOLE_RUN

    runs = {p: [1.0, 1.0, 1.0] for p in bench.PHASES}
    batch = {"log_n": 27, "circuits": 1, "fits": True, "phases_ms": {p: 1.0 for p in bench.PHASES}, "total_ms": 7.0,
             "per_circuit_ms": 7.0, "upload_witnesses_ms": 2.0, "peak_bytes": 0, "phase_runs_ms": runs,
             "download_runs_ms": [0.2] * 3}
    timed = {**batch, "wall_ms": 7.5, "wall_runs_ms": [7.6, 7.5, 7.4]}
    [whole] = [e for e in bench.timing_entries([{"batches": [timed]}], "seed") if e["phase"] == WHOLE_RUN]
    assert (whole["kind"], whole["runs"], whole["warmup_runs"]) == ("host", [0.0076, 0.0075, 0.0074], 1)
    assert not [e for e in bench.timing_entries([{"batches": [batch]}], "seed") if e["phase"] == WHOLE_RUN]
    bench.print_table({"gpu": "NVIDIA H200", "commit": "abc1234", "date": "2026-12-06"}, [{"batches": [timed, batch]}])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 2^27")]
    assert "| 7.0 | 7.5 | 7.0 | 2.0 |" in rows[0] and "| 7.0 | - | 7.0 | 2.0 |" in rows[1]


def test_the_stages_outside_the_phases_are_recorded_and_what_none_names_is_the_wall_clock_beyond_them(capsys):
    """prove_on_device's host stages and copies (gpu/staging.py) are each a timing entry of their kind, every run;
    the table beside the phases gives their medians and 'unnamed', the wall clock minus every timed name; a record
    made before them has the proofs' download alone."""
    from gpu.staging import DOWNLOAD_PROOFS, DOWNLOAD_SUMS, PLAN_MEMORY, RELEASE_CACHED_BLOCKS

    runs = {p: [1.0, 1.0, 1.0] for p in bench.PHASES}
    stages = {RELEASE_CACHED_BLOCKS: [3.0, 4.0, 5.0], PLAN_MEMORY: [0.5] * 3, DOWNLOAD_PROOFS: [0.2] * 3,
              DOWNLOAD_SUMS: [0.1] * 3}
    batch = {"log_n": 26, "circuits": 1, "fits": True, "phases_ms": {p: 1.0 for p in bench.PHASES}, "total_ms": 7.0,
             "per_circuit_ms": 7.0, "upload_witnesses_ms": 2.0, "peak_bytes": 0, "phase_runs_ms": runs,
             "wall_ms": 12.0, "wall_runs_ms": [11.9, 12.0, 13.1], "stage_runs_ms": stages,
             "unnamed_runs_ms": [0.1, 0.2, 0.3]}
    kinds = {e["phase"]: (e["kind"], e["runs"]) for e in bench.timing_entries([{"batches": [batch]}], "seed")}
    assert kinds[RELEASE_CACHED_BLOCKS] == ("host", [0.003, 0.004, 0.005])
    assert kinds[PLAN_MEMORY][0] == "host" and kinds[DOWNLOAD_SUMS][0] == kinds[DOWNLOAD_PROOFS][0] == "copy"
    older = {k: v for k, v in batch.items() if k not in ("stage_runs_ms", "unnamed_runs_ms")}
    older["download_runs_ms"] = [0.2] * 3
    assert [e["phase"] for e in bench.timing_entries([{"batches": [older]}], "seed") if e["kind"] == "copy"] == [
        "h2d_witnesses", DOWNLOAD_PROOFS]
    bench.print_table({"gpu": "NVIDIA H100", "commit": "abc1234", "date": "2026-12-06"}, [{"batches": [batch, older]}])
    out = capsys.readouterr().out.splitlines()
    header = out.index(next(line for line in out if line.startswith("Outside the phases")))
    assert out[header + 1] == "| n | circuits | release_cached_blocks | plan_memory | d2h_proofs | d2h_sums | unnamed |"
    assert out[header + 3] == "| 2^26 | 1 | 4.00 | 0.50 | 0.20 | 0.10 | 0.20 |"
    assert not out[header + 4:] or not out[header + 4].startswith("| 2^26")
