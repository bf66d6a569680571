"""Where a kernel's warps spend their cycles, instruction by instruction: a summary of Nsight Compute's source page.

Input: the CSV that `ncu -i REPORT --page source --csv --print-source sass [--launch-skip K --launch-count 1]`
prints (bench/ncu_ntt.sh --source writes one a launch). Each "Kernel Name" section lists every SASS instruction of
one launch with its warp-stall samples, its executed warp instructions and its samples by stall reason; ncu prints a
launch's section twice, and identical sections are counted once.

For each section the summary splits the samples and the executed instructions between the kernel's body and each
out-of-line subroutine (a CALL target up to its first RET: the functions that ptxas did not inline, e.g. ntt.cu's
stage_product), names the top stall reasons of each part, and gives the executed instruction mix. Stall reasons are
ncu's (https://docs.nvidia.com/nsight-compute/ProfilingGuide/, "Warp Scheduler States"): e.g. `wait` a fixed-latency
dependency, `math` a busy math pipe, `long_sb` a global or local memory result, `selected` / `not_selected` the warp
was eligible (issued / another one was).

Usage: python3 bench/ncu_source_summary.py CSV [CSV ...] --md OUT.md [--json OUT.json] [--label NAME ...]
An unreadable file, a file without a section or a section without its columns, or an output that cannot be written:
`error: <file>: <problem>`, exit 2.
"""
from __future__ import annotations

import collections
import csv
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernel_times import read_ncu_page  # noqa: E402  (the ncu page reader the ncu tools share)
from output_folders import ArgumentParser  # noqa: E402

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"
REQUIRED_COLUMNS = ("Address", "Source", SAMPLES, EXECUTED)
STALL_PREFIX = "stall_"
NOT_ISSUED_SUFFIX = "(Not Issued)"
TOP_REASONS = 4
TOP_OPCODES = 10
CALL = re.compile(r"\bCALL\.\S*\s+(0x[0-9a-fA-F]+)")
PREDICATE = re.compile(r"^@!?U?P[T0-9]+\s+")


class SummaryError(ValueError):
    """Input this tool cannot read: the message names the file and the problem."""


@dataclass
class Part:
    """The kernel body or one subroutine: its instructions' samples, executions and stall reasons."""

    name: str
    instructions: int = 0
    samples: float = 0.0
    executed: float = 0.0
    reasons: collections.Counter = field(default_factory=collections.Counter)


@dataclass
class Section:
    kernel: str
    header: list[str]
    rows: list[list[str]]


def read_sections(path: Path) -> list[Section]:
    """The file's distinct sections, in order (a repeated identical section is dropped)."""
    try:
        text = read_ncu_page(path, errors="strict")
    except (OSError, UnicodeDecodeError) as exc:
        raise SummaryError(f"{path}: cannot read ({exc.__class__.__name__})") from exc
    except ValueError as exc:  # not a regular file, or too large (read_ncu_page)
        raise SummaryError(f"{path}: {exc}") from None
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as exc:  # e.g. a field beyond the csv module's limit
        raise SummaryError(f"{path}: not CSV ({exc})") from None
    sections: list[Section] = []
    for row in rows:
        if not row or row[0].startswith("=="):  # ncu's own notes (==PROF==, ==WARNING==)
            continue
        if row[0] == "Kernel Name":
            sections.append(Section(row[1] if len(row) > 1 else "?", [], []))
        elif not sections:
            continue  # ncu's notes before the first section
        elif row[0] == "Address":
            sections[-1].header = row
        else:
            sections[-1].rows.append(row)
    distinct: list[Section] = []
    for section in sections:
        if not any(s.kernel == section.kernel and s.rows == section.rows for s in distinct):
            distinct.append(section)
    if not distinct:
        raise SummaryError(f"{path}: no 'Kernel Name' section (not ncu's --page source --csv output)")
    for section in distinct:
        missing = [c for c in REQUIRED_COLUMNS if c not in section.header]
        if missing:
            raise SummaryError(f"{path}: section {section.kernel}: no column {', '.join(missing)}")
        if not section.rows:
            raise SummaryError(f"{path}: section {section.kernel}: no instructions")
    return distinct


def _number(text: str, path: Path, what: str) -> float:
    try:
        return float(text) if text not in ("", "-") else 0.0
    except ValueError as exc:
        raise SummaryError(f"{path}: {what}: '{text}' is not a number") from exc


def opcode(source: str) -> str:
    """The instruction's opcode with its modifiers (IMAD.WIDE.U32.X), predicate dropped."""
    words = PREDICATE.sub("", source.strip()).split()
    return words[0].rstrip(";") if words else ""


