"""conformance/report.py: the report says what the run found, every verdict kept and named where it belongs (a
mutation audit of report.py, 2026-12-07: 54 mutants, 17 killed by the tests that reached report.py before, 36 of
the 37 survivors killed here, one equivalent).

Mutants that passed every test reaching report.py before this file (all killed here):

* report.md's title saying 'Conformance report: PASS' whatever the result (the terminal's line was tested, the
  file's only on a passing run);
* overall_result judging only the first vector: a run whose second vector failed was 'pass';
* problems() leaving ERROR entries out (an error named nowhere), or keeping only a phase's first failure, dropping
  a mismatch's message, or report.md without its 'First differences and errors' section;
* cell_text upper-casing every status ('PASS'), or showing a backend with no entry as 'pass' instead of '-';
  dropping the GPU's transfers; the table showing the first backend's column only, or the speed-up with transfers;
* judge_text listing every backend (own judge or not), or only the first backend judged otherwise;
* phase_totals summing every row (a FAIL's seconds counted), counting every row as a vector passed, inverting the
  speed-up, leaving transfers out of speedup_with_transfers, keeping phases no vector ran, a sum of nothing as 0
  instead of None, only the first value summed, and summing the vectors of other modes; totals_rows with the two
  speed-ups swapped or without transfers;
* report_document with oracle_requested negated, the summary without the run's backend names (a backend that ran
  nothing missing, which the gate's recount would not match), speedup_with_transfers without transfers, trapdoor
  always False;
* _status_counts without 'nothing ran'; aligned_table padding to the narrowest cell; markdown_table not escaping
  '|'; report.md with the judge words swapped, without the --oracle-library clause, the fingerprint's file count
  off by one, an unavailable backend's reason, the counts line or a backend's device facts.

Equivalent: report.md preferring chart_note over chart when both are set; conformance/__main__.py sets exactly one.
No product defect found: report.py only writes what the runner recorded, and a run that checked nothing is refused
before any report is built (conformance/__main__.py), so result_of's 'pass' over statuses with no failure is pinned
as it is.

The run here is built by hand (runner.VectorResult / PhaseResult / BackendResult, no backend runs): three vectors,
two isolated and one end-to-end, four backends (one unavailable, with no entries), a pass, a fail, an error, a skip
and a missing entry; times are exact binary fractions, so every sum, speed-up and text below is written out by hand,
not computed by report.py.
"""

from conformance.compare import Mismatch
from conformance.report import (
    RunInfo, aligned_table, drawn, markdown_table, markdown_text, overall_result, report_document, result_of,
    status_counts, summary, table_rows, terminal_text, totals_rows,
)
from conformance.runner import BackendResult, PhaseResult, VectorResult

NAMES = ["reference", "gpu", "fault:neg", "gpu:1"]
BACKENDS = {
    "reference": {"available": True, "reason": None, "device": {"implementation": "py_ecc"}},
    "gpu": {"available": True, "reason": None, "device": {"name": "NVIDIA H100", "memory_gib": 80}},
    "fault:neg": {"available": True, "reason": None, "device": None},
    "gpu:1": {"available": False, "reason": "no second GPU", "device": None},
}
NTT_MISMATCH = Mismatch("ntt_h", 0, "h", 3, "11", "22")
MSM_MISMATCH = Mismatch("msm_h", None, "h sum", None, "aa", "bb")
ZEROS = {"pass": 0, "fail": 0, "error": 0, "not implemented": 0, "skipped": 0, "unavailable": 0}


def _run() -> list[VectorResult]:
    one = VectorResult("v-one", "vectors/data/v-one.json", 2, 1, True, mode="isolated", phases=[
        PhaseResult("ntt_h", "expected", {
            "reference": BackendResult("pass", seconds=2.0),
            "gpu": BackendResult("pass", seconds=0.5, transfer_seconds=0.5),
            "fault:neg": BackendResult("fail", seconds=1.0, mismatch=NTT_MISMATCH, message="negated"),
        }),
        PhaseResult("msm_h", "independent", {
            "reference": BackendResult("fail", seconds=3.0, mismatch=MSM_MISMATCH, judge="expected"),
            "gpu": BackendResult("error", message="RuntimeError: boom (at gpu/msm.py:7)"),
            "fault:neg": BackendResult("pass", seconds=1.0, judge="expected"),
        }),
    ])
    two = VectorResult("v-two", "vectors/data/v-two.json", 3, 2, False, mode="isolated", phases=[
        PhaseResult("ntt_h", "expected", {
            "reference": BackendResult("pass", seconds=4.0),
            "gpu": BackendResult("pass", seconds=1.0, transfer_seconds=1.0),
            "fault:neg": BackendResult("skipped", message="no input"),
        }),
    ])
    three = VectorResult("v-three", "vectors/data/v-three.json", 2, 1, False, mode="end-to-end", phases=[
        PhaseResult("ntt_h", "expected", {
            "reference": BackendResult("pass", seconds=100.0),
            "gpu": BackendResult("pass", seconds=1.0),
        }),
    ])
    return [one, two, three]


