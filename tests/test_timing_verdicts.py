"""conformance/timing.py: a timing record holds every phase that passed, each time where it was measured, the runs
after warm-up and the environment they came from, and a file that says otherwise is refused (a mutation audit of
timing.py, 2026-12-07: 67 mutants, 33 killed by the tests that reached timing.py before, 34 survivors, all killed
here, none equivalent).

Mutants that passed every test reaching timing.py before this file (all killed here):

* stats_after_warmup keeping both of two runs (``>= 2`` -> ``> 2`` or ``>= 3``: a first run that compiles counted in
  the median) or accepting no runs at all; entry accepting a kind outside KINDS;
* commit() ignoring $BENCH_COMMIT, or '+dirty' on a clean tree and not on a dirty one; cpu_model taking the first
  'model' line (the model number, '143') for the model name; _run_text taking the output of a command that failed;
  nvidia_smi_facts zipping a short line; gpu_facts' memory in GB (10^9) for GiB and the pstate for the driver;
  environment() always describing GPU 0 and a wrong cpu_count;
* _number taking True for 1 s and refusing a run of exactly MAX_RUN_SECONDS; _check_entry without the phase, with
  empty names, a warm-up count of -1 or True, an unchecked spread, a tolerance of 1e-3 s and a one-sided check (a
  stated median below the runs' accepted); check_timing_document without the environment and tool checks;
* conformance_timings recording errors' times (status != 'fail'), one mode for every run, and runs holding a
  non-number;
* timings_markdown summing minimums or only the first vector's median, the smallest spread, the count of rows for
  vectors, warm-ups in the runs counted, every phase of a backend under its first phase, no machine in its header.

'Before' is the 168 tests of test_timing_compare, test_bench_records, test_conformance_gate and test_gpu_staging, with
test_committed_gpu_report_covers_gpu_sources left out: that fingerprint test fails on any change to timing.py, so it
'killed' every mutant and judged none. The 43 further tests coverage shows reaching timing.py (bench_ab, conformance
runs, hostile inputs, probes) were run against the first survivor only (it survived); none asserts a value the other
survivors change.

No product defect found. Times are exact binary fractions, so every median, sum and spread is written out by hand;
the environment's commands (git, nvidia-smi, /proc/cpuinfo, CuPy) are replaced by fakes whose answers are given here.
"""
import platform
import sys
import types
from datetime import datetime, timezone

import pytest

import conformance.timing as timing
from conformance.timing import (
    MAX_RUN_SECONDS, Stats, check_timing_document, conformance_timings, entry, stats_after_warmup, timing_document,
    timings_markdown,
)
from reference.errors import InvalidInputError

CPU_ENV = {"date": "2026-12-07T00:00:00+00:00", "commit": "abc", "gpu_sources": "0123456789abcdef" * 4,
           "cpu": "Xeon Gold", "gpu": None}


# ---------------------------------------------------------------------------------------------
# Warm-up and entries


def test_of_two_runs_the_first_is_the_warmup_and_no_runs_is_an_error():
    two = stats_after_warmup([4.0, 0.5])
    assert (two.runs, two.warmup_runs, two.median) == ((0.5,), 1, 0.5)
    three = stats_after_warmup([4.0, 0.5, 0.25])
    assert (three.runs, three.warmup_runs, three.median) == ((0.5, 0.25), 1, 0.375)
    one = stats_after_warmup([4.0])
    assert (one.runs, one.warmup_runs) == ((4.0,), 0)
    with pytest.raises(ValueError, match="no runs"):
        stats_after_warmup([])


def test_an_entry_of_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="kind 'gpu' is not one of"):
        entry("v", "gpu", "msm_h", Stats((0.5,)), kind="gpu")
    assert entry("v", "gpu", "h2d", Stats((0.5,)), kind="copy")["kind"] == "copy"


# ---------------------------------------------------------------------------------------------
# Reading a record: what is refused


def _doc(**entry_fields) -> dict:
    e = {**entry("v1", "gpu", "msm_h", Stats((0.25, 0.5, 0.75), 1), shape={"log_n": 4}), **entry_fields}
    return timing_document("conformance run", "c", [e], dict(CPU_ENV))


