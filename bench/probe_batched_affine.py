"""Probe: a bucket addition as a batched affine addition (Montgomery's trick) against today's mixed XYZZ addition.

    python3 bench/probe_batched_affine.py [--group g1|g2] [--log2-points 20] [--ks 16 32 64 128 256 512] [--steps 16]
                                          [--inversions fermat gcd] [--chain 16] [--waves 2] [--repeats 5]
                                          [--json out.json] [--md out.md]

Issue 18 names batched affine additions ("about 6 field multiplications an addition instead of about 10") as a way to
the G1 MSM goals. Before msm_piece_sum is rewritten around them, this measures what one costs on the device: the
kernels of bench/probes/batched_affine.cu sum the same pseudo-random gathers of 2^log2-points distinct bases (larger
than the L2 cache at 2^20, as a bucket's gathers are) into k accumulators a thread, once with mixed XYZZ additions
(what msm_piece_sum does) and once k at a time sharing one inversion. The threads fill the chip (--waves x the
resident blocks at msm_piece_sum's residency: 3 a SM for G1, 2 for G2). --group g2 measures G2 (Fq2 coordinates). Method (/work/.library/device/METHOD.md): one warm-up
call, then the median of --repeats calls timed with CUDA events. Every k's two results are compared (the XYZZ sums
converted to affine must equal the affine sums, limb for limb): a mismatch is an error, exit 1. The time an addition
of the affine kernel is about a + b / k: a is the addition and the trick, b the inversion; the table gives the fit.

--inversions names the inversion the trick shares: Fermat's (fermat: ec_field.cuh fq_inv, x^(p-2)) and the optimized
binary GCD (gcd: bench/probes/fq_inverse_gcd.cuh); each is a column and a fit of its own. The inversions are also
timed alone (G1: a dependent chain of --chain inversions a thread over the same threads), and their results must be
equal, limb for limb.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm: the CUDA-event timer; probe_build

from py_ecc.optimized_bls12_381 import G1, G2, curve_order, multiply  # noqa: E402

from bench_msm import cuda_time_ms  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu.device import launch  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from gpu.msm import progression_bases  # noqa: E402
from gpu.points import G1_GROUP, G2_GROUP, backend, u32  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from probe_build import PROBE_DIR, UNWRITTEN, probe_module, write_records  # noqa: E402

PROBE_SOURCE = PROBE_DIR / "batched_affine.cu"
INVERSIONS = ("fermat", "gcd")
AFFINE_KERNELS = {"fermat": "probe_affine", "gcd": "probe_affine_gcd"}
"""The affine kernel of each inversion (batched_affine.cu), _g1 / _g2 added by the group."""
THREADS_PER_BLOCK = 128  # batched_affine.cu PROBE_THREADS_PER_BLOCK
GROUPS = {"g1": (G1_GROUP, G1, 3), "g2": (G2_GROUP, G2, 2)}
"""Group, generator, blocks of 128 an SM holds (batched_affine.cu PROBE_G1_BLOCKS_PER_SM; G2 at 255 registers: 2)."""
NS_PER_MS = 1e6


def probe(bases, group, threads: int, k: int, steps: int, repeats: int, module, inversions) -> dict:
    """The XYZZ kernel and the affine kernel of each inversion at k accumulators a thread; every affine result compared
    with the XYZZ sums; times in ms and ns an addition."""
    import cupy

    xp = backend().xp
    words = group.field_words
    points = bases.shape[0]
    blocks = -(-threads // THREADS_PER_BLOCK)
    xyzz = xp.empty((k * threads, group.xyzz_words), dtype=xp.uint32)
    acc = xp.empty((k * threads, group.affine_words), dtype=xp.uint32)
    prefix = xp.empty((k * threads, words), dtype=xp.uint32)
    common = (bases, u32(points), u32(threads), u32(k), u32(steps))
    additions = threads * k * (steps - 1)
    xyzz_ms, xyzz_runs = cuda_time_ms(
        lambda: launch(module.get_function(group.kernel("probe_xyzz")), blocks, THREADS_PER_BLOCK, (*common, xyzz),
                       "probe_xyzz"), repeats)
    converted = xp.empty_like(acc)
    launch(module.get_function(group.kernel("probe_to_affine")), -(-k * threads // THREADS_PER_BLOCK),
           THREADS_PER_BLOCK, (xyzz, u32(k * threads), converted), "probe_to_affine")
    row = {"k": k, "threads": threads, "steps": steps, "additions": additions, "xyzz_ms": xyzz_ms,
           "xyzz_runs_ms": xyzz_runs, "xyzz_ns_per_addition": xyzz_ms * NS_PER_MS / additions}
    for inversion in inversions:
        kernel = group.kernel(AFFINE_KERNELS[inversion])
        acc.fill(UNWRITTEN)  # a kernel that writes nothing cannot pass on the previous inversion's sums
        affine_ms, affine_runs = cuda_time_ms(
            lambda: launch(module.get_function(kernel), blocks, THREADS_PER_BLOCK, (*common, acc, prefix), kernel),
            repeats)
        cupy.cuda.Device().synchronize()
        row[inversion] = {"mismatches": int((converted != acc).any(axis=1).sum()), "affine_ms": affine_ms,
                          "affine_runs_ms": affine_runs, "affine_ns_per_addition": affine_ms * NS_PER_MS / additions}
    return row


def inversion_rates(bases, threads: int, chain: int, repeats: int, module) -> dict:
    """ns of the chip an Fq inversion, Fermat's and the binary GCD's, each as `chain` dependent inversions a thread;
    the two chains' results must be equal, limb for limb."""
    xp = backend().xp
    blocks = -(-threads // THREADS_PER_BLOCK)
    outputs, rates = {}, {}
    for inversion in INVERSIONS:
        out = xp.full((threads, G1_GROUP.field_words), UNWRITTEN, dtype=xp.uint32)
        kernel = f"probe_inverse_{inversion}_g1"
        ms, runs = cuda_time_ms(lambda: launch(module.get_function(kernel), blocks, THREADS_PER_BLOCK,
                                               (bases, u32(bases.shape[0]), u32(threads), u32(chain), out), kernel),
                                repeats)
        outputs[inversion] = out
        rates[inversion] = {"ms": ms, "runs_ms": runs, "ns_per_inversion": ms * NS_PER_MS / (threads * chain)}
    mismatches = int((outputs["fermat"] != outputs["gcd"]).any(axis=1).sum())
    return {"threads": threads, "chain": chain, "mismatches": mismatches, **rates}


def fit(rows: list[dict], inversion: str) -> tuple[float, float]:
    """Least squares of affine ns an addition = a + b / k over the rows, with one inversion: (a, b)."""
    xs = [1.0 / row["k"] for row in rows]
    ys = [row[inversion]["affine_ns_per_addition"] for row in rows]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)
    return mean_y - b * mean_x, b


