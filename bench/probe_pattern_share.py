"""Where batch addition by circuit patterns starts to pay (gpu/batch_add.py PATTERN_SHARE, fitted by it: bench/RESULTS_msm.md): BatchAdder.sums
on ten circuits' random bitmaps over 2^log2 G1 (or G2) bases, with the pattern path forced on and off (patterns_pay), at
several densities; beside each, gpu/batch_add.pattern_share (the path's expected additions over the rows' own).
The two paths' sums are compared word for word; a row where they differ makes the run fail (exit 1). CUDA events, one
warm-up, median of --repeats.

    python3 bench/probe_pattern_share.py [--group g1] [--log2 27] [--circuits 10] [--densities 0.5 0.35 0.25 0.18 0.125]

PATTERN_SHARE serves both groups (B_G2's rows are B's split): `--group g2 --log2 25` checks G2 at the proof's B_G2
size (a quarter of the aux at 2^27).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm: the CUDA-event timer, bases, bitmaps

from bench_msm import bases_for, cuda_time_ms, random_bitmaps  # noqa: E402
from gpu import batch_add  # noqa: E402
from gpu.batch_add import BatchAdder, pattern_share, row_modes  # noqa: E402
from gpu.points import G1_GROUP, G2_GROUP  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser  # noqa: E402


def timed(adder, bitmaps, patterns: bool, repeats: int):
    """(median ms, the sums) of adder.sums with the pattern path forced on or off."""
    decide = batch_add.patterns_pay
    batch_add.patterns_pay = lambda selected, n: patterns
    try:
        sums = adder.sums(bitmaps).copy()
        median, _ = cuda_time_ms(lambda: adder.sums(bitmaps), repeats)
    finally:
        batch_add.patterns_pay = decide
    return median, sums


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--group", choices=("g1", "g2"), default="g1", help="the bases' group (default g1)")
    parser.add_argument("--log2", type=int, default=27, help="log2 of the bases (default 27)")
    parser.add_argument("--circuits", type=int, default=10, help="rows, one random bitmap each (default 10)")
    parser.add_argument("--densities", type=float, nargs="+", default=[0.5, 0.35, 0.25, 0.18, 0.125],
                        help="share of set bits in every row (default 0.5 0.35 0.25 0.18 0.125)")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls after one warm-up, median reported (default 3)")
    args = parser.parse_args()
    if not 10 <= args.log2 <= 27 or not 2 <= args.circuits <= batch_add.MAX_PATTERN_ROWS or args.repeats < 1:
        parser.error(f"--log2 must be in 10 .. 27, --circuits in 2 .. {batch_add.MAX_PATTERN_ROWS}, --repeats positive")
    if not all(0 < d <= 0.5 for d in args.densities):
        parser.error("--densities must be in (0, 0.5]: denser rows are added by their clear bits")
    require_gpu()
    import cupy

    n = 1 << args.log2
    group = G1_GROUP if args.group == "g1" else G2_GROUP
    adder = BatchAdder(bases_for(group, n, seed=2), group)
    print(f"| density | pattern_share | chunks ms | patterns ms | patterns / chunks | sums equal |  "
          f"({cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}, {args.group.upper()}, 2^{args.log2} x{args.circuits})")
    print("|---|---|---|---|---|---|")
    unequal = []
    for density in args.densities:
        bitmaps = random_bitmaps(args.circuits, n, density, seed=args.circuits)
        _, selected = row_modes(adder.count_bits(bitmaps), n)
        share = pattern_share(selected, n)
        chunks_ms, chunk_sums = timed(adder, bitmaps, False, args.repeats)
        patterns_ms, pattern_sums = timed(adder, bitmaps, True, args.repeats)
        equal = bool((chunk_sums == pattern_sums).all())
        print(f"| {density} | {share:.3f} | {chunks_ms:.2f} | {patterns_ms:.2f} | {patterns_ms / chunks_ms:.3f} | "
              f"{'yes' if equal else 'NO'} |", flush=True)
        if not equal:
            unequal.append(density)
        bitmaps = None
    if unequal:  # a time for sums that differ measures nothing: the run fails
        sys.exit(f"error: sums: the pattern path and the chunks differ at density {', '.join(map(str, unequal))}")


if __name__ == "__main__":
    main()
