"""Pippenger MSM on the GPU, sum_i s_i * P_i over G1 or G2, with bases kept on the device.

``msm_batch`` computes a batch of independent MSMs, its *jobs*: each job its own scalars against its own bases,
optionally through a list of point indices (a tail MSM's subset of a query's points, read in place). Jobs of one
window width share passes (``_passes``), so that many small MSMs (a call's tails, per query and circuit) cost one set
of launches. ``MsmEngine`` holds one base set on the device (uploaded once) and makes one job a circuit. The
algorithm (gpu/kernels/msm.cu) is the reference's
(reference/msm.py msm_pippenger): signed c-bit digits, W = ceil(256 / c) windows, 2^(c-1) buckets
per window, running-sum bucket reduction, Horner over windows. Only the order of the additions
differs, which changes no group element, so results are bit-identical to the reference once encoded.

Window width: c = kernel_window_bits(n), the c in WINDOW_CANDIDATES (the divisors of 256 up to 20, and 10)
minimizing window_cost(n, c) = W(c) * (n + BUCKET_COST * 2^(c-1)): each window costs n bucket additions, and each of
its 2^(c-1) buckets costs about BUCKET_COST additions' time (two running-sum additions, its piece and bucket sums
written and read, a thread that sums only a few points); that is c = 8 up to about 15 k points, 10 up to about 510 k,
16 above (up to WIDE_WINDOW_MIN_POINTS, the measured exception at the end of this paragraph). Other widths are left
out because their top window holds few scalar bits (bit 255 is always 0): c = 17 leaves it bit 255 and the carry,
so nearly every point lands in one bucket, which is summed in sqrt(n)-long serial chains. Measured on an H200
(bench/RESULTS_msm.md, bench/RESULTS_prove.md): G1 2^20 takes 17.5 ms at c = 16 but 37.6 ms at c = 17, 19.3 ms at
c = 13 and 30.0 ms at c = 8. c = 10 (top window 5 live bits) is in
because it was measured: a batch of twenty 130 k-point jobs (tail_msm at 2^27, 10 circuits) takes 47.95 ms at
c = 10 against 52.49 at c = 8, 50.41 at 11, 51.54 at 12 and 85 at 16. A single MSM of 2^16 or 2^17 points takes
about the same time at c = 8, 10 and 16 (8.7-9.6 ms for G1: one thread's serial Horner step dominates). The one
exception to the model is measured: from WIDE_WINDOW_MIN_POINTS on (the G1 and G2 MSMs of 2^24 points and up, msm_h
from 2^24), c = WIDE_WINDOW_BITS = 20.

A batch gives each job its own width, except that a job joins a width an earlier (larger) job took when that costs
less than PASS_COST more than its own: each circuit's one-point B tail then shares the pass of the L and A tails
instead of adding a pass of its own (_job_widths).

``DeviceBases`` is a base set on the device plus its engines; ``DeviceQueries`` uploads a proving
key's H, L, A, B_G1 and B_G2 once for the msm_h, batch_add and tail_msm phases.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate

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
"""A bucket's run is cut into pieces of max(min_points, ceil(sqrt(run))) points (msm.cu piece_length): this many
unless the pass has LONG_PIECES_MIN_BUCKETS buckets (_Plan.piece_min_points)."""
LONG_PIECE_MIN_POINTS = 256
"""min_points in a pass of LONG_PIECES_MIN_BUCKETS buckets or more. A bucket's pieces are summed again, in full XYZZ
additions (msm_bucket_sum), so longer pieces trade those for the pieces' cheaper mixed ones. Measured at G1 2^27 - 1,
c = 20 (bench/probe_window_kernels.py --piece-points, H100, 2026-12-06, bench/RESULTS_msm.md session 41): a call
took 733.78 ms at 64, 728.22 at 128, 724.63 at 256 (msm_bucket_sum 18.21 -> 5.67 ms, msm_piece_sum 609.51 -> 615.05)
and 723.90 at 512; 256, not 512: within a millisecond, with half the serial additions where skewed scalars make
long runs."""
LONG_PIECES_MIN_BUCKETS = 1 << 22
"""Buckets from which a pass takes LONG_PIECE_MIN_POINTS. Long pieces leave about a thread a bucket: with 2^22 buckets
that is still 62 waves of the 67,584 msm_piece_sum_g1 threads an H100 or H200 holds (132 SMs x 4 blocks of 128), so
the longest-first order keeps the last wave short. Fewer buckets keep pieces of 64: 2^17 points at c = 10 make
13,312 buckets of about 256 points, 53 K threads in pieces of 64, 13 K (a fifth of the GPU) in pieces of 256.
msm_h's passes at c = 20 have 13 x 2^19 = 6.8 M."""
PIECE_ORDER_WORDS = 4
"""Scratch words a piece's sort key takes: the u64 key and as much again for the sort's buffer (CuPy's radix sort)."""
MEASURED_WINDOW_BITS = (10,)
"""Widths that do not divide 256 but were measured faster where the model picks them (module docstring)."""
WINDOW_CANDIDATES = tuple(sorted({c for c in range(1, MAX_WINDOW_BITS + 1) if SCALAR_BITS % c == 0}
                                 | set(MEASURED_WINDOW_BITS)))
