"""Whole-proof benchmark of the GPU prover on synthetic PoRep-shaped circuits, with correctness checks.

    python3 bench/bench_prove.py [--log-n 20 24 27] [--circuits 1 10] [--runs 3] [--check]
                                 [--seed S] [--key-transfer] [--json out.json]

Per size: the circuit and its witnesses are built on the device (vectors/porep_arrays.py; the witnesses
are then copied to pinned host memory, where a GPU prover stages its witnesses), the test-only keys are generated
on the device (gpu/keygen.py, timed as ``keygen``). Per batch size: the memory plan (a batch that does
not fit is reported with the largest that does), the witness upload (a timed transfer, pinned host
memory), one warm-up proof (module loading and NVRTC compilation stay out of the numbers), then --runs
proofs, each phase timed with CUDA events at its boundary (gpu/prover.py), and each whole proof by the wall clock
(``wall ms``, the timing record's ``whole_run``: prove_on_device's call, host work between the phases and the proofs'
download included; ``total ms`` is the sum of the phases' medians); the table gives the median
of each phase over the runs, and a second one what prove_on_device timed outside the phases (its host stages and
copies, gpu/staging.py) and the wall clock beyond all of it ('unnamed') (``--json`` also holds every run, and the timing record under "timings" that
``python -m conformance compare`` reads). Repeated runs must give identical proofs. ``--check`` verifies circuit 0
(and the last circuit of a batch) with the pairing check and every trapdoor check of gpu/trapdoor.py, in every batch
that runs, and ends with a line a batch saying which were checked and which were not run (does not fit).
BENCH_COMMIT names the commit measured where the checkout has no git history (the device copy). ``--key-transfer`` measures the upload of every key query from host memory (end-to-end time of a
prover whose keys are not already on the device). Peak memory: CuPy's memory-pool high-water mark over
the timed runs (its pool keeps what it allocated), keys and circuit included; the warm-up run's live peak (LivePeak:
the most bytes its arrays held at once, which the held bytes exceed by the pool's cached free blocks), beside the bytes
the memory plan counted; and the pool after each phase of the last timed run (PoolByPhase): which phase raised the
peak.
"""
from __future__ import annotations

import argparse
import datetime
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # gpu_required, output_folders

from conformance.timing import Stats, code_label, commit as measured_commit, entry, gpu_sources, timing_document  # noqa: E402
from conformance.report import markdown_table  # noqa: E402
from conformance.timing import environment as timing_environment  # noqa: E402
from gpu.circuit import DeviceCircuit  # noqa: E402
from gpu.device import release_cached_blocks  # noqa: E402
from gpu.keygen import generate_keys  # noqa: E402
from gpu.ntt import MAX_LOG_N, half_table_held  # noqa: E402
from gpu.ntt_h import coset_tables_held  # noqa: E402
from gpu.prover import BatchTooLargeError, GpuPhaseTimer, plan_batch, prove_on_device  # noqa: E402
from gpu.staging import DOWNLOAD_PROOFS, WHOLE_RUN, stage_kind  # noqa: E402
from gpu_required import require_gpu  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402
from reference.cli import proof_json as proof_to_json  # noqa: E402
from reference.prover import PHASES  # noqa: E402
from reference.setup import trapdoor_from_seed  # noqa: E402
from vectors.porep_arrays import porep_circuit, porep_witnesses  # noqa: E402

GIB = 1 << 30
GOAL_MS_2_27 = 1000.0
"""Issue 5: one PoRep-shaped 2^27 circuit, all phases, data on the device, in <= 1.0 s on one H200."""


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def cupy_pool_bytes() -> tuple[int, int]:
    """(bytes of live arrays, bytes CuPy's default pool holds: those plus its cached free blocks)."""
    import cupy

    pool = cupy.get_default_memory_pool()
    return pool.used_bytes(), pool.total_bytes()


