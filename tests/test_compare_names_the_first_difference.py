"""conformance/compare.py and conformance/phases.py: every field of every phase output is compared, by value, and the
first difference is named by phase, circuit, query and index; plan_inputs feeds each phase the outputs of the phases
it consumes (a mutation audit of compare.py and phases.py, 2026-12-07).

Each test breaks exactly one element of a bundled vector's expected output (edge-split-half-1.json, two circuits, so
circuit 1 is the one broken) and asserts the whole Mismatch; the expected texts are read from the vector's JSON file
itself (the checked-in compressed points and 64-digit scalars), not from compare.py. Mutants that passed every test
reaching compare.py / phases.py before this file (all killed here):

* scalar_text taking True for the scalar 1 (bool is an int);
* batch_add / tail_msm: the b_g1 sum left out of the comparison;
* _per_circuit without its "not a list of per-circuit outputs" check (a non-list output raised a TypeError out of
  first_difference instead of naming a mismatch);
* prep: b's split flag and tail indices not compared (only l's and a's);
* a missing circuit reported with "present" and "<missing>" the wrong way round;
* phases.expected_output: a vector with expected values for some circuits only treated as having them (all()
  instead of any());
* InputPlan.source_label naming one kind where the sources are mixed ("own" for own + expected);
* phases.check_phases keeping the order (and repeats) given on the command line instead of the prover's order.
Also pinned (killed before by slower or indirect tests; here by one exact Mismatch each): every query sum, proof
element, evaluate query, last h coefficient, circuit 1's bitmaps and tail scalars, points compared by value whatever
their projective Z, an unreduced scalar x + r named as such, plan_inputs' sources in isolated and end-to-end mode.

A real defect found, fixed in conformance/compare.py: _prep_fields zipped each query's bitmaps with its tail scalars,
so a prep output holding more bitmaps than tail-scalar tuples (or the reverse) compared equal to the expected value
once the shorter list matched it.
"""
import dataclasses
import json

import pytest
from py_ecc.optimized_bls12_381 import G1, G2, neg

from conformance.compare import MISSING, Mismatch, first_difference
from conformance.loading import load_cached
from conformance.phases import (
    SOURCE_EXPECTED, SOURCE_OWN, SOURCE_VERIFIED, InputPlan, Problem, expected_output, plan_inputs,
)
from reference.field import R
from vectors.bundled import DATA_DIR

TWO = DATA_DIR / "edge-split-half-1.json"
"""Two circuits; prep: l split, a not split, b split."""

G1_COMPRESSED = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
G2_COMPRESSED = (
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
)
"""The generators' compressed encodings, published with zkcrypto/bls12_381's tests (src/g1.rs, src/g2.rs)."""


@pytest.fixture(scope="module")
def vector():
    return load_cached(TWO)


@pytest.fixture(scope="module")
def doc():
    return json.loads(TWO.read_text())


def _negated_text(compressed: str) -> str:
    """-P's compressed encoding: the same x, the sort flag (0x20 of the first byte) flipped."""
    return f"{int(compressed[:2], 16) ^ 0x20:02x}" + compressed[2:]


def _replace(items, i, value):
    items = list(items)
    items[i] = value
    return items


def _broken_point(point, text: str, group: str):
    """(a different point, its compressed text): -P, or the generator where P is the identity (-O = O)."""
    if text.startswith("c0"):
        return (G1, G1_COMPRESSED) if group == "g1" else (G2, G2_COMPRESSED)
    return neg(point), _negated_text(text)


SUMS = [(phase, q, "g2" if q == "b_g2" else "g1") for phase in ("batch_add", "tail_msm") for q in ("l", "a", "b_g1", "b_g2")]


@pytest.mark.parametrize("phase, query, group", SUMS)
def test_a_query_sum_differing_in_circuit_1_only_is_named(vector, doc, phase, query, group):
    """One sum of circuit 1 replaced by another point, everything else equal: named at (circuit 1, query)."""
    good = [case.expected.__dict__[phase] for case in vector.circuits]
    want = doc["circuits"][1]["expected"][phase][query]
    point, got = _broken_point(getattr(good[1], query), want, group)
    bad = _replace(good, 1, dataclasses.replace(good[1], **{query: point}))
    assert first_difference(phase, good, list(good)) is None
    assert first_difference(phase, good, bad) == Mismatch(phase, 1, query, None, want, got)


@pytest.mark.parametrize("element, group", [("a", "g1"), ("b", "g2"), ("c", "g1")])
def test_a_proof_differing_in_one_element_of_circuit_1_is_named(vector, doc, element, group):
    good = [case.expected.assemble for case in vector.circuits]
    want = doc["circuits"][1]["expected"]["proof"][element]
    point, got = _broken_point(getattr(good[1], element), want, group)
    bad = _replace(good, 1, dataclasses.replace(good[1], **{element: point}))
    assert first_difference("assemble", good, bad) == Mismatch("assemble", 1, f"proof.{element}", None, want, got)