"""Window widths kernel_window_bits chooses from: the divisors of 256 (a full top window) and MEASURED_WINDOW_BITS."""
BUCKET_COST = 10
"""A bucket's cost in bucket additions' time, measured on the H200 (2026-12-03, tail_msm at 2^27 with 10 circuits,
c = 16): its running-sum additions, piece and bucket sums and the short pieces of sparse buckets took 4.3 ns a
bucket beside 0.44 ns a bucket addition at msm_h's rate (bench/RESULTS_prove.md)."""
PASS_COST = 4_000_000
"""A pass's own cost in bucket additions' time: its launches, prefix sums and the host's read-backs of totals.
Measured on the H200 (2026-12-03, tail_msm at 2^27 with 10 circuits, bench/RESULTS_prove.md): the ten one-point B_G1
jobs in a pass of their own (c = 2) took 54.34 ms a call against 52.49 with every job at c = 8 in one pass, 1.85 ms,
about 4.2 M additions at msm_h's 0.44 ns an addition."""
WIDE_WINDOW_BITS = 20
WIDE_WINDOW_MIN_POINTS = 3 << 22
"""From this many points on, kernel_window_bits gives c = WIDE_WINDOW_BITS: 13 windows, the top one 16 bits wide
(15 live: bit 255 is 0). Measured on an H100 (2026-12-05, GPU tree 2a4bee4, one call, median of 5-7; bench/RESULTS_msm.md,
"Window width", raw RESULTS_msm_window_sweep_2a4bee4.json), c = 20 against c = 16: G1 2^22 37.93 / 32.09 ms,
2^23 59.96 / 59.43 (a tie; G2 181.14 / 184.93), 2^24 108.39 / 113.76 (G2 325.14 / 357.61), 2^25 203.86 / 222.78,
2^26 393.04 / 440.47 (G2 1190.72 / 1395.95); at 2^27, 938.8 / 1001.4 (H200, 2026-12-03). The G1 difference,
interpolated linearly between 2^23 and 2^24, crosses zero near 9.1 M points; the threshold, 12.6 M (2^23.6), lies
between the tie and the first measured win, below msm_h's 2^24 - 1 points. (On 2026-12-03, on the H200, the crossover
lay between 2^26 and 2^27; why it moved that far was not measured.) c = 18 and 19 (top windows of 4 and 9 bits, 3 and
8 live) were slower than both at 2^24 and 2^25."""
SCATTER_FRONT_BYTES = 16 << 20
"""L2 bytes the scatter's write fronts may take (msm.cu msm_scatter): a bucket's entries are written in rank order, so
while a launch runs, every bucket of the window (and job) being scattered holds one partly written L2 line that fills
as ranks advance. With c = 20's 2^19 buckets a window those lines are 64 MiB, more than L2 (50 MiB on the H100, 60 on
the H200); Nsight Compute on the H200 (2026-12-06) counted 34.4 GB of DRAM writes for 7 GB of entries at 2^27, lines
written back part-filled (bench/RESULTS_msm.md, session 39). A launch a slice of the magnitudes keeps the fronts
within this budget, each launch reading all the digits again. 16 MiB, a third of the H100's L2, leaves the rest to the
streamed digits and the offsets. At c = 20 (4 launches) G1 2^27 took 747.58 -> 721.06 ms on the H200 (A/B,
bench/RESULTS_msm.md session 39); against 8 and 32 MiB on an H100 (A/B, session 40) 16 MiB was the fastest at 2^27
(732.75 against 744.08 and 740.72 ms; msm_scatter 56.3 against 70.0 and 64.1 ms)."""
L2_LINE_BYTES = 128
"""The L2 cache's line: it is tagged whole, so one partly written sector holds its 128 bytes."""
WORD_BYTES = 4
MAX_POINTS = (1 << 31) - 1
"""A sorted entry keeps the point index in 31 bits (bit 31 is the digit's sign)."""


