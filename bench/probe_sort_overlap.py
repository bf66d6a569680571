"""Probe: msm_h's counting sort beside its piece sums, on two streams: does the sort hide behind the bucket additions?

    python3 bench/probe_sort_overlap.py [--log2 27] [--repeats 5] [--json out.json] [--md out.md]

Why (written in session 41). At 2^27 - 1 points (G1, c = 20, H100, session 41's pieces probe) the MSM is
msm_piece_sum 615 ms, bound by the multiply-add pipe (91% busy, Nsight Compute), and its counting sort, msm_digits 32
and msm_scatter 56 ms, bound by L2's atomics and scattered stores. They run one after the other. If the sort's kernels
could run on SMs beside the piece sums, a pass cut into window chunks could sort chunk k + 1 while chunk k's pieces
are summed, and hide most of 88 ms (12% of the call). They can share an SM only if the piece sums leave room:
msm_piece_sum_g1 keeps 4 blocks of 128 threads an SM at 128 registers, the whole register file, so here it is also
launched with dynamic shared memory that leaves room for 3 blocks only (a bound of 3 blocks, at 142 registers, was
2.2% slower: RESULTS_msm.md, "s, r and r2 in one call"; at 128 registers this probe measured 3 resident blocks as fast
as 4, session 41), a quarter of the registers left to the sort's blocks.

Method. One G1 MSM of 2^log2 - 1 random points and scalars through gpu/msm.py (the plan's own width) with every
launch captured; then, on its own arguments, timed with CUDA events (one warm-up, the median of --repeats):
  piece4         msm_piece_sum as the prover launches it
  piece3         the same launch with the least dynamic shared memory that leaves 3 blocks an SM
                 (cuOccupancyMaxActiveBlocksPerMultiprocessor)
  sort           msm_digits and the msm_scatter slices again, into scratch copies of their outputs (counters zeroed
                 inside the timing, as the prover's)
  piece4 & sort, piece3 & sort   the piece sums launched first on one stream, the sort on a second stream right
                 after, both of the same priority; timed until both end.
  piece3 & sort, pieces (or sort) first in priority   the same, the piece sums' (or the sort's) stream of the
                 greatest priority: its pending blocks go first wherever an SM has room.
Checks, after the timings (a failure is an error, exit 1): the piece sums equal the MSM's own, word for word; the
scratch sort equals the MSM's up to the order of equal-bucket entries, which the atomic ranks leave free: the digit
words equal with their rank fields masked, the bucket counts equal, and the sorted entries' sums equal.

Prediction (written before the run), at 2^27 - 1 on an H100: piece3 = piece4 x 1.01-1.03; piece4 & sort within 2% of
piece4 + sort (no room beside 4 blocks); piece3 & sort between piece3 + 0.25 sort and piece3 + 0.6 sort, so 25-60 ms
below piece4 + sort. A follow-up (the pass in window chunks, each chunk's sort on a second stream beside the previous
chunk's piece sums) is worth writing only if piece3 & sort is at least 25 ms below piece4 + sort.

First run (H100, 2026-12-06 07:01, before the priority variants were added): piece4 615.30, piece3 615.35 ms (the
limit cost nothing), sort 88.77, piece4 & sort 703.80, piece3 & sort 703.86 (the sum, -0.2 ms): no overlap at all,
room or not. The likeliest reason: the SMs take a grid's blocks in launch order, so the sort's blocks wait until the
last of the piece sums' is placed. The priority variants ask whether a stream priority lets them in. Prediction for
them: pieces first in priority as piece3 & sort predicted above; sort first: within 10 ms of piece4 + sort (the sort's
blocks then take the whole GPU first).

Second run (H100, 2026-12-06 07:05, bench/RESULTS_msm.md "Session 41"): piece4 615.07, piece3 615.11, sort 88.61;
piece4 & sort 703.57, piece3 & sort 703.62, pieces first in priority 703.63 (the sum, every one), sort first in
priority 719.55 (+15.9 ms). No arrangement put any of the sort beside the piece sums: the follow-up's rule (25 ms)
failed, and the lever is closed by measurement. What kept the sort's blocks out (launch order, or no gain once beside)
was not observed: no timeline was taken.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm, gpu_required, output_folders, probe_*

import gpu.msm  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu.ntt import MAX_LOG_N  # noqa: E402
from gpu.points import G1_GROUP, THREADS_PER_BLOCK, backend  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from probe_affine_pieces import MsmLaunch, captured_msm_launches  # noqa: E402
from probe_fixed_base import write_outputs  # noqa: E402

SIGN_BIT = 1 << 31
"""ec_kernels.cuh MSM_SIGN_BIT: a digit word's sign, above its rank field."""
SHARED_MEMORY_STEP = 1024
"""Dynamic shared memory is searched in steps of this many bytes (the SM allocates it in such units)."""
LEAST_PRIORITY, GREATEST_PRIORITY = 0, -1000
"""Stream priorities: CUDA's default (the least) and a number past the greatest, which CUDA clamps to the greatest
(cudaStreamCreateWithPriority; a lower number is a greater priority; CuPy has no call for the range)."""
LIMITED_BLOCKS = 3
"""The piece sums' blocks an SM in the limited variant: one fewer than msm.cu's MSM_PIECE_SUM_G1_BLOCKS_PER_SM."""


