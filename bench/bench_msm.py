"""Benchmark of the GPU MSM (G1, G2) and batch addition (G1), device-resident inputs.

    python3 bench/bench_msm.py [--msm-sizes 16 20 22 24] [--g2-sizes 24] [--batch-sizes 24 27] [--repeats 5]
                               [--json results.json] [--budget-s 300]

Method (/work/.library/device/METHOD.md): inputs live on the device before timing; one warm-up run
(module load and NVRTC compilation stay out of the numbers), then the median of --repeats runs,
each timed with CUDA events around the call (which includes the few host synchronizations the
drivers make to size their buffers). Bases are made on the device as (b + i a) G with random a, b
(gpu.msm.progression_bases): valid, distinct points. Scalars are uniformly random below r (top limb
below r's, then taken as Montgomery-form values, as ntt_h hands h over). Batch-addition bitmaps
are random with the stated density of set bits. Sections run while --budget-s allows; the table
of what ran is printed last. --json holds the rows (every run's time) and, under "timings", the
timing record (conformance/TIMING_SCHEMA.md) that ``python -m conformance compare`` reads.
"""
from __future__ import annotations

import datetime
import json
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # sppark_ratio: issue 18's goal table; output_folders

from py_ecc.optimized_bls12_381 import G1, G2, curve_order, multiply  # noqa: E402

from conformance.timing import Stats, entry, timing_document  # noqa: E402
from conformance.timing import environment as timing_environment  # noqa: E402
from gpu.batch_add import BatchAdder  # noqa: E402
from gpu.msm import MsmEngine, kernel_window_bits, progression_bases  # noqa: E402
from gpu.limbs import FR_LIMBS  # noqa: E402
from gpu.points import G1_GROUP, G2_GROUP, backend  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from sppark_ratio import GOALS  # noqa: E402

R_TOP_LIMB = curve_order >> 224
"""r's most significant 32-bit limb: a random top limb below it keeps the scalar below r."""
GOALS_MS = {("msm", op.removesuffix("_msm"), log2): condition[1]
            for (op, log2), conditions in GOALS.items() if op.endswith("_msm")
            for condition in conditions if condition[0] == "max_ms"}
"""Issue 18's MSM goals in milliseconds (one H200, data on the device), read from bench/sppark_ratio.py's GOALS where
the goal table is stated; sizes not listed have no goal. The goals against sppark (the ratios, G2 2^24) are judged
there; batch addition's is the constant below."""
BATCH_GOAL_MS_PER_CIRCUIT = 60.0
"""Issue 4's goal for batch addition (issue 18 sets none): 2^27 G1 bases, 99% of bits set, 10 circuits in one pass,
at most 60 ms a circuit."""
WARMUP_CALLS = 1
MS_PER_S = 1000.0
TOOL = "bench_msm"


def cuda_time_ms(run, repeats: int) -> tuple[float, list[float]]:
    """Median of ``repeats`` CUDA-event timings of run(), after WARMUP_CALLS warm-up calls."""
    import cupy

    for _ in range(WARMUP_CALLS):
        run()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        run()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return statistics.median(times), times


def random_scalars(circuits: int, n: int, seed: int):
    """Device array (circuits, n, 8) of uniformly random limbs with value < r."""
    rng = np.random.default_rng(seed)
    limbs = rng.integers(0, 1 << 32, size=(circuits, n, FR_LIMBS), dtype=np.uint64).astype(np.uint32)
    limbs[..., FR_LIMBS - 1] %= np.uint32(R_TOP_LIMB)
    return backend().xp.asarray(limbs)


