"""A flag of a vector is a claim that `vectors check` judges (a mutation audit of vectors/flags.py, 2026-12-07):
mutants that passed the tests before these:

* shape-porep: public input 1 in B accepted (only inputs from 2 on judged); the shares judged from 65 aux variables
  on, or not at exactly 64; each bound moved by one (25%, 15%, 55% -> 26%, 16%, 56%) or made strict;
* shape-random: the band's ends 2^64 and r - 2^64 refused; B's coefficients, the public inputs, every circuit but
  the first, or a vector with nothing random left unjudged;
* snarkjs accepting a trapdoor; bellman-import judging only proving_key.h, or only each query's first point;
* rows-pow2-plus1 accepting fewer rows (one row, n = 2);
* scalars-all-zero (-one, ...): judging only the first all-zero circuit's L tail, accepting an empty L tail, or
  judging only the aux values (not the public inputs); scalars-all-equal accepting 0, 1 or r - 1 as its v;
  scalars-mix accepting two values; scalar-half-r needing only (r - 1)/2; the carry scalar of c = 16 not needed;
  blinding-zero accepting r = 0 or s = 0;
* base-identity accepting a zero scalar; base-identity-batch accepting an identity point outside the bitmap;
  bases-all-identity judging only L[0], or not requiring every L point in the tail;
* bases-*: two identity points counted as a repeated pair; boolean tail scalars counted; the B query not judged;
  B points compared in G1 alone (B_G2 left out);
* density-sparse-word-boundaries accepting a superset; density-zero-coefficient-a not judging the a_aux bit, -ab
  judging only a_aux, -input counting ONE as a public input;
* bitmap-word-boundaries not needing A's bit 128; bitmap-seam not needing the last input in the tail, or judging
  A alone;
* msm-len-N with 21 digits or a leading zero, and split-just-below-half-<q> with any letter, accepted as flags;
* check_flag letting a tag that is no flag pass (no KeyError).

54 mutants in all, 9 failed the suite before this file; the other 45 all fail a test here (none equivalent: the
rows-pow2-plus1 one shows only on a circuit without constraints, which the checker is given as an R1CS).

Each vector below is a bundled vector with one stated value (or one row of them) changed, or a hand-built view
holding the fields a checker reads, for a boundary no bundled vector sits on; the refusal's reason must be exact.
"""
import dataclasses
import functools
import json
from types import SimpleNamespace

import pytest
from conftest import vectors_refusal

from reference.curve import multiply
from reference.r1cs import R1CS
from vectors.bundled import DATA_DIR
from vectors.flags import FlagDoesNotHold, check_flag, flag_holds
from vectors.format import load_vector

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
"""BLS12-381's group order r, written out here rather than imported."""
SMALL = DATA_DIR / "porep-log01.json"


@functools.lru_cache(maxsize=None)
def _load(name: str):
    return load_vector(DATA_DIR / f"{name}.json")


def _refusal(v, flag: str) -> str:
    """check_flag refuses: the reason."""
    with pytest.raises(FlagDoesNotHold) as info:
        check_flag(v, flag)
    return str(info.value)


def _replace(obj, **changes):
    return dataclasses.replace(obj, **changes)


def _with_density(v, **changes):
    return _replace(v, pk=_replace(v.pk, density=_replace(v.pk.density, **changes)))


def _with_witness(v, circuit: int, **changes):
    case = v.circuits[circuit]
    new = _replace(case, witness=_replace(case.witness, **changes))
    return _replace(v, circuits=[*v.circuits[:circuit], new, *v.circuits[circuit + 1:]])


def _with_split(v, q: str, **changes):
    return _replace(v, expected_prep=_replace(v.expected_prep, **{q: _replace(getattr(v.expected_prep, q), **changes)}))


def _with_circuits(v, order: list[int]):
    """v with circuits (and their rows of each expected prep's bitmaps and tail scalars) in order: dropped,
    repeated or moved."""
    prep = v.expected_prep
    queries = {q: _replace(getattr(prep, q), bitmaps=tuple(getattr(prep, q).bitmaps[c] for c in order),
                           tail_scalars=tuple(getattr(prep, q).tail_scalars[c] for c in order)) for q in "lab"}
    return _replace(v, circuits=[v.circuits[c] for c in order], expected_prep=_replace(prep, **queries))


