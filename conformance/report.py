"""The run's outputs: report.json (schema in conformance/REPORT_SCHEMA.md), report.md, and the
terminal table. All three are built from the same document (``report_document``)."""
import json
import platform
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from reference.prover import PHASES

from .compare import Mismatch
from .gpu_coverage import markdown_lines as coverage_markdown_lines
from .gpu_coverage import terminal_lines as coverage_terminal_lines
from .runner import FAILING_STATUSES, PASS, STATUSES, VectorResult

SCHEMA_NAME = "groth16-conformance-report"
SCHEMA_VERSION = 1
BASELINE, CONTENDER = "reference", "gpu"
"""Speed-up = baseline seconds / contender seconds."""
NO_VALUE = "-"

REPORT_FILES = ("report.json", "report.md", "chart.png")
"""What `conformance run --report FOLDER` writes there."""


@dataclass
class RunInfo:
    """Everything about the run that is not a verdict."""

    command: str
    mode: str
    prefer_oracle: bool
    phases: tuple[str, ...]
    backends: dict[str, dict]
    """{name: {"available": bool, "reason": str | None, "device": {...}}} in the run's order."""
    gpu_fingerprint: dict
    started: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    load_seconds: dict[str, float] = field(default_factory=dict)
    chart: str | None = None
    chart_note: str | None = None
    oracle_library: str | None = None
    """run --oracle-library: the independent library that judged msm_h, batch_add, tail_msm, assemble."""
    coverage: dict | None = None
    """run --coverage / --record-gate: kernels launched and gpu/*.py lines run (conformance/gpu_coverage.py)."""


def _seconds_sum(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) if values else None


def phase_totals(results: list[VectorResult], backend_names) -> dict:
    """Per phase: each backend's seconds summed over the vectors it passed, and the speed-up over the
    vectors where both the baseline and the contender passed."""
    totals = {}
    for phase in PHASES:
        rows = [p for v in results for p in v.phases if p.phase == phase]
        if not rows:
            continue
        entry = {}
        for name in backend_names:
            done = [p.backends[name] for p in rows if name in p.backends and p.backends[name].status == PASS]
            entry[name] = {
                "seconds": _seconds_sum(r.seconds for r in done),
                "transfer_seconds": _seconds_sum(r.transfer_seconds for r in done),
                "vectors": len(done),
            }
        both = [p for p in rows if p.speedup(BASELINE, CONTENDER) is not None]
        base = sum(p.backends[BASELINE].seconds for p in both)
        other = sum(p.backends[CONTENDER].seconds for p in both)
        other_with_transfers = other + sum(p.backends[CONTENDER].transfer_seconds or 0.0 for p in both)
        entry["speedup"] = base / other if both and other > 0 else None
        entry["speedup_with_transfers"] = base / other_with_transfers if both and other_with_transfers > 0 else None
        totals[phase] = entry
    return totals


def status_counts(pairs, backend_names) -> dict:
    """{backend: {status: count}} from (backend, status) pairs: the report's ``summary`` rule, shared with the gate
    (conformance/fingerprint.py), which re-derives a report's summary from its per-phase entries."""
    counts = {name: {status: 0 for status in STATUSES} for name in backend_names}
    for name, status in pairs:
        counts.setdefault(name, {s: 0 for s in STATUSES})[status] += 1
    return counts


def summary(results: list[VectorResult], backend_names) -> dict:
    """{backend: {status: count}} over every (vector, phase)."""
    return status_counts(((name, r.status) for v in results for p in v.phases for name, r in p.backends.items()), backend_names)


def result_of(statuses) -> str:
    """The report's result rule over every (vector, phase, backend) status: 'fail' if any is failing (FAIL, ERROR),
    else 'pass'; shared with the gate (conformance/fingerprint.py), which re-derives a report's result from its entries."""
    return "fail" if any(status in FAILING_STATUSES for status in statuses) else "pass"


def overall_result(results: list[VectorResult]) -> str:
    """'fail' if any backend failed or raised in any phase, else 'pass' (result_of)."""
    return result_of(r.status for v in results for p in v.phases for r in p.backends.values())


