"""Phase ``msm_h`` on the GPU: H = sum_i h_i * H_i over the H query (G1), one point per scalar of h: n - 1 in the
bellman convention, n in the snarkjs one (vectors/FORMAT.md ``proving_key.h``; reference/msm_h.py says what the
points are in each).

Same equation as reference/msm_h.py, by the GPU Pippenger MSM (gpu/msm.py), for every circuit of a
call against the same device bases. ``msm_h`` is the phase's single GPU implementation: gpu/prover.py
and the conformance adapter call it.
"""
from __future__ import annotations

from reference.errors import SizeMismatchError

from .msm import DeviceBases
from .limbs import FR_LIMBS


def msm_h(h_montgomery, h_bases: DeviceBases):
    """Device array (circuits, 24): row k = sum_i h_ki * H_i (affine Montgomery G1 words), for ``h_montgomery``
    of shape (circuits, len(H), 8) (n - 1 scalars a circuit for bellman, n for snarkjs), Montgomery-form Fr limbs
    as gpu.ntt_h.ntt_h writes them; ``h_bases``: the H query on the device (gpu.msm.DeviceQueries.h)."""
    if h_montgomery.ndim != 3 or h_montgomery.shape[1:] != (h_bases.n, FR_LIMBS):
        raise SizeMismatchError("h", f"has shape {tuple(h_montgomery.shape)}; expected (circuits, {h_bases.n}, "
                                f"{FR_LIMBS}): the H query has {h_bases.n} points")
    return h_bases.msm_engine().msm(h_montgomery, montgomery=True)
