"""The CI gate for machines without a GPU: gpu/ must not change after the last passing GPU
conformance report committed under conformance/reports/ (see conformance/fingerprint.py).

test_committed_gpu_report_covers_gpu_sources is the gate itself. The other tests check the gate's
logic on a throw-away tree, with fingerprints recomputed here by hand.
"""
import hashlib
import json

import pytest

from conformance.fingerprint import (
    GATE_REPORT,
    INVALID,
    NO_REPORT,
    REFRESH_COMMAND,
    STALE,
    UP_TO_DATE,
    gate_verdict,
)
from conformance.sources import fingerprint
from reference.errors import InvalidInputError
from vectors.bundled import DATA_DIR


def test_committed_gpu_report_covers_gpu_sources():
    verdict = gate_verdict()
    assert verdict.passed, verdict.message


def test_a_timing_record_names_the_digest_of_the_gpu_sources_on_disk():
    """timing.environment's gpu_sources is the sha256 a gate report records, recomputed here from the files' bytes;
    code_label prints its first 12 hex digits beside the commit."""
    from conformance.sources import REPO_ROOT, gpu_source_files
    from conformance.timing import code_label, environment

    lines = "".join(f"{p.relative_to(REPO_ROOT).as_posix()} {hashlib.sha256(p.read_bytes()).hexdigest()}\n"
                    for p in gpu_source_files())
    env = environment(with_gpu=False)
    assert env["gpu_sources"] == hashlib.sha256(lines.encode()).hexdigest()
    assert code_label(env) == f"commit {env['commit'] or 'unknown'}, GPU sources {env['gpu_sources'][:12]}"
    assert code_label({}) == "commit unknown, GPU sources unknown"


@pytest.mark.parametrize("failure", [InvalidInputError("gpu/msm.py", "does not parse"), OSError("unreadable"),
                                     ValueError("null byte")])
def test_sources_that_cannot_be_read_leave_the_record_without_a_digest_not_the_run_without_a_record(monkeypatch,
                                                                                                   failure):
    import conformance.timing as timing

    def broken(root):
        raise failure

    monkeypatch.setattr(timing, "fingerprint", broken)
    env = timing.environment(with_gpu=False)
    assert env["gpu_sources"] is None and env["python"]
    assert timing.code_label(env).endswith("GPU sources unknown")
    assert timing.environment(with_gpu=False, sources="a" * 64)["gpu_sources"] == "a" * 64  # a digest taken before


def test_a_timing_record_names_the_sources_of_the_gpu_this_process_imports(tree, monkeypatch):
    """A run from another tree's gpu/ (a planted fault's patched copy) measures that code: gpu_sources is its
    fingerprint, not the repository's."""
    import conformance.timing as timing

    monkeypatch.setattr(timing, "imported_gpu_root", lambda: tree)
    assert timing.gpu_sources() == fingerprint(tree)["sha256"] != fingerprint()["sha256"]


def test_a_source_that_does_not_parse_is_refused_by_name_not_a_traceback(tree, monkeypatch, capsys):
    """Its imports, hence the fingerprint, are unknown: fingerprint refuses it naming the file and line; `gate` and
    `run` then end in one error line and exit 2; a timing record goes without the digest."""
    import conformance.__main__ as cli
    import conformance.timing as timing
    from reference.cli import run_main

    _write_report(tree, fingerprint(tree))
    (tree / "gpu" / "msm.py").write_text("def msm(:\n")
    with pytest.raises(InvalidInputError, match=r"^gpu/msm.py: does not parse as Python: .*\(line 1\)"):
        fingerprint(tree)
    monkeypatch.setattr(cli, "REPO_ROOT", tree)
    assert run_main(cli.main, ["gate"]) == 2
    assert capsys.readouterr().err.startswith("error: gpu/msm.py: does not parse as Python")
    monkeypatch.setattr(cli, "imported_gpu_root", lambda: tree)
    assert run_main(cli.main, ["run", "--backends", "reference", "--phases", "evaluate", str(DATA_DIR / "porep-log02.json")]) == 2
    captured = capsys.readouterr()
    assert "error: gpu/msm.py: does not parse as Python" in captured.err and "Traceback" not in captured.err
    monkeypatch.setattr(timing, "imported_gpu_root", lambda: tree)
    assert timing.gpu_sources() is None


