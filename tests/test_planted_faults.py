"""Proof that the conformance suite can fail: each planted fault (conformance/faults.py, a bug a GPU
implementation could plausibly have) makes the suite fail, and the failure names the right phase
while every other phase still passes (isolated mode: one faulty phase does not cascade).

The faults wrap the reference backend or swap one function of reference/ while a phase runs; no
file is modified. Vectors: porep-log05 (bundled, 32-point domain) and ``repeated_bases_vector``
(built in memory: repeated key points, bitmaps longer than one 64-bit word).
"""
import functools
from pathlib import Path

import pytest

from conformance.__main__ import main
from conformance.faults import FAULTS, FaultyBackend, repeated_bases_vector, signed_digits_top_carry_dropped
from conformance.loading import load_cached
from conformance.phases import Problem
from conformance.runner import FAIL, PASS, check_vector
from conformance.backends.reference import ReferenceBackend
from reference.msm import num_windows, signed_digits
from vectors.bundled import DATA_DIR

BUNDLED_SMALL = DATA_DIR / "porep-log05.json"
REPEATED_BASES = "repeated-bases"
REPEAT = 2
"""Runs per phase, as the command line does by default: a fault that changes between runs is caught."""

CASES = [
    ("ntt-coset-generator-5", BUNDLED_SMALL, {"ntt_h": ("h", 0)}),
    ("ntt-drop-last-h", BUNDLED_SMALL, {"ntt_h": ("h", 30)}),
    ("msm-top-carry-dropped", BUNDLED_SMALL, {"msm_h": ("h", None)}),
    ("msm-bucket-no-doubling", REPEATED_BASES, {"tail_msm": ("l", None)}),
    ("batch-add-word-slip", REPEATED_BASES, {"batch_add": ("l", None)}),
    ("prep-word-slip", REPEATED_BASES, {"prep": ("l.bitmap", 64)}),
    ("assemble-r-s-swapped", BUNDLED_SMALL, {"assemble": ("proof.a", None)}),
    ("msm-racy", BUNDLED_SMALL, {"msm_h": ("h (run 2 vs run 1)", None)}),
]
"""(fault, vector, {phase that must fail: (query, index) of its first mismatch}). Each fault is a
plausible GPU bug; msm-racy changes from run to run and is caught by running each phase twice."""


@functools.lru_cache(maxsize=None)
def _problem(which) -> Problem:
    vector = repeated_bases_vector() if which == REPEATED_BASES else load_cached(which)
    return Problem.from_vector(vector)


def _failing(result, backend_name: str) -> dict:
    return {p.phase: p.backends[backend_name] for p in result.phases if p.backends[backend_name].status != PASS}


def test_every_fault_has_a_case():
    assert {name for name, _, _ in CASES} == set(FAULTS)


@pytest.mark.parametrize("which", [BUNDLED_SMALL, REPEATED_BASES], ids=["porep-log05", REPEATED_BASES])
def test_the_reference_passes_the_fault_vectors(which):
    """Without a fault the same vectors pass, so each failure below is the fault's."""
    result = check_vector(_problem(which), [ReferenceBackend()])
    assert _failing(result, "reference") == {}


@pytest.mark.parametrize(("fault", "which", "expected"), CASES, ids=[name for name, _, _ in CASES])
def test_planted_fault_fails_the_right_phase(fault, which, expected):
    backend = FaultyBackend(FAULTS[fault])
    result = check_vector(_problem(which), [backend], repeat=REPEAT)
    failing = _failing(result, backend.name)
    assert set(failing) == set(expected), {p: (r.status, r.message) for p, r in failing.items()}
    for phase, (query, index) in expected.items():
        outcome = failing[phase]
        assert outcome.status == FAIL
        assert (outcome.mismatch.phase, outcome.mismatch.circuit, outcome.mismatch.query, outcome.mismatch.index) == (phase, 0, query, index)
        assert outcome.mismatch.expected != outcome.mismatch.actual