def _with_tail_value(v, old: int, new: int):
    """v with every tail scalar equal to old, in every query and circuit, stated as new."""
    prep = v.expected_prep
    queries = {q: _replace(getattr(prep, q), tail_scalars=tuple(tuple(new if s == old else s for s in row)
                                                                for row in getattr(prep, q).tail_scalars))
               for q in "lab"}
    assert any(getattr(prep, q) != queries[q] for q in "lab"), "old is in no tail"
    return _replace(v, expected_prep=_replace(prep, **queries))


# ----------------------------------------------------------------------------------------------
# shape-porep: no public input in B, and each share judged at its bound, from 64 aux variables on


def test_shape_porep_refuses_the_first_public_input_in_b():
    """porep-log03 (ONE and 2 public inputs) with b_input[1] set: public input 1 is in B. ONE (b_input[0]) may be."""
    v = _load("porep-log03")
    assert v.r1cs.num_inputs == 3 and not any(v.pk.density.b_input[1:])
    assert _refusal(_with_density(v, b_input=(True, True, False)), "shape-porep") == (
        "public input(s) [1] are in B (b_input): PoRep's B holds no public input")
    check_flag(_with_density(v, b_input=(True, False, False)), "shape-porep")


def _porep_view(num_aux: int, non_boolean: int = 0, outside_a: int = 0, in_b: int = 0):
    """The fields check_shape_porep reads, hand-built: one circuit whose first non_boolean aux values are 7 (the rest
    0 and 1), the first outside_a aux variables out of a_aux and the first in_b in b_aux; ONE alone in B."""
    density = SimpleNamespace(b_input=(True, False), a_aux=tuple(k >= outside_a for k in range(num_aux)),
                              b_aux=tuple(k < in_b for k in range(num_aux)))
    aux = tuple(7 if k < non_boolean else k % 2 for k in range(num_aux))
    return SimpleNamespace(pk=SimpleNamespace(density=density), r1cs=SimpleNamespace(num_aux=num_aux),
                           circuits=[SimpleNamespace(witness=SimpleNamespace(aux=aux))])


@pytest.mark.parametrize("share, at_bound, refusal", [
    ("non_boolean", 25, "circuit 0: 26 of 100 aux values are neither 0 nor 1 (mostly 0/1: at most 25%)"),
    ("outside_a", 15, "16 of 100 aux variables are outside a_aux (A density ~99%: at most 15% outside)"),
    ("in_b", 55, "56 of 100 aux variables are in b_aux (B ~25%: at most 55%)"),
])
def test_shape_porep_holds_at_each_bound_and_not_one_past_it(share, at_bound, refusal):
    """FORMAT.md: at most 25% non-boolean aux values per circuit, at most 15% outside a_aux, at most 55% in b_aux.
    With 100 aux variables the bound itself holds and one more is refused."""
    check_flag(_porep_view(100, **{share: at_bound}), "shape-porep")
    assert _refusal(_porep_view(100, **{share: at_bound + 1}), "shape-porep") == refusal


def test_shape_porep_judges_the_shares_from_64_aux_variables_on():
    """FORMAT.md: "with 64 or more aux variables" the shares are judged: 17 of 64 non-boolean is over 25%;
    with 63 aux variables every share may be anything."""
    assert _refusal(_porep_view(64, non_boolean=17), "shape-porep") == (
        "circuit 0: 17 of 64 aux values are neither 0 nor 1 (mostly 0/1: at most 25%)")
    assert _refusal(_porep_view(64, outside_a=64), "shape-porep") == (
        "64 of 64 aux variables are outside a_aux (A density ~99%: at most 15% outside)")
    check_flag(_porep_view(63, non_boolean=63, outside_a=63, in_b=63), "shape-porep")


# ----------------------------------------------------------------------------------------------
# shape-random: every A and B coefficient and every public input and aux value, of every circuit


NEAR = "circuit {}: 1 witness value(s) lie within 2^64 of 0 or r: not uniformly random"


