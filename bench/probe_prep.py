"""Probe: where the GPU's prep phase spends its time, step by step, on a PoRep-shaped witness.

    python3 bench/probe_prep.py [--log2 27] [--circuits 1] [--repeats 5] [--json out.json]

bench_prove times prep at its boundary (31 ms for one 2^27 circuit, bench/RESULTS_prove.md), but gpu/prep.py is a
chain of CuPy array operations (no kernel of ours), which kernel_times.py cannot split. This times the steps that
gpu/prep.py composes, each called alone on the same inputs with CUDA events (median of --repeats after a warm-up):
value_classes, and for each query its split (split_query_of), the bit packing inside it (_pack_bits) and the gather
of its points' classes, so that a change to prep can aim at the step that costs.

Witness (vectors/porep_arrays.py's shape, synthetic): z = [1, inputs, aux], 328 public inputs, aux values 0 or 1
except 0.1% large values below r; query densities: A over aux 99.70%, B over aux 25.40%, B over inputs only ONE.
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
from conformance.timing import environment as timing_environment  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402

NUM_INPUTS = 329  # ONE and 328 public inputs: a 32 GiB PoRep partition's (bench/RESULTS_prove.md)
LARGE_FRACTION = 0.001
A_AUX_DENSITY = 0.9970
B_AUX_DENSITY = 0.2540
SEED = 2026_12_04


def porep_like_witness(circuits: int, num_aux: int, xp):
    """(circuits, 1 + inputs + aux, 8) uint32 canonical limbs: inputs random below 2^64, aux 0/1 with LARGE_FRACTION
    large values (top limb kept below r's)."""
    rng = np.random.default_rng(SEED)
    variables = NUM_INPUTS + num_aux
    z = np.zeros((circuits, variables, 8), dtype=np.uint32)
    z[:, 0, 0] = 1
    z[:, 1:NUM_INPUTS, :2] = rng.integers(0, 1 << 32, size=(circuits, NUM_INPUTS - 1, 2), dtype=np.uint32)
    z[:, NUM_INPUTS:, 0] = rng.integers(0, 2, size=(circuits, num_aux), dtype=np.uint32)
    large = rng.random((circuits, num_aux)) < LARGE_FRACTION
    c, i = np.nonzero(large)
    z[c, NUM_INPUTS + i, :7] = rng.integers(0, 1 << 32, size=(c.size, 7), dtype=np.uint32)
    return xp.asarray(z)


def densities(num_aux: int):
    """The query densities of the witness above (RESULTS_prove.md's 2^27 PoRep circuit's, drawn at random)."""
    from gpu.circuit import QueryDensity

    rng = np.random.default_rng(SEED + 1)
    b_input = np.zeros(NUM_INPUTS, dtype=bool)
    b_input[0] = True
    return QueryDensity(a_aux=rng.random(num_aux) < A_AUX_DENSITY, b_input=b_input,
                        b_aux=rng.random(num_aux) < B_AUX_DENSITY)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--log2", type=int, default=27, help="aux variables: 2^LOG2 - 329 (a 2^LOG2 circuit's) (default: 27)")
    parser.add_argument("--circuits", type=int, default=1, help="circuits (witnesses) prepared in one call (default 1)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs after one warm-up, median reported (default %(default)s)")
    add_output_arguments(parser, md_help=None)
    args = parser.parse_args()
    if not 10 <= args.log2 <= 28 or args.circuits < 1 or args.repeats < 1:
        parser.error("--log2 must be in 10 .. 28, --circuits and --repeats positive")
    require_gpu()
    import cupy

    from gpu import prep as gpu_prep
    from reference.prep import WORD_BITS

    num_aux = (1 << args.log2) - NUM_INPUTS
    z = porep_like_witness(args.circuits, num_aux, cupy)
    density = densities(num_aux)
    variables = {q: cupy.asarray(v) for q, v in density.query_variables(NUM_INPUTS).items()}
    rows = {}

    def timed(name, run):
        median, times = cuda_time_ms(run, args.repeats)
        rows[name] = {"median_ms": median, "ms": times}
        print(f"{name:40s} {median:9.3f} ms", flush=True)

    timed("prep (whole phase)", lambda: gpu_prep.prep(z, NUM_INPUTS, num_aux, density, variables))
    timed("value_classes", lambda: gpu_prep.value_classes(z))
    classes = gpu_prep.value_classes(z)
    for query, index in variables.items():
        timed(f"split {query} ({index.size} points)",
              lambda: gpu_prep.split_query_of(z, index, NUM_INPUTS, classes))
        bits = classes.is_one[:, index] & ~(index < NUM_INPUTS)[None, :]
        words = -(-int(index.size) // WORD_BITS)
        timed(f"  _pack_bits {query}", lambda: gpu_prep._pack_bits(bits, words, cupy))
        timed(f"  gather is_one[:, index] {query}", lambda: classes.is_one[:, index])
    record = {"environment": timing_environment(with_gpu=True), "log2": args.log2, "circuits": args.circuits,
              "num_aux": num_aux, "rows": rows}
    if args.json:
        args.json.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
