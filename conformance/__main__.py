"""python -m conformance {run,seeded-cache,gate,faults,compare,pool}: the phase-by-phase conformance suite.

    python -m conformance run                                   # bundled vectors, reference and GPU
    python -m conformance run vectors/data/porep-log05.json --phases ntt_h,msm_h --report out/
    python -m conformance run --require-gpu --record-gate         # on a GPU machine: refresh the CI gate
    python -m conformance run seeded:porep-log16-c2 --backends gpu   # a vector built from a seed now (conformance/seeded.py)
    python -m conformance seeded-cache cache/                    # build the gate's seeded vectors ahead, for run --seeded-cache cache/
    python -m conformance gate                                  # is the committed GPU report current?
    python -m conformance run --coverage                        # also record the kernels launched and gpu/*.py lines run
    python -m conformance compare BASELINE NEW --max-slowdown 5 --report cmp/   # slower beyond noise? (exit 1)
    python -m conformance pool A.json A1.json A2.json           # one record of a tree's rounds (A-B-B-A comparisons)

Exit status: 0 every check passed (phases a backend does not implement, and a missing GPU without
--require-gpu, do not fail); 1 a mismatch or an error in some phase (or a stale or invalid gate, or --record-gate refused
because a kernel of gpu/kernels/ was never launched and is not allow-listed);
2 bad input (unreadable vector, a witness that does not satisfy its circuit, unknown phase or backend,
a run that would check nothing, or that checked nothing of one of its vectors); 3 --require-gpu without a usable GPU.
compare: 0, 1 a phase slower than --max-slowdown beyond noise or an entry it could not judge (INCOMPLETE, unless
--allow-unjudged), 2 bad input, runs that are not comparable, or --max-slowdown with no entry judgeable.
"""
import shlex
import sys
import time
from pathlib import Path

from reference.cli import EXIT_INVALID_PROOF, EXIT_OK, ArgumentParser, Progress, run_main
from reference.errors import InvalidInputError
from reference.prover import PHASES
from reference.safe_files import check_outputs

from .backends import make_backend
from .chart import write_chart
from .faults import FAULT_PREFIX, FAULTS, GPU_FAULTS, write_gpu_fault_table
from .generated import GENERATED_CASES, GENERATED_PREFIX, check_generated, split_names
from .fingerprint import GATE_MIN_REPEAT, GATE_REPORT, gate_verdict, is_repository_root
from .sources import GPU_DIR_NAME, REPO_ROOT, fingerprint, imported_gpu_root
from .independent_library import LIBRARIES, load_library
from .gpu_coverage import ALLOWLIST, CoverageRecorder, UnlaunchedKernelsError, check_gate
from .loading import load_cached, vector_paths
from .phases import MODES, PROVER, Problem, check_phases
from .report import REPORT_FILES, RunInfo, drawn, json_text, markdown_text, report_document, terminal_text
from .runner import ERROR, FAIL, PASS, check_vector
from .seeded import (GATE_VECTORS, REFERENCE_MAX_LOG_N, SEEDED_PREFIX, SeededCache, check_seeded, fill_cache, slow_generation,
                     split_seeded, start_builds)
from .timing import conformance_timings, environment, timings_markdown
from vectors.bundled import bundled_paths
from vectors.format import check_witnesses_satisfied, write_files_atomically

EXIT_MISMATCH = EXIT_INVALID_PROOF
EXIT_GPU_REQUIRED = 3
"""--require-gpu was given and no CUDA device can be used."""
DEFAULT_BACKENDS = "reference,gpu"
DEFAULT_REPEAT = 2
"""Runs of each phase of a backend that is not deterministic by construction (the GPU)."""
GPU = "gpu"
CHECKED_STATUSES = (PASS, FAIL, ERROR)
"""Statuses of a phase that was actually run and judged; a run with none of them checked nothing."""
DEFAULT_REPORT_DIR = "conformance-report"
"""Where report files go without --report (ignored by git: see .gitignore)."""


