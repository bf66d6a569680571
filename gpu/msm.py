"""Pippenger MSM on the GPU, sum_i s_i * P_i over G1 or G2, with bases kept on the device.

``MsmEngine`` holds one base set on the device (uploaded once) and computes the MSM for the scalars
of any number of circuits. The algorithm (gpu/kernels/msm.cu) is the reference's
(reference/msm.py msm_pippenger): signed c-bit digits, W = ceil(256 / c) windows, 2^(c-1) buckets
per window, running-sum bucket reduction, Horner over windows. Only the order of the additions
differs, which changes no group element, so results are bit-identical to the reference once encoded.

Window width: c = kernel_window_bits(n), the c among the divisors of 256 up to 20 (1, 2, 4, 8, 16)
minimizing W(c) * (n + 2^c): each window costs n bucket additions and about 2 * 2^(c-1) additions in
the running sums; that is c = 16 from n = 2^16 on. Only divisors of 256, because with another c the
top window holds few scalar bits (bit 255 is always 0): c = 17 leaves it bit 255 and the carry, so
nearly every point lands in one bucket, which is summed in sqrt(n)-long serial chains. Measured on
an H200 (bench/RESULTS_msm.md): G1 2^20 takes 17.5 ms at c = 16 but 37.6 ms at c = 17 and 19.3 ms
at c = 13; G1 2^24 takes 138 ms at c = 16 against 155 ms at c = 20 (the cost model's pick without
this restriction, as reference/msm.py's pippenger_window_bits makes it).

``DeviceBases`` is a base set on the device plus its engines; ``DeviceQueries`` uploads a proving
key's H, L, A, B_G1 and B_G2 once for the msm_h, batch_add and tail_msm phases.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reference.errors import InvalidInputError, SizeMismatchError
from reference.msm import MAX_WINDOW_BITS, SCALAR_BITS, num_windows

from .limbs import FR_LIMBS
from .points import (
    G1_GROUP,
    G2_GROUP,
    Group,
    backend,
    download_points,
    launch,
    points_to_words,
    scalars_to_limbs,
    u32,
)

MSM_KERNELS = "msm.cu"
SEGMENT_BUCKETS = 32
"""Buckets per thread in the running-sum reduction (msm_window_segments): 2 additions each, plus a
short double-and-add; the segments of a window are then tree-summed."""
SUM_FOLD = 16
"""Points one thread adds per pass of the tree reduction (sum_groups)."""
PIECE_MIN_POINTS = 64
"""msm.cu MSM_PIECE_MIN_POINTS: a bucket's run is cut into pieces of max(64, ceil(sqrt(run)))."""
WINDOW_CANDIDATES = tuple(c for c in range(1, MAX_WINDOW_BITS + 1) if SCALAR_BITS % c == 0)
"""Window widths kernel_window_bits chooses from: the divisors of 256 (a full top window)."""
WORD_BYTES = 4
MAX_POINTS = (1 << 31) - 1
"""A sorted entry keeps the point index in 31 bits (bit 31 is the digit's sign)."""


def kernel_window_bits(n: int) -> int:
    """The window width c for an MSM of n points: the c in WINDOW_CANDIDATES minimizing
    W(c) * (n + 2^c), W(c) = ceil(256 / c); ties go to the smaller c (module docstring says why)."""
    return min(WINDOW_CANDIDATES, key=lambda c: num_windows(c) * (n + (1 << c)))


