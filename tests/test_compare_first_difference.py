"""conformance/compare.py names the FIRST element that differs, when several do (session 45's mutation audit).

The existing tests broke one element per output, so a comparison that named the last difference instead of the
first, or walked the circuits or queries backwards, passed them all. Here every output differs in several places
and the mismatch must be the first in the documented order: circuit by circuit, then query by query (a, b, c for
evaluate), then index by index. Expected texts are written out by hand (64-digit hex of small integers).
"""
from reference.evaluate import Evaluations

from conformance.compare import first_difference


def _hex(x: int) -> str:
    return "0" * (64 - len(f"{x:x}")) + f"{x:x}"


def test_the_first_of_several_wrong_elements_of_one_query_is_named():
    """h[3] and h[7] both wrong: h[3] is named. Killed mutation: _first_value_difference walking the indices backwards."""
    good = [tuple(range(10))]
    bad = [(0, 1, 2, 30, 4, 5, 6, 70, 8, 9)]
    m = first_difference("ntt_h", good, bad)
    assert (m.phase, m.circuit, m.query, m.index, m.expected, m.actual) == ("ntt_h", 0, "h", 3, "0" * 63 + "3", "0" * 62 + "1e")


def test_a_difference_in_circuit_0_is_named_before_one_in_circuit_1():
    """Both circuits' h differ (circuit 1 at a smaller index): circuit 0's is named."""
    good = [tuple(range(4)), tuple(range(4))]
    bad = [(0, 1, 2, 9), (5, 1, 2, 3)]
    m = first_difference("ntt_h", good, bad)
    assert (m.circuit, m.query, m.index, m.expected, m.actual) == (0, "h", 3, _hex(3), "0" * 63 + "9")


def test_evaluate_names_query_a_before_b_and_c_whatever_the_indices():
    """a[3], b[0] and c[1] wrong: a[3] is named (queries in the format's order a, b, c, then the index)."""
    good = [Evaluations(a=(1, 2, 3, 4), b=(5, 6, 7, 8), c=(9, 10, 11, 12))]
    bad = [Evaluations(a=(1, 2, 3, 40), b=(50, 6, 7, 8), c=(9, 100, 11, 12))]
    m = first_difference("evaluate", good, bad)
    assert (m.phase, m.circuit, m.query, m.index, m.expected, m.actual) == ("evaluate", 0, "a", 3, "0" * 63 + "4", "0" * 62 + "28")
    only_b_and_c = [Evaluations(a=(1, 2, 3, 4), b=(5, 6, 70, 8), c=(90, 10, 11, 12))]
    m = first_difference("evaluate", good, only_b_and_c)
    assert (m.query, m.index, m.expected, m.actual) == ("b", 2, "0" * 63 + "7", "0" * 62 + "46")
    assert m.describe() == f"evaluate: circuit 0, b[2]: expected {'0' * 63}7, got {'0' * 62}46"


# Every field of an output is compared: one wrong field, all others equal, is named.

G1_COMPRESSED = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
"""The G1 generator's compressed encoding, published with zkcrypto/bls12_381's test vectors (src/g1.rs)."""
MINUS_G1_COMPRESSED = "b7" + G1_COMPRESSED[2:]
"""-G1: the same x with the sort flag (0x20) set, as the ZCash encoding defines (y the larger root)."""


def test_a_proof_differing_only_in_c_is_named_at_proof_c():
    """Killed mutation: _proof_fields comparing a and b only (a GPU proof with a wrong C would pass)."""
    from py_ecc.optimized_bls12_381 import G1, G2, neg

    from reference.assemble import Proof

    good, bad = [Proof(a=G1, b=G2, c=G1)], [Proof(a=G1, b=G2, c=neg(G1))]
    m = first_difference("assemble", good, bad)
    assert (m.phase, m.circuit, m.query, m.index, m.expected, m.actual) == (
        "assemble", 0, "proof.c", None, G1_COMPRESSED, MINUS_G1_COMPRESSED)


def _prep(split: bool, tail_indices: tuple, l_scalars: tuple):
    from reference.prep import Prep, QuerySplit

    empty = QuerySplit(split=True, tail_indices=(), bitmaps=(bytes(8),), tail_scalars=((),))
    l = QuerySplit(split=split, tail_indices=tail_indices, bitmaps=(b"\x01" + bytes(7),), tail_scalars=(l_scalars,))
    return Prep(l=l, a=empty, b=empty)


def test_prep_tail_indices_that_differ_are_named_even_when_the_scalars_agree():
    """The shared layout differs (tail index 3 against 4), the circuit's bitmap and tail scalars agree: named as
    l.tail_indices[0], no circuit (the layout is shared). Killed mutation: _prep_fields without the tail indices."""
    m = first_difference("prep", _prep(True, (3,), (5,)), _prep(True, (4,), (5,)))
    assert (m.phase, m.circuit, m.query, m.index, m.expected, m.actual) == ("prep", None, "l.tail_indices", 0, "3", "4")
    assert m.location() == "l.tail_indices[0]"


def test_prep_split_flag_that_differs_is_named():
    """split true against false, all else equal: named as l.split. Killed mutation: _prep_fields without the flag."""
    m = first_difference("prep", _prep(True, (3,), (5,)), _prep(False, (3,), (5,)))
    assert (m.phase, m.circuit, m.query, m.index, m.expected, m.actual) == ("prep", None, "l.split", None, "true", "false")


def test_a_circuit_missing_from_one_prep_query_is_named_where_it_is_missing():
    """Two circuits; the actual prep's l query holds circuit 0's bitmap and tail scalars only (every bitmap zero, no
    tail scalars, so the values that slide into its place are equal). The first difference is circuit 1's l.bitmap,
    with a's field in its place, not the last field of the output. Killed mutation: first_difference without the
    check that both sides hold the same (circuit, query) at each position."""
    from reference.prep import Prep, QuerySplit

    two = QuerySplit(split=True, tail_indices=(), bitmaps=(bytes(8), bytes(8)), tail_scalars=((), ()))
    one = QuerySplit(split=True, tail_indices=(), bitmaps=(bytes(8),), tail_scalars=((),))
    m = first_difference("prep", Prep(l=two, a=two, b=two), Prep(l=one, a=two, b=two))
    assert (m.phase, m.circuit, m.query, m.index, m.expected, m.actual) == (
        "prep", 1, "l.bitmap", None, "present", "a.bitmap (circuit 0) in its place")