def _parser() -> ArgumentParser:
    p = ArgumentParser(
        prog="python -m conformance",
        description="Run every prover phase of each backend on shared test vectors and compare the outputs exactly.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser(
        "run",
        help="check backends phase by phase on vectors",
        description="For every vector and phase: each backend's output compared exactly with the vector's expected "
        "output (or an independent oracle), the first differing element named, and the phase timed in each backend. "
        "Progress on stderr, the final table on stdout. Exit 0 pass, 1 mismatch or error, 2 bad input, "
        "3 --require-gpu without a GPU.",
    )
    r.add_argument("vectors", nargs="*", help="vector JSON files or folders of them (default: the bundled vectors/data/*.json), "
                   f"or generated:<name> for a case generated on the GPU and judged by oracles ({', '.join(GENERATED_CASES)}; --record-gate runs them all), "
                   f"or {SEEDED_PREFIX}porep-log<K>[-c<C>] for a vector built from a fixed seed when the run starts, with every expected value, "
                   f"checked like a bundled one (--record-gate runs {', '.join(v.label for v in GATE_VECTORS)}; only GPU backends run above 2^{REFERENCE_MAX_LOG_N})")
    r.add_argument("--backends", default=DEFAULT_BACKENDS, help=f"comma-separated: reference, gpu, fault:<name> (default {DEFAULT_BACKENDS}; `faults` lists the planted faults)")
    r.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated subset of {','.join(PHASES)} (default: all)")
    r.add_argument("--mode", choices=MODES, default="isolated", help="isolated: every phase starts from the vector's expected inputs (default); end-to-end: each backend feeds itself; "
                   "prover: each backend's real prover entry point (the GPU: python -m gpu prove's) on all circuits at once, every phase output captured at its boundary and judged (--record-gate adds this mode to the isolated run)")
    r.add_argument("--oracle", action="store_true", help="judge with the independent oracles (trapdoor, h identity, pairing, reference) instead of the expected values "
                   "(the reference backend keeps the expected values where its judge would be the reference itself)")
    r.add_argument("--oracle-library", metavar="NAME", help="judge msm_h, batch_add, tail_msm and assemble with an "
                   f"independent library ({', '.join(LIBRARIES)}: the optional extra fast, pip install -e '.[fast]'): the MSMs recomputed from "
                   "each phase's inputs and the proofs' pairing check; the other phases keep the judge --oracle chooses")
    r.add_argument("--repeat", type=int, default=DEFAULT_REPEAT, metavar="N", help=f"runs of each GPU phase (default {DEFAULT_REPEAT}): all outputs must be identical, the fastest run's time is reported (the first compiles kernels); report.json's timings keep every run after the first (median, spread: use 6 or more for `compare`)")
    r.add_argument("--report", metavar="DIR", default=DEFAULT_REPORT_DIR, help=f"write report.json, report.md and chart.png into DIR (default {DEFAULT_REPORT_DIR}/)")
    r.add_argument("--require-gpu", action="store_true", help="exit 3 instead of checking the reference only when no CUDA device is usable")
    r.add_argument("--record-gate", action="store_true", help=f"after a passing GPU run over all bundled vectors and phases, write {GATE_REPORT} (implies --require-gpu)")
    r.add_argument("--coverage", action="store_true", help="record which kernels of gpu/kernels/ were launched and which lines of gpu/*.py ran "
                   f"(needs the coverage package: pip install -e '.[gate]'); implied by --record-gate, which also refuses to record "
                   f"while a kernel was never launched and is not in {ALLOWLIST}")
    r.add_argument("--gpus", metavar="N|all", help="run the GPU backend once per GPU: gpu replaced by gpu:0 .. gpu:N-1 "
                   "(all: every visible device; none visible: gpu unavailable, as without --gpus), each named in the report by device number, model and PCI bus id, "
                   "so that one faulty card shows as its own failures")
    r.add_argument("--seeded-cache", metavar="DIR", help="keep the seeded vectors in DIR between runs: one built here is "
                   "written there, one there is read back instead of built, when its seed, size, generator sources and library "
                   "versions are the same (conformance/seeded.py SeededCache; `seeded-cache DIR` fills it ahead). A pickle runs "
                   "code when read: name only a folder this tool wrote")
    r.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    s = sub.add_parser("seeded-cache", help="build seeded vectors into a folder for later runs' --seeded-cache",
                       description="Build each seeded vector (default: the gate's) that DIR does not hold (a file there is read back; "
                       "one that cannot be read, or holds another key, is set aside and built again), side by side in "
                       "child processes, and write it there for `run --seeded-cache DIR`: a GPU machine can build the gate's "
                       "2^20 vector while it does other work, and the gate then reads it instead of building it. Checks nothing. Exit 0 "
                       "when DIR holds them all, 1 when a build failed, 2 bad input.")
    s.add_argument("folder", metavar="DIR", help="the cache folder (made if missing)")
    s.add_argument("vectors", nargs="*", help=f"{SEEDED_PREFIX}porep-log<K>[-c<C>] names (default: "
                   f"{', '.join(v.label for v in GATE_VECTORS)})")
    s.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    g = sub.add_parser("gate", help="check that the committed GPU report covers the current gpu/ sources", description="Exit 1 if gpu/ changed after the committed GPU conformance report (naming the files), if that report is not a passing GPU run over the whole gate (conformance/fingerprint.py), or if there is no report (nothing was checked); 0 only when the report covers the current sources.")
    g.add_argument("--report-file", metavar="FILE", help=f"the report to judge, a relative path taken from the repository root, not the current folder "
                   f"(default {GATE_REPORT}; a missing default is the 'no report' verdict, exit 1; a missing --report-file bad input)")
    f = sub.add_parser(
        "faults", help="list the planted faults usable as --backends fault:<name>; with --gpu-table, run the GPU code faults",
        description="Without options: list the planted faults (reference faults, usable as --backends fault:<name>, and "
                    "faults in the GPU prover's code). With --gpu-table: run them on the GPU and write the table. "
                    "Exit 0; with --gpu-table 1 unless every fault is caught and named as expected, 3 without a usable GPU.",
    )
    f.add_argument("--gpu-table", metavar="OUT.md", help="on a GPU: run the gate (prover mode) from a patched copy of gpu/ for each "
                   "fault in the GPU prover's code, and a clean copy, and write the table fault -> caught? -> phase named "
                   "(exit 1 unless every fault is caught and named as expected)")
    f.add_argument("--only", metavar="NAMES", help="comma-separated GPU faults for --gpu-table (default: all)")
    f.add_argument("--jobs", type=int, default=1, metavar="N", help="with --gpu-table: runs at once, each its own process on "
                   "the one GPU (default 1); their kernel compilation, on the CPU, is most of each run")
    _add_compare_parser(sub)
    _add_pool_parser(sub)
    return p


