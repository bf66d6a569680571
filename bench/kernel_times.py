"""Per-kernel time of msm_h, ntt_h, tail_msm and the whole proof: which launches take a phase's time (issue 18,
"what limits each phase").

    python3 bench/kernel_times.py [--log2 24] [--repeats 3] [--phases msm_h,ntt_h,tail_msm,prove] [--tail-circuits 10]
                                  [--tail-window-bits C] [--json kernels.json] [--md kernels.md] [--nvtx]
    python3 bench/kernel_times.py --ncu-csv ncu.csv [--title T] [--json F] [--md F]   (an Nsight Compute report)

CUDA-event timer: for the timed calls only, every launch of the project's kernels (gpu.device.launch, and the
points backend through which the MSM launches) is wrapped in two CUDA events on the current stream; the whole
call too. Per kernel label (the launch's ``what``: "msm.cu:msm_piece_sum", "NTT pass 1 of 2^24", ...): launches,
total ms a call, share of the call. The call's time outside those launches is one row: CuPy's own work (cumsum,
zero fills, copies), pool allocation, and the GPU idle while the host waits (the MSM reads two totals back).
One warm-up call first (compilation, twiddle tables); numbers are per call, summed over --repeats calls and
divided. The events add a few microseconds a launch. This is a benchmark's instrument: gpu/ is not changed.
``prove`` runs the whole GPU prover on one PoRep-shaped circuit (bench/bench_prove.py's): each launch's label starts
with its phase ("batch_add: batch_add.cu:batch_add_chunks_g2"), and each phase has a row for its time, taken at its
boundary by the prover's own phase timer, outside its timed launches (prep's CuPy operations, for one).

Nsight Compute (ncu, on the lent H200: Firecracker runtime, /work/.library/device/KINDS.md) times every kernel,
CuPy's included, without the idle gaps, and reads the hardware counters that say what limits each (NCU_METRICS:
SM and memory throughput as % of peak, achieved occupancy, registers): run this script under ncu with --nvtx (the
timed calls are inside the NVTX range "kernel_times") and read the exported report's CSV back with --ncu-csv;
bench/bench_vs_sppark.sh --ncu does both, one phase a process.
"""
from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import json
import stat
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # bench_msm, bench_ntt: the benchmarks' own input makers

from reference.msm import MAX_WINDOW_BITS  # noqa: E402  (the widths gpu/msm.py accepts)
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402

NVTX_RANGE = "kernel_times"
OUTSIDE = "(outside timed launches: CuPy ops, allocation, host waits)"
TOP = 12
NS_PER_UNIT = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}
NCU_TIME_METRIC = "gpu__time_duration.sum"
NCU_METRICS = {
    NCU_TIME_METRIC: "ms",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_pct",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "memory_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy_pct",
    "launch__registers_per_thread": "registers",
}
"""What ncu collects (bench_vs_sppark.sh passes these names): the time and the Speed Of Light pair (SM and memory
throughput, % of peak), achieved occupancy and registers a thread."""
PERCENT_METRICS = ("sm_pct", "memory_pct", "occupancy_pct")
SOL_BUSY_PCT = 60.0
"""Below this % of peak on both SM and memory, Nsight Compute's Speed Of Light rule calls a kernel latency-bound."""
NCU_NAME_COLUMNS = ("Kernel Name", "Function Name", "Demangled Name", "Name")


def cuda_clock():
    """(event maker, elapsed ms between two recorded events): CUDA events on the current stream."""
    import cupy

    return cupy.cuda.Event, cupy.cuda.get_elapsed_time


class LaunchTimer:
    """Records (label, start event, stop event) around every launch made through wrap()'s result, while enabled.
    ``clock``: (event maker, elapsed ms), cuda_clock() unless given (the tests give a host clock)."""

    def __init__(self, clock=None):
        self.records: list = []
        self.enabled = False
        self.phase: str | None = None
        """The prover phase running now (phase_labels sets it): a launch's label is then "phase: what"."""
        self.event, self.elapsed_ms = clock or cuda_clock()

    def wrap(self, launch):
        def timed(kernel, grid, block, args, what: str, **options) -> None:
            if not self.enabled:
                return launch(kernel, grid, block, args, what, **options)
            start, stop = self.event(), self.event()
            start.record()
            launch(kernel, grid, block, args, what, **options)
            stop.record()
            self.records.append((what if self.phase is None else f"{self.phase}: {what}", start, stop))

        return timed

    def per_label_ms(self) -> dict:
        """{label: (launches, total ms)} of the records so far (synchronizes on the last event)."""
        totals: dict = defaultdict(lambda: [0, 0.0])
        if self.records:
            self.records[-1][2].synchronize()
        for label, start, stop in self.records:
            totals[label][0] += 1
            totals[label][1] += self.elapsed_ms(start, stop)
        return {k: tuple(v) for k, v in totals.items()}


