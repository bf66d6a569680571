"""Probe: msm_piece_sum's bucket additions as batched affine additions, on the prover's own pass inputs.

    python3 bench/probe_affine_pieces.py [--group g1|g2] [--log2-points 24 26] [--lanes 32 64 128]
                                         [--inversions gcd fermat] [--repeats 5] [--json out.json] [--md out.md]

bench/probe_batched_affine.py measured batched affine additions alone (the addition and Montgomery's trick over
pseudo-random gathers); the prover's first version of them was slower than that promised (bench/RESULTS_msm.md,
"Batched affine bucket additions in the prover"). This probe measures them where msm_piece_sum works: it runs an
MSM of 2^n points with random scalars through gpu/msm.py as the prover does (msm_batch, gpu.msm.kernel_window_bits)
and keeps the arguments of its msm_piece_sum launch (the sorted entries, the pieces and their order), then times
that launch again against bench/probes/affine_pieces.cu on the very same arguments, at several lane counts (pieces a
thread sums side by side, one inversion a step for all of them) and with either shared inversion (the binary GCD's,
bench/probes/fq_inverse_gcd.cuh, or Fermat's). Every variant's piece sums must equal msm_piece_sum's as affine
points, limb for limb: a mismatch is an error, exit 1.

Method (/work/.library/device/METHOD.md): one warm-up call, then the median of --repeats calls timed with CUDA
events; the affine kernel runs one grid-stride wave of resident threads (AFFINE_PIECES_G1_BLOCKS_PER_SM blocks of 128
an SM for G1, 1 for G2). Its scratch (the lanes' accumulators, prefixes and cursors) is allocated once, outside the
timing.
"""
from __future__ import annotations

import argparse
import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm: the CUDA-event timer, the random inputs

import gpu.msm  # noqa: E402
from conformance.timing import code_label  # noqa: E402
from gpu.points import G1_GROUP, G2_GROUP, THREADS_PER_BLOCK, Group, backend, u32  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from probe_build import PROBE_DIR, UNWRITTEN, probe_module, write_records  # noqa: E402

PROBE_SOURCE = PROBE_DIR / "affine_pieces.cu"
GROUPS = {"g1": G1_GROUP, "g2": G2_GROUP}
BLOCKS_PER_SM = {"g1": 3, "g2": 1}
"""affine_pieces.cu's residency: AFFINE_PIECES_G1_BLOCKS_PER_SM for G1, G2 bounded to 1 block (255 registers)."""
CURSOR_WORDS = 4  # affine_pieces.cu lane_cursor_t
INVERSIONS = ("gcd", "fermat")


@dataclass
class MsmLaunch:
    """One launch of gpu/msm.py, as it made it: its module, kernel, thread count and arguments."""

    module: tuple
    kernel: str
    threads: int
    args: tuple
    owners: tuple = ()
    """Arrays the job table points into (the MSM's bases): kept alive as long as the launch may be run again."""

    def run(self) -> None:
        """The launch again, as gpu/msm.py made it (its outputs rewritten with the same values)."""
        gpu.msm.launch(self.module, self.kernel, self.threads, *self.args)


@dataclass
class PieceSumLaunch(MsmLaunch):
    """One msm_piece_sum launch of a pass (its arguments: the job table, the sorted entries, the pieces and their order,
    and piece_sums, which holds its output)."""

    @property
    def total_pieces(self) -> int:
        return int(self.args[7])

    @property
    def piece_sums(self):
        return self.args[-1]

    @property
    def inputs(self) -> tuple:
        """The arguments affine_pieces.cu takes after its threads and lanes: all but piece_sums."""
        return self.args[:-1]


@contextlib.contextmanager
def captured_msm_launches(kernels, kind=MsmLaunch):
    """While open, every launch of gpu/msm.py runs as usual, and those of the named ``kernels`` are appended to the
    yielded list as ``kind`` (their arguments, outputs included, stay alive through the list)."""
    launches: list = []
    real_launch = gpu.msm.launch

    def launch(module, kernel, threads, *args):
        real_launch(module, kernel, threads, *args)
        if kernel in kernels:
            launches.append(kind(module, kernel, threads, args))

    with mock.patch.object(gpu.msm, "launch", launch):
        yield launches


def captured_piece_sum_launches(group: Group):
    """While open, every msm_piece_sum launch of gpu/msm.py for ``group`` is kept in the yielded list
    (captured_msm_launches)."""
    return captured_msm_launches({group.kernel("msm_piece_sum")}, PieceSumLaunch)


def captured_msm_piece_sum(group: Group, log2_points: int, seed: int) -> PieceSumLaunch:
    """The msm_piece_sum launch of one MSM of 2^log2_points random bases and scalars run through gpu/msm.py as the
    prover runs it (bench_msm's inputs), its bases kept with it."""
    from bench_msm import bases_for, random_scalars

    count = 1 << log2_points
    bases = bases_for(group, count, seed)
    scalars = random_scalars(1, count, seed)
    with captured_piece_sum_launches(group) as launches:
        gpu.msm.MsmEngine(bases, group).msm(scalars, montgomery=False)
    if len(launches) != 1:
        raise RuntimeError(f"expected one msm_piece_sum launch for one MSM of 2^{log2_points}, got {len(launches)}")
    launches[0].owners = (bases,)
    return launches[0]


def scratch(group: Group, threads: int, lanes: int) -> tuple:
    """The lanes' accumulators, prefixes and cursors (affine_pieces.cu), slot = lane * threads + thread."""
    xp = backend().xp
    slots = threads * lanes
    return (xp.empty((slots, group.affine_words), dtype=xp.uint32),
            xp.empty((slots, group.field_words), dtype=xp.uint32),
            xp.empty((slots, CURSOR_WORDS), dtype=xp.uint32))


