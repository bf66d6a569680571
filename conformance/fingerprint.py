"""The CI gate for machines without a GPU: has the GPU prover's code changed since the last passing GPU
conformance run?

Every report records the *fingerprint* of the GPU prover's sources (conformance/sources.py ``fingerprint``: which
files, and how they are hashed). A GPU run that passes can be recorded as the committed gate
report (``GATE_REPORT``) with ``python -m conformance run --require-gpu --record-gate``. The gate
(tests/test_conformance_gate.py, ``python -m conformance gate``) fails when any of these files differs
from the recorded ones, and names the files that changed; it also fails ('invalid') on a report that is not a
passing run with the GPU backend, whose phases were judged by oracles instead of the vectors' expected values
(--oracle, --oracle-library), or that did not check the whole gate (every bundled vector and every seeded gate
vector in each of GATE_MODES, every generated case, each with every GPU phase passed, the seeded vectors' generation
records, the coverage records: ``_gate_scope_problem``). No summary field is trusted: the result is re-derived from
the per-phase entries by the report's own rule and the summary recounted (``_entries_problem``), every passed GPU phase
must carry the timings of the repeated runs a --record-gate run writes (``_gpu_timing_problem``), and --record-gate's
kernel check is re-applied to the kernels the report says were launched, with today's kernels and allow-list, once
the fingerprints match (``_unlaunched_kernels_problem``). With no committed report it
says so, and ``gate`` exits 1: nothing was checked.
"""
from dataclasses import dataclass, field
from pathlib import Path

from reference.errors import InvalidInputError, ToolkitError
from reference.safe_files import parse_json, read_regular_file

from .sources import REPO_ROOT, combined_digest, fingerprint

GATE_REPORT = Path("conformance") / "reports" / "gpu-latest.json"
"""The committed report of the last passing GPU run, relative to the repository root."""
SOURCES = "the GPU prover's sources (gpu/, the modules it imports, the GPU-only harness) and the bundled vectors"
"""How the gate's messages name what the fingerprint covers."""
REFRESH_COMMAND = "python -m conformance run --require-gpu --record-gate"
"""What to run on a GPU machine (repository root) to refresh GATE_REPORT; then commit it."""


@dataclass
class FileChanges:
    """GPU prover source files that differ from a recorded fingerprint (repository-relative paths, sorted)."""

    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.changed or self.added or self.removed)

    def describe(self) -> str:
        parts = [f"{label}: {', '.join(paths)}" for label, paths in (("changed", self.changed), ("added", self.added), ("removed", self.removed)) if paths]
        return "; ".join(parts) or "no file differs"


def is_repository_root(root: Path) -> bool:
    """Whether ``root`` is this repository's folder (REPO_ROOT is resolved: links and relative paths compare)."""
    return root.resolve() == REPO_ROOT


def compare_fingerprints(recorded: dict, current: dict) -> FileChanges:
    """Which GPU prover source files differ between a recorded fingerprint and the current one."""
    old, new = recorded.get("files", {}), current.get("files", {})
    return FileChanges(
        changed=sorted(p for p in old.keys() & new.keys() if old[p] != new[p]),
        added=sorted(new.keys() - old.keys()),
        removed=sorted(old.keys() - new.keys()),
    )


NO_REPORT, UP_TO_DATE, STALE, INVALID = "no report", "up to date", "stale", "invalid"


@dataclass
class GateVerdict:
    """The gate's state (NO_REPORT, UP_TO_DATE, STALE, INVALID) and the sentence a person reads."""

    state: str
    message: str
    changes: FileChanges | None = None

    @property
    def passed(self) -> bool:
        return self.state == UP_TO_DATE


def gate_verdict(root: Path = REPO_ROOT, report_path: Path | None = None) -> GateVerdict:
    """Whether the committed GPU report still covers the GPU prover's sources (see the module docstring)."""
    path = root / (report_path or GATE_REPORT)
    rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    refresh = f"Refresh it on a GPU machine, in the repository root: `{REFRESH_COMMAND}`, then commit {rel}."
    if not path.exists():
        return GateVerdict(NO_REPORT, f"no committed GPU conformance report yet ({rel} does not exist). {refresh}")
    try:
        report = parse_json(read_regular_file(path, "report"), rel, allow_fractions=True)
    except InvalidInputError as exc:
        return GateVerdict(INVALID, f"{rel} cannot be read as JSON ({exc.problem}). {refresh}")
    except OSError as exc:  # read_regular_file lets a directory's IsADirectoryError through (reference/safe_files.py)
        return GateVerdict(INVALID, f"{rel} cannot be read ({exc.strerror}). {refresh}")
    problem = _gate_report_problem(report)
    if problem:
        return GateVerdict(INVALID, f"{rel} is not a passing GPU conformance report: {problem}. {refresh}")
    recorded = report["gpu_fingerprint"]
    current = fingerprint(root)
    if recorded.get("sha256") == current["sha256"]:
        # only now are today's gpu/kernels/ those the run compiled: a kernel added since is a stale report, not this
        unlaunched = _unlaunched_kernels_problem(report["coverage"], root)
        if unlaunched:
            return GateVerdict(INVALID, f"{rel} is not a passing GPU conformance report: {unlaunched}. {refresh}")
        return GateVerdict(UP_TO_DATE, f"{SOURCES} match the GPU conformance report {rel} ({_recorded_on(report)})")
    changes = compare_fingerprints(recorded, current)
    return GateVerdict(
        STALE,
        f"{SOURCES} changed after the last passing GPU conformance report {rel} ({_recorded_on(report)}): "
        f"{changes.describe()}. The GPU code that CI would accept has not been checked on a GPU. {refresh}",
        changes,
    )


