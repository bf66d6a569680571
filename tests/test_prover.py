"""The reference prover end to end: proofs verify (by an independent pairing check), tampering is caught,
h satisfies its defining identity, and the prep split adds up to the full query sums."""
import json
import random

import pytest
from py_ecc.bls.point_compression import decompress_G1, decompress_G2
from py_ecc.optimized_bls12_381 import FQ12, Z1, Z2, add, is_inf, multiply, neg, normalize
from py_ecc.optimized_bls12_381.optimized_pairing import final_exponentiate, pairing

from reference.cli import proofs_document
from reference.domain import BELLMAN, SNARKJS, EvaluationDomain, evaluate_polynomial
from reference.errors import InvalidInputError, QuotientNotPolynomialError, ScalarRangeError, SizeMismatchError, UnsatisfiedConstraintError
from reference.evaluate import evaluate
from reference.field import R
from reference.msm import msm_naive
from reference.ntt_h import ntt_h
from reference.prep import bitmap_bits, prep, query_variables
from reference.prover import Witness, prove
from reference.r1cs import Density, witness_vector
from reference.verifier import verify
from vectors.format import vector_document
from vectors.generate import build_vector, synthetic_circuit, synthetic_witness


def _g1(hex_text):
    return decompress_G1(int(hex_text, 16))


def _g2(hex_text):
    raw = bytes.fromhex(hex_text)
    return decompress_G2((int.from_bytes(raw[:48], "big"), int.from_bytes(raw[48:], "big")))


def independent_verify(vk_doc: dict, public_inputs_hex: list[str], proof_doc: dict) -> bool:
    """Groth16 verification written from the vector's JSON `verifying_key` alone, decoding with py_ecc's
    own ZCash decompression (not reference/encoding.py) and not using reference/verifier.py."""
    ic = [_g1(p) for p in vk_doc["ic"]]
    x = ic[0]
    for point, value in zip(ic[1:], public_inputs_hex):
        x = add(x, multiply(point, int(value, 16)))
    # e(A,B) = e(alpha,beta) e(X,gamma) e(C,delta)  <=>  e(A,B) e(-alpha,beta) e(-X,gamma) e(-C,delta) = 1
    pairs = [
        (_g1(proof_doc["a"]), _g2(proof_doc["b"])),
        (neg(_g1(vk_doc["alpha_g1"])), _g2(vk_doc["beta_g2"])),
        (neg(x), _g2(vk_doc["gamma_g2"])),
        (neg(_g1(proof_doc["c"])), _g2(vk_doc["delta_g2"])),
    ]
    product = FQ12.one()
    for p, q in pairs:
        product = product * pairing(q, p, final_exponentiate=False)
    return final_exponentiate(product) == FQ12.one()


@pytest.mark.parametrize("log_n", range(1, 13))
def test_fresh_proof_verifies_independently(log_n):
    vector = build_vector(log_n, seed=f"fresh-{log_n}-{random.randrange(10**9)}")
    outputs, _ = prove(vector.r1cs, vector.pk, vector.witnesses)
    doc, _ = vector_document(vector, "fresh")
    proof = json.loads(json.dumps(proofs_document(outputs.assemble)))
    assert independent_verify(doc["verifying_key"], doc["circuits"][0]["public_inputs"], proof)


@pytest.fixture(scope="module")
def small():
    vector = build_vector(4, seed="tamper", circuits=2)
    outputs, _ = prove(vector.r1cs, vector.pk, vector.witnesses)
    return vector, outputs


