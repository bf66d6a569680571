"""conformance judges every run and every circuit (session 45's mutation audit): prover mode compares EVERY repeated
run with run 1 (a mutation that compared run 2 only passed the whole suite, whose racy fault differs in run 2; here
only run 3 of 3 differs), and the h-identity and pairing oracles fail an output with fewer circuits than the vector."""
import json

from py_ecc.optimized_bls12_381 import G1, add

from conformance.backends.base import ProverRun
from conformance.backends.reference import ReferenceBackend
from conformance.loading import load_cached
from conformance.phases import Problem
from conformance.runner import FAIL, PASS, check_vector
from reference.prover import PHASES
from vectors.bundled import DATA_DIR

SMALL = DATA_DIR / "porep-log05.json"


class _ThirdRunDiffers(ReferenceBackend):
    """Non-deterministic (as the GPU is): every prover run gives the reference's outputs, but run 3 adds G1 to
    circuit 0's msm_h."""

    name = "third-run-differs"
    deterministic = False
    is_reference = False

    def run_prover(self, problem, run_index=0):
        outputs = dict(super().run_prover(problem, run_index).outputs)
        if run_index == 2:
            outputs["msm_h"] = [add(outputs["msm_h"][0], G1), *outputs["msm_h"][1:]]
        return ProverRun(outputs=outputs)


def test_a_prover_whose_third_run_alone_differs_fails_naming_run_3():
    result = check_vector(Problem.from_vector(load_cached(SMALL)), [_ThirdRunDiffers()], mode="prover", repeat=3)
    statuses = {p.phase: p.backends["third-run-differs"].status for p in result.phases}
    assert statuses == {p: FAIL if p == "msm_h" else PASS for p in PHASES}
    outcome = result.phases[PHASES.index("msm_h")].backends["third-run-differs"]
    assert outcome.message == "run 3 of 3 differs from run 1"
    m = outcome.mismatch
    assert (m.phase, m.circuit, m.query, m.index) == ("msm_h", 0, "h (run 3 vs run 1)", None)
    # run 1's value is the vector's checked-in expected msm_h of circuit 0
    assert m.expected == json.loads(SMALL.read_text())["circuits"][0]["expected"]["msm_h"]["h"] != m.actual


# The oracles judge every circuit: an output with fewer circuits than the vector fails (mutations that dropped the
# circuit-count checks of check_h_identity and check_pairing passed the suite: zip() judged the circuits given only).

TWO_CIRCUITS = DATA_DIR / "edge-split-half-1.json"


def _two_circuit_problem() -> Problem:
    problem = Problem.from_vector(load_cached(TWO_CIRCUITS))
    assert len(problem.vector.circuits) == 2
    return problem


def test_the_h_identity_oracle_fails_an_output_with_one_circuit_of_two():
    from conformance.oracles import check_h_identity
    from conformance.phases import expected_output

    problem = _two_circuit_problem()
    evaluations, hs = expected_output(problem.vector, "evaluate"), expected_output(problem.vector, "ntt_h")
    assert check_h_identity(problem, evaluations, hs) is None  # both circuits' h are right
    m = check_h_identity(problem, evaluations, hs[:1])
    assert (m.phase, m.circuit, m.query, m.index, m.expected, m.actual) == ("ntt_h", None, "circuits", None, "2 circuits", "1 circuits")


def test_the_pairing_oracle_fails_an_output_with_one_proof_of_two():
    from conformance.oracles import check_pairing
    from conformance.phases import expected_output

    problem = _two_circuit_problem()
    proofs = expected_output(problem.vector, "assemble")
    assert check_pairing(problem, proofs) is None
    m = check_pairing(problem, proofs[:1])
    assert (m.phase, m.circuit, m.query, m.index, m.expected, m.actual) == ("assemble", None, "circuits", None, "2 proofs", "1 proofs")