def test_repeated_bases_vector_really_repeats_a_base_and_crosses_a_word():
    """The fault vector has what its faults need: L_0 == L_1 with equal tail scalars, and L bits 63 != 64."""
    from conformance.compare import point_text
    from reference.prep import bitmap_bits

    vector = _problem(REPEATED_BASES).vector
    assert point_text(vector.pk.l[0], "g1") == point_text(vector.pk.l[1], "g1")
    assert vector.expected_prep.l.tail_indices == (0, 1) and vector.expected_prep.l.split
    bits = bitmap_bits(vector.expected_prep.l.bitmaps[0], len(vector.pk.l))
    assert (bits[63], bits[64]) == (False, True)


def test_faults_leave_reference_untouched():
    """After a patching fault ran, reference.msm is the original again."""
    import reference.msm

    original = (reference.msm.signed_digits, reference.msm._window_sum)
    check_vector(_problem(BUNDLED_SMALL), [FaultyBackend(FAULTS["msm-top-carry-dropped"])], phases=("msm_h",))
    assert (reference.msm.signed_digits, reference.msm._window_sum) == original


def test_top_carry_fault_loses_exactly_the_carry_into_the_top_window():
    """c = 4: window 62 of 0xF * 2^248 is 15 > 8, so it becomes -1 and carries 1 into window 63 (2^252)."""
    c, scalar = 4, 0xF << 248
    top_window_weight = 1 << (c * (num_windows(c) - 1))

    def value(digits):
        return sum(d * (1 << (c * j)) for j, d in enumerate(digits))

    assert value(signed_digits(scalar, c)) == scalar
    assert value(signed_digits_top_carry_dropped(scalar, c)) == scalar - top_window_weight


def test_oracles_catch_faults_without_expected_values():
    """--oracle: the trapdoor sees the MSM fault, the h identity the NTT fault; the pairing check cannot
    see swapped blinding scalars (a valid proof with other randomness), which is why the expected
    values are the default judge."""
    problem = _problem(BUNDLED_SMALL)
    verdicts = {}
    for fault, phase in (("msm-top-carry-dropped", "msm_h"), ("ntt-coset-generator-5", "ntt_h"), ("assemble-r-s-swapped", "assemble")):
        backend = FaultyBackend(FAULTS[fault])
        result = check_vector(problem, [backend], phases=(phase,), prefer_oracle=True)
        verdicts[fault] = (result.phases[0].oracle, result.phases[0].backends[backend.name].status)
    assert verdicts == {
        "msm-top-carry-dropped": ("trapdoor", FAIL),
        "ntt-coset-generator-5": ("h-identity", FAIL),
        "assemble-r-s-swapped": ("pairing", PASS),
    }


def test_command_line_exits_1_and_names_the_phase(tmp_path, capsys):
    assert main(["run", str(BUNDLED_SMALL), "--backends", "fault:assemble-r-s-swapped", "--report", str(tmp_path), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "porep-log05 assemble [fault:assemble-r-s-swapped, judged by expected]: circuit 0, proof.a" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["faults", "--only", "gpu-msm-racy-bucket"], "error: --only: selects faults for --gpu-table"),
    (["faults", "--gpu-table", "t.md", "--only", ","], "error: --only: names no fault"),
    (["faults", "--gpu-table", "t.md", "--only", "gpu-nope"], "error: --only: unknown GPU fault 'gpu-nope'"),
])
def test_faults_only_is_refused_where_it_would_select_nothing(argv, message, capsys):
    """--only without --gpu-table was ignored (every fault listed), and an empty --only ran every fault."""
    from reference.cli import run_main

    assert run_main(main, argv) == 2
    assert capsys.readouterr().err.startswith(message)


# ------------------------------------------------------------------ faults in the GPU prover's own code


