"""Probe: msm_h's G1 MSM kernel by kernel, by window width and pieces' length (c = 22 against 20, pieces of 64 or more).

    python3 bench/probe_window_kernels.py [--log2 27] [--widths 20 22] [--piece-points 64 256] [--repeats 3]
        [--json out.json] [--md out.md]

Why c = 22 (written in session 36). Session 35 measured on the H200 (bench/RESULTS_msm.md "c = 22"): a window costs
0.417 ns a point + 1.3 ms at c = 20 and 0.472 ns + 3.1 ms at c = 22, so c = 22's 12 windows lost 7.2% against c = 20's
13 at 2^27 - 1 points; why a point costs 13% more was not measured. The bucket additions are the same count at both
widths (one a point and window, and at 2^27 both cut their buckets' runs into pieces of 64: 2^19 buckets of ~256
points or 2^21 of ~64), so the extra cost should lie in the steps whose memory grows with the buckets: the counting
sort into 4x the buckets (msm_scatter's atomic counters and cursors, msm_bucket_offsets' scans), the pieces' keys and
sort, the bucket and window sums.
The suspects by footprint against the 50 MB L2: msm_digits' atomic counters, every window's at once (c = 20: 13 x
2^19 x 4 B = 27 MB; c = 22: 12 x 2^21 x 4 B = 101 MB), and msm_scatter's partly written sectors of the sorted
entries, about one a bucket of the window being scattered (2^19 x 32 B = 16 MB against 64 MB; L2 tags whole 128-byte
lines, so 64 MiB at c = 20: gpu/msm.py SCATTER_FRONT_BYTES, bench/RESULTS_msm.md session 39).
If c = 22's piece sums cost what c = 20's do a point, a point-window at c = 22 costing c = 20's would make 12 windows
7.7% cheaper than 13 (msm_h -57 ms at 2^27): the lever this probe looks for.

Prediction (written before the run): of the +0.055 ns a point-window, at least 60% in the steps other than
msm_piece_sum (the scatter and the offsets' scans most), and msm_piece_sum within +-3% a point-window between the
widths. A follow-up (a scatter for wide windows) is worth writing only if the other steps hold at least 0.03 ns of
the difference.

Measured in session 38 (H100, bench/RESULTS_msm.md): the prediction held; with 0017's scatter, session 40: c = 22
15.0% slower, closed.

The pieces' length (--piece-points, written in session 40). msm.cu cut a bucket's run into pieces of
max(MSM_PIECE_MIN_POINTS = 64, ceil(sqrt(run))) points, one thread a piece, and msm_bucket_sum adds a bucket's pieces.
At 2^27 - 1 points and c = 20 a bucket holds about 256 points, so 4 or 5 pieces: msm_bucket_sum then makes about 20 M
full XYZZ additions over 27 M piece sums of 192 bytes (18.2 ms of the 733.9 ms call on the H100, session 40), while
longer pieces would move those additions into msm_piece_sum as cheaper mixed ones (one a piece fewer: its first point
is a copy). Prediction (written before the run), G1 at 2^27 - 1, c = 20, against 64: 256 points: msm_bucket_sum
18.2 -> at most 6 ms, msm_piece_sum +3..+9 ms, the call -5..-12 ms; 128: half of that; 512: within 2 ms of 256. A
follow-up (the length a plan's choice, kept at 64 where the pieces would not fill the GPU, as in the tails) is worth
writing only if the best length gains at least 1% of the call.

Measured in session 41 (H100, 2026-12-06, bench/RESULTS_msm.md "Session 41"): the prediction held (256: the call
733.78 -> 724.63 ms, -1.25%; msm_bucket_sum 18.21 -> 5.67, msm_piece_sum +5.54; 128: -5.56 ms; 512: 0.73 ms below
256), so the least length became the plan's choice (gpu/msm.py LONG_PIECE_MIN_POINTS, LONG_PIECES_MIN_BUCKETS).

The probe raises reference/msm.py's and gpu/msm.py's MAX_WINDOW_BITS (20) to the widest width asked, in its own
process only, and times MsmEngine.msm(window_bits=c) with bench/kernel_times.py's launch timer (CUDA events around
every launch; one warm-up, then --repeats calls). A piece length given sets every pass's (gpu/msm.py
_Plan.piece_min_points), in this process only; by default each width runs with the plan's own.
Variants: every width with every piece length, the first the baseline. Check: every variant's result equals the
first's, word for word; a mismatch is an error, exit 1.
"""
from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm, kernel_times, probe_fixed_base, gpu_required

from bench_msm import bases_for, random_scalars  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu.ntt import MAX_LOG_N  # noqa: E402  (the largest domain: msm_h has 2^MAX_LOG_N - 1 points)
from gpu_required import require_gpu  # noqa: E402
from kernel_times import OUTSIDE, time_call  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from probe_fixed_base import write_outputs  # noqa: E402
from reference.msm import num_windows  # noqa: E402

WIDEST = 24
"""The widest window the probe asks for: 2^23 buckets a window, 32 MiB of counters, still below msm.cu's digit
limits (a digit's magnitude is at most 2^(c - 1), its sign in bit 31 above the point index)."""


def raised_window_limit(widest: int):
    """Set both modules' MAX_WINDOW_BITS to ``widest`` (they check forced widths against it at every call); returns
    the function that puts them back."""
    import reference.msm as reference_msm
    from gpu import msm

    saved = reference_msm.MAX_WINDOW_BITS, msm.MAX_WINDOW_BITS
    reference_msm.MAX_WINDOW_BITS = msm.MAX_WINDOW_BITS = max(widest, saved[1])

    def restore():
        reference_msm.MAX_WINDOW_BITS, msm.MAX_WINDOW_BITS = saved

    return restore


