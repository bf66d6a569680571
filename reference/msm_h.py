"""Phase ``msm_h``: H = sum_i h_i * H_i over the H query (tau^i Z(tau)/delta * G1), by Pippenger's method."""
from py_ecc.optimized_bls12_381 import Z1

from .errors import SizeMismatchError
from .msm import msm_pippenger


def msm_h(h: tuple[int, ...], h_query: tuple) -> tuple:
    """sum_{i < n-1} h_i * H_i (G1). The H query has exactly n - 1 points, one per coefficient of h."""
    if len(h) != len(h_query):
        raise SizeMismatchError("proving_key.h", f"has {len(h_query)} points; h has {len(h)} coefficients")
    return msm_pippenger(list(h_query), list(h), identity=Z1)