class PoolByPhase(GpuPhaseTimer):
    """GpuPhaseTimer that also reads the memory pool around each phase call (the reads are host counters, outside the
    timed interval): ``pool[phase]`` = {"used_bytes", "held_bytes"}, the largest after any of the phase's calls (one a
    block of circuits), and "grown_bytes", by how much the phase's calls raised the held bytes in all. A run's pool only
    grows from its start (prove_on_device releases the cached blocks), so the held peak is the sum of the phases'
    growth; with several blocks, a phase's largest reading also counts what earlier blocks' other phases added, and only
    the growth says which phase raised the peak."""

    def __init__(self, progress=None, pool_bytes=cupy_pool_bytes):
        super().__init__(progress)
        self._pool_bytes = pool_bytes
        self.pool: dict[str, dict[str, int]] = {}

    def run(self, phase: str, fn, *args):
        _, held_before = self._pool_bytes()
        result = super().run(phase, fn, *args)
        used, held = self._pool_bytes()
        seen = self.pool.get(phase, {"used_bytes": 0, "held_bytes": 0, "grown_bytes": 0})
        self.pool[phase] = {"used_bytes": max(seen["used_bytes"], used), "held_bytes": max(seen["held_bytes"], held),
                            "grown_bytes": seen["grown_bytes"] + held - held_before}
        return result


class LivePeak:
    """CuPy allocator over a memory pool that records the largest bytes of live arrays (the pool's used bytes after
    each allocation), as a context that installs it: a run's high-water mark of what it holds, which the pool's held
    bytes (``peak_bytes``) exceed by its cached free blocks. Python code runs at every allocation, so it measures
    the warm-up run only, never a timed one."""

    def __init__(self, pool, set_allocator=None, get_allocator=None):
        self.pool = pool
        self.peak = 0
        self._set_allocator, self._get_allocator = set_allocator, get_allocator
        self._previous = None

    def __call__(self, size: int):
        memory = self.pool.malloc(size)
        self.peak = max(self.peak, self.pool.used_bytes())
        return memory

    def __enter__(self):
        if self._set_allocator is None:
            import cupy

            self._set_allocator, self._get_allocator = cupy.cuda.set_allocator, cupy.cuda.get_allocator
        self._previous = self._get_allocator()
        self.peak = self.pool.used_bytes()
        self._set_allocator(self)
        return self

    def __exit__(self, *exc):
        self._set_allocator(self._previous)  # the allocator that was in place, whichever it was
        return False


def cuda_ms(fn):
    import cupy

    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    result = fn()
    end.record()
    end.synchronize()
    return result, cupy.cuda.get_elapsed_time(start, end)


def stage_witnesses(arrays, seed: str, count: int):
    """(host_z, rs): witnesses 0..count-1 made on the device one at a time and copied into pinned (page-locked)
    host memory, where a GPU prover stages its witness buffers; rs their (r, s)."""
    import cupy
    import cupyx
    import numpy as np

    host_z = cupyx.empty_pinned((count, arrays.num_variables, 8), dtype=np.uint32)
    rs = []
    for c in range(count):
        z, pair = porep_witnesses(arrays, seed, 1, cupy, first=c)
        z[0].get(out=host_z[c])
        rs += pair
    return host_z, rs


def build(log_n: int, seed: str, max_circuits: int, check: bool) -> dict:
    """The device circuit, host witnesses and device keys for one size, with the time each took."""
    import cupy

    t0 = time.perf_counter()
    arrays = porep_circuit(log_n, seed, xp=cupy)
    summary = arrays.summary()
    host_z, rs = stage_witnesses(arrays, seed, max_circuits)
    circuit = DeviceCircuit.from_arrays(arrays, consume=True)
    del arrays
    cupy.cuda.Device().synchronize()
    built_s = time.perf_counter() - t0
    say(f"2^{log_n}: circuit and {max_circuits} witness(es) built in {built_s:.1f} s: {summary}")
    t0 = time.perf_counter()
    key = generate_keys(circuit, trapdoor_from_seed(seed), keep_scalars=check, progress=say)
    cupy.cuda.Device().synchronize()
    keygen_s = time.perf_counter() - t0
    pool = cupy.get_default_memory_pool()
    resident = pool.used_bytes()
    say(f"2^{log_n}: keys generated in {keygen_s:.1f} s; resident (keys + circuit) {resident / GIB:.1f} GiB")
    return dict(circuit=circuit, key=key, host_z=host_z, rs=rs, summary=summary, built_s=built_s, keygen_s=keygen_s,
                resident_bytes=resident)


