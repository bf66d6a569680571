"""Independent judges for sizes where the reference prover is too slow, or where a vector has no
expected value.

* ``trapdoor`` (msm_h, batch_add, tail_msm): with the vector's test-only setup secrets every key
  point is a known multiple of the generator, k_i * G, with k_i from reference/setup.py's formulas
  (``qap_at``: u_i, v_i, w_i at tau). So sum_i s_i * P_i = (sum_i s_i k_i mod r) * G: one scalar
  multiplication on the CPU instead of an MSM.
* ``h-identity`` (ntt_h): h is right iff a(x) b(x) - c(x) = h(x) Z(x) as polynomials; both sides are
  evaluated at a random x (a(x) = sum_j a_j l_j(x) with the Lagrange basis,
  ``EvaluationDomain.lagrange_at``; h(x) by Horner). By Schwartz-Zippel a wrong h passes with
  probability at most (2n - 2)/r < 2^-220. It holds for h's coefficients (the bellman convention); a
  snarkjs vector's ntt_h outputs coset values, so the reference judges it there.
* ``pairing`` (assemble): the proof's points lie in G1, G2, G1 and it verifies, e(A, B) = e(alpha, beta)
  e(X, gamma) e(C, delta) (``reference.verifier.verify``). It accepts any valid proof, so it cannot see, e.g., r and s
  swapped (that is another valid proof); the expected values can.
* ``reference`` (evaluate, prep, and any phase without a trapdoor): the reference implementation on
  the same inputs; evaluate and prep are linear-time and cheap at any size.
* ``expected``: the vector's expected output.
* ``arkworks`` (msm_h, batch_add, tail_msm, assemble; only with ``--oracle-library arkworks``): the same
  MSMs and the pairing check recomputed by an independent library (conformance/independent_library.py).

Each judge returns None when the output is right, else the first ``Mismatch``.
"""
import secrets
from dataclasses import dataclass

from py_ecc.optimized_bls12_381 import G1, G2, Z1, Z2, multiply

from reference.domain import Basis, EvaluationDomain, evaluate_polynomial
from reference.errors import InvalidInputError
from reference.evaluate import Evaluations
from reference.field import R, inv
from reference.keys import QuerySums
from reference.prep import Prep, bitmap_bits
from reference.setup import qap_at
from reference.verifier import OUTSIDE_THE_SUBGROUP, proof_point_outside_its_group, verify

from . import independent_library
from .compare import Mismatch, first_difference, point_text, scalar_text
from .phases import Problem

EXPECTED, REFERENCE, TRAPDOOR, H_IDENTITY, PAIRING = "expected", "reference", "trapdoor", "h-identity", "pairing"
ORACLES = (REFERENCE, EXPECTED, TRAPDOOR, H_IDENTITY, PAIRING) + independent_library.LIBRARIES

INDEPENDENT_ORACLE = {
    "evaluate": REFERENCE,
    "ntt_h": H_IDENTITY,
    "msm_h": TRAPDOOR,
    "prep": REFERENCE,
    "batch_add": TRAPDOOR,
    "tail_msm": TRAPDOOR,
    "assemble": PAIRING,
}
"""The judge of each phase when the expected value is not used."""


def choose_oracle(phase: str, problem: Problem, has_expected: bool, prefer_oracle: bool, library: str | None = None) -> str:
    """``library`` (--oracle-library) for the phases it judges; else 'expected' when the vector has the value
    and no oracle was asked for; else the phase's independent oracle, with the reference standing in for the
    trapdoor when the vector has none, and for the h identity when h is not coefficients (snarkjs convention)."""
    if library is not None and phase in independent_library.PHASES:
        return library
    if has_expected and not prefer_oracle:
        return EXPECTED
    oracle = INDEPENDENT_ORACLE[phase]
    if oracle == TRAPDOOR and problem.vector.trapdoor is None:
        return REFERENCE
    if oracle == H_IDENTITY and problem.vector.convention.quotient_basis is not Basis.MONOMIAL:
        return REFERENCE
    return oracle


