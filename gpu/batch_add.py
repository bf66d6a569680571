"""Phase ``batch_add`` on the GPU: per circuit, the plain sum of the query points whose bit is set.

    sum_c = sum_{i : bit i of circuit c's bitmap is set} Q_i      (L, A, B_G1 in G1; B_G2 in G2)

Bit i is bit (i mod 8) of byte (i div 8), the same bits as little-endian 32-bit words. One kernel
pass over the bases serves all circuits (gpu/kernels/batch_add.cu): the bases are read from memory
once, whatever the number of circuits. A circuit with more than half of its bits set is summed over
its clear bits and subtracted from the total of all bases (T - sum_clear), so a 99%-dense bitmap
costs 1% of the additions; T is computed once (the first time a dense bitmap comes) and kept with
the bases.

Several circuits can instead be summed by their patterns: the circuits of a call share the bases, so base i's bits
across them, its pattern p_i = sum_k b_ki 2^k, choose one of 2^K buckets, and

    B_p = sum_{i : p_i = p} Q_i        (one addition a base that any circuit selects: N (1 - prod_k (1 - d_k)))
    sum_k = sum_{p : bit k of p is set} B_p        (K 2^(K-1) additions: 5120 for ten circuits)

against sum_k d_k N additions one circuit at a time (d_k: the share circuit k adds, at most 1/2 by the complement
rule): about 5 times fewer for ten circuits at density 1/2. The buckets are an MSM pass's (gpu/msm.py
window_bucket_sums, one window whose digits are the patterns), one set a segment of the bases
(PATTERN_POINTS_PER_BUCKET says why). ``patterns_pay`` decides, per call, by counting.

The result is the same group element as reference/batch_add.py (addition order does not change it).
``batch_add`` is the phase's single GPU implementation; ``BatchAdder`` is the engine it runs per query.
"""
from __future__ import annotations

import numpy as np

from reference.errors import SizeMismatchError

from .msm import BUCKET_COST, QUERY_SPLITS, DeviceQueries, reduce_groups, window_bucket_bytes, window_bucket_sums
from .points import Group, backend, launch, u32

BATCH_KERNELS = "batch_add.cu"
MODE_BITS = 0
"""Sum the bases whose bit is set (batch_add.cu BATCH_MODE_BITS)."""
MODE_COMPLEMENT = 1
"""Sum the bases whose bit is clear, then T - that sum (BATCH_MODE_COMPLEMENT)."""
MODE_ALL = 2
"""Sum every base: T (BATCH_MODE_ALL)."""
U32_WORD_BITS = 32
"""Bits of the words batch_add.cu reads (its WORD_BITS): the kernel walks 32-bit words, so prep's 64-bit bitmap words
(reference/prep.py WORD_BITS = 64) are read as their two little-endian u32 halves (bitmap_words, no copy)."""
BATCH_WAVES = 4
"""Waves of resident threads a pass aims at: several, so that chunks of uneven work (a witness's bitmap is not
uniform) even out over the SMs, and whole ones, since a last partial wave leaves SMs idle."""
RESIDENT_THREADS = {1: 132 * 4 * 128, 2: 132 * 2 * 128}
"""Threads of batch_add_chunks one H200 holds at once, by the group's degree: 132 SMs, blocks of 128, 4 blocks an SM
for G1 (batch_add.cu BATCH_ADD_CHUNKS_G1_BLOCKS_PER_SM, 128 registers a thread) and 2 for G2 (255). On another GPU
the sums are the same, the waves less whole."""