def random_bitmaps(circuits: int, n: int, density: float, seed: int):
    """Device array (circuits, ceil(n/32)) uint32: bit i set with probability ``density``."""
    import cupy

    cupy.random.seed(seed)
    words = -(-n // 32)
    out = cupy.empty((circuits, words), dtype=cupy.uint32)
    shifts = cupy.arange(32, dtype=cupy.uint32)
    for c in range(circuits):
        bits = cupy.zeros(words * 32, dtype=cupy.uint32)
        bits[:n] = cupy.random.random(n) < density
        out[c] = (bits.reshape(words, 32) << shifts).sum(axis=1, dtype=cupy.uint32)
        del bits
    return out


def bases_for(group, count: int, seed: int):
    rng = random.Random(seed)
    base = G1 if group is G1_GROUP else G2
    a, b = rng.randrange(1, curve_order), rng.randrange(1, curve_order)
    return progression_bases(count, multiply(base, b), multiply(base, a), group)


def bench_msm(rows: list, log2_sizes: list[int], repeats: int, deadline: float, groups) -> None:
    import cupy

    for group in groups:
        largest = 1 << max(log2_sizes)
        t0 = time.time()
        bases = bases_for(group, largest, seed=1)
        print(f"[{group.name}] generated {largest} bases in {time.time() - t0:.1f} s", flush=True)
        for log2 in log2_sizes:
            if time.time() > deadline:
                print(f"[{group.name}] budget spent: skipping MSM 2^{log2}", flush=True)
                continue
            n = 1 << log2
            engine = MsmEngine(bases[:n], group)
            scalars = random_scalars(1, n, seed=log2)
            median, times = cuda_time_ms(lambda: engine.msm(scalars, montgomery=True), repeats)
            rows.append({"op": "msm", "group": group.name, "log2": log2, "window_bits": kernel_window_bits(n),
                         "median_ms": median, "times_ms": times})
            print(f"[{group.name}] MSM 2^{log2}: median {median:.2f} ms  {['%.2f' % t for t in times]}", flush=True)
            scalars = None  # released (not del: the timed lambda refers to it)
            cupy.get_default_memory_pool().free_all_blocks()
        del bases
        cupy.get_default_memory_pool().free_all_blocks()


def bench_window_sweep(rows: list, log2: int, widths: list[int], repeats: int, deadline: float,
                       circuits: int = 1) -> None:
    """MSM time at 2^log2 for each forced window width c, G1 then G2: the data behind the choice of c. With
    ``circuits`` > 1 each call is one batch of that many MSMs against the same bases (one job a circuit, as msm_h
    proves a batch), so that a lone MSM and a batch of them can be told apart."""
    import cupy

    n = 1 << log2
    for group in (G1_GROUP, G2_GROUP):
        bases = bases_for(group, n, seed=1)
        scalars = random_scalars(circuits, n, seed=log2)
        engine = MsmEngine(bases, group)
        for c in widths:
            if time.time() > deadline:
                print(f"[{group.name}] budget spent: skipping c = {c}", flush=True)
                continue
            median, times = cuda_time_ms(lambda: engine.msm(scalars, montgomery=True, window_bits=c), repeats)
            rows.append({"op": "msm (forced c)", "group": group.name, "log2": log2, "window_bits": c,
                         "circuits": circuits, "median_ms": median, "per_circuit_ms": median / circuits,
                         "times_ms": times})
            print(f"[{group.name}] MSM 2^{log2} x{circuits} c={c}: median {median:.2f} ms", flush=True)
        bases = scalars = engine = None  # released (not del: the timed lambda refers to them)
        cupy.get_default_memory_pool().free_all_blocks()


def bench_batch_add(rows: list, log2_sizes: list[int], repeats: int, deadline: float) -> None:
    import cupy

    for log2 in log2_sizes:
        n = 1 << log2
        t0 = time.time()
        bases = bases_for(G1_GROUP, n, seed=2)
        cupy.get_default_memory_pool().free_all_blocks()
        print(f"[batch] generated {n} G1 bases in {time.time() - t0:.1f} s", flush=True)
        for density in (0.5, 0.99):
            for circuits in (1, 10):
                if time.time() > deadline:
                    print(f"[batch] budget spent: skipping 2^{log2} {density} x{circuits}", flush=True)
                    continue
                bitmaps = random_bitmaps(circuits, n, density, seed=circuits)
                popcounts = None  # counted on the device, inside the timed call
                adder = BatchAdder(bases, G1_GROUP)
                start, stop = cupy.cuda.Event(), cupy.cuda.Event()
                start.record()
                adder.sums(bitmaps, popcounts)
                stop.record()
                stop.synchronize()
                first = cupy.cuda.get_elapsed_time(start, stop)  # includes the total T when dense
                median, times = cuda_time_ms(lambda: adder.sums(bitmaps, popcounts), repeats)
                rows.append({"op": "batch_add", "group": "g1", "log2": log2, "density": density,
                             "circuits": circuits, "first_call_ms": first, "median_ms": median,
                             "per_circuit_ms": median / circuits, "times_ms": times})
                print(f"[batch] 2^{log2} density {density} x{circuits}: first {first:.2f} ms, median "
                      f"{median:.2f} ms ({median / circuits:.2f} ms a circuit)", flush=True)
                bitmaps = None  # released (not del: the timed lambda refers to it)
        del bases
        cupy.get_default_memory_pool().free_all_blocks()


def table(rows: list) -> str:
    lines = ["| op | group | size | c | circuits | density | median ms | per circuit ms | first call ms | goal |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        goal = GOALS_MS.get((r["op"], r["group"], r["log2"]))
        if r["op"] == "batch_add" and r["log2"] == 27 and r["density"] == 0.99 and r["circuits"] == 10:
            goal = BATCH_GOAL_MS_PER_CIRCUIT
        lines.append(
            f"| {r['op']} | {r['group'].upper()} | 2^{r['log2']} | {r.get('window_bits', '')} | "
            f"{r.get('circuits', 1)} | {r.get('density', '')} | {r['median_ms']:.2f} | "
            f"{r.get('per_circuit_ms', r['median_ms']):.2f} | "
            f"{'%.2f' % r['first_call_ms'] if 'first_call_ms' in r else ''} | {goal if goal else ''} |")
    return "\n".join(lines)


def timing_entries(rows: list) -> list[dict]:
    """The timing record's entries (conformance/TIMING_SCHEMA.md), in seconds: one per row, its timed runs. The case
    names what was run (group, size; the forced window width; batch addition's circuits and density), the phase the
    operation. Batch addition's timed first call precedes its warm-up: it is a warm-up run of the row, and also an
    entry of its own (one run: listed by compare, never judged)."""
    entries = []
    for r in rows:
        case, shape = f"{r['group'].upper()} 2^{r['log2']}", {"group": r["group"], "log2": r["log2"]}
        warmup = WARMUP_CALLS
        if r["op"] == "msm (forced c)":
            case, shape = f"{case} c={r['window_bits']}", {**shape, "window_bits": r["window_bits"]}
            if r.get("circuits", 1) > 1:
                case, shape = f"{case} x{r['circuits']}", {**shape, "circuits": r["circuits"]}
        if r["op"] == "batch_add":
            case, shape = f"{case} x{r['circuits']} density {r['density']}", {**shape, "circuits": r["circuits"], "density": r["density"]}
            warmup += 1
            entries.append(entry(case, "gpu", "batch_add_first_call", Stats((r["first_call_ms"] / MS_PER_S,)), shape=shape))
        phase = "batch_add" if r["op"] == "batch_add" else "msm"
        entries.append(entry(case, "gpu", phase, Stats(tuple(t / MS_PER_S for t in r["times_ms"]), warmup), shape=shape))
    return entries


def timing_record(rows: list, command: str, env: dict) -> dict:
    """The rows as a timing record (``env``: conformance.timing.environment())."""
    return timing_document(TOOL, command, timing_entries(rows), env)


MODULES = [("msm.cu", G1_GROUP), ("msm.cu", G2_GROUP), ("batch_add.cu", G1_GROUP), ("batch_add.cu", G2_GROUP)]


def compile_modules() -> None:
    """Build every kernel module (NVRTC) in parallel processes, filling CuPy's on-disk cache so that
    later processes (tests, the benchmark) only load them."""
    import subprocess

    code = ("import sys; sys.path.insert(0, {root!r}); from gpu import device; "
            "device.load_module({file!r}, options={options!r})")
    root = str(Path(__file__).resolve().parents[1])
    t0 = time.time()
    procs = [subprocess.Popen([sys.executable, "-c", code.format(root=root, file=f, options=g.module(f)[1])])
             for f, g in MODULES]
    codes = [p.wait() for p in procs]
    print(f"compiled {len(MODULES)} modules in {time.time() - t0:.1f} s, exit codes {codes}", flush=True)
    if any(codes):
        raise SystemExit("kernel compilation failed")


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--msm-sizes", type=int, nargs="*", default=[16, 20, 22, 24], help="log2 sizes of the G1 MSMs (default: 16 20 22 24; none: skip)")
    parser.add_argument("--g2-sizes", type=int, nargs="*", help="G2 MSM sizes (default: --msm-sizes)")
    parser.add_argument("--batch-sizes", type=int, nargs="*", default=[24, 27], help="log2 sizes of the G1 batch additions (default: 24 27; none: skip)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs a row after one warm-up, median reported (default 5)")
    parser.add_argument("--budget-s", type=float, default=300.0, help="seconds after which rows not yet started are skipped (default 300)")
    parser.add_argument("--sweep-log2", type=int, help="also time this MSM size at each --sweep-bits width")
    parser.add_argument("--sweep-bits", type=int, nargs="*", default=[15, 16, 17, 18, 19, 20],
                        help="window widths c of the --sweep-log2 rows (default: 15 .. 20)")
    parser.add_argument("--sweep-circuits", type=int, default=1,
                        help="MSMs a sweep call computes as one batch (one job a circuit, as msm_h does) (default: 1)")
    add_output_arguments(parser, json_help="also write the rows (every run's time) and the timing record here", md_help=None)
    parser.add_argument("--compile-only", action="store_true", help="build the kernel modules and stop")
    args = parser.parse_args()
    if args.sweep_circuits < 1:
        parser.error("--sweep-circuits must be at least 1")
    require_gpu()
    if args.compile_only:
        compile_modules()
        return
    import cupy

    deadline = time.time() + args.budget_s
    props = cupy.cuda.runtime.getDeviceProperties(0)
    header = {"date": datetime.date.today().isoformat(), "gpu": props["name"].decode(),
              "driver": cupy.cuda.runtime.driverGetVersion(), "repeats": args.repeats}
    print(json.dumps(header), flush=True)
    rows: list = []
    try:
        # G1 MSM, then batch addition, then G2 MSM: the order of the brief's goals, so a short
        # budget drops the least important section.
        if args.msm_sizes:
            bench_msm(rows, args.msm_sizes, args.repeats, deadline, [G1_GROUP])
        if args.batch_sizes:
            bench_batch_add(rows, args.batch_sizes, args.repeats, deadline)
        g2_sizes = args.msm_sizes if args.g2_sizes is None else args.g2_sizes
        if g2_sizes:
            bench_msm(rows, g2_sizes, args.repeats, deadline, [G2_GROUP])
        if args.sweep_log2:
            bench_window_sweep(rows, args.sweep_log2, args.sweep_bits, args.repeats, deadline, args.sweep_circuits)
    finally:
        if args.json:
            record = timing_record(rows, "bench/bench_msm.py " + " ".join(sys.argv[1:]), timing_environment(with_gpu=True))
            args.json.write_text(json.dumps({"header": header, "rows": rows, "timings": record}, indent=1))
        print(table(rows), flush=True)


if __name__ == "__main__":
    main()