@contextlib.contextmanager
def timing_launches(clock=None):
    """A LaunchTimer (disabled until its ``enabled`` is set) hooked into gpu.device.launch (NTT, ntt_h, field ops)
    and the active points backend (MSM)."""
    from gpu import device, points

    timer = LaunchTimer(clock)
    base = points.backend()  # first, so that a backend made now holds the unwrapped device.launch (no double count)
    original = device.launch
    device.launch = timer.wrap(original)
    try:
        with points.use_backend(dataclasses.replace(base, launch=timer.wrap(base.launch))):
            yield timer
    finally:
        device.launch = original


def phase_labels(launches: LaunchTimer, base):
    """A phase timer of class ``base`` (gpu.prover.GpuPhaseTimer, or a stand-in in the tests) that, while a phase
    runs, names it in ``launches``' labels; its ``totals`` keep each phase's time at its boundary."""

    class PhaseLabels(base):
        def run(self, phase: str, fn, *args):
            launches.phase = phase
            try:
                return super().run(phase, fn, *args)
            finally:
                launches.phase = None

    return PhaseLabels()


def time_call(run, repeats: int, nvtx: bool, phase_timer=None) -> dict:
    """One warm-up call, then ``repeats`` timed calls of run() with every launch timed: the breakdown document.
    With ``phase_timer`` (a phase timer class, gpu.prover.GpuPhaseTimer): run(timer) is called with a timer that
    names the running phase in the launches' labels, and each phase gets a row for its time outside its launches."""
    import cupy

    with timing_launches() as timer:
        phases = phase_labels(timer, phase_timer) if phase_timer else None
        call = (lambda: run(phases)) if phases else run
        call()
        cupy.cuda.Device().synchronize()
        if phases:
            phases.totals.clear()  # the warm-up's phases are not timed
        timer.enabled = True
        if nvtx:
            from cupy.cuda import nvtx as marks

            marks.RangePush(NVTX_RANGE)
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        calls = []
        for _ in range(repeats):
            start.record()
            call()
            stop.record()
            stop.synchronize()
            calls.append(cupy.cuda.get_elapsed_time(start, stop))
        if nvtx:
            marks.RangePop()
        per_label = timer.per_label_ms()
    phase_ms = {p: ms / repeats for p, ms in phases.totals.items()} if phases else None
    return breakdown({k: (n / repeats, ms / repeats) for k, (n, ms) in per_label.items()}, calls, phase_ms)


def breakdown(per_label: dict, calls_ms: list[float], phase_ms: dict | None = None) -> dict:
    """{"call_ms": median call, "rows": [{kernel, launches, ms, share}] largest first, then OUTSIDE}; per_label
    holds per-call (launches, ms). The outside row is the mean call minus the timed launches. With ``phase_ms``
    (per-call ms of each phase, timed at its boundary; the labels of its launches start with "phase: "), each phase
    adds a row "phase: OUTSIDE" (its time minus its launches'), and "phases" holds {phase: {ms, in_launches}}."""
    mean_call = sum(calls_ms) / len(calls_ms)
    rows = [{"kernel": k, "launches": n, "ms": ms, "share": ms / mean_call} for k, (n, ms) in per_label.items()]
    phases = {phase: {"ms": ms, "in_launches": sum(launch_ms for k, (_, launch_ms) in per_label.items()
                                                   if k.startswith(f"{phase}: "))}
              for phase, ms in (phase_ms or {}).items()}
    for phase, times in phases.items():
        outside = times["ms"] - times["in_launches"]
        rows.append({"kernel": f"{phase}: {OUTSIDE}", "launches": None, "ms": outside, "share": outside / mean_call})
    rows.sort(key=lambda r: -r["ms"])
    outside = mean_call - sum(r["ms"] for r in rows)
    rows.append({"kernel": OUTSIDE, "launches": None, "ms": outside, "share": outside / mean_call})
    doc = {"call_ms": statistics.median(calls_ms), "calls_ms": calls_ms, "rows": rows}
    if phase_ms is not None:
        doc["phases"] = phases
    return doc