MAX_PATTERN_ROWS = 16
"""Rows a pattern pass takes at most: 2^16 buckets (a proof's circuits sharing a key: ten for a PoRep partition)."""
PATTERN_SHARE = 0.40
"""The pattern path runs when its expected additions (pattern_share) are at most this share of the rows' own. Its
additions cost more than the chunks' (gathered through sorted entries, not streamed, after a sort of the digits; its
buckets fill unevenly below density 1/2, where most bases with a pattern have one bit), so the time ratio runs above
the share. Fitted by bench/probe_pattern_share.py on an H100 (2026-12-05, ten rows, this path against the chunks; the
table in bench/RESULTS_msm.md), with a rule written before it ran: the largest measured share at which both groups run
at 0.85 of the chunks' time or less. At shares 0.21, 0.30, 0.40, 0.51, 0.64: G1 (2^27 bases) 0.37, 0.55, 0.77, 0.97,
1.18; G2 (2^25) 0.26, 0.39, 0.56, 0.71, 0.89. G1 bounds it: at 0.51 it would gain nothing."""
PATTERN_SLICE = 16
"""(segment, pattern) buckets one thread of pattern_row_sums adds (then sum_groups adds a row's slices)."""
PATTERN_POINTS_PER_BUCKET = 256
"""Bases a segment has for each of its 2^rows buckets: the pattern pass cuts the bases into segments of
PATTERN_POINTS_PER_BUCKET 2^rows (gpu/msm.py window_bucket_sums), each with its own buckets, so that no bucket counter
is shared by more digits than msm_h's at 2^27 (2^27 digits a window over 2^19 buckets: 256 each), whose counting sort
runs at 0.045 ns an entry; one set of 2^rows buckets for 2^27 bases would put 2^17 digits on each counter, which
serialise (2^16 each took 69.8 ms at 2^24, bench/RESULTS_msm.md)."""


def pattern_segment_points(rows: int) -> int:
    """Bases a segment of the pattern pass holds (PATTERN_POINTS_PER_BUCKET)."""
    return PATTERN_POINTS_PER_BUCKET << rows