def test_proofs_verify_and_tampering_is_caught(small):
    vector, outputs = small
    vk = vector.pk.vk
    proof = outputs.assemble[0]
    inputs = vector.circuits[0].witness.public_inputs
    assert verify(vk, inputs, proof)
    assert verify(vk, vector.circuits[1].witness.public_inputs, outputs.assemble[1])
    # a tampered proof
    assert not verify(vk, inputs, type(proof)(a=add(proof.a, vk.alpha_g1), b=proof.b, c=proof.c))
    assert not verify(vk, inputs, type(proof)(a=proof.a, b=proof.b, c=neg(proof.c)))
    # a tampered public input
    assert not verify(vk, [(inputs[0] + 1) % R, *inputs[1:]], proof)
    # a tampered key
    assert not verify(type(vk)(**{**vk.__dict__, "ic": (add(vk.ic[0], vk.alpha_g1), *vk.ic[1:])}), inputs, proof)
    assert not verify(type(vk)(**{**vk.__dict__, "delta_g2": add(vk.delta_g2, vk.gamma_g2)}), inputs, proof)
    with pytest.raises(InvalidInputError):  # gamma = delta is degenerate (reference/keys.py): no verdict at all
        verify(type(vk)(**{**vk.__dict__, "delta_g2": vk.gamma_g2}), inputs, proof)
    # circuit 1's proof is not a proof for circuit 0's inputs
    assert not verify(vk, inputs, outputs.assemble[1])


@pytest.mark.parametrize("shift", [R, -R], ids=["x+r", "x-r"])
def test_verify_refuses_a_public_input_outside_the_field(small, shift):
    """x + r (or a negative x - r) names the same point x * IC_i, so the pairing equation alone would accept it: the
    verifier must refuse the unreduced value (ScalarRangeError naming the input) rather than call the proof valid.
    The value itself, reduced, verifies."""
    vector, outputs = small
    inputs = list(vector.circuits[0].witness.public_inputs)
    assert verify(vector.pk.vk, inputs, outputs.assemble[0])
    bad = [*inputs[:-1], inputs[-1] + shift]
    with pytest.raises(ScalarRangeError) as caught:
        verify(vector.pk.vk, bad, outputs.assemble[0])
    assert caught.value.field == f"public_inputs[{len(inputs) - 1}]"


def test_verify_refuses_exactly_r_and_accepts_r_minus_1(small):
    """The boundary of [0, r) itself: r names the same point as 0 (r * IC_i = O, checked here with py_ecc's multiply), so
    a proof for 0 would pass the pairing check with r; the verifier refuses r, while r - 1, the largest element of Fr,
    reaches the pairing check (and fails it: it is not the proved input)."""
    vector, outputs = small
    vk, proof = vector.pk.vk, outputs.assemble[0]
    inputs = list(vector.circuits[0].witness.public_inputs)
    assert is_inf(multiply(vk.ic[-1], R))
    with pytest.raises(ScalarRangeError) as caught:
        verify(vk, [*inputs[:-1], R], proof)
    assert caught.value.field == f"public_inputs[{len(inputs) - 1}]"
    assert inputs[-1] != R - 1 and verify(vk, [*inputs[:-1], R - 1], proof) is False


@pytest.mark.parametrize("edit", ["one fewer", "one more"])
def test_verify_refuses_a_public_input_count_that_is_not_the_keys(small, edit):
    """The key has len(ic) - 1 public inputs; one fewer or one more (a 0, which adds nothing to X, so a lenient
    verifier could call the proof valid) is a SizeMismatchError naming public_inputs, never a verdict."""
    vector, outputs = small
    inputs = list(vector.circuits[0].witness.public_inputs)
    assert len(inputs) == len(vector.pk.vk.ic) - 1
    wrong = inputs[:-1] if edit == "one fewer" else [*inputs, 0]
    with pytest.raises(SizeMismatchError) as caught:
        verify(vector.pk.vk, wrong, outputs.assemble[0])
    assert caught.value.field == "public_inputs"


def test_h_identity_at_a_random_point(small):
    vector, outputs = small
    domain = EvaluationDomain(vector.r1cs.log_n)
    x = random.randrange(R)
    lagrange = domain.lagrange_at(x)
    for evals, h in zip(outputs.evaluate, outputs.ntt_h):
        a_x, b_x, c_x = (sum(v * l for v, l in zip(values, lagrange)) % R for values in (evals.a, evals.b, evals.c))
        assert (a_x * b_x - c_x) % R == evaluate_polynomial(list(h), x) * domain.z_at(x) % R