def test_naming_the_sources_draws_only_their_finder_into_the_fingerprint():
    """The GPU prover imports conformance/timing.py, which imports conformance/sources.py: that module, and no module of
    the gate's harness (which CI tests), joins the fingerprint; sources.py imports nothing of the repository's but the
    error type."""
    from conformance.sources import REPO_ROOT, _imported_names, _module_file, gpu_source_files

    files = {p.relative_to(REPO_ROOT).as_posix() for p in gpu_source_files()}
    assert {"conformance/timing.py", "conformance/sources.py"} <= files
    assert not files & {"conformance/fingerprint.py", "conformance/runner.py", "conformance/compare.py",
                        "conformance/compare_timings.py"}
    sources = REPO_ROOT / "conformance" / "sources.py"
    ours = {name for name in _imported_names(sources, REPO_ROOT) if _module_file(name, REPO_ROOT)}
    assert ours == {"reference", "reference.errors"}


@pytest.fixture
def tree(tmp_path):
    """A repository with gpu/ sources, a cache and a non-source file."""
    (tmp_path / "gpu" / "kernels").mkdir(parents=True)
    (tmp_path / "gpu" / "__pycache__").mkdir()
    (tmp_path / "gpu" / "msm.py").write_text("def msm(): pass\n")
    (tmp_path / "gpu" / "kernels" / "msm.cu").write_text("// kernel\n")
    (tmp_path / "gpu" / "kernels" / "ec.cuh").write_text("// header\n")
    (tmp_path / "gpu" / "__pycache__" / "msm.cpython-311.pyc").write_bytes(b"\0cache")
    (tmp_path / "gpu" / "notes.txt").write_text("not a source\n")
    return tmp_path


def _gate_scope() -> list[dict]:
    """The vector entries of a full --record-gate run: every bundled vector and seeded gate vector in isolated and
    prover mode, every generated case in prover mode (named as the runner names them)."""
    from conformance.generated import GENERATED_CASES
    from conformance.seeded import GATE_VECTORS
    from vectors.bundled import bundled_paths

    from reference.prover import PHASES

    def gpu(skip, mode):  # the timing evidence a --record-gate run writes: isolated mode repeats every GPU phase
        if skip:
            return {"status": "skipped", "seconds": None, "run_seconds": None}
        return {"status": "pass", "seconds": 0.5, "run_seconds": [0.9, 0.5] if mode == "isolated" else None}

    def entry(name, mode, skipped=()):
        phases = [{"phase": p, "backends": {"gpu": gpu(p in skipped, mode)}} for p in PHASES]
        return {"id": name, "mode": mode, "phases": phases}

    entries = [entry(p.stem, "isolated") for p in bundled_paths()]
    entries += [entry(f"{p.stem} [prover]", "prover") for p in bundled_paths()]
    entries += [entry(v.label, "isolated") for v in GATE_VECTORS] + [entry(f"{v.label} [prover]", "prover") for v in GATE_VECTORS]
    return entries + [entry(f"generated:{name} [prover]", "prover", ("evaluate", "prep")) for name in GENERATED_CASES]


def _seeded_records() -> list[dict]:
    """The seeded_vectors records of a full --record-gate run (the keys the gate reads; conformance/seeded.py _record)."""
    from conformance.seeded import GATE_VECTORS, SEED

    return [{"id": v.label, "seed": SEED, "shape": "porep", "log_n": v.log_n, "circuits": v.circuits,
             "generation_seconds": 1.0, "error": None} for v in GATE_VECTORS]


def _write_report(root, fp, result="pass", gpu_available=True, vectors=None, coverage=True, seeded=None, oracle=(False, None)):
    path = root / GATE_REPORT
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "schema": "groth16-conformance-report",
        "created": "2026-01-01T00:00:00+00:00",
        "result": result,
        "oracle_requested": oracle[0],
        "oracle_library": oracle[1],
        "backends": {"gpu": {"available": gpu_available, "device": {"name": "NVIDIA H200"}}},
        "gpu_fingerprint": fp,
        "vectors": _gate_scope() if vectors is None else vectors,
        "seeded_vectors": _seeded_records() if seeded is None else seeded,
    }
    document["summary"] = _summary(document)
    if coverage:
        document["coverage"] = {"kernels": {"defined": 1, "launched": ["msm.cu:msm"], "never_launched": {}}, "lines": {}}
    path.write_text(json.dumps(document))


def _summary(document) -> dict:
    """The summary a run writes for these entries, counted here by hand: {backend: {status: count}}."""
    statuses = ("pass", "fail", "error", "not implemented", "skipped", "unavailable")
    counts = {name: dict.fromkeys(statuses, 0) for name in document["backends"]}
    for v in document["vectors"]:
        for p in v["phases"] if isinstance(v.get("phases"), list) else []:
            for name, r in p.get("backends", {}).items() if isinstance(p, dict) else []:
                if r.get("status") in statuses:
                    counts.setdefault(name, dict.fromkeys(statuses, 0))[r["status"]] += 1
    return counts