@pytest.mark.parametrize("fields, where, problem", [
    ({"phase": ""}, "t: entries[0].phase", "expected a non-empty string"),
    ({"case": ""}, "t: entries[0].case", "expected a non-empty string"),
    ({"phase": None}, "t: entries[0].phase", "expected a non-empty string"),
    ({"warmup_runs": -1}, "t: entries[0].warmup_runs", "expected a count >= 0, got -1"),
    ({"warmup_runs": True}, "t: entries[0].warmup_runs", "expected a count >= 0, got True"),
    ({"runs": [True, 0.5, 0.75], "median": 0.75, "min": 0.5, "max": 1.0, "spread": 0.5}, "t: entries[0].runs[0]",
     "expected a number of seconds from 0 to 1e+06, got True"),
    ({"spread": 0.25}, "t: entries[0].spread", "is 0.25 but the runs give 0.5"),
    ({"median": 0.5 + 2 ** -20}, "t: entries[0].median", f"is {0.5 + 2 ** -20} but the runs give 0.5"),
    ({"median": 0.25}, "t: entries[0].median", "is 0.25 but the runs give 0.5"),  # below the runs' median
    ({"max": 0.5}, "t: entries[0].max", "is 0.5 but the runs give 0.75"),
])
def test_an_entry_that_disagrees_with_itself_is_refused_naming_the_field(fields, where, problem):
    with pytest.raises(InvalidInputError) as error:
        check_timing_document(_doc(**fields), "t")
    assert (error.value.field, error.value.problem) == (where, problem)


def test_an_entry_within_a_nanosecond_and_a_run_of_the_longest_time_are_read():
    within = check_timing_document(_doc(median=0.5 + 2 ** -40), "t")["entries"][0]
    assert within["stats"].median == 0.5 and within["stats"].warmup_runs == 1 and within["median"] == 0.5 + 2 ** -40
    longest = _doc(runs=[MAX_RUN_SECONDS, 0.0, 0.5], median=0.5, min=0.0, max=MAX_RUN_SECONDS, spread=MAX_RUN_SECONDS)
    stats = check_timing_document(longest, "t")["entries"][0]["stats"]
    assert (stats.runs, stats.max, stats.min) == ((1e6, 0.0, 0.5), 1e6, 0.0)
    without_warmup = _doc()
    del without_warmup["entries"][0]["warmup_runs"]
    assert check_timing_document(without_warmup, "t")["entries"][0]["stats"].warmup_runs == 0


@pytest.mark.parametrize("fields, where, problem", [
    ({"environment": ["H100"]}, "t: environment", "expected an object"),
    ({"environment": None}, "t: environment", "expected an object"),
    ({"tool": 3}, "t: tool", "expected a string"),
    ({"tool": None}, "t: tool", "expected a string"),
])
def test_a_record_without_an_environment_object_or_a_tool_name_is_refused(fields, where, problem):
    with pytest.raises(InvalidInputError) as error:
        check_timing_document({**_doc(), **fields}, "t")
    assert (error.value.field, error.value.problem) == (where, problem)


# ---------------------------------------------------------------------------------------------
# The environment


def _fake_commands(monkeypatch, answers: dict) -> list:
    """_run_output answering each command (a tuple) from ``answers``, None (a failed command) for any other; the calls,
    (command, cwd), are returned."""
    calls = []

    def fake(command, cwd=None):
        calls.append((tuple(command), cwd))
        return answers.get(tuple(command))

    monkeypatch.setattr(timing, "_run_output", fake)
    return calls


HEAD = ("git", "rev-parse", "--short=12", "HEAD")
STATUS = ("git", "status", "--porcelain", "--untracked-files=no")


def test_the_commit_is_bench_commit_else_heads_with_dirty_for_uncommitted_changes(monkeypatch):
    monkeypatch.setenv("BENCH_COMMIT", "feedface0123")
    calls = _fake_commands(monkeypatch, {HEAD: "0123456789ab", STATUS: ""})
    assert timing.commit() == "feedface0123" and calls == []
    monkeypatch.delenv("BENCH_COMMIT")
    assert timing.commit() == "0123456789ab"
    assert calls == [(HEAD, timing.REPO_ROOT), (STATUS, timing.REPO_ROOT)]
    _fake_commands(monkeypatch, {HEAD: "0123456789ab", STATUS: "M gpu/msm.py"})
    assert timing.commit() == "0123456789ab+dirty"
    _fake_commands(monkeypatch, {HEAD: "0123456789ab"})  # git status failed or timed out: not a clean tree
    assert timing.commit() == "0123456789ab+status-unknown"
    _fake_commands(monkeypatch, {STATUS: "M gpu/msm.py"})
    assert timing.commit() is None