def _add_compare_parser(sub) -> None:
    c = sub.add_parser(
        "compare",
        help="compare two timing records phase by phase: slower, faster or within noise",
        description="Per (case, backend, phase): baseline vs new median and spread, the change in %, and a verdict "
        "(the noise rule: conformance/compare_timings.py, docs/PERFORMANCE.md). Reads report.json of `run`, "
        "`python -m gpu prove --timings-json`, and bench/ JSON. Exit 0; 1 when --max-slowdown is exceeded, or "
        "some entry could not be judged (INCOMPLETE, unless --allow-unjudged); 2 bad input, runs that are not "
        "comparable (other GPU model, shapes, sizes, tool), or --max-slowdown with no entry judgeable.",
    )
    c.add_argument("baseline", help="the baseline timing file")
    c.add_argument("new", help="the timing file to judge against it")
    c.add_argument("--max-slowdown", type=float, metavar="PCT", help="exit 1 when any phase is slower by more than PCT %% beyond noise "
                   "(default: no limit: the comparison only reports)")
    c.add_argument("--allow-mismatch", action="store_true", help="compare the common entries of runs on other GPU models, shapes or sizes")
    c.add_argument("--allow-unjudged", action="store_true", help="with --max-slowdown: pass over the judged entries even "
                   "if some have too few runs to judge (named in the result); without it such a gate is INCOMPLETE, exit 1")
    c.add_argument("--report", metavar="DIR", help="also write comparison.json, comparison.md and waterfall.png (matplotlib) into DIR "
                   "(default: the table on standard output only)")