NCU_PAGE_MAX_BYTES = 1 << 32
"""The largest ncu CSV export read (a 2^27 proof's per-launch raw page is a few MB)."""


def read_ncu_page(path: Path, errors: str = "replace") -> str:
    """The text of an ncu CSV export, read only from a regular file of at most NCU_PAGE_MAX_BYTES (a FIFO would block
    the read, a device or a huge file would not end it): ValueError otherwise; a missing or unreadable file raises
    OSError, as reading it would. Shared by kernel_times --ncu-csv, ncu_pipes_summary.py and ncu_source_summary.py."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("not a regular file")
    if info.st_size > NCU_PAGE_MAX_BYTES:
        raise ValueError(f"{info.st_size} bytes; at most {NCU_PAGE_MAX_BYTES} are read")
    return path.read_text(errors=errors)


def read_raw_page(text: str, time_metric: str = NCU_TIME_METRIC) -> tuple[list[str], int, list[list[str]], dict]:
    """ncu's ``--csv --page raw`` output as (header, kernel-name column, one row a launch, {column: unit} from the units
    row under the header, empty when there is none). ValueError for text that is not that page: no CSV rows, no
    kernel name or ``time_metric`` column, a row of another width, a field beyond the csv module's limit."""
    lines = [line for line in text.splitlines() if line.startswith('"')]  # ncu's own ==PROF== lines are not CSV
    try:
        table = list(csv.reader(io.StringIO("\n".join(lines))))
    except csv.Error as exc:
        raise ValueError(f"not CSV: {exc}") from None
    if not table:
        raise ValueError("no CSV rows in the ncu output")
    header = table[0]
    name_col = next((header.index(h) for h in NCU_NAME_COLUMNS if h in header), None)
    if name_col is None or time_metric not in header:
        raise ValueError(f"the ncu CSV lacks a kernel name column or {time_metric}")
    body, units = table[1:], {}
    if any(len(row) != len(header) for row in body):
        raise ValueError(f"a row's width differs from the header's ({len(header)} columns)")
    if body and body[0][name_col] == "":  # the units row
        units, body = dict(enumerate(body[0])), body[1:]
    return header, name_col, body, units


def ns_to_ms(value: float, unit: str) -> float:
    """A time in ncu's unit (ns, us, ms, s or their long names; none: ns) in milliseconds; ValueError for another."""
    if (unit or "nsecond") not in NS_PER_UNIT:
        raise ValueError(f"unknown time unit '{unit}'")
    return value * NS_PER_UNIT[unit or "nsecond"] / 1e6


def parse_ncu_csv(text: str) -> list[dict]:
    """Rows {kernel, launches, ms, and per NCU_METRICS short name its value or None} from ``ncu --import R --csv
    --page raw``, one a kernel name, largest time first: times summed, percentages averaged weighted by time,
    registers the largest. Units come from the units row under the header (times may be in ns, us, ms or s)."""
    header, name_col, body, units = read_raw_page(text)
    columns = {short: header.index(metric) for metric, short in NCU_METRICS.items() if metric in header}
    kernels: dict = {}
    for row in body:
        value = {short: float(row[col].replace(",", "")) if row[col].strip() else None for short, col in columns.items()}
        ms = ns_to_ms(value["ms"], units.get(columns["ms"], ""))
        k = kernels.setdefault(row[name_col], {"kernel": row[name_col], "launches": 0, "ms": 0.0, "_weighted": {}})
        k["launches"] += 1
        k["ms"] += ms
        for short in PERCENT_METRICS:
            if value.get(short) is not None:
                k["_weighted"][short] = k["_weighted"].get(short, 0.0) + value[short] * ms
        if value.get("registers") is not None:
            k["registers"] = max(k.get("registers", 0), int(value["registers"]))
    rows = []
    for k in kernels.values():
        weighted = k.pop("_weighted")
        for short in PERCENT_METRICS:
            k[short] = weighted[short] / k["ms"] if short in weighted and k["ms"] else None
        k.setdefault("registers", None)
        k["limit"] = speed_of_light_limit(k["sm_pct"], k["memory_pct"])
        rows.append(k)
    if not rows:
        raise ValueError("no kernels in the ncu output")
    return sorted(rows, key=lambda r: -r["ms"])


