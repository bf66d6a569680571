"""Phase ``assemble`` on the device: each circuit's proof from the MSM results and its r, s.

The formula is stated once, in reference/assemble.py's module docstring (the normative text; vectors/FORMAT.md
cites it): its paper form of A, B, B_G1 and C, with each query's sum taken as batch + tail (the coefficient lists
in ``assemble`` below). Each of A, B_G1, C (G1) and B (G2) is one row of the ``linear_combination`` kernel
(gpu/kernels/assemble.cu: a shared double-and-add ladder over all the row's scalars), one thread a row, all
circuits in one launch: A and B_G1 together first, then C (which uses them); B in G2 on a side stream beside them.

Measured on an H200 before this module existed: the reference's function with py_ecc took ~68 ms a circuit (about six 255-bit scalar
multiplications in Python), the device takes a few milliseconds for any number of circuits. Group
elements are unique, so the proofs are bit-identical to the reference's.

Inputs and outputs stay on the device: the MSM phases' outputs as (circuits, affine_words) word arrays in, the
proofs' A, B, C as ``DeviceProofs`` out. Bringing them to the host (``download_proofs``) is a copy, timed as its
own stage (``d2h_proofs``, gpu/staging.py), so that assemble's time is device work only.
"""
from __future__ import annotations

from dataclasses import dataclass

from reference.assemble import Proof
from reference.curve import g1_is_on_curve, g2_is_on_curve
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


def assemble(vk, h, batch: dict, tail: dict, randomness: list[tuple[int, int]]) -> DeviceProofs:
    """Proofs for every circuit, on the device: the phase's single GPU implementation (gpu/prover.py and the
    conformance adapter call it, each then calling ``download_proofs``). ``h``: (circuits, 24) msm_h words; ``batch``/``tail``: per query
    name (l, a, b_g1, b_g2) a (circuits, affine_words) device array; ``randomness``: per circuit (r, s)."""
    xp = backend().xp
    g1 = xp.asarray(points_to_words([vk.alpha_g1, vk.beta_g1, vk.delta_g1], G1_GROUP))
    g2 = xp.asarray(points_to_words([vk.beta_g2, vk.delta_g2], G2_GROUP))
    alpha_1, beta_1, delta_1 = g1[0], g1[1], g1[2]
    beta_2, delta_2 = g2[0], g2[1]
    rs = [(r % R, s % R) for r, s in randomness]
    circuits = len(rs)
    # Each row is one thread's serial ladder, so the phase takes as long as its longest chain of launches. B (G2,
    # an Fq2 step costs about three Fq ones) needs nothing the G1 rows compute: it runs on a side stream beside them.
    b = xp.zeros((circuits, G2_GROUP.affine_words), dtype=xp.uint32)  # outlives the side stream: allocated here
    with backend().side_stream() as join_b:
        linear_combinations(_rows(beta_2, batch["b_g2"], tail["b_g2"], delta_2), [[1, 1, 1, s] for _, s in rs], G2_GROUP,
                            out=b)
    # A and B_G1 share one launch (their rows side by side): one launch of twice the rows costs what one of them did.
    a_and_b_1 = linear_combinations(
        xp.concatenate([_rows(alpha_1, batch["a"], tail["a"], delta_1), _rows(beta_1, batch["b_g1"], tail["b_g1"], delta_1)]),
        [[1, 1, 1, r] for r, _ in rs] + [[1, 1, 1, s] for _, s in rs], G1_GROUP)
    a, b_1 = a_and_b_1[:circuits], a_and_b_1[circuits:]
    c = linear_combinations(_rows(batch["l"], tail["l"], h, a, b_1, delta_1),
                            [[1, 1, 1, s, r, (-r * s) % R] for r, s in rs], G1_GROUP)
    join_b()
    backend().check(f"assemble: {circuits} circuit(s)")  # before any result is handed back
    return DeviceProofs(a=a, b=b, c=c)


__all__ = ["DeviceProofs", "Proof", "assemble", "download_proofs", "linear_combinations"]