def _info(**changes) -> RunInfo:
    fields = dict(command="python -m conformance run --oracle", mode="isolated", prefer_oracle=True,
                  phases=("ntt_h", "msm_h"), backends=BACKENDS,
                  gpu_fingerprint={"sha256": "ab" * 32, "files": {"gpu/a.py": "0" * 64, "gpu/b.cu": "1" * 64}},
                  started="2026-12-07T10:00:00+00:00", load_seconds={"v-one": 0.25, "v-two": 0.125},
                  chart="chart.png", oracle_library="arkworks")
    fields.update(changes)
    return RunInfo(**fields)


def _document(**changes) -> dict:
    document = report_document(_run(), _info(**changes))
    document["finished"] = "2026-12-07T10:05:00+00:00"
    return document


def _entry(status, seconds=None, transfer_seconds=None, mismatch=None, message=None, judge=None) -> dict:
    return {"status": status, "seconds": seconds, "timing": None, "transfer_seconds": transfer_seconds,
            "host_seconds": None, "setup_seconds": None, "run_seconds": None, "input_source": None,
            "mismatch": mismatch, "message": message, "judge": judge}


def test_totals_sum_only_what_each_backend_passed_in_the_runs_mode():
    """totals: per phase run, each backend's seconds over the isolated vectors it passed (a fail, error or skip adds
    nothing), how many those were (None and 0 where none), and the speed-ups over the vectors both passed: ntt_h
    6 / 1.5 = 4.0, with the GPU's 1.5 s of transfers 6 / 3 = 2.0. The end-to-end vector (100 s) is not summed."""
    none = {"seconds": None, "transfer_seconds": None, "vectors": 0}
    assert _document()["totals"] == {
        "ntt_h": {
            "reference": {"seconds": 6.0, "transfer_seconds": None, "vectors": 2},
            "gpu": {"seconds": 1.5, "transfer_seconds": 1.5, "vectors": 2},
            "fault:neg": none, "gpu:1": none, "speedup": 4.0, "speedup_with_transfers": 2.0,
        },
        "msm_h": {
            "reference": none, "gpu": none, "fault:neg": {"seconds": 1.0, "transfer_seconds": None, "vectors": 1},
            "gpu:1": none, "speedup": None, "speedup_with_transfers": None,
        },
    }


def test_the_document_keeps_every_verdict_and_fact_of_every_vector():
    """Every vector's facts, every phase's judge and speed-ups, every backend's entry (the one each BackendResult
    holds, written out here field by field); the summary counts every (vector, phase, backend), the end-to-end
    vector's too, and a backend that ran nothing has all zeros."""
    document = _document()
    assert (document["oracle_requested"], document["oracle_library"], document["result"]) == (True, "arkworks", "fail")
    assert document["summary"] == {
        "reference": dict(ZEROS, **{"pass": 3, "fail": 1}),
        "gpu": dict(ZEROS, **{"pass": 3, "error": 1}),
        "fault:neg": dict(ZEROS, **{"pass": 1, "fail": 1, "skipped": 1}),
        "gpu:1": ZEROS,
    }
    ntt_mismatch = {"phase": "ntt_h", "circuit": 0, "query": "h", "index": 3, "expected": "11", "actual": "22"}
    msm_mismatch = {"phase": "msm_h", "circuit": None, "query": "h sum", "index": None,
                    "expected": "aa", "actual": "bb"}
    assert document["vectors"] == [
        {"id": "v-one", "mode": "isolated", "path": "vectors/data/v-one.json", "log_n": 2, "circuits": 1,
         "trapdoor": True, "load_seconds": 0.25, "phases": [
             {"phase": "ntt_h", "oracle": "expected", "speedup": 4.0, "speedup_with_transfers": 2.0, "backends": {
                 "reference": _entry("pass", 2.0),
                 "gpu": _entry("pass", 0.5, 0.5),
                 "fault:neg": _entry("fail", 1.0, mismatch=ntt_mismatch, message="negated")}},
             {"phase": "msm_h", "oracle": "independent", "speedup": None, "speedup_with_transfers": None, "backends": {
                 "reference": _entry("fail", 3.0, mismatch=msm_mismatch, judge="expected"),
                 "gpu": _entry("error", message="RuntimeError: boom (at gpu/msm.py:7)"),
                 "fault:neg": _entry("pass", 1.0, judge="expected")}}]},
        {"id": "v-two", "mode": "isolated", "path": "vectors/data/v-two.json", "log_n": 3, "circuits": 2,
         "trapdoor": False, "load_seconds": 0.125, "phases": [
             {"phase": "ntt_h", "oracle": "expected", "speedup": 4.0, "speedup_with_transfers": 2.0, "backends": {
                 "reference": _entry("pass", 4.0),
                 "gpu": _entry("pass", 1.0, 1.0),
                 "fault:neg": _entry("skipped", message="no input")}}]},
        {"id": "v-three", "mode": "end-to-end", "path": "vectors/data/v-three.json", "log_n": 2, "circuits": 1,
         "trapdoor": False, "load_seconds": None, "phases": [
             {"phase": "ntt_h", "oracle": "expected", "speedup": 100.0, "speedup_with_transfers": 100.0, "backends": {
                 "reference": _entry("pass", 100.0),
                 "gpu": _entry("pass", 1.0)}}]},
    ]
    assert _document(prefer_oracle=False)["oracle_requested"] is False