def speed_of_light_limit(sm_pct, memory_pct) -> str | None:
    """Nsight Compute's reading of its Speed Of Light section: the unit nearer its peak limits the kernel; when
    neither reaches SOL_BUSY_PCT of peak, latency (too little work in flight, waits) does."""
    if sm_pct is None or memory_pct is None:
        return None
    if max(sm_pct, memory_pct) < SOL_BUSY_PCT:
        return "latency"
    return "compute (SM)" if sm_pct >= memory_pct else "memory"


def markdown(phases: dict) -> str:
    """One table a phase, the TOP kernels by time and the rest as one line; Nsight Compute's rows add the Speed Of
    Light columns."""
    out = []
    for phase, doc in phases.items():
        rows = doc["rows"]
        sol = any("sm_pct" in r for r in rows)
        out += [f"### {phase}: {doc['call_ms']:.2f} ms a call" if doc.get("call_ms") else f"### {phase}", ""]
        if doc.get("phases"):
            out += phase_summary(doc)
        if sol:
            out += ["| kernel | launches | ms | SM % of peak | memory % of peak | warps active % | registers | limit |",
                    "|---|---|---|---|---|---|---|---|"]
        else:
            out += ["| kernel | launches a call | ms a call | share |", "|---|---|---|---|"]
        top = len(rows) if doc.get("phases") else TOP  # a whole proof's table lists every kernel
        shown = rows if len(rows) <= top + 1 else [r for r in rows if r["kernel"] == OUTSIDE or rows.index(r) < top]
        for r in shown:
            launches = "" if r["launches"] is None else f"{r['launches']:g}"
            if sol:
                cells = [_pct(r["sm_pct"]), _pct(r["memory_pct"]), _pct(r["occupancy_pct"]),
                         "" if r["registers"] is None else str(r["registers"]), r["limit"] or ""]
            else:
                cells = ["" if r.get("share") is None else f"{100 * r['share']:.1f}%"]
            out.append(f"| {r['kernel']} | {launches} | {r['ms']:.3f} | " + " | ".join(cells) + " |")
        if len(shown) < len(rows):
            rest = [r for r in rows if r not in shown]
            out.append(f"| ({len(rest)} more kernels) | | {sum(r['ms'] for r in rest):.3f} |" + " |" * (5 if sol else 1))
        out.append("")
    return "\n".join(out)


def phase_summary(doc: dict) -> list[str]:
    """Lines of a table: per phase its time at its boundary, the part in its timed launches, and its largest kernel."""
    lines = ["| phase | ms a call | in its launches | outside them | largest kernel |", "|---|---|---|---|---|"]
    for phase, times in doc["phases"].items():
        own = [r for r in doc["rows"] if r["kernel"].startswith(f"{phase}: ") and r["launches"] is not None]
        largest = max(own, key=lambda r: r["ms"], default=None)
        name = f"{largest['kernel'][len(phase) + 2:]} ({largest['ms']:.3f} ms)" if largest else ""
        lines.append(f"| {phase} | {times['ms']:.3f} | {times['in_launches']:.3f} | "
                     f"{times['ms'] - times['in_launches']:.3f} | {name} |")
    return lines + [""]


def _pct(value) -> str:
    return "" if value is None else f"{value:.1f}"


def profile_msm_h(log2: int, repeats: int, nvtx: bool) -> dict:
    """gpu.msm_h.msm_h of one circuit's 2^log2 random Montgomery scalars over 2^log2 distinct G1 bases."""
    from bench_msm import bases_for, random_scalars
    from gpu.msm import DeviceBases
    from gpu.msm_h import msm_h
    from gpu.points import G1_GROUP

    n = 1 << log2
    bases = DeviceBases(bases_for(G1_GROUP, n, seed=1), G1_GROUP)
    h = random_scalars(1, n, seed=log2)
    return time_call(lambda: msm_h(h, bases), repeats, nvtx)