def _edit_report(root, edit) -> None:
    path = root / GATE_REPORT
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document))


def test_fingerprint_hashes_exactly_the_gpu_sources(tree):
    def sha(path):
        return hashlib.sha256((tree / path).read_bytes()).hexdigest()

    paths = ["gpu/kernels/ec.cuh", "gpu/kernels/msm.cu", "gpu/msm.py"]
    combined = hashlib.sha256("".join(f"{p} {sha(p)}\n" for p in paths).encode()).hexdigest()
    assert fingerprint(tree) == {"sha256": combined, "files": {p: sha(p) for p in paths}}


def test_the_bundled_vectors_and_the_gpu_only_cases_are_fingerprinted(tree):
    """A gate report names the bundled vectors by id, and the generated cases are built and judged only on a GPU
    (conformance/generated.py run_case_on_gpu, circuits from vectors/porep_arrays.py): a vector edited under its name,
    or either file edited, left `gate` saying up to date on a GPU run that never saw them."""
    data = tree / "vectors" / "data"
    data.mkdir(parents=True)
    (data / "v.json").write_text("{}")
    (data / "v.a.bin").write_bytes(b"\0")
    (tree / "conformance").mkdir()
    (tree / "conformance" / "generated.py").write_text("CASES = 1\n")
    (tree / "vectors" / "porep_arrays.py").write_text("ROWS = 1\n")
    before = fingerprint(tree)
    assert {"vectors/data/v.json", "vectors/data/v.a.bin", "conformance/generated.py", "vectors/porep_arrays.py"} <= set(before["files"])
    (data / "v.a.bin").write_bytes(b"\1")  # a sidecar changed under the same vector id
    assert fingerprint(tree)["sha256"] != before["sha256"]
    real = fingerprint()["files"]
    assert {"vectors/data/porep-log01.json", "vectors/data/sidecar-log08.h.bin", "conformance/generated.py"} <= set(real)


def test_hidden_files_beside_the_bundled_vectors_are_not_fingerprinted(tree):
    """Only the vectors' documents and sidecars count: a desktop's .DS_Store or a writer's interrupted temporary made
    the gate stale."""
    data = tree / "vectors" / "data"
    data.mkdir(parents=True)
    (data / "v.json").write_text("{}")
    before = fingerprint(tree)
    (data / ".DS_Store").write_bytes(b"\0")
    (data / ".v.json.abc123.old").write_text("{}")
    (data / "notes.txt").write_text("not a vector")
    assert fingerprint(tree) == before


def test_fingerprint_follows_the_gpu_imports_into_the_repository(tree):
    """Modules gpu/ imports (absolute, relative, inside a function, a submodule named in from-import), their
    packages' __init__.py and what those import in turn are covered; an unimported module and non-repository
    modules are not."""
    (tree / "gpu" / "__init__.py").write_text("")
    (tree / "gpu" / "points.py").write_text("X = 1\n")
    (tree / "gpu" / "msm.py").write_text("import numpy\nfrom .points import X\nfrom reference import field\n"
                                        "def f():\n    import vectors.porep\n")
    (tree / "reference").mkdir()
    (tree / "reference" / "__init__.py").write_text("")
    (tree / "reference" / "field.py").write_text("from reference.errors import E\n")
    (tree / "reference" / "errors.py").write_text("E = 1\n")
    (tree / "reference" / "unused.py").write_text("U = 1\n")
    (tree / "vectors").mkdir()
    (tree / "vectors" / "porep.py").write_text("P = 1\n")
    assert sorted(fingerprint(tree)["files"]) == [
        "gpu/__init__.py", "gpu/kernels/ec.cuh", "gpu/kernels/msm.cu", "gpu/msm.py", "gpu/points.py",
        "reference/__init__.py", "reference/errors.py", "reference/field.py", "vectors/porep.py",
    ]
    _write_report(tree, fingerprint(tree))
    (tree / "reference" / "errors.py").write_text("E = 2\n")
    (tree / "reference" / "unused.py").write_text("U = 2\n")
    verdict = gate_verdict(tree)
    assert verdict.state == STALE and verdict.changes.changed == ["reference/errors.py"]


def test_no_report_is_its_own_state_with_the_refresh_command_and_not_a_pass(tree, monkeypatch, capsys):
    import conformance.__main__ as cli
    from reference.cli import run_main

    verdict = gate_verdict(tree)
    assert verdict.state == NO_REPORT and not verdict.passed
    assert "no committed GPU conformance report yet" in verdict.message and REFRESH_COMMAND in verdict.message
    monkeypatch.setattr(cli, "REPO_ROOT", tree)
    assert run_main(cli.main, ["gate"]) == 1 and capsys.readouterr().out.startswith("no report: ")


