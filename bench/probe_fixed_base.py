"""Probe: an MSM over precomputed multiples of its bases (a fixed-base table), every window in one set of buckets.

    python3 bench/probe_fixed_base.py [--group g1|g2] [--log2-points 24] [--bits 16 20 22 24] [--copies G]
                                      [--repeats 5] [--json out.json] [--md out.md]

Issue 18 names precomputed multiples of fixed bases as a lever for the G1 MSM goals: a proving key's bases never
change, so the table T = [2^(c w) P_i for every window w < W and point i] can be made once, at upload. Then

    sum_i s_i P_i = sum_{w, i} d_{w,i} 2^(c w) P_i

is ONE window over the N W table points, with the digits d_{w,i} as their scalars: 2^(c-1) buckets and one running-sum
reduction in all, instead of W of each, and no doublings between windows. The bucket additions stay N W; the gain is
a wider c, which one set of buckets makes affordable (fewer windows), paid for in memory: N W affine points. Before
gpu/msm.py gets such a mode, this measures it with the prover's own pass (gpu/msm.py _run_pass) made to see one
window (FoldedPlan): a table of W copies of N bases (the copies' values do not change the work) and digits as
uniformly random magnitudes in [0, 2^(c-1)) (what the signed digits of random scalars are), against the regular MSM
of the same N bases with random full scalars (gpu.msm.kernel_window_bits(N)), in the same run.

A whole table (W multiples a base) does not fit beside a 2^27 proof. --copies G measures a partial one: G multiples
2^(c j) P_i, j < G, so that the windows fold in S = ceil(W / G) sets, each set one window of the pass over the G N
table points (S sets of buckets, Horner over the sets); the probe's scalars are then random below 2^(S c - 1) (at
most 2^254, below r), S windows of digits whose top one carries nothing out. (A real partial table's Horner shifts
by G c bits between sets, not c: G times the one thread's doublings at the end, well under a millisecond.)

Method (/work/.library/device/METHOD.md): one warm-up call, then the median of --repeats calls timed with CUDA
events, each the whole pass and its conversion to affine (msm_combine). Check: at every c, the folded pass over a
table of 2^CHECK_LOG2_POINTS bases equals the regular MSM (msm_batch) of the same points and scalars, limb for limb;
a mismatch is an error, exit 1.
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm: the CUDA-event timer and random scalars

from py_ecc.optimized_bls12_381 import G1, G2, curve_order, multiply  # noqa: E402

from bench_msm import cuda_time_ms, random_scalars  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu import msm  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from gpu.limbs import FR_LIMBS, LIMB_BITS  # noqa: E402
from gpu.points import G1_GROUP, G2_GROUP, backend, launch, u32  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from reference.msm import num_windows  # noqa: E402

GROUPS = {"g1": (G1_GROUP, G1), "g2": (G2_GROUP, G2)}
"""Group and generator."""
CHECK_LOG2_POINTS = 12
MAX_FOLDED_BITS = 26
"""The widest table window: its 2^25 buckets' XYZZ sums take 6 GiB in G1 beside the table."""
MAX_SCALAR_BITS = 254
"""Random scalars below 2^254 are below r."""
BYTES_PER_GIB = 1 << 30
START, STEP = 3, 5
"""Base i is (START - STEP i) G."""


@dataclass(frozen=True)
class FoldedPlan(msm._Plan):
    """A pass of gpu/msm.py over a fixed-base table: each of its ``sets`` windows sums the digits of G windows of the
    scalars, each on its own copy of the bases (the table's points are the windows' bases)."""

    sets: int = 1

    @property
    def windows(self) -> int:
        return self.sets


