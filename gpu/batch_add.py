"""Phase ``batch_add`` on the GPU: per circuit, the plain sum of the query points whose bit is set.

    sum_c = sum_{i : bit i of circuit c's bitmap is set} Q_i      (L, A, B_G1 in G1; B_G2 in G2)

Bit i is bit (i mod 8) of byte (i div 8), the same bits as little-endian 32-bit words. One kernel
pass over the bases serves all circuits (gpu/kernels/batch_add.cu): the bases are read from memory
once, whatever the number of circuits. A circuit with more than half of its bits set is summed over
its clear bits and subtracted from the total of all bases (T - sum_clear), so a 99%-dense bitmap
costs 1% of the additions; T is computed once (the first time a dense bitmap comes) and kept with
the bases.

The result is the same group element as reference/batch_add.py (addition order does not change it).
``batch_add`` is the phase's single GPU implementation; ``BatchAdder`` is the engine it runs per query.
"""
from __future__ import annotations

import numpy as np

from reference.errors import SizeMismatchError

from .msm import QUERY_SPLITS, DeviceQueries, reduce_groups
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
            popcounts = self._count_bits(bitmaps)
        modes = [MODE_COMPLEMENT if 2 * count > n else MODE_BITS for count in popcounts]
        if self._total is None and MODE_COMPLEMENT in modes:
            # T in a pass of its own: as a row of the circuits' pass its chunks would hold 2 to 100
            # times the work of theirs and finish last. Once per base set: then it is kept.
            self._total = self._chunk_sums(bitmaps, [MODE_ALL])
        sums = self._chunk_sums(bitmaps, modes)
        total = self._total if self._total is not None else sums[0:1]  # read only by COMPLEMENT rows
        mode_array = xp.asarray(np.asarray(modes[:rows], dtype=np.uint32))
        launch(group.module(BATCH_KERNELS), group.kernel("batch_add_finish"), rows, sums, mode_array, total,
               u32(rows), out)
        backend().check(f"{group.name.upper()} batch addition over {n} points")
        return out

    def _count_bits(self, bitmaps) -> list[int]:
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
        partial = xp.empty((rows * chunks, group.xyzz_words), dtype=xp.uint32)
        launch(group.module(BATCH_KERNELS), group.kernel("batch_add_chunks"), rows * chunks, self.bases, u32(self.n),
               bitmaps, u32(int(bitmaps.shape[1])), mode_array, u32(rows), u32(chunk_words), u32(chunks), partial)
        return reduce_groups(BATCH_KERNELS, partial, rows, chunks, group)


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