def _add_pool_parser(sub) -> None:
    c = sub.add_parser(
        "pool",
        help="pool the timed runs of several rounds of one tree into one timing record (A-B-B-A comparisons)",
        description="Writes OUT: one timing record whose entries hold the runs of every ROUND in order (the rounds: "
        "timing records of one tool, machine model, commit and GPU sources, cases and entries, each entry with as many "
        "warm-up runs left out; bench/ab.sh AB_ORDER=abba "
        "makes them). "
        "Exit 0, 2 bad input or rounds that cannot be pooled.",
    )
    c.add_argument("out", metavar="OUT", help="the pooled timing record to write (JSON)")
    c.add_argument("rounds", nargs="+", metavar="ROUND", help="the rounds' timing files (two or more)")


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _check_record_gate(args, backend_names: list[str], phases, paths) -> None:
    """--record-gate needs the full default run (all bundled vectors and phases, isolated, each GPU phase run at least
    twice) with the GPU."""
    problems = []
    if GPU not in backend_names or args.gpus is not None or any(n.startswith(FAULT_PREFIX) for n in backend_names):
        problems.append("--backends must include gpu (the current device: no --gpus) and no planted fault")
    if tuple(phases) != PHASES:
        problems.append("every phase must run")
    if args.mode != "isolated":
        problems.append("the mode must be isolated")
    if args.oracle or args.oracle_library is not None:  # the pairing oracle, e.g., passes a proof with r and s swapped
        problems.append("every phase must be judged by the vectors' expected values (no --oracle, no --oracle-library)")
    if args.repeat < GATE_MIN_REPEAT:  # one run compares with nothing: the gate vouches that repeated GPU runs agree
        problems.append(f"--repeat must be at least {GATE_MIN_REPEAT}, so that every GPU phase's runs are compared")
    if [p.resolve() for p in paths] != [p.resolve() for p in bundled_paths()]:
        problems.append("the vectors must be the bundled ones (give no vector arguments)")
    gpu_root = imported_gpu_root()
    if not is_repository_root(gpu_root):  # the gate vouches for this repository's gpu/, not another one
        problems.append(f"the GPU prover must be this repository's {REPO_ROOT / GPU_DIR_NAME} (Python imports "
                        f"{gpu_root / GPU_DIR_NAME}: run from the repository's root)")
    if problems:
        raise InvalidInputError("--record-gate", "; ".join(problems))


def _per_gpu_backends(names: list[str], gpus: str) -> list[str]:
    """names with gpu replaced by gpu:0 .. gpu:N-1 (--gpus N, or all visible devices). With --gpus all and no
    visible device, gpu stays: its backend then says why it cannot run, as without --gpus (the note, the report's
    backends, --require-gpu's exit), instead of vanishing from a run that would pass without it."""
    from gpu.device import device_count

    if gpus != "all" and not (gpus.isdigit() and int(gpus) >= 1):
        raise InvalidInputError("--gpus", f"expected a number of GPUs (>= 1) or 'all', got {gpus!r}")
    if GPU not in names:
        raise InvalidInputError("--gpus", "--backends must include gpu")
    visible = device_count()
    count = visible if gpus == "all" else int(gpus)
    if count == 0:
        return names
    if count > visible:
        raise InvalidInputError("--gpus", f"asks for {count} GPU(s) but {visible} CUDA device(s) are visible")
    at = names.index(GPU)
    return names[:at] + [f"{GPU}:{k}" for k in range(count)] + names[at + 1 :]


def _backend_facts(backend) -> dict:
    try:
        return backend.describe()
    except Exception as exc:  # describing the device must not hide the verdicts
        return {"describe_error": f"{type(exc).__name__}: {exc}"}