def folded_msm(table, scalars, window_bits: int, sets: int, group):
    """Device array (1, affine_words): sum_k scalars[k] table[k] by one pass of ``sets`` windows of c bits, Horner
    over them. ``scalars``: (count, 8) uint32 limbs, each value below 2^(sets c - 1)."""
    xp = backend().xp
    plan = FoldedPlan((int(scalars.shape[0]),), window_bits, sets)
    sums = msm._run_pass([msm.MsmJob(table, scalars)], plan, group, montgomery=False)
    assert sums.shape == (sets, group.xyzz_words), "a folded pass leaves one sum a set"
    combine = xp.asarray(np.array([[0, sets, window_bits]], dtype=np.uint32))
    out = xp.empty((1, group.affine_words), dtype=xp.uint32)
    launch(group.module(msm.MSM_KERNELS), group.kernel("msm_combine"), 1, sums, combine, u32(1), out)
    return out


def random_scalars_below(count: int, bits: int, seed: int):
    """Device array (count, 8) uint32: scalars uniformly random below 2^bits."""
    rng = np.random.default_rng(seed)
    limbs = rng.integers(0, 1 << LIMB_BITS, size=(count, FR_LIMBS), dtype=np.uint64).astype(np.uint32)
    full, partial = divmod(bits, LIMB_BITS)
    if full < FR_LIMBS:
        limbs[:, full] &= np.uint32((1 << partial) - 1)
        limbs[:, full + 1:] = 0
    return backend().xp.asarray(limbs)


def scalar_bits(window_bits: int, sets: int) -> int:
    """Bits of the probe's random scalars: S c - 1 (S windows of digits, the top one below half: no carry out), at
    most MAX_SCALAR_BITS."""
    return min(sets * window_bits - 1, MAX_SCALAR_BITS)


