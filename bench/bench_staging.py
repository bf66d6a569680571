"""Staging benchmark: what pinning (page-locking) host memory costs against what it gains on the upload, per GiB, and
the break-even, for the arrays a PoRep-shaped proof uploads (the five key queries and one circuit's witnesses).

    python3 bench/bench_staging.py --out DIR [--log-n 24 27] [--runs 3 1]

No proof is made and no key generated: the host arrays have exactly the sizes of the key queries and the witnesses of
vectors/porep_arrays.py's circuit at each size (porep_sizes, with the A and B densities measured there), filled with a
non-zero pattern so that every page is resident, as staged keys would be. Each array is uploaded by
gpu/staging.upload_arrays (the prover's own code) in each mode, one array at a time (host memory peaks at the arrays
plus the largest one once more):

    pageable      cudaMemcpy from the staged array
    pinned-copy   cudaHostAlloc + copy into it (pin), cudaMemcpyAsync (h2d), cudaFreeHost (unpin)
    registered    cudaHostRegister (pin), cudaMemcpyAsync (h2d), cudaHostUnregister (unpin)
    cupy-asarray  cupy.asarray(array): what the prover did before gpu/staging.py (CuPy stages through its own
                  page-locked pool buffer on every call); for comparison with the earlier 15.6 s at 2^27

Pin and unpin by the wall clock, copies by CUDA events; --runs per size (median and spread over the runs). Writes
DIR/staging.md (the table) and DIR/staging.json (raw numbers, with the timing record under "timings").
Device time: about 25 s at 2^24 with 3 runs, about 80 s at 2^27 with 1 run (44 GiB of keys; 64 GiB of host memory).
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conformance.timing import Stats, code_label, entry, environment, timing_document  # noqa: E402
from gpu.limbs import FR  # noqa: E402
from gpu.points import G1_GROUP, G2_GROUP  # noqa: E402
from gpu.staging import PAGEABLE, PINNED_COPY, STAGINGS, StageTimer, break_even_uploads, upload_arrays  # noqa: E402
from vectors.porep_arrays import porep_sizes  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser, output_folder  # noqa: E402

GIB = 1 << 30
WORD_BYTES = 4
A_AUX_DENSITY = 0.9970
B_AUX_DENSITY = 0.2540
"""Share of aux variables in A and in B of the porep_arrays circuit (measured: RESULTS_prove.json's summaries,
0.9970 and 0.2540 at 2^24 and 2^27); B holds one input (ONE), A all of them."""
FILL_PATTERN = 0xA5A5A5A5
"""Non-zero, so that filling writes (and makes resident) every page."""
ASARRAY = "cupy-asarray"
MODES = (*STAGINGS, ASARRAY)


def array_bytes(log_n: int) -> dict[str, int]:
    """Bytes of each array a one-circuit proof at 2^log_n uploads: key queries (affine points) and the witnesses."""
    sizes = porep_sizes(log_n)
    g1, g2 = G1_GROUP.affine_words * WORD_BYTES, G2_GROUP.affine_words * WORD_BYTES
    b_points = 1 + round(sizes.num_aux * B_AUX_DENSITY)
    return {
        "key_h": (sizes.n - 1) * g1,
        "key_l": sizes.num_aux * g1,
        "key_a": (sizes.num_inputs + round(sizes.num_aux * A_AUX_DENSITY)) * g1,
        "key_b_g1": b_points * g1,
        "key_b_g2": b_points * g2,
        "witnesses": sizes.num_variables * FR.element_bytes,
    }


def filled_host_array(nbytes: int) -> np.ndarray:
    array = np.empty(nbytes // WORD_BYTES, dtype=np.uint32)
    array.fill(FILL_PATTERN)
    return array


def upload_once(name: str, array: np.ndarray, mode: str) -> dict[str, float]:
    """Seconds of each stage of one upload of ``array`` in ``mode`` (pin, h2d, unpin; h2d alone for pageable)."""
    import cupy

    timer = StageTimer()
    if mode == ASARRAY:
        device_array = timer.copy(f"h2d_{name}", cupy.asarray, array)
    else:
        device_array = upload_arrays({name: array}, mode, name, timer)[None][name]
    del device_array
    cupy.get_default_memory_pool().free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()
    return {stage.split("_", 1)[0]: ms / 1000.0 for stage, ms in timer.ms.items()}


def measure(log_n: int, runs: int, say) -> dict:
    """{mode: {array: {stage: [seconds per run]}}} and the arrays' sizes."""
    sizes = array_bytes(log_n)
    results: dict = {mode: {} for mode in MODES}
    for name, nbytes in sizes.items():
        start = time.perf_counter()
        array = filled_host_array(nbytes)
        say(f"2^{log_n} {name}: {nbytes / GIB:.2f} GiB staged in {time.perf_counter() - start:.1f} s")
        upload_once(name, array[: 1 << 20], PINNED_COPY)  # warm-up: CUDA context, CuPy's pools, the copy paths
        for mode in MODES:
            per_stage: dict[str, list[float]] = {}
            for _ in range(runs):
                for stage, seconds in upload_once(name, array, mode).items():
                    per_stage.setdefault(stage, []).append(seconds)
            results[mode][name] = per_stage
            say(f"  {mode:<12} " + ", ".join(f"{s} {statistics.median(v):.3f} s" for s, v in per_stage.items()))
        del array
    return {"log_n": log_n, "runs": runs, "bytes": sizes, "modes": results}


