"""conformance/runner.py records every verdict it claims (a mutation audit of the runner, 2026-12-07): mutants that
passed the whole suite before these tests:

* _judged returning None where the oracle raised on the output (an output no oracle can read passed);
* PhaseResult.speedup giving a ratio for a contender that failed (the test checked both statuses only through runs
  where both passed);
* check_vector dropping its ``unavailable`` backends (no 'unavailable' row: the report would not say the GPU was
  never run);
* prover mode reporting run 1's seconds instead of the fastest run's (run 1 pays the one-time costs);
* _describe_error dropping the library frame below our own (only the "no frame of ours" case was tested);
* PhaseResult.failed as all() instead of any() (every test had one backend per phase);
* check_prover storing a failing backend's output (fail, or error's None) in ``verified`` without the PASS condition:
  on a vector without expected values a later phase was judged on a wrong output, or none where another backend had
  passed (check_phase's same mutant was caught only by test_conformance's fault-first case; pinned here directly);
* _run_one reporting run 1's seconds instead of the fastest run's (isolated mode; prover mode's was tested);
* a deterministic backend run ``repeat`` times (prover and isolated mode) instead of once;
* prover mode reporting a phase a prover did not capture (no error) as skipped instead of not implemented;
* check_phase keeping only passing outputs in a backend's own outputs (end-to-end mode feeds a backend its own
  failing output: ntt_h was skipped instead).
"""
import dataclasses
import json

import pytest

from conformance.backends.base import Backend, PhaseRun, ProverRun
from conformance.backends.reference import ReferenceBackend, reference_phase
from conformance.loading import load_cached
from conformance.phases import Problem
from conformance.runner import (
    ERROR, FAIL, NOT_IMPLEMENTED, PASS, SKIPPED, UNAVAILABLE, BackendResult, PhaseResult, _describe_error, check_phase, check_vector,
)
from reference.field import R
from reference.prover import PHASES
from vectors.bundled import DATA_DIR
from vectors.format import CircuitCase

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


# ---------------------------------------------------------------------------------------------
# ``verified`` holds passing outputs only: the inputs of a later phase where the vector has no expected value


def _problem_without_expected() -> Problem:
    vector = load_cached(SMALL)
    bare = [CircuitCase(witness=case.witness, expected=None) for case in vector.circuits]
    return Problem.from_vector(dataclasses.replace(vector, circuits=bare, expected_prep=None))


def _stored_evaluate() -> list:
    """The vector file's own expected evaluate output (independent of this run's backends)."""
    return [case.expected.evaluate for case in load_cached(SMALL).circuits]


class _Honest(Backend):
    """The reference's phases as a backend under test (judged by the oracles, not self-judged); records its inputs."""

    name = "honest"
    deterministic = True

    def __init__(self):
        self.inputs = {}

    def compute(self, phase, problem, inputs):
        self.inputs[phase] = inputs
        return reference_phase(phase, problem, inputs)


class _WrongEvaluate(_Honest):
    """evaluate's a[0] of circuit 0 off by one: a wrong output that its oracle (the reference) fails."""

    name = "wrong-evaluate"

    def compute(self, phase, problem, inputs):
        output = super().compute(phase, problem, inputs)
        if phase == "evaluate":
            first = output[0]
            output = [dataclasses.replace(first, a=((first.a[0] + 1) % R, *first.a[1:])), *output[1:]]
        return output


class _RaisingEvaluate(_Honest):
    name = "raising-evaluate"

    def compute(self, phase, problem, inputs):
        if phase == "evaluate":
            raise RuntimeError("device lost in evaluate")
        return super().compute(phase, problem, inputs)


class _CapturesNoEvaluate(_Honest):
    """A prover that captures no evaluate output (the other phases right): its ntt_h is judged on verified inputs."""

    name = "no-evaluate-capture"

    def run_prover(self, problem, run_index=0):
        run = super().run_prover(problem, run_index)
        run.outputs.pop("evaluate"), run.seconds.pop("evaluate")
        return run


