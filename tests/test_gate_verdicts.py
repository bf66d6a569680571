"""The gate's verdict (conformance/fingerprint.py) and what its fingerprint covers (conformance/sources.py), a mutation
audit of both (2026-12-07): mutants that passed test_conformance_gate, test_gpu_coverage, test_planted_faults,
test_conformance_seeded and test_hostile_inputs' gate cases before these tests:

* _gate_report_problem without its schema check (a report of another schema passed as the gate);
* _coverage_problem without its ``lines`` check (coverage records with no lines run passed);
* _coverage_problem testing ``coverage is None`` instead of the type (a list for coverage raised AttributeError in
  gate_verdict: a traceback, not 'invalid');
* _number accepting a negative time, and accepting an infinite one (1e999 in the JSON reads as inf): a GPU phase
  "timed" at -0.5 s or at infinity passed as the timings of a --record-gate run;
* FileChanges.any ignoring removed files;
* _is_gate_input without its hidden-file rule for names with a vector's suffix (an editor's or macOS's ``._v.json``
  beside the vectors made the gate stale; the existing test's hidden files had other suffixes);
* _gpu_files without its cache exclusion for source suffixes (a .cuh copied under gpu/**/__pycache__ joined the
  fingerprint; the existing test's cache held only a .pyc, which the suffix rule already drops).

The fingerprint's expected values are recomputed here from the files' bytes with hashlib (the format of
conformance/sources.py's docstring), and the reports are those of test_conformance_gate's throw-away tree.
"""
import hashlib
import json

import pytest

from conformance.fingerprint import GATE_REPORT, INVALID, UP_TO_DATE, FileChanges, gate_verdict
from conformance.sources import fingerprint
from test_conformance_gate import _edit_report, _write_report, tree  # noqa: F401 (tree: the fixture)


def _by_hand(root, paths) -> dict:
    files = {p: hashlib.sha256((root / p).read_bytes()).hexdigest() for p in paths}
    lines = "".join(f"{p} {files[p]}\n" for p in sorted(files))
    return {"sha256": hashlib.sha256(lines.encode()).hexdigest(), "files": files}


def test_the_tree_report_is_up_to_date_before_any_edit(tree):  # noqa: F811
    """The baseline of the edits below: the unedited report passes, so each 'invalid' is the edit's."""
    _write_report(tree, fingerprint(tree))
    assert gate_verdict(tree).state == UP_TO_DATE


def test_a_report_of_another_schema_is_invalid(tree):  # noqa: F811
    _write_report(tree, fingerprint(tree))
    _edit_report(tree, lambda d: d.update(schema="groth16-timing-record"))
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and "its 'schema' is not groth16-conformance-report" in verdict.message


def test_coverage_records_without_lines_run_are_invalid(tree):  # noqa: F811
    _write_report(tree, fingerprint(tree))
    _edit_report(tree, lambda d: d["coverage"].pop("lines"))
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID and "no lines run" in verdict.message


def test_coverage_that_is_not_an_object_is_invalid_not_a_crash(tree):  # noqa: F811
    for coverage in ([], "all", 1):
        _write_report(tree, fingerprint(tree))
        _edit_report(tree, lambda d: d.update(coverage=coverage))
        verdict = gate_verdict(tree)
        assert verdict.state == INVALID and "it has no coverage records" in verdict.message, coverage


@pytest.mark.parametrize("seconds", ["-0.5", "1e999"])
@pytest.mark.parametrize("mode", ["isolated", "prover"])
def test_a_gpu_phase_timed_at_a_negative_or_infinite_time_is_invalid(tree, seconds, mode):  # noqa: F811
    """The number written as text, as a hand-edited report would hold it: every run of the phase gives it, so only the
    range of the number can be wrong."""
    _write_report(tree, fingerprint(tree))
    path = tree / GATE_REPORT
    document = json.loads(path.read_text())
    entry = next(v for v in document["vectors"] if v["mode"] == mode)
    gpu = entry["phases"][0]["backends"]["gpu"]
    gpu["seconds"] = "@seconds@"
    if mode == "isolated":
        gpu["run_seconds"] = ["@seconds@", "@seconds@"]
    path.write_text(json.dumps(document).replace('"@seconds@"', seconds))
    verdict = gate_verdict(tree)
    assert verdict.state == INVALID, verdict.message
    assert f"the GPU's {entry['phases'][0]['phase']} of {entry['id']} passed with no seconds" in verdict.message


def test_file_changes_count_a_removed_file_alone():
    assert not FileChanges().any
    assert FileChanges(removed=["gpu/msm.py"]).any
    assert FileChanges(added=["gpu/ntt.py"]).any and FileChanges(changed=["gpu/msm.py"]).any
    assert FileChanges(removed=["gpu/msm.py"]).describe() == "removed: gpu/msm.py"


def test_a_hidden_file_with_a_vector_s_suffix_is_not_fingerprinted(tree):  # noqa: F811
    data = tree / "vectors" / "data"
    data.mkdir(parents=True)
    (data / "v.json").write_text("{}")
    (data / "v.h.bin").write_bytes(b"\1\2")
    expected = _by_hand(tree, ["gpu/kernels/ec.cuh", "gpu/kernels/msm.cu", "gpu/msm.py",
                               "vectors/data/v.h.bin", "vectors/data/v.json"])
    assert fingerprint(tree) == expected
    _write_report(tree, fingerprint(tree))
    (data / "._v.json").write_bytes(b"\0\5\26\7 AppleDouble")  # macOS's resource fork beside a copied file
    (data / ".v.json").write_text("{}")  # an editor's swap / a writer's temporary
    (data / ".v.h.bin").write_bytes(b"\0")
    assert fingerprint(tree) == expected
    assert gate_verdict(tree).state == UP_TO_DATE


def test_sources_under_a_cache_folder_are_not_fingerprinted(tree):  # noqa: F811
    expected = _by_hand(tree, ["gpu/kernels/ec.cuh", "gpu/kernels/msm.cu", "gpu/msm.py"])
    (tree / "gpu" / "kernels" / "__pycache__").mkdir()
    (tree / "gpu" / "kernels" / "__pycache__" / "ec.cuh").write_text("// a cached copy\n")
    (tree / "gpu" / "__pycache__" / "msm.py").write_text("# a cached copy\n")
    assert fingerprint(tree) == expected
    report = tree / GATE_REPORT
    _write_report(tree, expected)
    assert json.loads(report.read_text())["gpu_fingerprint"] == expected
    assert gate_verdict(tree).state == UP_TO_DATE
