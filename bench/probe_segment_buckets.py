"""Probe: the MSM's window reduction with longer segments (gpu/msm.py SEGMENT_BUCKETS), at c = 20 and c = 16.

    python3 bench/probe_segment_buckets.py [--sizes g1:24 g1:26 g2:24 g1:22] [--buckets 32 64 128 256]
                                           [--repeats 5] [--json out.json] [--md out.md]

msm.cu's msm_window_segments sums sum_b (b + 1) B_b of each window in segments of SEGMENT_BUCKETS = 32 buckets, one
thread a segment: 2 additions a bucket, then one xyzz_mul_small by the segment's first bucket index (up to 2^19 at
c = 20: about 19 doublings and, the lanes of a warp diverging on the bits, up to as many additions), about a third of
the thread's work. At c = 20 the kernel took 10.04 ms of G1 2^24's 109.25 (H100, session 34, bench/RESULTS_vs_sppark.md),
at c = 16 it was among "the rest" (3.0 ms in all). Longer segments cut the products a bucket: at 64 buckets
(2^19 / 64) x (128 + ~33) against (2^19 / 32) x (64 + ~33) additions' time a window, -17%; at 128, -25%, with 13 x 4096
threads, about one wave of the chip's resident G1 threads; at c = 16 the threads would be too few (16 windows x 2^15 /
128 = 4096). Prediction (written before the run): G1 2^24 (c = 20) -1.5..-2 ms at 64, -2..-3 ms at 128, 256 no better
than 128; G1 2^26 the same milliseconds (the reduction does not depend on n); G2 2^24 about 2.5x those; G1 2^22
(c = 16) slower from 128 on. A candidate follows only if 64 or 128 gains at least 1.5 ms at G1 2^24 with no row slower.

The probe sets gpu/msm.py's SEGMENT_BUCKETS for each run (the product code reads it at every call) and times the MSM
as bench_msm.py does (CUDA events, one warm-up, median of --repeats), the same bases and scalars for every length.
Check: every length's result equals the first length's, word for word (the additions' order changes, the group
element must not); a mismatch is an error, exit 1.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm, probe_fixed_base, gpu_required

from bench_msm import bases_for, cuda_time_ms, random_scalars  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu import msm  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from gpu.points import G1_GROUP, G2_GROUP, backend  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from probe_fixed_base import write_outputs  # noqa: E402

GROUPS = {"g1": G1_GROUP, "g2": G2_GROUP}


def size_spec(text: str) -> tuple[str, int]:
    """'g1:24' -> ('g1', 24)."""
    group, _, log2 = text.partition(":")
    if group not in GROUPS or not log2.isdigit() or not 10 <= int(log2) <= 27:
        raise argparse.ArgumentTypeError(f"expected g1:N or g2:N with N in 10..27, got {text!r}")
    return group, int(log2)


def probe(group_name: str, log2: int, lengths: list[int], repeats: int) -> list[dict]:
    """One row a segment length: the MSM's median ms; raises SystemExit(1) when a result differs from the first's."""
    group, n = GROUPS[group_name], 1 << log2
    bases = bases_for(group, n, seed=1)
    scalars = random_scalars(1, n, seed=log2)
    engine = msm.MsmEngine(bases, group)
    rows, first = [], None
    default = msm.SEGMENT_BUCKETS
    try:
        for length in lengths:
            msm.SEGMENT_BUCKETS = length
            result = backend().xp.asnumpy(engine.msm(scalars, montgomery=True))
            if first is None:
                first = result
            elif not (result == first).all():
                print(f"error: {group_name} 2^{log2}: the MSM with segments of {length} buckets differs from "
                      f"{lengths[0]}'s", file=sys.stderr)
                raise SystemExit(1)
            median, times = cuda_time_ms(lambda: engine.msm(scalars, montgomery=True), repeats)
            rows.append({"group": group_name, "log2": log2, "window_bits": msm.kernel_window_bits(n),
                         "segment_buckets": length, "median_ms": median, "times_ms": times})
            print(f"[{group_name}] 2^{log2} c={rows[-1]['window_bits']} segments of {length}: {median:.2f} ms", flush=True)
    finally:
        msm.SEGMENT_BUCKETS = default
    return rows


def markdown(rows: list[dict], env: dict) -> str:
    gpu = env.get("gpu") or {}
    lines = [f"### MSM by segment length of the window reduction ({gpu.get('name', '?')}, {code_label(env)}, "
             f"{env.get('date')})", "",
             "| group | points | c | segment buckets | median ms | vs the first length |", "|---|---|---|---|---|---|"]
    base = {}
    for row in rows:
        key = (row["group"], row["log2"])
        base.setdefault(key, row["median_ms"])
        lines.append(f"| {row['group'].upper()} | 2^{row['log2']} | {row['window_bits']} | {row['segment_buckets']} | "
                     f"{row['median_ms']:.2f} | {row['median_ms'] - base[key]:+.2f} ms |")
    return "\n".join(lines)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--sizes", type=size_spec, nargs="+", default=[("g1", 24), ("g1", 26), ("g2", 24), ("g1", 22)],
                        help="group:log2 of each MSM (default: g1:24 g1:26 g2:24 g1:22)")
    parser.add_argument("--buckets", type=int, nargs="+", default=[32, 64, 128, 256],
                        help="segment lengths, powers of two from 2 (default: 32 64 128 256; the first is the baseline)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs after one warm-up (default %(default)s)")
    add_output_arguments(parser)
    args = parser.parse_args()
    if any(length < 2 or length & (length - 1) for length in args.buckets):
        parser.error(f"--buckets: powers of two from 2, got {args.buckets}")
    if args.repeats < 3:
        parser.error("--repeats must be at least 3")
    require_gpu()
    rows = [row for group, log2 in args.sizes for row in probe(group, log2, args.buckets, args.repeats)]
    env = timing_environment(with_gpu=True)
    write_outputs(args, env, markdown(rows, env), rows=rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
