"""Ratio table of our GPU MSM/NTT against sppark, measured in the same device call (issue 18's goals).

    python3 bench/sppark_ratio.py --sppark sppark.log --msm msm.json --ntt ntt.json --env env.json
                                  --md ratio.md --json ratio.json

Inputs: the output of the sppark anchor's ./bench (lines ``sppark <op> log=<k> median_ms=<x> min_ms=<y>
inputs=device``, and ``... check=ok|FAIL`` when it verified), the --json files of bench/bench_msm.py and
bench/bench_ntt.py, and the environment record (conformance.timing.environment). Speedup = sppark's median /
ours: above 1 we are faster. A goal is 'met' or 'missed' only when every number it needs was measured (and
sppark's result, where it is needed, was checked ok); otherwise 'not judged', saying what is missing. Our results
are timed, not checked (bench_msm.py and bench_ntt.py check no output), so 'met' reads 'met (timing only; our
outputs not checked in this run)'.
bench/bench_vs_sppark.sh runs everything in one device call and calls this last.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/
from bench_ntt import CONSUMED_NTT_H  # noqa: E402  (the row of ntt_h on the prover's route)
from conformance.timing import code_label  # noqa: E402
from output_folders import ArgumentParser, add_output_arguments  # noqa: E402

SPPARK_TIME = re.compile(r"^sppark (\w+) log=(\d+) median_ms=([0-9.]+) min_ms=([0-9.]+) inputs=(device|host)$")
SPPARK_CHECK = re.compile(r"^sppark (\w+) log=(\d+) inputs=(device|host) check=(ok|FAIL)$")
SPPARK_FAILED = re.compile(r"^sppark (\w+) log=(\d+) FAILED inputs=(device|host)$")

ROWS = (("g1_msm", 20), ("g1_msm", 24), ("g1_msm", 26), ("g2_msm", 24), ("fr_ntt_fwd", 24), ("fr_ntt_fwd", 27),
        ("ntt_h", 27))
"""The rows of the table: (sppark's op name, log2 size); ntt_h (one circuit) has no sppark counterpart."""
LABELS = {"g1_msm": "G1 MSM", "g2_msm": "G2 MSM", "fr_ntt_fwd": "Fr NTT forward",
          "ntt_h": "ntt_h, one circuit, the prover's route"}
"""The rows' labels. The ntt_h goal is the proof's ntt_h, so its row is judged on bench_ntt's CONSUMED_NTT_H row (its
inputs consumed as work buffers, as the prover calls it), not on bench_ntt's `ntt_h` rows (inputs kept), a route the
prover does not take; a record without that row leaves the goal not judged."""

MET = "met (timing only; our outputs not checked in this run)"
"""A goal's verdict when every condition holds: our side's medians come from bench_msm.py and bench_ntt.py, which time
their calls and check none of their results, so a met goal says no more than that the times were within it (sppark's
side is checked where a condition needs it, see _condition)."""

GOALS = {
    ("g1_msm", 24): (("max_ms", 80.0), ("min_speedup", 1.9)),
    ("g1_msm", 26): (("max_ms", 300.0),),
    ("g2_msm", 24): (("max_times_row", ("g1_msm", 24), 2.5), ("faster",)),
    ("fr_ntt_fwd", 27): (("max_ms", 38.0), ("faster",)),
    ("ntt_h", 27): (("max_ms", 250.0),),
}
"""Issue 18's goal table, one tuple of conditions a row: max_ms (our median at most that), min_speedup (sppark /
ours at least that), faster (sppark / ours above 1), max_times_row (our median at most k times our median of
another row)."""


INPUT_DIFFERENCES = (
    "MSM points: ours 2^k distinct points (b + i a) G (bench_msm.py); sppark 2^16 distinct random points tiled to "
    "the size",
    "MSM scalars: ours in Montgomery form, converted in the digit kernel (as ntt_h hands h to msm_h); sppark's "
    "canonical (mont=false)",
    "MSM memory: sppark allocates and frees its buckets (cudaMalloc) inside every timed call; ours takes its scratch "
    "from CuPy's memory pool (after the warm-up no cudaMalloc) and its time includes the host's two read-backs of "
    "totals a call",
    "NTT: ours out of place into a preallocated output and scratch, sppark in place; both natural order in and out",
)
"""What differs between the two sides' inputs and timed regions (sppark: the anchor's README and bench.cu)."""


def parse_sppark(text: str) -> dict:
    """{(op, log2): {"median_ms", "min_ms", "check"}} of sppark's device-input rows; check is "ok", "FAIL" or None
    (not verified); a row whose call failed has median_ms None and check "FAIL"."""
    rows: dict = {}
    for line in text.splitlines():
        line = line.strip()
        if m := SPPARK_TIME.match(line):
            op, log2, median, low, inputs = m.groups()
            if inputs == "device":  # a new time needs its own check line; a failed check of the row stays failed
                failed = rows.get((op, int(log2)), {}).get("check") == "FAIL"
                rows[(op, int(log2))] = {"median_ms": float(median), "min_ms": float(low), "check": "FAIL" if failed else None}
        elif m := SPPARK_FAILED.match(line):
            op, log2, inputs = m.groups()
            if inputs == "device":
                rows[(op, int(log2))] = {"median_ms": None, "min_ms": None, "check": "FAIL"}
        elif m := SPPARK_CHECK.match(line):
            op, log2, inputs, check = m.groups()
            if inputs == "device":
                row = rows.setdefault((op, int(log2)), {"median_ms": None, "min_ms": None, "check": None})
                row["check"] = "FAIL" if "FAIL" in (row["check"], check) else check
    return rows


def ours_from(msm: dict | None, ntt: dict | None) -> dict:
    """{(op, log2): median ms} from bench_msm.py's and bench_ntt.py's --json documents (either may be None); ntt_h's
    from the CONSUMED_NTT_H row."""
    ours = {}
    for r in (msm or {}).get("rows", []):
        if r.get("op") == "msm":
            ours[(f"{r['group']}_msm", r["log2"])] = r["median_ms"]
    for r in (ntt or {}).get("rows", []):
        if r.get("op") == "forward" and r.get("circuits") == 1:
            ours[("fr_ntt_fwd", r["log_n"])] = r["ms"]
        elif r.get("op") == CONSUMED_NTT_H and r.get("circuits") == 1:
            ours[("ntt_h", r["log_n"])] = r["ms"]
    return ours


def _condition(cond: tuple, key: tuple, ours: dict, sppark: dict) -> tuple[str, bool | None, str]:
    """(text, True/False/None = not judged, what is missing) of one goal condition for row ``key``."""
    mine = ours.get(key)
    kind = cond[0]
    if kind == "max_ms":
        text = f"<= {cond[1]:g} ms"
        return (text, None, "ours not measured") if mine is None else (text, mine <= cond[1], "")
    if kind == "max_times_row":
        other, factor = cond[1], cond[2]
        text = f"<= {factor:g}x our {LABELS[other[0]]} 2^{other[1]}"
        if mine is None or ours.get(other) is None:
            return text, None, "ours not measured"
        return text, mine <= factor * ours[other], ""
    text = "faster than sppark" if kind == "faster" else f">= {cond[1]:g}x sppark"
    theirs = sppark.get(key, {})
    if mine is None:
        return text, None, "ours not measured"
    if theirs.get("median_ms") is None:
        return text, None, "sppark not measured"
    if theirs.get("check") == "FAIL":
        return text, None, "sppark's result check failed"
    if theirs.get("check") != "ok":  # a time line without its check line (e.g. the run cut off between the two)
        return text, None, "sppark's result not checked"
    speedup = theirs["median_ms"] / mine
    return text, speedup > 1 if kind == "faster" else speedup >= cond[1], ""


def ratio_rows(ours: dict, sppark: dict) -> list[dict]:
    """One dict a row of ROWS: our and sppark's medians, the speedup, each goal condition and the verdict."""
    rows = []
    for key in ROWS:
        mine, theirs = ours.get(key), sppark.get(key, {})
        their_ms = theirs.get("median_ms")
        conditions = [_condition(c, key, ours, sppark) for c in GOALS.get(key, ())]
        results = [ok for _, ok, _ in conditions]
        if not conditions:
            verdict = "no goal"
        elif None in results:
            verdict = "not judged (" + ", ".join(sorted({why for _, ok, why in conditions if ok is None})) + ")"
        else:
            verdict = MET if all(results) else "missed"
        rows.append({
            "op": key[0], "log2": key[1], "ours_ms": mine, "sppark_ms": their_ms, "sppark_check": theirs.get("check"),
            "speedup": their_ms / mine if mine and their_ms else None,
            "goal": " and ".join(text for text, _, _ in conditions),
            "conditions": [{"goal": text, "met": ok, "missing": why} for text, ok, why in conditions],
            "verdict": verdict,
        })
    return rows


def _ms(value) -> str:
    return "—" if value is None else f"{value:.2f}"


def markdown(rows: list[dict], env: dict, notes: list[str] = ()) -> str:
    """The table with its header: date, GPU, driver, commit, and the method."""
    gpu = env.get("gpu") or {}
    head = [
        "# Ours vs sppark, one device call",
        "",
        f"- date: {env.get('date', '?')}",
        f"- GPU: {gpu.get('name', '?')} (driver {gpu.get('driver', '?')}, CUDA driver API {gpu.get('cuda_driver_api', '?')}, "
        f"CuPy {gpu.get('cupy', '?')})",
        f"- code: {code_label(env)}",
        "- method: bench/bench_vs_sppark.sh; device-resident inputs, uniform random scalars < r; median of 5 after "
        "warm-up (ours: CUDA events around the Python call; sppark: wall clock around one synchronised library call, "
        "its bucket allocation included). Speedup = sppark / ours (> 1: we are faster).",
        *(f"- {difference}" for difference in INPUT_DIFFERENCES),
        *(f"- {note}" for note in notes),
        "",
        "| what | size | ours ms | sppark ms | speedup | goal (issue 18) | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    lines = []
    for r in rows:
        check = " (check FAILED)" if r["sppark_check"] == "FAIL" else ""
        speedup = "—" if r["speedup"] is None else f"{r['speedup']:.2f}x"
        lines.append(f"| {LABELS[r['op']]} | 2^{r['log2']} | {_ms(r['ours_ms'])} | {_ms(r['sppark_ms'])}{check} | "
                     f"{speedup} | {r['goal'] or '—'} | {r['verdict']} |")
    return "\n".join(head + lines) + "\n"


ROW_FIELDS = {"msm": (("group", str), ("log2", int), ("median_ms", float)),
              "ntt": (("log_n", int), ("circuits", int), ("ms", float))}
"""The fields ours_from reads of each row it uses, by document (bench_msm.py's, bench_ntt.py's), and their types."""


def _problem(document, kind: str) -> str | None:
    """What keeps ours_from from reading a bench_msm (kind "msm") or bench_ntt ("ntt") document, or None."""
    rows = document.get("rows") if isinstance(document, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return "rows: expected a list of objects"
    for r in rows:
        if r.get("op") in ("msm", "forward", CONSUMED_NTT_H):
            for name, expected in ROW_FIELDS[kind]:
                if not _is(r.get(name), expected):
                    return f"rows: {r.get('op')} row's {name}: expected {expected.__name__}, got {r.get(name)!r}"
    return None


def _is(value, expected: type) -> bool:
    """isinstance, where float takes any JSON number and neither int nor float takes a bool."""
    if isinstance(value, bool):
        return expected is bool
    return isinstance(value, (int, float)) if expected is float else isinstance(value, expected)


def _load(path: Path | None, notes: list[str], kind: str | None = None):
    """The JSON document at ``path``, or None (and a note saying why) when it is missing, unreadable or not of the
    shape ours_from (kind "msm" or "ntt") or the header (kind None: an object, its gpu an object or null) reads: the
    table is still written, its rows from that file 'not measured'."""
    if path is None:
        return None
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        notes.append(f"{path.name} not read ({type(exc).__name__}): its rows are not measured")
        return None
    if kind is None:  # the environment: the header's facts
        if isinstance(document, dict) and isinstance(document.get("gpu") or {}, dict):
            return document
        notes.append(f"{path.name} not read (expected an object whose gpu is an object or null): the header's facts "
                     "are unknown")
        return None
    problem = _problem(document, kind)
    if problem:
        notes.append(f"{path.name} not read ({problem}): its rows are not measured")
        return None
    return document


def main(argv=None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sppark", type=Path, required=True, help="sppark ./bench output")
    parser.add_argument("--msm", type=Path, help="bench_msm.py --json output")
    parser.add_argument("--ntt", type=Path, help="bench_ntt.py --json output")
    parser.add_argument("--env", type=Path, help="conformance.timing.environment() as JSON")
    parser.add_argument("--note", action="append", default=[], help="a line for the header (repeatable)")
    add_output_arguments(parser, json_help="write the rows, the notes and every measured result (JSON) here",
                         md_help="write the ratio table (markdown) here", required=True)
    args = parser.parse_args(argv)
    sppark_text = args.sppark.read_text(errors="replace") if args.sppark.is_file() else ""
    sppark = parse_sppark(sppark_text)
    notes = list(args.note) + [line[2:] for line in sppark_text.splitlines() if line.startswith("# device:")][:1]
    if not sppark:
        notes.append(f"{args.sppark.name}: no sppark result lines: its rows are not measured")
    ours = ours_from(_load(args.msm, notes, "msm"), _load(args.ntt, notes, "ntt"))
    env = _load(args.env, notes) or {}
    rows = ratio_rows(ours, sppark)
    text = markdown(rows, env, notes)
    args.md.write_text(text)
    args.json.write_text(json.dumps({
        "environment": env, "notes": notes, "rows": rows,
        "sppark_all": [{"op": op, "log2": k, **v} for (op, k), v in sorted(sppark.items())],
        "ours_all": [{"op": op, "log2": k, "median_ms": v} for (op, k), v in sorted(ours.items())],
    }, indent=1) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
