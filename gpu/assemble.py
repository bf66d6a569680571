"""Phase ``assemble`` on the device: each circuit's proof from the MSM results and its r, s.

The formula is stated once, in reference/assemble.py's module docstring (the normative text; vectors/FORMAT.md
cites it). The device computes its expanded form (bellman's and supraseal-c2's, shown equal there), with each query's
sum taken as batch + tail and two presums per circuit:

    X = alpha + sum A,  Y = beta_G1 + sum B_G1                      (presums: additions only)
    A = X + r delta_1,  B_G1 = Y + s delta_1,  B = beta_G2 + sum B_G2 + s delta_2
    C = sum L + H + s X + r Y + r s delta_1

Each row is one thread's double-and-add ladder over all its scalars at once (``linear_combination``,
gpu/kernels/assemble.cu), so a row costs one doubling per bit of its longest scalar. The fixed bases delta_1 and
delta_2 enter as DELTA_CHUNKS multiples 2^(32 k) delta (computed once per key on the host, ``delta_chunks``) with
r or s cut into 32-bit chunks: their rows climb 32 bits, not 255. C's s X and r Y are per-circuit bases and keep
their 255-bit ladder, so the phase takes about one such ladder: one launch for the presums, then A, B_G1 and C in
one launch; B in G2 on a side stream beside them (an Fq2 step costs about three Fq ones). All circuits share each
launch. Group elements are unique, so the proofs are bit-identical to the reference's.

Inputs and outputs stay on the device: the MSM phases' outputs as (circuits, affine_words) word arrays in, the
proofs' A, B, C as ``DeviceProofs`` out. Bringing them to the host (``download_proofs``) is a copy, timed as its
own stage (``d2h_proofs``, gpu/staging.py), so that assemble's time is device work only.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from py_ecc.optimized_bls12_381 import FQ, FQ2, double

from reference.assemble import Proof
from reference.curve import affine_ints, g1_is_on_curve, g2_is_on_curve
from reference.field import R

from .device import GpuKernelError
from .limbs import FR, ints_to_limbs
from .points import G1_GROUP, G2_GROUP, Group, backend, download_points, launch, points_to_words, u32

ASSEMBLE_KERNELS = "assemble.cu"


def linear_combinations(points, scalars: list[list[int]], group: Group, out=None):
    """(rows, affine_words) device array: row k = sum_t scalars[k][t] * points[k, t], queued (the caller checks).

    ``points``: device array (rows, terms, affine_words); ``scalars``: rows x terms ints in [0, r); ``out``: where
    to write (allocated here if None)."""
    xp = backend().xp
    rows, terms = int(points.shape[0]), int(points.shape[1])
    limbs = ints_to_limbs([k for row in scalars for k in row], FR, "assemble scalars").reshape(rows, terms, FR.num_limbs)
    out = xp.zeros((rows, group.affine_words), dtype=xp.uint32) if out is None else out
    launch(group.module(ASSEMBLE_KERNELS), group.kernel("linear_combination"), rows, xp.ascontiguousarray(points),
           xp.asarray(limbs), u32(terms), u32(rows), out)
    return out


def _rows(*columns):
    """(rows, terms, words): column t is a (rows, words) device array, or one point's (words,) for every row."""
    xp = backend().xp
    rows = max(int(c.shape[0]) for c in columns if c.ndim == 2)
    return xp.stack([c if c.ndim == 2 else xp.broadcast_to(c, (rows, c.shape[0])) for c in columns], axis=1)


@dataclass(frozen=True)
class DeviceProofs:
    """Every circuit's proof on the device: A and C as (circuits, G1 affine words), B as (circuits, G2 affine words)."""

    a: object
    b: object
    c: object


def download_proofs(proofs: DeviceProofs) -> list[Proof]:
    """The proofs as py_ecc points on the host (the device-to-host copy and the decoding of the words).

    Every point is checked to be on its curve: a kernel that wrote garbage raises GpuKernelError here instead of
    handing over a proof that no encoder or verifier was meant to see."""
    downloaded = {}
    for name, words, group, on_curve in (("A", proofs.a, G1_GROUP, g1_is_on_curve), ("B", proofs.b, G2_GROUP, g2_is_on_curve),
                                         ("C", proofs.c, G1_GROUP, g1_is_on_curve)):
        points = download_points(words, group)
        for k, point in enumerate(points):
            if not on_curve(point):
                raise GpuKernelError(f"assemble: proof {name} of circuit {k} is not on the curve (corrupt kernel output)")
        downloaded[name] = points
    return [Proof(a=a, b=b, c=c) for a, b, c in zip(downloaded["A"], downloaded["B"], downloaded["C"])]


