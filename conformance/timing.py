"""Timing records: one format for every timed phase or stage of every tool (schema: conformance/TIMING_SCHEMA.md).

A record holds, per (case, backend, phase), the seconds of N timed runs and their statistics (median, min, max,
spread = max - min), plus the environment the runs came from (GPU model, driver, CUDA and CuPy versions, clocks
where readable; CPU and Python; commit and the digest of the GPU prover's sources; date). ``python -m conformance run`` embeds one in report.json,
``python -m gpu prove --timings-json`` writes one, bench/ scripts add one to their JSON; ``python -m conformance
compare`` (conformance/compare_timings.py) reads any of them with ``load_timings``.
"""
from __future__ import annotations

import os
import platform
import statistics
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from reference.errors import InvalidInputError
from reference.safe_files import parse_json, read_regular_file

from .sources import REPO_ROOT, fingerprint, imported_gpu_root

SCHEMA_NAME = "groth16-timings"
SCHEMA_VERSION = 1
KINDS = ("phase", "host", "copy")
"""What an entry times: a prover phase (device work), a host-side stage (reading, staging, pinning, encoding;
wall clock), or one host<->device copy (CUDA events)."""
MAX_TIMING_FILE_BYTES = 256 << 20
"""Largest file ``load_timings`` reads (a conformance report of every bundled vector is well under 1 MiB)."""
COMMIT_ENV = "BENCH_COMMIT"
"""Names the commit measured where the checkout has no git history (the device copy)."""
NVIDIA_SMI_FIELDS = ("clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem", "driver_version", "pstate")
"""nvidia-smi --query-gpu fields recorded as the GPU's clocks and driver (MHz; pstate P0 = full speed)."""
COMMAND_TIMEOUT_S = 10


@dataclass(frozen=True)
class Stats:
    """N timed runs of one phase, in seconds. ``spread`` = max - min: the runs' own noise."""

    runs: tuple[float, ...]
    warmup_runs: int = 0

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def min(self) -> float:
        return min(self.runs)

    @property
    def max(self) -> float:
        return max(self.runs)

    @property
    def spread(self) -> float:
        return self.max - self.min

    def as_json(self) -> dict:
        return {"runs": list(self.runs), "warmup_runs": self.warmup_runs, "median": self.median, "min": self.min,
                "max": self.max, "spread": self.spread}


def stats_after_warmup(all_runs: list[float]) -> Stats:
    """The runs of a phase whose first run pays one-time costs (kernel compilation, module loading): with two or more
    runs the first is a warm-up and left out; a single run is all there is."""
    if not all_runs:
        raise ValueError("no runs")
    warmup = 1 if len(all_runs) >= 2 else 0
    return Stats(tuple(all_runs[warmup:]), warmup)