def test_a_named_report_file_that_is_missing_is_bad_input_and_a_folder_is_invalid(tree, capsys):
    """Only the default report may be absent (the 'no report' verdict, exit 1): a --report-file that names nothing
    is bad input. A folder in the report's place is an invalid report, not a traceback."""
    from conformance.__main__ import main
    from reference.cli import run_main

    assert run_main(main, ["gate", "--report-file", str(tree / "none.json")]) == 2
    assert capsys.readouterr().err.startswith(f"error: --report-file: {tree / 'none.json'} does not exist")
    (tree / GATE_REPORT).mkdir(parents=True)
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and "the report is not a regular file" in verdict.message


def test_the_gpu_adapter_is_fingerprinted_without_its_imports(tree):
    """conformance/backends/gpu.py runs only on a GPU, so editing it makes the gate stale, as a gpu/ edit does; the
    harness it imports runs in CI and is not fingerprinted."""
    (tree / "conformance" / "backends").mkdir(parents=True)
    (tree / "conformance" / "__init__.py").write_text("")
    (tree / "conformance" / "phases.py").write_text("P = 1\n")
    (tree / "conformance" / "backends" / "__init__.py").write_text("")
    (tree / "conformance" / "backends" / "gpu.py").write_text("from ..phases import P\n")
    assert sorted(fingerprint(tree)["files"]) == [
        "conformance/backends/gpu.py", "gpu/kernels/ec.cuh", "gpu/kernels/msm.cu", "gpu/msm.py"]
    _write_report(tree, fingerprint(tree))
    (tree / "conformance" / "phases.py").write_text("P = 2\n")
    assert gate_verdict(tree).state == UP_TO_DATE
    (tree / "conformance" / "backends" / "gpu.py").write_text("from ..phases import P  # edited\n")
    verdict = gate_verdict(tree)
    assert verdict.state == STALE and verdict.changes.changed == ["conformance/backends/gpu.py"]
    assert "changed: conformance/backends/gpu.py" in verdict.message


def test_unchanged_sources_pass(tree):
    _write_report(tree, fingerprint(tree))
    (tree / "gpu" / "__pycache__" / "msm.cpython-311.pyc").write_bytes(b"\0other cache")
    (tree / "gpu" / "notes.txt").write_text("edited, but not a source\n")
    verdict = gate_verdict(tree)
    assert verdict.state == UP_TO_DATE and "NVIDIA H200" in verdict.message


def test_changed_added_and_removed_files_are_named_with_the_refresh_command(tree):
    _write_report(tree, fingerprint(tree))
    (tree / "gpu" / "kernels" / "msm.cu").write_text("// kernel, edited\n")
    (tree / "gpu" / "ntt.py").write_text("# new\n")
    (tree / "gpu" / "kernels" / "ec.cuh").unlink()
    verdict = gate_verdict(tree)
    assert verdict.state == STALE and not verdict.passed
    assert (verdict.changes.changed, verdict.changes.added, verdict.changes.removed) == (
        ["gpu/kernels/msm.cu"], ["gpu/ntt.py"], ["gpu/kernels/ec.cuh"],
    )
    assert "changed: gpu/kernels/msm.cu; added: gpu/ntt.py; removed: gpu/kernels/ec.cuh" in verdict.message
    assert REFRESH_COMMAND in verdict.message


@pytest.mark.parametrize(("result", "gpu_available", "problem"), [("fail", True, "result is 'fail'"), ("pass", False, "GPU backend did not run")])
def test_a_report_that_is_not_a_passing_gpu_run_is_invalid(tree, result, gpu_available, problem):
    _write_report(tree, fingerprint(tree), result=result, gpu_available=gpu_available)
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and problem in verdict.message


@pytest.mark.parametrize("field", ["created", "backends.gpu.device.name"])
@pytest.mark.parametrize("text", ["2026-12-06\nup to date: forged", "NVIDIA\x1b[2K", 7])
def test_a_report_whose_printed_text_is_not_one_line_is_invalid(tree, field, text):
    """The gate prints the report's creation time and GPU name in its verdict line: a line break in either (found by
    session 44's hostile-input audit) printed a second, forged line; an escape could erase one."""
    _write_report(tree, fingerprint(tree))
    path = tree / GATE_REPORT
    document = json.loads(path.read_text())
    if field == "created":
        document["created"] = text
    else:
        document["backends"]["gpu"]["device"]["name"] = text
    path.write_text(json.dumps(document))
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and f"its {field} is not one line of printable text" in verdict.message
    assert "\n" not in verdict.message


