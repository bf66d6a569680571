"""Phase ``tail_msm`` on the GPU: per circuit, the MSM over each query's tail positions.

    tail(Q) = sum_k tail_scalars[k] * Q[tail_indices[k]]      (L, A, B_G1 in G1; B_G2 in G2)

Same inputs and output as reference/tail_msm.py. The tail positions are shared by all circuits, so
each query's tail points are gathered once on the device (all of the query when it is not split)
and one MSM engine serves every circuit's scalars.
"""
from __future__ import annotations

from reference.keys import QuerySums

from .msm import DeviceBases, as_device_queries


def tail_query(bases: DeviceBases, split, field: str) -> list:
    """py_ecc points: per circuit, sum_k split.tail_scalars[c][k] * bases[split.tail_indices[k]]."""
    subset = bases.subset(list(split.tail_indices))
    return subset.msm_engine().msm_ints([list(s) for s in split.tail_scalars], field=field)


def tail_msm(prep, keys) -> list[QuerySums]:
    """For each circuit: the tail MSMs of L, A, B_G1 and B_G2, as reference/tail_msm.py.
    ``keys``: a reference ProvingKey (uploaded here) or gpu.msm.DeviceQueries."""
    queries = as_device_queries(keys)
    l = tail_query(queries.l, prep.l, "prep.l.tail_scalars")
    a = tail_query(queries.a, prep.a, "prep.a.tail_scalars")
    b_g1 = tail_query(queries.b_g1, prep.b, "prep.b.tail_scalars")
    b_g2 = tail_query(queries.b_g2, prep.b, "prep.b.tail_scalars")
    return [QuerySums(l=l[c], a=a[c], b_g1=b_g1[c], b_g2=b_g2[c]) for c in range(len(l))]
