"""Probe: batch_add for K circuits as one pass over each base's pattern of K bits, 2^K buckets.

    python3 bench/probe_circuit_patterns.py [--log2-points 27] [--circuits 10] [--densities 0.5 0.125]
                                            [--repeats 5] [--json out.json] [--md out.md]

batch_add sums, for each circuit k and query, the bases whose bit is set: S_k = sum_{i : b_ki = 1} P_i. Its engine
(gpu/batch_add.py BatchAdder) reads the bases once for all circuits, but adds a selected base once for each circuit
that selects it: sum_k popcount_k additions, 5 N for ten circuits at density 1/2 (a dense row is summed over its clear
bits instead, so density d costs min(d, 1 - d)). The circuits of a call share the bases, so each base's bits across
them, its pattern p_i = sum_k b_ki 2^k, can choose one of 2^K buckets:

    B_p = sum_{i : p_i = p} P_i        (one addition a base whose pattern is not 0: N (1 - (1 - d)^K) in all)
    S_k = sum_{p : bit k of p is set} B_p    (K 2^(K-1) additions: 5120 at K = 10)

about 5 times fewer additions for ten circuits at density 1/2, 1.7 times at 1/8 (B's density in a PoRep circuit is
about a quarter, times its witness's ones). Before gpu/batch_add.py gets such a mode, this measures the bucket work
with the prover's own MSM pass (gpu/msm.py _run_pass, through bench/probe_fixed_base.py's one-window FoldedPlan): one
window of c = K + 1 bits whose digits are the patterns (below 2^K = 2^(c-1): no sign, no carry), its buckets summed,
then reduced by running sums (sum_p p B_p: as few additions as the per-bit sums), against BatchAdder.sums over the
same bitmaps, in the same run. The patterns are made on the host and are not timed (a kernel would read K bits and
write one word a base: under a millisecond at 2^27).

Check (at every density, on the first 2^CHECK_LOG2_POINTS bases): the pattern pass's sum is sum_i p_i P_i =
sum_k 2^k S_k, compared (py_ecc) with BatchAdder's S_k combined so; a mismatch is an error, exit 1.

Method (/work/.library/device/METHOD.md): one warm-up call, then the median of --repeats calls timed with CUDA events.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm's timer, probe_fixed_base's one-window pass

from py_ecc.optimized_bls12_381 import G1, Z1, add, eq, multiply  # noqa: E402

from bench_msm import cuda_time_ms  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu.batch_add import U32_WORD_BITS, BatchAdder  # noqa: E402
from gpu.limbs import FR_LIMBS  # noqa: E402
from gpu.points import G1_GROUP, backend, download_points  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from probe_fixed_base import folded_msm, parse_run_arguments, progression_bases, write_outputs  # noqa: E402
from output_folders import ArgumentParser  # noqa: E402

CHECK_LOG2_POINTS = 12
MAX_CIRCUITS = 16
"""2^16 buckets: far past a proof's block of circuits (ten for a PoRep)."""


