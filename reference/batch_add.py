"""Phase ``batch_add``: per circuit, the plain sum of the query points whose bitmap bit is set.

These are the points whose scalar is exactly 1 (see ``prep``): adding them is the whole
multiplication. L, A and B_G1 are summed in G1, B_G2 in G2; B_G1 and B_G2 use B's bitmap.
"""
from py_ecc.optimized_bls12_381 import Z1, Z2

from .keys import ProvingKey, QuerySums
from .msm import REFERENCE_CURVE
from .prep import Prep, bitmap_bits


def sum_selected(points: tuple, bitmap: bytes, identity: tuple, curve=REFERENCE_CURVE) -> tuple:
    """sum_{i : bit i of bitmap is set} points[i], added by ``curve`` (reference/msm.py ``ReferenceCurve``)."""
    selected = [i for i, bit in enumerate(bitmap_bits(bitmap, len(points))) if bit]
    return curve.sum_at(points, selected, identity)


def batch_add(prep: Prep, pk: ProvingKey, curve=REFERENCE_CURVE) -> list[QuerySums]:
    """For each circuit c: (sum over L, A, B_G1, B_G2 of the points selected by c's bitmaps)."""
    return [
        QuerySums(
            l=sum_selected(pk.l, prep.l.bitmaps[c], Z1, curve),
            a=sum_selected(pk.a, prep.a.bitmaps[c], Z1, curve),
            b_g1=sum_selected(pk.b_g1, prep.b.bitmaps[c], Z1, curve),
            b_g2=sum_selected(pk.b_g2, prep.b.bitmaps[c], Z2, curve),
        )
        for c in range(len(prep.l.bitmaps))
    ]
