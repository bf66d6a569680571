"""Seeded vectors (conformance/seeded.py) on the CPU: the code path --record-gate takes at 2^16 and 2^20 on the GPU,
run here at 2^3..2^4 with the reference backend, so that CI covers the naming, the generation and its progress, the
checks in each mode, the report's records, and that a failure is an error, never a pass."""
import dataclasses
import json

import pytest

from conformance.__main__ import main
from conformance.seeded import GATE_VECTORS, SEED, SeededVector, parse_name, split_seeded
from reference.cli import run_main
from reference.errors import InvalidInputError
from reference.prover import PHASES
from vectors.bundled import DATA_DIR

SMALL = "seeded:porep-log04-c2"


def _report(folder) -> dict:
    return json.loads((folder / "report.json").read_text())


def _statuses(document, vector_id) -> dict:
    entry = next(v for v in document["vectors"] if v["id"] == vector_id)
    return {p["phase"]: {name: b["status"] for name, b in p["backends"].items()} for p in entry["phases"]}


def test_names_are_split_from_paths_canonical_and_once_each():
    rest, seeded = split_seeded(["a.json", "seeded:porep-log4", "generated:porep-log11", "seeded:porep-log04-c1",
                                 "seeded:porep-log16-c2"])
    assert rest == ["a.json", "generated:porep-log11"]
    assert seeded == [SeededVector(4, 1), GATE_VECTORS[0]]
    assert [v.label for v in seeded] == ["seeded:porep-log04-c1", "seeded:porep-log16-c2"]