@pytest.mark.parametrize("oracle", [(True, None), (False, "arkworks"), (None, None)])
def test_a_passing_report_not_judged_by_the_expected_values_is_invalid(tree, oracle):
    """--oracle judges the proofs by the pairing check alone (r and s swapped pass it), --oracle-library the MSMs by
    another library: such a run vouches for less than the vectors' expected values, and a report that does not say
    how it judged (null) vouches for nothing."""
    _write_report(tree, fingerprint(tree), oracle=oracle)
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and "not judged by the vectors' expected values" in verdict.message, verdict.message


@pytest.mark.parametrize(("drop", "problem"), [
    ("porep-log05 [prover]", "did not check porep-log05 (prover)"),
    ("porep-log05", "did not check porep-log05 (isolated)"),
    ("edge-zero-coefficients [prover]", "did not check edge-zero-coefficients (prover)"),
    ("generated:porep-log16 [prover]", "did not check generated:porep-log16 (prover)"),
    ("seeded:porep-log16-c2", "did not check seeded:porep-log16-c2 (isolated)"),
    ("seeded:porep-log20-c1 [prover]", "did not check seeded:porep-log20-c1 (prover)"),
])
def test_a_passing_report_that_did_not_check_the_whole_gate_is_invalid(tree, drop, problem):
    _write_report(tree, fingerprint(tree), vectors=[v for v in _gate_scope() if v["id"] != drop])
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and problem in verdict.message


@pytest.mark.parametrize(("vector", "phase", "status"), [
    ("porep-log05", "msm_h", "not implemented"), ("edge-scalars [prover]", "prep", "skipped"),
    ("generated:porep-log11 [prover]", "ntt_h", "skipped"), ("porep-log01", "assemble", None),
    ("seeded:porep-log20-c1", "evaluate", "skipped"), ("seeded:porep-log16-c2 [prover]", "prep", "skipped"),
])
def test_a_passing_report_whose_gpu_did_not_pass_every_phase_is_invalid(tree, vector, phase, status):
    """'pass' overall allows not implemented, skipped, unavailable; the gate allows only the generated cases'
    unjudged evaluate and prep to be skipped."""
    vectors = _gate_scope()
    target = next(p for v in vectors if v["id"] == vector for p in v["phases"] if p["phase"] == phase)
    if status is None:
        del target["backends"]["gpu"]
    else:
        target["backends"]["gpu"]["status"] = status
    _write_report(tree, fingerprint(tree), vectors=vectors)
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and f"the GPU did not pass {phase} of {vector} ({status or 'not run'})" in verdict.message


def test_the_gate_scope_includes_a_2_16_and_a_2_20_seeded_vector_reaching_c16_and_two_pass_ntt():
    """The issue's requirement, from gpu/'s own planners: exact-value vectors at 2^16 and 2^20, whose NTT takes more than
    one pass, and one of them (2^20) whose H query takes the c = 16 windows (neither is reached by any bundled
    vector; 2^16's H query takes c = 10 under gpu/msm.py's bucket cost)."""
    from conformance.seeded import GATE_VECTORS
    from gpu.msm import kernel_window_bits
    from gpu.ntt import plan_passes

    assert {v.log_n for v in GATE_VECTORS} >= {16, 20}
    assert all(len(plan_passes(v.log_n)) >= 2 for v in GATE_VECTORS)
    assert any(kernel_window_bits((1 << v.log_n) - 1) == 16 for v in GATE_VECTORS if v.log_n == 20)


@pytest.mark.parametrize(("seeded", "problem"), [
    ("missing", "no seeded_vectors records"),
    ("drop-log20", "records no generation of seeded:porep-log20-c1"),
    ("other-seed", "its record of seeded:porep-log16-c2 (seed, log n, circuits ('another seed', 16, 2)"),
    ("other-size", "its record of seeded:porep-log20-c1 (seed, log n, circuits ('conformance-seeded-gate-vectors', 19, 1)"),
    ("error", "error 'ValueError: x'"),
])
def test_a_report_without_the_seeded_vectors_generation_from_todays_seed_is_invalid(tree, seeded, problem):
    records = _seeded_records()
    if seeded == "drop-log20":
        records = records[:1]
    elif seeded == "other-seed":
        records[0]["seed"] = "another seed"
    elif seeded == "other-size":
        records[1]["log_n"] = 19
    elif seeded == "error":
        records[1]["error"] = "ValueError: x"
    _write_report(tree, fingerprint(tree), seeded=records)
    if seeded == "missing":
        path = tree / GATE_REPORT
        document = json.loads(path.read_text())
        del document["seeded_vectors"]
        path.write_text(json.dumps(document))
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and problem in verdict.message, verdict.message