# ---------------------------------------------------------------------------------------------
# Trapdoor: discrete logarithms of every proving-key point


@dataclass(frozen=True)
class KeyLogs:
    """k_i with P_i = k_i * G for each point of each query (b serves B_G1 and B_G2)."""

    h: tuple[int, ...]
    """tau^i Z(tau) / delta, i = 0..n-2"""
    l: tuple[int, ...]
    """(beta u_i(tau) + alpha v_i(tau) + w_i(tau)) / delta for each aux variable"""
    a: tuple[int, ...]
    """u_i(tau) for the A query's variables"""
    b: tuple[int, ...]
    """v_i(tau) for the B query's variables"""


def key_discrete_logs(problem: Problem) -> KeyLogs:
    """The discrete logs of the proving key from the vector's trapdoor (reference/setup.py's formulas),
    checked against the first and last point of every query; cached per problem."""
    if "key_logs" not in problem.memo:
        logs = _key_logs(problem)
        _check_logs_match_keys(problem, logs)
        problem.memo["key_logs"] = logs
    return problem.memo["key_logs"]


def _key_logs(problem: Problem) -> KeyLogs:
    vector, domain = problem.vector, problem.domain
    t = vector.trapdoor
    if t is None:
        raise InvalidInputError("trapdoor", f"vector {vector.id} has no trapdoor; the trapdoor oracle needs one")
    r1cs, density = vector.r1cs, vector.pk.density
    u, v, w = qap_at(r1cs, domain, t.tau)
    delta_inv = inv(t.delta)
    h_coefficient = domain.z_at(t.tau) * delta_inv % R
    n_in = r1cs.num_inputs
    return KeyLogs(
        h=tuple(pow(t.tau, i, R) * h_coefficient % R for i in range(domain.n - 1)),
        l=tuple((t.beta * u[i] + t.alpha * v[i] + w[i]) * delta_inv % R for i in range(n_in, r1cs.num_variables)),
        a=tuple(u[i] for i in density.a_variables(n_in)),
        b=tuple(v[i] for i in density.b_variables(n_in)),
    )


def _check_logs_match_keys(problem: Problem, logs: KeyLogs) -> None:
    """Spot-check k_i * G == P_i at both ends of each query: a trapdoor that does not belong to the
    keys would make every trapdoor verdict wrong."""
    pk = problem.vector.pk
    for query, points, group, generator in (
        ("h", pk.h, "g1", G1), ("l", pk.l, "g1", G1), ("a", pk.a, "g1", G1), ("b_g1", pk.b_g1, "g1", G1), ("b_g2", pk.b_g2, "g2", G2),
    ):
        query_logs = getattr(logs, query[0])
        for i in sorted({0, len(points) - 1}) if points else ():
            if point_text(multiply(generator, query_logs[i]), group) != point_text(points[i], group):
                raise InvalidInputError("trapdoor", f"does not match proving_key.{query}[{i}]: the trapdoor oracle cannot be used")


def _times_generator(k: int, generator, identity):
    return multiply(generator, k % R) if k % R else identity


def trapdoor_msm_h(problem: Problem, hs) -> list:
    """sum_i h_i * H_i = (sum_i h_i tau^i) Z(tau)/delta * G1 for each circuit's h."""
    logs = key_discrete_logs(problem).h
    return [_times_generator(sum(c * k for c, k in zip(h, logs)), G1, Z1) for h in hs]


def _query_sums(weights_by_query: dict[str, list[int]]) -> QuerySums:
    """QuerySums from the discrete log of each query's sum (b's log gives B_G1 and B_G2)."""
    return QuerySums(
        l=_times_generator(weights_by_query["l"], G1, Z1),
        a=_times_generator(weights_by_query["a"], G1, Z1),
        b_g1=_times_generator(weights_by_query["b"], G1, Z1),
        b_g2=_times_generator(weights_by_query["b"], G2, Z2),
    )