def test_msm_h_of_circuit_1_is_compared(vector, doc):
    good = [case.expected.msm_h for case in vector.circuits]
    want = doc["circuits"][1]["expected"]["msm_h"]["h"]
    point, got = _broken_point(good[1], want, "g1")
    assert first_difference("msm_h", good, _replace(good, 1, point)) == Mismatch("msm_h", 1, "h", None, want, got)


def _scaled(point, k: int):
    """The same projective point (X : Y : Z) written as (kX : kY : kZ)."""
    return tuple(c * k for c in point)


def test_points_are_compared_by_value_not_by_their_projective_coordinates(vector, doc):
    """An unnormalised GPU result (Z != 1) equal to the expected point passes; its negation still fails."""
    good = [case.expected.batch_add for case in vector.circuits]
    same = [dataclasses.replace(s, l=_scaled(s.l, 5), b_g2=_scaled(s.b_g2, 7)) for s in good]
    assert same[1].l[2] != good[1].l[2]
    assert first_difference("batch_add", good, same) is None
    proofs = [case.expected.assemble for case in vector.circuits]
    assert first_difference("assemble", proofs, [dataclasses.replace(p, b=_scaled(p.b, 3)) for p in proofs]) is None
    want = doc["circuits"][1]["expected"]["batch_add"]["l"]
    wrong = _replace(same, 1, dataclasses.replace(same[1], l=neg(same[1].l)))
    assert first_difference("batch_add", good, wrong) == Mismatch("batch_add", 1, "l", None, want, _negated_text(want))


@pytest.mark.parametrize("query", ["a", "b", "c"])
def test_evaluate_names_the_last_element_of_circuit_1(vector, doc, query):
    good = [case.expected.evaluate for case in vector.circuits]
    values = getattr(good[1], query)
    last = len(values) - 1
    want = doc["circuits"][1]["expected"]["evaluate"][query][last]
    wrong = (int(want, 16) + 1) % R
    bad = _replace(good, 1, dataclasses.replace(good[1], **{query: tuple(_replace(values, last, wrong))}))
    assert first_difference("evaluate", good, bad) == Mismatch("evaluate", 1, query, last, want, f"{wrong:064x}")


def test_ntt_h_names_the_last_coefficient_of_circuit_1(vector, doc):
    good = [tuple(case.expected.ntt_h) for case in vector.circuits]
    last = len(good[1]) - 1
    want = doc["circuits"][1]["expected"]["ntt_h"]["h"][last]
    wrong = (int(want, 16) + 1) % R
    bad = _replace(good, 1, tuple(_replace(good[1], last, wrong)))
    assert first_difference("ntt_h", good, bad) == Mismatch("ntt_h", 1, "h", last, want, f"{wrong:064x}")


def test_an_unreduced_scalar_equal_mod_r_is_a_mismatch(vector, doc):
    """h[0] + r is the same residue, but a GPU that does not reduce its output is wrong."""
    good = [tuple(case.expected.ntt_h) for case in vector.circuits]
    want = doc["circuits"][1]["expected"]["ntt_h"]["h"][0]
    unreduced = int(want, 16) + R
    bad = _replace(good, 1, tuple(_replace(good[1], 0, unreduced)))
    assert first_difference("ntt_h", good, bad) == Mismatch("ntt_h", 1, "h", 0, want, f"not reduced mod r: {unreduced:#x}")


def test_true_is_not_the_scalar_1():
    m = first_difference("ntt_h", [(1, 0)], [(True, 0)])
    assert (m.circuit, m.query, m.index, m.expected) == (0, "h", 0, "0" * 63 + "1")
    assert m.actual.startswith("not an int: bool")


def test_a_missing_circuit_is_named_as_missing(vector, doc):
    good = [tuple(case.expected.ntt_h) for case in vector.circuits]
    assert first_difference("ntt_h", good, good[:1]) == Mismatch("ntt_h", 1, "h", None, "present", MISSING)
    assert first_difference("ntt_h", good, good + [good[1]]) == Mismatch("ntt_h", 2, "h", None, MISSING, "present")


# prep: per-circuit bitmaps and tail scalars of every query, the shared split flag and tail indices of every query.