def _run(args, argv) -> int:
    """Check the arguments, then run the suite inside the coverage records when asked for (started
    before gpu/ is imported, so that its module-level lines count)."""
    say = Progress(args.quiet)
    phases = check_phases(_split(args.phases))
    if not phases:
        raise InvalidInputError("--phases", "names no phase: a run that checks nothing is an error")
    names = list(dict.fromkeys(_split(args.backends)))
    if not names:
        raise InvalidInputError("--backends", "names no backend")
    if args.repeat < 1:
        raise InvalidInputError("--repeat", f"must be at least 1, got {args.repeat}")
    if args.oracle_library is not None:
        load_library(args.oracle_library)  # not installed: error: --oracle-library: ..., exit 2, before any work
    path_arguments, seeded = split_seeded(args.vectors)
    path_arguments, generated = split_names(path_arguments)
    paths = vector_paths(path_arguments) if path_arguments or not (generated or seeded) else []
    if args.record_gate:
        _check_record_gate(args, names, phases, paths)
        seeded = list(GATE_VECTORS)  # c = 16 windows and multi-pass NTTs against exact expected values
        generated = list(GENERATED_CASES.values())  # the GPU paths the bundled vectors do not reach
    cache = SeededCache(args.seeded_cache) if args.seeded_cache is not None else None  # bad folder: exit 2, before any work
    slow = slow_generation(seeded)
    if slow and args.record_gate:  # refused before any work, as a missing coverage package is
        raise InvalidInputError("--record-gate", slow)
    if slow:
        say(f"warning: {slow}")
    recorder = CoverageRecorder.start("--record-gate" if args.record_gate else "--coverage") if args.coverage or args.record_gate else None
    try:
        return _run_suite(args, argv, say, phases, names, paths, generated, recorder, seeded, cache)
    finally:
        if recorder is not None:
            recorder.stop()