def affine_arguments(captured: PieceSumLaunch, threads: int, lanes: int, lane_scratch: tuple, out) -> tuple:
    """affine_pieces.cu's arguments for the captured launch's inputs, writing its piece sums to ``out``."""
    return (u32(threads), u32(lanes), *captured.inputs, *lane_scratch, out)


def _launch(module, kernel: str, threads: int, args: tuple) -> None:
    from gpu.device import launch

    launch(module.get_function(kernel), -(-threads // THREADS_PER_BLOCK), THREADS_PER_BLOCK, args, kernel)


def _to_affine(module, group: Group, xyzz):
    xp = backend().xp
    out = xp.empty((xyzz.shape[0], group.affine_words), dtype=xp.uint32)
    _launch(module, group.kernel("xyzz_to_affine"), xyzz.shape[0], (xyzz, u32(xyzz.shape[0]), out))
    return out


def probe_size(log2_points: int, group_name: str, lanes_list, inversions, repeats: int, module, seed: int) -> dict:
    """One MSM of 2^log2_points through gpu/msm.py, its msm_piece_sum launch timed again, and the affine kernel at
    every lane count and inversion on the same arguments, each compared with it."""
    import cupy

    from bench_msm import cuda_time_ms

    group = GROUPS[group_name]
    captured = captured_msm_piece_sum(group, log2_points, seed)
    reference = _to_affine(module, group, captured.piece_sums)
    xyzz_ms, xyzz_runs = cuda_time_ms(captured.run, repeats)
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    resident = sms * BLOCKS_PER_SM[group_name] * THREADS_PER_BLOCK
    pieces = captured.total_pieces
    row = {"log2_points": log2_points, "group": group_name, "pieces": pieces,
           "window_bits": gpu.msm.kernel_window_bits(1 << log2_points), "piece_sum_ms": xyzz_ms, "piece_sum_runs_ms": xyzz_runs,
           "affine": []}
    for lanes in lanes_list:
        threads = min(resident, -(-pieces // lanes))
        lane_scratch = scratch(group, threads, lanes)
        for inversion in inversions:
            kernel = group.kernel(f"affine_piece_sum_{inversion}")
            out = backend().xp.full_like(captured.piece_sums, UNWRITTEN)
            args = affine_arguments(captured, threads, lanes, lane_scratch, out)
            ms, runs = cuda_time_ms(lambda: _launch(module, kernel, threads, args), repeats)
            mismatches = int((_to_affine(module, group, out) != reference).any(axis=1).sum())
            row["affine"].append({"lanes": lanes, "threads": threads, "inversion": inversion, "ms": ms,
                                  "runs_ms": runs, "ratio": ms / xyzz_ms, "mismatches": mismatches})
            print(f"2^{log2_points} {group_name}: lanes {lanes} ({inversion}): {ms:.2f} ms against msm_piece_sum's "
                  f"{xyzz_ms:.2f} ({ms / xyzz_ms:.3f}), {mismatches} mismatches", flush=True)
        del lane_scratch, out
    return row


def table(rows: list[dict], env: dict) -> str:
    gpu_info = env.get("gpu") or {}
    lines = [f"### Batched affine piece sums against msm_piece_sum, same arguments ({gpu_info.get('name', '?')}, "
             f"{code_label(env)}, {env.get('date')})", "",
             "| points | group | c | pieces | msm_piece_sum ms | lanes | inversion | affine ms | affine / msm_piece_sum "
             "| mismatches |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        for variant in row["affine"]:
            lines.append(f"| 2^{row['log2_points']} | {row['group'].upper()} | {row['window_bits']} | "
                         f"{row['pieces']:,} | {row['piece_sum_ms']:.2f} | {variant['lanes']} | {variant['inversion']} "
                         f"| {variant['ms']:.2f} | {variant['ratio']:.3f} | {variant['mismatches']} |")
    return "\n".join(lines)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--group", choices=sorted(GROUPS), default="g1", help="the curve group (default g1)")
    parser.add_argument("--log2-points", type=int, nargs="+", default=[24, 26],
                        help="MSM sizes, 2^n points each (default: 24 26)")
    parser.add_argument("--lanes", type=int, nargs="+", default=[32, 64, 128],
                        help="pieces a thread sums side by side, sharing one inversion a step (default: 32 64 128)")
    parser.add_argument("--inversions", nargs="+", choices=INVERSIONS, default=list(INVERSIONS),
                        help="the shared inversion (default: gcd fermat)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="timed runs after one warm-up, median reported (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random inputs (default 1)")
    add_output_arguments(parser)
    args = parser.parse_args()
    if not all(10 <= n <= 27 for n in args.log2_points) or min(args.lanes) < 1 or args.repeats < 1:
        parser.error("need every --log2-points in 10..27, every --lanes >= 1, --repeats >= 1")
    from gpu_required import require_gpu

    require_gpu()
    from conformance.timing import environment as timing_environment

    env = timing_environment(with_gpu=True)
    module = probe_module(PROBE_SOURCE, (f"-DEC_GROUP={GROUPS[args.group].degree}",))
    rows = [probe_size(n, args.group, args.lanes, args.inversions, args.repeats, module, args.seed)
            for n in args.log2_points]
    text = table(rows, env)
    print(text)
    write_records(args.json, args.md, {"environment": env, "rows": rows}, text)
    bad = [(row["log2_points"], v["lanes"], v["inversion"]) for row in rows for v in row["affine"] if v["mismatches"]]
    if bad:
        print(f"error: the affine piece sums differ from msm_piece_sum's at (log2 points, lanes, inversion) = {bad}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