def run_batch(built: dict, circuits: int, runs: int, check: bool, rng: random.Random) -> dict:
    import cupy

    circuit, key = built["circuit"], built["key"]
    row = {"log_n": circuit.log_n, "circuits": circuits}
    try:
        plan = plan_batch(circuit, key.queries, circuits)
    except BatchTooLargeError as exc:
        say(f"2^{circuit.log_n} x {circuits}: does not fit: {exc}")
        return {**row, "fits": False, "message": str(exc), "largest": exc.largest}
    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    z, upload_ms = cuda_ms(lambda: cupy.asarray(built["host_z"][:circuits]))
    rs = built["rs"][:circuits]
    with LivePeak(cupy.get_default_memory_pool()) as live:
        warm = prove_on_device(circuit, key, z, rs, plan=plan)
    reference_proofs = [proof_to_json(p) for p in warm.proofs]
    per_run, wall_runs = [], []  # wall_runs: each proof's wall clock (ms)
    for _ in range(runs):
        timer = PoolByPhase()
        start = time.perf_counter()
        result = prove_on_device(circuit, key, z, rs, timer=timer, plan=plan)  # returns with the proofs on the host
        wall_runs.append((time.perf_counter() - start) * 1000.0)
        if [proof_to_json(p) for p in result.proofs] != reference_proofs:
            raise SystemExit(f"2^{circuit.log_n} x {circuits}: repeated runs gave different proofs")
        per_run.append(result.ms)
    phases = {p: statistics.median(ms[p] for ms in per_run) for p in PHASES}
    total, wall = sum(phases.values()), statistics.median(wall_runs)
    stage_runs = {name: [ms[name] for ms in per_run] for name in per_run[0] if name not in PHASES}
    unnamed_runs = [w - sum(ms.values()) for w, ms in zip(wall_runs, per_run)]  # the wall clock that nothing timed
    half_table = half_table_held(circuit.log_n)  # held after the runs only if their memory plan used it
    coset_tables = coset_tables_held(circuit.log_n)  # the same
    row.update(fits=True, block=plan.block, half_table=half_table, coset_tables=coset_tables, phases_ms=phases,
               total_ms=total, per_circuit_ms=total / circuits, wall_ms=wall, wall_runs_ms=wall_runs,
               upload_witnesses_ms=upload_ms, peak_bytes=pool.total_bytes(), live_peak_bytes=live.peak,
               plan_bytes_needed=plan.bytes_needed, plan_bytes_free=plan.bytes_free, runs=runs,
               totals_ms=[sum(ms[p] for p in PHASES) for ms in per_run], phase_runs_ms={p: [ms[p] for ms in per_run] for p in PHASES},
               stage_runs_ms=stage_runs, unnamed_runs_ms=unnamed_runs,
               pool_by_phase={p: timer.pool[p] for p in PHASES if p in timer.pool})  # the last timed run's
    say(f"2^{circuit.log_n} x {circuits}: {total:.1f} ms ({total / circuits:.1f} ms a circuit; wall clock "
        f"{wall:.1f} ms), upload {upload_ms:.1f} ms, "
        f"peak {pool.total_bytes() / GIB:.1f} GiB (live arrays {live.peak / GIB:.1f}; the plan counted "
        f"{plan.bytes_needed / GIB:.1f} of {plan.bytes_free / GIB:.1f} free), NTT half table {'used' if half_table else 'not used'}, coset tables "
        f"{coset_tables}; "
        + ", ".join(f"{p} {phases[p]:.1f}" for p in PHASES)
        + "; outside the phases " + ", ".join(f"{n} {statistics.median(r):.2f}" for n, r in stage_runs.items())
        + f", unnamed {statistics.median(unnamed_runs):.2f}")
    if check:
        # The checks recompute ntt_h and the MSMs outside the prover's memory plan: start them, as a prover call
        # starts, from released chunks (at 2^27 with 10 circuits the check's 4 GiB failed to allocate from pooled
        # bytes split by live arrays; measured on the H200 at c4fbe9c, bench/RESULTS_prove.md).
        release_cached_blocks()
        row["checks"] = run_checks(built, z, warm, sorted({0, circuits - 1}), rng)
    del z
    return row