def _run_suite(args, argv, say, phases, names: list[str], paths, generated, recorder: CoverageRecorder | None, seeded=(),
               cache: SeededCache | None = None) -> int:
    case_sources: dict[str, str] = {}  # the vector files' ids are claimed as each loads
    for name in [spec.label for spec in seeded] + [GENERATED_PREFIX + case.name for case in generated]:
        _claim_case_id(case_sources, name, name)
    if args.gpus is not None:
        names = _per_gpu_backends(names, args.gpus)
    backends = [make_backend(name) for name in names]
    require_gpu = args.require_gpu or args.record_gate

    running, unavailable, facts = [], {}, {}
    for backend in backends:
        reason = backend.unavailable_reason()
        if reason is None:
            running.append(backend)
            facts[backend.name] = {"available": True, "reason": None, "device": _backend_facts(backend)}
        else:
            unavailable[backend.name] = reason
            facts[backend.name] = {"available": False, "reason": reason, "device": None}
    gpu_unavailable = {name: reason for name, reason in unavailable.items() if name == GPU or name.startswith(GPU + ":")}
    if gpu_unavailable:
        name, reason = next(iter(gpu_unavailable.items()))
        if require_gpu:
            print(f"error: --require-gpu: the GPU backend {name} cannot run here: {reason}", file=sys.stderr)
            return EXIT_GPU_REQUIRED
        if not running:
            raise InvalidInputError("--backends", f"no backend can run here ({name}: {reason}): a run that checks nothing is an error")
        others = ", ".join(b.name for b in running) or "nothing"
        print(f"No usable CUDA device ({reason}): checking {others} only.", file=sys.stderr)

    gpu_root = imported_gpu_root()
    if not is_repository_root(gpu_root):
        print(f"note: the GPU prover is imported from {gpu_root / GPU_DIR_NAME}, not from this repository: the report's "
              "gpu/ fingerprint names those sources", file=sys.stderr)
    fingerprint_before = fingerprint(gpu_root)  # the sources the GPU backend runs (conformance/sources.py)
    info = RunInfo(
        command="python -m conformance " + shlex.join(argv),
        mode=args.mode,
        prefer_oracle=args.oracle,
        oracle_library=args.oracle_library,
        phases=phases,
        backends=facts,
        gpu_fingerprint=fingerprint_before,
    )
    modes = [args.mode] + ([PROVER] if args.record_gate else [])  # the gate also runs the real prover entry point
    with start_builds(seeded, running, say, cache) as builds:  # the large seeded vectors build while the bundled ones are checked
        vectors = []
        for path in paths:
            start = time.perf_counter()
            vector = load_cached(path, progress=say)
            _claim_case_id(case_sources, vector.id, str(path))  # refused as soon as loaded, before any phase runs
            info.load_seconds[vector.id] = round(time.perf_counter() - start, 3)
            check_witnesses_satisfied(vector)  # in every mode: an unsatisfied witness is bad input, not a backend's fault
            vectors.append((path, vector))
        results = []
        for path, vector in vectors:
            problem = Problem.from_vector(vector)
            for mode in modes:
                results.append(
                    check_vector(
                        problem, running, phases, mode, args.oracle, str(path), progress=say, unavailable=unavailable, repeat=args.repeat,
                        oracle_library=args.oracle_library,
                    )
                )

        for case in generated:  # first: they need no build, and the large seeded vectors' builds are still running
            results.append(check_generated(case, running, unavailable, progress=say))

        seeded_records = []
        for spec in seeded:  # built here (or in the background), checked in every mode, then let go (2^20: GiBs of points)
            checked, record = check_seeded(spec, running, phases, modes, args.oracle, unavailable, args.repeat, args.oracle_library, say,
                                           background=builds.get(spec), cache=cache)
            results.extend(checked)
            if record is not None:
                seeded_records.append(record)
                info.load_seconds[spec.label] = record["generation_seconds"]

    gpu_backends = [n for n in facts if n.startswith(GPU) and facts[n]["available"]]
    with_gpu = bool(gpu_backends)
    error = _device_error(gpu_backends) if with_gpu else None
    if error is not None:  # before any report or verdict: a device in error leaves no passing report behind
        print(f"error: gpu: the device is in error after the run ({error}): its results are not trusted; no report "
              f"written{' and no gate recorded' if args.record_gate else ''}", file=sys.stderr)
        return EXIT_MISMATCH
    unchecked = [v for v in results if not any(r.status in CHECKED_STATUSES for p in v.phases for r in p.backends.values())]
    if len(unchecked) == len(results):
        raise InvalidInputError("--backends", "the run checked nothing (every phase not implemented, skipped or unavailable): a run that checks nothing is an error")
    if unchecked:  # a PASS over the others would vouch for a vector nothing looked at
        raise InvalidInputError("vectors", "the run checked nothing of " + "; ".join(_unchecked_text(v) for v in unchecked)
                                + ": every phase not implemented, skipped or unavailable (a vector that nothing checks is an error)")
    info.coverage = recorder.section() if recorder is not None else None
    document = report_document(results, info)
    document["seeded_vectors"] = seeded_records
    # the sources' digest as the report's gpu_fingerprint took it, before the runs: one digest a report
    document["timings"] = conformance_timings(document, environment(with_gpu=with_gpu, sources=fingerprint_before["sha256"]))
    try:
        _write_report_files(document, Path(args.report), say, inputs=[f for _, v in vectors for f in v.source_files])
    except OSError as exc:
        raise InvalidInputError("--report", f"cannot write the report into {args.report}: {exc.strerror or exc}") from None
    sys.stdout.write(terminal_text(document))
    if args.record_gate:
        try:
            if not _record_gate(document, fingerprint_before, say):
                return EXIT_MISMATCH
        except OSError as exc:
            raise InvalidInputError("--record-gate", f"cannot write {GATE_REPORT}: {exc.strerror or exc}") from None
    return EXIT_MISMATCH if document["result"] == "fail" else EXIT_OK


def _device_error(gpu_backends: list[str]) -> str | None:
    """What the CUDA devices the GPU backends ran on report when synchronized after the runs (gpu.device.device_error,
    on each: gpu:k ran on device k, gpu on the current one; an error CUDA keeps is a device's own), None when none is in
    error. Imported here, after the GPU backend ran (and after the coverage records started, conformance/gpu_coverage.py
    CoverageRecorder.start): imported when this module loads, gpu.device's module-level lines would miss the gate's
    line coverage."""
    from gpu.device import device_error

    cupy = sys.modules.get("cupy")
    if cupy is None:  # not imported: no CUDA call was made (device_error says so too)
        return device_error()
    devices = sorted({int(n.split(":", 1)[1]) if ":" in n else cupy.cuda.runtime.getDevice() for n in gpu_backends})
    for k in devices:
        with cupy.cuda.Device(k):
            error = device_error()
        if error is not None:
            return f"device {k}: {error}"
    return None