def test_the_cpu_model_is_the_model_name_line_not_the_model_number(monkeypatch):
    cpuinfo = ("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
               "model name\t: Intel(R) Xeon(R) Platinum 8480+\nstepping\t: 8\n")
    read = []

    class FakePath:
        def __init__(self, name):
            self.name = name

        def read_text(self):
            read.append(self.name)
            if cpuinfo is None:
                raise OSError("no /proc")
            return cpuinfo

    monkeypatch.setattr(timing, "Path", FakePath)
    assert timing.cpu_model() == "Intel(R) Xeon(R) Platinum 8480+" and read == ["/proc/cpuinfo"]
    cpuinfo = None
    monkeypatch.setattr(timing.platform, "processor", lambda: "")
    monkeypatch.setattr(timing.platform, "machine", lambda: "aarch64")
    assert timing.cpu_model() == "aarch64"


def test_a_command_counts_only_when_it_succeeds_with_output(tmp_path, monkeypatch):
    py = sys.executable
    assert timing._run_text([py, "-c", "print('  v1 ')"]) == "v1"
    assert timing._run_text([py, "-c", "import os; print(os.getcwd())"], tmp_path) == str(tmp_path)
    assert timing._run_text([py, "-c", "print('partial'); raise SystemExit(3)"]) is None
    assert timing._run_text([py, "-c", "print('   ')"]) is None
    assert timing._run_output([py, "-c", "print('   ')"]) == ""  # succeeded, printed nothing: a clean `git status`
    assert timing._run_output([py, "-c", "raise SystemExit(128)"]) is None  # failed: not the same answer
    assert timing._run_text([str(tmp_path / "no-such-command")]) is None
    monkeypatch.setattr(timing, "COMMAND_TIMEOUT_S", 0.25)
    assert timing._run_text([py, "-c", "import time; time.sleep(5); print('late')"]) is None


SMI = ("nvidia-smi", "--id=1", "--query-gpu=clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,driver_version,pstate",
       "--format=csv,noheader,nounits")


def test_nvidia_smi_facts_are_its_six_fields_of_the_gpu_asked_or_none(monkeypatch):
    _fake_commands(monkeypatch, {SMI: "1980, 2619, 1980, 2619, 580.159.04, P0\n"})
    assert timing.nvidia_smi_facts(1) == {"clocks.sm": "1980", "clocks.mem": "2619", "clocks.max.sm": "1980",
                                          "clocks.max.mem": "2619", "driver_version": "580.159.04", "pstate": "P0"}
    assert timing.nvidia_smi_facts(0) is None  # another GPU: not answered here
    _fake_commands(monkeypatch, {SMI: "1980, 2619, 580.159.04, P0"})  # a field short: none of them is trusted
    assert timing.nvidia_smi_facts(1) is None


def _fake_cupy(monkeypatch, asked: list):
    runtime = types.SimpleNamespace(
        getDeviceProperties=lambda i: asked.append(i) or {"name": b"NVIDIA H100 80GB HBM3", "major": 9, "minor": 0,
                                                          "totalGlobalMem": 80 << 30},
        driverGetVersion=lambda: 12080, runtimeGetVersion=lambda: 12060)
    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(runtime=runtime)
    cupy.__version__ = "13.6.0"
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    import gpu.device

    monkeypatch.setattr(gpu.device, "_unavailable_reason", lambda: None)


def test_gpu_facts_name_the_gpu_its_memory_in_gib_its_driver_and_clocks(monkeypatch):
    asked = []
    _fake_cupy(monkeypatch, asked)
    monkeypatch.setattr(timing, "nvidia_smi_facts", lambda i: {
        "clocks.sm": "1980", "clocks.mem": "2619", "clocks.max.sm": "1980", "clocks.max.mem": "2619",
        "driver_version": "580.159.04", "pstate": "P2"} if i == 1 else None)
    assert timing.gpu_facts(1) == {
        "name": "NVIDIA H100 80GB HBM3", "device_index": 1, "compute_capability": "9.0", "memory_gib": 80.0,
        "driver": "580.159.04", "cuda_driver_api": 12080, "cuda_runtime": 12060, "cupy": "13.6.0",
        "clocks_mhz": {"clocks.sm": "1980", "clocks.mem": "2619", "clocks.max.sm": "1980", "clocks.max.mem": "2619"},
        "pstate": "P2"}
    assert asked == [1]
    unread = timing.gpu_facts(0)  # nvidia-smi unreadable: the facts CuPy gives, the rest None
    assert (unread["driver"], unread["clocks_mhz"], unread["pstate"], unread["memory_gib"]) == (None, None, None, 80.0)


