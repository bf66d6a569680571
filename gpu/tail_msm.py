"""Phase ``tail_msm`` on the GPU: per circuit and query, sum_k tail_scalars[c][k] * Q[tail_indices[k]].

Same equation as reference/tail_msm.py. Every circuit's tail of every query is one job of gpu.msm.msm_batch: a split
query's job reads its tail points in place through the tail indices, an unsplit query's tail is every point. The G1
queries' jobs (L, A, B_G1, every circuit) form one batch and B_G2's another, so that the many small MSMs of a call
share their launches and serial steps. ``tail_msm`` is the phase's single GPU implementation: gpu/prover.py and the
conformance adapter call it.
"""
from __future__ import annotations

import numpy as np

from .msm import QUERY_SPLITS, DeviceQueries, MsmJob, msm_batch
from .points import backend


def tail_msm(splits: dict, queries: DeviceQueries, window_bits: int | None = None) -> dict:
    """Per query name (l, a, b_g1, b_g2): device array (circuits, affine_words), row c = circuit c's tail MSM.

    ``splits``: gpu.prep.prep's output (DeviceSplit per l, a, b: tail_indices, canonical tail_scalars
    (circuits, tail, 8)); ``queries``: the key on the device; ``window_bits``: None (gpu.msm.kernel_window_bits per
    job), or a width forced on every job (for benchmarks of the choice)."""
    sums = {}
    for group, query_jobs in tail_batches(splits, queries):
        rows = msm_batch([job for _, jobs in query_jobs for job in jobs], group, montgomery=False,
                         window_bits=window_bits)
        first = 0
        for query, jobs in query_jobs:
            sums[query] = rows[first : first + len(jobs)]
            first += len(jobs)
    return sums


def tail_batches(splits: dict, queries: DeviceQueries) -> list:
    """[(group, [(query, its jobs, one a circuit), ...]), ...]: G1's batch (L, A, B_G1), then G2's (B_G2)."""
    xp = backend().xp
    tails = {}  # per split (B_G1 and B_G2 share b's): u32 indices (None: every point) and each circuit's scalars
    for name, split in splits.items():
        indices = split.tail_indices.astype(np.uint32) if split.split else None  # < 2^31 points (gpu.msm.MAX_POINTS)
        tails[name] = indices, list(xp.ascontiguousarray(split.tail_scalars))
    batches: dict = {}
    for query, split_name in QUERY_SPLITS:
        bases, (indices, circuit_scalars) = getattr(queries, query), tails[split_name]
        jobs = [MsmJob(bases.words, scalars, indices) for scalars in circuit_scalars]
        batches.setdefault(bases.group.name, (bases.group, []))[1].append((query, jobs))
    return list(batches.values())
