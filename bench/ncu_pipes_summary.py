"""Which execution pipe a kernel keeps busy, from Nsight Compute's counters: a summary of ncu's raw CSV page.

Input: the CSV that `ncu --metrics ... --csv --page raw` prints (bench/ncu_pipes.sh), with, for each pipe P the chip
counts, `sm__pipe_P_cycles_active.avg.pct_of_peak_sustained_active` (the cycles the pipe was busy, as % of what it
could sustain while the SM was active) and `sm__inst_executed_pipe_P.sum` (the warp instructions it executed), beside
`gpu__time_duration.sum` and `smsp__inst_executed.sum`. Pipe names and what runs on each: Nsight Compute's Profiling
Guide (https://docs.nvidia.com/nsight-compute/ProfilingGuide/, "Pipelines"): e.g. `alu` integer and logic operations,
`lsu` memory instructions, `fma` the two halves `fmaheavy` and `fmalite`, of which only `fmaheavy` executes the integer
multiply-adds (IMAD) on GH100 (NVIDIA's answer in
https://forums.developer.nvidia.com/t/separate-cuda-core-pipeline-for-fp16-and-fp32/302018/7).

For each launch the summary names the busiest pipes and each pipe's share of the executed instructions: the
measured counterpart of the "multiply-add pipe bound" model in bench/RESULTS_ntt.md and RESULTS_msm.md.

Usage: python3 bench/ncu_pipes_summary.py CSV --md OUT.md [--json OUT.json]
An unreadable file, a file without launches or without the time and pipe columns, or an output that cannot be
written: `error: <file>: <problem>`, exit 2.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernel_times import ns_to_ms, read_ncu_page, read_raw_page  # noqa: E402  (ncu's raw page, as kernel_times reads it)
from output_folders import ArgumentParser  # noqa: E402

TIME = "gpu__time_duration.sum"
INSTRUCTIONS = "smsp__inst_executed.sum"
PIPE_ACTIVE = re.compile(r"^sm__pipe_(\w+?)_cycles_active\.avg\.pct_of_peak_sustained_active$")
PIPE_INSTRUCTIONS = re.compile(r"^sm__inst_executed_pipe_(\w+)\.sum$")
TOP_PIPES = 4


class SummaryError(ValueError):
    """Input this tool cannot read: the message names the file and the problem."""


def _number(text: str) -> float | None:
    text = text.replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return None  # ncu prints "n/a" for a counter the launch did not collect


def read_launches(text: str, source: str) -> list[dict]:
    """One dict a profiled launch: kernel, ms, instructions, {pipe: % active}, {pipe: warp instructions}."""
    try:
        header, name, body, units = read_raw_page(text)
    except ValueError as exc:
        raise SummaryError(f"{source}: {exc}") from None
    active = {m.group(1): i for i, h in enumerate(header) if (m := PIPE_ACTIVE.match(h))}
    executed = {m.group(1): i for i, h in enumerate(header) if (m := PIPE_INSTRUCTIONS.match(h))}
    if not active:
        raise SummaryError(f"{source}: no sm__pipe_*_cycles_active column")
    time = header.index(TIME)
    launches = []
    for row in body:
        ns = _number(row[time])
        if ns is None:
            raise SummaryError(f"{source}: launch {len(launches)} has no time")
        try:
            ms = ns_to_ms(ns, units.get(time, ""))
        except ValueError as exc:
            raise SummaryError(f"{source}: {exc}") from None
        launches.append({
            "kernel": row[name],
            "ms": ms,
            "instructions": _number(row[header.index(INSTRUCTIONS)]) if INSTRUCTIONS in header else None,
            "active_pct": {pipe: v for pipe, i in active.items() if (v := _number(row[i])) is not None},
            "executed": {pipe: v for pipe, i in executed.items() if (v := _number(row[i])) is not None},
        })
    if not launches:
        raise SummaryError(f"{source}: no launches")
    return launches


def markdown(launches: list[dict]) -> str:
    lines = ["| launch | kernel | ms | warp instructions | busiest pipes (% of peak, active cycles) "
             "| their share of the instructions |", "|---|---|---|---|---|---|"]
    for k, launch in enumerate(launches):
        top = sorted(launch["active_pct"].items(), key=lambda item: -item[1])[:TOP_PIPES]
        total = launch["instructions"]
        busiest = ", ".join(f"{pipe} {pct:.1f}" for pipe, pct in top)
        shares = ", ".join(f"{pipe} {100 * launch['executed'][pipe] / total:.1f}%" for pipe, _ in top
                           if total and pipe in launch["executed"]) or "—"
        count = f"{total / 1e9:.2f} G" if total else "—"
        lines.append(f"| {k} | {launch['kernel']} | {launch['ms']:.2f} | {count} | {busiest} | {shares} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", type=Path, help="ncu's raw page (--csv --page raw) with the pipe counters")
    parser.add_argument("--md", type=Path, required=True, help="write the table here")
    parser.add_argument("--json", type=Path, help="write every launch's counters here")
    args = parser.parse_args(argv)
    try:
        try:
            text = read_ncu_page(args.csv)
        except OSError as exc:
            raise SummaryError(f"{args.csv}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise SummaryError(f"{args.csv}: {exc}") from None
        launches = read_launches(text, str(args.csv))
        table = markdown(launches)
        for path, content in ((args.md, table),
                              (args.json, json.dumps(launches, indent=1) + "\n" if args.json else None)):
            if path is None:
                continue
            try:
                path.write_text(content)
            except OSError as exc:
                raise SummaryError(f"{path}: {exc.strerror or exc}") from None
    except SummaryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