@pytest.mark.parametrize(("name", "problem"), [
    ("seeded:porep-log21", "log n must be in 1..20"), ("seeded:porep-log00", "log n must be in 1..20"),
    ("seeded:porep-log04-c0", "at least one circuit"), ("seeded:random-log04", "is not seeded:porep-log<K>[-c<C>]"),
    ("seeded:porep-log4x", "is not seeded:porep-log<K>[-c<C>]"),
    # the generator's limit (circuits * 2^log_n rows): seeded-cache reported a 'failed' build, exit 1, not bad input
    ("seeded:porep-log20-c2", "exceed the generator's 1048576 rows"), ("seeded:porep-log15-c99", "exceed the generator's"),
    ("seeded:porep-log\u0665", "is not seeded:porep-log<K>[-c<C>]"),  # an Arabic-Indic 5: int() reads it, a name has ASCII digits
])
def test_a_malformed_or_out_of_range_name_is_bad_input(name, problem, capsys, tmp_path):
    with pytest.raises(InvalidInputError, match=r"vectors: .*" + problem.replace("[", r"\[").replace("]", r"\]")):
        parse_name(name)
    assert run_main(main, ["run", name, "--backends", "reference", "--report", str(tmp_path), "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: vectors: ")
    assert run_main(main, ["seeded-cache", str(tmp_path / "cache"), name, "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: vectors: ")


def test_a_seeded_vector_s_expected_proofs_pass_the_pairing_check():
    """The seeded vectors' expected values come from the generator's prover, which the run below then checks the
    reference against: an independent judge of the same values is the pairing check, which every circuit's expected
    proof must pass, and a proof with C moved must fail."""
    from py_ecc.optimized_bls12_381 import G1, add

    from conformance.seeded import build
    from reference.assemble import Proof
    from reference.verifier import verify

    vector = build(parse_name(SMALL), lambda message: None)
    assert len(vector.circuits) == 2
    for case in vector.circuits:
        proof = case.expected.assemble
        assert verify(vector.pk.vk, case.witness.public_inputs, proof)
        assert not verify(vector.pk.vk, case.witness.public_inputs, Proof(a=proof.a, b=proof.b, c=add(proof.c, G1)))


def test_a_seeded_vector_is_generated_when_the_run_starts_and_checked_in_every_phase(tmp_path, capsys):
    """Every phase judged against the vector's expected values; the generation shown as it goes and recorded."""
    from vectors.generate import synthetic_circuit

    assert main(["run", SMALL, "--backends", "reference", "--report", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert f"{SMALL}: generating a porep-shaped vector of 2^4 with 2 circuit(s) from seed {SEED!r}" in err
    assert f"{SMALL}: generating: setup for 2^4" in err and f"{SMALL}: generated in " in err
    document = _report(tmp_path)
    assert _statuses(document, SMALL) == {p: {"reference": "pass"} for p in PHASES}
    assert all(p["oracle"] == "expected" for v in document["vectors"] for p in v["phases"])
    r1cs, _ = synthetic_circuit(4, SEED)
    [record] = document["seeded_vectors"]
    assert {k: record[k] for k in ("id", "seed", "shape", "log_n", "circuits", "constraints", "aux", "written_to_disk", "error")} == {
        "id": SMALL, "seed": SEED, "shape": "porep", "log_n": 4, "circuits": 2, "constraints": r1cs.num_constraints,
        "aux": r1cs.num_aux, "written_to_disk": False, "error": None}
    assert record["generation_seconds"] > 0 and document["vectors"][0]["load_seconds"] == record["generation_seconds"]


def test_the_same_seed_gives_the_same_vector():
    from conformance.seeded import build

    spec = SeededVector(3, 2)
    assert build(spec, lambda message: None) == build(spec, lambda message: None)


def test_prover_mode_and_a_planted_fault_on_a_seeded_vector(tmp_path, capsys):
    """The prover entry point runs on it too; a fault in ntt_h is named there, against the exact expected h."""
    assert main(["run", SMALL, "--backends", "reference", "--mode", "prover", "--report", str(tmp_path), "--quiet"]) == 0
    assert _statuses(_report(tmp_path), f"{SMALL} [prover]")["assemble"] == {"reference": "pass"}
    capsys.readouterr()
    assert main(["run", SMALL, "--backends", "fault:ntt-drop-last-h", "--report", str(tmp_path), "--quiet"]) == 1
    assert f"{SMALL} ntt_h [fault:ntt-drop-last-h, judged by expected]: circuit 0, h" in capsys.readouterr().out


def test_a_generation_that_fails_is_an_error_in_every_phase_never_a_pass(tmp_path, monkeypatch, capsys):
    import vectors.generate

    def broken(*args, **kwargs):
        raise RuntimeError("the generator broke")

    monkeypatch.setattr(vectors.generate, "build_vector", broken)
    assert main(["run", SMALL, "--backends", "reference", "--report", str(tmp_path)]) == 1
    assert f"{SMALL}: generation failed after" in capsys.readouterr().err
    document = _report(tmp_path)
    assert document["result"] == "fail" and _statuses(document, SMALL) == {p: {"reference": "error"} for p in PHASES}
    assert document["seeded_vectors"][0]["error"].startswith("RuntimeError: the generator broke")


def test_a_generated_witness_that_does_not_satisfy_its_circuit_is_an_error(tmp_path, monkeypatch):
    """Unlike a vector file (bad input, exit 2), a seeded vector is the run's own making: a generator bug, exit 1."""
    import vectors.generate

    real = vectors.generate.build_vector

    def tampered(*args, **kwargs):
        vector = real(*args, **kwargs)
        case = vector.circuits[1]
        witness = dataclasses.replace(case.witness, aux=[(case.witness.aux[0] + 1) % 7, *case.witness.aux[1:]])
        vector.circuits[1] = dataclasses.replace(case, witness=witness)
        return vector

    monkeypatch.setattr(vectors.generate, "build_vector", tampered)
    assert main(["run", SMALL, "--backends", "reference", "--report", str(tmp_path), "--quiet"]) == 1
    [record] = _report(tmp_path)["seeded_vectors"]
    assert "circuit 1" in record["error"] and record["error"].startswith("UnsatisfiedConstraintError")


def test_above_the_reference_size_only_a_gpu_backend_runs_and_nothing_is_generated_without_one(tmp_path, monkeypatch):
    """The reference is skipped (saying why) where a GPU runs; with no backend to run it, the vector is not even built
    and a run of nothing else checked nothing (exit 2)."""
    import conformance.seeded as seeded
    import vectors.generate
    from conformance.backends.reference import ReferenceBackend

    class StandIn(ReferenceBackend):  # a backend named as a GPU, computing as the reference does
        name = "gpu"

    monkeypatch.setattr(seeded, "REFERENCE_MAX_LOG_N", 3)
    results, record = seeded.check_seeded(SeededVector(4, 1), [ReferenceBackend(), StandIn()], PHASES, ["isolated"])
    assert record["log_n"] == 4
    for phase in results[0].phases:
        assert phase.backends["gpu"].status == "pass"
        assert phase.backends["reference"].status == "skipped" and "above 2^3" in phase.backends["reference"].message

    def broken(*args, **kwargs):
        raise MemoryError("the host ran out of memory")

    monkeypatch.setattr(vectors.generate, "build_vector", broken)
    results, record = seeded.check_seeded(SeededVector(4, 1), [ReferenceBackend(), StandIn()], PHASES, ["isolated", "prover"])
    assert record["error"].startswith("MemoryError: the host ran out of memory")
    assert [r.vector_id for r in results] == ["seeded:porep-log04-c1", "seeded:porep-log04-c1 [prover]"]
    assert {(name, b.status) for r in results for p in r.phases for name, b in p.backends.items()} == {
        ("gpu", "error"), ("reference", "skipped")}

    def not_expected(*args, **kwargs):
        raise AssertionError("built a vector no backend checks")

    monkeypatch.setattr(vectors.generate, "build_vector", not_expected)
    assert run_main(main, ["run", "seeded:porep-log04", "--backends", "reference", "--report", str(tmp_path), "--quiet"]) == 2


def test_record_gate_checks_the_seeded_gate_vectors(monkeypatch):
    """--record-gate hands the 2^16 and 2^20 seeded vectors to the suite (the GPU run itself happens on the device);
    named vectors, seeded ones too, are refused there: the gate is one fixed set."""
    import conformance.__main__ as cli

    seen = {}

    def suite(args, argv, say, phases, names, paths, generated, recorder, seeded=(), cache=None):
        seen.update(seeded=list(seeded), modes=args.mode, generated=generated)
        return 0

    monkeypatch.setattr(cli, "_run_suite", suite)
    monkeypatch.setattr(cli.CoverageRecorder, "start", staticmethod(lambda reason: None))
    assert main(["run", "--record-gate", "--quiet"]) == 0
    assert seen["seeded"] == list(GATE_VECTORS) and {v.log_n for v in seen["seeded"]} == {16, 20}
    with pytest.raises(InvalidInputError, match="give no vector arguments"):
        main(["run", "--record-gate", "seeded:porep-log04", "--quiet"])


def test_record_gate_refuses_to_start_a_generation_of_hours_without_the_fast_library(monkeypatch, capsys):
    """Without the optional fast library the 2^16 and 2^20 vectors would come from the pure-Python setup and MSMs:
    --record-gate says so before any work (exit 2); a named large seeded vector gets a warning."""
    import conformance.__main__ as cli
    from vectors import fast_library

    monkeypatch.setattr(fast_library, "_import", lambda: None)
    monkeypatch.setattr(cli, "_run_suite", lambda *args, **kwargs: 0)
    monkeypatch.setattr(cli.CoverageRecorder, "start", staticmethod(lambda reason: None))
    assert run_main(main, ["run", "--record-gate", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --record-gate: seeded:porep-log16-c2, seeded:porep-log20-c1: without the fast library")
    assert "pip install -e '.[fast]'" in err
    assert main(["run", "seeded:porep-log12", "--backends", "gpu"]) == 0
    assert "warning: seeded:porep-log12-c1: without the fast library" in capsys.readouterr().err


def test_a_background_build_hands_over_the_vector_the_inline_build_makes(capfd):
    """The child process (spawned: a fresh interpreter) builds with the same function and seed; its progress lines
    reach the run's standard error, on the run's clock."""
    from conformance.seeded import BackgroundBuild, build
    from reference.cli import Progress

    spec = SeededVector(3, 2)
    say = Progress()
    vector, seconds = BackgroundBuild(spec, say).result(say)
    assert vector == build(spec, lambda message: None) and seconds > 0
    err = capfd.readouterr().err
    assert f"{spec.label}: generating: setup for 2^3" in err and f"{spec.label}: handed over by its build process" in err


def test_a_background_build_that_raises_or_dies_is_a_generation_failure_never_a_vector():
    from conformance.seeded import BackgroundBuild, GenerationFailed
    from reference.cli import Progress

    quiet = Progress(quiet=True)  # (it travels to the child: pickled)
    with pytest.raises(GenerationFailed, match=r"^InvalidInputError: .*log-n: must be in 1\.\.20"):
        BackgroundBuild(SeededVector(21, 1), quiet).result(quiet)  # past parse_name's range check: build_vector refuses it
    dying = BackgroundBuild(SeededVector(10, 1), quiet)
    dying._process.kill()  # killed mid-build, as the out-of-memory killer would
    with pytest.raises(GenerationFailed, match=r"its build process ended without a result \(exit code -9; "):
        dying.result(quiet)


def test_a_run_builds_the_large_seeded_vectors_in_the_background_and_checks_them_the_same(tmp_path, capsys, monkeypatch):
    """From BACKGROUND_MIN_LOG_N up the build starts with the run, before the bundled vectors are loaded; the vector
    is then checked and recorded as an inline build is (here at 2^4, the threshold lowered)."""
    import conformance.seeded as seeded

    monkeypatch.setattr(seeded, "BACKGROUND_MIN_LOG_N", 4)
    bundled = str(DATA_DIR / "porep-log05.json")  # absolute: the test runs from any folder
    assert main(["run", bundled, SMALL, "--backends", "reference", "--report", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    started = err.index(f"{SMALL}: generating a porep-shaped vector of 2^4 with 2 circuit(s) from seed {SEED!r} in a background process")
    assert started < err.index("porep-log05") < err.index(f"{SMALL}: waiting for its build process")
    document = _report(tmp_path)
    assert _statuses(document, SMALL) == {p: {"reference": "pass"} for p in PHASES}
    [record] = document["seeded_vectors"]
    assert record["error"] is None and record["generation_seconds"] > 0


def test_a_background_build_may_start_the_fast_librarys_process_pool():
    """From POOL_MIN_POINTS multiples on, the fast library's setup works in a process pool, which a daemonic child
    may not start (the first try on 2^20 failed so: 'daemonic processes are not allowed to have children'), and
    whose idle workers a child must end itself (the second try handed the vector over, then hung at the child's exit:
    result() now refuses a child that has not ended within CHILD_EXIT_SECONDS)."""
    from conformance.seeded import BackgroundBuild
    from reference.cli import Progress
    from vectors import fast_library

    if fast_library.unavailable_reason() is not None:
        pytest.skip(f"the fast library is not installed: {fast_library.unavailable_reason()}")
    log_n = fast_library.POOL_MIN_POINTS.bit_length()  # an H query of 2^log_n - 1 >= POOL_MIN_POINTS points
    quiet = Progress(quiet=True)
    vector, _ = BackgroundBuild(SeededVector(log_n, 1), quiet).result(quiet)
    assert len(vector.pk.h) == (1 << log_n) - 1 >= fast_library.POOL_MIN_POINTS


def test_a_build_process_that_cannot_send_its_result_still_closes_its_end(monkeypatch):
    """(Run here in-process: the child's function.) A result that cannot be sent (pickling fails, the pipe broke)
    must still close the sending end, so the run reads end of file instead of waiting for ever, and end the pool
    workers it started. (The child's SIGTERM handler and its ending of this process's children are kept out of the
    test process.)"""
    import conformance.seeded as seeded

    ended = []
    monkeypatch.setattr(seeded.signal, "signal", lambda signum, handler: None)
    monkeypatch.setattr(seeded, "_end_pool_workers", lambda: ended.append(True))

    class BrokenPipe:
        closed = False

        def send(self, outcome):
            raise BrokenPipeError("the run went away")

        def close(self):
            self.closed = True

    monkeypatch.setattr(seeded, "build_timed", lambda spec, say: ("a vector", 1.0))
    pipe = BrokenPipe()
    with pytest.raises(BrokenPipeError):
        seeded._build_in_child(SeededVector(3, 1), pipe, lambda message: None)
    assert pipe.closed and ended == [True]


def _state_and_parent(stat) -> tuple[str, int] | None:
    """(state, parent pid) from a /proc/<pid>/stat file ('pid (comm) state ppid ...'); None once the process is gone."""
    try:
        state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
    except (OSError, ValueError):
        return None
    return state, int(parent)


def _live_children(pid: int) -> list[int]:
    """The pids of the live (not zombie) processes whose parent is ``pid``, from /proc."""
    from pathlib import Path

    return [int(stat.parent.name) for stat in Path("/proc").glob("[0-9]*/stat")
            if (fields := _state_and_parent(stat)) and fields[1] == pid and fields[0] != "Z"]


def _alive(pid: int) -> bool:
    from pathlib import Path

    fields = _state_and_parent(Path(f"/proc/{pid}/stat"))
    return fields is not None and fields[0] != "Z"


def test_stopping_a_background_build_ends_the_pool_workers_it_started_too():
    """A run that stops early (an error) ends the build's child, and the child first ends the fast library's pool
    workers it forked: they do not outlive it (idle, holding the run's standard error open)."""
    import time

    from conformance.seeded import BackgroundBuild
    from reference.cli import Progress
    from vectors import fast_library

    if fast_library.unavailable_reason() is not None:
        pytest.skip(f"the fast library is not installed: {fast_library.unavailable_reason()}")
    quiet = Progress(quiet=True)
    build = BackgroundBuild(SeededVector(fast_library.POOL_MIN_POINTS.bit_length(), 1), quiet)
    deadline = time.monotonic() + 120
    while not _live_children(build._process.pid) and time.monotonic() < deadline:  # its pool's workers
        time.sleep(0.2)
    workers = _live_children(build._process.pid)
    assert workers, "the build never started its pool"
    build.stop()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers)


# --seeded-cache (conformance/seeded.py SeededCache): kept between runs only under the key of what made the vector.

def _never_built(monkeypatch):
    """Make any build in this process fail the test: what follows must come from the cache."""
    import conformance.seeded as seeded

    def build(spec, say):
        raise AssertionError(f"{spec.label} was built, not read from the cache")

    monkeypatch.setattr(seeded, "build", build)


def test_a_seeded_vector_kept_in_the_cache_is_read_back_in_the_next_run_instead_of_built(tmp_path, capsys, monkeypatch):
    from conformance.seeded import SeededCache, build

    cache_dir = tmp_path / "cache"
    assert main(["run", SMALL, "--backends", "reference", "--seeded-cache", str(cache_dir), "--report", str(tmp_path / "a")]) == 0
    [written] = list(cache_dir.iterdir())
    assert f"{SMALL}: written to the cache: {written}" in capsys.readouterr().err
    first = _report(tmp_path / "a")["seeded_vectors"][0]
    assert (first["written_to_disk"], first["cache_file"], first["cache_load_seconds"]) == (True, str(written), None)

    _never_built(monkeypatch)
    assert main(["run", SMALL, "--backends", "reference", "--seeded-cache", str(cache_dir), "--report", str(tmp_path / "b")]) == 0
    assert f"{SMALL}: read from the cache {written} in " in capsys.readouterr().err
    document = _report(tmp_path / "b")
    assert _statuses(document, SMALL) == {p: {"reference": "pass"} for p in PHASES}
    second = document["seeded_vectors"][0]
    assert second["cache_file"] == str(written) and second["cache_load_seconds"] is not None
    assert second["generation_seconds"] == first["generation_seconds"]  # the build's time, recorded where it was made
    monkeypatch.undo()
    spec = parse_name(SMALL)
    assert SeededCache(cache_dir).load(spec, print)[0] == build(spec, lambda message: None)  # the very vector a build makes


def _copy_of_the_repository(files, root):
    """``root``, a folder holding a copy of these repository files at their paths (a repository a SeededCache can key)."""
    import shutil

    from conformance.sources import REPO_ROOT

    for path in files:
        target = root / path.relative_to(REPO_ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return root


def test_the_cache_key_changes_with_the_generators_sources_the_libraries_and_the_size(tmp_path, monkeypatch):
    """A copy of the repository's generator files keys like the repository; an edit to any file they import, another
    library version or another size gives another file name, so an edited generator never reads an old vector."""
    import conformance.seeded as seeded

    builder = seeded.builder_sources()
    root = _copy_of_the_repository(builder, tmp_path / "repo")
    spec = SeededVector(4, 2)
    here = seeded.SeededCache(tmp_path / "c").path(spec)
    assert seeded.SeededCache(tmp_path / "c", root).path(spec) == here
    assert seeded.SeededCache(tmp_path / "c", root).path(SeededVector(4, 1)) != here
    with open(root / "reference" / "ntt_h.py", "a") as imported:  # reached from vectors/generate.py through imports
        imported.write("# an edit\n")
    assert seeded.SeededCache(tmp_path / "c", root).path(spec) != here
    monkeypatch.setattr(seeded, "_library_versions", lambda: ["python 3.11", "py_ecc 0.0.0"])
    assert seeded.SeededCache(tmp_path / "c").path(spec) != here


def test_the_cache_key_is_kept_by_a_change_to_the_gpu_prover_and_changed_by_one_to_seeded_py(tmp_path):
    """A kernel change must not rebuild the gate's vectors (conformance/seeded.py BUILDER_FILE): an edit to
    gpu/batch_add.py, which seeded.py reaches through the harness's imports, keeps the key; one to seeded.py changes it."""
    import conformance.seeded as seeded
    from conformance.sources import REPO_ROOT, import_closure

    harness = import_closure({REPO_ROOT / seeded.BUILDER_FILE})
    assert REPO_ROOT / "gpu" / "batch_add.py" in harness  # else this test no longer tests what it says
    root = _copy_of_the_repository(harness, tmp_path / "repo")
    spec = SeededVector(4, 2)
    here = seeded.SeededCache(tmp_path / "c", root).path(spec)
    with open(root / "gpu" / "batch_add.py", "a") as kernel_driver:
        kernel_driver.write("# an edit\n")
    assert seeded.SeededCache(tmp_path / "c", root).path(spec) == here
    with open(root / seeded.BUILDER_FILE, "a") as builder:
        builder.write("# an edit\n")
    assert seeded.SeededCache(tmp_path / "c", root).path(spec) != here


@pytest.mark.parametrize("content", [b"not a pickle", b"__KEY__"], ids=["unreadable", "another key"])
def test_a_cache_file_that_cannot_be_read_or_holds_another_key_is_set_aside_and_the_vector_built(content, tmp_path, capsys):
    import pickle

    from conformance.seeded import SeededCache

    path = SeededCache(tmp_path / "cache").path(parse_name(SMALL))
    if content == b"__KEY__":
        content = pickle.dumps({"key": "0" * 64, "build_seconds": 1.0, "vector": None})
    path.write_bytes(content)
    assert main(["run", SMALL, "--backends", "reference", "--seeded-cache", str(tmp_path / "cache"),
                 "--report", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    assert f"{SMALL}: the cache file {path} is set aside (" in err and f"{SMALL}: generated in " in err
    assert path.with_suffix(".unreadable").read_bytes() == content
    assert path.is_file() and _report(tmp_path / "r")["seeded_vectors"][0]["cache_load_seconds"] is None


def test_a_background_build_writes_the_cache_and_the_run_reads_it_from_there(tmp_path, capsys, monkeypatch):
    """The child writes the file and the run reads it back (one pickling, as the pipe would be); the next run starts
    no child for it."""
    import conformance.seeded as seeded

    monkeypatch.setattr(seeded, "BACKGROUND_MIN_LOG_N", 4)
    cache_dir = tmp_path / "cache"
    assert main(["run", SMALL, "--backends", "reference", "--seeded-cache", str(cache_dir), "--report", str(tmp_path / "a")]) == 0
    assert "in a background process" in capsys.readouterr().err
    [written] = list(cache_dir.iterdir())
    assert _report(tmp_path / "a")["seeded_vectors"][0]["cache_file"] == str(written)
    _never_built(monkeypatch)  # (a child would build in its own process: none must start)
    assert main(["run", SMALL, "--backends", "reference", "--seeded-cache", str(cache_dir), "--report", str(tmp_path / "b")]) == 0
    err = capsys.readouterr().err
    assert "in a background process" not in err and f"{SMALL}: read from the cache {written}" in err


def test_seeded_cache_fills_the_folder_ahead_and_says_what_it_holds(tmp_path, capsys):
    folder = tmp_path / "cache"
    names = [SMALL, "seeded:porep-log03"]
    assert run_main(main, ["seeded-cache", str(folder), *names, "--quiet"]) == 0
    assert capsys.readouterr().out == f"{folder} holds {SMALL}, seeded:porep-log03-c1\n"
    assert sorted(p.name.rsplit("-", 1)[0] for p in folder.iterdir()) == ["porep-log03-c1", "porep-log04-c2"]
    assert run_main(main, ["seeded-cache", str(folder), *names]) == 0
    assert f"{SMALL}: already in the cache, read back: " in capsys.readouterr().err


def test_seeded_cache_reads_back_what_it_says_it_holds(tmp_path, capsys):
    """An emptied cache file was 'already in the cache' and the folder 'held' it (only its name was looked at); the
    next run set it aside and built the vector (audit of 2026-12-07). It is read back, set aside and built again."""
    folder = tmp_path / "cache"
    assert run_main(main, ["seeded-cache", str(folder), SMALL, "--quiet"]) == 0
    [path] = list(folder.iterdir())
    path.write_bytes(b"")
    capsys.readouterr()
    assert run_main(main, ["seeded-cache", str(folder), SMALL]) == 0
    captured = capsys.readouterr()
    assert f"{SMALL}: the cache file {path} is set aside (" in captured.err and "already in the cache" not in captured.err
    assert captured.out == f"{folder} holds {SMALL}\n"
    assert path.with_suffix(".unreadable").read_bytes() == b"" and path.stat().st_size > 0


def test_seeded_cache_refuses_a_bad_name_or_folder_and_reports_a_failed_build(tmp_path, capsys, monkeypatch):
    assert run_main(main, ["seeded-cache", str(tmp_path), "vectors/data/porep-log05.json"]) == 2
    assert capsys.readouterr().err.startswith("error: vectors: 'vectors/data/porep-log05.json' is not a seeded:")
    (tmp_path / "file").write_text("")
    for command in (["seeded-cache", str(tmp_path / "file"), SMALL],
                    ["run", SMALL, "--backends", "reference", "--seeded-cache", str(tmp_path / "file"), "--report", str(tmp_path)]):
        assert run_main(main, command) == 2
        captured = capsys.readouterr()
        assert captured.err.startswith(f"error: --seeded-cache: cannot make the folder {tmp_path / 'file'}") and not captured.out
    assert run_main(main, ["seeded-cache", str(tmp_path / "c"), "seeded:porep-log21"]) == 2  # out of range: bad input
    # a build that fails (here a stand-in whose build raised) fails the command, naming the vector, and writes nothing
    import conformance.seeded as seeded

    monkeypatch.setattr(seeded, "BackgroundBuild", _FailingBuild)
    assert run_main(main, ["seeded-cache", str(tmp_path / "c"), SMALL, "--quiet"]) == 1
    assert f"failed: {SMALL}: generation failed after 2.0 s: RuntimeError: the generator broke" in capsys.readouterr().err
    assert not any((tmp_path / "c").iterdir())


class _FailingBuild:
    """A BackgroundBuild whose build raised (without a process: the failure path of fill_cache)."""

    def __init__(self, spec, say, cache=None):
        pass

    def outcome(self, say):
        from conformance.seeded import GenerationFailed

        raise GenerationFailed("RuntimeError: the generator broke", 2.0)

    def stop(self):
        pass