def profile_ntt_h(log2: int, repeats: int, nvtx: bool) -> dict:
    """gpu.ntt_h.ntt_h of one circuit at 2^log2 on random a, b and c = a b (rows that hold)."""
    from bench_ntt import random_nonzero
    from gpu.field import apply_op
    from gpu.ntt_h import ntt_h

    a, b = (random_nonzero((1, 1 << log2), 10 * log2 + k) for k in range(2))
    c = apply_op("mul", a, b)
    return time_call(lambda: ntt_h(a, b, c, log2), repeats, nvtx)


MAX_PROFILE_LOG2 = 27
"""The largest size the profiles make inputs for on one H200 (a 2^27 PoRep partition)."""
TAIL_SHARE_OF_AUX = 0.001
"""vectors/porep_arrays.py: the BIG kind, an aux variable with a large value (a tail position of L and A), is
(1 - 0.20) * 0.00125 = 0.1% of aux; every other aux value is 0 or 1 (batch addition)."""
TAIL_BASES_LOG2 = 20
"""The tails index into 2^20 distinct bases a query (a 2^27 key's queries are 12 GiB each; the positions are spread
over the bases either way)."""


def porep_tails(log2: int, circuits: int):
    """(splits, queries) for gpu.tail_msm.tail_msm: PoRep-shaped tails of ``circuits`` circuits at 2^log2. L's tail is
    0.1% of aux, A's the same plus every input (inputs always go to the tail), B's only ONE (B's inputs density); one
    tail layout shared by the circuits (prep's union), each circuit its own random scalars < r, ONE's scalar 1."""
    from types import SimpleNamespace

    import numpy as np

    from bench_msm import bases_for, random_scalars
    from gpu.msm import DeviceBases
    from gpu.points import G1_GROUP, G2_GROUP, backend
    from gpu.prep import DeviceSplit
    from vectors.porep_arrays import porep_sizes

    xp, sizes = backend().xp, porep_sizes(log2)
    bases_count = 1 << min(TAIL_BASES_LOG2, log2)
    big = max(1, int(sizes.num_aux * TAIL_SHARE_OF_AUX))
    rng = np.random.default_rng(log2)
    inputs = np.arange(sizes.num_inputs)  # a query's points start with its inputs (ONE first)
    big_positions = np.sort(rng.choice(np.arange(sizes.num_inputs, bases_count), big, replace=False))
    tail_indices = {"l": big_positions, "a": np.concatenate([inputs, big_positions]), "b": inputs[:1]}
    scalars = {query: random_scalars(circuits, len(indices), seed=k) for k, (query, indices) in enumerate(tail_indices.items())}
    for query in ("a", "b"):  # position 0 is ONE, whose witness value is 1
        scalars[query][:, 0] = xp.asarray(np.array([1] + [0] * 7, dtype=np.uint32))
    splits = {query: DeviceSplit(True, None, xp.asarray(indices), scalars[query]) for query, indices in tail_indices.items()}
    tails = {query: len(indices) for query, indices in tail_indices.items()}
    g1 = DeviceBases(bases_for(G1_GROUP, bases_count, seed=1), G1_GROUP)
    queries = SimpleNamespace(l=g1, a=g1, b_g1=g1, b_g2=DeviceBases(bases_for(G2_GROUP, 1 << 10, seed=2), G2_GROUP))
    print(f"tail_msm at 2^{log2}, {circuits} circuits: tails {tails}", flush=True)
    return splits, queries


def profile_tail_msm(log2: int, repeats: int, nvtx: bool, circuits: int, window_bits: int | None = None) -> dict:
    """gpu.tail_msm.tail_msm on porep_tails(log2, circuits); ``window_bits`` forces c on every job."""
    from gpu.tail_msm import tail_msm

    splits, queries = porep_tails(log2, circuits)
    return time_call(lambda: tail_msm(splits, queries, window_bits), repeats, nvtx)


PROVE_SEED = "bench-prove"
"""bench/bench_prove.py's default seed: the prove profile runs the circuit, witness and keys of its whole-proof runs."""


