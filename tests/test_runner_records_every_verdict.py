"""conformance/runner.py records every verdict it claims (a mutation audit of the runner, 2026-12-07): mutants that
passed the whole suite before these tests:

* _judged returning None where the oracle raised on the output (an output no oracle can read passed);
* PhaseResult.speedup giving a ratio for a contender that failed (the test checked both statuses only through runs
  where both passed);
* check_vector dropping its ``unavailable`` backends (no 'unavailable' row: the report would not say the GPU was
  never run);
* prover mode reporting run 1's seconds instead of the fastest run's (run 1 pays the one-time costs);
* _describe_error dropping the library frame below our own (only the "no frame of ours" case was tested);
* PhaseResult.failed as all() instead of any() (every test had one backend per phase).
"""
import json

import pytest

from conformance.backends.base import Backend, ProverRun
from conformance.backends.reference import ReferenceBackend
from conformance.loading import load_cached
from conformance.phases import Problem
from conformance.runner import (
    ERROR, FAIL, PASS, UNAVAILABLE, BackendResult, PhaseResult, _describe_error, check_phase, check_vector,
)
from reference.prover import PHASES
from vectors.bundled import DATA_DIR

SMALL = DATA_DIR / "porep-log04.json"


def _problem() -> Problem:
    return Problem.from_vector(load_cached(SMALL))


class _Unreadable(Backend):
    """ntt_h's output is [None]: neither the expected value's comparison nor the h-identity oracle can read it (both
    raise a TypeError), so the runner's _judged must turn that into a mismatch, never a pass."""

    name = "unreadable"

    def compute(self, phase, problem, inputs):
        return [None]


@pytest.mark.parametrize("prefer_oracle, oracle", [(False, "expected"), (True, "h-identity")])
def test_an_output_the_judge_cannot_read_fails_never_passes(prefer_oracle, oracle):
    result = check_phase(_problem(), "ntt_h", [_Unreadable()], prefer_oracle=prefer_oracle)
    assert result.oracle == oracle
    outcome = result.backends["unreadable"]
    assert outcome.status == FAIL and result.failed
    m = outcome.mismatch
    assert (m.phase, m.circuit, m.query) == ("ntt_h", None, "output")
    assert m.expected == f"an output the {oracle} oracle can read"
    assert m.actual.startswith("TypeError: ")


def test_speedup_only_between_two_passing_timed_backends():
    def phase(reference: str, gpu: str) -> PhaseResult:
        result = PhaseResult("msm_h", "expected")
        result.backends["reference"] = BackendResult(reference, seconds=3.0)
        result.backends["gpu"] = BackendResult(gpu, seconds=0.5, transfer_seconds=0.25)
        return result

    assert phase(PASS, PASS).speedup() == 6.0
    assert phase(PASS, PASS).speedup(with_transfers=True) == 4.0
    assert phase(PASS, FAIL).speedup() is None  # a wrong answer fast is no speed-up
    assert phase(PASS, ERROR).speedup() is None
    assert phase(FAIL, PASS).speedup() is None


def test_a_phase_fails_when_any_backend_fails_not_only_when_all_do():
    result = PhaseResult("msm_h", "expected")
    result.backends["reference"] = BackendResult(PASS)
    result.backends["gpu"] = BackendResult(FAIL)
    assert result.failed
    result.backends["gpu"] = BackendResult(ERROR)
    assert result.failed
    result.backends["gpu"] = BackendResult(UNAVAILABLE)
    assert not result.failed


def test_an_unavailable_backend_is_recorded_as_such_in_every_phase():
    reason = "no CUDA device: cupy is not installed"
    result = check_vector(_problem(), [ReferenceBackend()], unavailable={"gpu": reason})
    assert [p.phase for p in result.phases] == list(PHASES)
    for phase_result in result.phases:
        gpu = phase_result.backends["gpu"]
        assert (gpu.status, gpu.message) == (UNAVAILABLE, reason), phase_result.phase
        assert phase_result.backends["reference"].status in (PASS, "skipped")


class _SlowFirstRun(ReferenceBackend):
    """Non-deterministic (as the GPU is): every run gives the reference's outputs; run 1 takes 5 s a phase (one-time
    costs), runs 2 and 3 take 2 s and 1 s."""

    name = "slow-first-run"
    deterministic = False
    is_reference = False

    def run_prover(self, problem, run_index=0):
        outputs = super().run_prover(problem, run_index).outputs
        seconds = (5.0, 2.0, 1.0)[run_index]
        return ProverRun(outputs=dict(outputs), seconds={p: seconds for p in outputs})


def test_prover_mode_reports_the_fastest_run_s_seconds():
    result = check_vector(_problem(), [_SlowFirstRun()], mode="prover", repeat=3)
    for phase_result in result.phases:
        outcome = phase_result.backends["slow-first-run"]
        assert (outcome.status, outcome.seconds) == (PASS, 1.0), phase_result.phase


def test_an_error_inside_a_library_names_our_frame_and_the_library_s():
    def ours():
        json.loads("{")  # raises inside the json package

    try:
        ours()
    except json.JSONDecodeError as exc:
        described = _describe_error(exc)
    line = ours.__code__.co_firstlineno + 1
    assert described.startswith(f"JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 "
                                f"(char 1) (at tests/test_runner_records_every_verdict.py:{line}, in ")
    assert described.endswith(")") and described.count(", in ") == 1
    library_frame = described.rsplit(", in ", 1)[1][:-1]
    assert library_frame.split(":")[0] in ("decoder.py", "__init__.py") and library_frame.split(":")[1].isdigit()