def run_checks(built: dict, z, run, which: list[int], rng: random.Random) -> list[dict]:
    from gpu.trapdoor import check_circuit, check_pairing

    circuit, key = built["circuit"], built["key"]
    results = []
    for k in which:
        one = z[k : k + 1]
        checks = [check_pairing(key, circuit, one, run.proofs[k])] + check_circuit(circuit, key, one, run.sums[k], rng)
        for c in checks:
            say(f"  circuit {k}: {'ok  ' if c.ok else 'FAIL'} {c.name} {c.detail}")
        results += [{"circuit": k, "check": c.name, "ok": c.ok, "detail": c.detail} for c in checks]
    if not all(r["ok"] for r in results):
        raise SystemExit("a check failed (see above)")
    return results


def key_transfer(built: dict) -> dict:
    """Time the upload of every key query from host memory (each query is copied down, freed on the device, and
    uploaded again with CUDA events around the copy)."""
    import cupy

    out = {}
    for name in ("h", "l", "a", "b_g1", "b_g2"):
        bases = getattr(built["key"].queries, name)
        host = bases.words.get()
        bases.words = None
        bases._engines.clear()
        cupy.get_default_memory_pool().free_all_blocks()
        bases.words, ms = cuda_ms(lambda data=host: cupy.asarray(data))
        out[name] = {"bytes": host.nbytes, "ms": ms}
        del host
    total_ms = sum(v["ms"] for v in out.values())
    total_bytes = sum(v["bytes"] for v in out.values())
    say(f"key upload: {total_bytes / GIB:.1f} GiB in {total_ms:.0f} ms ({total_bytes / GIB / (total_ms / 1000):.1f} GiB/s)")
    return {"queries": out, "total_ms": total_ms, "total_bytes": total_bytes}


def run_multi(log_n: int, seed: str, circuits: int, devices: list[int], runs: int) -> dict:
    """Throughput of one batch spread over ``devices`` (gpu/multi.py's blocks and threads) against the first device
    alone: the circuit and keys are made on every distinct device, the witnesses staged once in pinned host memory;
    each block uploads its witnesses and proves them on its device. Wall clock around the whole call (the GPUs'
    CUDA events cannot be compared across devices), median of ``runs`` after a warm-up."""
    import cupy

    from gpu.multi import run_on_devices, split_blocks

    built = {}
    for d in dict.fromkeys(devices):
        with cupy.cuda.Device(d):
            arrays = porep_circuit(log_n, seed, xp=cupy)
            if not built:
                host_z, rs = stage_witnesses(arrays, seed, circuits)
            circuit = DeviceCircuit.from_arrays(arrays, consume=True)
            del arrays
            built[d] = (circuit, generate_keys(circuit, trapdoor_from_seed(seed)))
            say(f"2^{log_n}: circuit and keys on GPU {d}")

    def timed(on: list[int]) -> tuple[float, list]:
        blocks = split_blocks(circuits, len(on))

        def block(k: int, d: int):
            if not len(blocks[k]):
                return []
            circuit, key = built[d]
            z = cupy.asarray(host_z[blocks[k].start : blocks[k].stop])
            return prove_on_device(circuit, key, z, rs[blocks[k].start : blocks[k].stop]).proofs

        start = time.perf_counter()
        proofs = [p for part in run_on_devices(on, block) for p in part]
        return (time.perf_counter() - start) * 1000.0, proofs

    result = {"log_n": log_n, "circuits": circuits, "devices": devices}
    for label, on in (("one", devices[:1]), ("all", devices)):
        times, proofs = timed_and_compared(timed, on, runs, f"2^{log_n} x {circuits} on GPUs {on}")
        result[label] = {"devices": on, "wall_ms": statistics.median(times), "proofs": proofs}
        say(f"2^{log_n} x {circuits} on GPUs {on}: {statistics.median(times):.1f} ms wall ({statistics.median(times) / circuits:.1f} ms a circuit)")
    if result["one"]["proofs"] != result["all"]["proofs"]:
        raise SystemExit("the multi-GPU run's proofs differ from the one-GPU run's")
    result["speedup"] = result["one"]["wall_ms"] / result["all"]["wall_ms"]
    say(f"2^{log_n} x {circuits}: throughput on {devices} = {result['speedup']:.2f}x one GPU; proofs identical "
        f"(the warm-up and all {runs} timed runs on GPUs {devices[:1]} and on {devices}, {2 * (runs + 1)} calls)")
    for label in ("one", "all"):
        del result[label]["proofs"]
    return result