def profile_prove(log2: int, repeats: int, nvtx: bool) -> dict:
    """gpu.prover.prove_on_device of one PoRep-shaped circuit at 2^log2 (bench/bench_prove.py's circuit, witness and
    test-only keys, built first: about two minutes at 2^27), every launch labelled with its phase."""
    import cupy

    from bench_prove import build
    from gpu.prover import GpuPhaseTimer, plan_batch, prove_on_device

    built = build(log2, PROVE_SEED, 1, check=False)
    circuit, key = built["circuit"], built["key"]
    plan = plan_batch(circuit, key.queries, 1)
    z = cupy.asarray(built["host_z"][:1])
    return time_call(lambda timer: prove_on_device(circuit, key, z, built["rs"][:1], timer=timer, plan=plan),
                     repeats, nvtx, phase_timer=GpuPhaseTimer)


def main(argv=None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2", type=int, default=24, help="log2 of the domain profiled (default 24)")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls a phase after one warm-up (default 3)")
    parser.add_argument("--phases", default="msm_h,ntt_h",
                        help="comma-separated: msm_h, ntt_h, tail_msm, prove (the whole proof, kernels by phase) (default: msm_h,ntt_h)")
    parser.add_argument("--tail-circuits", type=int, default=10, help="circuits of the tail_msm profile (default: 10)")
    parser.add_argument("--tail-window-bits", type=int, help="force the MSM window width c of the tail_msm profile")
    parser.add_argument("--nvtx", action="store_true", help=f"mark the timed calls with the NVTX range {NVTX_RANGE!r}")
    parser.add_argument("--ncu-csv", type=Path, help="only tabulate this ncu CSV export (no GPU needed)")
    parser.add_argument("--title", default="all phases", help="what the --ncu-csv report profiled (its heading) (default: all phases)")
    add_output_arguments(parser, json_help="also write the tables as JSON here", md_help="also write the tables as markdown here")
    args = parser.parse_args(argv)
    profilers = {"msm_h": profile_msm_h, "ntt_h": profile_ntt_h,
                 "tail_msm": lambda log2, repeats, nvtx: profile_tail_msm(log2, repeats, nvtx, args.tail_circuits,
                                                                          args.tail_window_bits),
                 "prove": profile_prove}
    if unknown := set(args.phases.split(",")) - set(profilers):
        parser.error(f"--phases: unknown {', '.join(sorted(unknown))} ({', '.join(profilers)})")
    for name, value, low, high in (("--log2", args.log2, 1, MAX_PROFILE_LOG2), ("--repeats", args.repeats, 1, None),
                                   ("--tail-circuits", args.tail_circuits, 1, None),
                                   ("--tail-window-bits", args.tail_window_bits, 1, MAX_WINDOW_BITS)):
        if value is None:  # --tail-window-bits not given: gpu/msm.py picks c per job
            continue
        if value < low or (high is not None and value > high):
            parser.error(f"{name}: must be at least {low}" + (f" and at most {high}" if high else "") + f", got {value}")
    if args.ncu_csv:
        try:
            rows = parse_ncu_csv(read_ncu_page(args.ncu_csv))
        except (OSError, ValueError, IndexError, KeyError) as exc:  # unreadable, not ncu's CSV, a short or odd row
            print(f"error: --ncu-csv: {args.ncu_csv}: {exc!r}", file=sys.stderr)
            return 2
        phases = {f"{args.title}: Nsight Compute, every kernel in the NVTX range {NVTX_RANGE!r} (all timed calls)":
                  {"call_ms": None, "rows": rows}}
    else:
        from gpu_required import require_gpu

        require_gpu()
        phases = {}
        for phase in args.phases.split(","):
            forced = f", c = {args.tail_window_bits}" if args.tail_window_bits else ""
            circuits = f", {args.tail_circuits} circuits{forced}" if phase == "tail_msm" else ""
            phases[f"{phase} at 2^{args.log2}{circuits} (CUDA events per launch, {args.repeats} calls)"] = profilers[phase](
                args.log2, args.repeats, args.nvtx)
            print(markdown(dict([list(phases.items())[-1]])), flush=True)
    text = markdown(phases)
    if args.md:
        args.md.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(phases, indent=1) + "\n")
    if args.ncu_csv:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