@pytest.mark.parametrize("value, holds", [
    (2**64, True), (2**64 - 1, False), (R - 2**64, True), (R - 2**64 + 1, False)])
def test_shape_random_band_ends(value, holds):
    """random-log06 with its first aux value stated as value: 'at least 2^64 from 0 and from r' holds at 2^64 and
    r - 2^64 and not one nearer."""
    v = _with_witness(_load("random-log06"), 0, aux=(value, *_load("random-log06").circuits[0].witness.aux[1:]))
    if holds:
        check_flag(v, "shape-random")
    else:
        assert _refusal(v, "shape-random") == NEAR.format(0)


def test_shape_random_judges_public_inputs():
    v = _load("random-log06")
    assert _refusal(_with_witness(v, 0, public_inputs=(5, *v.circuits[0].witness.public_inputs[1:])),
                    "shape-random") == NEAR.format(0)


def test_shape_random_judges_b_coefficients():
    """random-log06 with the first coefficient of B's first row stated as 1."""
    v = _load("random-log06")
    (var, _), *rest = v.r1cs.b[0]
    b = ((( var, 1), *rest), *v.r1cs.b[1:])
    assert _refusal(_replace(v, r1cs=_replace(v.r1cs, b=b)), "shape-random") == (
        "1 A or B coefficient(s) lie within 2^64 of 0 or r: not uniformly random")


def test_shape_random_judges_every_circuit():
    """random-log06's circuit twice, the second's first aux value stated as 1: refused naming circuit 1."""
    v = _with_circuits(_load("random-log06"), [0, 0])
    check_flag(v, "shape-random")
    assert _refusal(_with_witness(v, 1, aux=(1, *v.circuits[1].witness.aux[1:])), "shape-random") == NEAR.format(1)


def test_shape_random_needs_something_random():
    """A circuit of one constraint row with no term and no aux variable has nothing uniformly random."""
    empty = SimpleNamespace(r1cs=R1CS(num_inputs=1, num_aux=0, a=((),), b=((),), c=((),)), circuits=[])
    assert _refusal(empty, "shape-random") == "no A or B coefficient or no aux value to be random"


# ----------------------------------------------------------------------------------------------
# Interoperability flags


def test_snarkjs_refuses_a_trapdoor():
    """snarkjs-interop with porep-log01's trapdoor: keys imported from a zkey have none."""
    v = _replace(_load("snarkjs-interop"), trapdoor=_load("porep-log01").trapdoor)
    assert _refusal(v, "snarkjs") == "the vector has a trapdoor; keys imported from a zkey have none"


def test_bellman_import_refuses_an_identity_l_point_anywhere(tmp_path, capsys):
    """edge-bases without its trapdoor: L holds the identity at 0 and 1; with L[0] stated as L[2], the first identity
    is L[1]. `check` of edge-domain-log1 (every L point the identity) without trapdoor, flagged bellman-import, is
    refused naming the flag."""
    v = _replace(_load("edge-bases"), trapdoor=None)
    assert _refusal(v, "bellman-import") == (
        "proving_key.l[0] is the identity, which a bellman Parameters file cannot hold")
    moved = _replace(v, pk=_replace(v.pk, l=(v.pk.l[2], *v.pk.l[1:])))
    assert _refusal(moved, "bellman-import") == (
        "proving_key.l[1] is the identity, which a bellman Parameters file cannot hold")
    doc = json.loads((DATA_DIR / "edge-domain-log1.json").read_text())
    del doc["trapdoor"]
    doc["flags"] = ["bellman-import"]
    path = tmp_path / "v.json"
    path.write_text(json.dumps(doc))
    assert vectors_refusal(["check", str(path), "--quiet"], capsys) == (
        "error: flags[0]: 'bellman-import' does not hold: proving_key.l[0] is the identity, which a bellman "
        "Parameters file cannot hold\n")


# ----------------------------------------------------------------------------------------------
# Scalars