def window_cost(n: int, c: int) -> int:
    """An MSM of n points at window width c, in bucket additions' time: W(c) * (n + BUCKET_COST * 2^(c-1)),
    W(c) = ceil(256 / c)."""
    return num_windows(c) * (n + BUCKET_COST * (1 << (c - 1)))


def kernel_window_bits(n: int) -> int:
    """The window width c for an MSM of n points: WIDE_WINDOW_BITS from WIDE_WINDOW_MIN_POINTS on, else the c in
    WINDOW_CANDIDATES minimizing window_cost(n, c); ties go to the smaller c (module docstring says why)."""
    if n >= WIDE_WINDOW_MIN_POINTS:
        return WIDE_WINDOW_BITS
    return min(WINDOW_CANDIDATES, key=lambda c: window_cost(n, c))


def _job_widths(counts: list[int], window_bits: int | None) -> list[int]:
    """Each job's window width (0 for an empty job): ``window_bits`` when forced; else, from the largest job down,
    kernel_window_bits(count), unless a width an earlier job took costs less than PASS_COST more than that, which
    saves the job a pass of its own."""
    if window_bits is not None:
        return [window_bits if count else 0 for count in counts]
    widths = [0] * len(counts)
    taken: set[int] = set()
    for j in sorted(range(len(counts)), key=lambda j: -counts[j]):
        if not counts[j]:
            continue
        own = kernel_window_bits(counts[j])
        joinable = [c for c in taken if window_cost(counts[j], c) - window_cost(counts[j], own) < PASS_COST]
        widths[j] = own if own in taken or not joinable else min(joinable, key=lambda c: window_cost(counts[j], c))
        taken.add(widths[j])
    return widths


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


MSM_BATCH_BYTES = 2 << 30
"""Scratch bytes up to which the jobs of one window width share a pass (msm_batch): small MSMs (a call's tails, per
query and circuit) then cost one set of launches and one serial Horner step. A job whose own scratch is larger runs
alone, with the scratch it needs anyway."""


@dataclass(frozen=True)
class MsmJob:
    """One MSM of a batch: sum_k scalars[k] * bases[indices[k]], or sum_k scalars[k] * bases[k] without indices."""

    bases: object
    """device array (n, affine_words) uint32 of affine Montgomery points (gpu/points.py)"""
    scalars: object
    """device array (count, 8) uint32: little-endian limbs, each value < r"""
    indices: object = None
    """None, or a device array (count,) uint32 of positions in ``bases``, each < n (the caller's contract: a tail
    MSM's positions from prep)"""

    @property
    def count(self) -> int:
        return int(self.scalars.shape[0])