def test_every_gpu_fault_patch_applies_once_and_changes_the_code():
    """Each GPU fault's text occurs exactly once in its gpu/ file (else the patch would miss or be ambiguous)."""
    from conformance.faults import GPU_FAULTS, patch_text
    from conformance.sources import REPO_ROOT
    from reference.prover import PHASES

    assert {"gpu-assemble-r-s-swapped", "gpu-tail-index-off-by-one", "gpu-bitmap-bits-reversed", "gpu-ntt-twiddle-off-by-one",
            "gpu-ntt-half-table-sign", "gpu-ntt-h-product-misread", "gpu-coset-table-shifted", "gpu-madd-no-doubling", "gpu-montgomery-no-final-subtraction",
            "gpu-msm-racy-bucket"} == set(GPU_FAULTS)
    for fault in GPU_FAULTS.values():
        text = (REPO_ROOT / fault.path).read_text()
        assert fault.path.startswith("gpu/") and patch_text(text, fault) != text
        assert set(fault.phases) <= set(PHASES) and fault.phases and fault.vectors


def test_the_patched_copy_is_the_gpu_package_a_run_imports_and_the_repository_stays_clean():
    import os
    import subprocess
    import sys

    from conformance.faults import GPU_FAULTS, patched_gpu_tree
    from conformance.sources import REPO_ROOT

    fault = GPU_FAULTS["gpu-assemble-r-s-swapped"]
    before = (REPO_ROOT / fault.path).read_text()
    probe = "import gpu.assemble as m; print(m.__file__); print('(s % R, r % R)' in open(m.__file__).read())"
    with patched_gpu_tree(fault) as folder:
        env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
        where, patched = subprocess.run([sys.executable, "-c", probe], cwd=folder, env=env, capture_output=True, text=True,
                                        check=True).stdout.split()
        assert where.startswith(str(folder)) and patched == "True"
    assert (REPO_ROOT / fault.path).read_text() == before and not folder.exists()


def test_the_folder_a_fault_runs_from_fingerprints_as_the_code_it_holds():
    """The folder is the whole tree a run there imports: the clean copy's fingerprint equals the repository's, file
    for file, and a fault's differs in the patched file only, so a fault run's report names the code that ran."""
    from conformance.faults import GPU_FAULTS, patched_gpu_tree
    from conformance.fingerprint import compare_fingerprints
    from conformance.sources import fingerprint

    with patched_gpu_tree(None) as folder:
        assert fingerprint(folder) == fingerprint()
    fault = GPU_FAULTS["gpu-ntt-twiddle-off-by-one"]
    with patched_gpu_tree(fault) as folder:
        changes = compare_fingerprints(fingerprint(), fingerprint(folder))
    assert (changes.changed, changes.added, changes.removed) == ([fault.path], [], [])