def table(rows: list[dict], env: dict, group_name: str, inversions, rates: dict | None) -> str:
    gpu = env.get("gpu") or {}
    lines = [f"### Batched affine against mixed XYZZ {group_name.upper()} additions ({gpu.get('name', '?')}, "
             f"{code_label(env)}, {env.get('date')})", ""]
    header = ["k", "additions", "XYZZ ms", "XYZZ ns / addition"]
    for inversion in inversions:
        header += [f"affine ({inversion}) ms", f"ns / addition ({inversion})", f"/ XYZZ ({inversion})"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [str(row["k"]), f"{row['additions']:,}", f"{row['xyzz_ms']:.2f}", f"{row['xyzz_ns_per_addition']:.4f}"]
        for inversion in inversions:
            result = row[inversion]
            cells += [f"{result['affine_ms']:.2f}", f"{result['affine_ns_per_addition']:.4f}",
                      f"{result['affine_ns_per_addition'] / row['xyzz_ns_per_addition']:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    if len({row["k"] for row in rows}) >= 2:  # a line needs two distinct k
        lines.append("")
        for inversion in inversions:
            a, b = fit(rows, inversion)
            lines.append(f"Fit ({inversion}): affine ns an addition = {a:.4f} + {b:.3f} / k (the addition with its "
                         f"share of the trick, then the inversion shared by k).")
    if rates:
        lines += ["", f"Inversions alone ({rates['threads']:,} threads, {rates['chain']} dependent inversions each): "
                      + ", ".join(f"{inversion} {rates[inversion]['ns_per_inversion']:.3f} ns of the chip an inversion"
                                  for inversion in INVERSIONS)
                      + f"; results equal: {'yes' if rates['mismatches'] == 0 else 'NO'}."]
    return "\n".join(lines)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--group", choices=sorted(GROUPS), default="g1", help="the curve group (default g1)")
    parser.add_argument("--log2-points", type=int, default=20, help="distinct bases gathered from (2^n) (default: 20)")
    parser.add_argument("--ks", type=int, nargs="+", default=[16, 32, 64, 128, 256, 512],
                        help="accumulators a thread (additions sharing one inversion) (default: 16 32 64 128 256 512)")
    parser.add_argument("--steps", type=int, default=16, help="points summed into each accumulator (default: 16)")
    parser.add_argument("--inversions", nargs="+", choices=INVERSIONS, default=list(INVERSIONS),
                        help="the inversion(s) Montgomery's trick shares (default: fermat gcd)")
    parser.add_argument("--chain", type=int, default=16,
                        help="dependent inversions a thread when the inversions are timed alone, G1 (0: not timed; "
                             "default 16)")
    parser.add_argument("--waves", type=int, default=2, help="threads = waves x resident threads of the chip (default: 2)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs after one warm-up, median reported (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random inputs (default 1)")
    add_output_arguments(parser)
    args = parser.parse_args()
    if (not 2 <= args.log2_points <= 26 or args.steps < 2 or args.waves < 1 or args.repeats < 1 or min(args.ks) < 1
            or args.chain < 0):
        parser.error("need 2 <= --log2-points <= 26, --steps >= 2, --waves >= 1, --repeats >= 1, every k >= 1, "
                     "--chain >= 0")
    require_gpu()
    import cupy

    env = timing_environment(with_gpu=True)
    rng = random.Random(args.seed)
    a, b = rng.randrange(1, curve_order), rng.randrange(1, curve_order)
    group, generator, blocks_per_sm = GROUPS[args.group]
    bases = progression_bases(1 << args.log2_points, multiply(generator, b), multiply(generator, a), group)
    module = probe_module(PROBE_SOURCE)
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    threads = args.waves * sms * blocks_per_sm * THREADS_PER_BLOCK
    rates = None
    if args.chain and args.group == "g1":
        rates = inversion_rates(bases, threads, args.chain, args.repeats, module)
        print("inversions alone: " + ", ".join(f"{inversion} {rates[inversion]['ns_per_inversion']:.3f} ns"
                                               for inversion in INVERSIONS)
              + f", {rates['mismatches']} mismatches", flush=True)
    rows = []
    for k in args.ks:
        row = probe(bases, group, threads, k, args.steps, args.repeats, module, args.inversions)
        rows.append(row)
        print(f"k = {k}: XYZZ {row['xyzz_ns_per_addition']:.4f} ns, "
              + ", ".join(f"affine ({inversion}) {row[inversion]['affine_ns_per_addition']:.4f} ns an addition "
                          f"({row[inversion]['mismatches']} mismatches)" for inversion in args.inversions), flush=True)
    text = table(rows, env, args.group, args.inversions, rates)
    print(text)
    write_records(args.json, args.md, {"environment": env, "group": args.group, "rows": rows,
                                       "inversions_alone": rates}, text)
    bad = [(row["k"], inversion) for row in rows for inversion in args.inversions if row[inversion]["mismatches"]]
    if bad:
        print(f"error: the affine sums differ from the XYZZ sums at (k, inversion) = {bad}", file=sys.stderr)
        return 1
    if rates and rates["mismatches"]:
        print(f"error: the binary GCD's inverses differ from Fermat's in {rates['mismatches']} threads",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