def test_scalars_all_zero_judges_every_all_zero_circuit():
    """edge-scalars with its all-zero circuit 0 repeated as circuit 6, whose first L tail scalar is stated as 5."""
    v = _with_circuits(_load("edge-scalars"), [0, 1, 2, 3, 4, 5, 0])
    check_flag(v, "scalars-all-zero")
    row = v.expected_prep.l.tail_scalars
    bad = _with_split(v, "l", tail_scalars=(*row[:6], (5, *row[6][1:])))
    assert _refusal(bad, "scalars-all-zero") == "circuit 6's L tail scalars are not all 0x0"


def test_scalars_all_zero_needs_an_l_tail():
    """edge-scalars with an empty L tail: no zero reaches an L scalar multiplication."""
    v = _load("edge-scalars")
    empty = _with_split(v, "l", tail_indices=(), tail_scalars=((),) * len(v.circuits))
    assert _refusal(empty, "scalars-all-zero") == "circuit 0's L tail scalars are not all 0x0"


def test_scalars_all_zero_judges_the_public_inputs_too():
    """edge-scalars with circuit 0's (the all-zero circuit's) first public input stated as 5: its aux values are
    still all 0, but not every public input is."""
    v = _load("edge-scalars")
    assert [c for c, case in enumerate(v.circuits) if not any(case.witness.aux)] == [0]
    bad = _with_witness(v, 0, public_inputs=(5, *v.circuits[0].witness.public_inputs[1:]))
    assert _refusal(bad, "scalars-all-zero") == "no circuit has every value 0x0"


def test_scalars_all_equal_is_not_0_1_or_r_minus_1():
    """edge-scalars without circuit 3 (all values one v outside {0, 1, r - 1}): its all-0, all-1 and all-(r - 1)
    circuits do not make the flag hold."""
    v = _load("edge-scalars")
    assert len(set(v.circuits[3].witness.aux)) == 1 and v.circuits[3].witness.aux[0] not in (0, 1, R - 1)
    assert _refusal(_with_circuits(v, [0, 1, 2, 4, 5]), "scalars-all-equal") == (
        "no circuit has all values equal to one v outside {0, 1, r-1}")


@pytest.mark.parametrize("aux, holds", [((0, 1, R - 1), True), ((0, 1), False), ((0, R - 1, 1), False)])
def test_scalars_mix_needs_a_whole_cycle(aux, holds):
    """FORMAT.md: aux values cycling through 0, 1, r - 1; fewer than 3 values are no cycle."""
    v = SimpleNamespace(circuits=[SimpleNamespace(witness=SimpleNamespace(aux=aux))])
    assert flag_holds(v, "scalars-mix-0-1-r-minus-1") is holds
    if not holds:
        assert _refusal(v, "scalars-mix-0-1-r-minus-1") == "no circuit's aux values cycle through 0, 1, r - 1"


def test_scalar_half_r_needs_both_halves():
    """edge-scalars with every tail scalar (r + 1)/2 stated as 5: (r - 1)/2 alone does not make the flag hold."""
    half_up = 0x39F6D3A994CEBEA4199CEC0404D0EC02A9DED2017FFF2DFF7FFFFFFF80000001
    assert 2 * half_up == R + 1
    v = _with_tail_value(_load("edge-scalars"), half_up, 5)
    assert _refusal(v, "scalar-half-r") == f"{half_up:#x} in no tail"


def test_scalar_signed_digit_carry_needs_c_16():
    """edge-scalars with the carry scalar of c = 16 (bit 15 of each of the 15 whole 16-bit windows below bit 254)
    stated as 5 wherever it is a tail scalar."""
    carry_16 = int("8000" * 15, 16)
    v = _with_tail_value(_load("edge-scalars"), carry_16, 5)
    assert _refusal(v, "scalar-signed-digit-carry") == "the carry scalar of c = [16] is in no tail"


def test_blinding_zero_needs_r_and_s_zero():
    """edge-scalars with circuit 0's s (the one circuit with r = s = 0) stated as 5: r = 0 alone is not enough."""
    v = _load("edge-scalars")
    assert [c for c, case in enumerate(v.circuits) if case.witness.r == 0 or case.witness.s == 0] == [0]
    assert _refusal(_with_witness(v, 0, s=5), "blinding-zero") == "no circuit has r = s = 0"


# ----------------------------------------------------------------------------------------------
# Bases


