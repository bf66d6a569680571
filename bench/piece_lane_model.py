"""How many of a warp's 32 lanes the bucket additions keep busy: a CPU model of msm_piece_sum's work split.

    python3 bench/piece_lane_model.py [--points 17 22 24] [--window-bits 8 10 12 16] [--seed 1]

msm_piece_sum (gpu/kernels/msm.cu) gives each thread one piece: a bucket's run of sorted points is cut into pieces
of max(min_points, ceil(sqrt(run))) points (min_points the pass's: gpu/msm.py _Plan.piece_min_points), so every
bucket's last piece is short. A warp takes 32 pieces and runs as long as its longest one; its lanes are busy for
sum(lengths) / (32 x max length) of that time.
Two orders are modelled: pieces in bucket order (msm.cu before msm_piece_keys) and longest first (msm_piece_keys'
sorted keys, what msm_piece_sum takes now). This script makes the signed digits of uniformly random scalars below r
for every window (as msm_digits does, carries included, so a top window with few live bits is skewed as on the GPU),
counts each bucket's run, cuts the runs into pieces by msm.cu's rule and prints that ratio. Checked against Nsight
Compute on the H200 (2026-12-03, bench/RESULTS_vs_sppark.md): msm_piece_sum_g1 at 2^22 points, c = 16, had 25.15 of
32 lanes active (78.6%) in bucket order, and 31.83 with the pieces longest first (cb95f6d call).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpu.msm import _Plan  # noqa: E402
from reference.field import R  # noqa: E402
from reference.msm import MAX_WINDOW_BITS, num_windows  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/: output_folders
from output_folders import ArgumentParser  # noqa: E402

WARP_LANES = 32
LIMB_BITS = 32
FR_LIMBS = 8


def random_scalar_limbs(count: int, rng) -> np.ndarray:
    """(count, 8) little-endian u32 limbs, uniform with the top limb below r's (bench_msm.py's scalars)."""
    limbs = rng.integers(0, 1 << LIMB_BITS, size=(count, FR_LIMBS), dtype=np.uint64)
    limbs[:, -1] %= R >> (LIMB_BITS * (FR_LIMBS - 1))
    return limbs


def window_bits_of(limbs: np.ndarray, offset: int, width: int) -> np.ndarray:
    """Bits offset .. offset + width - 1 of every scalar (0 past bit 255)."""
    value = np.zeros(limbs.shape[0], dtype=np.uint64)
    for bit in range(width):
        position = offset + bit
        if position >= LIMB_BITS * FR_LIMBS:
            break
        value |= ((limbs[:, position // LIMB_BITS] >> np.uint64(position % LIMB_BITS)) & np.uint64(1)) << np.uint64(bit)
    return value


def bucket_runs(count: int, c: int, rng) -> np.ndarray:
    """Every (window, |digit|) bucket's number of points for `count` random scalars at width c (msm_digits's
    signed recoding: v = window bits + carry; v > 2^(c-1) gives the digit v - 2^c and a carry of 1)."""
    limbs, half = random_scalar_limbs(count, rng), 1 << (c - 1)
    carry = np.zeros(count, dtype=np.uint64)
    runs = []
    for w in range(num_windows(c)):
        v = window_bits_of(limbs, w * c, c) + carry
        negative = v > half
        magnitude = np.where(negative, (1 << c) - v, v)
        carry = negative.astype(np.uint64)
        runs.append(np.bincount(magnitude.astype(np.int64), minlength=(1 << c) + 1)[1 : half + 1])
    return np.concatenate(runs)


def piece_lengths(runs: np.ndarray, min_points: int) -> np.ndarray:
    """msm.cu's pieces, bucket by bucket: max(min_points, ceil(sqrt(run))) points each, the last shorter."""
    lengths = []
    for run in runs[runs > 0].tolist():
        length = max(min_points, math.isqrt(run - 1) + 1)
        full, rest = divmod(run, length)
        lengths += [length] * full + ([rest] if rest else [])
    return np.array(lengths)


def lane_share(lengths: np.ndarray) -> float:
    """sum(lengths) / (32 x the longest) over the warps of 32 consecutive pieces (a last partial warp left out)."""
    warps = lengths[: len(lengths) // WARP_LANES * WARP_LANES].reshape(-1, WARP_LANES)
    return float(warps.sum() / (WARP_LANES * warps.max(axis=1)).sum())


def main(argv=None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, nargs="+", default=[17, 22, 24], help="log2 of the MSM sizes (default: 17 22 24)")
    parser.add_argument("--window-bits", type=int, nargs="+", default=[8, 10, 12, 16], help="window widths c (default: 8 10 12 16)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random scalars (default 1)")
    args = parser.parse_args(argv)
    for name, values, low, high in (("--points", args.points, 1, 24), ("--window-bits", args.window_bits, 2,
                                                                           MAX_WINDOW_BITS)):
        bad = [v for v in values if not low <= v <= high]
        if bad:
            parser.error(f"{name}: {bad} outside {low}..{high}")
    if args.seed < 0:
        parser.error(f"--seed: must be at least 0, got {args.seed}")
    rng = np.random.default_rng(args.seed)
    print("| points | c | pieces | mean piece | lanes busy, bucket order | lanes busy, longest first |")
    print("|---|---|---|---|---|---|")
    for log2 in args.points:
        for c in args.window_bits:
            lengths = piece_lengths(bucket_runs(1 << log2, c, rng), _Plan((1 << log2,), c).piece_min_points)
            longest_first = np.sort(lengths)[::-1]
            print(f"| 2^{log2} | {c} | {len(lengths)} | {lengths.mean():.1f} | {100 * lane_share(lengths):.1f}% | "
                  f"{100 * lane_share(longest_first):.1f}% |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