def totals(size: dict) -> dict[str, dict[str, float]]:
    """Per mode: median seconds of each stage summed over the arrays, and the total."""
    out = {}
    for mode, arrays in size["modes"].items():
        stages = {s: sum(statistics.median(per[s]) for per in arrays.values() if s in per) for s in ("pin", "h2d", "unpin")}
        out[mode] = {**stages, "total": sum(stages.values())}
    return out


def summary_rows(size: dict) -> list[dict]:
    """One row per mode: stage seconds, h2d GiB/s, pin cost and upload gain per GiB, break-even uploads."""
    gib = sum(size["bytes"].values()) / GIB
    t = totals(size)
    pageable_h2d = t[PAGEABLE]["h2d"]
    rows = []
    for mode in MODES:
        pin_cost = t[mode]["pin"] + t[mode]["unpin"]
        gain = pageable_h2d - t[mode]["h2d"]
        rows.append({"mode": mode, "gib": gib, **t[mode], "h2d_gib_per_s": gib / t[mode]["h2d"] if t[mode]["h2d"] else None,
                     "pin_s_per_gib": pin_cost / gib, "gain_s_per_gib": gain / gib,
                     "break_even_uploads": break_even_uploads(pin_cost, pageable_h2d, t[mode]["h2d"]) if pin_cost else None})
    return rows


def markdown(sizes: list[dict], env: dict) -> str:
    gpu = env.get("gpu") or {}
    lines = ["# Staging: pinning cost against upload gain (bench/bench_staging.py)", "",
             f"{gpu.get('name')}, driver {gpu.get('driver')}, CuPy {gpu.get('cupy')}, CPU {env.get('cpu')}, "
             f"{code_label(env)}, {env.get('date')}. Arrays: the five key queries and one circuit's witnesses of the "
             "PoRep-shaped circuit at each size, uploaded one at a time. Seconds are medians over the runs, summed over "
             "the arrays. Pin cost = pin + unpin; gain = pageable h2d - this mode's h2d; break-even = uploads of the same "
             "pinned buffer that pay back pinning it once (a one-shot upload pays when total < pageable total).", "",
             "| size | GiB | mode | pin s | h2d s | unpin s | total s | h2d GiB/s | pin s/GiB | gain s/GiB | break-even uploads |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for size in sizes:
        for r in summary_rows(size):
            rate = f"{r['h2d_gib_per_s']:.1f}" if r["h2d_gib_per_s"] else "-"
            even = "-" if r["mode"] in (PAGEABLE, ASARRAY) else ("never" if r["break_even_uploads"] is None else f"{r['break_even_uploads']:.2f}")
            lines.append(f"| 2^{size['log_n']} ({size['runs']} runs) | {r['gib']:.2f} | {r['mode']} | {r['pin']:.3f} | {r['h2d']:.3f} | "
                         f"{r['unpin']:.3f} | {r['total']:.3f} | {rate} | {r['pin_s_per_gib']:.3f} | {r['gain_s_per_gib']:.3f} | {even} |")
    return "\n".join(lines) + "\n"


def timing_entries(sizes: list[dict]) -> list[dict]:
    entries = []
    for size in sizes:
        shape = {"log_n": size["log_n"], "bytes": sum(size["bytes"].values())}
        for mode, arrays in size["modes"].items():
            for name, per_stage in arrays.items():
                for stage, runs in per_stage.items():
                    kind = "copy" if stage == "h2d" else "host"
                    entries.append(entry(f"2^{size['log_n']}", f"gpu {mode}", f"{stage}_{name}", Stats(tuple(runs)), kind, shape))
    return entries


def main(argv=None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=output_folder, required=True,
                        help="folder for staging.md and staging.json (made if missing)")
    parser.add_argument("--log-n", type=int, nargs="+", default=[24, 27], help="sizes (log2 of the domain) (default: 24 27)")
    parser.add_argument("--runs", type=int, nargs="+", default=[3, 1], help="runs per size (one number for all, or one each) (default: 3 1)")
    args = parser.parse_args(argv)
    require_gpu()
    runs = args.runs if len(args.runs) == len(args.log_n) else [args.runs[0]] * len(args.log_n)
    say = lambda message: print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)  # stdout: the table
    env = environment(with_gpu=True)
    say(f"{env['gpu']['name'] if env['gpu'] else 'no GPU'}, {code_label(env)}")
    sizes = [measure(log_n, r, say) for log_n, r in zip(args.log_n, runs)]
    args.out.mkdir(parents=True, exist_ok=True)
    record = timing_document("bench_staging", "bench/bench_staging.py " + " ".join(argv or sys.argv[1:]),
                             timing_entries(sizes), env)
    summary = [{"log_n": s["log_n"], "rows": summary_rows(s)} for s in sizes]
    (args.out / "staging.json").write_text(json.dumps({"sizes": sizes, "summary": summary, "timings": record}, indent=1) + "\n")
    table = markdown(sizes, env)
    (args.out / "staging.md").write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
