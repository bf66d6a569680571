"""conformance/seeded.py at its boundaries (a mutation audit, 2026-12-07): mutants that passed the whole suite before
these tests:

* parse_name refusing ``circuits << log_n >= MAX_GENERATED_ROWS`` (the gate's own 2^20 vector, exactly at the limit,
  was refused as bad input; only names over the limit were tested);
* _judges with ``log_n < REFERENCE_MAX_LOG_N`` (the reference no longer ran on a vector of exactly that size; only
  sizes above it were tested);
* fill_cache dropping its "built but not written" failure (``seeded-cache`` said the folder held a vector it had not
  written, exit 0; only a build that raised was tested);
* check_seeded building and checking a vector no backend here runs (``if not judging`` dropped);
* and the ones named above the later tests (_obtain's cache file, _every_phase's unavailable rows, every mode, the
  cache key's circuit count).
"""
from conformance.__main__ import main
from conformance.backends.reference import ReferenceBackend
from conformance.runner import PASS, SKIPPED
from conformance.seeded import GATE_VECTORS, SeededVector, parse_name
from reference.cli import run_main
from reference.prover import PHASES


def test_names_exactly_at_the_generator_s_row_limit_are_accepted():
    from vectors.generate import MAX_GENERATED_ROWS

    assert MAX_GENERATED_ROWS == 1 << 20
    assert parse_name("seeded:porep-log20") == GATE_VECTORS[1] == SeededVector(20, 1, GATE_VECTORS[1].reaches)
    assert parse_name("seeded:porep-log20-c1") == GATE_VECTORS[1]
    assert parse_name("seeded:porep-log19-c2") == SeededVector(19, 2)  # 2 * 2^19 = 2^20 rows: at the limit
    assert parse_name("seeded:porep-log10-c99") == SeededVector(10, 99)  # 99 * 2^10 rows: under it


def test_the_reference_runs_on_a_seeded_vector_of_exactly_its_largest_size(monkeypatch):
    import conformance.seeded as seeded

    monkeypatch.setattr(seeded, "REFERENCE_MAX_LOG_N", 3)
    results, record = seeded.check_seeded(SeededVector(3, 1), [ReferenceBackend()], PHASES, ["isolated"])
    assert record is not None and record["log_n"] == 3 and record["error"] is None
    statuses = {p.phase: p.backends["reference"].status for p in results[0].phases}
    assert statuses == {p: PASS for p in PHASES}, statuses
    results, record = seeded.check_seeded(SeededVector(4, 1), [ReferenceBackend()], PHASES, ["isolated"])
    assert record is None  # one above: not built, the reference skipped
    assert {p.backends["reference"].status for p in results[0].phases} == {SKIPPED}


class _BuiltNotWritten:
    """A BackgroundBuild whose child built the vector but could not write it to the cache (a full disk): its outcome
    is ("vector", ..., seconds), not ("cached", ...)."""

    def __init__(self, spec, say, cache=None):
        pass

    def outcome(self, say):
        return "vector", None, 3.0

    def stop(self):
        pass


def test_seeded_cache_fails_when_a_built_vector_was_not_written(tmp_path, capsys, monkeypatch):
    import conformance.seeded as seeded

    monkeypatch.setattr(seeded, "BackgroundBuild", _BuiltNotWritten)
    folder = tmp_path / "cache"
    assert run_main(main, ["seeded-cache", str(folder), "seeded:porep-log03", "--quiet"]) == 1
    captured = capsys.readouterr()
    assert f"failed: seeded:porep-log03-c1: built in 3.0 s but not written to {folder}" in captured.err
    assert "holds" not in captured.out


# Also surviving before: _obtain recording the cache file of a background build that did not write it (``if cache``
# for ``if background.stored``: report.json said written_to_disk with a file that does not exist), and _every_phase
# dropping the backends that cannot run here (a failed generation's result had no 'unavailable' row).


class _HandedOver:
    """A finished BackgroundBuild whose child handed the vector over through the pipe: not written to the cache."""

    stored = False

    def __init__(self, vector):
        self.vector = vector

    def result(self, say):
        return self.vector, 4.0


def test_a_background_build_not_written_to_the_cache_records_no_cache_file(tmp_path):
    from conformance.seeded import SeededCache, _obtain

    spec = SeededVector(3, 1)
    cache = SeededCache(tmp_path / "cache")
    vector, seconds, cache_file, load_seconds = _obtain(spec, lambda m: None, _HandedOver("the vector"), cache)
    assert (vector, seconds, cache_file, load_seconds) == ("the vector", 4.0, None, None)
    assert not cache.path(spec).exists()
    written = _HandedOver("the vector")
    written.stored = True
    assert _obtain(spec, lambda m: None, written, cache)[2] == cache.path(spec)


def test_a_failed_generation_still_records_the_unavailable_backends(monkeypatch):
    import conformance.seeded as seeded
    import vectors.generate

    def broken(*args, **kwargs):
        raise MemoryError("the host ran out of memory")

    monkeypatch.setattr(vectors.generate, "build_vector", broken)
    reason = "no CUDA device: cupy is not installed"
    results, record = seeded.check_seeded(SeededVector(3, 1), [ReferenceBackend()], PHASES, ["isolated", "prover"],
                                          unavailable={"gpu": reason})
    assert record["error"].startswith("MemoryError: the host ran out of memory")
    for result in results:
        assert [p.phase for p in result.phases] == list(PHASES)
        for phase in result.phases:
            assert {name: (b.status, b.message) for name, b in phase.backends.items()} == {
                "reference": ("error", f"generating the vector failed: {record['error']}"), "gpu": ("unavailable", reason)}


# Also surviving before: check_seeded checking the first of its modes only (``modes[:1]``: a gate's prover-mode and
# end-to-end results of a seeded vector were never made), and a cache key without the circuit count.


def test_a_seeded_vector_is_checked_in_every_mode_asked_for():
    import conformance.seeded as seeded

    modes = ["isolated", "end-to-end", "prover"]
    results, record = seeded.check_seeded(SeededVector(3, 1), [ReferenceBackend()], PHASES, modes)
    assert [(r.vector_id, r.mode) for r in results] == [
        ("seeded:porep-log03-c1", "isolated"), ("seeded:porep-log03-c1", "end-to-end"),
        ("seeded:porep-log03-c1 [prover]", "prover")]
    for result in results:
        assert {p.phase: p.backends["reference"].status for p in result.phases} == {p: PASS for p in PHASES}, result.mode


def test_the_cache_key_changes_with_the_circuit_count(tmp_path):
    from conformance.seeded import SeededCache

    cache = SeededCache(tmp_path / "cache")
    assert cache.key(SeededVector(4, 1)) != cache.key(SeededVector(4, 2)) != cache.key(SeededVector(5, 2))