def test_prep_split_adds_up_to_the_full_query_sums(small):
    vector, outputs = small
    pk = vector.pk
    variables = query_variables(vector.r1cs.num_inputs, vector.r1cs.num_aux, pk.density)
    zs = [witness_vector(vector.r1cs, w.public_inputs, w.aux) for w in vector.witnesses]
    for c, z in enumerate(zs):
        for query, points, identity in (("l", pk.l, Z1), ("a", pk.a, Z1), ("b", pk.b_g1, Z1), ("b", pk.b_g2, Z2)):
            full = msm_naive(list(points), [z[v] for v in variables[query]], identity=identity)
            split = getattr(outputs.prep, query)
            bits = bitmap_bits(split.bitmaps[c], len(points))
            batch = msm_naive(list(points), [int(b) for b in bits], identity=identity)
            tail = msm_naive([points[i] for i in split.tail_indices], list(split.tail_scalars[c]), identity=identity)
            assert normalize(add(batch, tail)) == normalize(full)


def test_prep_rules_on_a_hand_made_case():
    # 1 input (ONE) and 6 aux; circuit 0 has a 1 where circuit 1 has a non-boolean value (position 1).
    density = Density(a_aux=(True,) * 6, b_input=(True,), b_aux=(False,) * 6)
    z0 = [1, 1, 1, 0, 1, 0, 0]
    z1 = [1, 0, 5, 0, 1, 0, 0]
    out = prep([z0, z1], 1, 6, density)
    # L: aux positions 0..5; union of non-boolean positions = {1}; 1 of 6 <= half -> split.
    assert out.l.split and out.l.tail_indices == (1,)
    assert bitmap_bits(out.l.bitmaps[0], 6) == [True, True, False, True, False, False]
    assert out.l.tail_scalars == ((0,), (5,))  # circuit 0's 1 is in its bitmap, so its tail scalar is 0
    # A: ONE (input, always tail) + 6 aux -> tail {0, 2}, 2 of 7 -> split
    assert out.a.split and out.a.tail_indices == (0, 2)
    assert out.a.tail_scalars == ((1, 0), (1, 5))
    # B: only ONE -> tail {0}, 1 of 1 > half -> not split, full scalars
    assert not out.b.split and out.b.tail_indices == (0,) and out.b.tail_scalars == ((1,), (1,))
    # more than half non-boolean -> one full MSM
    many = prep([[1, 2, 3, 4, 5, 1, 0]], 1, 6, density)  # 4 of 6 non-boolean: more than half
    assert not many.l.split and many.l.tail_indices == tuple(range(6)) and many.l.tail_scalars == ((2, 3, 4, 5, 1, 0),)
    assert bitmap_bits(many.l.bitmaps[0], 6) == [False] * 6


def test_prep_splits_at_exactly_half_and_not_one_past():
    """supraseal-c2 (c2/cuda/groth16_cuda.cu at 68ab95d): ``l_split_msm = (l_popcount <= points_l.size() / 2)``, integer
    division, likewise for A and B. L: 3 non-boolean of 6 points, 3 <= 6/2: split. A: ONE (an input, always in the tail)
    plus the same 3 of 7 points, 4 > 7/2 = 3: not split. Expected values written by hand from that rule."""
    density = Density(a_aux=(True,) * 6, b_input=(False,), b_aux=(False,) * 6)
    out = prep([[1, 2, 3, 4, 1, 0, 1]], 1, 6, density)
    assert out.l.split and out.l.tail_indices == (0, 1, 2) and out.l.tail_scalars == ((2, 3, 4),)
    assert bitmap_bits(out.l.bitmaps[0], 6) == [False, False, False, True, False, True]
    assert not out.a.split and out.a.tail_indices == tuple(range(7)) and out.a.tail_scalars == ((1, 2, 3, 4, 1, 0, 1),)
    assert bitmap_bits(out.a.bitmaps[0], 7) == [False] * 7


