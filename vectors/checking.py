"""`python -m vectors check`: every value a vector states is what the reference computes from the vector's inputs.

A vector's inputs are its R1CS, keys, witnesses and blinding scalars r, s; everything else it holds is a claim:

* ``trapdoor`` (optional): the keys are those ``reference.setup`` makes from these secrets;
* ``circuits[i].expected`` and the top-level ``prep`` (optional, present for all circuits or for none): every
  phase's output, as ``reference.prover.prove`` computes it;
* ``flags``: each flag's property of the vector's data (vectors/flags.py, after the values: in full and ``--fast``).

The full check recomputes each claim with the reference (its group arithmetic by ``curve``: the fast library where
installed, the pure-Python definition with ``--reference``; reference/msm.py ``ReferenceCurve``) and compares the canonical encodings (the vector
document itself), naming the first field that differs, then runs the pairing oracle on every stated proof (the
recomputation takes the keys as given: only the pairing ties the proving key to the verifying key). ``--fast``
judges by the independent oracles instead (conformance/oracles.py): the keys' points at both ends of every query against the trapdoor, the verifying
key exactly; evaluate and prep recomputed (linear time); ntt_h by the h identity at a random point; msm_h,
batch_add and tail_msm by the trapdoor (by the reference where the vector has none; ntt_h by the reference in the
snarkjs convention, whose h is not coefficients); the proof by the pairing
equation, which any valid proof passes: only the full check pins the proof to the stated r and s.
"""
import dataclasses

from reference.errors import InvalidInputError
from reference.evaluate import evaluate
from reference.prep import prep
from reference.prover import PHASES, prove
from reference.r1cs import witness_vector
from reference.field import R, inv
from reference.msm import REFERENCE_CURVE
from reference.setup import qap_at, setup

from . import fast_library
from .flags import check_flags
from .format import CircuitCase, Vector, check_sections, check_witnesses_satisfied, vector_document


def check_vector_values(vector: Vector, fast: bool = False, say=lambda message: None, curve=REFERENCE_CURVE) -> str:
    """Raise InvalidInputError naming the first field whose value the reference does not reproduce, or the first flag
    whose property does not hold (vectors/flags.py); return a one-line summary of what was checked. ``curve`` does the group arithmetic of the recomputation."""
    check_witnesses_satisfied(vector)
    with_expected = [case.expected is not None for case in vector.circuits]
    check_sections(with_expected, has_prep=vector.expected_prep is not None)  # a Vector built in code (importers) too
    has_expected = all(with_expected)
    checked = ["witnesses satisfy the R1CS"]
    if vector.trapdoor is not None:
        say(f"{vector.id}: keys from the trapdoor")
        _check_trapdoor_oracle(vector) if fast else _check_trapdoor(vector, curve, say)
        checked.append("keys match the trapdoor" + (" (verifying key; both ends of every query)" if fast else f" (by {curve.name})"))
    if has_expected:
        say(f"{vector.id}: expected outputs")
        if fast:
            _check_expected_oracles(vector)
        else:
            _check_expected(vector, curve, say)
            _check_proofs_verify(vector, curve)
        checked.append("expected outputs " + ("by the oracles" if fast else f"recomputed by the reference (group sums by {curve.name}), "
                                              "proofs by the pairing check"))
    if vector.flags:
        say(f"{vector.id}: flags")
        checked.append(f"{check_flags(vector)} flag(s) checked")
    return "; ".join(checked)


def _first_different_field(mine, theirs, path: str = "") -> str | None:
    """The path of the first field where two JSON documents differ (None if equal)."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in list(mine) + [k for k in theirs if k not in mine]:
            found = _first_different_field(mine.get(key), theirs.get(key), f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    if isinstance(mine, list) and isinstance(theirs, list):
        for i, (a, b) in enumerate(zip(mine, theirs)):
            found = _first_different_field(a, b, f"{path}[{i}]")
            if found:
                return found
        return None if len(mine) == len(theirs) else f"{path} (length)"
    return None if mine == theirs else path


def _compare(stated: Vector, computed: Vector, sections: tuple[str, ...], what: str) -> None:
    mine, _ = vector_document(stated, stated.id)
    theirs, _ = vector_document(computed, stated.id)
    for section in sections:
        where = _first_different_field(mine.get(section), theirs.get(section), section)
        if where:
            raise InvalidInputError(where, f"is not what {what}")


def _check_trapdoor(vector: Vector, curve, say) -> None:
    keys = setup(vector.r1cs, vector.trapdoor, vector.convention, progress=say, curve=curve)
    recomputed = dataclasses.replace(vector, pk=keys)
    _compare(vector, recomputed, ("verifying_key", "proving_key"), "reference/setup.py makes from the vector's trapdoor")


def _check_expected(vector: Vector, curve, say) -> None:
    outputs, _ = prove(vector.r1cs, vector.pk, vector.witnesses, vector.convention, progress=say, curve=curve)
    cases = [CircuitCase(witness=case.witness, expected=outputs.circuit(c)) for c, case in enumerate(vector.circuits)]
    recomputed = dataclasses.replace(vector, circuits=cases, expected_prep=outputs.prep)
    _compare(vector, recomputed, ("prep", "circuits"), "the reference prover computes from the vector's inputs")


def first_failing_proof(vector: Vector, curve=REFERENCE_CURVE):
    """conformance's pairing oracle (oracles.py ``check_pairing``) on the vector's expected proofs: the first Mismatch,
    or None. The pairing is the library's where ``curve`` is (as the recomputation's group sums), else py_ecc's."""
    from conformance.oracles import check_pairing
    from conformance.phases import Problem, expected_output

    return check_pairing(Problem.from_vector(vector), expected_output(vector, "assemble"), fast_library.verifier_for(curve))


