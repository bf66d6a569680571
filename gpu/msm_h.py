"""Phase ``msm_h`` on the GPU: H = sum_i h_i * H_i over the H query (G1, n - 1 points).

Same inputs and output as reference/msm_h.py, by the GPU Pippenger MSM (gpu/msm.py). h comes
either as Python ints (as the reference takes it) or, from the GPU ntt_h, as a device array of
Montgomery-form Fr limbs of shape (n - 1, 8) or (circuits, n - 1, 8): then it never leaves the
device. The H points are uploaded once (gpu.msm.DeviceBases) and reused across calls.
"""
from __future__ import annotations

from reference.errors import SizeMismatchError

from .msm import DeviceBases
from .points import FR_LIMBS, G1_GROUP, download_points


def as_h_bases(h_query) -> DeviceBases:
    """The H query on the device: returned as is if already a DeviceBases, else uploaded."""
    return h_query if isinstance(h_query, DeviceBases) else DeviceBases.from_points(h_query, G1_GROUP)


def msm_h_device(h_montgomery, h_bases: DeviceBases):
    """Device array (circuits, 24): sum_i h_ci * H_i (affine Montgomery G1 words) for device h of
    shape (circuits, n - 1, 8) or (n - 1, 8), Montgomery-form limbs as the GPU ntt_h writes them."""
    if h_montgomery.shape[-2:] != (h_bases.n, FR_LIMBS):
        raise SizeMismatchError("h", f"has shape {tuple(h_montgomery.shape)}; the H query has {h_bases.n} points")
    return h_bases.msm_engine().msm(h_montgomery, montgomery=True)


def msm_h_many(h_montgomery, h_query) -> list:
    """py_ecc G1 points, one per circuit, for device h (see msm_h_device)."""
    return download_points(msm_h_device(h_montgomery, as_h_bases(h_query)), G1_GROUP)


def msm_h(h, h_query) -> tuple:
    """sum_{i < n-1} h_i * H_i (G1, a py_ecc point), as reference.msm_h.msm_h.

    ``h``: n - 1 ints in [0, r), or a device array (n - 1, 8) of Montgomery limbs. ``h_query``: the
    n - 1 points (py_ecc) or a DeviceBases holding them."""
    bases = as_h_bases(h_query)
    if not isinstance(h, (list, tuple)):  # a device array of Montgomery limbs
        return msm_h_many(h.reshape(1, bases.n, FR_LIMBS), bases)[0]
    if len(h) != bases.n:
        raise SizeMismatchError("proving_key.h", f"has {bases.n} points; h has {len(h)} coefficients")
    return bases.msm_engine().msm_ints([list(h)], field="h")[0]