def _recorded_on(report: dict) -> str:
    gpu = report.get("backends", {}).get("gpu", {})
    device = gpu.get("device") or {}  # null: a GPU run that could not describe its device
    return f"recorded {report.get('created', '?')} on {device.get('name', 'an unknown GPU')}"


def _gate_report_problem(report: dict) -> str | None:
    """Why a report cannot serve as the gate (None if it can): it must be a passing run in which the
    GPU backend ran, judged by the vectors' expected values, with a fingerprint; every object the verdict reads has
    the type it needs."""
    shape = _gate_report_shape_problem(report)
    if shape:
        return shape
    if report.get("schema") != "groth16-conformance-report":
        return "its 'schema' is not groth16-conformance-report"
    if report.get("result") != "pass":
        return f"its result is {report.get('result')!r}"
    gpu = report.get("backends", {}).get("gpu")
    if not gpu or not gpu.get("available"):
        return "the GPU backend did not run in it"
    if not isinstance(report.get("gpu_fingerprint"), dict) or "files" not in report["gpu_fingerprint"]:
        return "it records no gpu_fingerprint"
    if report["gpu_fingerprint"].get("sha256") != combined_digest(report["gpu_fingerprint"]["files"]):
        return "its gpu_fingerprint's sha256 is not the digest of its files (edited or corrupted)"
    if report.get("oracle_requested") is not False or report.get("oracle_library") is not None:
        return ("its phases were not judged by the vectors' expected values (oracle_requested "
                f"{report.get('oracle_requested')!r}, oracle_library {report.get('oracle_library')!r}: a --record-gate run "
                "uses no --oracle or --oracle-library)")
    return _gate_scope_problem(report)


GATE_MODES = ("isolated", "prover")
"""The modes a --record-gate run checks every bundled vector in (conformance/__main__.py)."""


def _gate_scope_problem(report: dict) -> str | None:
    """What a --record-gate run checks and a partial run does not: every bundled vector and every seeded gate vector
    (seeded.GATE_VECTORS: 2^16 and 2^20 with exact expected values) in each of GATE_MODES, every generated case, each
    with every GPU phase passed (_gpu_phases_not_passed), the seeded vectors' generation records from today's seed
    (_seeded_records_problem), and the coverage records (kernels launched, gpu/*.py lines run). A report that lacks any
    of them cannot vouch for the GPU code, however green. The bundled vectors are every checked-in vector (bundled_paths:
    the generated ones of vectors/bundled.py and the edge-* ones), the set a --record-gate run must be given."""
    from vectors.bundled import bundled_paths

    from .generated import GENERATED_CASES, GENERATED_PREFIX
    from .phases import PROVER
    from .seeded import GATE_VECTORS

    vectors = report.get("vectors")
    if not isinstance(vectors, list) or not all(isinstance(v, dict) for v in vectors):
        return "its 'vectors' is not a list of objects"
    label = f" [{PROVER}]"
    ran = {(str(v.get("id", "")).removesuffix(label), str(v.get("mode"))) for v in vectors}  # str: a list is no set key
    needed = [(path.stem, mode) for path in bundled_paths() for mode in GATE_MODES]
    needed += [(vector.label, mode) for vector in GATE_VECTORS for mode in GATE_MODES]
    needed += [(GENERATED_PREFIX + name, PROVER) for name in GENERATED_CASES]
    missing = [f"{name} ({mode})" for name, mode in needed if (name, mode) not in ran]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return f"it did not check {', '.join(missing[:3])}{more} (a --record-gate run checks them all)"
    entries = _entries_problem(report, vectors)
    if entries:
        return entries
    unpassed = _gpu_phases_not_passed(vectors)
    if unpassed:
        return f"the GPU did not pass {unpassed} (a gate run passes every phase it can judge)"
    untimed = _gpu_timing_problem(vectors)
    if untimed:
        return untimed
    seeded = _seeded_records_problem(report.get("seeded_vectors"))
    if seeded:
        return seeded
    return _coverage_problem(report.get("coverage"))