def entry(case: str, backend: str, phase: str, stats: Stats, kind: str = "phase", shape: dict | None = None) -> dict:
    """One timing entry (see TIMING_SCHEMA.md): what was timed, on what, and its statistics."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {KINDS}")
    return {"case": case, "shape": dict(shape or {}), "backend": backend, "phase": phase, "kind": kind, **stats.as_json()}


def timing_document(tool: str, command: str, entries: list[dict], environment: dict, **extra) -> dict:
    """A whole timing record; ``extra`` fields (e.g. gpu prove's blocks) ride along and are ignored by compare."""
    return {"schema": SCHEMA_NAME, "schema_version": SCHEMA_VERSION, "tool": tool, "command": command,
            "unit": "seconds", "environment": environment, "entries": entries, **extra}


# ---------------------------------------------------------------------------------------------
# Environment
# ---------------------------------------------------------------------------------------------


def _run_output(command: list[str], cwd: Path | None = None) -> str | None:
    """The command's standard output, stripped; None when it could not start, failed or timed out."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, cwd=cwd)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _run_text(command: list[str], cwd: Path | None = None) -> str | None:
    """The command's output, None when it failed or printed nothing."""
    return _run_output(command, cwd) or None


DIRTY, STATUS_UNKNOWN = "+dirty", "+status-unknown"
"""commit()'s suffixes: the tree differs from HEAD; git could not say whether it does (a failed or timed-out
`git status` must not pass for a clean tree)."""


def commit() -> str | None:
    """The commit measured: $BENCH_COMMIT, else git's HEAD (DIRTY for uncommitted changes, STATUS_UNKNOWN when
    `git status` fails), else None."""
    if os.environ.get(COMMIT_ENV):
        return os.environ[COMMIT_ENV]
    head = _run_text(["git", "rev-parse", "--short=12", "HEAD"], REPO_ROOT)
    if head is None:
        return None
    status = _run_output(["git", "status", "--porcelain", "--untracked-files=no"], REPO_ROOT)
    if status is None:
        return head + STATUS_UNKNOWN
    return head + (DIRTY if status else "")


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo on Linux, else platform's guess)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def nvidia_smi_facts(device_index: int) -> dict | None:
    """Clocks (MHz), performance state and driver version of one GPU from nvidia-smi, or None where unreadable."""
    text = _run_text(["nvidia-smi", f"--id={device_index}", f"--query-gpu={','.join(NVIDIA_SMI_FIELDS)}",
                      "--format=csv,noheader,nounits"])
    if text is None:
        return None
    values = [v.strip() for v in text.splitlines()[0].split(",")]
    return dict(zip(NVIDIA_SMI_FIELDS, values)) if len(values) == len(NVIDIA_SMI_FIELDS) else None


def gpu_facts(device_index: int = 0) -> dict | None:
    """The GPU's model, driver, CUDA and CuPy versions and clocks, or None without a usable CUDA device."""
    from gpu.device import _unavailable_reason

    if _unavailable_reason() is not None:
        return None
    import cupy

    runtime = cupy.cuda.runtime
    props = runtime.getDeviceProperties(device_index)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    smi = nvidia_smi_facts(device_index)
    return {
        "name": name,
        "device_index": device_index,
        "compute_capability": f"{props['major']}.{props['minor']}",
        "memory_gib": round(props["totalGlobalMem"] / (1 << 30), 1),
        "driver": (smi or {}).get("driver_version"),
        "cuda_driver_api": runtime.driverGetVersion(),
        "cuda_runtime": runtime.runtimeGetVersion(),
        "cupy": cupy.__version__,
        "clocks_mhz": {k: v for k, v in (smi or {}).items() if k.startswith("clocks.")} or None,
        "pstate": (smi or {}).get("pstate"),
    }


def gpu_sources() -> str | None:
    """The sha256 of the GPU prover's sources as they are on disk, those of the gpu/ this process imports, with the
    gate's inputs (conformance/sources.py fingerprint and imported_gpu_root: the GPU-only harness and the bundled
    vectors too, the digest a gate report records as gpu_fingerprint, so that a record and the gate report of its
    code carry one digest; a changed bundled vector changes it as well), or None where they cannot be read: it names
    the code measured even where the
    commit cannot (a device copy whose git history is stale, uncommitted changes), and matches a timing record to the
    gate report of the same code. A source that cannot be read or parsed leaves the record without it rather than
    losing the run."""
    try:
        return fingerprint(imported_gpu_root())["sha256"]
    except (OSError, ValueError):  # ValueError: InvalidInputError, a source that does not parse
        return None


def environment(with_gpu: bool = True, device_index: int = 0, sources: str | None = None) -> dict:
    """Where the runs happened: date, commit, the GPU prover's sources (``sources`` where the caller took the digest
    already, e.g. before the runs; else gpu_sources()), Python, platform, CPU, and the GPU (None on a CPU-only run)."""
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "commit": commit(),
        "gpu_sources": sources or gpu_sources(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "gpu": gpu_facts(device_index) if with_gpu else None,
    }


SOURCES_LABEL_HEX = 12
"""Hex digits of gpu_sources a printed label shows (as a short commit hash; the records keep all 64)."""


def code_label(env: dict) -> str:
    """The code measured, for a printed header: 'commit X, GPU sources Y' (Y: gpu_sources' first SOURCES_LABEL_HEX hex
    digits, which a gate report's 'gpu/ fingerprint' line begins with)."""
    sources = env.get("gpu_sources")
    shown = sources[:SOURCES_LABEL_HEX] if isinstance(sources, str) and sources else "unknown"
    return f"commit {env.get('commit') or 'unknown'}, GPU sources {shown}"


def machine_label(env: dict) -> str:
    """What runs must share to be compared: the GPU model, or for CPU-only runs the CPU model."""
    gpu = env.get("gpu")
    return f"GPU {gpu['name']}" if gpu else f"CPU {env.get('cpu')}"


# ---------------------------------------------------------------------------------------------
# Reading any timing file
# ---------------------------------------------------------------------------------------------


def _read_json(path: Path):
    """A regular file of at most MAX_TIMING_FILE_BYTES, parsed with bounded nesting (reference/safe_files.py: py_ecc's
    recursion limit would let a deeply nested file overflow the C stack)."""
    return parse_json(read_regular_file(path, "timing file", MAX_TIMING_FILE_BYTES), str(path), allow_fractions=True)


MAX_RUN_SECONDS = 1e6
"""About 11.6 days: longer than any timed run, and far enough below the largest double that sums and medians of any
record stay finite (runs of 1e308 s made `compare --report`'s chart raise and `pool` write `Infinity`, which is not
JSON; audit of 2026-12-07)."""


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_RUN_SECONDS:  # NaN fails too
        raise InvalidInputError(where, f"expected a number of seconds from 0 to {MAX_RUN_SECONDS:g}, got {value!r}")
    return float(value)


def _check_entry(raw, where: str) -> dict:
    if not isinstance(raw, dict):
        raise InvalidInputError(where, "expected an object")
    for key in ("case", "backend", "phase"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise InvalidInputError(f"{where}.{key}", "expected a non-empty string")
    if raw.get("kind") not in KINDS:
        raise InvalidInputError(f"{where}.kind", f"expected one of {', '.join(KINDS)}, got {raw.get('kind')!r}")
    if not isinstance(raw.get("shape"), dict):
        raise InvalidInputError(f"{where}.shape", "expected an object")
    for key, value in raw["shape"].items():  # a boolean would compare equal to 0 or 1: {"log_n": true} == {"log_n": 1}
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise InvalidInputError(f"{where}.shape.{key}", f"expected a string or a number, got {value!r}")
    runs = raw.get("runs")
    if not isinstance(runs, list) or not runs:
        raise InvalidInputError(f"{where}.runs", "expected a non-empty list of seconds")
    warmup = raw.get("warmup_runs", 0)
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise InvalidInputError(f"{where}.warmup_runs", f"expected a count >= 0, got {warmup!r}")
    stats = Stats(tuple(_number(r, f"{where}.runs[{i}]") for i, r in enumerate(runs)), warmup)
    for key in ("median", "min", "max", "spread"):  # recomputed from the runs; a file that disagrees is refused
        stated = _number(raw.get(key), f"{where}.{key}")
        if abs(stated - getattr(stats, key)) > 1e-9 * max(1.0, stated):
            raise InvalidInputError(f"{where}.{key}", f"is {stated} but the runs give {getattr(stats, key)}")
    return {**raw, "stats": stats}


def check_timing_document(doc, where: str) -> dict:
    """A timing record as read from a file, validated; each entry gains ``stats`` (a Stats)."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_NAME:
        raise InvalidInputError(where, f"is not a timing record (schema {SCHEMA_NAME!r})")
    if type(doc.get("schema_version")) is not int or doc["schema_version"] != SCHEMA_VERSION:  # true == 1 in Python
        raise InvalidInputError(f"{where}: schema_version", f"expected {SCHEMA_VERSION}, got {doc.get('schema_version')!r}")
    if not isinstance(doc.get("environment"), dict):
        raise InvalidInputError(f"{where}: environment", "expected an object")
    if not isinstance(doc.get("tool"), str):
        raise InvalidInputError(f"{where}: tool", "expected a string")
    entries = doc.get("entries")
    if not isinstance(entries, list) or not entries:
        raise InvalidInputError(f"{where}: entries", "no timed phase: nothing to compare")
    checked = [_check_entry(e, f"{where}: entries[{i}]") for i, e in enumerate(entries)]
    keys = [entry_key(e) for e in checked]
    if len(set(keys)) != len(keys):
        duplicate = next(k for k in keys if keys.count(k) > 1)
        raise InvalidInputError(f"{where}: entries", f"{'/'.join(duplicate)} appears more than once")
    return {**doc, "entries": checked}


def load_timings(path) -> dict:
    """The timing record in ``path``: a timing file itself (gpu prove --timings-json, bench_staging), or one
    embedded under "timings" (conformance report.json, bench_prove --json). InvalidInputError otherwise."""
    path = Path(path)
    doc = _read_json(path)
    if isinstance(doc, dict) and doc.get("schema") != SCHEMA_NAME and "timings" in doc:
        return check_timing_document(doc["timings"], f"{path} (timings)")
    if isinstance(doc, dict) and doc.get("schema") != SCHEMA_NAME:
        raise InvalidInputError(str(path), "holds no timing record (no \"timings\" section; a report written before "
                                "timing records existed must be recorded again)")
    return check_timing_document(doc, str(path))


def entry_key(e: dict) -> tuple[str, str, str]:
    return (e["case"], e["backend"], e["phase"])


# ---------------------------------------------------------------------------------------------
# The conformance run's record (embedded in report.json as "timings")
# ---------------------------------------------------------------------------------------------

CONFORMANCE_TOOL = "conformance run"


def conformance_timings(document: dict, env: dict) -> dict:
    """The timing record of a conformance report document: one entry per (vector, phase, backend) that passed, its
    runs after warm-up (a backend that runs a phase several times, the GPU with --repeat N, has its first run left
    out; the reference runs each phase once). Shape: the vector's size, circuits and the run's mode."""
    entries = []
    for vector in document["vectors"]:
        shape = {"log_n": vector["log_n"], "circuits": vector["circuits"], "mode": document["mode"]}
        for phase in vector["phases"]:
            for name, result in phase["backends"].items():
                runs = result.get("run_seconds")
                if result["status"] == "pass" and runs and all(isinstance(r, (int, float)) for r in runs):
                    entries.append(entry(vector["id"], name, phase["phase"], stats_after_warmup(runs), shape=shape))
    return timing_document(CONFORMANCE_TOOL, document["command"], entries, env)


def timings_markdown(timings: dict) -> str:
    """report.md's section: per backend and phase, the medians summed over the vectors, the largest spread and the
    timed runs per vector (for ``python -m conformance compare``)."""
    rows: dict[tuple, list] = {}
    for e in timings["entries"]:
        rows.setdefault((e["backend"], e["phase"]), []).append(e)
    lines = ["## Timing statistics", "",
             f"Per backend and phase over the vectors that passed (machine: {machine_label(timings['environment'])}, "
             f"{code_label(timings['environment'])}). Compare two reports with `python -m conformance compare "
             "BASELINE/report.json NEW/report.json` (docs/PERFORMANCE.md).", "",
             "| backend | phase | vectors | sum of medians (s) | largest spread (s) | timed runs per vector |", "|---|---|---|---|---|---|"]
    for (backend, phase), entries in rows.items():
        counts = sorted({len(e["runs"]) for e in entries})
        lines.append(f"| {backend} | {phase} | {len(entries)} | {sum(e['median'] for e in entries):.6f} | "
                     f"{max(e['spread'] for e in entries):.6f} | {', '.join(map(str, counts))} |")
    return "\n".join(lines) + "\n"