def timed_and_compared(timed, on: list[int], runs: int, label: str) -> tuple[list[float], list]:
    """A warm-up call of ``timed(on)`` (-> (ms, proofs)) and ``runs`` timed calls: (the timed calls' ms, the proofs as
    JSON); every timed call's proofs must equal the warm-up's, else SystemExit."""
    _, proofs = timed(on)  # warm-up
    reference = [proof_to_json(p) for p in proofs]
    times = []
    for k in range(runs):
        ms, proofs = timed(on)
        if [proof_to_json(p) for p in proofs] != reference:
            raise SystemExit(f"{label}: timed run {k + 1}'s proofs differ from the warm-up run's")
        times.append(ms)
    return times, reference


def check_summary(sizes: list[dict]) -> tuple[list[str], bool]:
    """--check's closing lines, one a batch (checked, with how many checks of which circuits, or not run and why, so
    not checked), then the verdict; and whether the run passes: at least one batch ran, and every batch that ran was
    checked with every check ok. A batch that did not fit is named as not run and not checked, never counted as
    passed."""
    lines, ran, checked, not_run, failed = ["checks, per batch:"], 0, 0, [], 0
    for size in sizes:
        for b in size["batches"]:
            name = f"2^{b['log_n']} x{b['circuits']}"
            if not b.get("fits"):
                why = f"does not fit: largest batch {b.get('largest')}"
                lines.append(f"  {name}: not run ({why}): not checked")
                not_run.append(f"{name} ({why})")
                continue
            ran += 1
            checks = b.get("checks") or []
            if not checks:
                lines.append(f"  {name}: ran, NOT checked")
                failed += 1
                continue
            bad = [c for c in checks if not c["ok"]]
            circuits = sorted({c["circuit"] for c in checks})
            lines.append(f"  {name}: checked circuits {', '.join(map(str, circuits))}: {len(checks) - len(bad)} of "
                         f"{len(checks)} checks ok")
            checked += not bad
            failed += bool(bad)
    unrun = f"; not run, so not checked: {', '.join(not_run)}" if not_run else ""
    if ran == 0:
        lines.append(f"checks: FAIL: no batch fitted on the device, so nothing was checked{unrun}")
        return lines, False
    if failed:
        lines.append(f"checks: FAIL: {failed} of the {ran} batch(es) that ran unchecked or failed a check{unrun}")
        return lines, False
    lines.append(f"checks: every check passed in the {checked} batch(es) that ran{unrun}")
    return lines, True


def timing_entries(sizes: list[dict], seed: str) -> list[dict]:
    """The timing record's entries (conformance/TIMING_SCHEMA.md): every phase of every batch that fit, its timed runs
    (the warm-up proof before them left out), the witness upload (one run), every stage and copy prove_on_device times
    outside the phases (every run; records before 2026-12-06 have the proofs' download only) and each whole proof's
    wall clock (WHOLE_RUN, every run)."""
    entries = []
    for size in sizes:
        for b in size["batches"]:
            if not b["fits"]:
                continue
            case, shape = f"2^{b['log_n']} x{b['circuits']}", {"log_n": b["log_n"], "circuits": b["circuits"], "seed": seed}
            entries += [entry(case, "gpu", p, Stats(tuple(ms / 1000.0 for ms in b["phase_runs_ms"][p]), warmup_runs=1),
                              shape=shape) for p in PHASES]
            entries.append(entry(case, "gpu", "h2d_witnesses", Stats((b["upload_witnesses_ms"] / 1000.0,)), "copy", shape))
            stages = b.get("stage_runs_ms") or {DOWNLOAD_PROOFS: b["download_runs_ms"]}  # (before 2026-12-06: the download only)
            entries += [entry(case, "gpu", name, Stats(tuple(ms / 1000.0 for ms in runs), warmup_runs=1), stage_kind(name), shape)
                        for name, runs in stages.items()]
            if "wall_runs_ms" in b:  # (absent from records made before it was timed)
                entries.append(entry(case, "gpu", WHOLE_RUN, Stats(tuple(ms / 1000.0 for ms in b["wall_runs_ms"]), warmup_runs=1),
                                     "host", shape))
    return entries