GATE_MIN_REPEAT = 2
"""The fewest runs of each GPU phase a --record-gate run makes (its --repeat; conformance/__main__.py): the gate vouches
that repeated GPU runs gave identical outputs."""


def _statuses(vectors: list[dict]):
    """(vector id, phase, backend, status) of every backend's entry in every phase of every vector of a report."""
    for v in vectors:
        for p in v.get("phases") if isinstance(v.get("phases"), list) else []:
            backends = p.get("backends") if isinstance(p, dict) else None
            for name, entry in (backends.items() if isinstance(backends, dict) else []):
                yield str(v.get("id", "")), str(p.get("phase")), name, entry.get("status") if isinstance(entry, dict) else None


def _entries_problem(report: dict, vectors: list[dict]) -> str | None:
    """Why the report's result and summary are not those its per-vector, per-phase entries give (None if they are):
    the result re-derived by the report's own rule (report.result_of: no backend failed or raised in any phase, the
    reference's included), the summary recounted (report.status_counts). A hand-edited summary field vouches for
    nothing."""
    from .report import result_of, status_counts
    from .runner import STATUSES

    statuses = list(_statuses(vectors))
    odd = next(((v, p, n, s) for v, p, n, s in statuses if not isinstance(s, str) or s not in STATUSES), None)
    if odd:
        return f"the {odd[2]} entry of {odd[1]} of {odd[0]} has status {odd[3]!r}, not one a run writes ({', '.join(STATUSES)})"
    derived = result_of(s for *_, s in statuses)
    if derived != "pass":
        v, p, n, s = next(e for e in statuses if result_of([e[3]]) != "pass")
        return (f"its result says 'pass' but its entries give {derived!r} (the {n} backend's {p} of {v} is {s!r}): "
                "the result is re-derived from the per-phase entries")
    counts = status_counts(((n, s) for *_, n, s in statuses), list(report.get("backends", {})))
    if report.get("summary") != counts:
        return "its summary does not agree with its per-phase entries (the counts are re-derived from them)"
    return None


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 and value == value and value != float("inf")


def _gpu_timing_problem(vectors: list[dict]) -> str | None:
    """The first GPU phase that passed without the timing evidence a --record-gate run writes (None if none): every
    passed GPU phase its seconds; in isolated mode also run_seconds, one entry per run, at least GATE_MIN_REPEAT
    (the repeated runs compared), the reported seconds their fastest. Prover mode records only the fastest run's
    seconds (conformance/runner.py _prover_outcomes)."""
    for v in vectors:
        name = str(v.get("id", ""))
        for p in v.get("phases") or []:
            gpu = p.get("backends", {}).get("gpu") if isinstance(p, dict) and isinstance(p.get("backends"), dict) else None
            if not isinstance(gpu, dict) or gpu.get("status") != "pass":
                continue
            where = f"the GPU's {p.get('phase')} of {name}"
            if not _number(gpu.get("seconds")):
                return f"{where} passed with no seconds (a --record-gate run times every phase)"
            if v.get("mode") != "isolated":
                continue
            runs = gpu.get("run_seconds")
            if not isinstance(runs, list) or len(runs) < GATE_MIN_REPEAT or not all(_number(r) for r in runs):
                return (f"{where} passed without the run_seconds of {GATE_MIN_REPEAT} or more runs (a --record-gate run "
                        "repeats every GPU phase and compares the runs)")
            if gpu["seconds"] != min(runs):
                return f"{where} records seconds {gpu['seconds']!r}, not the fastest of its run_seconds {runs!r}"
    return None


def _coverage_problem(coverage) -> str | None:
    """Why the report holds no coverage records of the shape a --record-gate run writes (None if it does): kernels
    launched and never launched, lines run. Their kernel check is _unlaunched_kernels_problem's, once the fingerprints
    match."""
    if not isinstance(coverage, dict):
        return "it has no coverage records (a --record-gate run makes them)"
    kernels = coverage.get("kernels")
    if not (isinstance(kernels, dict) and isinstance(kernels.get("launched"), list) and isinstance(kernels.get("never_launched"), dict)
            and isinstance(coverage.get("lines"), dict)):
        return ("its coverage records hold no kernels launched and never launched, or no lines run (a --record-gate run "
                "records both)")
    return None