@pytest.mark.parametrize("bad, status", [(_WrongEvaluate, FAIL), (_RaisingEvaluate, ERROR)])
def test_a_later_phase_gets_the_passing_output_never_a_failing_backend_s(bad, status):
    bad, honest = bad(), _Honest()
    result = check_vector(_problem_without_expected(), [bad, honest], phases=("evaluate", "ntt_h"))
    evaluate, ntt = result.phases
    assert (evaluate.oracle, ntt.oracle) == ("reference", "h-identity")
    assert (evaluate.backends[bad.name].status, evaluate.backends["honest"].status) == (status, PASS)
    for backend in (bad, honest):  # both fed honest's evaluate (the stored one), though the failing one came first
        assert backend.inputs["ntt_h"] == {"evaluate": _stored_evaluate()}, backend.name
        outcome = ntt.backends[backend.name]
        assert (outcome.status, outcome.input_source) == (PASS, "verified"), backend.name


def test_a_failing_output_alone_leaves_the_later_phase_without_input():
    bad = _WrongEvaluate()
    result = check_vector(_problem_without_expected(), [bad], phases=("evaluate", "ntt_h"))
    assert result.phases[0].backends[bad.name].status == FAIL
    outcome = result.phases[1].backends[bad.name]
    assert (outcome.status, outcome.message) == (
        SKIPPED, "no input for ntt_h: evaluate has no expected value and no passing output")
    assert "ntt_h" not in bad.inputs


def test_end_to_end_feeds_a_backend_its_own_failing_output():
    bad = _WrongEvaluate()
    result = check_vector(_problem_without_expected(), [bad], phases=("evaluate", "ntt_h"), mode="end-to-end")
    assert result.phases[0].backends[bad.name].status == FAIL
    assert result.phases[1].backends[bad.name].input_source == "own"
    wrong = bad.inputs["ntt_h"]["evaluate"]
    assert wrong != _stored_evaluate() and wrong[0].a[0] == (_stored_evaluate()[0].a[0] + 1) % R


@pytest.mark.parametrize("bad, status", [(_WrongEvaluate, FAIL), (_RaisingEvaluate, ERROR)])
def test_prover_mode_judges_a_later_phase_on_the_passing_output_never_a_failing_backend_s(bad, status):
    """check_prover: the third backend captured no evaluate, so its ntt_h is judged (h identity) on ``verified``'s
    evaluate: honest's right one passes it; the failing backend's (wrong, or none) would fail it."""
    bad = bad()
    result = check_vector(_problem_without_expected(), [bad, _Honest(), _CapturesNoEvaluate()], phases=("evaluate", "ntt_h"),
                          mode="prover")
    evaluate, ntt = result.phases
    assert evaluate.backends[bad.name].status == status
    assert evaluate.backends["honest"].status == PASS
    assert evaluate.backends["no-evaluate-capture"].status == NOT_IMPLEMENTED
    outcome = ntt.backends["no-evaluate-capture"]
    assert (outcome.status, outcome.mismatch) == (PASS, None)


class _SlowFirstPhaseRun(Backend):
    """Non-deterministic (as the GPU is): every run of a phase gives the reference's output; runs take 5, 2, 1 s."""

    name = "slow-first-phase-run"

    def __init__(self):
        self.calls = 0

    def run_phase(self, phase, problem, inputs):
        seconds = (5.0, 2.0, 1.0)[self.calls]
        self.calls += 1
        return PhaseRun(output=reference_phase(phase, problem, inputs), seconds=seconds)


def test_isolated_mode_reports_the_fastest_run_s_seconds():
    backend = _SlowFirstPhaseRun()
    outcome = check_phase(_problem(), "evaluate", [backend], repeat=3).backends[backend.name]
    assert (outcome.status, outcome.seconds, outcome.run_seconds, backend.calls) == (PASS, 1.0, [5.0, 2.0, 1.0], 3)


class _CountingDeterministic(_Honest):
    name = "counting-deterministic"

    def __init__(self):
        super().__init__()
        self.phase_runs = self.prover_runs = 0

    def run_phase(self, phase, problem, inputs):
        self.phase_runs += 1
        return super().run_phase(phase, problem, inputs)

    def run_prover(self, problem, run_index=0):
        self.prover_runs += 1
        return super().run_prover(problem, run_index)


@pytest.mark.parametrize("mode", ["isolated", "prover"])
def test_a_deterministic_backend_runs_once_whatever_the_repeat(mode):
    backend = _CountingDeterministic()
    result = check_vector(_problem(), [backend], phases=("evaluate",), mode=mode, repeat=3)
    assert result.phases[0].backends[backend.name].status == PASS
    assert (backend.prover_runs, backend.phase_runs) == ((0, 1) if mode == "isolated" else (1, len(PHASES)))