def _claim_case_id(case_sources: dict[str, str], case_id: str, source: str) -> None:
    """Record that ``source`` is checked under ``case_id`` in case_sources {id: source}; InvalidInputError naming both
    sources when another one already is: the report's timings key each entry by the id, and `compare` refuses a
    record where one appears twice (conformance/timing.py check_timing_document)."""
    if case_sources.get(case_id) == source:
        raise InvalidInputError("vectors", f"{source} is given twice")
    if case_id in case_sources:
        raise InvalidInputError("vectors", f"{case_sources[case_id]} and {source} are both the case {case_id!r}: each "
                                "case of a run needs its own id")
    case_sources[case_id] = source


def _unchecked_text(result) -> str:
    """'<vector> (<why its first phase was not judged>)' for a vector on which no backend judged any phase."""
    why = next((r.message for p in result.phases for r in p.backends.values() if r.message), None)
    return f"{result.vector_id}" + (f" ({why})" if why else "")


def _write_report_files(document: dict, folder: Path, say, inputs=()) -> None:
    check_outputs({f"--report {name}": folder / name for name in REPORT_FILES}, {f"input {p}": p for p in inputs})
    chart = folder / "chart.png"
    png, note = drawn(lambda path: write_chart(document, path), chart.name)
    document["chart"], document["chart_note"] = (None, note) if note else (chart.name, None)
    files = {folder / "report.json": json_text(document).encode(),
             folder / "report.md": (markdown_text(document) + ("\n" + timings_markdown(document["timings"]) if document["timings"]["entries"] else "")).encode(),
             **({chart: png} if png is not None else {})}
    write_files_atomically(files)  # all or none: a report.md that cannot be written leaves no report.json
    say(f"wrote {', '.join(str(folder / name) for name in REPORT_FILES if (folder / name).exists())}")


def _record_gate(document: dict, fingerprint_before: dict, say) -> bool:
    """Write the gate report when the run passed, gpu/ did not change while it ran, and every kernel of
    gpu/kernels/ was launched or is allow-listed; False when the gate refuses a passing run."""
    target = REPO_ROOT / GATE_REPORT
    if document["result"] != "pass":
        say(f"not recording {GATE_REPORT}: the run did not pass")
        return True
    if fingerprint() != fingerprint_before:
        print(f"error: not recording {GATE_REPORT}: gpu/ changed while the suite ran; run it again", file=sys.stderr)
        return False
    try:
        check_gate(document.get("coverage"))
    except UnlaunchedKernelsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        say(f"not recording {GATE_REPORT}")
        return False
    gate_document = dict(document, chart=None, chart_note="the gate report carries no chart")
    write_files_atomically({target: json_text(gate_document).encode(),
                            target.with_suffix(".md"): markdown_text(gate_document).encode()})  # one gate, both files
    say(f"recorded {GATE_REPORT} (and {GATE_REPORT.with_suffix('.md')}): commit them")
    return True


def _gate(args) -> int:
    if args.report_file is not None and not (REPO_ROOT / args.report_file).exists():  # named: not a gate yet to record
        raise InvalidInputError("--report-file", f"{args.report_file} does not exist (relative to the repository root)")
    verdict = gate_verdict(REPO_ROOT, Path(args.report_file) if args.report_file is not None else None)
    print(f"{verdict.state}: {verdict.message}")
    return EXIT_OK if verdict.passed else EXIT_MISMATCH  # no report: nothing checked, not a pass


def _compare(args) -> int:
    from .compare_timings import COMPARISON_FILES, compare_files, terminal_text, write_comparison_report

    folder = Path(args.report) if args.report else None
    if folder is not None:  # an output that is an input: refused before reading anything
        check_outputs({f"--report {name}": folder / name for name in COMPARISON_FILES}, {"baseline": args.baseline, "new": args.new})
    comparison = compare_files(args.baseline, args.new, args.allow_mismatch, args.max_slowdown, args.allow_unjudged)
    if folder is not None:  # written before the verdict is printed, as `run` does: no verdict precedes an error exit
        try:
            written = write_comparison_report(comparison, folder)
        except OSError as exc:
            raise InvalidInputError("--report", f"cannot write the comparison into {args.report}: {exc.strerror or exc}") from None
        print(f"wrote {', '.join(str(p) for p in written)}" + ("" if any(p.suffix == ".png" for p in written) else
              " (no waterfall: matplotlib is not installed; pip install -e '.[report]')"), file=sys.stderr)
    sys.stdout.write(terminal_text(comparison))
    return EXIT_MISMATCH if comparison.result in ("fail", "incomplete") else EXIT_OK


