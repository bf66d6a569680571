"""conformance --mode prover: each backend's whole prover runs once per repeat and every phase output, captured at
its boundary, is judged against the vector's expected values; the GPU runs gpu.multi.prove_multi (what
`python -m gpu prove` runs) with gpu.prover's capture hook. Also the generated gate cases' bookkeeping.

Independent sources: the vectors' expected values (the reference prover's, checked in), planted faults that
must be named, and gpu/trapdoor.py check results mapped onto phases.
"""
import functools

import pytest

from conformance.__main__ import main
from conformance.backends.reference import ReferenceBackend
from conformance.faults import FAULTS, FaultyBackend
from conformance.loading import load_cached
from conformance.phases import Problem
from conformance.runner import ERROR, FAIL, PASS, check_vector
from reference.prover import PHASES
from vectors.bundled import DATA_DIR

SMALL = DATA_DIR / "porep-log05.json"
MULTI = DATA_DIR / "multi-circuit-log07.json"


@functools.lru_cache(maxsize=None)
def _problem(path) -> Problem:
    return Problem.from_vector(load_cached(path))


def _statuses(result, backend: str) -> dict:
    return {p.phase: p.backends[backend].status for p in result.phases}


def test_the_reference_prover_passes_every_phase_of_a_multi_circuit_vector():
    result = check_vector(_problem(MULTI), [ReferenceBackend()], mode="prover")
    assert result.vector_id == "multi-circuit-log07 [prover]" and result.mode == "prover"
    assert _statuses(result, "reference") == {p: PASS for p in PHASES}


def test_a_faulty_prover_fails_first_in_the_faulty_phase_and_names_the_element():
    backend = FaultyBackend(FAULTS["ntt-drop-last-h"])
    result = check_vector(_problem(SMALL), [ReferenceBackend(), backend], mode="prover")
    statuses = _statuses(result, backend.name)
    first_failure = next(p for p in PHASES if statuses[p] != PASS)
    assert first_failure == "ntt_h" and statuses["ntt_h"] == FAIL
    mismatch = result.phases[PHASES.index("ntt_h")].backends[backend.name].mismatch
    assert (mismatch.circuit, mismatch.query, mismatch.index) == (0, "h", 30)
    assert statuses["evaluate"] == statuses["prep"] == PASS and statuses["assemble"] != PASS


def test_a_prover_that_differs_between_runs_fails_even_when_its_first_run_is_right():
    """msm-racy adds G1 in every second msm_h run: the first prover run is right, the second differs."""
    backend = FaultyBackend(FAULTS["msm-racy"])
    result = check_vector(_problem(SMALL), [backend], mode="prover", repeat=2)
    outcome = result.phases[PHASES.index("msm_h")].backends[backend.name]
    assert outcome.status == FAIL and "run 2 of 2" in outcome.message and "run 2 vs run 1" in outcome.mismatch.query


def test_command_line_prover_mode(tmp_path, capsys):
    assert main(["run", str(SMALL), "--backends", "reference", "--mode", "prover", "--report", str(tmp_path), "--quiet"]) == 0
    assert "porep-log05 [prover]" in capsys.readouterr().out
    assert main(["run", str(SMALL), "--backends", "fault:assemble-r-s-swapped", "--mode", "prover", "--report", str(tmp_path),
                 "--quiet"]) == 1
    assert "porep-log05 [prover] assemble [fault:assemble-r-s-swapped, judged by expected]: circuit 0, proof.a" in capsys.readouterr().out


# ------------------------------------------------------------------ generated cases (bookkeeping, no GPU)


def test_generated_case_arguments_are_split_from_paths_and_unknown_ones_refused():
    from conformance.generated import GENERATED_CASES, split_names
    from reference.errors import InvalidInputError

    paths, cases = split_names(["a.json", "generated:porep-log11"])
    assert paths == ["a.json"] and cases == [GENERATED_CASES["porep-log11"]]
    with pytest.raises(InvalidInputError, match="unknown generated case"):
        split_names(["generated:porep-log99"])


def test_generated_cases_reach_the_paths_the_bundled_vectors_do_not():
    """Two- and three-pass NTT sizes, the c = 16 window and a one-circuit-at-a-time run are in the generated set."""
    from conformance.generated import GENERATED_CASES
    from gpu.msm import kernel_window_bits
    from gpu.ntt import plan_passes

    cases = GENERATED_CASES.values()
    assert all(len(plan_passes(c.log_n)) >= 2 for c in cases) and any(len(plan_passes(c.log_n)) == 3 for c in cases)
    assert any(kernel_window_bits((1 << c.log_n) - 1) == 16 for c in cases)
    assert any(c.max_block == 1 for c in cases) and any(c.circuits > 1 and c.max_block != 1 for c in cases)


def test_trapdoor_checks_become_phase_verdicts():
    from gpu.trapdoor import CheckResult

    from conformance.generated import _outcomes_from_checks

    names = ["proof verifies (pairing check)", "ntt_h: A(x)B(x) - C(x) = h(x)(x^n - 1) at a random x",
             "msm_h against the trapdoor", "batch_add l against the trapdoor", "tail_msm b_g2 against the trapdoor"]
    checks = [(k, CheckResult(name, True)) for k in (0, 1) for name in names]
    checks[-1] = (1, CheckResult(names[-1], False, "0x1 != 0x2"))
    outcomes = _outcomes_from_checks(checks, {"tail_msm": 0.5}, circuits=2)
    assert {p: o.status for p, o in outcomes.items()} == {
        "ntt_h": PASS, "msm_h": PASS, "batch_add": PASS, "tail_msm": FAIL, "assemble": PASS,
        "evaluate": "skipped", "prep": "skipped"}
    assert outcomes["tail_msm"].mismatch.location().startswith("circuit 1, tail_msm b_g2")


def test_a_phase_that_no_check_judged_for_some_circuit_is_an_error_not_a_pass():
    from gpu.trapdoor import CheckResult

    from conformance.generated import _outcomes_from_checks

    checks = [(0, CheckResult("msm_h against the trapdoor", True))]
    outcomes = _outcomes_from_checks(checks, {}, circuits=2)
    assert outcomes["msm_h"].status == ERROR and outcomes["msm_h"].message == "no msm_h check judged circuit(s) 1"
    assert {outcomes[p].status for p in ("ntt_h", "batch_add", "tail_msm", "assemble")} == {ERROR}


# ------------------------------------------------------------------ on the device


@pytest.mark.gpu
@pytest.mark.parametrize("path", [SMALL, MULTI, DATA_DIR / "edge-split-half-1.json"], ids=lambda p: p.stem)
def test_gpu_prover_mode_passes_in_both_block_layouts(path):
    from conformance.backends.gpu import GpuBackend

    result = check_vector(_problem(path), [GpuBackend()], mode="prover", repeat=2)
    assert _statuses(result, "gpu") == {p: PASS for p in PHASES}


@pytest.mark.gpu
def test_the_capture_hook_changes_no_proof():
    from reference.cli import proof_json

    from conformance.backends.gpu import PhaseCapturer
    from gpu.prover import prove

    vector = load_cached(MULTI)
    plain = prove(vector.r1cs, vector.pk, vector.witnesses, convention=vector.convention)
    capturer = PhaseCapturer()
    captured = prove(vector.r1cs, vector.pk, vector.witnesses, convention=vector.convention, capture=capturer)
    assert [proof_json(p) for p in captured.proofs] == [proof_json(p) for p in plain.proofs]
    assert set(capturer.outputs()) == set(PHASES)