def _bit(bitmap_hex: str, i: int) -> str:
    """Bit i of a vector's bitmap (FORMAT.md: bit i is bit i % 8 of byte i // 8)."""
    return str(bytes.fromhex(bitmap_hex)[i // 8] >> (i % 8) & 1)


def _with_split(prep, query, **changes):
    return dataclasses.replace(prep, **{query: dataclasses.replace(getattr(prep, query), **changes)})


@pytest.mark.parametrize("query", ["l", "b"])
def test_a_bitmap_bit_of_circuit_1_is_named(vector, doc, query):
    good = vector.expected_prep
    circuit = doc["circuits"][1]["expected"]["prep"][query]
    bit = circuit["bitmap"]["bits"] - 1
    bitmaps = list(getattr(good, query).bitmaps)
    flipped = bytearray(bitmaps[1])
    flipped[bit // 8] ^= 1 << (bit % 8)
    bad = _with_split(good, query, bitmaps=tuple(_replace(bitmaps, 1, bytes(flipped))))
    want = _bit(circuit["bitmap"]["hex"], bit)
    assert first_difference("prep", good, bad) == Mismatch("prep", 1, f"{query}.bitmap", bit, want, "10"[int(want)])


@pytest.mark.parametrize("query", ["l", "a", "b"])
def test_a_tail_scalar_of_circuit_1_is_named(vector, doc, query):
    good = vector.expected_prep
    scalars = doc["circuits"][1]["expected"]["prep"][query]["tail_scalars"]
    last = len(scalars) - 1
    wrong = (int(scalars[last], 16) + 1) % R
    tails = list(getattr(good, query).tail_scalars)
    bad = _with_split(good, query, tail_scalars=tuple(_replace(tails, 1, tuple(_replace(tails[1], last, wrong)))))
    assert first_difference("prep", good, bad) == Mismatch("prep", 1, f"{query}.tail_scalars", last, scalars[last], f"{wrong:064x}")


def test_b_split_flag_and_tail_indices_are_compared(vector, doc):
    good = vector.expected_prep
    shared = doc["prep"]["b"]
    assert shared["split"] is True
    assert first_difference("prep", good, _with_split(good, "b", split=False)) == Mismatch("prep", None, "b.split", None, "true", "false")
    indices = list(good.b.tail_indices)
    last = len(indices) - 1
    bad = _with_split(good, "b", tail_indices=tuple(_replace(indices, last, indices[last] + 1)))
    want = shared["tail_indices"][last]
    assert first_difference("prep", good, bad) == Mismatch("prep", None, "b.tail_indices", last, str(want), str(want + 1))


@pytest.mark.parametrize("field", ["bitmaps", "tail_scalars"])
def test_a_prep_query_with_an_extra_circuit_list_is_a_mismatch(vector, field):
    """The defect this audit found: _prep_fields zipped bitmaps with tail scalars, so one list longer than the other
    compared equal once the shorter matched. Now the longer list's circuit 2 stands where a's circuit 0 should."""
    good = vector.expected_prep
    extra = _with_split(good, "l", **{field: getattr(good.l, field) + (getattr(good.l, field)[0],)})
    assert first_difference("prep", good, extra) == Mismatch(
        "prep", 0, "a.bitmap", None, "present", "l.bitmap (circuit 2) in its place"
    )
    assert first_difference("prep", extra, good) == Mismatch(
        "prep", 2, "l.bitmap", None, "present", "a.bitmap (circuit 0) in its place"
    )


def test_a_prep_query_whose_tail_scalar_lists_end_early_names_the_missing_list(vector, doc):
    """Two bitmaps, one tail-scalar list: circuit 1's list is marked missing where its first scalar should be."""
    good = vector.expected_prep
    short = _with_split(good, "l", tail_scalars=good.l.tail_scalars[:1])
    want = doc["circuits"][1]["expected"]["prep"]["l"]["tail_scalars"][0]
    assert first_difference("prep", good, short) == Mismatch(
        "prep", 1, "l.tail_scalars", 0, want, "missing: the list ends after 1 circuit(s)"
    )


# phases.py: expected_output and plan_inputs.

def _ints(hexes):
    return tuple(int(h, 16) for h in hexes)


def test_expected_output_is_every_circuits_expected_value(vector, doc):
    ntt = expected_output(vector, "ntt_h")
    assert [tuple(h) for h in ntt] == [_ints(c["expected"]["ntt_h"]["h"]) for c in doc["circuits"]]
    prep = expected_output(vector, "prep")
    assert [list(getattr(prep, q).tail_indices) for q in "lab"] == [doc["prep"][q]["tail_indices"] for q in "lab"]


def test_a_vector_with_an_expected_value_missing_for_one_circuit_has_none(vector):
    partial = dataclasses.replace(vector, circuits=[vector.circuits[0], dataclasses.replace(vector.circuits[1], expected=None)])
    assert expected_output(partial, "ntt_h") is None


def test_isolated_mode_feeds_the_expected_outputs_of_the_consumed_phases(vector, doc):
    own, verified = {"evaluate": ["own"], "prep": "own prep"}, {"evaluate": ["verified"], "prep": "verified prep"}
    plan = plan_inputs("ntt_h", "isolated", vector, verified, own)
    assert plan.missing is None and plan.sources == {"evaluate": SOURCE_EXPECTED} and plan.source_label == "expected"
    evals = plan.values["evaluate"]
    assert [(tuple(e.a), tuple(e.c)) for e in evals] == [
        (_ints(c["expected"]["evaluate"]["a"]), _ints(c["expected"]["evaluate"]["c"])) for c in doc["circuits"]]
    prep = plan_inputs("tail_msm", "isolated", vector, verified, own)
    assert prep.sources == {"prep": SOURCE_EXPECTED}
    assert list(prep.values["prep"].b.tail_indices) == doc["prep"]["b"]["tail_indices"]
    assemble = plan_inputs("assemble", "isolated", vector, verified, own)
    assert sorted(assemble.values) == ["batch_add", "msm_h", "tail_msm"]
    assert [s.l for s in assemble.values["tail_msm"]] == [c.expected.tail_msm.l for c in vector.circuits]
    assert len(assemble.values["msm_h"]) == 2


def test_end_to_end_mode_feeds_the_backends_own_output_first(vector):
    plan = plan_inputs("msm_h", "end-to-end", vector, {"ntt_h": ["verified"]}, {"ntt_h": ["own"]})
    assert plan.values == {"ntt_h": ["own"]} and plan.sources == {"ntt_h": SOURCE_OWN}
    fallback = plan_inputs("msm_h", "end-to-end", vector, {"ntt_h": ["verified"]}, {})
    assert fallback.sources == {"ntt_h": SOURCE_EXPECTED} and fallback.values["ntt_h"] == expected_output(vector, "ntt_h")
    mixed = plan_inputs("assemble", "end-to-end", vector, {}, {"batch_add": ["own"]})
    assert mixed.source_label == "mixed (msm_h: expected, batch_add: own, tail_msm: expected)"


def test_without_expected_values_the_verified_output_is_fed_else_the_phase_cannot_run(vector):
    bare = dataclasses.replace(vector, expected_prep=None, circuits=[dataclasses.replace(c, expected=None) for c in vector.circuits])
    plan = plan_inputs("ntt_h", "isolated", bare, {"evaluate": ["verified"]}, {"evaluate": ["own"]})
    assert plan.values == {"evaluate": ["verified"]} and plan.sources == {"evaluate": SOURCE_VERIFIED}
    nothing = plan_inputs("batch_add", "isolated", bare, {}, {"prep": "own"})
    assert nothing.missing == "no input for batch_add: prep has no expected value and no passing output"


def test_problem_holds_every_circuits_witness(vector, doc):
    zs = Problem.from_vector(vector).zs
    assert zs == [[1, *_ints(c["public_inputs"]), *_ints(c["aux_assignment"])] for c in doc["circuits"]]


def test_source_label():
    assert InputPlan({}, {}).source_label == "-"
    assert InputPlan({}, {"a": SOURCE_OWN, "b": SOURCE_OWN}).source_label == "own"
    assert InputPlan({}, {"a": SOURCE_OWN, "b": SOURCE_EXPECTED}).source_label == "mixed (a: own, b: expected)"


def test_an_output_that_is_no_list_of_circuits_is_a_mismatch_not_an_error(vector):
    """A backend handing back one object (or None) where a list of per-circuit outputs belongs: named at circuit 0's
    first field, never a TypeError out of the comparison."""
    good = [tuple(case.expected.ntt_h) for case in vector.circuits]
    assert first_difference("ntt_h", good, None) == Mismatch("ntt_h", 0, "h", None, "present", "circuits (circuit None) in its place")
    assert first_difference("ntt_h", good, {0: good[0], 1: good[1]}).actual == "circuits (circuit None) in its place"


def test_a_mismatch_read_back_from_a_report_keeps_expected_and_actual_apart():
    """report.py and faults.py read a report's "mismatch" entry back with Mismatch.from_json."""
    data = {"phase": "ntt_h", "circuit": 1, "query": "h", "index": 6, "expected": "0" * 64, "actual": "0" * 63 + "1"}
    m = Mismatch.from_json(data)
    assert (m.phase, m.circuit, m.query, m.index, m.expected, m.actual) == ("ntt_h", 1, "h", 6, "0" * 64, "0" * 63 + "1")
    assert m.as_json() == data and m.location() == "circuit 1, h[6]"


def test_check_phases_puts_the_phases_in_the_provers_order_and_refuses_an_unknown_one():
    from conformance.phases import check_phases
    from reference.errors import InvalidInputError

    assert check_phases(["assemble", "ntt_h", "prep", "evaluate"]) == ("evaluate", "ntt_h", "prep", "assemble")
    assert check_phases(["msm_h", "msm_h"]) == ("msm_h",)
    with pytest.raises(InvalidInputError, match="unknown phase 'proof'"):
        check_phases(["ntt_h", "proof"])