def report_document(results: list[VectorResult], info: RunInfo) -> dict:
    """The report.json document (REPORT_SCHEMA.md)."""
    names = list(info.backends)
    return {
        "schema": SCHEMA_NAME,
        "schema_version": SCHEMA_VERSION,
        "created": info.started,
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": info.command,
        "mode": info.mode,
        "oracle_requested": info.prefer_oracle,
        "oracle_library": info.oracle_library,
        "phases": list(info.phases),
        "result": overall_result(results),
        "host": {"python": platform.python_version(), "platform": platform.platform()},
        "backends": info.backends,
        "gpu_fingerprint": info.gpu_fingerprint,
        "summary": summary(results, names),
        "totals": phase_totals([v for v in results if v.mode == info.mode], names),
        "chart": info.chart,
        "chart_note": info.chart_note,
        "coverage": info.coverage,
        "vectors": [
            {
                "id": v.vector_id,
                "mode": v.mode,
                "path": v.path,
                "log_n": v.log_n,
                "circuits": v.circuits,
                "trapdoor": v.has_trapdoor,
                "load_seconds": info.load_seconds.get(v.vector_id),
                "phases": [
                    {
                        "phase": p.phase,
                        "oracle": p.oracle,
                        "speedup": p.speedup(BASELINE, CONTENDER),
                        "speedup_with_transfers": p.speedup(BASELINE, CONTENDER, with_transfers=True),
                        "backends": {name: r.as_json() for name, r in p.backends.items()},
                    }
                    for p in v.phases
                ],
            }
            for v in results
        ],
    }


def json_text(document: dict) -> str:
    return json.dumps(document, indent=1) + "\n"


def drawn(draw, name: str) -> tuple[bytes | None, str | None]:
    """(the bytes ``draw(path)`` writes, None where it drew nothing; its note), drawn in a temporary folder so that a
    report's files can be written together (vectors/format.py write_files_atomically)."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / name
        note = draw(path)
        return (None if note else path.read_bytes()), note


# ---------------------------------------------------------------------------------------------
# Text renderings


def _seconds_text(seconds) -> str:
    return NO_VALUE if seconds is None else f"{seconds:.4f} s"


def _speedup_text(speedup) -> str:
    return NO_VALUE if speedup is None else f"{speedup:.1f}x"


def cell_text(entry: dict | None) -> str:
    """'pass 0.0123 s (+0.0010 s transfers)', 'not implemented', 'FAIL 0.2 s', ..."""
    if entry is None:
        return NO_VALUE
    status = entry["status"]
    text = status.upper() if status in FAILING_STATUSES else status
    if entry.get("seconds") is not None:
        text += f" {_seconds_text(entry['seconds'])}"
    if entry.get("transfer_seconds") is not None:
        text += f" (+{_seconds_text(entry['transfer_seconds'])} transfers)"
    return text


def judge_text(phase: dict) -> str:
    """The phase's oracle, and each backend judged otherwise: 'reference (reference backend by expected)' where the
    reference would have judged itself (conformance/runner.py _judge_of)."""
    own = [f"{name} backend by {r['judge']}" for name, r in phase["backends"].items() if r.get("judge")]
    return phase["oracle"] + (f" ({', '.join(own)})" if own else "")


def table_rows(document: dict) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-vector, per-phase table."""
    names = list(document["backends"])
    header = ["vector", "phase", "judge", *names, "speed-up"]
    rows = []
    for v in document["vectors"]:
        for p in v["phases"]:
            rows.append([v["id"], p["phase"], judge_text(p), *(cell_text(p["backends"].get(n)) for n in names), _speedup_text(p["speedup"])])
    return header, rows


