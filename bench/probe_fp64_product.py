"""Probe: the Montgomery product on the FP64 pipe (51-bit limbs) against field.cuh's, for Fr and Fq, in one call.

    python3 bench/probe_fp64_product.py [--log2-elements 20] [--chain 256] [--distinct 4096] [--repeats 5]
                                        [--json out.json] [--md out.md]

Issue 18's goals need the field product faster: the NTT passes and the G1 bucket additions are bound by the integer
multiply-add pipe that field.cuh's products fill (bench/RESULTS_ntt.md, "The pipes, counted"). bench/probes/fp64_field.cuh
computes the same product (for Fq in field.cuh's Montgomery form) with its limb products on the FP64 pipe and its column sums on the integer ALU, two pipes
that issue side by side (bench/RESULTS_probe_pipes.md). This times both on the same values: 2^log2-elements threads,
each one dependent chain x <- x (x^2)^chain, the shape of field.cuh's mul_chain_body, whose rate bench/bench_ntt.py
reports; field.cuh's through gpu/field.py mul_chain_ (what bench_ntt runs), the probe's through
bench/probes/fp64_product.cu. The values are --distinct random elements of each field (seed 1), repeated over the
threads. Before timing, every thread's result of both products is compared with x^(2 chain + 1) computed by Python
(each in its own Montgomery form): a wrong word anywhere is an error, exit 1. Method (/work/.library/device/METHOD.md):
one warm-up call, then the median of --repeats calls timed with CUDA events.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_msm: the CUDA-event timer; probe_build

from bench_msm import cuda_time_ms  # noqa: E402
from conformance.timing import code_label, environment as timing_environment  # noqa: E402
from gpu.device import launch  # noqa: E402
from gpu.limbs import FQ, FR, FieldSpec  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from probe_build import PROBE_DIR, probe_module, write_records  # noqa: E402

PROBE_SOURCE = PROBE_DIR / "fp64_product.cu"
FP64_LIMBS = {"Fr": (5, 51), "Fq": (8, 48)}
"""fp64_field.cuh's limbs an element and their bits (fr_params, fq_params LIMBS, BITS_PER_LIMB): R = 2^(bits limbs),
for Fq field.cuh's own R = 2^384, for Fr 2^255."""
KERNELS = {"Fr": "probe_fp64_chain_fr", "Fq": "probe_fp64_chain_fq"}
THREADS_PER_BLOCK = 256  # gpu/field.py THREADS_PER_BLOCK, field.cuh's chain's block


def fp64_radix(field: FieldSpec) -> int:
    """The Montgomery radix of fp64_field.cuh's form: 2^(bits limbs)."""
    limbs, bits = FP64_LIMBS[field.name]
    return 1 << (bits * limbs)


def fp64_limbs(values: list[int], field: FieldSpec) -> np.ndarray:
    """(len(values), L) uint64: each value's limbs, least significant first (values below the radix)."""
    limbs, bits = FP64_LIMBS[field.name]
    mask = (1 << bits) - 1
    return np.array([[(v >> (bits * k)) & mask for k in range(limbs)] for v in values], dtype=np.uint64)


def fp64_ints(limbs: np.ndarray, field: FieldSpec) -> list[int]:
    """The values of (count, L) limbs of ``field``'s width."""
    bits = FP64_LIMBS[field.name][1]
    return [sum(int(word) << (bits * k) for k, word in enumerate(row)) for row in np.asarray(limbs)]


def chain_power(value: int, chain: int, field: FieldSpec) -> int:
    """value^(2 chain + 1) mod m: what x <- x (x^2)^chain makes of x (as in bench_ntt.py's mul_rate)."""
    return value * pow(value * value, chain, field.modulus) % field.modulus