def test_a_report_without_coverage_records_is_invalid(tree):
    _write_report(tree, fingerprint(tree), coverage=False)
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and "no coverage records" in verdict.message


def test_record_gate_needs_the_full_bundled_run(capsys):
    from conformance.__main__ import main
    from reference.cli import run_main
    from vectors.bundled import DATA_DIR

    assert run_main(main, ["run", str(DATA_DIR / "porep-log03.json"), "--record-gate", "--quiet"]) == 2
    assert "--record-gate: " in capsys.readouterr().err
    assert run_main(main, ["run", "--phases", "ntt_h", "--record-gate", "--quiet"]) == 2
    assert "every phase must run" in capsys.readouterr().err
    assert run_main(main, ["run", "--oracle", "--record-gate", "--quiet"]) == 2
    assert "judged by the vectors' expected values" in capsys.readouterr().err
    assert run_main(main, ["run", "--repeat", "1", "--record-gate", "--quiet"]) == 2
    assert "--repeat must be at least 2" in capsys.readouterr().err


def test_record_gate_writes_only_a_passing_run(tmp_path, monkeypatch):
    import conformance.__main__ as cli

    monkeypatch.setattr(cli, "REPO_ROOT", tmp_path)
    messages = []
    cli._record_gate({"result": "fail"}, fingerprint(), messages.append)
    assert not (tmp_path / GATE_REPORT).exists() and "did not pass" in messages[-1]


@pytest.mark.parametrize("edit", ["mode", "phase", "seeded id", "device"])
def test_a_report_with_a_list_for_a_name_or_a_null_device_is_judged_not_a_crash(tree, capsys, monkeypatch, edit):
    """A list where the gate reads a vector's mode, a phase or a seeded record's id (set and dict keys: TypeError
    'unhashable type'), or backends.gpu.device null (AttributeError) made `conformance gate` end in a traceback."""
    import conformance.__main__ as cli
    from reference.cli import run_main

    vectors, records = _gate_scope(), _seeded_records()
    if edit == "mode":
        vectors[0]["mode"] = [vectors[0]["mode"]]
    elif edit == "phase":
        vectors[0]["phases"][0]["phase"] = [vectors[0]["phases"][0]["phase"]]
    elif edit == "seeded id":
        records[0]["id"] = [records[0]["id"]]
    _write_report(tree, fingerprint(tree), vectors=vectors, seeded=records)
    if edit == "device":
        path = tree / GATE_REPORT
        document = json.loads(path.read_text())
        document["backends"]["gpu"]["device"] = None
        path.write_text(json.dumps(document))
    verdict = gate_verdict(tree)
    assert verdict.state == (UP_TO_DATE if edit == "device" else INVALID), verdict.message
    assert "an unknown GPU" in verdict.message if edit == "device" else "is not a passing GPU conformance report" in verdict.message
    monkeypatch.setattr(cli, "REPO_ROOT", tree)
    assert run_main(cli.main, ["gate"]) == (0 if edit == "device" else 1)
    out = capsys.readouterr()
    assert out.out.startswith(verdict.state + ": ") and out.err == ""


@pytest.mark.parametrize("edit", ["no files", "a file more", "a file's digest"])
def test_a_fingerprint_whose_sha256_is_not_the_digest_of_its_files_is_invalid(tree, edit):
    """The verdict compared the recorded sha256 alone: a report whose files were emptied or edited, its sha256 left
    as the current one, was 'up to date' (exit 0) though its file list vouches for other sources."""
    fp = fingerprint(tree)
    if edit == "no files":
        fp["files"] = {}
    elif edit == "a file more":
        fp["files"]["gpu/other.py"] = "00" * 32
    else:
        fp["files"]["gpu/msm.py"] = "00" * 32
    _write_report(tree, fp)
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and "its gpu_fingerprint's sha256 is not the digest of its files" in verdict.message


def _with_reference(vectors, status="pass") -> list[dict]:
    """The gate's entries with a reference backend beside the GPU in every phase, of ``status``."""
    for v in vectors:
        for p in v["phases"]:
            p["backends"]["reference"] = {"status": status, "seconds": 1.0 if status == "pass" else None}
    return vectors


def test_a_report_whose_entries_failed_is_invalid_whatever_its_result_says(tree):
    """(a) result "pass" kept, every reference phase edited to "fail": the gate re-derives the result from the
    per-phase entries by the report's own rule (report.result_of), every backend's included."""
    _write_report(tree, fingerprint(tree), vectors=_with_reference(_gate_scope()))
    assert gate_verdict(tree).state == UP_TO_DATE
    _write_report(tree, fingerprint(tree), vectors=_with_reference(_gate_scope(), "fail"))
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID, verdict.message
    first = _gate_scope()[0]["id"]
    assert f"its result says 'pass' but its entries give 'fail' (the reference backend's evaluate of {first} is 'fail')" \
        in verdict.message
    _write_report(tree, fingerprint(tree), vectors=_with_reference(_gate_scope(), "banana"))
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and "has status 'banana', not one a run writes" in verdict.message, verdict.message


