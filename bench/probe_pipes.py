"""Probe: issue rates of the integer multiply-add and FP64 fused multiply-add pipes, alone and side by side.

    python3 bench/probe_pipes.py [--iterations 4096] [--waves 4] [--repeats 5] [--json out.json] [--md out.md]

The G1 bucket additions are bound by the 32-bit integer multiply-add pipe (Nsight Compute, bench/RESULTS_vs_sppark.md),
and an Fq product runs at that pipe's rate (bench/RESULTS_probe_pipes.md, this probe's first runs). It could also run
on the FP64 pipe with 52-bit limbs (bench/probes/pipes.cu names the method). This measures what each pipe issues on
this chip and whether the two add up when one thread mixes them: the ceiling such a product could reach; and whether
64-bit integer additions (the carries of such a product's columns) issue beside the FP64 FMAs. The kernels of
bench/probes/pipes.cu run 8 independent chains a thread, 256 threads a block, --waves x 8 blocks a SM. Method
(/work/.library/device/METHOD.md): one warm-up, then the median of --repeats launches timed with CUDA events.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm: the CUDA-event timer

from bench_msm import cuda_time_ms  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu.device import compile_source, launch  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402

PROBE_SOURCE = Path(__file__).resolve().parent / "probes" / "pipes.cu"
THREADS_PER_BLOCK = 256
BLOCKS_PER_SM = 8  # 2048 resident threads an SM
OPERATIONS_PER_ITERATION = 16  # pipes.cu: PIPE_CHAINS (8) chains x 2 operations, on each pipe a kernel uses
# ('int': mad.lo + mad.hi; 'int wide': mad.wide.u32, a whole 32 x 32 -> 64-bit limb product; 'int add': add.cc +
# addc, one 64-bit addition; 'fp64': fma.rn.f64)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--iterations", type=int, default=4096, help="loop iterations of each chain, 8 chains a thread (default 4096)")
    parser.add_argument("--waves", type=int, default=4, help="blocks = waves x 8 a streaming multiprocessor (default 4)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs after one warm-up, median reported (default %(default)s)")
    add_output_arguments(parser)
    args = parser.parse_args()
    if not 1 <= args.iterations < 1 << 31 or args.waves < 1 or args.repeats < 1:
        parser.error("--iterations must be in 1 .. 2^31 - 1 (the kernels' int), --waves and --repeats positive")
    require_gpu()
    import cupy

    env = timing_environment(with_gpu=True)
    module = compile_source(PROBE_SOURCE.read_text())
    device = cupy.cuda.Device()
    sms = device.attributes["MultiProcessorCount"]
    clock_hz = device.attributes["ClockRate"] * 1e3  # the attribute is in kHz: the boost clock
    blocks = args.waves * BLOCKS_PER_SM * sms
    threads = blocks * THREADS_PER_BLOCK
    out = cupy.empty(threads, dtype=cupy.uint32)
    wide_out = cupy.empty(threads, dtype=cupy.uint64)
    fout = cupy.empty(threads, dtype=cupy.float64)
    seed, fseed, iterations = np.uint32(0x9E3779B9), np.float64(1.0000001), np.int32(args.iterations)
    # pipes.cu's kernels: the pipes each uses, and the integer chains' output (u32, or u64 for the 64-bit chains)
    kernels = {"imad": (("int",), out), "dfma": (("fp64",), out), "both": (("int", "fp64"), out),
               "imad_wide": (("int wide",), wide_out), "wide_both": (("int wide", "fp64"), wide_out),
               "iadd": (("int add",), wide_out), "iadd_both": (("int add", "fp64"), wide_out)}

    def runner(name, int_out):
        return lambda: launch(module.get_function(f"probe_{name}"), blocks, THREADS_PER_BLOCK,
                              (seed, fseed, iterations, int_out, fout), f"probe_{name}")

    rows = []
    for name, (pipes, int_out) in kernels.items():
        ms, runs = cuda_time_ms(runner(name, int_out), args.repeats)
        per_pipe = threads * args.iterations * OPERATIONS_PER_ITERATION
        total = per_pipe * len(pipes)
        rows.append({"kernel": name, "pipes": sorted(pipes), "ms": ms, "runs_ms": runs, "operations": total,
                     "tera_ops_per_s": total / (ms * 1e-3) / 1e12,
                     "ops_per_sm_per_clock": total / (ms * 1e-3) / sms / clock_hz})
    gpu = env.get("gpu") or {}
    lines = [f"### Pipe issue rates ({gpu.get('name', '?')}, {sms} SMs at {clock_hz / 1e9:.2f} GHz boost, "
             f"{code_label(env)}, {env.get('date')})", "",
             "| kernel | pipes | ms | operations | T ops/s | ops an SM a clock |", "|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['kernel']} | {' + '.join(row['pipes'])} | {row['ms']:.3f} | {row['operations']:,} | "
                     f"{row['tera_ops_per_s']:.2f} | {row['ops_per_sm_per_clock']:.1f} |")
    text = "\n".join(lines)
    print(text)
    if args.json:
        args.json.write_text(json.dumps({"environment": env, "command": " ".join(sys.argv), "rows": rows}, indent=1))
    if args.md:
        args.md.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