@dataclass(frozen=True)
class _Plan:
    """Sizes of one pass: ``counts[j]`` scalars in job j, c-bit windows, W windows and K = 2^(c-1) buckets a window
    per job."""

    counts: tuple[int, ...]
    window_bits: int

    @property
    def jobs(self) -> int:
        return len(self.counts)

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def windows(self) -> int:
        return num_windows(self.window_bits)

    @property
    def buckets_per_window(self) -> int:
        return 1 << (self.window_bits - 1)

    @property
    def buckets_per_job(self) -> int:
        return self.windows * self.buckets_per_window

    @property
    def buckets(self) -> int:
        return self.jobs * self.buckets_per_job

    @property
    def reduction_segments(self) -> int:
        """Threads a window's running-sum reduction is cut into (msm_window_segments)."""
        return max(1, self.buckets_per_window // SEGMENT_BUCKETS)

    @property
    def digits(self) -> int:
        return self.windows * self.total

    @property
    def scatter_slices(self) -> list[tuple[int, int]]:
        """Magnitude ranges [first, end) of msm_scatter's launches, together 1 .. 2^(c-1): as many as keep a launch's
        write fronts within SCATTER_FRONT_BYTES (one L2 line a bucket of a window)."""
        magnitudes = self.buckets_per_window
        slices = max(1, -(-magnitudes * L2_LINE_BYTES // SCATTER_FRONT_BYTES))
        edges = [1 + magnitudes * k // slices for k in range(slices + 1)]
        return list(zip(edges, edges[1:]))

    @property
    def piece_min_points(self) -> int:
        """msm.cu's min_points: the least length of a piece (LONG_PIECES_MIN_BUCKETS says why it grows)."""
        return LONG_PIECE_MIN_POINTS if self.buckets >= LONG_PIECES_MIN_BUCKETS else PIECE_MIN_POINTS

    def device_bytes(self, group: Group) -> int:
        """Upper bound of the pass's scratch memory."""
        entries = self.digits
        pieces = self.buckets + entries // self.piece_min_points
        words = 2 * entries + 5 * (self.buckets + 1) + PIECE_ORDER_WORDS * pieces
        window_rows = self.jobs * self.windows
        points = pieces + self.buckets + 2 * window_rows * self.reduction_segments + window_rows
        return WORD_BYTES * (words + points * group.xyzz_words)


def _passes(counts: list[int], group: Group, window_bits: int | None) -> list[tuple[list[int], _Plan]]:
    """The passes of a batch: (job numbers, plan). Jobs of one window width (_job_widths) share a pass, in order, while its scratch
    stays within max(MSM_BATCH_BYTES, the scratch of its largest job alone) and its digits below 2^32; empty jobs are
    in no pass (their sum is the identity)."""
    by_width: dict[int, list[int]] = {}
    for j, width in enumerate(_job_widths(counts, window_bits)):
        if width:
            by_width.setdefault(width, []).append(j)
    passes = []
    for c, members in by_width.items():
        current: list[int] = []
        largest_alone = 0  # the scratch of the current pass's largest job alone, kept as jobs join
        for j in members:
            alone = _Plan((counts[j],), c)
            if alone.digits >= 1 << 32:
                raise SizeMismatchError("bases", f"{counts[j]} scalars x {alone.windows} windows: the digit count "
                                        "must stay below 2^32")
            alone_bytes = alone.device_bytes(group)
            grown = _Plan(tuple(counts[k] for k in current) + (counts[j],), c)
            budget = max(MSM_BATCH_BYTES, largest_alone, alone_bytes)
            if current and (grown.device_bytes(group) > budget or grown.digits >= 1 << 32):
                passes.append((current, _Plan(tuple(counts[k] for k in current), c)))
                current, largest_alone = [], 0
            current.append(j)
            largest_alone = max(largest_alone, alone_bytes)
        passes.append((current, _Plan(tuple(counts[k] for k in current), c)))
    return passes


def msm_scratch_bytes(counts, group: Group, window_bits: int | None = None) -> int:
    """Device bytes the largest pass of msm_batch over jobs of these scalar counts allocates (for memory plans)."""
    return max((plan.device_bytes(group) for _, plan in _passes(list(counts), group, window_bits)), default=0)


def msm_batch(jobs: list[MsmJob], group: Group, *, montgomery: bool, window_bits: int | None = None):
    """Device array (len(jobs), affine_words): row j = job j's MSM in affine Montgomery words.

    Scalars are in Montgomery form (s * 2^256 mod r, as ntt_h leaves h) when ``montgomery``, else plain.
    ``window_bits`` forces c (1..20) for every job; None picks each job's width by _job_widths. The jobs are
    computed in passes (see _passes): each pass runs msm.cu's steps 1-8 over all its jobs, and one msm_combine launch
    then finishes the jobs of every pass, so that their serial Horner chains run side by side."""
    xp = backend().xp
    for j, job in enumerate(jobs):
        _check_job(job, group, f"jobs[{j}]")
    if window_bits is not None:
        _check_window_bits(window_bits)
    out = xp.zeros((len(jobs), group.affine_words), dtype=xp.uint32)  # zeros = identity
    window_sums, combine_rows, finished = [], [], []
    first_row = 0
    for members, plan in _passes([job.count for job in jobs], group, window_bits):
        what = f"{group.name.upper()} MSM pass of {plan.jobs} x {max(plan.counts)} points"
        backend().reserve(plan.device_bytes(group), what)
        window_sums.append(_run_pass([jobs[j] for j in members], plan, group, montgomery))
        backend().check(what)
        for _ in members:
            combine_rows.append((first_row, plan.windows, plan.window_bits))
            first_row += plan.windows
        finished += members
    if finished:
        sums = xp.concatenate(window_sums) if len(window_sums) > 1 else window_sums[0]
        table = xp.asarray(np.array(combine_rows, dtype=np.uint32).reshape(len(finished), COMBINE_TABLE_FIELDS))
        combined = xp.empty((len(finished), group.affine_words), dtype=xp.uint32)
        launch(group.module(MSM_KERNELS), group.kernel("msm_combine"), len(finished), sums, table,
               u32(len(finished)), combined)
        out[xp.asarray(finished)] = combined
        backend().check(f"{group.name.upper()} MSM batch of {len(finished)} jobs")
    return out


def _check_job(job: MsmJob, group: Group, name: str) -> None:
    xp = backend().xp
    bases, scalars, indices = job.bases, job.scalars, job.indices
    _check_bases(bases, group, f"{name}.bases")
    if scalars.dtype != xp.uint32 or scalars.ndim != 2 or scalars.shape[1] != FR_LIMBS:
        raise SizeMismatchError(f"{name}.scalars", f"expected uint32 limbs of shape (count, {FR_LIMBS}), got "
                                f"{scalars.dtype} {tuple(scalars.shape)}")
    if indices is None:
        if scalars.shape[0] != bases.shape[0]:
            raise SizeMismatchError(f"{name}.scalars", f"{scalars.shape[0]} scalars for {bases.shape[0]} points")
    elif indices.dtype != xp.uint32 or indices.shape != (scalars.shape[0],):
        raise SizeMismatchError(f"{name}.indices", f"expected uint32 of shape ({scalars.shape[0]},), got "
                                f"{indices.dtype} {tuple(indices.shape)}")
    for array, what in ((bases, "bases"), (scalars, "scalars"), (indices, "indices")):
        if array is not None and not array.flags.c_contiguous:
            raise SizeMismatchError(f"{name}.{what}", "must be C-contiguous (the kernels read it by address)")


def _check_bases(bases, group: Group, name: str) -> None:
    if bases.ndim != 2 or bases.shape[1] != group.affine_words or bases.dtype != backend().xp.uint32:
        raise SizeMismatchError(name, f"expected uint32 words of shape (n, {group.affine_words}), got "
                                f"{bases.dtype} {tuple(bases.shape)}")
    if bases.shape[0] > MAX_POINTS:
        raise SizeMismatchError(name, f"{bases.shape[0]} points; at most {MAX_POINTS} are supported")


def _check_window_bits(window_bits) -> None:
    if isinstance(window_bits, bool) or not isinstance(window_bits, int) or not 1 <= window_bits <= MAX_WINDOW_BITS:
        raise InvalidInputError("window_bits", f"must be an integer in 1..{MAX_WINDOW_BITS}, got {window_bits!r}")


COMBINE_TABLE_FIELDS = 3
"""msm.cu MSM_COMBINE_FIELDS: a job's first row in the window sums, its window count W and width c."""
JOB_TABLE_FIELDS = 4
"""msm.cu msm_job_t: scalars, bases and indices addresses, and the first scalar's pass-wide index."""


def _job_table(jobs: list[MsmJob]):
    """Device array (jobs + 1, JOB_TABLE_FIELDS) uint64: msm.cu's msm_job_t rows plus the sentinel row whose
    ``first`` is the pass's scalar count. The arrays it points at must stay alive while the pass runs."""
    address = backend().address
    return _table([(address(job.scalars), address(job.bases), 0 if job.indices is None else address(job.indices),
                     job.count) for job in jobs])


def _table(rows: list[tuple[int, int, int, int]]):
    """_job_table from (scalars address, bases address, indices address or 0, count) a job: each row's ``first`` is
    the counts before it, and the sentinel's the total."""
    table = np.zeros((len(rows) + 1, JOB_TABLE_FIELDS), dtype=np.uint64)
    first = 0
    for j, (scalars, bases, indices, count) in enumerate(rows):
        table[j] = (scalars, bases, indices, first)
        first += count
    table[-1, -1] = first
    return backend().xp.asarray(table)


@dataclass(frozen=True)
class _DigitsPlan(_Plan):
    """A pass over one window of digits its caller made (window_bucket_sums): no scalars, one window of c bits, one
    job a segment of the bases."""

    @property
    def windows(self) -> int:
        return 1


def _segment_plan(n: int, window_bits: int, segment_points: int) -> _DigitsPlan:
    """The bases cut into segments of ``segment_points`` (the last shorter), each a job of the pass."""
    return _DigitsPlan(tuple(min(segment_points, n - first) for first in range(0, n, segment_points)), window_bits)


def window_bucket_sums(bases, make_digits, window_bits: int, group: Group, segment_points: int):
    """Device array (segments * 2^(c-1), xyzz_words), c = ``window_bits``: row s 2^(c-1) + b is the sum of the bases of
    segment s (bases s * segment_points ..., the last segment shorter) whose digit has magnitude b + 1 (negated where
    its sign bit is set), over one window of digits that the caller makes: ``make_digits()`` -> (digits, counts),
    digits one u32 a base in msm.cu's digit words (ec_kernels.cuh: the sign, the magnitude and the digit's rank, which
    msm_count_digit takes from counts and puts in the word; 0 = no bucket), counts one u32 a row (how many digits of
    the segment have magnitude b + 1); msm.cu's steps 3-7 then run as in an MSM, a segment a job. Segments keep a
    bucket's counter to its segment's digits: atomic additions that wait for their value (the histogram's since the
    ranks, the scatter's before) serialise on a counter that many digits share (bench/RESULTS_msm.md, "The counting
    sort in two steps": 2^16 on each took 69.8 ms at 2^24, with the scatter's). gpu/batch_add.py's circuit patterns
    use it."""
    n = int(bases.shape[0])
    plan = _segment_plan(n, window_bits, segment_points)
    backend().reserve(plan.device_bytes(group), f"{group.name.upper()} bucket pass over {n} digits")
    return _bucket_sums(_segments_table(bases, plan.counts), make_digits, plan, group)


def window_bucket_bytes(n: int, window_bits: int, group: Group, segment_points: int) -> int:
    """Device bytes window_bucket_sums allocates at most (memory plans)."""
    return _segment_plan(n, window_bits, segment_points).device_bytes(group)


def _segments_table(bases, counts: tuple[int, ...]):
    """_job_table for window_bucket_sums: a job a segment of ``bases`` (``counts`` bases each, in order), no scalars
    (the kernels after msm_digits read only a job's bases, index list and first digit)."""
    starts = [0, *accumulate(counts[:-1])]
    return _table([(0, backend().address(bases[start:]), 0, count) for start, count in zip(starts, counts)])


def _run_pass(jobs: list[MsmJob], plan: _Plan, group: Group, montgomery: bool):
    """Device array (plan.jobs * plan.windows, xyzz_words): the window sums S_{j,w} of the pass's MSMs, job by job
    (msm.cu's steps 1-8; msm_batch combines them)."""
    xp = backend().xp
    module = group.module(MSM_KERNELS)
    table = _job_table(jobs)
    windows, total = plan.windows, plan.total

    def make_digits():
        counts = xp.zeros(plan.buckets, dtype=xp.uint32)
        digits = xp.empty(plan.digits, dtype=xp.uint32)
        launch(module, "msm_digits", total, table, u32(plan.jobs), u32(total), u32(int(montgomery)),
               u32(plan.window_bits), u32(windows), digits, counts)
        return digits, counts

    bucket_sums = _bucket_sums(table, make_digits, plan, group)
    window_rows = plan.jobs * windows  # every (job, window) is one row of buckets from here on
    contributions = xp.empty((window_rows * plan.reduction_segments, group.xyzz_words), dtype=xp.uint32)
    launch(module, group.kernel("msm_window_segments"), window_rows * plan.reduction_segments, bucket_sums,
           u32(window_rows), u32(plan.buckets_per_window), u32(plan.reduction_segments), contributions)
    return reduce_groups(MSM_KERNELS, contributions, window_rows, plan.reduction_segments, group)


def _bucket_sums(table, make_digits, plan: _Plan, group: Group):
    """Device array (plan.buckets, xyzz_words): every bucket's sum (msm.cu's steps 2-7) from the pass's digits and
    their histogram, ``make_digits()`` -> (digits, counts). They are made here, so that this function holds their
    only reference and frees each large array once used (digits and sorted entries: 4 bytes a digit each, 7 GiB at
    msm_h's 2^27)."""
    xp = backend().xp
    module = group.module(MSM_KERNELS)
    digits, counts = make_digits()
    offsets = _exclusive_sum(counts)
    sorted_entries = _sorted_entries(module, table, plan, digits, offsets)
    del digits, counts
    pieces = xp.empty(plan.buckets, dtype=xp.uint32)
    min_points = u32(plan.piece_min_points)
    launch(module, "msm_piece_count", plan.buckets, offsets, u32(plan.buckets), min_points, pieces)
    piece_offsets = _exclusive_sum(pieces)
    total_pieces = int(piece_offsets[-1])
    # A warp runs as long as its longest piece: threads take the pieces longest first (sorted keys), so that a warp's
    # lanes add about as many points each (bench/piece_lane_model.py; the sums still land in piece order).
    piece_order = xp.empty(max(total_pieces, 1), dtype=xp.uint64)
    launch(module, "msm_piece_keys", plan.buckets, offsets, piece_offsets, u32(plan.buckets), min_points, piece_order)
    piece_order.sort()
    piece_sums = xp.empty((max(total_pieces, 1), group.xyzz_words), dtype=xp.uint32)
    launch(module, group.kernel("msm_piece_sum"), total_pieces, table, u32(plan.buckets_per_job), sorted_entries,
           offsets, piece_offsets, piece_order, u32(plan.buckets), u32(total_pieces), min_points, piece_sums)
    del sorted_entries, piece_order
    bucket_sums = xp.empty((plan.buckets, group.xyzz_words), dtype=xp.uint32)
    launch(module, group.kernel("msm_bucket_sum"), plan.buckets, piece_sums, piece_offsets, u32(plan.buckets),
           bucket_sums)
    del piece_sums
    return bucket_sums


def _sorted_entries(module, table, plan: _Plan, digits, offsets):
    """Device array (offsets[-1],) uint32 (at least one word): the counting sort's entries, bucket by bucket (msm.cu
    msm_scatter, a launch a slice of _Plan.scatter_slices)."""
    xp = backend().xp
    sorted_entries = xp.empty(max(int(offsets[-1]), 1), dtype=xp.uint32)
    overflowed = xp.zeros(plan.buckets, dtype=xp.uint32)  # a bucket's digits past the ranks a digit word holds
    for first, end in plan.scatter_slices:
        launch(module, "msm_scatter", plan.digits, digits, table, u32(plan.jobs), u32(plan.total), u32(plan.windows),
               u32(plan.window_bits), u32(first), u32(end), offsets, overflowed, sorted_entries)
    return sorted_entries


def _exclusive_sum(counts):
    """[0, c0, c0 + c1, ...] (len + 1 entries, uint32); the totals stay below 2^32 because a pass holds fewer than
    2^32 digits (_passes)."""
    xp = backend().xp
    offsets = xp.zeros(counts.shape[0] + 1, dtype=xp.uint32)
    offsets[1:] = xp.cumsum(counts, dtype=xp.uint32)
    return offsets


class MsmEngine:
    """Pippenger MSMs over one set of n bases kept on the device (G1 or G2): one msm_batch job a circuit."""

    def __init__(self, bases, group: Group):
        """``bases``: device array (n, group.affine_words) uint32 of affine Montgomery points (see
        gpu/points.py); kept by reference, not copied."""
        _check_bases(bases, group, "bases")
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
        rows = xp.ascontiguousarray(rows)
        jobs = [MsmJob(self.bases, rows[k]) for k in range(rows.shape[0])]
        return msm_batch(jobs, self.group, montgomery=montgomery, window_bits=window_bits)

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
