"""Phase ``msm_h``: the H term of the proof's C,

    msm_h = sum_i h_i * H_i                                                        (G1)

over ntt_h's output h and the key's H query, one point per scalar (reference/ntt_h.py says what h is):

* bellman: n - 1 points H_i = tau^i Z(tau) / delta * G1, so msm_h = h(tau) Z(tau) / delta * G1;
* snarkjs: n points, the Lagrange basis of the coset at tau times Z(tau) / (Z(g) delta), so msm_h is again
  h(tau) Z(tau) / delta * G1 (reference/setup.py ``h_query_scalars``).
"""
from py_ecc.optimized_bls12_381 import Z1

from .errors import SizeMismatchError
from .msm import REFERENCE_CURVE


def msm_h(h: tuple[int, ...], h_query: tuple, curve=REFERENCE_CURVE) -> tuple:
    """sum_i h_i * H_i (G1); the H query has exactly one point per scalar of h. ``curve`` computes the MSM
    (reference/msm.py ``ReferenceCurve`` says why it can be swapped)."""
    if len(h) != len(h_query):
        raise SizeMismatchError("proving_key.h", f"has {len(h_query)} points; h has {len(h)} scalars")
    return curve.msm(h_query, h, Z1)
