"""Benchmark the GPU NTTs and the ntt_h phase; print a table and save it as markdown.

usage: python bench/bench_ntt.py OUTPUT.md [--sizes 16,20,24,26,27] [--repeats 5] [--batch 4] [--json FILE]

Method: device-resident random non-zero inputs (each element < 2^254 < r, bit 0 set), output and
scratch buffers allocated before timing, two warm-up calls (module load, twiddle tables), then the
median of ``--repeats`` calls timed with CUDA events on the current stream. ntt_h is timed on two routes: keeping its
inputs (rows ``ntt_h``, the work buffers from CuPy's pool) and as the prover calls it, its inputs consumed as work
buffers (row ``ntt_h_consumed``, one circuit, the inputs refilled before each call outside the timed interval).

Besides the times it measures the two ceilings the results are judged against: device-to-device
copy bandwidth (bytes read plus written) and Montgomery multiplication throughput of field.cuh
(every build in gpu.field.BUILDS), and prints for every row the modeled bytes moved and Fr products, the
time each would take at those ceilings, and which one bounds the row. --json FILE holds the rows (every
run's time), the ceilings and, under "timings", the timing record (conformance/TIMING_SCHEMA.md) of the rows that
``python -m conformance compare`` reads.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # gpu_required, output_folders

import numpy as np  # noqa: E402

from conformance.timing import Stats, code_label, entry, timing_document  # noqa: E402
from conformance.timing import environment as timing_environment  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments, output_path  # noqa: E402

DEFAULT_SIZES = (16, 20, 24, 26, 27)
WARMUP_CALLS = 2
GOALS_MS = {("forward", 24): 4.0, ("forward", 27): 38.0}
"""Targets for one forward NTT (a mature CUDA library: 4.76 ms at 2^24, 44.4 ms at 2^27)."""
COPY_PROBE_BYTES = 4 << 30
MUL_PROBE_ELEMENTS = 1 << 20
MUL_PROBE_CHAIN = 256
ELEMENT_BYTES = 32
MEMORY_MARGIN = 0.9
"""Use at most this fraction of free memory for the batched ntt_h inputs and work buffers."""
TRANSFORMS = ("forward", "inverse", "coset_forward", "coset_inverse")
TOP_LIMB_MASK = 0x3FFFFFFF
"""Masking limb 7 to 30 bits keeps a random element below 2^254 < r."""
HALF_LIMB_BITS = 16
MS_PER_S = 1000.0
TOOL = "bench_ntt"
CONSUMED_NTT_H = "ntt_h_consumed"
"""The row of ntt_h on the prover's route (consumed_ntt_h_times), one circuit, with the large tables that fit (as
the prover's memory plan takes them for one circuit: at 2^27 the half table and both coset tables; ten circuits take
no coset table, bench/RESULTS_prove.md)."""


def random_nonzero(shape: tuple, seed: int):
    """Random Montgomery-form Fr elements, each in [1, 2^254): top limb masked, bit 0 set."""
    import cupy

    rs = cupy.random.RandomState(seed)
    half = 1 << HALF_LIMB_BITS
    x = (rs.randint(0, half, size=shape + (8,), dtype=cupy.uint32) << HALF_LIMB_BITS) | rs.randint(
        0, half, size=shape + (8,), dtype=cupy.uint32
    )
    x[..., 7] &= TOP_LIMB_MASK
    x[..., 0] |= 1
    return x


def time_ms(fn, repeats: int) -> float:
    """Median wall time of fn() on the device, in ms (timed_runs_ms)."""
    return statistics.median(timed_runs_ms(fn, repeats))


def timed_runs_ms(fn, repeats: int, setup=None) -> list[float]:
    """Wall times of ``repeats`` calls of fn() on the device, in ms, by CUDA events after WARMUP_CALLS warm-up calls;
    ``setup()`` before every call, warm-ups included, outside the timed interval (its work precedes the start event on
    the stream)."""
    import cupy

    for _ in range(WARMUP_CALLS):
        if setup:
            setup()
        fn()
    cupy.cuda.get_current_stream().synchronize()
    times = []
    for _ in range(repeats):
        if setup:
            setup()
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return times


def copy_bandwidth(repeats: int) -> float:
    """Device-to-device copy rate in bytes/s, counting bytes read plus bytes written."""
    import cupy

    src = cupy.ones(COPY_PROBE_BYTES // 4, dtype=np.uint32)
    dst = cupy.empty_like(src)
    ms = time_ms(lambda: cupy.copyto(dst, src), repeats)
    return 2 * COPY_PROBE_BYTES / (ms * 1e-3)


def mul_rate(repeats: int, field, build: str) -> float:
    """Montgomery products per second of field.cuh (dependent chains, MUL_PROBE_ELEMENTS threads)."""
    from gpu.field import mul_chain_, to_device, to_ints

    if field.num_limbs == 8:
        x = random_nonzero((MUL_PROBE_ELEMENTS,), 1)
    else:  # Fq: small distinct values, converted to Montgomery form on the device
        x = to_device(list(range(2, 2 + MUL_PROBE_ELEMENTS)), field)
    probe = x[:4].copy()
    expected = [v * pow(v * v, MUL_PROBE_CHAIN, field.modulus) % field.modulus for v in to_ints(probe, field)]
    mul_chain_(probe, MUL_PROBE_CHAIN, field, build)
    assert to_ints(probe, field) == expected, "mul chain gave a wrong product"
    ms = time_ms(lambda: mul_chain_(x, MUL_PROBE_CHAIN, field, build), repeats)
    return MUL_PROBE_ELEMENTS * (MUL_PROBE_CHAIN + 1) / (ms * 1e-3)


def trivial_twiddles_per_element(log_r: int) -> float:
    """Butterfly products a grouped pass of radix 2^log_r skips per element (ntt.cu dif_stages): its last register
    group covers the stages of span 2^(lm - 1) for lm = L .. 1, L = the stages left after the full groups, with low = 0
    in every thread, so that 1 in 2^(lm - 1) of a stage's butterflies has twiddle w^0 = 1 for the whole warp; the
    span-1 stage (lm = 1) is counted as free already. A stage has 1/2 a butterfly per element."""
    from gpu.ntt import REGISTER_STAGES

    last_group = log_r - REGISTER_STAGES * ((log_r - 1) // REGISTER_STAGES)
    return sum(0.5 / (1 << (lm - 1)) for lm in range(2, last_group + 1))


def transform_model(log_n: int, in_scale_mults: int = 0, out_scale_mults: int = 0,
                    half_table: bool = True) -> tuple[float, float]:
    """(Fr products, bytes moved) of one transform of 2^log_n elements, as ntt.cu computes it.

    Per element and pass: (log R - 1) / 2 butterfly products (the span-1 stage has twiddle 1), less those of twiddle 1
    in the last register group of every pass but the last (trivial_twiddles_per_element), plus 1 twiddle product in
    middle passes and in the last 1 with the half table (x * w; its 32-byte entry read from memory, counted) or 2
    without (hi * lo, then x * w); reads and writes 32 bytes per element per pass (the small twiddle tables stay in L2
    and are not counted).
    """
    from gpu.ntt import plan_passes

    radices = plan_passes(log_n)
    per_element = sum((r - 1) / 2 for r in radices) - sum(trivial_twiddles_per_element(r) for r in radices[:-1])
    accesses = len(radices) * 2
    if len(radices) > 1:
        per_element += (len(radices) - 2) * 1 + (1 if half_table else 2)
        accesses += 1 if half_table else 0
    per_element += in_scale_mults + out_scale_mults
    n = 1 << log_n
    return per_element * n, accesses * ELEMENT_BYTES * n


def ntt_h_model(log_n: int, circuits: int, half_table: bool = True, coset_tables: int = 2) -> tuple[float, float]:
    """bellman's route in gpu/ntt_h.py: INTT of a and b with their coset factors g^i / n, their NTTs, B's multiplying
    its outputs by A's (1 product, A read), INTT of c (constant scale: 1 product), and the final coset INTT
    subtracting c's coefficients (read): no element-wise pass of its own. A coset factor is 1 product and its 32-byte
    entry read with its table (the first ``coset_tables`` of gpu/ntt_h.py coset_table_kinds: g^i / n, then the final
    g^-i / (n Z(g))), else 2 products."""
    def coset(k):  # (products, reads) of coset factor k
        return (1, 1) if k < coset_tables else (2, 0)

    (to_mults, to_reads), (from_mults, from_reads) = coset(0), coset(1)
    n = 1 << log_n
    mults, moved = 0.0, 0.0
    for scale, extra_mults, extra_reads in ((to_mults, 0, to_reads), (0, 0, 0), (to_mults, 0, to_reads),
                                            (0, 1, 1), (1, 0, 0), (from_mults, 0, from_reads + 1)):
        m, b = transform_model(log_n, out_scale_mults=scale, half_table=half_table)
        mults, moved = mults + m + extra_mults * n, moved + b + extra_reads * ELEMENT_BYTES * n
    return circuits * mults, circuits * moved


def bench_size(log_n: int, repeats: int, batch: int, rows: list, ceilings: dict) -> None:
    """Time the four transforms, ntt_h (1 and ``batch`` circuits, as many as fit) and ntt_h on the prover's route (one
    circuit, consumed_ntt_h_times) at 2^log_n; append rows."""
    import cupy

    from gpu import ntt
    from gpu.device import free_device_memory
    from gpu.ntt_h import memory_needed, ntt_h

    n = 1 << log_n
    x = random_nonzero((n,), log_n)
    out, scratch = cupy.empty_like(x), cupy.empty_like(x)
    n_inv = pow(n, -1, ntt.R)
    g_inv = pow(ntt.COSET_GENERATOR, -1, ntt.R)
    calls = {
        "forward": (dict(), (0, 0)),
        "inverse": (dict(inverse=True, out_scale=ntt.Scale(n_inv)), (0, 1)),
        "coset_forward": (dict(in_scale=ntt.Scale(1, ntt.COSET_GENERATOR)), (2, 0)),
        "coset_inverse": (dict(inverse=True, out_scale=ntt.Scale(n_inv, g_inv)), (0, 2)),
    }
    for name in TRANSFORMS:
        kwargs, (in_mults, out_mults) = calls[name]
        times = timed_runs_ms(lambda: ntt.transform(x, out=out, scratch=scratch, **kwargs), repeats)
        half_table = ntt.half_table_held(log_n)  # made by the runs if they used it: the route they took
        rows.append(row(name, log_n, 1, times, *transform_model(log_n, in_mults, out_mults, half_table), ceilings))
    x = out = scratch = None  # release before the ntt_h rows
    cupy.get_default_memory_pool().free_all_blocks()

    per_circuit = 3 * n * ELEMENT_BYTES + memory_needed(1, log_n)
    fit = int(free_device_memory() * MEMORY_MARGIN // per_circuit)
    for circuits in sorted({1, max(1, min(batch, fit))}):
        a, b, c = holding_inputs(circuits, log_n)
        times = timed_runs_ms(lambda: ntt_h(a, b, c, log_n), repeats)
        rows.append(row("ntt_h", log_n, circuits, times, *ntt_h_model(log_n, circuits, *tables_held(log_n)), ceilings))
        a = b = c = None
        cupy.get_default_memory_pool().free_all_blocks()

    times = consumed_ntt_h_times(log_n, repeats)
    rows.append(row(CONSUMED_NTT_H, log_n, 1, times, *ntt_h_model(log_n, 1, *tables_held(log_n)), ceilings))
    cupy.get_default_memory_pool().free_all_blocks()


def holding_inputs(circuits: int, log_n: int):
    """ntt_h's a, b, c for ``circuits`` circuits: a and b random non-zero, c = a b, rows that hold (ntt_h refuses a
    non-zero h_(n-1))."""
    from gpu.field import apply_op

    a, b = (random_nonzero((circuits, 1 << log_n), 10 * log_n + k) for k in range(2))
    return a, b, apply_op("mul", a, b)


def tables_held(log_n: int) -> tuple[bool, int]:
    """(half table, coset tables) that ntt_h's runs left cached: held after them only if they used them, the route
    they took (ntt_h_model's arguments)."""
    from gpu import ntt
    from gpu.ntt_h import coset_tables_held

    return ntt.half_table_held(log_n), coset_tables_held(log_n)


def consumed_ntt_h_times(log_n: int, repeats: int) -> list[float]:
    """ntt_h's times on the prover's route: one circuit's a, b, c handed over as its work buffers (consume=True, as
    gpu/prover.py calls it), refilled from kept copies before each call, outside the timed interval. The ntt_h rows
    above keep their inputs (the work buffers come from CuPy's pool), a route the prover does not take."""
    import cupy

    from gpu.ntt_h import ntt_h

    kept = holding_inputs(1, log_n)
    work = tuple(cupy.empty_like(x) for x in kept)

    def refill():
        for buffer, original in zip(work, kept):
            cupy.copyto(buffer, original)

    return timed_runs_ms(lambda: ntt_h(*work, log_n, consume=True), repeats, setup=refill)


def row(op: str, log_n: int, circuits: int, times_ms: list[float], mults: float, moved: float, ceilings: dict) -> dict:
    """One result: the median time and every run's, the floors at copy bandwidth and at the measured Fr rate (the higher
    one named: a model's floor, not what bounds the kernels, which bench/RESULTS_ntt.md measures), and the goal check."""
    ms = statistics.median(times_ms)
    memory_ms = moved / ceilings["copy"] * 1e3
    arithmetic_ms = mults / ceilings["fr_mul"] * 1e3
    goal = GOALS_MS.get((op, log_n))
    return dict(
        op=op, log_n=log_n, circuits=circuits, ms=ms, times_ms=list(times_ms), mults=mults, moved=moved, memory_ms=memory_ms,
        arithmetic_ms=arithmetic_ms, higher_floor="Fr products" if arithmetic_ms > memory_ms else "bytes",
        goal="" if goal is None else (f"<= {goal} ms: met" if ms <= goal else f"<= {goal} ms: missed by {ms - goal:.2f} ms"),
    )  # fmt: skip


def table(rows: list) -> str:
    """The rows as a markdown table."""
    header = (
        "| op | n | circuits | time (ms) | Fr products | bytes moved | at copy bandwidth (ms) "
        "| at measured Fr-mul rate (ms) | higher floor | goal |\n|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = [
        f"| {r['op']} | 2^{r['log_n']} | {r['circuits']} | {r['ms']:.3f} | {r['mults'] / 1e9:.3f} G | "
        f"{r['moved'] / 1e9:.2f} GB | {r['memory_ms']:.2f} | {r['arithmetic_ms']:.2f} | {r['higher_floor']} | {r['goal']} |"
        for r in rows
    ]
    return header + "\n".join(lines) + "\n"


def timing_entries(rows: list) -> list[dict]:
    """The timing record's entries (conformance/TIMING_SCHEMA.md), in seconds: one per row, its timed runs after the
    WARMUP_CALLS warm-up calls; case = size and circuits, phase = the transform or ntt_h."""
    return [entry(f"2^{r['log_n']} x{r['circuits']}", "gpu", r["op"],
                  Stats(tuple(t / MS_PER_S for t in r["times_ms"]), WARMUP_CALLS),
                  shape={"log_n": r["log_n"], "circuits": r["circuits"]}) for r in rows]


def timing_record(rows: list, command: str, env: dict) -> dict:
    """The rows as a timing record (``env``: conformance.timing.environment())."""
    return timing_document(TOOL, command, timing_entries(rows), env)


def _sizes(parser, text: str) -> list[int]:
    """--sizes as distinct log2 sizes the NTT takes (gpu/ntt.py MIN_LOG_N..MAX_LOG_N), or a usage error (exit 2): a
    repeated size would write two records of one case, which compare refuses."""
    from gpu.ntt import MAX_LOG_N, MIN_LOG_N

    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        parser.error(f"--sizes: expected comma-separated integers, got {text!r}")
    if not all(MIN_LOG_N <= size <= MAX_LOG_N for size in sizes) or len(set(sizes)) != len(sizes):
        parser.error(f"--sizes: distinct log2 sizes in {MIN_LOG_N}..{MAX_LOG_N}, got {text!r}")
    return sizes


def main(argv=None) -> int:
    """Measure the ceilings, bench every size, print the table and write it (markdown) to the output path."""
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=output_path, help="markdown file to write the table to")
    parser.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)), help="comma-separated log2 sizes (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per row (median reported; >= 5) (default: 5)")
    parser.add_argument("--batch", type=int, default=4, help="circuits per call for the batched ntt_h rows (default: 4)")
    add_output_arguments(parser, json_help="also write the rows, ceilings and timing record (JSON) here", md_help=None)
    parser.add_argument("--register-stages", type=int, choices=(1, 2, 3),
                        help="build ntt.cu with this many DIF stages a register group (gpu/ntt.py REGISTER_STAGES; "
                        "default: the module's), to time the grouping against one stage at a time")
    args = parser.parse_args(argv)
    if args.repeats < 5:
        parser.error("--repeats must be at least 5")
    sizes = _sizes(parser, args.sizes)
    require_gpu()
    import cupy

    from gpu import ntt
    from gpu.field import BUILDS
    from gpu.limbs import FQ, FR

    if args.register_stages is not None:
        ntt.REGISTER_STAGES = args.register_stages

    props = cupy.cuda.runtime.getDeviceProperties(0)
    gpu_name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    driver = cupy.cuda.runtime.driverGetVersion()
    ceilings = {
        "copy": copy_bandwidth(args.repeats),
    }
    for field in (FR, FQ):
        for build in BUILDS:
            ceilings[f"{field.name}:{build}"] = mul_rate(args.repeats, field, build)
    ceilings["fr_mul"] = ceilings["Fr:ptx"]
    rows: list = []
    for log_n in sizes:
        bench_size(log_n, args.repeats, args.batch, rows, ceilings)
        print(table([r for r in rows if r["log_n"] == log_n]), flush=True)

    env = timing_environment(with_gpu=True)
    text = (
        f"# GPU NTT and ntt_h benchmark\n\n"
        f"- date: {env['date'][:10]}\n- GPU: {gpu_name} (CUDA driver API {driver})\n"
        f"- code: {code_label(env)}; ntt.cu built with {ntt.REGISTER_STAGES} DIF stages a register group (every pass but the last)\n"
        f"- method: bench/bench_ntt.py; CUDA events, {WARMUP_CALLS} warm-up calls, median of {args.repeats}; "
        f"random non-zero device-resident inputs (ntt_h: c = a b, rows that hold); output and scratch preallocated (ntt_h allocates its work "
        f"buffers from CuPy's pool; {CONSUMED_NTT_H}: the prover's route, a, b, c its work buffers, refilled before "
        f"each call, untimed)\n\n"
        f"## Measured ceilings\n\n"
        f"- device-to-device copy: {ceilings['copy'] / 1e12:.2f} TB/s (bytes read + written)\n"
        f"- Montgomery products of field.cuh (one dependent chain of {MUL_PROBE_CHAIN} per thread, "
        f"{MUL_PROBE_ELEMENTS} threads), G/s:\n"
        + "".join(
            f"  - {field.name}: " + ", ".join(f"{b} {ceilings[f'{field.name}:{b}'] / 1e9:.1f}" for b in BUILDS) + "\n"
            for field in (FR, FQ)
        )
        + "  ('ptx' is what the phases use: even/odd CIOS; 'split-chains' the row-by-row CIOS; 'portable' plain C++)\n\n"
        f"## Results\n\n{table(rows)}\n"
        f"'at copy bandwidth' = modeled bytes moved / copy rate; 'at measured Fr-mul rate' = modeled "
        f"products / PTX rate (see transform_model in bench/bench_ntt.py): the larger is the floor.\n"
    )
    args.output.write_text(text)
    if args.json:
        command = "bench/bench_ntt.py " + " ".join(sys.argv[1:] if argv is None else argv)
        record = timing_record(rows, command, env)
        args.json.write_text(json.dumps({"ceilings": ceilings, "rows": rows, "timings": record}, indent=1) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