def summarize(section: Section, path: Path) -> dict:
    """Body and subroutines of one section (module docstring)."""
    col = {name: i for i, name in enumerate(section.header)}
    reasons = [h for h in section.header if h.startswith(STALL_PREFIX) and not h.endswith(NOT_ISSUED_SUFFIX)]
    if any(len(row) != len(section.header) for row in section.rows):
        raise SummaryError(f"{path}: section {section.kernel}: a row's column count differs from the header's")
    try:
        addresses = [int(row[col["Address"]], 16) for row in section.rows]
    except ValueError as exc:
        raise SummaryError(f"{path}: section {section.kernel}: an address is not hexadecimal ({exc})") from exc
    sources = [row[col["Source"]].strip() for row in section.rows]
    calls = collections.Counter(int(m.group(1), 16) for s in sources if (m := CALL.search(s)))
    part_of = ["body"] * len(section.rows)
    for target in sorted(calls):
        if target not in addresses:
            raise SummaryError(f"{path}: section {section.kernel}: CALL target {target:#x} is not an instruction")
        start = addresses.index(target)
        end = next((i for i in range(start, len(sources)) if opcode(sources[i]).startswith("RET")), len(sources) - 1)
        for i in range(start, end + 1):
            part_of[i] = f"subroutine {target:#x} ({calls[target]} call sites)"
    parts: dict[str, Part] = {}
    opcodes: collections.Counter = collections.Counter()
    for i, row in enumerate(section.rows):
        part = parts.setdefault(part_of[i], Part(part_of[i]))
        part.instructions += 1
        part.samples += _number(row[col[SAMPLES]], path, f"{sources[i]} samples")
        executed = _number(row[col[EXECUTED]], path, f"{sources[i]} executed")
        part.executed += executed
        opcodes[opcode(sources[i])] += executed
        for reason in reasons:
            part.reasons[reason[len(STALL_PREFIX):]] += _number(row[col[reason]], path, reason)
    samples = sum(p.samples for p in parts.values())
    executed = sum(p.executed for p in parts.values())
    if samples <= 0 or executed <= 0:
        raise SummaryError(f"{path}: section {section.kernel}: no samples or no executed instructions")
    whole: collections.Counter = collections.Counter()
    for p in parts.values():
        whole.update(p.reasons)
    return {
        "kernel": section.kernel,
        "samples": samples,
        "executed_warp_instructions": executed,
        "parts": [
            {
                "part": p.name,
                "instructions": p.instructions,
                "samples_pct": 100 * p.samples / samples,
                "executed_pct": 100 * p.executed / executed,
                "top_reasons_pct": {r: 100 * v / p.samples for r, v in p.reasons.most_common(TOP_REASONS) if v > 0}
                if p.samples > 0 else {},
            }
            for p in sorted(parts.values(), key=lambda p: -p.samples)
        ],
        "reasons_pct": {r: 100 * v / samples for r, v in whole.most_common() if v > 0},
        "opcodes_pct": {o: 100 * v / executed for o, v in opcodes.most_common(TOP_OPCODES)},
    }


def markdown(summaries: list[tuple[str, dict]]) -> str:
    out = []
    for label, s in summaries:
        out.append(f"### {label}: {s['kernel']}\n")
        out.append(f"- warp-stall samples {s['samples']:.0f}; executed warp instructions {s['executed_warp_instructions']:.4g}")
        out.append("- stall reasons, whole kernel (% of samples): "
                   + ", ".join(f"{r} {v:.1f}" for r, v in list(s["reasons_pct"].items())[:8]))
        out.append("- executed instructions by opcode (%): "
                   + ", ".join(f"{o} {v:.1f}" for o, v in s["opcodes_pct"].items()) + "\n")
        out.append("| part | SASS instructions | samples % | executed % | top stall reasons (% of the part's samples) |")
        out.append("|---|---|---|---|---|")
        for p in s["parts"]:
            reasons = ", ".join(f"{r} {v:.1f}" for r, v in p["top_reasons_pct"].items())
            out.append(f"| {p['part']} | {p['instructions']} | {p['samples_pct']:.1f} | {p['executed_pct']:.1f} | {reasons} |")
        out.append("")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path, nargs="+", help="ncu --page source --csv --print-source sass output")
    parser.add_argument("--md", type=Path, required=True, help="markdown summary to write")
    parser.add_argument("--json", type=Path, help="the same as JSON")
    parser.add_argument("--label", action="append", default=[], help="a name for each CSV, in order (default: its name)")
    args = parser.parse_args(argv)
    if args.label and len(args.label) != len(args.csv):
        print(f"error: --label: {len(args.label)} labels for {len(args.csv)} files", file=sys.stderr)
        return 2
    labels = args.label or [p.name for p in args.csv]
    summaries = []
    try:
        for path, label in zip(args.csv, labels):
            sections = read_sections(path)
            for k, section in enumerate(sections):
                numbered = f"{label} #{k + 1}" if len(sections) > 1 else label
                summaries.append((numbered, summarize(section, path)))
    except SummaryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    outputs = [(args.md, markdown(summaries))]
    if args.json:
        outputs.append((args.json, json.dumps([{"label": label, **s} for label, s in summaries], indent=1)))
    for path, text in outputs:
        try:
            path.write_text(text)
        except OSError as exc:
            print(f"error: {path}: cannot write ({exc.__class__.__name__})", file=sys.stderr)
            return 2
    print(outputs[0][1], end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
