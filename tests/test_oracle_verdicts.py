"""conformance/oracles.py's verdicts, pinned against independent values (a mutation audit of the oracles, 2026-12-07):
mutants that passed every test that reaches the oracles (test_conformance, test_runner_judges_every_run_and_circuit,
test_runner_records_every_verdict, test_planted_faults, test_independent_library, test_hostile_inputs' oracle cases)
before these tests:

* _check_logs_match_keys spot-checking only the first point of each query (a proving key whose last H point is not
  tau^(n-2) Z(tau)/delta * G1 was accepted, and every trapdoor verdict read the wrong discrete logs);
* _check_logs_match_keys leaving B_G2 out of its spot check;
* trapdoor_batch_add summing circuit 0's bitmap for every circuit, and trapdoor_tail_msm using circuit 0's tail
  scalars for every circuit (the trapdoor's every-circuit test covered msm_h only);
* _h_shape_problem accepting an h longer than n - 1 (h with a trailing zero coefficient is the same polynomial, so the
  identity alone passes it);
* _h_shape_problem naming coefficient 0 for an unreduced coefficient anywhere (the test's unreduced value was at 0);
* check_pairing leaving off-curve points to the verifier (named 'pairing check', not the off-curve coordinate), and
  leaving B's shape unchecked (an off-curve B raised inside the pairing instead of a mismatch naming proof.b);
* check_pairing's shape mismatch naming circuit 0 wherever the bad point was;
* the trapdoor memo keyed by the inputs alone (batch_add's value reused to judge tail_msm on the same inputs), and the
  memo returning the first inputs' value for any inputs (end-to-end mode: each backend's own ntt_h).

Expected values come from py_ecc point arithmetic over the proving key's own points, from the vector's checked-in
expected outputs, and from hand-built corruptions. test_a_proof_point_off_its_subgroup_fails_the_pairing_oracle is the
product bug this audit found (check_pairing checked the curve, never the subgroup), fixed in conformance/oracles.py;
gpu/trapdoor.py's pairing check had it too (test_the_gpu_trapdoor_pairing_check_holds_proof_points_to_their_subgroups).
"""
import dataclasses

import pytest
from py_ecc.bls.hash_to_curve import map_to_curve_G2
from py_ecc.optimized_bls12_381 import FQ, FQ2, G1, G2, Z1, Z2, add, b2, curve_order, eq, field_modulus, is_on_curve, multiply

from conformance import oracles
from conformance.loading import load_cached
from conformance.phases import Problem, expected_output, plan_inputs
from reference.assemble import Proof
from reference.errors import InvalidInputError
from reference.field import R
from reference.verifier import verify
from vectors.bundled import DATA_DIR

SMALL = DATA_DIR / "porep-log04.json"  # one circuit, n = 16
TWO_CIRCUITS = DATA_DIR / "edge-split-half-1.json"  # two circuits whose L bitmaps and tail scalars differ


def _problem(path) -> Problem:
    return Problem.from_vector(load_cached(path))


def _inputs(problem: Problem, phase: str) -> dict:
    return plan_inputs(phase, "isolated", problem.vector, {}, {}).values


# ---------------------------------------------------------------------------------------------
# The trapdoor must belong to the keys: both ends of every query


@pytest.mark.parametrize("end", ["first", "last"])
@pytest.mark.parametrize("query", ["h", "l", "a", "b_g1", "b_g2"])
def test_a_key_point_moved_at_either_end_of_any_query_is_refused(query, end):
    problem = _problem(SMALL)
    pk = problem.vector.pk
    points = getattr(pk, query)
    i = 0 if end == "first" else len(points) - 1
    assert len(points) > 1
    generator = G2 if query == "b_g2" else G1
    logs = getattr(oracles.key_discrete_logs(problem), query[0])
    assert eq(multiply(generator, logs[i]), points[i])  # the real key point is k_i * G
    moved = points[:i] + (add(points[i], generator),) + points[i + 1:]
    wrong = dataclasses.replace(problem.vector, pk=dataclasses.replace(pk, **{query: moved}))
    with pytest.raises(InvalidInputError, match=rf"does not match proving_key\.{query}\[{i}\]"):
        oracles.key_discrete_logs(Problem.from_vector(wrong))