def test_unsatisfied_witness_names_the_constraint():
    r1cs, gates = synthetic_circuit(4, "unsat")
    w = synthetic_witness(r1cs, gates, "unsat", 0)
    bad_aux = list(w.aux)
    bad_aux[3] = (bad_aux[3] + 1) % R
    with pytest.raises(UnsatisfiedConstraintError, match=r"constraint \d+ is not satisfied"):
        prove(r1cs, None, [Witness(w.public_inputs, bad_aux, w.r, w.s)])


@pytest.mark.parametrize("convention", [BELLMAN, SNARKJS], ids=lambda c: c.name)
def test_unsatisfied_witness_error_names_its_circuit(convention):
    """Circuit 0 satisfies the R1CS, circuit 1 does not: the error names circuit 1 (and its row) in both
    conventions (with snarkjs's c = a*b the check happens inside evaluate, which must be told the circuit)."""
    r1cs, gates = synthetic_circuit(4, "unsat-c1")
    good, other = (synthetic_witness(r1cs, gates, "unsat-c1", c) for c in (0, 1))
    bad_aux = list(other.aux)
    bad_aux[3] = (bad_aux[3] + 1) % R
    bad = Witness(other.public_inputs, bad_aux, other.r, other.s)
    z = witness_vector(r1cs, bad.public_inputs, bad.aux)
    first_bad_row = next(j for j, (a, b, c) in enumerate(zip(*(
        [sum(k * z[v] for v, k in row) % R for row in r1cs.rows(m)] for m in "abc"))) if a * b % R != c)
    with pytest.raises(UnsatisfiedConstraintError) as caught:
        prove(r1cs, None, [good, bad], convention)
    assert (caught.value.circuit, caught.value.row) == (1, first_bad_row)
    assert str(caught.value).startswith(f"circuit 1: constraint {first_bad_row} ")


@pytest.mark.parametrize("delta", [1, -1], ids=["a*b-c=-1", "a*b-c=+1"])
@pytest.mark.parametrize("convention", [BELLMAN, SNARKJS], ids=lambda c: c.name)
def test_unsatisfied_first_constraint_is_named(convention, delta):
    """A witness whose constraint 0 fails (found by a naive <row, z> computation) is refused with the error naming
    row 0, in both conventions: the check covers the first row as well as the others, and a row that is off by
    exactly +-1 (a_0 b_0 - c_0 = +-1 mod r) is as unsatisfied as any other."""
    r1cs, gates = synthetic_circuit(4, "unsat-row0")
    w = synthetic_witness(r1cs, gates, "unsat-row0", 0)

    def rows_at(aux):
        z = witness_vector(r1cs, w.public_inputs, aux)
        return list(zip(*([sum(k * z[v] for v, k in row) % R for row in r1cs.rows(m)] for m in "abc")))

    assert all(a * b % R == c for a, b, c in rows_at(list(w.aux)))
    row0_aux = sorted({v - r1cs.num_inputs for m in "abc" for v, _ in r1cs.rows(m)[0] if v >= r1cs.num_inputs})
    aux = list(w.aux)
    aux[row0_aux[0]] = (aux[row0_aux[0]] + delta) % R
    a0, b0, c0 = rows_at(aux)[0]
    # this circuit's constraint 0 is ONE * ONE = aux_0 (c_0 = aux_0 alone), so a_0 b_0 - c_0 = -delta
    assert [list(r1cs.rows(m)[0]) for m in "abc"] == [[(0, 1)], [(0, 1)], [(r1cs.num_inputs, 1)]]
    assert (a0 * b0 - c0) % R == -delta % R
    with pytest.raises(UnsatisfiedConstraintError) as caught:
        prove(r1cs, None, [Witness(w.public_inputs, aux, w.r, w.s)], convention)
    assert (caught.value.circuit, caught.value.row) == (0, 0)