def test_base_identity_needs_a_non_zero_scalar():
    """edge-bases: L[0] is the identity, at tail position 0; its scalar stated as 0."""
    v = _load("edge-bases")
    row = v.expected_prep.l.tail_scalars[0]
    assert v.expected_prep.l.tail_indices[0] == 0 and row[0] != 0
    bad = _with_split(v, "l", tail_scalars=((0, *row[1:]),))
    assert _refusal(bad, "base-identity") == "no identity L point has a non-zero tail scalar"


def test_base_identity_batch_needs_the_bitmap_bit():
    """edge-domain-log1: every L point is the identity and every one in the tail (no bitmap bit set)."""
    assert _refusal(_load("edge-domain-log1"), "base-identity-batch") == "no identity L point in a bitmap"


def test_bases_all_identity_needs_every_l_point_the_identity():
    """edge-domain-log1 (3 L points, all the identity) with L[1] stated as delta_G1."""
    v = _load("edge-domain-log1")
    l = (v.pk.l[0], v.pk.vk.delta_g1, v.pk.l[2])
    assert _refusal(_replace(v, pk=_replace(v.pk, l=l)), "bases-all-identity") == "not every L point is the identity"


def test_bases_all_identity_needs_every_l_point_in_the_tail():
    """edge-domain-log1 with its L tail stated as positions 1 and 2 (position 0 left out)."""
    v = _load("edge-domain-log1")
    split = v.expected_prep.l
    assert split.tail_indices == (0, 1, 2)
    bad = _with_split(v, "l", tail_indices=(1, 2), tail_scalars=(split.tail_scalars[0][1:],))
    assert _refusal(bad, "bases-all-identity") == "not every L point is in the tail"