def _devices(text: str) -> list[int]:
    return [int(d) for d in text.split(",") if d.strip()]


def main(argv=None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log-n", type=int, nargs="+", default=[20, 24, 27],
                        help=f"domain sizes (log2), 2..{MAX_LOG_N} (default: 20 24 27)")
    parser.add_argument("--circuits", type=int, nargs="+", default=[1, 10], help="batch sizes to time at each size (default: 1 10)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per batch (median reported) (default: 3)")
    parser.add_argument("--seed", default="bench-prove", help="seed of the circuit, witnesses and test-only keys (default: bench-prove)")
    parser.add_argument("--check", action="store_true",
                        help="pairing and trapdoor checks of circuits 0 and last of every batch that runs; the output "
                        "ends with a line a batch (checked, or not run because it does not fit, so not checked) and "
                        "the exit status is 0 only if at least one batch ran and every batch that ran passed every "
                        "check (a batch that does not fit is named as not run, and does not by itself fail the run)")
    parser.add_argument("--key-transfer", action="store_true", help="also time uploading the keys from host memory")
    add_output_arguments(parser, json_help="write the results here", md_help=None)
    parser.add_argument("--devices", type=_devices, metavar="D,D,...",
                        help="instead: the multi-GPU throughput of --circuits[-1] circuits over these devices (one block "
                        "each; a device may repeat to exercise the split on one GPU) against the first device alone")
    args = parser.parse_args(argv)
    if args.devices and (args.check or args.key_transfer):  # the multi-GPU run has neither: it would check nothing
        parser.error("--check and --key-transfer are for the single-device run; --devices times throughput only")
    if args.runs < 1 or min(args.circuits) < 1 or not all(2 <= log_n <= MAX_LOG_N for log_n in args.log_n):
        parser.error(f"--runs and --circuits must be at least 1, --log-n in 2..{MAX_LOG_N}")
    require_gpu()
    import cupy

    if args.devices:
        results = [run_multi(log_n, args.seed, args.circuits[-1], args.devices, args.runs) for log_n in args.log_n]
        if args.json:
            args.json.write_text(json.dumps({"multi_gpu": results}, indent=1))
        return 0

    rng = random.Random(f"{args.seed}|check points")
    props = cupy.cuda.runtime.getDeviceProperties(0)
    commit = measured_commit()  # '+dirty' where the tree differs from HEAD: a patched copy never passes for HEAD
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "gpu": props["name"].decode(), "commit": commit or "unknown", "gpu_sources": gpu_sources(),
            "seed": args.seed}
    say(f"{meta}")
    sizes = []
    for log_n in args.log_n:
        built = build(log_n, args.seed, max(args.circuits), args.check)
        entry = {"log_n": log_n, "summary": built["summary"], "built_s": built["built_s"], "keygen_s": built["keygen_s"],
                 "resident_bytes": built["resident_bytes"], "batches": []}
        for circuits in args.circuits:
            entry["batches"].append(run_batch(built, circuits, args.runs, args.check, rng))
        if args.key_transfer:
            entry["key_transfer"] = key_transfer(built)
        sizes.append(entry)
        del built
        cupy.get_default_memory_pool().free_all_blocks()
        if args.json:
            record = timing_document("bench_prove", "bench/bench_prove.py " + " ".join(sys.argv[1:]),
                                     timing_entries(sizes, args.seed),
                                     timing_environment(with_gpu=True, sources=meta["gpu_sources"]))
            args.json.write_text(json.dumps({"meta": meta, "sizes": sizes, "timings": record}, indent=1))
    print_table(meta, sizes)
    if args.check:
        lines, passed = check_summary(sizes)
        print("\n" + "\n".join(lines))
        if not passed:
            print(f"error: --check: {lines[-1]}", file=sys.stderr)
            return 1
    return 0


