"""Decoding the curve points of keys, vectors and proofs: what vectors/format.py, vectors/snarkjs.py and
vectors/bellman.py call for every point they read.

reference/encoding.py defines the decoding (and every error it raises). Where the fast library is installed
(vectors/fast_library.py) and the reference is not asked for, each encoding gets reference/encoding.py's
canonical-form checks in Python and the library's square root, on-curve and subgroup checks; arrays of at least
POOL_MIN_POINTS points are split into chunks that a process pool decodes, results kept in order. The first
encoding the fast path refuses is decoded again by the reference, which raises its error: both paths refuse with
the same ``field: problem``, at the same (first) element. A refusal the reference does not confirm is an internal
error (the two implementations disagree), never a silent pass. ``reference=True`` (``python -m vectors check
--reference``) decodes every point with reference/encoding.py alone.

Readers hand over the items as they stored them and a ``prepare`` function that turns one item into the ZCash
encoding (hex text, snarkjs's Montgomery form), raising InvalidInputError as the reader would: it runs in the
pool's workers too, so it is a module-level function (picklable).
"""
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Callable

from reference.curve import is_identity
from reference.encoding import g1_from_bytes, g2_from_bytes
from reference.errors import InvalidInputError, PointEncodingError, ToolkitError

from . import fast_library

G1, G2 = "g1", "g2"
CHUNK_POINTS = 4096
"""Points per pool task: about 0.4 s of G1 work, so progress lines and the first refusal come soon."""
POOL_MIN_POINTS = 2 * CHUNK_POINTS
"""Arrays shorter than this are decoded in this process: starting the workers (about 0.15 s) costs more than they
save (bench/RESULTS_import.md: 8192 G1 points 0.53 s in this process, 0.43 s with 2 workers; 4096: 0.26 vs 0.39 s)."""
PROGRESS_MIN_POINTS = 4 * CHUNK_POINTS
"""Arrays at least this long report their progress (about every PROGRESS_STEP of the array)."""
PROGRESS_STEP = 0.1
POOL_START_METHOD = "forkserver"
"""Workers are forked from a clean server process, not from this one, which may hold the library's threads."""


def _silent(message: str) -> None:
    pass


@dataclass
class PointDecoder:
    """Decodes points for one reader: with the fast library where installed unless ``reference``; ``progress``
    gets a line per tenth of each long array; ``workers`` processes decode long arrays (default: every CPU)."""

    reference: bool = False
    progress: Callable[[str], None] = _silent
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)

    @property
    def fast(self) -> bool:
        """True when the fast library decodes (installed, and the reference not asked for)."""
        return not self.reference and fast_library.available()

    def one(self, item, group: str, where: str, compressed: bool = True, prepare=None, identity_problem: str | None = None):
        """One point (see many); errors name ``where`` itself."""
        return self._decode([item], group, lambda i: where, compressed, prepare, identity_problem)[0]

    def many(self, items, group: str, where: str, compressed: bool = True, prepare=None, identity_problem: str | None = None) -> list:
        """py_ecc points of ``items`` (G1 or G2), in order; item i's errors name ``where[i]``.

        ``prepare(item, field)`` -> the ZCash encoding (None: the items are encodings); ``identity_problem``: the
        identity is refused with this problem (bellman's keys and proofs)."""
        return self._decode(items, group, lambda i: f"{where}[{i}]", compressed, prepare, identity_problem, where)

    def _decode(self, items, group, name, compressed, prepare, identity_problem, array: str | None = None) -> list:
        if group not in (G1, G2):
            raise ValueError(f"group must be {G1!r} or {G2!r}")
        task = (group, compressed, prepare, identity_problem)
        report = _Progress(self.progress, array, len(items), group)
        if not self.fast:
            points = []
            for start in range(0, len(items), CHUNK_POINTS):
                points += [_reference_point(item, name(start + k), *task) for k, item in enumerate(items[start : start + CHUNK_POINTS])]
                report(len(points))
            return points
        workers = self.workers if len(items) >= POOL_MIN_POINTS else 1
        try:
            return _decode_fast(items, name, task, workers, report)
        except BrokenProcessPool as exc:  # e.g. a script without `if __name__ == "__main__":` (forkserver re-imports it)
            self.progress(f"{array}: the decoding processes failed ({exc}); decoding in this process")
            return _decode_fast(items, name, task, 1, report)