def test_ntt_h_refuses_a_non_zero_top_coefficient():
    """An unsatisfied witness makes a*b - c not divisible by Z: ntt_h (bellman) names the error and the circuit
    instead of truncating h_(n-1) as bellman does. The top coefficient it reports is the x^(n-1) coefficient of
    the degree < n polynomial through E_j / (g^n - 1) on the coset, recomputed here by naive interpolation."""
    r1cs, gates = synthetic_circuit(3, "top-coefficient")
    w = synthetic_witness(r1cs, gates, "top-coefficient", 0)
    aux = list(w.aux)
    aux[0] = (aux[0] + 1) % R
    e = evaluate(r1cs, witness_vector(r1cs, w.public_inputs, aux))
    domain = EvaluationDomain(r1cs.log_n)
    with pytest.raises(QuotientNotPolynomialError, match=r"^circuit 2: ntt_h: the quotient's top coefficient") as caught:
        ntt_h(e, domain, 2)
    # naive: a, b, c at the coset points by Lagrange interpolation over H, then the x^(n-1) coefficient of the
    # interpolant through (g omega^j, E_j / (g^n - 1)), which is sum_j y_j / prod_{k != j} (x_j - x_k)
    n, g = domain.n, BELLMAN.coset_generator
    h_points = [pow(domain.omega, j, R) for j in range(n)]
    coset = [g * x % R for x in h_points]

    def at(values, x):
        return sum(v * l for v, l in zip(values, domain.lagrange_at(x))) % R

    z_g_inv = pow((pow(g, n, R) - 1) % R, -1, R)
    ys = [(at(e.a, x) * at(e.b, x) - at(e.c, x)) * z_g_inv % R for x in coset]
    top = 0
    for j, (xj, yj) in enumerate(zip(coset, ys)):
        denominator = 1
        for k, xk in enumerate(coset):
            if k != j:
                denominator = denominator * (xj - xk) % R
        top = (top + yj * pow(denominator, -1, R)) % R
    assert top != 0 and caught.value.top_coefficient == top


def test_evaluate_includes_input_rows():
    r1cs, gates = synthetic_circuit(3, "rows")
    w = synthetic_witness(r1cs, gates, "rows", 0)
    z = witness_vector(r1cs, w.public_inputs, w.aux)
    e = evaluate(r1cs, z)
    k = r1cs.num_constraints
    assert list(e.a[k : k + r1cs.num_inputs]) == z[: r1cs.num_inputs]  # input_i * 0 = 0 rows
    assert all(v == 0 for v in e.b[k:] + e.c[k:])
    assert len(e.a) == r1cs.n and all(v == 0 for v in e.a[r1cs.num_rows :])
    h = ntt_h(e, EvaluationDomain(r1cs.log_n))
    assert len(h) == r1cs.n - 1


def test_zero_coefficient_terms_give_no_density_and_the_proof_verifies():
    """vectors/FORMAT.md "Density rule" (bellman >= 0.11.2 ``eval`` skips zero coefficients): a variable named only with
    coefficient 0 has no point in that query. One constraint x * w0 = w1 written as A = {x: 1, w1: 0},
    B = {w0: 1, ONE: 0, x: 0}, C = {w1: 1}: the expected densities are worked out by hand from that rule, and the
    proof made with the keys of those densities passes the pairing check (a zero-coefficient variable counted dense
    would have the QAP value 0 at tau, which the setup refuses)."""
    from reference.r1cs import R1CS
    from reference.setup import setup, trapdoor_from_seed

    one, x, w0, w1 = 0, 1, 2, 3
    r1cs = R1CS(num_inputs=2, num_aux=2, a=(((x, 1), (w1, 0)),), b=(((w0, 1), (one, 0), (x, 0)),), c=(((w1, 1),),))
    assert r1cs.density() == Density(a_aux=(False, False), b_input=(False, False), b_aux=(True, False))
    pk = setup(r1cs, trapdoor_from_seed("zero-coefficients"))
    assert (len(pk.a), len(pk.b_g1), len(pk.b_g2)) == (2, 1, 1)  # A: both inputs (input rows), B: w0 only
    outputs, _ = prove(r1cs, pk, [Witness(public_inputs=[3], aux=[5, 15], r=11, s=13)])
    assert verify(pk.vk, [3], outputs.assemble[0])
    assert not verify(pk.vk, [4], outputs.assemble[0])


