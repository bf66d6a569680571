"""Phase ``tail_msm`` on the GPU: per circuit and query, sum_k tail_scalars[c][k] * Q[tail_indices[k]].

Same equation as reference/tail_msm.py. A split query's tail points are gathered once on the device
(msm.cu gather_points) and every circuit's tail scalars go through one MSM call against them; an unsplit
query's tail is every point, so its bases are used as they are. ``tail_msm`` is the phase's single GPU
implementation: gpu/prover.py and the conformance adapter call it.
"""
from __future__ import annotations

from .msm import QUERY_SPLITS, DeviceQueries


def tail_msm(splits: dict, queries: DeviceQueries) -> dict:
    """Per query name (l, a, b_g1, b_g2): device array (circuits, affine_words), row c = circuit c's tail MSM.

    ``splits``: gpu.prep.prep's output (DeviceSplit per l, a, b: tail_indices, canonical tail_scalars
    (circuits, tail, 8)); ``queries``: the key on the device."""
    sums = {}
    for query, split_name in QUERY_SPLITS:
        split, bases = splits[split_name], getattr(queries, query)
        tail_bases = bases.gather(split.tail_indices) if split.split else bases
        sums[query] = tail_bases.msm_engine().msm(split.tail_scalars, montgomery=False)
    return sums
