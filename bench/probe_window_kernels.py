"""Probe: where a point costs more in c = 22's windows than in c = 20's, kernel by kernel (G1, msm_h's size).

    python3 bench/probe_window_kernels.py [--log2 27] [--widths 20 22] [--repeats 3] [--json out.json] [--md out.md]

Session 35 measured on the H200 (bench/RESULTS_msm.md "c = 22"): a window costs 0.417 ns a point + 1.3 ms at c = 20
and 0.472 ns + 3.1 ms at c = 22, so c = 22's 12 windows lost 7.2% against c = 20's 13 at 2^27 - 1 points; why a point
costs 13% more was not measured. The bucket additions are the same count at both widths (one a point and window, and
at 2^27 both cut their buckets' runs into pieces of 64: 2^19 buckets of ~256 points or 2^21 of ~64), so the extra
cost should lie in the steps whose memory grows with the buckets: the counting sort into 4x the buckets (msm_scatter's
atomic counters and cursors, msm_bucket_offsets' scans), the pieces' keys and sort, the bucket and window sums.
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

The probe raises reference/msm.py's and gpu/msm.py's MAX_WINDOW_BITS (20) to the widest width asked, in its own
process only, and times MsmEngine.msm(window_bits=c) with bench/kernel_times.py's launch timer (CUDA events around
every launch; one warm-up, then --repeats calls). Check: every width's result equals the first width's, word for
word; a mismatch is an error, exit 1.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm, kernel_times, probe_fixed_base, gpu_required

from bench_msm import bases_for, random_scalars  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu.ntt import MAX_LOG_N  # noqa: E402  (the largest domain: msm_h has 2^MAX_LOG_N - 1 points)
from gpu_required import require_gpu  # noqa: E402
from kernel_times import OUTSIDE, time_call  # noqa: E402
from output_folders import add_output_arguments  # noqa: E402
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


def probe(log2: int, widths: list[int], repeats: int) -> list[dict]:
    """One breakdown a width (kernel_times' document with the width, windows and points); SystemExit(1) when a width's
    result differs from the first's."""
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
            result = backend().xp.asnumpy(engine.msm(scalars, montgomery=True, window_bits=c))
            if first is None:
                first = result
            elif not (result == first).all():
                print(f"error: G1 2^{log2} - 1: the MSM at c = {c} differs from c = {widths[0]}'s", file=sys.stderr)
                raise SystemExit(1)
            doc = time_call(lambda: engine.msm(scalars, montgomery=True, window_bits=c), repeats, nvtx=False)
            docs.append({**doc, "window_bits": c, "windows": num_windows(c), "points": n})
            print(f"[c={c}] {doc['call_ms']:.2f} ms a call", flush=True)
    finally:
        restore()
    return docs


def per_point_window_ns(ms: float, doc: dict) -> float:
    """A kernel's time a call as nanoseconds a point and window."""
    return ms * 1e6 / (doc["points"] * doc["windows"])


def markdown(docs: list[dict], env: dict) -> str:
    gpu = env.get("gpu") or {}
    head = " | ".join(f"c = {d['window_bits']} ms (ns a point-window)" for d in docs)
    lines = [f"### G1 MSM of 2^{docs[0]['points'].bit_length()} - 1 points by kernel and window width "
             f"({gpu.get('name', '?')}, {code_label(env)}, {env.get('date')})", "",
             "Calls: " + ", ".join(f"c = {d['window_bits']} ({d['windows']} windows) {d['call_ms']:.2f} ms"
                                   for d in docs), "",
             f"| kernel | {head} |", "|---|" + "---|" * len(docs)]
    by_width = [{row["kernel"]: row["ms"] for row in d["rows"]} for d in docs]
    kernels = sorted({k for table in by_width for k in table}, key=lambda k: (k == OUTSIDE, -by_width[0].get(k, 0.0)))
    for kernel in kernels:
        cells = " | ".join(f"{table[kernel]:.2f} ({per_point_window_ns(table[kernel], d):.4f})" if kernel in table else "-"
                           for table, d in zip(by_width, docs))
        lines.append(f"| {kernel} | {cells} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--log2", type=int, default=27, help=f"G1 MSM of 2^log2 - 1 points, 16..{MAX_LOG_N} (default 27)")
    parser.add_argument("--widths", type=int, nargs="+", default=[20, 22],
                        help=f"window widths, 16..{WIDEST} (default: 20 22; the first is the baseline)")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls a width after one warm-up (default 3)")
    add_output_arguments(parser, json_help="also write the breakdowns (JSON) here")
    args = parser.parse_args()
    if not 16 <= args.log2 <= MAX_LOG_N:
        parser.error(f"--log2: must be in 16..{MAX_LOG_N}, got {args.log2}")
    if any(not 16 <= c <= WIDEST for c in args.widths) or len(set(args.widths)) != len(args.widths):
        parser.error(f"--widths: distinct widths in 16..{WIDEST}, got {args.widths}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    require_gpu()
    docs = probe(args.log2, args.widths, args.repeats)
    env = timing_environment(with_gpu=True)
    write_outputs(args, env, markdown(docs, env), breakdowns=docs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