def totals_rows(document: dict) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-phase totals table."""
    names = list(document["backends"])
    header = ["phase", *(f"{n} (sum)" for n in names), "speed-up", "speed-up incl. transfers"]
    rows = []
    for phase, entry in document["totals"].items():
        cells = []
        for n in names:
            t = entry.get(n, {})
            text = _seconds_text(t.get("seconds"))
            if t.get("transfer_seconds") is not None:
                text += f" (+{_seconds_text(t['transfer_seconds'])})"
            cells.append(text)
        rows.append([phase, *cells, _speedup_text(entry["speedup"]), _speedup_text(entry["speedup_with_transfers"])])
    return header, rows


def problems(document: dict) -> list[str]:
    """One line per failing or erroring (vector, phase, backend): the first mismatch or the error."""
    lines = []
    for v in document["vectors"]:
        for p in v["phases"]:
            for name, r in p["backends"].items():
                if r["status"] not in FAILING_STATUSES:
                    continue
                if r["mismatch"]:
                    m = Mismatch.from_json(r["mismatch"])
                    note = f" ({r['message']})" if r["message"] else ""
                    lines.append(f"{v['id']} {p['phase']} [{name}, judged by {r.get('judge') or p['oracle']}]: {m.location()}: expected {m.expected}, got {m.actual}{note}")
                else:
                    lines.append(f"{v['id']} {p['phase']} [{name}]: error: {r['message']}")
    return lines


def aligned_table(header: list[str], rows: list[list[str]]) -> str:
    """A plain-text table for the terminal: columns padded to their widest cell, a rule under the header."""
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def _status_counts(document: dict) -> str:
    parts = []
    for name, counts in document["summary"].items():
        shown = ", ".join(f"{k} {v}" for k, v in counts.items() if v)
        parts.append(f"{name}: {shown or 'nothing ran'}")
    return "; ".join(parts)


def terminal_text(document: dict) -> str:
    """The final table for stdout: every (vector, phase), the per-phase totals, the failures, the verdict."""
    header, rows = table_rows(document)
    t_header, t_rows = totals_rows(document)
    parts = [aligned_table(header, rows), "", "Per-phase totals (over the vectors each backend passed):", aligned_table(t_header, t_rows)]
    unavailable = [f"{n}: {b['reason']}" for n, b in document["backends"].items() if not b["available"]]
    if unavailable:
        parts += ["", "Backends that did not run: " + "; ".join(unavailable)]
    found = problems(document)
    if found:
        parts += ["", "First differences and errors:", *found]
    parts += coverage_terminal_lines(document.get("coverage"))
    parts += ["", f"result: {document['result'].upper()} ({_status_counts(document)})"]
    return "\n".join(parts) + "\n"


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table: the header, its rule, one line a row ('|' in a cell escaped)."""
    escape = lambda cell: str(cell).replace("|", "\\|")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown_text(document: dict) -> str:
    """report.md: the same content as the terminal, as Markdown, with the environment and the chart."""
    header, rows = table_rows(document)
    t_header, t_rows = totals_rows(document)
    backends = []
    for name, b in document["backends"].items():
        facts = ", ".join(f"{k}: {v}" for k, v in (b.get("device") or {}).items())
        backends.append(f"* **{name}**: " + (facts or "available") if b["available"] else f"* **{name}**: not available ({b['reason']})")
    fp = document["gpu_fingerprint"]
    lines = [
        f"# Conformance report: {document['result'].upper()}",
        "",
        f"* command: `{document['command']}`",
        f"* created: {document['created']} (finished {document['finished']})",
        f"* mode: {document['mode']}; judge: {'independent oracles' if document['oracle_requested'] else 'expected values where the vector has them'}"
        + (f"; msm_h, batch_add, tail_msm, assemble judged by {document['oracle_library']}" if document.get("oracle_library") else ""),
        f"* gpu/ fingerprint: `{fp['sha256']}` ({len(fp['files'])} files)",
        f"* counts: {_status_counts(document)}",
        "",
        "## Backends",
        "",
        *backends,
        "",
        "## Per-phase totals",
        "",
        "Seconds summed over the vectors each backend passed; GPU transfers (host <-> device) in parentheses.",
        "",
        markdown_table(t_header, t_rows),
        "",
    ]
    if document.get("chart"):
        lines += [f"![per-phase time]({document['chart']})", ""]
    elif document.get("chart_note"):
        lines += [f"Chart: {document['chart_note']}", ""]
    found = problems(document)
    if found:
        lines += ["## First differences and errors", "", *(f"* {line}" for line in found), ""]
    lines += coverage_markdown_lines(document.get("coverage"))
    lines += ["## Every vector and phase", "", markdown_table(header, rows), ""]
    return "\n".join(lines)