def trapdoor_batch_add(problem: Problem, prep: Prep) -> list[QuerySums]:
    """Per circuit: sum of k_i over the bits set in its bitmap, times G, for L, A, B_G1, B_G2."""
    logs = key_discrete_logs(problem)
    circuits = len(prep.l.bitmaps)
    return [
        _query_sums({
            q: sum(k for k, bit in zip(getattr(logs, q), bitmap_bits(getattr(prep, q).bitmaps[c], len(getattr(logs, q)))) if bit)
            for q in ("l", "a", "b")
        })
        for c in range(circuits)
    ]


def trapdoor_tail_msm(problem: Problem, prep: Prep) -> list[QuerySums]:
    """Per circuit: sum_k tail_scalars[k] * k_{tail_indices[k]}, times G, for L, A, B_G1, B_G2."""
    logs = key_discrete_logs(problem)
    circuits = len(prep.l.tail_scalars)
    return [
        _query_sums({
            q: sum(s * getattr(logs, q)[i] for s, i in zip(getattr(prep, q).tail_scalars[c], getattr(prep, q).tail_indices))
            for q in ("l", "a", "b")
        })
        for c in range(circuits)
    ]


# ---------------------------------------------------------------------------------------------
# h identity


def random_point_off_domain(domain: EvaluationDomain) -> int:
    """A uniformly random x in Fr with Z(x) != 0 (the Lagrange formula needs x outside H)."""
    while True:
        x = secrets.randbelow(R)
        if domain.z_at(x):
            return x


def h_identity_sides(evals: Evaluations, h, domain: EvaluationDomain, x: int, lagrange=None) -> tuple[int, int]:
    """(a(x) b(x) - c(x), h(x) Z(x)) with a(x) = sum_j a_j l_j(x) (likewise b, c) and h(x) by Horner;
    equal for every x iff h is the quotient (a b - c) / Z. ``lagrange`` = domain.lagrange_at(x) if given."""
    basis = domain.lagrange_at(x) if lagrange is None else lagrange
    a, b, c = (sum(value * l for value, l in zip(values, basis)) % R for values in (evals.a, evals.b, evals.c))
    return (a * b - c) % R, evaluate_polynomial(list(h), x) * domain.z_at(x) % R


def check_h_identity(problem: Problem, evaluations: list[Evaluations], hs, x: int | None = None) -> Mismatch | None:
    """The first circuit whose h is not n - 1 reduced scalars or fails a(x)b(x) - c(x) = h(x)Z(x)."""
    domain = problem.domain
    x = random_point_off_domain(domain) if x is None else x
    basis = domain.lagrange_at(x)
    if not isinstance(hs, (list, tuple)) or len(hs) != len(evaluations):
        got = f"{len(hs)} circuits" if isinstance(hs, (list, tuple)) else type(hs).__name__
        return Mismatch("ntt_h", None, "circuits", None, f"{len(evaluations)} circuits", got)
    for c, (evals, h) in enumerate(zip(evaluations, hs)):
        shape = _h_shape_problem(c, h, domain.n - 1)
        if shape is not None:
            return shape
        left, right = h_identity_sides(evals, h, domain, x, basis)
        if left != right:
            return Mismatch(
                "ntt_h", c, "h identity at random x", None,
                f"a(x)b(x) - c(x) = {left:064x}", f"h(x)Z(x) = {right:064x} (x = {x:064x})",
            )
    return None


def _h_shape_problem(circuit: int, h, length: int) -> Mismatch | None:
    if len(h) != length:
        return Mismatch("ntt_h", circuit, "h", None, f"{length} coefficients", f"{len(h)} coefficients")
    for i, value in enumerate(h):
        text = scalar_text(value)
        if text.startswith("not"):
            return Mismatch("ntt_h", circuit, "h", i, "a scalar in [0, r)", text)
    return None


# ---------------------------------------------------------------------------------------------
# Pairing