@dataclass
class CapturedPass:
    """The launches of one MSM pass that the probe re-runs, with the arrays they point into kept alive."""

    digits: MsmLaunch
    scatters: list[MsmLaunch]
    piece_sum: MsmLaunch
    owners: tuple = field(default=())

    @property
    def window_bits(self) -> int:
        return int(self.digits.args[4])


def captured_pass(run) -> CapturedPass:
    """run() (one MSM through gpu/msm.py, one pass) with its msm_digits, msm_scatter and msm_piece_sum launches
    captured. ValueError unless there is one pass: one msm_digits and one msm_piece_sum launch."""
    names = ("msm_digits", "msm_scatter", G1_GROUP.kernel("msm_piece_sum"))
    with captured_msm_launches(set(names)) as launches:
        run()
    digits, scatters, pieces = ([item for item in launches if item.kernel == name] for name in names)
    if len(digits) != 1 or len(pieces) != 1 or not scatters:
        raise ValueError(f"expected one pass: msm_digits x{len(digits)}, msm_scatter x{len(scatters)}, "
                         f"msm_piece_sum x{len(pieces)}")
    return CapturedPass(digits[0], scatters, pieces[0])


@dataclass
class SortScratch:
    """The sort's outputs written again: the digit words and their counters (msm_digits), the scatter's overflow
    counters and its sorted entries (msm_scatter). The counters start unset: reset_sort zeroes them."""

    digits: object
    counts: object
    overflowed: object
    sorted_entries: object

    @classmethod
    def like(cls, captured: CapturedPass) -> "SortScratch":
        xp = backend().xp
        *_, digits, counts = captured.digits.args
        *_, overflowed, sorted_entries = captured.scatters[0].args
        return cls(*(xp.empty_like(array) for array in (digits, counts, overflowed, sorted_entries)))


def sort_launches(captured: CapturedPass, scratch: SortScratch) -> list[MsmLaunch]:
    """msm_digits and the msm_scatter slices with their outputs (and the scatter's digit input) in ``scratch``:
    the same work as the pass's sort, its results elsewhere. The counters must be zero before (reset_sort)."""
    digits = captured.digits
    outputs = (scratch.digits, scratch.counts)
    launches = [MsmLaunch(digits.module, digits.kernel, digits.threads, (*digits.args[:-2], *outputs))]
    for scatter in captured.scatters:
        if scatter.args[0] is not digits.args[-2]:
            raise ValueError("msm_scatter does not read msm_digits' digit words")
        args = (scratch.digits, *scatter.args[1:-2], scratch.overflowed, scratch.sorted_entries)
        launches.append(MsmLaunch(scatter.module, scatter.kernel, scatter.threads, args))
    return launches