PIECE_POINTS_RANGE = (16, 4096)
"""The piece lengths the probe accepts: from a quarter of gpu/msm.py's PIECE_MIN_POINTS to runs longer than any
bucket's at c = 20."""


@contextlib.contextmanager
def piece_points(points: int):
    """Within: every pass cuts its buckets' runs into pieces of at least ``points`` points (gpu/msm.py
    _Plan.piece_min_points, which msm.cu's piece kernels take as an argument, set to it); put back after."""
    from gpu import msm

    saved = msm._Plan.__dict__["piece_min_points"]
    msm._Plan.piece_min_points = property(lambda plan: points)
    try:
        yield
    finally:
        msm._Plan.piece_min_points = saved


def label(doc: dict) -> str:
    """A variant's name in the table and the log: its width, and its pieces' length where the run varies it."""
    return f"c = {doc['window_bits']}" + (f", pieces >= {doc['piece_points']}" if doc.get("varies_pieces") else "")


def probe(log2: int, widths: list[int], repeats: int, piece_lengths: list[int] | None = None) -> list[dict]:
    """One breakdown a variant, every width with every piece length (default: the plan's own), in that order:
    kernel_times' document with the width, windows, piece length and points; SystemExit(1) when a variant's result
    differs from the first's."""
    from gpu import msm
    from gpu.points import G1_GROUP, backend

    n = (1 << log2) - 1  # msm_h's size: the H query has n - 1 points
    bases = bases_for(G1_GROUP, n, seed=1)
    scalars = random_scalars(1, n, seed=log2)[0]
    engine = msm.MsmEngine(bases, G1_GROUP)
    restore = raised_window_limit(max(widths))
    docs, first = [], None
    try:
        for c in widths:
            for points in piece_lengths or [msm._Plan((n,), c).piece_min_points]:
                variant = {"window_bits": c, "windows": num_windows(c), "piece_points": points, "points": n,
                           "varies_pieces": len(piece_lengths or ()) > 1}
                with piece_points(points):
                    result = backend().xp.asnumpy(engine.msm(scalars, montgomery=True, window_bits=c))
                    if first is None:
                        first = variant, result
                    elif not (result == first[1]).all():
                        print(f"error: G1 2^{log2} - 1: the MSM at {label(variant)} differs from {label(first[0])}'s",
                              file=sys.stderr)
                        raise SystemExit(1)
                    doc = time_call(lambda: engine.msm(scalars, montgomery=True, window_bits=c), repeats, nvtx=False)
                docs.append({**doc, **variant})
                print(f"[{label(variant)}] {doc['call_ms']:.2f} ms a call", flush=True)
    finally:
        restore()
    return docs


def per_point_window_ns(ms: float, doc: dict) -> float:
    """A kernel's time a call as nanoseconds a point and window."""
    return ms * 1e6 / (doc["points"] * doc["windows"])


def markdown(docs: list[dict], env: dict) -> str:
    gpu = env.get("gpu") or {}
    head = " | ".join(f"{label(d)} ms (ns a point-window)" for d in docs)
    axes = "kernel, window width and pieces' least length" if any(d.get("varies_pieces") for d in docs) else \
        "kernel and window width"
    lines = [f"### G1 MSM of 2^{docs[0]['points'].bit_length()} - 1 points by {axes} "
             f"({gpu.get('name', '?')}, {code_label(env)}, {env.get('date')})", "",
             "Calls: " + ", ".join(f"{label(d)} ({d['windows']} windows) {d['call_ms']:.2f} ms" for d in docs), "",
             f"| kernel | {head} |", "|---|" + "---|" * len(docs)]
    by_width = [{row["kernel"]: row["ms"] for row in d["rows"]} for d in docs]
    kernels = sorted({k for table in by_width for k in table}, key=lambda k: (k == OUTSIDE, -by_width[0].get(k, 0.0)))
    for kernel in kernels:
        cells = " | ".join(f"{table[kernel]:.2f} ({per_point_window_ns(table[kernel], d):.4f})" if kernel in table else "-"
                           for table, d in zip(by_width, docs))
        lines.append(f"| {kernel} | {cells} |")
    return "\n".join(lines)


def main() -> int:
    low, high = PIECE_POINTS_RANGE
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--log2", type=int, default=27, help=f"G1 MSM of 2^log2 - 1 points, 16..{MAX_LOG_N} (default 27)")
    parser.add_argument("--widths", type=int, nargs="+", default=[20, 22],
                        help=f"window widths, 16..{WIDEST} (default: 20 22; the first is the baseline)")
    parser.add_argument("--piece-points", type=int, nargs="+",
                        help=f"pieces' least lengths, {low}..{high} (default: the plan's; the first is the baseline)")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls a variant after one warm-up (default 3)")
    add_output_arguments(parser, json_help="also write the breakdowns (JSON) here")
    args = parser.parse_args()
    if not 16 <= args.log2 <= MAX_LOG_N:
        parser.error(f"--log2: must be in 16..{MAX_LOG_N}, got {args.log2}")
    if any(not 16 <= c <= WIDEST for c in args.widths) or len(set(args.widths)) != len(args.widths):
        parser.error(f"--widths: distinct widths in 16..{WIDEST}, got {args.widths}")
    lengths = args.piece_points or []
    if any(not low <= p <= high for p in lengths) or len(set(lengths)) != len(lengths):
        parser.error(f"--piece-points: distinct lengths in {low}..{high}, got {lengths}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    require_gpu()
    docs = probe(args.log2, args.widths, args.repeats, lengths or None)
    env = timing_environment(with_gpu=True)
    write_outputs(args, env, markdown(docs, env), breakdowns=docs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