def _l_bitmap(v, positions: set[int]):
    """v with circuit 0's L bitmap stated as exactly positions."""
    bitmap = bytearray(len(v.expected_prep.l.bitmaps[0]))
    for k in positions:
        bitmap[k // 8] |= 1 << (k % 8)
    return _with_split(v, "l", bitmaps=(bytes(bitmap),))


def test_two_identity_points_are_no_repeated_pair():
    """edge-bases (L[0] and L[1] the identity) with circuit 0's L bitmap stated as positions 0 and 1 alone: O + O
    is not the repeated pair the flag claims (the checker leaves the identity out)."""
    v = _load("edge-bases")
    check_flag(v, "bases-repeated-batch")
    assert _refusal(_l_bitmap(v, {0, 1}), "bases-repeated-batch") == "no repeated bitmap points in l"


def test_bases_repeated_needs_non_boolean_scalars():
    """edge-bases with every L tail scalar stated as 1: equal points with scalar 1 are no shared bucket."""
    v = _load("edge-bases")
    ones = (tuple(1 for _ in v.expected_prep.l.tail_indices),)
    assert _refusal(_with_split(v, "l", tail_scalars=ones), "bases-repeated") == (
        "no repeated tail points with equal non-boolean scalars in l")


def test_bases_flags_judge_the_b_query():
    """edge-bases with B's tail scalars all distinct (1000, 1001, ...): no B pair shares a scalar; with B's bitmap
    empty: no B pair in a bitmap."""
    v = _load("edge-bases")
    split = v.expected_prep.b
    distinct = (tuple(1000 + j for j in range(len(split.tail_indices))),)
    assert _refusal(_with_split(v, "b", tail_scalars=distinct), "bases-repeated") == (
        "no repeated tail points with equal non-boolean scalars in b")
    empty = (bytes(len(split.bitmaps[0])),)
    assert _refusal(_with_split(v, "b", bitmaps=empty), "bases-negated-batch") == "no P, -P pair in the b bitmap"
    assert _refusal(_with_split(v, "b", bitmaps=empty), "bases-repeated-batch") == "no repeated bitmap points in b"


def test_b_points_are_compared_in_g2_too():
    """edge-bases with B_G2 at each B bitmap position stated as a distinct multiple of delta_G2: the B_G1 points
    still repeat and negate, but a B point is the pair (B_G1, B_G2), and those no longer do."""
    v = _load("edge-bases")
    selected = [k for k in range(len(v.pk.b_g1)) if v.expected_prep.b.bitmaps[0][k // 8] >> (k % 8) & 1]
    assert selected == [5, 6, 9, 10]
    b_g2 = tuple(multiply(v.pk.vk.delta_g2, 1000 + k) if k in selected else p for k, p in enumerate(v.pk.b_g2))
    other = _replace(v, pk=_replace(v.pk, b_g2=b_g2))
    assert _refusal(other, "bases-repeated-batch") == "no repeated bitmap points in b"
    assert _refusal(other, "bases-negated-batch") == "no P, -P pair in the b bitmap"


# ----------------------------------------------------------------------------------------------
# Densities and bitmaps


def test_density_sparse_word_boundaries_is_exactly_there():
    """edge-density-boundaries with b_aux[1] set too: set at the boundaries and one more is not 'exactly'."""
    v = _load("edge-density-boundaries")
    b_aux = v.pk.density.b_aux
    assert not b_aux[1]
    bad = _with_density(v, b_aux=(b_aux[0], True, *b_aux[2:]))
    assert _refusal(bad, "density-sparse-word-boundaries") == "b_aux is not set exactly there"


@pytest.mark.parametrize("flag, bit, aux, refusal", [
    ("density-zero-coefficient-a", "a_aux", 0, "a_aux counts a zero-coefficient term"),
    ("density-zero-coefficient-b", "b_aux", 1, "b_aux counts a zero-coefficient term"),
    ("density-zero-coefficient-ab", "a_aux", 2, "a density counts a zero-coefficient term"),
    ("density-zero-coefficient-ab", "b_aux", 2, "a density counts a zero-coefficient term"),
])
def test_density_zero_coefficient_bit_must_be_clear(flag, bit, aux, refusal):
    """edge-zero-coefficients (2 inputs, 5 aux): aux 0 (variable 2) is named in A only with coefficient 0, aux 1 in
    B only, aux 2 in both; with its density bit set, the flag does not hold."""
    v = _load("edge-zero-coefficients")
    bits = getattr(v.pk.density, bit)
    assert not bits[aux]
    check_flag(v, flag)
    assert _refusal(_with_density(v, **{bit: (*bits[:aux], True, *bits[aux + 1:])}), flag) == refusal


def test_density_zero_coefficient_input_is_not_one():
    """edge-zero-coefficients with B's term (1, 0) (public input 1, coefficient 0) stated as (0, 0): ONE, the
    variable 0, is no public input; no public input is named in B with coefficient 0 any more."""
    v = _load("edge-zero-coefficients")
    assert v.r1cs.b[1][0] == (1, 0) and all(var != 0 for row in v.r1cs.b for var, _ in row)
    b = (v.r1cs.b[0], ((0, 0), *v.r1cs.b[1][1:]), *v.r1cs.b[2:])
    assert _refusal(_replace(v, r1cs=_replace(v.r1cs, b=b)), "density-zero-coefficient-input") == (
        "no public input named in B only with coefficient 0")


def test_bitmap_word_boundaries_needs_a_bit_128():
    """edge-density-boundaries with circuit 0's A bitmap bit 128 (byte 16, bit 0) cleared."""
    v = _load("edge-density-boundaries")
    bitmap = bytearray(v.expected_prep.a.bitmaps[0])
    assert bitmap[16] & 1
    bitmap[16] &= 0xFE
    bad = _with_split(v, "a", bitmaps=(bytes(bitmap),))
    assert _refusal(bad, "bitmap-word-boundaries") == "the A bitmap misses a boundary bit"


@pytest.mark.parametrize("q, last_input", [("a", 1), ("b", 0)])
def test_bitmap_seam_needs_the_last_input_in_the_tail(q, last_input):
    """edge-density-boundaries: A holds inputs 0, 1 then aux 1 (aux 0 is outside a_aux); B holds input 1 then aux
    0. The last input's position (A: 1, B: 0) left out of circuit 0's tail."""
    v = _load("edge-density-boundaries")
    split = getattr(v.expected_prep, q)
    j = split.tail_indices.index(last_input)
    bad = _with_split(v, q, tail_indices=split.tail_indices[:j] + split.tail_indices[j + 1:],
                      tail_scalars=(split.tail_scalars[0][:j] + split.tail_scalars[0][j + 1:],))
    assert _refusal(bad, "bitmap-seam") == f"{q}: the last input is not in the tail"


def test_rows_pow2_plus1_is_not_fewer_rows():
    """One row (ONE's input row, no constraint) has n = 2: not n/2 + 1 = 2 rows."""
    one_row = SimpleNamespace(r1cs=R1CS(num_inputs=1, num_aux=0, a=(), b=(), c=()))
    assert (one_row.r1cs.num_rows, one_row.r1cs.n) == (1, 2)
    assert _refusal(one_row, "rows-pow2-plus1") == "1 rows, n = 2"


# ----------------------------------------------------------------------------------------------
# The split boundaries, on hand-built L queries


def _l_view(values: tuple[int, ...], split: bool):
    """The fields the split checkers read: one input (ONE), an L point per value, one circuit with aux = values."""
    return SimpleNamespace(r1cs=SimpleNamespace(num_inputs=1, num_aux=len(values)),
                           pk=SimpleNamespace(l=(None,) * len(values), density=None),
                           circuits=[SimpleNamespace(witness=SimpleNamespace(public_inputs=(), aux=values))],
                           expected_prep=SimpleNamespace(l=SimpleNamespace(split=split)))


def test_split_just_below_half_is_the_largest_union_that_splits():
    """A union of 2 (two non-boolean values): of 5 points it is the largest that splits (2 * 3 > 5), of 6 not."""
    check_flag(_l_view((2, 2, 0, 0, 0), split=True), "split-just-below-half-l")
    assert _refusal(_l_view((2, 2, 0, 0, 0, 0), split=True), "split-just-below-half-l") == (
        "l: union 2 of 6 points is not the largest that splits")


def test_split_just_above_half_is_the_smallest_union_that_does_not_split():
    """A union of 3: of 4 points it is the smallest that does not split (2 * 2 <= 4), of 3 not."""
    check_flag(_l_view((2, 2, 2, 0), split=False), "split-just-above-half-l")
    assert _refusal(_l_view((2, 2, 2), split=False), "split-just-above-half-l") == (
        "l: union 3 of 3 points is not the smallest that does not split")


# ----------------------------------------------------------------------------------------------
# Which tags are flags


@pytest.mark.parametrize("tag", [
    "msm-len-1" + "0" * 20,  # 21 digits: more than a u64's
    "msm-len-01",  # a leading zero
    "msm-len-1x",
    "split-just-below-half-h",  # no query h has a prep
    "split-just-below-half-lb",
])
def test_a_tag_near_a_flag_is_no_flag(tag, tmp_path, capsys):
    """FORMAT.md: N is 0 or without leading zeros, at most 20 digits; q is l, a or b. porep-log01 claiming the tag:
    `check` refuses it as no flag; `generate --flag` too; check_flag raises KeyError."""
    doc = json.loads(SMALL.read_text())
    doc["flags"] = ["shape-porep", tag]
    path = tmp_path / "v.json"
    path.write_text(json.dumps(doc))
    assert vectors_refusal(["check", "--fast", str(path), "--quiet"], capsys) == (
        f"error: flags[1]: {tag!r} is not a flag of vectors/FORMAT.md, so its claim cannot be checked\n")
    argv = ["generate", "--log-n", "2", "--seed", "s", "--flag", tag, "--out", str(tmp_path / "g.json"), "--quiet"]
    assert vectors_refusal(argv, capsys) == f"error: --flag: {tag!r} is not a flag of vectors/FORMAT.md (section Flags)\n"
    assert not (tmp_path / "g.json").exists()
    with pytest.raises(KeyError):
        check_flag(_load("porep-log01"), tag)


def test_an_unknown_flag_is_a_key_error_not_a_holding_flag():
    """check_flag (and flag_holds) raise KeyError for a tag that is not a flag: it holds no property."""
    with pytest.raises(KeyError):
        check_flag(_load("porep-log01"), "fast-path")
    with pytest.raises(KeyError):
        flag_holds(_load("porep-log01"), "fast-path")