def _unlaunched_kernels_problem(coverage: dict, root: Path) -> str | None:
    """Why the recorded coverage would not let --record-gate record (None if it would): its kernel check
    (conformance/gpu_coverage.py check_gate: every kernel of gpu/kernels/ launched or allow-listed) re-applied to the
    kernels the report says were launched, with the kernels and the allow-list of ``root``, not the report's own
    never_launched reasons. Called once the fingerprints match, when gpu/kernels/ is what the run compiled."""
    from .gpu_coverage import (ALLOWLIST, KERNEL_DIR, KernelParseError, check_gate, defined_kernels, kernel_ids, kernel_section,
                               load_allowlist)

    kernel_dir = root / KERNEL_DIR.relative_to(REPO_ROOT)
    try:
        defined = kernel_ids(defined_kernels(kernel_dir)) if kernel_dir.is_dir() else []
    except (KernelParseError, OSError, UnicodeDecodeError) as exc:
        return f"the kernels of gpu/kernels/ cannot be listed ({exc})"
    launched = {k for k in coverage["kernels"]["launched"] if k in defined}
    try:
        allowed = load_allowlist(root / ALLOWLIST, defined) if set(defined) - launched else {}
        check_gate({"kernels": kernel_section(defined, launched, (), allowed)})
    except ToolkitError as exc:
        return f"its coverage fails the gate's kernel check ({exc})"
    return None


def _seeded_records_problem(records) -> str | None:
    """Why the report's seeded_vectors do not show every seeded gate vector built from today's seed, the size its
    name says, without an error (None if they do): a vector built from another seed is not the one the gate names."""
    from .seeded import GATE_VECTORS, SEED

    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        return "it has no seeded_vectors records (a --record-gate run makes them)"
    by_id = {str(r.get("id")): r for r in records}
    for vector in GATE_VECTORS:
        record = by_id.get(vector.label)
        if record is None:
            return f"it records no generation of {vector.label} (a --record-gate run makes one)"
        recorded = (record.get("seed"), record.get("log_n"), record.get("circuits"))
        if recorded != (SEED, vector.log_n, vector.circuits) or record.get("error") is not None:
            return (f"its record of {vector.label} (seed, log n, circuits {recorded}, error {record.get('error')!r}) is not "
                    f"the vector the gate names (seed {SEED!r}, 2^{vector.log_n}, {vector.circuits} circuit(s), no error)")
    return None


def _gpu_phases_not_passed(vectors: list[dict]) -> str | None:
    """The first '<phase> of <vector> (<status>)' where the GPU backend did not pass: every phase of every vector,
    save those a generated case does not judge (generated.NOT_JUDGED: skipped). 'pass' overall allows 'not
    implemented', 'skipped' and 'unavailable'; the gate must not."""
    from reference.prover import PHASES

    from .generated import GENERATED_PREFIX, NOT_JUDGED
    from .runner import PASS, SKIPPED

    for v in vectors:
        name = str(v.get("id", ""))
        statuses = {str(p.get("phase")): _gpu_status(p) for p in v.get("phases") or [] if isinstance(p, dict)} \
            if isinstance(v.get("phases"), list) else {}
        for phase in PHASES:
            allowed = (PASS, SKIPPED) if name.startswith(GENERATED_PREFIX) and phase in NOT_JUDGED else (PASS,)
            if statuses.get(phase) not in allowed:
                return f"{phase} of {name} ({statuses.get(phase) or 'not run'})"
    return None


def _gpu_status(phase_entry: dict):
    """The GPU backend's status in one phase entry of a report (None where the entry has none)."""
    backends = phase_entry.get("backends")
    gpu = backends.get("gpu") if isinstance(backends, dict) else None
    return gpu.get("status") if isinstance(gpu, dict) else None


def _gate_report_shape_problem(report) -> str | None:
    """Why the report's structure cannot be read (None if it can): a hand-edited or corrupted file is
    'invalid', never an AttributeError."""
    if not isinstance(report, dict):
        return "it is not a JSON object"
    backends = report.get("backends", {})
    if not isinstance(backends, dict) or not all(isinstance(b, dict) for b in backends.values()):
        return "its 'backends' is not an object of objects"
    device = backends.get("gpu", {}).get("device")
    if device is not None and not isinstance(device, dict):
        return "backends.gpu.device is not an object"
    for field, text in (("created", report.get("created", "")), ("backends.gpu.device.name", (device or {}).get("name", ""))):
        if not (isinstance(text, str) and text.isprintable()):  # printed in the verdict's line: no forged second line
            return f"its {field} is not one line of printable text"
    fp = report.get("gpu_fingerprint")
    if fp is not None and not (isinstance(fp, dict) and isinstance(fp.get("files", {}), dict) and all(isinstance(v, str) for v in fp.get("files", {}).values())):
        return "its gpu_fingerprint is not {sha256, files: {path: sha256}}"
    return None