def print_table(meta: dict, sizes: list[dict]) -> None:
    print(f"\nGPU {meta['gpu']}, {code_label(meta)}, {meta['date']}")
    header = ("| n | circuits | " + " | ".join(PHASES)
              + " | total ms | wall ms | ms/circuit | witness upload ms | peak GiB | live peak GiB |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for size in sizes:
        for b in size["batches"]:
            if not b["fits"]:
                print(f"| 2^{b['log_n']} | {b['circuits']} | does not fit: largest batch {b['largest']} |")
                continue
            cells = " | ".join(f"{b['phases_ms'][p]:.1f}" for p in PHASES)
            print(f"| 2^{b['log_n']} | {b['circuits']} | {cells} | {b['total_ms']:.1f} | {later_cell(b, 'wall_ms')} | "
                  f"{b['per_circuit_ms']:.1f} | {b['upload_witnesses_ms']:.1f} | {b['peak_bytes'] / GIB:.1f} | "
                  f"{later_cell(b, 'live_peak_bytes', GIB)} |")
    print_pool_table(sizes)
    print_outside_table(sizes)


def print_outside_table(sizes: list[dict]) -> None:
    """What each batch's proofs timed outside the phases (medians, ms): prove_on_device's host stages and copies, and
    'unnamed', the wall clock beyond everything timed (Python between the timers)."""
    batches = [b for size in sizes for b in size["batches"] if b.get("stage_runs_ms")]
    if not batches:
        return
    names = list(dict.fromkeys(n for b in batches for n in b["stage_runs_ms"]))
    print("\nOutside the phases, medians of the timed runs (ms; 'unnamed': wall ms minus every timed phase, stage and copy)")
    print(markdown_table(["n", "circuits", *names, "unnamed"], [
        [f"2^{b['log_n']}", b["circuits"],
         *(f"{statistics.median(b['stage_runs_ms'][n]):.2f}" if n in b["stage_runs_ms"] else "-" for n in names),
         f"{statistics.median(b['unnamed_runs_ms']):.2f}"] for b in batches]))


def later_cell(batch: dict, key: str, unit: float = 1.0) -> str:
    """A value measured from some date on (the wall clock ``wall_ms``; the warm-up run's live peak ``live_peak_bytes``,
    LivePeak, in GiB), in ``unit``; '-' for a document written before it was measured."""
    return f"{batch[key] / unit:.1f}" if key in batch else "-"


def pool_cell(reading: dict) -> str:
    """A phase's pool readings in GiB: live / held after it (the largest over its calls), and what its calls added
    to the held bytes ('+?' for a document written before that was read)."""
    grown = f"+{reading['grown_bytes'] / GIB:.1f}" if "grown_bytes" in reading else "+?"
    return f"{reading['used_bytes'] / GIB:.1f} / {reading['held_bytes'] / GIB:.1f} ({grown})"


def print_pool_table(sizes: list[dict]) -> None:
    """CuPy's pool after each phase of each batch's last timed run, GiB: live arrays / held (PoolByPhase)."""
    batches = [b for size in sizes for b in size["batches"] if b.get("pool_by_phase")]
    if not batches:
        return
    print("\nPool after each phase, last timed run (GiB: live arrays / held, largest over its calls (+ what its calls "
          "added to the held bytes: the phase that raised the peak))")
    print(markdown_table(["n", "circuits", *PHASES], [
        [f"2^{b['log_n']}", b["circuits"], *(pool_cell(b["pool_by_phase"][p]) if p in b["pool_by_phase"] else "-" for p in PHASES)]
        for b in batches]))


if __name__ == "__main__":
    sys.exit(main())