# ---------------------------------------------------------------------------------------------
# The trapdoor judges batch_add and tail_msm circuit by circuit


def _bit(bitmap: bytes, i: int) -> bool:
    return bool(bitmap[i // 8] & (1 << (i % 8)))


_POINTS = {"l": ("l",), "a": ("a",), "b": ("b_g1", "b_g2")}


def _naive_batch_add(problem: Problem, prep, c: int) -> dict:
    """Per key query: the key points whose bit is set in circuit c's bitmap, added one by one."""
    pk, sums = problem.vector.pk, {}
    for split, queries in _POINTS.items():
        for q in queries:
            total = Z2 if q == "b_g2" else Z1
            for i, point in enumerate(getattr(pk, q)):
                if _bit(getattr(prep, split).bitmaps[c], i):
                    total = add(total, point)
            sums[q] = total
    return sums


def _naive_tail_msm(problem: Problem, prep, c: int) -> dict:
    """Per key query: sum_k tail_scalars[c][k] * P[tail_indices[k]], by double-and-add."""
    pk, sums = problem.vector.pk, {}
    for split, queries in _POINTS.items():
        s = getattr(prep, split)
        for q in queries:
            total = Z2 if q == "b_g2" else Z1
            for scalar, i in zip(s.tail_scalars[c], s.tail_indices, strict=True):
                total = add(total, multiply(getattr(pk, q)[i], scalar))
            sums[q] = total
    return sums


@pytest.mark.parametrize("phase", ["batch_add", "tail_msm"])
def test_the_trapdoor_sums_each_circuit_s_own_bitmap_and_tail_scalars(phase):
    problem = _problem(TWO_CIRCUITS)
    prep = expected_output(problem.vector, "prep")
    assert len(prep.l.bitmaps) == 2
    assert prep.l.bitmaps[0] != prep.l.bitmaps[1] and prep.l.tail_scalars[0] != prep.l.tail_scalars[1]
    naive = _naive_batch_add if phase == "batch_add" else _naive_tail_msm
    trapdoor = oracles.trapdoor_batch_add if phase == "batch_add" else oracles.trapdoor_tail_msm
    got = trapdoor(problem, prep)
    assert len(got) == 2
    for c in range(2):
        want = naive(problem, prep, c)
        for q in ("l", "a", "b_g1", "b_g2"):
            assert eq(getattr(got[c], q), want[q]), (phase, c, q)
    assert not eq(_naive_batch_add(problem, prep, 0)["l"], _naive_batch_add(problem, prep, 1)["l"])

    # the checked-in value of each circuit passes; circuit 1 moved by G1 fails, naming circuit 1
    inputs = _inputs(problem, phase)
    right = list(expected_output(problem.vector, phase))
    assert oracles.judge(oracles.TRAPDOOR, phase, problem, inputs, right) is None
    right[1] = dataclasses.replace(right[1], l=add(right[1].l, G1))
    mismatch = oracles.judge(oracles.TRAPDOOR, phase, problem, inputs, right)
    assert (mismatch.phase, mismatch.circuit, mismatch.query) == (phase, 1, "l")


def test_the_trapdoor_judges_tail_msm_by_tail_msm_even_after_batch_add_on_the_same_inputs():
    """Isolated mode hands one inputs object to every backend; the memo must still tell the phases apart."""
    problem = _problem(SMALL)
    inputs = {"prep": expected_output(problem.vector, "prep")}
    batch, tail = expected_output(problem.vector, "batch_add"), expected_output(problem.vector, "tail_msm")
    assert not eq(batch[0].a, tail[0].a)
    assert oracles.judge(oracles.TRAPDOOR, "batch_add", problem, inputs, batch) is None
    assert oracles.judge(oracles.TRAPDOOR, "tail_msm", problem, inputs, tail) is None
    assert oracles.judge(oracles.TRAPDOOR, "tail_msm", problem, inputs, batch) is not None


def test_the_trapdoor_recomputes_for_new_inputs_of_the_same_phase():
    """End-to-end mode hands each backend its own inputs (its own ntt_h): a second inputs object is judged by its own
    value, h[0] + 1 giving msm_h + H[0] (the key's first H point), never by the first inputs' cached value."""
    problem = _problem(SMALL)
    (h,) = expected_output(problem.vector, "ntt_h")
    (msm,) = expected_output(problem.vector, "msm_h")
    assert oracles.judge(oracles.TRAPDOOR, "msm_h", problem, {"ntt_h": [h]}, [msm]) is None
    bumped = ((h[0] + 1) % R,) + tuple(h[1:])
    moved = add(msm, problem.vector.pk.h[0])
    assert oracles.judge(oracles.TRAPDOOR, "msm_h", problem, {"ntt_h": [bumped]}, [moved]) is None
    assert oracles.judge(oracles.TRAPDOOR, "msm_h", problem, {"ntt_h": [bumped]}, [msm]) is not None


# ---------------------------------------------------------------------------------------------
# The h identity: the shape of h, beside the identity


def _h_and_sides(problem: Problem, h, x: int):
    evals = expected_output(problem.vector, "evaluate")[0]
    return oracles.h_identity_sides(evals, h, problem.domain, x)


def test_an_h_with_an_extra_zero_coefficient_passes_the_identity_but_not_the_oracle():
    problem = _problem(SMALL)
    (h,) = expected_output(problem.vector, "ntt_h")
    assert len(h) == problem.domain.n - 1 == 15
    longer = tuple(h) + (0,)
    x = 123456789
    left, right = _h_and_sides(problem, longer, x)
    assert left == right  # the same polynomial: only the shape check can see it
    mismatch = oracles.check_h_identity(problem, expected_output(problem.vector, "evaluate"), [longer], x)
    assert (mismatch.circuit, mismatch.query, mismatch.index) == (0, "h", None)
    assert (mismatch.expected, mismatch.actual) == ("15 coefficients", "16 coefficients")


def test_an_unreduced_h_coefficient_is_named_by_its_own_index():
    problem = _problem(SMALL)
    (h,) = expected_output(problem.vector, "ntt_h")
    unreduced = list(h)
    unreduced[5] += R
    x = 987654321
    assert _h_and_sides(problem, unreduced, x)[0] == _h_and_sides(problem, unreduced, x)[1]
    mismatch = oracles.check_h_identity(problem, expected_output(problem.vector, "evaluate"), [unreduced], x)
    assert (mismatch.circuit, mismatch.query, mismatch.index) == (0, "h", 5)
    assert mismatch.actual == f"not reduced mod r: {h[5] + R:#x}"


# ---------------------------------------------------------------------------------------------
# The pairing oracle: each point's shape first, then the equation


def _off_curve(point):
    x, y, z = point
    return (x, y + y.one(), z)


@pytest.mark.parametrize("name, group", [("a", "G1"), ("b", "G2"), ("c", "G1")])
def test_an_off_curve_proof_point_is_named_not_handed_to_the_pairing(name, group):
    """Circuit 1 of two holds the off-curve point (circuit 0's proof verifies): the mismatch names circuit 1, the point
    and its shape, never 'pairing check' nor an exception from inside the pairing."""
    problem = _problem(TWO_CIRCUITS)
    proofs = list(expected_output(problem.vector, "assemble"))
    proofs[1] = dataclasses.replace(proofs[1], **{name: _off_curve(getattr(proofs[1], name))})
    mismatch = oracles.check_pairing(problem, proofs)
    assert (mismatch.phase, mismatch.circuit, mismatch.query) == ("assemble", 1, f"proof.{name}")
    assert mismatch.expected == f"a {group} point" and mismatch.actual.startswith("off the curve")


def test_a_g1_point_for_b_is_named_as_not_a_g2_point():
    problem = _problem(SMALL)
    (proof,) = expected_output(problem.vector, "assemble")
    mismatch = oracles.check_pairing(problem, [Proof(a=proof.a, b=proof.a, c=proof.c)])
    assert mismatch.query == "proof.b" and mismatch.actual.startswith("not a G2 point")


def _point_of_cofactor_order():
    """A point of E(Fp): y^2 = x^3 + 4 whose order divides the G1 cofactor (r * P for a point P of E(Fp))."""
    x = 0
    while True:
        x += 1
        rhs = (x ** 3 + 4) % field_modulus
        y = pow(rhs, (field_modulus + 1) // 4, field_modulus)
        if y * y % field_modulus == rhs:
            t = multiply((FQ(x), FQ(y), FQ(1)), curve_order)
            if not eq(t, Z1):
                return t


def _g2_point_of_cofactor_order():
    """A point of E'(Fp2) outside G2: the SSWU map's image before its cofactor is cleared (py_ecc's hash to G2)."""
    t = multiply(map_to_curve_G2(FQ2([1, 2])), curve_order)
    assert is_on_curve(t, b2) and not eq(t, Z2)
    return t


@pytest.mark.parametrize("name", ["a", "b", "c"])
def test_a_proof_point_off_its_subgroup_fails_the_pairing_oracle(name):
    """The bug this audit found: check_pairing checked the curve, never the subgroup, and the pairing cannot see a
    G1 component of cofactor order, so the oracle passed A + T and C + T (judged by the expected value, the same output
    fails). B is held to G2 the same way, as a proof reader does (reference/encoding.py)."""
    problem = _problem(SMALL)
    (proof,) = expected_output(problem.vector, "assemble")
    t = _g2_point_of_cofactor_order() if name == "b" else _point_of_cofactor_order()
    bad = dataclasses.replace(proof, **{name: add(getattr(proof, name), t)})
    # invisible to the pairing in G1 (py_ecc's pairing fails B + T, whose twisted torsion the Miller loop does see)
    assert verify(problem.vector.pk.vk, problem.vector.circuits[0].witness.public_inputs, bad) == (name != "b")
    assert oracles.judge(oracles.EXPECTED, "assemble", problem, {}, [bad], [proof]) is not None  # a wrong point
    mismatch = oracles.check_pairing(problem, [bad])
    group = "G2" if name == "b" else "G1"
    assert (mismatch.circuit, mismatch.query, mismatch.expected) == (0, f"proof.{name}", f"a {group} point")
    assert mismatch.actual.startswith(f"outside {group}: ")


class _HostWitness:
    """Stands in for the device witness (a CuPy array): indexing as NumPy does, ``get()`` the host copy."""

    def __init__(self, limbs):
        self.limbs = limbs

    def __getitem__(self, index):
        return _HostWitness(self.limbs[index])

    def get(self):
        return self.limbs


@pytest.mark.parametrize("name", ["a", "b", "c", None])
def test_the_gpu_trapdoor_pairing_check_holds_proof_points_to_their_subgroups(name):
    """gpu/trapdoor.py check_pairing (bench_prove --check and the gate's generated cases) had the oracle's bug: the
    pairing alone passed A + T and C + T. The same corruptions fail it now, each naming its point; the proof as made
    passes (name None)."""
    from types import SimpleNamespace

    from gpu.limbs import ints_to_limbs
    from gpu.trapdoor import check_pairing

    problem = _problem(SMALL)
    (proof,) = expected_output(problem.vector, "assemble")
    public = problem.vector.circuits[0].witness.public_inputs
    witness = _HostWitness(ints_to_limbs([1, *public])[None])  # row 0 of a batch: ONE, then the public inputs
    key, circuit = SimpleNamespace(vk=problem.vector.pk.vk), SimpleNamespace(num_inputs=1 + len(public))
    if name is not None:
        t = _g2_point_of_cofactor_order() if name == "b" else _point_of_cofactor_order()
        proof = dataclasses.replace(proof, **{name: add(getattr(proof, name), t)})
    result = check_pairing(key, circuit, witness, proof)
    assert result.ok == (name is None)
    assert result.detail == ("" if name is None else f"proof.{name} lies outside the subgroup of {'G2' if name == 'b' else 'G1'}")