def table_shape(window_bits: int, copies: int | None) -> tuple[int, int]:
    """(copies, sets) of a table for c-bit windows: G = ``copies`` (None or more than W: W, the whole table) and
    S = ceil(W / G)."""
    windows = num_windows(window_bits)
    g = windows if copies is None else min(copies, windows)
    return g, -(-windows // g)


def progression_bases(count: int, generator, group):
    """Device array (count, affine_words): point i is (3 - 5 i) G, distinct and known (gpu.msm.progression_bases)."""
    return msm.progression_bases(count, multiply(generator, START), multiply(generator, curve_order - STEP), group)


def tiled_table(bases, copies: int):
    """Device array (copies * n, affine_words): the table's size and layout, ``copies`` copies of the bases (their
    values do not change the work)."""
    return backend().xp.concatenate([bases] * copies)


def check(bases, window_bits: int, copies: int | None, group, seed: int) -> bool:
    """The folded pass over the first 2^CHECK_LOG2_POINTS bases' table equals msm_batch over the same points and
    scalars."""
    g, sets = table_shape(window_bits, copies)
    table = tiled_table(bases[: 1 << CHECK_LOG2_POINTS], g)
    scalars = random_scalars_below(table.shape[0], scalar_bits(window_bits, sets), seed)
    regular = msm.msm_batch([msm.MsmJob(table, scalars)], group, montgomery=False)
    return bool((folded_msm(table, scalars, window_bits, sets, group) == regular).all())


def parse_run_arguments(parser, check_log2_points: int = CHECK_LOG2_POINTS):
    """The arguments of a probe's run over 2^--log2-points bases (--log2-points is the probe's own): --repeats,
    --seed, --json, --md (output_folders: their folders checked) added, then all parsed; --log2-points from its check's
    size to 2^28, --repeats >= 1."""
    parser.add_argument("--repeats", type=int, default=5, help="timed runs after one warm-up, median reported (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random inputs (default 1)")
    add_output_arguments(parser)
    args = parser.parse_args()
    if not check_log2_points <= args.log2_points <= 28 or args.repeats < 1:
        parser.error(f"need {check_log2_points} <= --log2-points <= 28 and --repeats >= 1")
    return args


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--group", choices=sorted(GROUPS), default="g1", help="the curve group (default g1)")
    parser.add_argument("--log2-points", type=int, default=24, help="bases N (2^n); the table holds N W points (default: 24)")
    parser.add_argument("--bits", type=int, nargs="+", default=[16, 20, 22, 24], help="window widths c of the table (default: 16 20 22 24)")
    parser.add_argument("--copies", type=int, help="multiples a base in the table (default: W, the whole table)")
    args = parse_run_arguments(parser)
    if not all(2 <= c <= MAX_FOLDED_BITS for c in args.bits):
        parser.error(f"every --bits value must lie in 2..{MAX_FOLDED_BITS}")
    if args.copies is not None and args.copies < 1:
        parser.error("--copies must be at least 1")
    require_gpu()
    env = timing_environment(with_gpu=True)
    group, generator = GROUPS[args.group]
    n = 1 << args.log2_points
    bases = progression_bases(n, generator, group)
    scalars = random_scalars(1, n, args.seed)[0]
    regular_bits = msm.kernel_window_bits(n)
    regular_ms, regular_runs = cuda_time_ms(
        lambda: msm.msm_batch([msm.MsmJob(bases, scalars)], group, montgomery=False), args.repeats)
    print(f"regular MSM 2^{args.log2_points} (c = {regular_bits}): {regular_ms:.2f} ms", flush=True)
    rows = []
    for c in args.bits:
        g, sets = table_shape(c, args.copies)
        if not check(bases, c, args.copies, group, args.seed):
            print(f"error: c = {c}: the folded pass differs from msm_batch over the same table and scalars",
                  file=sys.stderr)
            return 1
        table = tiled_table(bases, g)
        scalars = random_scalars_below(n * g, scalar_bits(c, sets), args.seed + c)
        folded_ms, folded_runs = cuda_time_ms(lambda: folded_msm(table, scalars, c, sets, group), args.repeats)
        rows.append({"window_bits": c, "windows": num_windows(c), "copies": g, "sets": sets, "table_points": n * g,
                     "table_gib": table.nbytes / BYTES_PER_GIB, "folded_ms": folded_ms, "folded_runs_ms": folded_runs,
                     "ratio_to_regular": folded_ms / regular_ms})
        print(f"c = {c}: {num_windows(c)} windows in {sets} set(s) over {g} copies, table "
              f"{table.nbytes / BYTES_PER_GIB:.1f} GiB, folded {folded_ms:.2f} ms ({folded_ms / regular_ms:.3f} of "
              "the regular MSM)", flush=True)
        del table, scalars
    text = markdown(rows, env, args.group, args.log2_points, regular_bits, regular_ms)
    write_outputs(args, env, text, group=args.group, log2_points=args.log2_points,
                  regular={"window_bits": regular_bits, "median_ms": regular_ms, "runs_ms": regular_runs}, rows=rows)
    return 0


def write_outputs(args, env: dict, text: str, **fields) -> None:
    """A probe run's results: ``text`` (its markdown table) printed and written to --md; --json gets the record
    {environment, command, **fields, date}."""
    print(text)
    if args.json:
        record = {"environment": env, "command": " ".join(sys.argv), **fields,
                  "date": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        args.json.write_text(json.dumps(record, indent=1))
    if args.md:
        args.md.write_text(text + "\n")


def markdown(rows: list[dict], env: dict, group_name: str, log2_points: int, regular_bits: int,
             regular_ms: float) -> str:
    gpu = env.get("gpu") or {}
    lines = [f"### {group_name.upper()} MSM of 2^{log2_points} bases over a fixed-base table, one set of buckets "
             f"({gpu.get('name', '?')}, {code_label(env)}, {env.get('date')})", "",
             f"Regular MSM (c = {regular_bits}, {num_windows(regular_bits)} windows): {regular_ms:.2f} ms.", "",
             "| c | windows | copies | sets | table points | table GiB | folded ms | folded / regular |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['window_bits']} | {row['windows']} | {row['copies']} | {row['sets']} | "
                     f"{row['table_points']:,} | {row['table_gib']:.1f} | {row['folded_ms']:.2f} | "
                     f"{row['ratio_to_regular']:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
