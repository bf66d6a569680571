"""Probe: msm_piece_sum's bucket additions on FP64 products, on msm_piece_sum's own arguments, against msm_piece_sum.

    python3 bench/probe_fp64_pieces.py [--log2-points 24 26] [--repeats 5] [--seed 1] [--json out.json] [--md out.md]

bench/probe_fp64_madd.py times the G1 addition on FP64 products on pseudo-random gathers; this times it where it would
run. One G1 MSM of 2^n points with random scalars goes through gpu/msm.py exactly as the prover runs it; the arguments
of its msm_piece_sum launch are kept (bench/probe_affine_pieces.py captured_msm_piece_sum: gpu.msm.launch
wrapped while the MSM runs, no line of the pass copied), that launch is timed again, and bench/probes/fp64_pieces.cu
runs the same pieces, a thread a piece in msm_piece_sum's order, with the FP64 addition (bench/probes/fp64_curve.cuh),
in each build of bench/probe_fp64_madd.py's VARIANTS. Every piece sum must equal msm_piece_sum's word for word (exit 1
otherwise). The msm_piece_sum timed is the one of the tree the call runs. Method (/work/.library/device/METHOD.md):
one warm-up call, then the median of --repeats calls timed with CUDA events.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # the other probes' pieces, bench_msm, probe_build

import gpu.msm  # noqa: E402
from conformance.timing import code_label  # noqa: E402
from gpu.points import G1_GROUP, backend  # noqa: E402
from probe_affine_pieces import captured_msm_piece_sum  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from probe_build import PROBE_DIR, UNWRITTEN, probe_module, write_records  # noqa: E402
from probe_fp64_madd import VARIANTS, resources  # noqa: E402

PROBE_SOURCE = PROBE_DIR / "fp64_pieces.cu"
KERNEL = "fp64_piece_sum_g1"
THREADS_PER_BLOCK = 128  # ec_kernels.cuh EC_THREADS_PER_BLOCK


def piece_sum_arguments(captured, out) -> tuple:
    """fp64_pieces.cu's arguments: the captured launch's inputs, its piece sums written to ``out``."""
    return (*captured.inputs, out)


def probe_size(log2_points: int, repeats: int, modules: dict, seed: int) -> dict:
    """One MSM of 2^log2_points through gpu/msm.py, its msm_piece_sum launch timed again, and every FP64 build on the
    same arguments, each compared with it."""
    from bench_msm import cuda_time_ms
    from gpu.device import launch

    captured = captured_msm_piece_sum(G1_GROUP, log2_points, seed)
    reference = captured.piece_sums.copy()
    ms, runs = cuda_time_ms(captured.run, repeats)
    row = {"log2_points": log2_points, "pieces": captured.total_pieces,
           "window_bits": gpu.msm.kernel_window_bits(1 << log2_points), "msm_piece_sum_ms": ms, "msm_piece_sum_runs_ms": runs,
           "fp64": []}
    blocks = -(-captured.total_pieces // THREADS_PER_BLOCK)
    for name, module in modules.items():
        out = backend().xp.full_like(reference, UNWRITTEN)  # a kernel that writes nothing cannot pass
        args = piece_sum_arguments(captured, out)
        kernel = module.get_function(KERNEL)
        variant_ms, variant_runs = cuda_time_ms(lambda: launch(kernel, blocks, THREADS_PER_BLOCK, args, KERNEL), repeats)
        mismatches = int((out != reference).any(axis=1).sum())
        row["fp64"].append({"build": name, "ms": variant_ms, "runs_ms": variant_runs, "ratio": variant_ms / ms,
                            "mismatches": mismatches})
        print(f"2^{log2_points}: FP64 ({name}) {variant_ms:.2f} ms against msm_piece_sum's {ms:.2f} "
              f"({variant_ms / ms:.3f}), {mismatches} mismatches", flush=True)
    return row


def table(rows: list[dict], env: dict, attributes: dict) -> str:
    gpu_info = env.get("gpu") or {}
    lines = [f"### msm_piece_sum's G1 bucket additions on FP64 products, same arguments ({gpu_info.get('name', '?')}, "
             f"{code_label(env)}, {env.get('date')})", "",
             "| points | c | pieces | msm_piece_sum ms | FP64 build | registers, local memory | FP64 ms "
             "| FP64 / msm_piece_sum | mismatches |", "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        for variant in row["fp64"]:
            lines.append(f"| 2^{row['log2_points']} | {row['window_bits']} | {row['pieces']:,} | "
                         f"{row['msm_piece_sum_ms']:.2f} | {variant['build']} | {attributes.get(variant['build'], '?')} "
                         f"| {variant['ms']:.2f} | {variant['ratio']:.3f} | {variant['mismatches']} |")
    return "\n".join(lines)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--log2-points", type=int, nargs="+", default=[24, 26],
                        help="G1 MSM sizes, 2^n points each (default: 24 26)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs after one warm-up, median reported (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random inputs (default 1)")
    add_output_arguments(parser)
    args = parser.parse_args()
    if not all(10 <= n <= 27 for n in args.log2_points) or args.repeats < 1:
        parser.error("need every --log2-points in 10..27, --repeats >= 1")
    from gpu_required import require_gpu

    require_gpu()
    from conformance.timing import environment as timing_environment

    env = timing_environment(with_gpu=True)
    modules = {name: probe_module(PROBE_SOURCE, ("-DEC_GROUP=1", *options)) for name, options in VARIANTS.items()}
    attributes = {name: resources(module.get_function(KERNEL)) for name, module in modules.items()}
    rows = [probe_size(n, args.repeats, modules, args.seed) for n in args.log2_points]
    text = table(rows, env, attributes)
    print(text)
    write_records(args.json, args.md, {"environment": env, "registers": attributes, "rows": rows}, text)
    bad = [(row["log2_points"], v["build"]) for row in rows for v in row["fp64"] if v["mismatches"]]
    if bad:
        print(f"error: the FP64 piece sums differ from msm_piece_sum's at (log2 points, build) = {bad}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