def test_a_failure_in_any_vector_or_phase_fails_the_run():
    """result_of / overall_result: 'fail' for a fail or an error anywhere, the last vector's or the first phase's
    included; 'pass' when the rest are passes and statuses that are neither (the caller refuses a run that checked
    nothing, conformance/__main__.py)."""
    def vector(name, *statuses):
        return VectorResult(name, f"{name}.json", 1, 1, False, phases=[
            PhaseResult(phase, "expected", {"reference": BackendResult(s)})
            for phase, s in zip(("ntt_h", "msm_h"), statuses)])

    assert overall_result([vector("a", "pass", "pass"), vector("b", "pass", "fail")]) == "fail"
    assert overall_result([vector("a", "pass", "pass"), vector("b", "error", "pass")]) == "fail"
    assert overall_result([vector("a", "fail", "pass")]) == "fail"
    assert overall_result([vector("a", "pass", "skipped"), vector("b", "not implemented", "unavailable")]) == "pass"
    assert result_of(["pass", "error", "pass"]) == "fail" and result_of(["skipped", "fail"]) == "fail"
    assert result_of(["pass", "skipped", "not implemented", "unavailable"]) == "pass"
    assert summary([vector("a", "pass", "fail"), vector("b", "error", "pass")], ["reference"]) == {
        "reference": dict(ZEROS, **{"pass": 2, "fail": 1, "error": 1})}


def test_status_counts_counts_a_backend_the_names_leave_out():
    """status_counts (the gate recounts a report's summary with it): a pair whose backend is not named still counts."""
    pairs = [("reference", "pass"), ("gpu", "fail"), ("gpu", "fail"), ("reference", "error")]
    assert status_counts(pairs, ["reference"]) == {
        "reference": dict(ZEROS, **{"pass": 1, "error": 1}), "gpu": dict(ZEROS, fail=2)}
    assert status_counts([], ["reference", "gpu"]) == {"reference": ZEROS, "gpu": ZEROS}


def test_the_table_names_every_verdict_in_its_column():
    """table_rows: one row per (vector, phase), one column per backend ('-' where it has no entry), FAIL and ERROR
    in capitals, transfers in parentheses, the judge with each backend judged otherwise, the speed-up without
    transfers; totals_rows: sums with transfers in parentheses, then both speed-ups."""
    document = _document()
    assert table_rows(document) == (
        ["vector", "phase", "judge", "reference", "gpu", "fault:neg", "gpu:1", "speed-up"],
        [["v-one", "ntt_h", "expected", "pass 2.0000 s", "pass 0.5000 s (+0.5000 s transfers)", "FAIL 1.0000 s", "-",
          "4.0x"],
         ["v-one", "msm_h", "independent (reference backend by expected, fault:neg backend by expected)",
          "FAIL 3.0000 s", "ERROR", "pass 1.0000 s", "-", "-"],
         ["v-two", "ntt_h", "expected", "pass 4.0000 s", "pass 1.0000 s (+1.0000 s transfers)", "skipped", "-", "4.0x"],
         ["v-three", "ntt_h", "expected", "pass 100.0000 s", "pass 1.0000 s", "-", "-", "100.0x"]],
    )
    assert totals_rows(document) == (
        ["phase", "reference (sum)", "gpu (sum)", "fault:neg (sum)", "gpu:1 (sum)", "speed-up",
         "speed-up incl. transfers"],
        [["ntt_h", "6.0000 s", "1.5000 s (+1.5000 s)", "-", "-", "4.0x", "2.0x"],
         ["msm_h", "-", "-", "1.0000 s", "-", "-", "-"]],
    )