def test_a_run_from_a_patched_copy_records_the_copy_and_cannot_record_the_gate(tmp_path):
    """`conformance run` fingerprints the gpu/ that Python imports, not the repository's by assumption; from a copy it
    says so, and it refuses --record-gate (exit 2) there: the gate vouches for the repository's gpu/."""
    import json
    import os
    import subprocess
    import sys

    from conformance.faults import GPU_FAULTS, patched_gpu_tree
    from conformance.fingerprint import is_repository_root
    from conformance.sources import REPO_ROOT, fingerprint, imported_gpu_root
    from vectors.bundled import DATA_DIR

    assert is_repository_root(imported_gpu_root())  # this process: the repository's own
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    with patched_gpu_tree(GPU_FAULTS["gpu-assemble-r-s-swapped"]) as folder:
        run = [sys.executable, "-m", "conformance", "run", "--quiet"]
        done = subprocess.run([*run, str(DATA_DIR / "porep-log03.json"), "--backends", "reference", "--report",
                               str(tmp_path / "report")], cwd=folder, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert "the GPU prover is imported from" in done.stderr
        document = json.loads((tmp_path / "report" / "report.json").read_text())
        recorded = document["gpu_fingerprint"]
        assert recorded == fingerprint(folder) and recorded["sha256"] != fingerprint()["sha256"]
        assert document["timings"]["environment"]["gpu_sources"] == recorded["sha256"], "the timings name the copy too"
        refused = subprocess.run([*run, "--record-gate"], cwd=folder, env=env, capture_output=True, text=True)
    assert refused.returncode == 2 and "--record-gate: " in refused.stderr
    assert f"the GPU prover must be this repository's {REPO_ROOT / 'gpu'}" in refused.stderr


def test_coverage_from_a_patched_copy_records_the_copy(tmp_path):
    """--coverage measures the gpu/ that runs: from a fault's folder, the copy's lines (the repository's own gpu/ does
    not run there: measuring it would report none run)."""
    pytest.importorskip("coverage")
    import json
    import os
    import subprocess
    import sys

    from conformance.faults import patched_gpu_tree
    from conformance.sources import REPO_ROOT
    from vectors.bundled import DATA_DIR

    with patched_gpu_tree(None) as folder:
        done = subprocess.run([sys.executable, "-m", "conformance", "run", str(DATA_DIR / "porep-log03.json"),
                               "--backends", "reference", "--phases", "ntt_h", "--coverage", "--report",
                               str(tmp_path), "--quiet"], cwd=folder, env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
                              capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = json.loads((tmp_path / "report.json").read_text())["coverage"]["lines"]
    assert lines["files"]["gpu/device.py"]["run"] > 0  # imported after the record started, from the copy


def test_gpu_fault_table_names_the_first_failing_phase_and_judges_each_row():
    from conformance.faults import FaultRow, _first_gpu_failure, gpu_fault_table

    document = {"vectors": [
        {"id": "a", "phases": [{"phase": "evaluate", "backends": {"gpu": {"status": "pass"}}}]},
        {"id": "b", "phases": [{"phase": "assemble", "backends": {"gpu": {"status": "fail", "mismatch": {"phase": "assemble", "circuit": 0, "query": "proof.a", "index": None, "expected": "e", "actual": "g"}}}},
                               {"phase": "ntt_h", "backends": {"gpu": {"status": "fail", "mismatch": {"phase": "ntt_h", "circuit": 1, "query": "h", "index": 3, "expected": "e", "actual": "g"}}}}]},
    ]}
    assert _first_gpu_failure(document) == ("ntt_h", "b: circuit 1, h[3]")
    # a repeated run that failed is no circuit's difference (conformance/runner.py _prover_drift): no "circuit None"
    failed_run = {"phase": "msm_h", "circuit": None, "query": "run 2 (one circuit at a time)", "index": None,
                  "expected": "an output", "actual": "CudaError"}
    document = {"vectors": [{"id": "c", "phases": [{"phase": "msm_h", "backends": {"gpu": {"status": "fail", "mismatch": failed_run}}}]}]}
    assert _first_gpu_failure(document) == ("msm_h", "c: run 2 (one circuit at a time): CudaError")
    # a phase that raised (status "error", a message and no mismatch) is a failure too, named with its message
    document = {"vectors": [{"id": "d", "phases": [
        {"phase": "evaluate", "backends": {"gpu": {"status": "pass"}}},
        {"phase": "ntt_h", "backends": {"gpu": {"status": "error", "message": "CUDARuntimeError: illegal address"}}},
        {"phase": "msm_h", "backends": {"gpu": {"status": "fail", "mismatch": {"phase": "msm_h", "circuit": 0, "query": "h", "index": None, "expected": "e", "actual": "g"}}}}]}]}
    assert _first_gpu_failure(document) == ("ntt_h", "d: CUDARuntimeError: illegal address")
    rows = [FaultRow("f", ("ntt_h",), "v", True, "ntt_h", ""), FaultRow("g", ("msm_h",), "v", True, "tail_msm", ""),
            FaultRow("none (clean copy)", (), "v", False, None, ""), FaultRow("race", ("msm_h", "tail_msm"), "v", True, "tail_msm", ""),
            FaultRow("race", ("msm_h", "tail_msm"), "v", True, "evaluate", ""), FaultRow("h", ("ntt_h",), "v", False, None, ""),
            FaultRow("none (clean copy)", (), "v", True, "ntt_h", "")]  # the clean copy failing the gate: not ok
    assert [row.ok for row in rows] == [True, False, True, True, False, False, False]
    assert "| g | v | yes | tail_msm | msm_h | **NO** |" in gpu_fault_table(rows, "test device")


def _expected_row(fault):
    """The FaultRow of a run that went as expected: the clean copy not caught, a fault caught in its first phase."""
    from conformance import faults

    name = fault.name if fault else "none (clean copy)"
    return faults.FaultRow(name, fault.phases if fault else (), "v", fault is not None, fault.phases[0] if fault else None, "")


def test_gpu_fault_table_is_written_after_each_run_and_keeps_the_reports(tmp_path, monkeypatch):
    """A run cut off after its first fault (a device call's time limit) leaves the table of what was measured, marked
    incomplete, and each run's report beside it; a whole run leaves the table unmarked."""
    from conformance import faults

    seen = []

    def fake_run(fault, work, say=lambda m: None):
        if len(seen) == 2:
            raise KeyboardInterrupt  # the call's time limit
        seen.append(work)
        (work / "report.json").write_text("{}")
        return _expected_row(fault)

    monkeypatch.setattr(faults, "run_gpu_fault", fake_run)
    monkeypatch.setattr(faults, "_device_name", lambda: "test device")
    table = tmp_path / "faults-gpu.md"
    names = ["gpu-assemble-r-s-swapped", "gpu-tail-index-off-by-one"]
    with pytest.raises(KeyboardInterrupt):
        faults.write_gpu_fault_table(table, names)
    text = table.read_text()
    assert "| gpu-assemble-r-s-swapped | v | yes | assemble | assemble | yes |" in text
    assert "**Incomplete**: 2 of 3 runs done; still to come: gpu-tail-index-off-by-one." in text
    assert seen[0] == tmp_path / "faults-gpu-reports" and (seen[0] / "report.json").exists()
    seen.clear()
    monkeypatch.setattr(faults, "run_gpu_fault", lambda fault, work, say=None: faults.FaultRow(
        fault.name if fault else "clean", fault.phases if fault else (), "v", fault is not None, fault.phases[0] if fault else None, ""))
    assert faults.write_gpu_fault_table(table, names) is True
    assert "Incomplete" not in table.read_text() and "| gpu-tail-index-off-by-one |" in table.read_text()


@pytest.mark.parametrize("exit_status", [1, 3, 137])
def test_a_fault_run_without_a_fresh_report_is_never_as_expected(tmp_path, monkeypatch, exit_status):
    """The clean copy crashing (exit 3, 137) or dying with a traceback (exit 1, no report written) is no verdict:
    the row is not ok, even where 'not caught' is what the clean copy should give; a report.json left by an earlier
    table run in the same folder is not read in its place."""
    import subprocess
    import types

    from conformance import faults

    stale = tmp_path / "none"
    stale.mkdir()
    (stale / "report.json").write_text('{"vectors": []}')

    def fake_run(command, cwd, env, capture_output, text):
        if command[1] == "-c":  # which gpu/ the copy imports
            return types.SimpleNamespace(stdout=f"{cwd}/gpu/__init__.py\n", returncode=0, stderr="")
        return types.SimpleNamespace(stdout="", returncode=exit_status, stderr="Traceback ... CUDARuntimeError")

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(faults, "_vector_arguments", lambda vectors, work: ["v.json"])
    row = faults.run_gpu_fault(None, tmp_path)
    assert row.crashed and not row.ok and not (stale / "report.json").exists()
    assert row.detail.startswith(f"exit {exit_status}, no verdict: ")
    assert (stale / faults.STDERR_FILE).read_text() == "Traceback ... CUDARuntimeError"  # kept whole


@pytest.mark.parametrize("exit_status", [2, 3, 137, -11])
def test_a_fault_run_that_wrote_its_report_and_then_crashed_is_no_verdict(tmp_path, monkeypatch, exit_status):
    """A run that wrote a fresh report.json (every phase passing) and then ended with a status other than 0 or 1 (a
    crash in the device's tear-down, the out-of-memory killer) is no verdict either: the clean copy's row is not ok.
    (The test above writes no report, so it held with the exit-status check removed.)"""
    import json
    import subprocess
    import types

    from conformance import faults

    def fake_run(command, cwd, env, capture_output, text):
        if command[1] == "-c":  # which gpu/ the copy imports
            return types.SimpleNamespace(stdout=f"{cwd}/gpu/__init__.py\n", returncode=0, stderr="")
        report = Path(command[command.index("--report") + 1])
        report.mkdir(parents=True, exist_ok=True)
        (report / "report.json").write_text(json.dumps({"vectors": [{"id": "v", "phases": [
            {"phase": "evaluate", "backends": {"gpu": {"status": "pass"}}}]}]}))
        return types.SimpleNamespace(stdout="", returncode=exit_status, stderr="Segmentation fault")

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(faults, "_vector_arguments", lambda vectors, work: ["v.json"])
    row = faults.run_gpu_fault(None, tmp_path)
    assert (tmp_path / "none" / "report.json").exists()  # the report was there: only the exit status tells
    assert row.crashed and not row.ok and row.detail.startswith(f"exit {exit_status}, no verdict: ")


def test_a_fault_run_given_relative_paths_hands_its_subprocess_absolute_ones(tmp_path, monkeypatch):
    """The run's working directory is the temporary copy of gpu/: a relative table folder made the repeated-bases
    vector and the report land there, and every row read 'no verdict' (found on the H200, 2026-12-04)."""
    import subprocess
    import types

    from conformance import faults

    commands = []

    def fake_run(command, cwd, env, capture_output, text):
        if command[1] == "-c":
            return types.SimpleNamespace(stdout=f"{cwd}/gpu/__init__.py\n", returncode=0, stderr="")
        commands.append(command)
        return types.SimpleNamespace(stdout="", returncode=1, stderr="")

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(faults, "repeated_bases_vector", lambda: None)
    monkeypatch.setattr("vectors.format.write_vector", lambda vector, path: Path(path).write_text("{}"))
    monkeypatch.chdir(tmp_path)
    Path("reports").mkdir()  # (the table's writer makes it)
    faults.run_gpu_fault(None, Path("reports"))
    command = commands[0]
    paths = [command[command.index("--report") + 1]] + [a for a in command if a.endswith(".json")]
    assert len(paths) == 3 and all(Path(p).is_absolute() for p in paths), paths
    assert Path(paths[0]) == tmp_path / "reports" / "none"


def test_gpu_fault_table_runs_jobs_at_once_and_keeps_the_faults_order(tmp_path, monkeypatch):
    """--jobs 3: the three runs are under way together (a barrier that only three runs at once pass; one after another
    it breaks), and the table lists them in the faults' order, whatever order they finish in."""
    import threading
    import time

    from conformance import faults

    together = threading.Barrier(3, timeout=10)

    def fake_run(fault, work, say=lambda m: None):
        together.wait()
        time.sleep(0.2 if fault is None else 0)  # the clean copy finishes last
        return _expected_row(fault)

    monkeypatch.setattr(faults, "run_gpu_fault", fake_run)
    monkeypatch.setattr(faults, "_device_name", lambda: "test device")
    table = tmp_path / "faults-gpu.md"
    assert faults.write_gpu_fault_table(table, ["gpu-assemble-r-s-swapped", "gpu-tail-index-off-by-one"], jobs=3) is True
    text = table.read_text()
    rows = [line.split(" | ")[0] for line in text.splitlines() if line.startswith("| ") and " | v | " in line]
    assert rows == ["| none (clean copy)", "| gpu-assemble-r-s-swapped", "| gpu-tail-index-off-by-one"]
    assert "Incomplete" not in text
    from conformance.sources import fingerprint

    clean_tree = fingerprint()["sha256"][:12]  # the gate's digest of the repository's gpu/, which this process imports
    assert f", GPU sources {clean_tree}, with `python -m conformance faults" in text, text[:400]


def test_faults_jobs_is_bad_input_below_one_or_without_the_table(capsys):
    from conformance.__main__ import main
    from reference.cli import run_main

    assert run_main(main, ["faults", "--gpu-table", "t.md", "--jobs", "0"]) == 2
    assert capsys.readouterr().err.startswith("error: --jobs: must be at least 1, got 0")
    assert run_main(main, ["faults", "--jobs", "2"]) == 2
    assert capsys.readouterr().err.startswith("error: --jobs: sets how many --gpu-table runs go at once")