DELTA_CHUNK_BITS = 32
DELTA_CHUNKS = 8
"""r and s (< r < 2^255) as DELTA_CHUNKS chunks of DELTA_CHUNK_BITS bits, against 2^(32 k) delta."""


C_TERMS = 6
"""The terms of C's row: sum L (batch and tail), H, s X, r Y, r s delta_1."""


def _chunks(k: int) -> list[int]:
    """k's DELTA_CHUNKS little-endian DELTA_CHUNK_BITS-bit chunks: k = sum_j chunk_j 2^(32 j)."""
    mask = (1 << DELTA_CHUNK_BITS) - 1
    return [(k >> (DELTA_CHUNK_BITS * j)) & mask for j in range(DELTA_CHUNKS)]


@functools.lru_cache(maxsize=8)
def _delta_chunk_words(delta_key: tuple, g2: bool):
    """Affine words of 2^(32 k) delta for k < DELTA_CHUNKS (host numpy), made once per key (``delta_key``: delta's
    affine coordinates, reference.curve.affine_ints; the multiples by repeated doubling in py_ecc)."""
    group = G2_GROUP if g2 else G1_GROUP
    x, y = delta_key
    point = (FQ2(list(x)), FQ2(list(y)), FQ2.one()) if g2 else (FQ(x), FQ(y), FQ.one())
    multiples = []
    for _ in range(DELTA_CHUNKS):
        multiples.append(point)
        for _ in range(DELTA_CHUNK_BITS):
            point = double(point)
    words = points_to_words(multiples, group)
    words.setflags(write=False)  # (cached and shared: the host backend's asarray hands out this very array)
    return words


def delta_chunks(delta, g2: bool = False):
    """(DELTA_CHUNKS, affine_words) device array of 2^(32 k) delta (k = 0..DELTA_CHUNKS-1), from the host cache."""
    return backend().xp.asarray(_delta_chunk_words(affine_ints([delta])[0], g2))


def assemble(vk, h, batch: dict, tail: dict, randomness: list[tuple[int, int]]) -> DeviceProofs:
    """Proofs for every circuit, on the device: the phase's single GPU implementation (gpu/prover.py and the
    conformance adapter call it, each then calling ``download_proofs``). ``h``: (circuits, 24) msm_h words; ``batch``/``tail``: per query
    name (l, a, b_g1, b_g2) a (circuits, affine_words) device array; ``randomness``: per circuit (r, s)."""
    xp = backend().xp
    g1 = xp.asarray(points_to_words([vk.alpha_g1, vk.beta_g1, vk.delta_g1], G1_GROUP))
    beta_2 = xp.asarray(points_to_words([vk.beta_g2], G2_GROUP))[0]
    alpha_1, beta_1, delta_1 = g1[0], g1[1], g1[2]
    deltas_1, deltas_2 = delta_chunks(vk.delta_g1), delta_chunks(vk.delta_g2, g2=True)
    rs = [(r % R, s % R) for r, s in randomness]
    circuits = len(rs)
    b = xp.zeros((circuits, G2_GROUP.affine_words), dtype=xp.uint32)  # outlives the side stream: allocated here
    with backend().side_stream() as join_b:
        linear_combinations(_rows(beta_2, batch["b_g2"], tail["b_g2"], *deltas_2), [[1, 1, 1, *_chunks(s)] for _, s in rs],
                            G2_GROUP, out=b)
    presums = linear_combinations(
        xp.concatenate([_rows(alpha_1, batch["a"], tail["a"]), _rows(beta_1, batch["b_g1"], tail["b_g1"])]),
        [[1, 1, 1]] * (2 * circuits), G1_GROUP)
    x, y = presums[:circuits], presums[circuits:]
    # A, B_G1 and C in one launch, rows of A's width: X (or Y) and r's (or s's) chunks against delta_1's multiples.
    # C's C_TERMS terms are padded to that width with scalar 0 (never added; any bases serve).
    padding = [0] * (1 + DELTA_CHUNKS - C_TERMS)
    a_b1_c = linear_combinations(
        xp.concatenate([_rows(x, *deltas_1), _rows(y, *deltas_1),
                        _rows(batch["l"], tail["l"], h, x, y, delta_1, *deltas_1[: len(padding)])]),
        [[1, *_chunks(r)] for r, _ in rs] + [[1, *_chunks(s)] for _, s in rs]
        + [[1, 1, 1, s, r, r * s % R, *padding] for r, s in rs], G1_GROUP)
    a, c = a_b1_c[:circuits], a_b1_c[2 * circuits:]
    join_b()
    backend().check(f"assemble: {circuits} circuit(s)")  # before any result is handed back
    return DeviceProofs(a=a, b=b, c=c)


__all__ = ["DeviceProofs", "Proof", "assemble", "download_proofs", "linear_combinations"]