def _check_proofs_verify(vector: Vector, curve) -> None:
    """The pairing oracle, as --fast runs it: recomputing takes the keys as given, so a proving key that does not
    belong to its verifying key (an L point changed) gives the same failing proof twice; only the pairing ties them."""
    from conformance.oracles import PAIRING

    mismatch = first_failing_proof(vector, curve)
    if mismatch is not None:
        _refuse_mismatch(PAIRING, "assemble", mismatch)


def _refuse_mismatch(oracle: str, phase: str, mismatch) -> None:
    """InvalidInputError naming the expected field that ``oracle`` found wrong."""
    field = "circuits" if mismatch.circuit is None else f"circuits[{mismatch.circuit}]"
    raise InvalidInputError(f"{field}.expected.{'proof' if phase == 'assemble' else phase}", f"fails the {oracle} oracle: {mismatch.describe()}")


# ----------------------------------------------------------------------------------------------
# --fast: the conformance oracles


def _check_trapdoor_oracle(vector: Vector) -> None:
    from py_ecc.optimized_bls12_381 import G1, G2, multiply

    from conformance.oracles import key_discrete_logs
    from conformance.phases import Problem

    t, vk = vector.trapdoor, vector.pk.vk
    problem = Problem.from_vector(vector)
    secrets = {"alpha_g1": (t.alpha, G1), "beta_g1": (t.beta, G1), "beta_g2": (t.beta, G2), "delta_g1": (t.delta, G1), "delta_g2": (t.delta, G2), "gamma_g2": (t.gamma, G2)}
    u, v, w = qap_at(vector.r1cs, problem.domain, t.tau)
    gamma_inv = inv(t.gamma)
    ic = tuple(multiply(G1, (t.beta * u[i] + t.alpha * v[i] + w[i]) * gamma_inv % R) for i in range(vector.r1cs.num_inputs))
    keys = dataclasses.replace(vector.pk, vk=dataclasses.replace(vk, ic=ic, **{k: multiply(g, x) for k, (x, g) in secrets.items()}))
    _compare(vector, dataclasses.replace(vector, pk=keys), ("verifying_key",), "reference/setup.py's formulas give from the vector's trapdoor")
    key_discrete_logs(problem)  # every query's first and last point


def _check_expected_oracles(vector: Vector) -> None:
    from conformance.oracles import choose_oracle, judge
    from conformance.phases import Problem, expected_output

    problem = Problem.from_vector(vector)
    zs = [witness_vector(vector.r1cs, w.public_inputs, w.aux, c) for c, w in enumerate(vector.witnesses)]
    cheap = {
        "evaluate": [evaluate(vector.r1cs, z, vector.convention) for z in zs],
        "prep": prep(zs, vector.r1cs.num_inputs, vector.r1cs.num_aux, vector.pk.density),
    }
    outputs = dataclasses.replace(_expected_outputs(vector), **cheap)
    cases = [CircuitCase(witness=case.witness, expected=outputs.circuit(c)) for c, case in enumerate(vector.circuits)]
    _compare(vector, dataclasses.replace(vector, circuits=cases, expected_prep=cheap["prep"]), ("prep", "circuits"), "the reference computes (evaluate, prep)")
    consumed = {"ntt_h": ("evaluate",), "msm_h": ("ntt_h",), "batch_add": ("prep",), "tail_msm": ("prep",), "assemble": ("msm_h", "batch_add", "tail_msm")}
    for phase, needs in consumed.items():
        oracle = choose_oracle(phase, problem, has_expected=True, prefer_oracle=True)  # snarkjs's ntt_h: the reference
        inputs = {p: expected_output(vector, p) for p in needs}
        mismatch = judge(oracle, phase, problem, inputs, expected_output(vector, phase))
        if mismatch is not None:
            _refuse_mismatch(oracle, phase, mismatch)


def _expected_outputs(vector: Vector):
    """The vector's expected values as one PhaseOutputs (per-circuit lists)."""
    from reference.prover import PhaseOutputs

    per_circuit = [case.expected for case in vector.circuits]
    return PhaseOutputs(**{p: [getattr(e, p) for e in per_circuit] for p in PHASES if p != "prep"}, prep=vector.expected_prep)