def pattern_segments(n: int, rows: int) -> int:
    """Segments of the pattern pass over n bases (the last one shorter)."""
    return -(-n // pattern_segment_points(rows))


def pattern_pass_runs(rows: int, n: int) -> bool:
    """Whether a pattern pass can run at all: 2..MAX_PATTERN_ROWS rows (one row has nothing to share) over some bases."""
    return 2 <= rows <= MAX_PATTERN_ROWS and n > 0


def pattern_share(selected: list[int], n: int) -> float:
    """The pattern path's expected additions as a share of the rows' own (``selected``: the bits each row adds,
    complement rows counted by their clear bits); infinite where no pattern pass can run (rows outside
    2..MAX_PATTERN_ROWS). Expected, with the rows' bits independent: a base gets a pattern with probability
    1 - prod_k (1 - d_k); each of the segments' 2^rows buckets costs BUCKET_COST additions' time (gpu/msm.py), and the
    row sums add half of them for each row."""
    rows = len(selected)
    if not pattern_pass_runs(rows, n) or sum(selected) == 0:
        return float("inf")
    none_selected = 1.0
    for count in selected:
        none_selected *= 1.0 - count / n
    buckets = pattern_segments(n, rows) << rows
    pattern_additions = n * (1.0 - none_selected) + BUCKET_COST * buckets + rows * buckets // 2
    return pattern_additions / sum(selected)


def row_modes(popcounts: list[int], n: int) -> tuple[list[int], list[int]]:
    """(modes, selected): a row with more than half of its n bits set is added by its clear bits (MODE_COMPLEMENT: T
    less their sum), the others by their set bits (MODE_BITS); ``selected`` is the bits each row adds, what
    patterns_pay counts."""
    modes = [MODE_COMPLEMENT if 2 * count > n else MODE_BITS for count in popcounts]
    return modes, [n - count if mode == MODE_COMPLEMENT else count for count, mode in zip(popcounts, modes)]


def patterns_pay(selected: list[int], n: int) -> bool:
    """Whether the pattern path's expected additions are at most PATTERN_SHARE of the rows' own (pattern_share)."""
    return pattern_share(selected, n) <= PATTERN_SHARE


def pattern_scratch_bytes(n: int, rows: int, group: Group) -> int:
    """Device bytes a pattern pass over n bases and ``rows`` rows allocates at most (gpu/prover.py's memory plan); 0
    where no pattern pass runs (rows outside 2..MAX_PATTERN_ROWS). Whether one runs depends on the bits (patterns_pay):
    a plan counts it whenever it may."""
    if not pattern_pass_runs(rows, n):
        return 0
    return window_bucket_bytes(n, rows + 1, group, pattern_segment_points(rows))


def target_threads(group: Group) -> int:
    """Threads a pass of ``group`` aims at: BATCH_WAVES whole waves (2^17 before: 2.59 waves of G1's)."""
    return BATCH_WAVES * RESIDENT_THREADS[group.degree]


def chunk_plan(words: int, rows: int, group: Group) -> tuple[int, int]:
    """(words a chunk, chunks a row) for a pass over ``rows`` rows of ``words`` words: as many chunks of equal words
    as target_threads allows (a thread a chunk and row), the last chunk shorter."""
    chunk_words = max(1, -(-words * rows // target_threads(group)))
    return chunk_words, -(-words // chunk_words)


class BatchAdder:
    """Batch additions over one set of n bases on the device (G1 or G2)."""

    def __init__(self, bases, group: Group):
        """``bases``: device array (n, group.affine_words) uint32 of affine Montgomery points."""
        self.bases = bases
        self.group = group
        self._total = None  # device (1, xyzz_words): sum of all bases, made the first time needed

    @property
    def n(self) -> int:
        return int(self.bases.shape[0])

    @property
    def words_per_row(self) -> int:
        """32-bit words that hold n bits."""
        return -(-self.n // U32_WORD_BITS)

    def sums(self, bitmaps, popcounts=None):
        """Device array (rows, affine_words): row c = sum of the bases whose bit is set in row c.

        ``bitmaps``: device array (rows, words) uint32 with words >= ceil(n / 32); bits at or past n
        are ignored. ``popcounts``: the set bits (below n) of each row if known, else counted on
        the device."""
        xp = backend().xp
        group, n = self.group, self.n
        if bitmaps.ndim != 2 or bitmaps.dtype != xp.uint32 or bitmaps.shape[1] < self.words_per_row:
            raise SizeMismatchError(
                "bitmaps", f"expected uint32 words of shape (circuits, >= {self.words_per_row}), got "
                f"{bitmaps.dtype} {tuple(bitmaps.shape)}")
        rows = int(bitmaps.shape[0])
        out = xp.zeros((rows, group.affine_words), dtype=xp.uint32)  # zeros = identity
        if rows == 0 or n == 0:
            return out
        bitmaps = xp.ascontiguousarray(bitmaps)
        if popcounts is None:
            popcounts = self.count_bits(bitmaps)
        modes, selected = row_modes(popcounts, n)
        if self._total is None and MODE_COMPLEMENT in modes:
            # T in a pass of its own: as a row of the circuits' pass its chunks would hold 2 to 100
            # times the work of theirs and finish last. Once per base set: then it is kept. Kept only once computed
            # (check: the stream waited for): blocks on one device share the bases, each on a stream of its own
            # (gpu/multi.py), and one that found T queued but not yet written on another stream would read it unwritten.
            total = self._chunk_sums(bitmaps, [MODE_ALL])
            backend().check(f"{group.name.upper()} total of {n} points")
            self._total = total
        if patterns_pay(selected, n):
            sums = self._pattern_sums(bitmaps, modes)
        else:
            sums = self._chunk_sums(bitmaps, modes)
        total = self._total if self._total is not None else sums[0:1]  # read only by COMPLEMENT rows
        mode_array = xp.asarray(np.asarray(modes[:rows], dtype=np.uint32))
        launch(group.module(BATCH_KERNELS), group.kernel("batch_add_finish"), rows, sums, mode_array, total,
               u32(rows), out)
        backend().check(f"{group.name.upper()} batch addition over {n} points")
        return out

    def count_bits(self, bitmaps) -> list[int]:
        """Each row's set bits below n, counted on the device (kernel bitmap_popcount)."""
        xp = backend().xp
        rows = int(bitmaps.shape[0])
        counts = xp.zeros(rows, dtype=xp.uint32)
        launch(self.group.module(BATCH_KERNELS), "bitmap_popcount", rows * self.words_per_row, bitmaps, u32(rows),
               u32(int(bitmaps.shape[1])), u32(self.n), counts)
        return [int(c) for c in xp.asnumpy(counts)]

    def _chunk_sums(self, bitmaps, modes: list[int]):
        """(len(modes), xyzz_words): each row's selected sum, by chunks of words then a tree."""
        xp = backend().xp
        group, rows = self.group, len(modes)
        chunk_words, chunks = chunk_plan(self.words_per_row, rows, group)
        mode_array = xp.asarray(np.asarray(modes, dtype=np.uint32))
        module, layout = group.module(BATCH_KERNELS), (u32(int(bitmaps.shape[1])), mode_array, u32(rows))
        # The chunks with the most selected bits first: a warp's lanes then add about as many points each.
        order = xp.empty(chunks, dtype=xp.uint64)
        launch(module, "batch_chunk_keys", chunks, u32(self.n), bitmaps, *layout, u32(chunk_words), u32(chunks), order)
        order.sort()
        partial = xp.empty((rows * chunks, group.xyzz_words), dtype=xp.uint32)
        launch(module, group.kernel("batch_add_chunks"), rows * chunks, self.bases, u32(self.n), bitmaps, *layout,
               u32(chunk_words), u32(chunks), order, partial)
        return reduce_groups(BATCH_KERNELS, partial, rows, chunks, group)

    def _pattern_sums(self, bitmaps, modes: list[int]):
        """(len(modes), xyzz_words): each row's selected sum by the rows' patterns (module docstring): the pattern
        buckets B_p by one bucket pass, then each row's sum of the buckets whose pattern has its bit."""
        xp = backend().xp
        group, n, rows = self.group, self.n, len(modes)
        module = group.module(BATCH_KERNELS)
        mode_array = xp.asarray(np.asarray(modes, dtype=np.uint32))
        segment_points, segments = pattern_segment_points(rows), pattern_segments(n, rows)

        def make_digits():
            digits = xp.empty(n, dtype=xp.uint32)
            counts = xp.zeros(segments << rows, dtype=xp.uint32)
            launch(module, "batch_patterns", n, bitmaps, u32(int(bitmaps.shape[1])), mode_array, u32(rows), u32(n),
                   u32(segment_points), digits, counts)
            return digits, counts

        # c = rows + 1 bits: 2^rows buckets a segment, pattern p in bucket p - 1
        buckets = window_bucket_sums(self.bases, make_digits, rows + 1, group, segment_points)
        slices = -(-(segments << (rows - 1)) // PATTERN_SLICE)
        partial = xp.empty((rows * slices, group.xyzz_words), dtype=xp.uint32)
        launch(module, group.kernel("pattern_row_sums"), rows * slices, buckets, u32(rows), u32(segments),
               u32(PATTERN_SLICE), u32(slices), partial)
        return reduce_groups(BATCH_KERNELS, partial, rows, slices, group)


def bitmap_words(bitmaps):
    """prep's (circuits, words) uint64 bitmaps as the uint32 words BatchAdder.sums reads, without a copy: both are
    little-endian, so bit i of the query stays bit i (bit i mod 32 of 32-bit word i div 32)."""
    return bitmaps.view(backend().xp.uint32)


def batch_add(splits: dict, queries: DeviceQueries) -> dict:
    """Per query name (l, a, b_g1, b_g2): device array (circuits, affine_words) whose row c is the sum of the
    query's points selected by circuit c's bitmap, as reference/batch_add.py. The single GPU implementation of
    the phase (gpu/prover.py and the conformance adapter call it).

    ``splits``: gpu.prep.prep's output (DeviceSplit per l, a, b: uint64 bitmaps); ``queries``: the key on the
    device (B_G1 and B_G2 share the b split)."""
    return {query: getattr(queries, query).batch_adder().sums(bitmap_words(splits[split].bitmaps))
            for query, split in QUERY_SPLITS}