@pytest.mark.parametrize(("a", "b", "refused"), [
    ((((1, 1), (1, R - 1)),), (((0, 1),),), "variable 1 is in the A density"),
    (((),), (((0, 1), (0, R - 1)),), "variable 0 is in the B density"),
    ((((1, 1),),), (((1, 1), (1, R - 1)),), "variable 1 is in the B density"),
], ids=["a-aux", "b-input", "b-aux"])
def test_setup_refuses_a_dense_variable_whose_qap_value_at_tau_is_0(a, b, refused):
    """One row naming a variable twice, with coefficients 1 and r - 1: non-zero, so the variable is dense (FORMAT.md
    "Density rule"), but they cancel, so its u_i (A) or v_i (B) is 0 at every tau. Its key point would be the identity,
    which bellman drops from the query: the setup refuses, naming the variable and the query. With r - 2 the
    coefficients do not cancel, and the same circuit gets its keys (one A point per input and dense aux variable)."""
    from reference.errors import ToolkitError
    from reference.r1cs import R1CS
    from reference.setup import setup, trapdoor_from_seed

    def circuit(minus):
        swap = lambda rows: tuple(tuple((v, R - minus if c == R - 1 else c) for v, c in row) for row in rows)
        return R1CS(num_inputs=1, num_aux=1, a=swap(a), b=swap(b), c=((),))

    with pytest.raises(ToolkitError) as refusal:
        setup(circuit(1), trapdoor_from_seed("cancelling"))
    assert str(refusal.value) == (f"setup: {refused} but its QAP value at tau is 0 (cancelling coefficients or an "
                                  "unlucky seed); choose another seed")
    pk = setup(circuit(2), trapdoor_from_seed("cancelling"))
    assert (len(pk.a), len(pk.b_g1)) == (1 + any(a[0]), 1)


def test_a_single_row_circuit_gets_a_domain_of_two_and_an_h_query_of_one_point():
    """reference/r1cs.py R1CS.log_n: the smallest power of two >= the rows, but at least 2, because supraseal-c2 derives
    log n from the H query as lg2(npoints - 1) + 1, which needs n - 1 >= 1 point. The sizes are written out by hand;
    the circuit with no constraint and no public input (only ONE's row) is the one case the floor changes, and its
    proof passes the pairing check."""
    from reference.r1cs import R1CS, log_domain
    from reference.setup import setup, trapdoor_from_seed

    assert [log_domain(rows) for rows in (1, 2, 3, 4, 5, 9)] == [1, 1, 2, 2, 3, 4]
    r1cs = R1CS(num_inputs=1, num_aux=0, a=(), b=(), c=())
    assert (r1cs.num_rows, r1cs.log_n, r1cs.n) == (1, 1, 2)
    pk = setup(r1cs, trapdoor_from_seed("one-row"))
    assert len(pk.h) == 1
    outputs, _ = prove(r1cs, pk, [Witness(public_inputs=[], aux=[], r=7, s=9)])
    assert len(outputs.ntt_h[0]) == 1
    assert verify(pk.vk, [], outputs.assemble[0])


@pytest.mark.parametrize("name", ["public_inputs", "aux_assignment"])
def test_witness_values_stop_at_r_minus_1(name):
    """Fr is [0, r): witness_vector takes r - 1 and refuses exactly r (ScalarRangeError naming the value), at the
    boundary, where r and 0 would name the same field element."""
    from reference.r1cs import R1CS

    r1cs = R1CS(num_inputs=2, num_aux=1, a=(((1, 1),),), b=(((2, 1),),), c=(((2, 1),),))
    values = {"public_inputs": [R - 1], "aux_assignment": [R - 1]}
    assert witness_vector(r1cs, values["public_inputs"], values["aux_assignment"]) == [1, R - 1, R - 1]
    values[name] = [R]
    with pytest.raises(ScalarRangeError) as caught:
        witness_vector(r1cs, values["public_inputs"], values["aux_assignment"], circuit=2)
    assert caught.value.field == f"circuits[2].{name}[0]"
