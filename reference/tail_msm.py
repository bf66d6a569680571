"""Phase ``tail_msm``: per circuit, the MSM over each query's tail positions.

    tail(Q) = sum_k tail_scalars[k] * Q[tail_indices[k]]

for L, A, B_G1 (G1) and B_G2 (G2) (``msm``: sum_i s_i * P_i). With ``batch_add`` this gives the full
query sums: sum_i z_i * Q_i = batch_add(Q) + tail(Q), because every point with scalar 1 is either in
the bitmap (tail scalar 0) or, for an unsplit query or an input, in the tail with its own scalar.
"""
from py_ecc.optimized_bls12_381 import Z1, Z2

from .keys import ProvingKey, QuerySums
from .msm import REFERENCE_CURVE
from .prep import Prep, QuerySplit


def tail_sum(points: tuple, split: QuerySplit, circuit: int, identity: tuple, curve=REFERENCE_CURVE) -> tuple:
    """sum_k split.tail_scalars[circuit][k] * points[split.tail_indices[k]] (``identity`` for an empty tail), the MSM
    computed by ``curve`` (reference/msm.py ``ReferenceCurve``)."""
    return curve.msm_at(points, split.tail_indices, split.tail_scalars[circuit], identity)


def tail_msm(prep: Prep, pk: ProvingKey, curve=REFERENCE_CURVE) -> list[QuerySums]:
    """For each circuit: the tail MSMs of L, A, B_G1 and B_G2."""
    return [
        QuerySums(
            l=tail_sum(pk.l, prep.l, c, Z1, curve),
            a=tail_sum(pk.a, prep.a, c, Z1, curve),
            b_g1=tail_sum(pk.b_g1, prep.b, c, Z1, curve),
            b_g2=tail_sum(pk.b_g2, prep.b, c, Z2, curve),
        )
        for c in range(len(prep.l.tail_scalars))
    ]