def reduce_groups(cu_file: str, sums, groups: int, per_group: int, group: Group):
    """(groups, xyzz_words) device array: the sum of each group of ``per_group`` consecutive XYZZ
    points of ``sums`` (a tree of sum_groups passes, SUM_FOLD points a thread)."""
    xp = backend().xp
    current = sums
    while per_group > 1:
        out_per_group = -(-per_group // SUM_FOLD)
        out = xp.empty((groups * out_per_group, group.xyzz_words), dtype=xp.uint32)
        launch(group.module(cu_file), group.kernel("sum_groups"), groups * out_per_group, current, out,
               u32(groups), u32(per_group), u32(SUM_FOLD), u32(out_per_group))
        current, per_group = out, out_per_group
    return current.reshape(groups, group.xyzz_words)


@dataclass
class _Plan:
    """Sizes of one MSM: c-bit windows, W windows, K = 2^(c-1) buckets a window."""

    n: int
    window_bits: int

    @property
    def windows(self) -> int:
        return num_windows(self.window_bits)

    @property
    def buckets_per_window(self) -> int:
        return 1 << (self.window_bits - 1)

    @property
    def buckets(self) -> int:
        return self.windows * self.buckets_per_window

    @property
    def segments(self) -> int:
        return max(1, self.buckets_per_window // SEGMENT_BUCKETS)

    def device_bytes(self, group: Group) -> int:
        """Upper bound of the scratch memory of one circuit's MSM."""
        entries = self.windows * self.n
        pieces = self.buckets + entries // PIECE_MIN_POINTS
        words = 2 * entries + 5 * (self.buckets + 1)
        points = pieces + self.buckets + 2 * self.windows * self.segments
        return WORD_BYTES * (words + points * group.xyzz_words)


class MsmEngine:
    """Pippenger MSMs over one set of n bases kept on the device (G1 or G2)."""

    def __init__(self, bases, group: Group):
        """``bases``: device array (n, group.affine_words) uint32 of affine Montgomery points (see
        gpu/points.py); kept by reference, not copied."""
        if bases.ndim != 2 or bases.shape[1] != group.affine_words:
            raise SizeMismatchError("bases", f"expected shape (n, {group.affine_words}), got {tuple(bases.shape)}")
        if bases.shape[0] > MAX_POINTS:
            raise SizeMismatchError("bases", f"{bases.shape[0]} points; at most {MAX_POINTS} are supported")
        self.bases = bases
        self.group = group

    @classmethod
    def from_points(cls, points, group: Group) -> "MsmEngine":
        """Upload py_ecc points (affine Montgomery words) and make an engine over them."""
        return cls(backend().xp.asarray(points_to_words(list(points), group)), group)

    @property
    def n(self) -> int:
        return int(self.bases.shape[0])

    def msm(self, scalars, *, montgomery: bool, window_bits: int | None = None):
        """Device array (circuits, affine_words): row k = sum_i s_ki * P_i in affine Montgomery words.

        ``scalars``: device array (circuits, n, 8) or (n, 8) of uint32 little-endian limbs, each
        value < r; in Montgomery form (s * 2^256 mod r, as ntt_h leaves h) when ``montgomery``,
        else plain. ``window_bits`` forces c (1..20); None picks kernel_window_bits(n)."""
        xp = backend().xp
        rows = scalars[None] if scalars.ndim == 2 else scalars
        if scalars.dtype != xp.uint32 or rows.ndim != 3 or rows.shape[1:] != (self.n, FR_LIMBS):
            raise SizeMismatchError(
                "scalars", f"expected uint32 limbs of shape (circuits, {self.n}, {FR_LIMBS}), got "
                f"{scalars.dtype} {tuple(scalars.shape)}")
        plan = _Plan(self.n, self._window_bits(window_bits))
        if plan.windows * self.n >= 1 << 32:
            raise SizeMismatchError("bases", f"{self.n} points x {plan.windows} windows: the digit count must stay below 2^32")
        out = xp.zeros((rows.shape[0], self.group.affine_words), dtype=xp.uint32)  # zeros = identity
        if self.n == 0:
            return out
        backend().reserve(plan.device_bytes(self.group), f"{self.group.name.upper()} MSM of {self.n} points")
        rows = xp.ascontiguousarray(rows)
        for k in range(rows.shape[0]):
            self._msm_one(rows[k], montgomery, plan, out[k])
        backend().check(f"{self.group.name.upper()} MSM of {self.n} points")
        return out

    def msm_ints(self, scalars_per_circuit, *, window_bits: int | None = None, field: str = "scalars") -> list:
        """py_ecc points [sum_i s_ki P_i for each circuit k] for Python-int scalars in [0, r)
        (ScalarRangeError names field[k][i] otherwise)."""
        xp = backend().xp
        limbs = []
        for k, scalars in enumerate(scalars_per_circuit):
            if len(scalars) != self.n:
                raise SizeMismatchError(f"{field}[{k}]", f"{len(scalars)} scalars for {self.n} points")
            limbs.append(scalars_to_limbs(scalars, f"{field}[{k}]"))
        if not limbs:
            return []
        device_scalars = xp.asarray(np.stack(limbs))
        return download_points(self.msm(device_scalars, montgomery=False, window_bits=window_bits), self.group)

    def _window_bits(self, window_bits: int | None) -> int:
        if window_bits is None:
            return kernel_window_bits(self.n)
        if isinstance(window_bits, bool) or not isinstance(window_bits, int) or not 1 <= window_bits <= MAX_WINDOW_BITS:
            raise InvalidInputError("window_bits", f"must be an integer in 1..{MAX_WINDOW_BITS}, got {window_bits!r}")
        return window_bits

    def _msm_one(self, scalars, montgomery: bool, plan: _Plan, out_row) -> None:
        """out_row (affine words) = the MSM of one circuit's (n, 8) scalars (module docstring)."""
        xp = backend().xp
        group, n, windows = self.group, self.n, plan.windows
        module = group.module(MSM_KERNELS)
        counts = xp.zeros(plan.buckets, dtype=xp.uint32)
        digits = xp.empty(windows * n, dtype=xp.uint32)
        launch(module, "msm_digits", n, scalars, u32(n), u32(int(montgomery)), u32(plan.window_bits),
               u32(windows), digits, counts)
        offsets = self._exclusive_sum(counts)
        entries = int(offsets[-1])
        sorted_entries = xp.empty(max(entries, 1), dtype=xp.uint32)
        cursor = offsets[:-1].copy()
        launch(module, "msm_scatter", windows * n, digits, u32(n), u32(windows),
               u32(plan.buckets_per_window), cursor, sorted_entries)
        del digits, cursor
        pieces = xp.empty(plan.buckets, dtype=xp.uint32)
        launch(module, "msm_piece_count", plan.buckets, offsets, u32(plan.buckets), pieces)
        piece_offsets = self._exclusive_sum(pieces)
        total_pieces = int(piece_offsets[-1])
        piece_sums = xp.empty((max(total_pieces, 1), group.xyzz_words), dtype=xp.uint32)
        launch(module, group.kernel("msm_piece_sum"), total_pieces, self.bases, sorted_entries, offsets,
               piece_offsets, u32(plan.buckets), u32(total_pieces), piece_sums)
        del sorted_entries
        bucket_sums = xp.empty((plan.buckets, group.xyzz_words), dtype=xp.uint32)
        launch(module, group.kernel("msm_bucket_sum"), plan.buckets, piece_sums, piece_offsets,
               u32(plan.buckets), bucket_sums)
        del piece_sums
        contributions = xp.empty((windows * plan.segments, group.xyzz_words), dtype=xp.uint32)
        launch(module, group.kernel("msm_window_segments"), windows * plan.segments, bucket_sums,
               u32(windows), u32(plan.buckets_per_window), u32(plan.segments), contributions)
        window_sums = reduce_groups(MSM_KERNELS, contributions, windows, plan.segments, group)
        launch(module, group.kernel("msm_combine"), 1, window_sums, u32(windows), u32(plan.window_bits), out_row)

    @staticmethod
    def _exclusive_sum(counts):
        """[0, c0, c0 + c1, ...] (len + 1 entries, uint32); the totals stay below 2^32 because msm()
        refuses W * n >= 2^32 digits."""
        xp = backend().xp
        offsets = xp.zeros(counts.shape[0] + 1, dtype=xp.uint32)
        offsets[1:] = xp.cumsum(counts, dtype=xp.uint32)
        return offsets


def progression_bases(count: int, start, step, group: Group, run: int = 256):
    """Device array (count, affine_words): the points start + i * step, i < count, made on the device
    (msm.cu progression_points). With start = b G and step = a G, point i is (b + i a) G: bases whose
    discrete logs are known, for tests and benchmarks of large MSMs. ``start``/``step`` are py_ecc
    points; ``run`` points per thread share one inversion."""
    xp = backend().xp
    ends = xp.asarray(points_to_words([start, step], group))
    out = xp.empty((count, group.affine_words), dtype=xp.uint32)
    if count == 0:
        return out
    backend().reserve(count * WORD_BYTES * (group.xyzz_words + group.field_words + group.affine_words),
                      f"{count} generated {group.name.upper()} bases")
    module = group.module(MSM_KERNELS)
    xyzz_scratch = xp.empty((count, group.xyzz_words), dtype=xp.uint32)
    prefix_scratch = xp.empty((count, group.field_words), dtype=xp.uint32)
    threads = -(-count // run)
    launch(module, group.kernel("progression_points"), threads, ends[0:1], ends[1:2], u32(count), u32(run),
           xyzz_scratch, prefix_scratch, out)
    backend().check(f"generating {count} {group.name.upper()} bases")
    return out


def gather_bases(bases, indices, group: Group):
    """Device array (len(indices), affine_words) of bases[indices] (msm.cu gather_points)."""
    xp = backend().xp
    index_array = xp.asarray(indices).astype(xp.uint32)
    out = xp.empty((len(indices), group.affine_words), dtype=xp.uint32)
    launch(group.module(MSM_KERNELS), group.kernel("gather_points"), len(indices), bases, index_array, u32(len(indices)), out)
    return out


@dataclass
class DeviceBases:
    """One query's points on the device (affine words) with its MSM engine."""

    words: object
    """device array (n, affine_words) uint32"""
    group: Group
    _engines: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_points(cls, points, group: Group) -> "DeviceBases":
        return cls(backend().xp.asarray(points_to_words(list(points), group)), group)

    @property
    def n(self) -> int:
        return int(self.words.shape[0])

    def msm_engine(self) -> MsmEngine:
        if "msm" not in self._engines:
            self._engines["msm"] = MsmEngine(self.words, self.group)
        return self._engines["msm"]

    def batch_adder(self):
        """The gpu.batch_add.BatchAdder over these points (it keeps the total of all of them)."""
        if "batch" not in self._engines:
            from .batch_add import BatchAdder  # batch_add imports this module

            self._engines["batch"] = BatchAdder(self.words, self.group)
        return self._engines["batch"]

    def gather(self, indices) -> "DeviceBases":
        """The points at ``indices``, an integer array (numpy or device) of valid indices."""
        return DeviceBases(gather_bases(self.words, indices, self.group), self.group)


QUERY_SPLITS = (("l", "l"), ("a", "a"), ("b_g1", "b"), ("b_g2", "b"))
"""(key query, prep split) of the batch_add and tail_msm phases: B_G1 and B_G2 share the b split."""


@dataclass
class DeviceQueries:
    """A proving key's query points uploaded once: H, L, A, B_G1 (G1) and B_G2 (G2)."""

    h: DeviceBases
    l: DeviceBases
    a: DeviceBases
    b_g1: DeviceBases
    b_g2: DeviceBases

    @classmethod
    def from_proving_key(cls, pk) -> "DeviceQueries":
        """Upload reference.keys.ProvingKey's points (py_ecc) as affine Montgomery words."""
        return cls(
            h=DeviceBases.from_points(pk.h, G1_GROUP),
            l=DeviceBases.from_points(pk.l, G1_GROUP),
            a=DeviceBases.from_points(pk.a, G1_GROUP),
            b_g1=DeviceBases.from_points(pk.b_g1, G1_GROUP),
            b_g2=DeviceBases.from_points(pk.b_g2, G2_GROUP),
        )