def probe_field(field: FieldSpec, elements: int, distinct: int, chain: int, repeats: int, module) -> dict:
    """Both chains on the same values: checked, then timed; ms and products a second each."""
    import cupy
    from gpu.field import mul_chain_, to_device

    rng = random.Random(1)
    values = [rng.randrange(1, field.modulus) for _ in range(distinct)]
    tiles = -(-elements // distinct)
    expected = [chain_power(v, chain, field) for v in values]
    m = field.modulus

    def tiled(rows: np.ndarray):
        return cupy.asarray(np.tile(rows, (tiles, 1))[:elements])

    prover_inputs = to_device(values, field)  # field.cuh's Montgomery form, made on the device
    prover_x = cupy.tile(prover_inputs, (tiles, 1))[:elements].copy()
    fp64_x = tiled(fp64_limbs([v * fp64_radix(field) % m for v in values], field))
    kernel = module.get_function(KERNELS[field.name])
    blocks = -(-elements // THREADS_PER_BLOCK)

    def run_fp64(x):
        launch(kernel, blocks, THREADS_PER_BLOCK, (x, np.uint64(elements), np.uint32(chain)), KERNELS[field.name])

    mul_chain_(prover_x, chain, field, "ptx")
    run_fp64(fp64_x)
    prover_expected = to_device(expected, field)
    prover_wrong = int(cupy.count_nonzero((prover_x != cupy.tile(prover_expected, (tiles, 1))[:elements]).any(axis=1)))
    fp64_expected = tiled(fp64_limbs([e * fp64_radix(field) % m for e in expected], field))
    fp64_wrong = int(cupy.count_nonzero((fp64_x != fp64_expected).any(axis=1)))
    if prover_wrong or fp64_wrong:
        raise SystemExit(f"error: {field.name}: wrong chain results: field.cuh {prover_wrong}, fp64 {fp64_wrong} of "
                         f"{elements} threads")
    products = elements * (chain + 1)
    rows = {}
    for name, run in (("field.cuh", lambda: mul_chain_(prover_x, chain, field, "ptx")),
                      ("fp64", lambda: run_fp64(fp64_x))):
        ms, runs = cuda_time_ms(run, repeats)
        rows[name] = {"ms": ms, "runs_ms": runs, "products_per_s": products / (ms * 1e-3)}
    return {"field": field.name, "elements": elements, "chain": chain, "products": products, "checked_threads": elements,
            "rows": rows, "fp64_over_field_cuh": rows["fp64"]["ms"] / rows["field.cuh"]["ms"]}


def table(results: list[dict], env: dict, sms: int, clock_hz: float) -> str:
    gpu = env.get("gpu") or {}
    lines = [f"### Montgomery products, field.cuh against the FP64 pipe ({gpu.get('name', '?')}, {sms} SMs at "
             f"{clock_hz / 1e9:.2f} GHz boost, {code_label(env)}, {env.get('date')})", "",
             "| field | product | ms | G products/s | clocks an SM a product | time / field.cuh |", "|---|---|---|---|---|---|"]
    for result in results:
        for name, row in result["rows"].items():
            rate = row["products_per_s"]
            lines.append(f"| {result['field']} | {name} | {row['ms']:.3f} | {rate / 1e9:.1f} | {sms * clock_hz / rate:.2f} | "
                         f"{row['ms'] / result['rows']['field.cuh']['ms']:.3f} |")
    first = results[0]
    lines += ["", f"{first['elements']} threads, one dependent chain of {first['chain']} products after a squaring each; "
              "every thread's result checked against Python for both products before timing."]
    return "\n".join(lines)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--log2-elements", type=int, default=20, help="threads, one chain each (default 2^20, as bench_ntt)")
    parser.add_argument("--chain", type=int, default=256, help="products a chain after its squaring (default 256, as bench_ntt)")
    parser.add_argument("--distinct", type=int, default=4096, help="distinct random values, repeated over the threads (default 4096)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls after one warm-up, median reported (default 5)")
    add_output_arguments(parser)
    args = parser.parse_args()
    if not 10 <= args.log2_elements <= 26:
        parser.error(f"--log2-elements: {args.log2_elements} is not in 10 .. 26")
    if not 1 <= args.chain < 1 << 31 or args.repeats < 1 or not 1 <= args.distinct <= 1 << args.log2_elements:
        parser.error("--chain must be in 1 .. 2^31 - 1, --repeats positive, --distinct in 1 .. 2^log2-elements")
    require_gpu()
    import cupy

    env = timing_environment(with_gpu=True)
    module = probe_module(PROBE_SOURCE)
    device = cupy.cuda.Device()
    sms = device.attributes["MultiProcessorCount"]
    clock_hz = device.attributes["ClockRate"] * 1e3  # kHz: the boost clock
    results = [probe_field(field, 1 << args.log2_elements, args.distinct, args.chain, args.repeats, module)
               for field in (FR, FQ)]
    text = table(results, env, sms, clock_hz)
    print(text)
    write_records(args.json, args.md, {"environment": env, "sms": sms, "clock_hz": clock_hz, "results": results}, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