@pytest.mark.parametrize(("edit", "problem"), [
    ("no timings", "the GPU's evaluate of edge-bases passed with no seconds"),
    ("no run_seconds", "the GPU's evaluate of porep-log01 passed without the run_seconds of 2 or more runs"),
    ("one run", "the GPU's evaluate of porep-log01 passed without the run_seconds of 2 or more runs"),
    ("not the fastest", "the GPU's evaluate of porep-log01 records seconds 0.7, not the fastest of its run_seconds"),
    ("prover seconds", "the GPU's evaluate of porep-log01 [prover] passed with no seconds"),
])
def test_a_report_whose_gpu_phases_lack_the_repeated_runs_timings_is_invalid(tree, edit, problem):
    """(b) GPU phases still "pass" but without seconds / run_seconds: a --record-gate run times every phase and, in
    isolated mode, records each of its --repeat (>= 2) runs, the evidence that the repeated runs were made."""
    vectors = _gate_scope()
    isolated = next(v for v in vectors if v["id"] == "porep-log01")["phases"][0]["backends"]["gpu"]
    prover = next(v for v in vectors if v["id"] == "porep-log01 [prover]")["phases"][0]["backends"]["gpu"]
    if edit == "no timings":
        for v in vectors:
            for p in v["phases"]:
                p["backends"]["gpu"].pop("seconds"), p["backends"]["gpu"].pop("run_seconds")
    elif edit == "no run_seconds":
        isolated["run_seconds"] = None
    elif edit == "one run":
        isolated["run_seconds"] = [0.5]
    elif edit == "not the fastest":
        isolated["seconds"] = 0.7
    else:
        prover["seconds"] = None
    _write_report(tree, fingerprint(tree), vectors=vectors)
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and problem in verdict.message, verdict.message


TWO_KERNELS = 'extern "C" __global__ void msm(int* x) {}\nextern "C" __global__ void other(int* x) {}\n'
"""gpu/kernels/k.cu of a test tree: two kernels, of which the reports below launch only msm."""
LAUNCHED_MSM_ONLY = {"kernels": {"defined": 2, "launched": ["k.cu:msm"], "never_launched": {"k.cu:other": "forged reason"}},
                     "lines": {}}


@pytest.mark.parametrize(("coverage", "problem"), [
    ({}, "its coverage records hold no kernels launched and never launched"),
    (LAUNCHED_MSM_ONLY, "its coverage fails the gate's kernel check (--record-gate: 1 kernel(s) defined in gpu/kernels/ were never launched"),
])
def test_a_report_whose_coverage_fails_the_kernel_check_is_invalid(tree, coverage, problem):
    """(c) check_gate (conformance/gpu_coverage.py), which refuses to record a run with an unlaunched kernel that is
    not allow-listed, is re-applied to the kernels the report says it launched, with the kernels and the allow-list of
    the tree: `coverage: {}` passed, and so did an unlaunched kernel whose recorded reason no allow-list gives."""
    (tree / "gpu" / "kernels" / "k.cu").write_text(TWO_KERNELS)
    (tree / "conformance").mkdir()
    (tree / "conformance" / "kernel_allowlist.toml").write_text("[never_launched]\n")
    _write_report(tree, fingerprint(tree))
    _edit_report(tree, lambda d: d.update(coverage=coverage))
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and problem in verdict.message, verdict.message


def test_a_kernel_the_allow_list_names_may_stay_unlaunched(tree):
    """The other side of the check above: the tree's allow-list, not the report, says which kernels may stay unlaunched."""
    (tree / "gpu" / "kernels" / "k.cu").write_text(TWO_KERNELS)
    (tree / "conformance").mkdir()
    (tree / "conformance" / "kernel_allowlist.toml").write_text('[never_launched]\n"k.cu:other" = "a reviewed reason"\n')
    _write_report(tree, fingerprint(tree))
    _edit_report(tree, lambda d: d.update(coverage=LAUNCHED_MSM_ONLY))
    assert gate_verdict(tree).state == UP_TO_DATE, gate_verdict(tree).message