def random_bitmaps(circuits: int, n: int, density: float, seed: int) -> np.ndarray:
    """Host array (circuits, ceil(n / 32)) uint32, bit i of row k (bit i mod 32 of word i div 32) set with probability
    ``density``, as prep's bitmaps are laid out (gpu/batch_add.py bitmap_words)."""
    rng = np.random.default_rng(seed)
    words = -(-n // U32_WORD_BITS)
    out = np.zeros((circuits, words), dtype=np.uint32)
    for k in range(circuits):
        bits = np.zeros(words * U32_WORD_BITS, dtype=bool)
        bits[:n] = rng.random(n, dtype=np.float32) < density
        out[k] = np.packbits(bits, bitorder="little").view(np.uint32)
    return out


def pattern_scalars(bitmaps: np.ndarray, n: int) -> np.ndarray:
    """Host array (n, FR_LIMBS) uint32: base i's pattern sum_k b_ki 2^k as a scalar (limb 0; the others 0)."""
    patterns = np.zeros(n, dtype=np.uint32)
    for k, row in enumerate(bitmaps):
        bits = np.unpackbits(row.view(np.uint8), bitorder="little")[:n]
        patterns |= bits.astype(np.uint32) << np.uint32(k)
    scalars = np.zeros((n, FR_LIMBS), dtype=np.uint32)
    scalars[:, 0] = patterns
    return scalars


def pattern_pass(bases, scalars, circuits: int):
    """Device array (1, affine_words): sum_i p_i P_i by one pass of one window of circuits + 1 bits."""
    return folded_msm(bases, scalars, circuits + 1, 1, G1_GROUP)


def check(bases, bitmaps: np.ndarray, circuits: int) -> bool:
    """On the first 2^CHECK_LOG2_POINTS bases (bitmaps cut to them): the pattern pass equals sum_k 2^k S_k of
    BatchAdder's sums S_k."""
    xp = backend().xp
    n = min(1 << CHECK_LOG2_POINTS, int(bases.shape[0]))
    words = -(-n // U32_WORD_BITS)
    cut = bitmaps[:, :words].copy()
    if n % U32_WORD_BITS:
        cut[:, -1] &= np.uint32((1 << (n % U32_WORD_BITS)) - 1)
    sums = download_points(BatchAdder(bases[:n], G1_GROUP).sums(xp.asarray(cut)), G1_GROUP)
    combined = Z1
    for k, s_k in enumerate(sums):
        combined = add(combined, multiply(s_k, 1 << k))
    [patterned] = download_points(pattern_pass(bases[:n], xp.asarray(pattern_scalars(cut, n)), circuits), G1_GROUP)
    return eq(patterned, combined)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--log2-points", type=int, default=27, help="bases N (2^n), G1 (default: 27)")
    parser.add_argument("--circuits", type=int, default=10, help="circuits K sharing the bases (2^K buckets) (default: 10)")
    parser.add_argument("--densities", type=float, nargs="+", default=[0.5, 0.125],
                        help="each circuit's share of set bits (at most 1/2: a denser row is summed over its clear bits) (default: 0.5 0.125)")
    args = parse_run_arguments(parser, CHECK_LOG2_POINTS)
    if not 1 <= args.circuits <= MAX_CIRCUITS:
        parser.error(f"--circuits must lie in 1..{MAX_CIRCUITS}")
    if not all(0 < d <= 0.5 for d in args.densities):
        parser.error("every --densities value must lie in (0, 0.5]")
    require_gpu()
    xp = backend().xp
    env = timing_environment(with_gpu=True)
    n, k = 1 << args.log2_points, args.circuits
    bases = progression_bases(n, G1, G1_GROUP)
    rows = []
    for d in args.densities:
        host_bitmaps = random_bitmaps(k, n, d, args.seed)
        if not check(bases, host_bitmaps, k):
            print(f"error: density {d}: the pattern pass differs from sum_k 2^k S_k of BatchAdder's sums", file=sys.stderr)
            return 1
        host_scalars = pattern_scalars(host_bitmaps, n)
        patterned = int(np.count_nonzero(host_scalars[:, 0]))
        bitmaps, scalars = xp.asarray(host_bitmaps), xp.asarray(host_scalars)
        del host_scalars
        adder = BatchAdder(bases, G1_GROUP)
        engine_ms, engine_runs = cuda_time_ms(lambda: adder.sums(bitmaps), args.repeats)
        pattern_ms, pattern_runs = cuda_time_ms(lambda: pattern_pass(bases, scalars, k), args.repeats)
        selected = int(sum(np.unpackbits(row.view(np.uint8)).sum() for row in host_bitmaps))
        rows.append({"density": d, "engine_ms": engine_ms, "engine_runs_ms": engine_runs, "pattern_ms": pattern_ms,
                     "pattern_runs_ms": pattern_runs, "engine_additions": selected, "pattern_additions": patterned,
                     "ratio": pattern_ms / engine_ms})
        print(f"density {d}: BatchAdder {engine_ms:.2f} ms ({selected:,} selected), pattern pass {pattern_ms:.2f} ms "
              f"({patterned:,} bases with a pattern): {pattern_ms / engine_ms:.3f} of the engine", flush=True)
        del bitmaps, scalars, adder
    write_outputs(args, env, markdown(rows, env, args.log2_points, k), log2_points=args.log2_points, circuits=k,
                  rows=rows)
    return 0


def markdown(rows: list[dict], env: dict, log2_points: int, circuits: int) -> str:
    gpu = env.get("gpu") or {}
    lines = [f"### batch_add of {circuits} circuits over 2^{log2_points} G1 bases: BatchAdder against one pass over "
             f"the bases' {circuits}-bit patterns ({gpu.get('name', '?')}, {code_label(env)}, {env.get('date')})",
             "", "| density | BatchAdder ms | its additions | pattern pass ms | bases with a pattern | pattern / BatchAdder |",
             "|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['density']} | {row['engine_ms']:.2f} | {row['engine_additions']:,} | {row['pattern_ms']:.2f} "
                     f"| {row['pattern_additions']:,} | {row['ratio']:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