def reset_sort(scratch: SortScratch) -> None:
    """Zero the sort's counters, as gpu/msm.py allocates them (xp.zeros) before every pass."""
    scratch.counts.fill(0)
    scratch.overflowed.fill(0)


def sort_mismatch(captured: CapturedPass, scratch: SortScratch) -> str | None:
    """None if the scratch sort equals the pass's up to the order of a bucket's entries (which the atomic ranks leave
    free), else what differs: the digit words with their rank fields masked, the bucket counts, the entries' sum."""
    xp = backend().xp
    *_, digits, counts = captured.digits.args
    sorted_entries = captured.scatters[0].args[-1]
    keep = SIGN_BIT | ((1 << captured.window_bits) - 1)
    if not bool((digits & keep == scratch.digits & keep).all()):
        return "digit words (rank fields masked)"
    if not bool((counts == scratch.counts).all()):
        return "bucket counts"
    if int(sorted_entries.sum(dtype=xp.uint64)) != int(scratch.sorted_entries.sum(dtype=xp.uint64)):
        return "sorted entries' sum"
    return None


def run_launches(launches: list[MsmLaunch], shared_mem: int = 0) -> None:
    """The launches on the current stream, straight through CuPy (no per-launch check, as in a timed region); each with
    ``shared_mem`` bytes of dynamic shared memory."""
    for item in launches:
        function = backend().load(*item.module).get_function(item.kernel)
        blocks = -(-item.threads // THREADS_PER_BLOCK)
        function((blocks,), (THREADS_PER_BLOCK,), item.args, shared_mem=shared_mem)


def limiting_shared_memory(launch: MsmLaunch, blocks: int) -> tuple[int, int]:
    """(the least dynamic shared memory, in SHARED_MEMORY_STEP steps, at which ``launch``'s kernel keeps at most
    ``blocks`` blocks an SM; the blocks an SM it keeps without any)."""
    from cupy.cuda import driver

    function = backend().load(*launch.module).get_function(launch.kernel)

    def resident(shared: int) -> int:  # (function.kernel: the RawKernel's loaded CUfunction)
        return driver.occupancyMaxActiveBlocksPerMultiprocessor(function.kernel.ptr, THREADS_PER_BLOCK, shared)

    own, shared = resident(0), 0
    while resident(shared) > blocks:
        shared += SHARED_MEMORY_STEP
    # A launch may ask for more than the default 48 KiB of dynamic shared memory only once its function allows it.
    function.max_dynamic_shared_size_bytes = shared
    return shared, own


def probe(log2: int, repeats: int) -> dict:
    """The document: the pass's width and sizes, the limited launch's shared memory and residency, and each
    variant's median and runs; SystemExit(1) on a failed check."""
    import cupy

    from bench_msm import bases_for, cuda_time_ms, random_scalars

    n = (1 << log2) - 1
    bases = bases_for(G1_GROUP, n, seed=1)
    scalars = random_scalars(1, n, seed=log2)[0]
    engine = gpu.msm.MsmEngine(bases, G1_GROUP)
    captured = captured_pass(lambda: engine.msm(scalars, montgomery=True))
    captured.owners = (bases, scalars, engine)
    piece_sums = captured.piece_sum.args[-1]
    expected = piece_sums.copy()
    scratch = SortScratch.like(captured)
    sort = sort_launches(captured, scratch)
    shared, own_blocks = limiting_shared_memory(captured.piece_sum, LIMITED_BLOCKS)
    print(f"msm_piece_sum: {own_blocks} blocks an SM as launched, {LIMITED_BLOCKS} with {shared} bytes of dynamic "
          "shared memory", flush=True)
    low, high = LEAST_PRIORITY, GREATEST_PRIORITY
    streams = {(role, priority): cupy.cuda.Stream(non_blocking=True, priority=priority)
               for role in ("pieces", "sort") for priority in (low, high)}  # two streams in every variant

    def pieces(shared_mem: int):
        return lambda: run_launches([captured.piece_sum], shared_mem)

    def sorting():
        reset_sort(scratch)
        run_launches(sort)

    def beside(shared_mem: int, piece_priority: int, sort_priority: int):
        def run():  # the piece sums launched first, the sort right after, each on its own stream
            main = cupy.cuda.get_current_stream()
            before = main.record()
            used = (streams["pieces", piece_priority], streams["sort", sort_priority])
            for stream, work in zip(used, (pieces(shared_mem), sorting)):
                stream.wait_event(before)
                with stream:
                    work()
            for stream in used:
                main.wait_event(stream.record())
        return run

    limited = f"piece{LIMITED_BLOCKS}"
    variants = {"piece4": pieces(0), limited: pieces(shared), "sort": sorting,
                "piece4 & sort": beside(0, low, low), f"{limited} & sort": beside(shared, low, low),
                f"{limited} & sort, pieces first in priority": beside(shared, high, low),
                f"{limited} & sort, sort first in priority": beside(shared, low, high)}
    rows = []
    for name, run in variants.items():
        median, runs = cuda_time_ms(run, repeats)
        rows.append({"variant": name, "ms": median, "runs": runs})
        print(f"[{name}] {median:.2f} ms", flush=True)
    cupy.cuda.Device().synchronize()
    problem = None if bool((piece_sums == expected).all()) else "piece sums"
    problem = problem or sort_mismatch(captured, scratch)
    if problem:
        print(f"error: G1 2^{log2} - 1: the re-run's {problem} differ from the MSM's", file=sys.stderr)
        raise SystemExit(1)
    return {"points": n, "window_bits": captured.window_bits, "scatter_launches": len(captured.scatters),
            "piece_threads": captured.piece_sum.threads, "own_blocks_per_sm": own_blocks,
            "limited_blocks_per_sm": LIMITED_BLOCKS, "limiting_shared_bytes": shared, "rows": rows,
            "stream_priorities": sorted({stream.priority for stream in streams.values()})}


def markdown(doc: dict, env: dict) -> str:
    gpu = env.get("gpu") or {}
    ms = {row["variant"]: row["ms"] for row in doc["rows"]}
    sequential = ms["piece4"] + ms["sort"]
    lines = [f"### msm_h's sort beside its piece sums: G1 MSM of 2^{doc['points'].bit_length()} - 1 points, "
             f"c = {doc['window_bits']} ({gpu.get('name', '?')}, {code_label(env)}, {env.get('date')})", "",
             f"msm_piece_sum_g1: {doc['piece_threads']} threads, {doc['own_blocks_per_sm']} blocks an SM as launched, "
             f"{doc['limited_blocks_per_sm']} with {doc['limiting_shared_bytes']} bytes of dynamic shared memory; "
             f"the sort: msm_digits and {doc['scatter_launches']} msm_scatter launches. piece4 + sort = "
             f"{sequential:.2f} ms.", "",
             "| variant | ms (median) | against piece4 + sort |", "|---|---|---|"]
    for row in doc["rows"]:
        lines.append(f"| {row['variant']} | {row['ms']:.2f} | {row['ms'] - sequential:+.2f} |")
    return "\n".join(lines)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--log2", type=int, default=MAX_LOG_N,
                        help=f"G1 MSM of 2^log2 - 1 points, 16..{MAX_LOG_N} (default {MAX_LOG_N})")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs a variant after one warm-up (default 5)")
    add_output_arguments(parser, json_help="also write the document (JSON) here")
    args = parser.parse_args()
    if not 16 <= args.log2 <= MAX_LOG_N:
        parser.error(f"--log2: must be in 16..{MAX_LOG_N}, got {args.log2}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    require_gpu()
    doc = probe(args.log2, args.repeats)
    env = timing_environment(with_gpu=True)
    write_outputs(args, env, markdown(doc, env), probe=doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