def test_a_kernel_added_after_the_report_makes_it_stale_not_invalid(tree):
    """The kernel check runs on today's gpu/kernels/ only once the fingerprints match: a kernel added after the run is
    a source change (stale, naming the file), not a fault of the recorded report (it said 'invalid')."""
    (tree / "gpu" / "kernels" / "k.cu").write_text(TWO_KERNELS.splitlines()[0] + "\n")
    _write_report(tree, fingerprint(tree))
    _edit_report(tree, lambda d: d.update(coverage={"kernels": {"defined": 1, "launched": ["k.cu:msm"], "never_launched": {}},
                                                    "lines": {}}))
    (tree / "gpu" / "kernels" / "k.cu").write_text(TWO_KERNELS)
    verdict = gate_verdict(tree)
    assert verdict.state == STALE and "gpu/kernels/k.cu" in verdict.message, verdict.message


def test_a_kernel_file_that_cannot_be_read_is_invalid_not_a_traceback(tree):
    """gpu_coverage.defined_kernels reads each .cu as text: bytes that are not UTF-8 raised UnicodeDecodeError."""
    (tree / "gpu" / "kernels" / "zz.cu").write_bytes(b"\xff\xfe")
    _write_report(tree, fingerprint(tree))
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and "the kernels of gpu/kernels/ cannot be listed" in verdict.message, verdict.message


@pytest.mark.parametrize("edit", ["all zeros", "a count off", "missing"])
def test_a_report_whose_summary_disagrees_with_its_entries_is_invalid(tree, edit):
    """(d) the summary is recounted from the per-phase entries (report.status_counts): zeros, one count off or no
    summary at all is a hand edit."""
    def change(document):
        if edit == "all zeros":
            document["summary"] = {n: dict.fromkeys(c, 0) for n, c in document["summary"].items()}
        elif edit == "a count off":
            document["summary"]["gpu"]["pass"] -= 1
            document["summary"]["gpu"]["fail"] += 1
        else:
            del document["summary"]

    _write_report(tree, fingerprint(tree), vectors=_with_reference(_gate_scope()))
    _edit_report(tree, change)
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and "its summary does not agree with its per-phase entries" in verdict.message, verdict.message


def test_a_run_that_leaves_the_device_in_error_writes_no_report_and_no_verdict(tmp_path, monkeypatch, capsys):
    """The device found in error after the runs (gpu.device.device_error: an error CUDA keeps, such as an illegal
    address): no report.json, no 'result: PASS', one error line and exit 1, before --record-gate could record; before,
    the passing report was written and only finish(), at process exit, said the results were not trusted."""
    import conformance.__main__ as cli
    import gpu.device
    from conformance.backends import ReferenceBackend
    from reference.cli import run_main

    class FakeGpu(ReferenceBackend):  # the reference's phases under the GPU's name: a GPU backend that ran
        name, deterministic, is_reference = "gpu", False, False

    make = cli.make_backend
    monkeypatch.setattr(cli, "make_backend", lambda name: FakeGpu() if name == "gpu" else make(name))
    argv = ["run", str(DATA_DIR / "porep-log01.json"), "--phases", "evaluate,ntt_h", "--quiet"]
    assert run_main(cli.main, argv + ["--report", str(tmp_path / "clean")]) == 0  # the same run, the device well
    assert (tmp_path / "clean" / "report.json").exists() and "result: PASS" in capsys.readouterr().out

    monkeypatch.setattr(gpu.device, "device_error", lambda: "CUDARuntimeError: cudaErrorIllegalAddress")
    assert run_main(cli.main, argv + ["--report", str(tmp_path / "bad")]) == 1
    out = capsys.readouterr()
    assert not (tmp_path / "bad").exists() and "PASS" not in out.out
    assert out.err.splitlines() == ["error: gpu: the device is in error after the run (CUDARuntimeError: "
                                    "cudaErrorIllegalAddress): its results are not trusted; no report written"]


def test_the_device_check_after_the_runs_looks_at_every_device_that_ran(monkeypatch):
    """gpu.device.device_error synchronizes the current device only, and an error CUDA keeps belongs to its device:
    after `run --gpus 2`, an illegal address on device 1 went unseen (the current device is 0 again) and the passing
    report was written. The check now visits each device a GPU backend ran on (a stand-in CuPy, device 1 in error)."""
    import contextlib
    import sys
    import types

    import conformance.__main__ as cli
    import gpu.device

    current = [0]

    @contextlib.contextmanager
    def device(k):
        before, current[0] = current[0], k
        yield
        current[0] = before

    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(Device=device, runtime=types.SimpleNamespace(getDevice=lambda: current[0])))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(gpu.device, "device_error", lambda: "cudaErrorIllegalAddress" if current[0] == 1 else None)
    assert cli._device_error(["gpu:0", "gpu:1"]) == "device 1: cudaErrorIllegalAddress"
    assert cli._device_error(["gpu:0"]) is None and cli._device_error(["gpu"]) is None