def _decode_fast(items, name, task: tuple, workers: int, report) -> list:
    """The fast path over chunks (in a pool of ``workers`` processes when > 1); the first refusal confirmed."""
    g2 = task[0] == G2
    starts = range(0, len(items), CHUNK_POINTS)
    chunks = (items[start : start + CHUNK_POINTS] for start in starts)
    points = []
    with _Executor(workers) as executor:
        for start, (decoded, refused) in zip(starts, executor.map(_fast_chunk, chunks, task)):
            points += [fast_library.from_xy_bytes(xy, g2) for xy in decoded]
            if refused is not None:
                _confirm_refusal(items[start + refused], name(start + refused), task)
            report(len(points))
    return points


def _reference_point(item, where: str, group: str, compressed: bool, prepare, identity_problem):
    """The definition: reference/encoding.py decodes (and names every problem); identity refused if asked."""
    data = item if prepare is None else prepare(item, where)
    point = (g1_from_bytes if group == G1 else g2_from_bytes)(data, where, compressed=compressed)
    if identity_problem is not None and is_identity(point):
        raise PointEncodingError(where, identity_problem)
    return point


def _fast_chunk(items, group: str, compressed: bool, prepare, identity_problem) -> tuple[list, int | None]:
    """(the library's x || y of each item up to the first refused one, that item's index or None): a pool task."""
    encodings = []
    refused = None
    for index, item in enumerate(items):
        try:
            encodings.append(item if prepare is None else prepare(item, ""))
        except InvalidInputError:
            refused = index
            break
    decoded, library_refused = fast_library.decode_zcash_many(encodings, group == G2, compressed)
    if library_refused is not None:
        refused = library_refused
    if identity_problem is not None and None in decoded:
        refused = decoded.index(None)
    return decoded[:refused], refused


def _confirm_refusal(item, where: str, task: tuple) -> None:
    """The fast path refused ``item``: the reference raises its error for it; if it does not, the two disagree."""
    _reference_point(item, where, *task)
    raise ToolkitError(
        f"{where}: {fast_library.implementation()} refuses this point but the reference decoder accepts it: the two "
        "implementations disagree; decode with the reference alone (python -m vectors check --reference) and report this"
    )


class _Executor:
    """executor.map over chunks: a process pool of ``workers`` processes, or this process for one worker."""

    def __init__(self, workers: int):
        self.workers = workers
        self.pool = None

    def __enter__(self):
        if self.workers > 1:
            context = multiprocessing.get_context(POOL_START_METHOD)
            context.set_forkserver_preload([__name__])  # the server imports this module (and the library) once
            self.pool = ProcessPoolExecutor(self.workers, mp_context=context)
        return self

    def map(self, function, chunks, task: tuple):
        """function(chunk, *task) for each chunk, in order (lazily in this process, by the pool otherwise)."""
        jobs = ((function, chunk, task) for chunk in chunks)
        return map(_call_with_task, jobs) if self.pool is None else self.pool.map(_call_with_task, jobs)

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        return False


def _call_with_task(job):
    function, chunk, task = job
    return function(chunk, *task)


class _Progress:
    """'<array>: k/N G1 points decoded' about every PROGRESS_STEP of a long array; nothing for short ones."""

    def __init__(self, say, array: str | None, total: int, group: str):
        self.say, self.array, self.total, self.group = say, array, total, group.upper()
        self.enabled = array is not None and total >= PROGRESS_MIN_POINTS
        self.next_report = 0.0

    def __call__(self, done: int) -> None:
        if self.enabled and (done >= self.next_report * self.total or done == self.total):
            self.say(f"{self.array}: {done}/{self.total} {self.group} points decoded")
            self.next_report = done / self.total + PROGRESS_STEP