def _pool(args) -> int:
    from .compare_timings import pooled_document

    check_outputs({"out": args.out}, {f"round {k + 1}": path for k, path in enumerate(args.rounds)})
    document = pooled_document(args.rounds)
    write_files_atomically({Path(args.out): json_text(document).encode()})  # whole or not at all, naming the path
    runs = {len(e["runs"]) for e in document["entries"]}
    print(f"wrote {args.out}: {len(document['entries'])} entries, {'/'.join(map(str, sorted(runs)))} timed runs each, "
          f"from {len(args.rounds)} rounds", file=sys.stderr)
    return EXIT_OK


def _faults(args) -> int:
    if args.gpu_table:
        return _gpu_fault_table(args)
    if args.only is not None:  # it would be ignored: the listing shows every fault
        raise InvalidInputError("--only", "selects faults for --gpu-table; without it every fault is listed")
    if args.jobs != 1:
        raise InvalidInputError("--jobs", "sets how many --gpu-table runs go at once; without --gpu-table nothing runs")
    for fault in FAULTS.values():
        print(f"{fault.backend_name:<32} {', '.join(fault.phases):<18} {fault.description}")
    for fault in GPU_FAULTS.values():
        print(f"{fault.name:<38} {' or '.join(fault.phases):<18} {fault.path}: {fault.description} (--gpu-table)")
    return EXIT_OK


def _gpu_fault_table(args) -> int:
    from gpu.device import GpuUnavailableError, require_device

    names = _split(args.only) if args.only is not None else None
    if names == []:
        raise InvalidInputError("--only", "names no fault")
    unknown = [n for n in names or [] if n not in GPU_FAULTS]
    if unknown:
        raise InvalidInputError("--only", f"unknown GPU fault {unknown[0]!r}; known: {', '.join(GPU_FAULTS)}")
    if args.jobs < 1:
        raise InvalidInputError("--jobs", f"must be at least 1, got {args.jobs}")
    try:
        require_device()
    except GpuUnavailableError as exc:
        print(f"error: --gpu-table needs a GPU: {exc}", file=sys.stderr)
        return EXIT_GPU_REQUIRED
    ok = write_gpu_fault_table(args.gpu_table, names, say=Progress(False), jobs=args.jobs)
    print(Path(args.gpu_table).read_text())
    return EXIT_OK if ok else EXIT_MISMATCH


def _seeded_cache(args) -> int:
    rest, specs = split_seeded(args.vectors)
    if rest:
        raise InvalidInputError("vectors", f"{rest[0]!r} is not a {SEEDED_PREFIX}porep-log<K>[-c<C>] name")
    specs = specs or list(GATE_VECTORS)
    slow = slow_generation(specs)
    if slow:
        raise InvalidInputError("seeded-cache", slow)
    cache = SeededCache(args.folder)
    failures = fill_cache(specs, cache, Progress(args.quiet))
    for failure in failures:
        print(f"failed: {failure}", file=sys.stderr)
    if not failures:
        print(f"{cache.folder} holds {', '.join(spec.label for spec in specs)}")
    return EXIT_MISMATCH if failures else EXIT_OK


def main(argv=None) -> int:
    """The command line (see the module docstring); returns the exit status. Bad input raises
    ToolkitError, which run_main turns into 'error: field: problem' and exit 2."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    if args.command == "run":
        return _run(args, argv)
    return {"gate": _gate, "faults": _faults, "compare": _compare, "pool": _pool, "seeded-cache": _seeded_cache}[args.command](args)


if __name__ == "__main__":
    status = run_main(main)
    # (imported after the run: imported before it, gpu.device's module-level lines would miss the gate's line coverage)
    from gpu.device import finish

    finish(status, failed=EXIT_MISMATCH)