def test_the_environment_describes_the_gpu_asked_and_this_machine(monkeypatch):
    monkeypatch.setattr(timing, "commit", lambda: "0123456789ab")
    monkeypatch.setattr(timing, "cpu_model", lambda: "Xeon Gold")
    monkeypatch.setattr(timing, "gpu_facts", lambda i: {"name": f"GPU {i}"})
    monkeypatch.setattr(timing.os, "cpu_count", lambda: 7)
    before = datetime.now(timezone.utc).replace(microsecond=0)
    env = timing.environment(device_index=1, sources="a" * 64)
    date = datetime.fromisoformat(env.pop("date"))
    assert before <= date <= datetime.now(timezone.utc) and date.utcoffset().total_seconds() == 0
    assert env == {"commit": "0123456789ab", "gpu_sources": "a" * 64, "python": platform.python_version(),
                   "platform": platform.platform(), "cpu": "Xeon Gold", "cpu_count": 7, "gpu": {"name": "GPU 1"}}
    assert timing.environment(with_gpu=False, sources="b" * 64)["gpu"] is None


# ---------------------------------------------------------------------------------------------
# The conformance run's record and report.md's table


def test_the_conformance_record_keeps_the_passing_runs_after_warmup_with_the_runs_mode():
    document = {"command": "python -m conformance run x", "mode": "end-to-end", "vectors": [{
        "id": "v1", "log_n": 4, "circuits": 2, "phases": [
            {"phase": "evaluate", "backends": {
                "reference": {"status": "pass", "run_seconds": [0.5]},
                "gpu": {"status": "pass", "run_seconds": [4.0, 0.25, 0.75, 0.5]},
                "gpu:1": {"status": "fail", "run_seconds": [0.25, 0.25]},
                "fault:neg": {"status": "error", "run_seconds": [1.0]},
                "odd": {"status": "pass", "run_seconds": [0.5, None]},
                "none": {"status": "pass", "run_seconds": []},
                "skipped": {"status": "skipped"}}},
            {"phase": "ntt_h", "backends": {"gpu": {"status": "pass", "run_seconds": [2.0, 1.5]}}}]}]}
    timings = conformance_timings(document, dict(CPU_ENV))
    shape = {"log_n": 4, "circuits": 2, "mode": "end-to-end"}
    assert [(e["case"], e["backend"], e["phase"], e["kind"], e["shape"], e["runs"], e["warmup_runs"], e["median"],
             e["spread"]) for e in timings["entries"]] == [
        ("v1", "reference", "evaluate", "phase", shape, [0.5], 0, 0.5, 0.0),
        ("v1", "gpu", "evaluate", "phase", shape, [0.25, 0.75, 0.5], 1, 0.5, 0.5),
        ("v1", "gpu", "ntt_h", "phase", shape, [1.5], 1, 1.5, 0.0)]
    assert (timings["tool"], timings["command"], timings["unit"]) == ("conformance run", "python -m conformance run x",
                                                                      "seconds")


def test_report_md_sums_each_backend_and_phase_over_the_vectors():
    def e(case, backend, phase, runs, warmup):
        return entry(case, "gpu" if backend == "g" else "reference", phase, Stats(runs, warmup))

    entries = [e("v1", "g", "evaluate", (0.5, 0.25, 0.75), 1), e("v1", "g", "msm_h", (2.0, 1.5), 1),
               e("v1", "r", "evaluate", (3.0,), 0), e("v2", "g", "evaluate", (0.125, 0.375), 1),
               e("v2", "g", "msm_h", (1.0, 1.25, 1.5), 1), e("v2", "r", "evaluate", (2.5,), 0)]
    text = timings_markdown(timing_document("conformance run", "c", entries, dict(CPU_ENV)))
    assert text == (
        "## Timing statistics\n\n"
        "Per backend and phase over the vectors that passed (machine: CPU Xeon Gold, commit abc, GPU sources "
        "0123456789ab). Compare two reports with `python -m conformance compare BASELINE/report.json "
        "NEW/report.json` (docs/PERFORMANCE.md).\n\n"
        "| backend | phase | vectors | sum of medians (s) | largest spread (s) | timed runs per vector |\n"
        "|---|---|---|---|---|---|\n"
        "| gpu | evaluate | 2 | 0.750000 | 0.500000 | 2, 3 |\n"
        "| gpu | msm_h | 2 | 3.000000 | 0.500000 | 2, 3 |\n"
        "| reference | evaluate | 2 | 5.500000 | 0.000000 | 1 |\n")
    gpu_env = {**CPU_ENV, "gpu": {"name": "NVIDIA H100"}}
    assert "(machine: GPU NVIDIA H100, commit abc," in timings_markdown(timing_document("t", "c", entries, gpu_env))