PROBLEMS = [
    "v-one ntt_h [fault:neg, judged by expected]: circuit 0, h[3]: expected 11, got 22 (negated)",
    "v-one msm_h [reference, judged by expected]: h sum: expected aa, got bb",
    "v-one msm_h [gpu]: error: RuntimeError: boom (at gpu/msm.py:7)",
]


def test_the_terminal_names_every_failure_and_the_result():
    """terminal_text after its two tables: the backend that did not run and why, every failure and error (each
    with its judge, place, expected and got values, and message), and the result with every backend's counts."""
    text = terminal_text(_document())
    tail = text[text.index("\nBackends that did not run"):]
    assert tail == "\n".join([
        "", "Backends that did not run: gpu:1: no second GPU", "", "First differences and errors:", *PROBLEMS, "",
        "result: FAIL (reference: pass 3, fail 1; gpu: pass 3, error 1; fault:neg: pass 1, fail 1, skipped 1; "
        "gpu:1: nothing ran)", ""])


def test_aligned_table_pads_each_column_to_its_widest_cell():
    assert aligned_table(["a", "bbb"], [["cccc", "d"], ["e", "f"]]) == "a     bbb\n----  ---\ncccc  d\ne     f"


def test_markdown_table_escapes_a_bar():
    assert markdown_table(["a", "b"], [["x|y", "z"]]) == "| a | b |\n|---|---|\n| x\\|y | z |"


def test_report_md_says_the_result_and_every_failure():
    """markdown_text, whole: the result in the title, the judge, the fingerprint's file count, every backend (the
    unavailable one with its reason), the totals, the chart, every failure and error, then every (vector, phase)."""
    table = [
        "| vector | phase | judge | reference | gpu | fault:neg | gpu:1 | speed-up |",
        "|---|---|---|---|---|---|---|---|",
        "| v-one | ntt_h | expected | pass 2.0000 s | pass 0.5000 s (+0.5000 s transfers) | FAIL 1.0000 s | - | 4.0x |",
        "| v-one | msm_h | independent (reference backend by expected, fault:neg backend by expected) | FAIL 3.0000 s "
        "| ERROR | pass 1.0000 s | - | - |",
        "| v-two | ntt_h | expected | pass 4.0000 s | pass 1.0000 s (+1.0000 s transfers) | skipped | - | 4.0x |",
        "| v-three | ntt_h | expected | pass 100.0000 s | pass 1.0000 s | - | - | 100.0x |",
    ]
    assert markdown_text(_document()) == "\n".join([
        "# Conformance report: FAIL",
        "",
        "* command: `python -m conformance run --oracle`",
        "* created: 2026-12-07T10:00:00+00:00 (finished 2026-12-07T10:05:00+00:00)",
        "* mode: isolated; judge: independent oracles; msm_h, batch_add, tail_msm, assemble judged by arkworks",
        f"* gpu/ fingerprint: `{'ab' * 32}` (2 files)",
        "* counts: reference: pass 3, fail 1; gpu: pass 3, error 1; fault:neg: pass 1, fail 1, skipped 1; "
        "gpu:1: nothing ran",
        "",
        "## Backends",
        "",
        "* **reference**: implementation: py_ecc",
        "* **gpu**: name: NVIDIA H100, memory_gib: 80",
        "* **fault:neg**: available",
        "* **gpu:1**: not available (no second GPU)",
        "",
        "## Per-phase totals",
        "",
        "Seconds summed over the vectors each backend passed; GPU transfers (host <-> device) in parentheses.",
        "",
        "| phase | reference (sum) | gpu (sum) | fault:neg (sum) | gpu:1 (sum) | speed-up | speed-up incl. transfers |",
        "|---|---|---|---|---|---|---|",
        "| ntt_h | 6.0000 s | 1.5000 s (+1.5000 s) | - | - | 4.0x | 2.0x |",
        "| msm_h | - | - | 1.0000 s | - | - | - |",
        "",
        "![per-phase time](chart.png)",
        "",
        "## First differences and errors",
        "",
        *(f"* {line}" for line in PROBLEMS),
        "",
        "## Every vector and phase",
        "",
        *table,
        "",
    ])
    plain = markdown_text(_document(prefer_oracle=False, oracle_library=None, chart=None, chart_note="no matplotlib"))
    assert "\n* mode: isolated; judge: expected values where the vector has them\n" in plain
    assert "\nChart: no matplotlib\n" in plain and "![" not in plain


def test_drawn_returns_the_bytes_or_the_note():
    """drawn: the bytes the drawing wrote and no note, or no bytes and the note (the caller writes chart.png, or
    names chart_note, by it)."""
    assert drawn(lambda path: path.write_bytes(b"PNG") and None, "chart.png") == (b"PNG", None)
    assert drawn(lambda path: "no matplotlib", "chart.png") == (None, "no matplotlib")
