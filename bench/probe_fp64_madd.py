"""Probe: the G1 bucket addition on FP64 products against ec.cuh's, on the same gathers, in one call.

    python3 bench/probe_fp64_madd.py [--log2-points 16 20] [--steps 64] [--waves 2] [--repeats 5]
                                     [--json out.json] [--md out.md]

bench/probe_fp64_product.py times the Montgomery product alone; a bucket addition also adds, subtracts and keeps its
values in range between products, on the ALU that the FP64 product shares. This times the whole mixed XYZZ addition
(madd-2008-s) both ways: bench/probes/fp64_madd.cu's probe_madd_ec_g1 (ec.cuh's xyzz_add_affine, what msm_piece_sum
runs) and probe_madd_fp64_g1 (the same formulas on bench/probes/fp64_field.cuh), each thread summing --steps
pseudo-random gathers of 2^log2-points bases (2^16: 6 MiB, within the L2 cache, the arithmetic alone; 2^20: 96 MiB,
beyond it, as a bucket's gathers are). The FP64 kernel is built four ways (VARIANTS: products out of line or inlined;
2 or 3 blocks of 128 an SM); ec.cuh's at msm_piece_sum_g1's residency (3 blocks). Before timing, every thread's sum of
each FP64 variant must equal ec.cuh's, word for word (exit 1 otherwise). Method (/work/.library/device/METHOD.md):
one warm-up call, then the median of --repeats calls timed with CUDA events.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm: the CUDA-event timer; probe_build

from py_ecc.optimized_bls12_381 import G1, curve_order, multiply  # noqa: E402

from bench_msm import cuda_time_ms  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu.device import launch  # noqa: E402
from gpu.msm import progression_bases  # noqa: E402
from gpu.points import G1_GROUP, backend, u32  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from probe_build import PROBE_DIR, UNWRITTEN, probe_module, write_records  # noqa: E402

PROBE_SOURCE = PROBE_DIR / "fp64_madd.cu"
THREADS_PER_BLOCK = 128  # fp64_madd.cu PROBE_THREADS_PER_BLOCK
EC_BLOCKS_PER_SM = 3  # probe_madd_ec_g1's launch bound, msm_piece_sum_g1's residency
VARIANTS = {"out of line, 2 blocks": (), "inlined, 2 blocks": ("-DFP64_MADD_INLINE",),
            "out of line, 3 blocks": ("-DPROBE_BLOCKS_PER_SM=3",),
            "inlined, 3 blocks": ("-DFP64_MADD_INLINE", "-DPROBE_BLOCKS_PER_SM=3")}
"""The FP64 kernel's builds: fp64_madd.cu's FP64_MADD_INLINE and PROBE_BLOCKS_PER_SM."""
NS_PER_MS = 1e6


def resources(kernel) -> str:
    """A kernel's registers and local memory a thread, from CuPy's runtime attributes."""
    attributes = kernel.attributes
    return f"{attributes.get('num_regs', '?')}, {attributes.get('local_size_bytes', '?')} B local"


def probe_size(log2_points: int, threads: int, steps: int, repeats: int, modules: dict, seed: int) -> dict:
    """Both kernels over 2^log2_points bases: every FP64 variant's sums compared with ec.cuh's, then each timed."""
    xp = backend().xp
    rng = random.Random(seed)
    a, b = rng.randrange(1, curve_order), rng.randrange(1, curve_order)
    bases = progression_bases(1 << log2_points, multiply(G1, b), multiply(G1, a), G1_GROUP)
    blocks = -(-threads // THREADS_PER_BLOCK)
    additions = threads * (steps - 1)
    arguments = (bases, u32(bases.shape[0]), u32(threads), u32(steps))

    def run(module, kernel, out):
        launch(module.get_function(kernel), blocks, THREADS_PER_BLOCK, (*arguments, out), kernel)

    reference_out = xp.full((threads, G1_GROUP.xyzz_words), UNWRITTEN, dtype=xp.uint32)
    first = next(iter(modules.values()))
    run(first, "probe_madd_ec_g1", reference_out)
    ms, runs = cuda_time_ms(lambda: run(first, "probe_madd_ec_g1", reference_out), repeats)
    rows = {"ec.cuh": {"ms": ms, "runs_ms": runs, "ns_per_addition": ms * NS_PER_MS / additions, "mismatches": 0}}
    for name, module in modules.items():
        out = xp.full_like(reference_out, UNWRITTEN)  # a kernel that writes nothing cannot pass
        run(module, "probe_madd_fp64_g1", out)
        mismatches = int((out != reference_out).any(axis=1).sum())
        ms, runs = cuda_time_ms(lambda: run(module, "probe_madd_fp64_g1", out), repeats)
        rows[f"fp64, {name}"] = {"ms": ms, "runs_ms": runs, "ns_per_addition": ms * NS_PER_MS / additions,
                                 "mismatches": mismatches}
    return {"log2_points": log2_points, "threads": threads, "steps": steps, "additions": additions, "rows": rows}


def table(results: list[dict], env: dict, attributes: dict) -> str:
    gpu = env.get("gpu") or {}
    lines = [f"### G1 mixed XYZZ additions, ec.cuh against FP64 products ({gpu.get('name', '?')}, "
             f"{code_label(env)}, {env.get('date')})", "",
             "| bases | kernel | registers, local memory | ms | ns / addition | / ec.cuh | sums equal ec.cuh's |", "|---|---|---|---|---|---|---|"]
    for result in results:
        ec = result["rows"]["ec.cuh"]["ns_per_addition"]
        for name, row in result["rows"].items():
            lines.append(f"| 2^{result['log2_points']} | {name} | {attributes.get(name, '?')} | {row['ms']:.2f} | "
                         f"{row['ns_per_addition']:.4f} | {row['ns_per_addition'] / ec:.3f} | "
                         f"{'yes' if row['mismatches'] == 0 else 'NO: ' + str(row['mismatches'])} |")
    first = results[0]
    lines += ["", f"{first['threads']:,} threads, {first['steps'] - 1} additions each ({first['additions']:,} a call); "
              "ns of the whole chip an addition."]
    return "\n".join(lines)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--log2-points", type=int, nargs="+", default=[16, 20], help="bases gathered from (default 16 20)")
    parser.add_argument("--steps", type=int, default=64, help="points summed a thread (default 64)")
    parser.add_argument("--waves", type=int, default=2, help="threads = waves x ec.cuh's resident threads (default 2)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls after one warm-up, median reported (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the bases' discrete logs (default 1)")
    add_output_arguments(parser)
    args = parser.parse_args()
    if not all(8 <= n <= 24 for n in args.log2_points) or args.steps < 2 or args.waves < 1 or args.repeats < 1:
        parser.error("need every --log2-points in 8..24, --steps >= 2, --waves >= 1, --repeats >= 1")
    require_gpu()
    import cupy

    env = timing_environment(with_gpu=True)
    modules = {name: probe_module(PROBE_SOURCE, options) for name, options in VARIANTS.items()}
    attributes = {"ec.cuh": resources(next(iter(modules.values())).get_function("probe_madd_ec_g1"))}
    attributes.update({f"fp64, {name}": resources(module.get_function("probe_madd_fp64_g1"))
                       for name, module in modules.items()})
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    threads = args.waves * sms * EC_BLOCKS_PER_SM * THREADS_PER_BLOCK
    results = []
    for log2_points in args.log2_points:
        result = probe_size(log2_points, threads, args.steps, args.repeats, modules, args.seed)
        results.append(result)
        print(f"2^{log2_points}: " + ", ".join(f"{name} {row['ns_per_addition']:.4f} ns ({row['mismatches']} mismatches)"
                                             for name, row in result["rows"].items()), flush=True)
    text = table(results, env, attributes)
    print(text)
    write_records(args.json, args.md, {"environment": env, "registers": attributes, "results": results}, text)
    bad = [(result["log2_points"], name) for result in results for name, row in result["rows"].items() if row["mismatches"]]
    if bad:
        print(f"error: FP64 sums differ from ec.cuh's at {bad}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
