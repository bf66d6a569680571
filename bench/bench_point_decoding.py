"""Point decoding speed (vectors/decoding.py): the reference, the fast library in this process, and the fast library
through the process pool, per point, for the encodings the readers meet. For bench/RESULTS_import.md.

    python bench/bench_point_decoding.py [--points 32768] [--repeats 3]

Wall clock, median of --repeats runs (the pool's start included: a reader pays it once per long array).
"""
import os
import random
import statistics
import sys
import time
from pathlib import Path

from py_ecc.optimized_bls12_381 import G1, G2, multiply

from reference.encoding import g1_to_bytes, g2_to_bytes
from vectors import fast_library
from vectors.decoding import PointDecoder
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/: output_folders
from output_folders import ArgumentParser  # noqa: E402

DISTINCT_POINTS = 64
"""Distinct random points, repeated to the wanted count (making 2^15 random points in py_ecc would take minutes)."""
REFERENCE_SAMPLE = 200
"""The reference decodes only this many of them (about 1.5 ms a G1 point): its per-point time is flat."""
CASES = (
    ("G1 compressed (vector files)", "g1", G1, g1_to_bytes, True, 1),
    ("G1 uncompressed (zkey, bellman)", "g1", G1, g1_to_bytes, False, 1),
    ("G2 compressed (vector files)", "g2", G2, g2_to_bytes, True, 4),
    ("G2 uncompressed (zkey, bellman)", "g2", G2, g2_to_bytes, False, 4),
)
"""(name, group, generator, encoder, compressed, divisor of --points: G2 keys have a quarter as many points)."""


def _median_seconds(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=1 << 15, help="G1 points a row, G2 rows a quarter (default 32768)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each library row, median reported (default 3; "
                        f"the reference decodes {REFERENCE_SAMPLE} points once)")
    args = parser.parse_args()
    rng = random.Random(16)
    workers = os.cpu_count() or 1
    print(f"{fast_library.implementation()}, {workers} CPUs, load average {os.getloadavg()[0]:.1f}")
    print("| encoding | points | reference µs/point | library, 1 process µs/point | library, pool of %d µs/point |" % workers)
    print("|---|---|---|---|---|")
    for name, group, generator, encode, compressed, divisor in CASES:
        distinct = [encode(multiply(generator, rng.randrange(1, 2**255)), compressed=compressed) for _ in range(DISTINCT_POINTS)]
        count = args.points // divisor
        items = [distinct[i % DISTINCT_POINTS] for i in range(count)]
        sample = items[:REFERENCE_SAMPLE]
        reference = _median_seconds(lambda: PointDecoder(reference=True).many(sample, group, "x", compressed=compressed), 1)
        single = _median_seconds(lambda: PointDecoder(workers=1).many(items, group, "x", compressed=compressed), args.repeats)
        pool = _median_seconds(lambda: PointDecoder(workers=workers).many(items, group, "x", compressed=compressed), args.repeats)
        print(f"| {name} | {count} | {reference / len(sample) * 1e6:.0f} | {single / count * 1e6:.0f} | {pool / count * 1e6:.0f} |")


if __name__ == "__main__":
    main()