def check_pairing(problem: Problem, proofs, verifies=None, judge_name: str = PAIRING) -> Mismatch | None:
    """The first circuit whose proof is not three points of their prime-order subgroups
    (reference/verifier.py proof_point_outside_its_group, which says why the pairing alone cannot tell) or does not
    verify. ``verifies(vk, public_inputs, proof)``: Groth16's equation (default ``reference.verifier.verify``; the
    independent library's: independent_library.verifies_by_library); ``judge_name`` labels its mismatch."""
    verifies = verify if verifies is None else verifies
    vector = problem.vector
    if not isinstance(proofs, (list, tuple)) or len(proofs) != len(vector.circuits):
        got = f"{len(proofs)} proofs" if isinstance(proofs, (list, tuple)) else type(proofs).__name__
        return Mismatch("assemble", None, "circuits", None, f"{len(vector.circuits)} proofs", got)
    for c, (proof, case) in enumerate(zip(proofs, vector.circuits)):
        outside = proof_point_outside_its_group(proof)
        if outside is not None:
            name, group, problem_found = outside
            text = point_text(getattr(proof, name, None), group)
            actual = f"outside {group.upper()}: {text}" if problem_found == OUTSIDE_THE_SUBGROUP else text
            return Mismatch("assemble", c, f"proof.{name}", None, f"a {group.upper()} point", actual)
        if not verifies(vector.pk.vk, case.witness.public_inputs, proof):
            label = "pairing check" if judge_name == PAIRING else f"pairing check ({judge_name})"
            return Mismatch(
                "assemble", c, label, None,
                "e(A,B) = e(alpha,beta) e(X,gamma) e(C,delta)", "the proof does not verify",
            )
    return None


# ---------------------------------------------------------------------------------------------
# The judge


def _memo(problem: Problem, key: tuple, inputs: dict, compute):
    """compute() once per (key, inputs object): isolated mode hands every backend the same inputs."""
    slot = problem.memo.setdefault(("oracle",) + key, [])
    for seen_inputs, value in slot:
        if seen_inputs is inputs:
            return value
    value = compute()
    slot.append((inputs, value))
    return value


def _trapdoor_expected(phase: str, problem: Problem, inputs: dict):
    if phase == "msm_h":
        return trapdoor_msm_h(problem, inputs["ntt_h"])
    if phase == "batch_add":
        return trapdoor_batch_add(problem, inputs["prep"])
    if phase == "tail_msm":
        return trapdoor_tail_msm(problem, inputs["prep"])
    raise ValueError(f"the trapdoor oracle does not judge {phase}")


def judge(oracle: str, phase: str, problem: Problem, inputs: dict, output, expected=None) -> Mismatch | None:
    """None when ``output`` (computed from ``inputs``) is right by ``oracle``; else the first mismatch."""
    if oracle == EXPECTED:
        return first_difference(phase, expected, output)
    if oracle == REFERENCE:
        from .backends.reference import reference_phase  # the reference backend is itself judged here

        want = _memo(problem, (REFERENCE, phase), inputs, lambda: reference_phase(phase, problem, inputs))
        return first_difference(phase, want, output)
    if oracle == TRAPDOOR:
        want = _memo(problem, (TRAPDOOR, phase), inputs, lambda: _trapdoor_expected(phase, problem, inputs))
        return first_difference(phase, want, output)
    if oracle == H_IDENTITY:
        return check_h_identity(problem, inputs["evaluate"], output)
    if oracle == PAIRING:
        return check_pairing(problem, output)
    if oracle in independent_library.LIBRARIES:
        if phase == "assemble":
            return check_pairing(problem, output, independent_library.verifies_by_library, oracle)
        want = _memo(problem, (oracle, phase), inputs, lambda: independent_library.expected_by_library(phase, problem, inputs))
        return first_difference(phase, want, output)
    raise ValueError(f"unknown oracle {oracle!r}; the oracles are {', '.join(ORACLES)}")
