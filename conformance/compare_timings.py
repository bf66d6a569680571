"""``python -m conformance compare BASELINE NEW``: is NEW slower than BASELINE, phase by phase, beyond noise?

Noise rule (stated once here; docs/PERFORMANCE.md cites it). For each (case, backend, phase) timed in both runs:

    noise  = max(baseline spread, new spread, TIMER_RESOLUTION_S)        spread = max - min of the timed runs
    diff   = new median - baseline median
    slower        diff >  noise
    faster        diff < -noise
    within noise  |diff| <= noise       (never a regression, whatever the percentage)
    not judged    either side has fewer than MIN_TIMED_RUNS timed runs (a spread from fewer says nothing), or the
                  baseline median is 0 (a timer can read 0 for a stage with no work: no slowdown is a % of it)

``beyond_noise_pct`` = (|diff| - noise) / baseline median * 100 for slower/faster entries, else 0. With
``--max-slowdown PCT`` the comparison fails (exit 1) when any entry is slower with beyond_noise_pct > PCT, and is
INCOMPLETE (exit 1) when none is but some entry is not judged, unless ``--allow-unjudged`` (then PASS, naming them).

Runs are comparable when they come from the same tool on the same machine model (GPU model, or CPU model for
CPU-only runs) and time the same cases with the same shapes and the same (backend, phase) entries, each of one kind; otherwise
``compare`` refuses them (InvalidInputError 'mismatch', exit 2) unless asked to compare the common entries anyway.
Other environment differences (driver, CUDA, CuPy, clocks, commit, the GPU sources' digest) are listed, not refused: they are often what
is being compared. So are entries whose two runs left out a different number of warm-up runs (``warmup_differences``): a
side that left out none may time its first run's one-time costs (kernel compilation, module loading), so their medians
are not like for like, and a PASS names them.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from gpu.staging import WHOLE_RUN
from reference.errors import InvalidInputError

from .report import aligned_table
from .timing import Stats, code_label, entry, entry_key, load_timings, machine_label, timing_document

UNIT = "seconds"
"""The one unit of a timing record's runs (TIMING_SCHEMA.md; timing_document writes it)."""

SCHEMA_NAME = "groth16-timing-comparison"
SCHEMA_VERSION = 1
MIN_TIMED_RUNS = 3
"""Timed runs (after warm-up) each side needs for a verdict: the spread of one or two runs is no noise estimate."""
TIMER_RESOLUTION_S = 1e-6
"""The smallest difference called real: CUDA events resolve about 0.5 microseconds, perf_counter better."""
SLOWER, FASTER, WITHIN_NOISE, NOT_JUDGED = "slower", "faster", "within noise", "not judged"
VERDICTS = (SLOWER, FASTER, WITHIN_NOISE, NOT_JUDGED)
TOO_FEW_RUNS = f"fewer than {MIN_TIMED_RUNS} timed runs on a side (record both runs with more repeats, e.g. --repeat 6)"
ZERO_BASELINE = "a baseline median of 0 s (no slowdown is a percentage of it)"
"""Why an entry is not judged (the noise rule above)."""
COMPARED_ENVIRONMENT = ("commit", "gpu_sources", "date", "python", "cpu")
COMPARED_GPU = ("driver", "cuda_driver_api", "cuda_runtime", "cupy", "clocks_mhz", "pstate")
"""Environment facts whose differences are listed (not refused)."""
SHA256_HEX = re.compile(r"[0-9a-f]{64}")
"""A gpu_sources value: conformance/sources.py's digest as hexdigest() writes it."""
ONE_TREE = ("commit", "gpu_sources")
"""Environment facts that rounds pooled into one record must share: the same code."""


@dataclass(frozen=True)
class Row:
    """One (case, backend, phase) timed in both runs, and the verdict."""

    case: str
    backend: str
    phase: str
    kind: str
    baseline: Stats
    new: Stats

    @property
    def name(self) -> str:
        """case/backend/phase: how the summary names an entry (_name)."""
        return _name((self.case, self.backend, self.phase))

    @property
    def why_not_judged(self) -> str | None:
        """Why the noise rule cannot judge this entry (None when it can)."""
        if len(self.baseline.runs) < MIN_TIMED_RUNS or len(self.new.runs) < MIN_TIMED_RUNS:
            return TOO_FEW_RUNS
        if self.baseline.median <= 0:
            return ZERO_BASELINE
        return None

    @property
    def judged(self) -> bool:
        return self.why_not_judged is None

    @property
    def noise(self) -> float:
        return max(self.baseline.spread, self.new.spread, TIMER_RESOLUTION_S)

    @property
    def diff(self) -> float:
        return self.new.median - self.baseline.median

    @property
    def change_pct(self) -> float | None:
        return self.diff / self.baseline.median * 100 if self.baseline.median > 0 else None

    @property
    def verdict(self) -> str:
        if not self.judged:
            return NOT_JUDGED
        if self.diff > self.noise:
            return SLOWER
        if self.diff < -self.noise:
            return FASTER
        return WITHIN_NOISE

    @property
    def beyond_noise_pct(self) -> float:
        """How far past the noise the difference goes, in % of the baseline median (0 within noise)."""
        if self.verdict not in (SLOWER, FASTER):  # judged: the baseline median is > 0
            return 0.0
        return (abs(self.diff) - self.noise) / self.baseline.median * 100

    def fails(self, max_slowdown_pct: float | None) -> bool:
        return max_slowdown_pct is not None and self.verdict == SLOWER and self.beyond_noise_pct > max_slowdown_pct


@dataclass
class Comparison:
    baseline_path: str
    new_path: str
    baseline: dict
    new: dict
    rows: list[Row]
    only_in_baseline: list[tuple]
    only_in_new: list[tuple]
    mismatches: list[str]
    environment_differences: list[str]
    max_slowdown_pct: float | None = None
    allow_unjudged: bool = False
    warmup_differences: list[tuple] = field(default_factory=list)
    """((case, backend, phase), baseline's warm-up runs, new's) where they differ (warmup_differences)."""

    @property
    def failing(self) -> list[Row]:
        return [r for r in self.rows if r.fails(self.max_slowdown_pct)]

    @property
    def unjudged(self) -> list[Row]:
        return [r for r in self.rows if not r.judged]

    @property
    def result(self) -> str:
        """'fail' (a gate was set and an entry is slower beyond it), 'incomplete' (gate set, none is, but some entry
        could not be judged and --allow-unjudged was not given), 'pass' (gate set, every entry judged or the unjudged
        ones allowed, none slower), 'report' (no gate)."""
        if self.max_slowdown_pct is None:
            return "report"
        if self.failing:
            return "fail"
        return "incomplete" if self.unjudged and not self.allow_unjudged else "pass"


def _shapes(doc: dict) -> dict[str, dict]:
    return {e["case"]: e["shape"] for e in doc["entries"]}


def mismatches(baseline: dict, new: dict) -> list[str]:
    """Why the two runs cannot be compared as they are (empty when they can)."""
    problems = []
    if baseline["tool"] != new["tool"]:
        problems.append(f"tool: baseline {baseline['tool']!r}, new {new['tool']!r}")
    machine_b, machine_n = machine_label(baseline["environment"]), machine_label(new["environment"])
    if machine_b != machine_n:
        problems.append(f"machine: baseline {machine_b}, new {machine_n}")
    shapes_b, shapes_n = _shapes(baseline), _shapes(new)
    if set(shapes_b) != set(shapes_n):
        gone, added = sorted(set(shapes_b) - set(shapes_n)), sorted(set(shapes_n) - set(shapes_b))
        problems.append("cases: " + "; ".join(part for part in (
            f"only in baseline: {', '.join(gone)}" if gone else "", f"only in new: {', '.join(added)}" if added else "") if part))
    for case in sorted(set(shapes_b) & set(shapes_n)):
        if shapes_b[case] != shapes_n[case]:
            problems.append(f"shape of {case}: baseline {shapes_b[case]}, new {shapes_n[case]}")
    keys_b = {entry_key(e) for e in baseline["entries"]}
    keys_n = {entry_key(e) for e in new["entries"]}
    common_cases = set(shapes_b) & set(shapes_n)
    differing = sorted(k for k in keys_b ^ keys_n if k[0] in common_cases)
    if differing:
        problems.append(f"timed phases: {len(differing)} (case, backend, phase) entries are in one run only, e.g. "
                        + ", ".join("/".join(k) for k in differing[:3]))
    kinds_b, kinds_n = ({entry_key(e): e["kind"] for e in doc["entries"]} for doc in (baseline, new))
    problems += [f"kind of {'/'.join(k)}: baseline {kinds_b[k]}, new {kinds_n[k]}"
                 for k in sorted(keys_b & keys_n) if kinds_b[k] != kinds_n[k]]
    return problems


def warmup_differences(baseline: dict, new: dict) -> list[tuple]:
    """((case, backend, phase), baseline's warm-up runs, new's) for each entry of both records whose warm-up runs left
    out differ. (A pooled record counts every round's: compare it with a record pooled from as many rounds.)"""
    warmups_n = {entry_key(e): e["stats"].warmup_runs for e in new["entries"]}
    return [(entry_key(e), e["stats"].warmup_runs, warmups_n[entry_key(e)]) for e in baseline["entries"]
            if entry_key(e) in warmups_n and e["stats"].warmup_runs != warmups_n[entry_key(e)]]


def warmup_text(differences: list[tuple]) -> str:
    """'warm-up runs differ (not like for like): porep-log10 gpu msm_h: 1 vs 0; ...' (first record's vs second's)."""
    return "warm-up runs differ (not like for like): " + "; ".join(f"{' '.join(key)}: {a} vs {b}" for key, a, b in differences)


def _differing(a: dict, b: dict, keys) -> list[tuple[str, object, object]]:
    """(key, a's value, b's value) for each of ``keys`` on which the two dicts differ."""
    return [(key, a.get(key), b.get(key)) for key in keys if a.get(key) != b.get(key)]


def _environment_differences(baseline: dict, new: dict) -> list[str]:
    env_b, env_n = baseline["environment"], new["environment"]
    lines = [f"{key}: {old} -> {now}" for key, old, now in _differing(env_b, env_n, COMPARED_ENVIRONMENT)]
    gpu = _differing(env_b.get("gpu") or {}, env_n.get("gpu") or {}, COMPARED_GPU)
    return lines + [f"gpu {key}: {old} -> {now}" for key, old, now in gpu]


def same_runs(first: dict, second: dict) -> bool:
    """Whether two timing records hold the same timed runs: every entry they share has the same runs, in whatever
    order (of the runs, of the entries, of the rounds pooled into them) and whatever else differs (command, date,
    pooled_from). Equal documents were all that was refused before: a copy with its command edited, or the same two
    rounds pooled in the other order, compared as within noise everywhere and printed PASS."""
    runs = {entry_key(e): sorted(e["stats"].runs) for e in second["entries"]}
    shared = [e for e in first["entries"] if entry_key(e) in runs]
    return bool(shared) and all(sorted(e["stats"].runs) == runs[entry_key(e)] for e in shared)


def compare_documents(baseline: dict, new: dict, allow_mismatch: bool = False, max_slowdown_pct: float | None = None,
                      baseline_path: str = "baseline", new_path: str = "new", allow_unjudged: bool = False) -> Comparison:
    """The comparison of two validated timing records (timing.check_timing_document). Raises
    InvalidInputError('mismatch', ...) when they are not comparable and allow_mismatch is False, and (``new_path``, ...)
    when the two are one record (the same runs)."""
    if max_slowdown_pct is not None and not (0 <= max_slowdown_pct < math.inf):  # inf: a gate that can never fail
        raise InvalidInputError("--max-slowdown", f"must be a finite percentage >= 0, got {max_slowdown_pct}")
    problems = mismatches(baseline, new)
    if problems and not allow_mismatch:
        raise InvalidInputError("mismatch", "the runs are not comparable: " + "; ".join(problems)
                                + " (--allow-mismatch compares the common entries anyway)")
    if same_runs(baseline, new):  # every entry within noise by construction: a PASS that timed nothing against anything
        raise InvalidInputError(new_path, f"holds the same runs as {baseline_path}: a run compared with itself checks "
                                "nothing")
    by_key_n = {entry_key(e): e for e in new["entries"]}
    rows = [Row(*entry_key(e), e["kind"], e["stats"], by_key_n[entry_key(e)]["stats"])
            for e in baseline["entries"] if entry_key(e) in by_key_n]
    if not rows:
        raise InvalidInputError("mismatch", "the runs have no (case, backend, phase) entry in common")
    keys_b = {entry_key(e) for e in baseline["entries"]}
    comparison = Comparison(
        baseline_path, new_path, baseline, new, rows,
        only_in_baseline=sorted(keys_b - set(by_key_n)), only_in_new=sorted(set(by_key_n) - keys_b),
        mismatches=problems, environment_differences=_environment_differences(baseline, new),
        max_slowdown_pct=max_slowdown_pct, allow_unjudged=allow_unjudged, warmup_differences=warmup_differences(baseline, new),
    )
    if max_slowdown_pct is not None and not any(r.judged for r in rows):  # a gate that judged nothing never passes
        raise InvalidInputError("--max-slowdown", "no entry can be judged: " + "; ".join(_reasons_not_judged(rows)))
    return comparison


def _reasons_not_judged(rows: list[Row]) -> list[str]:
    """Each distinct reason why some of ``rows`` are not judged, in a fixed order."""
    return sorted({r.why_not_judged for r in rows if not r.judged})


def load_record(path) -> dict:
    """load_timings, and the fields compare and pool read that it leaves unchecked: environment.gpu (null, or an object
    naming the GPU model: machine_label reads gpu["name"]), environment.gpu_sources (code_label prints its first digits),
    command (pool joins the rounds' commands) and unit (the runs are read as seconds: a record in another unit would
    be compared as if it were in seconds). A record where
    they have another type is refused, naming the file, instead of failing with a traceback."""
    doc = load_timings(path)
    if doc.get("unit") != UNIT:
        raise InvalidInputError(f"{path}: unit", f"expected \"{UNIT}\" (the only unit of a timing record), got {doc.get('unit')!r}")
    gpu = doc["environment"].get("gpu")
    if gpu is not None and not (isinstance(gpu, dict) and isinstance(gpu.get("name"), str) and gpu["name"]):
        raise InvalidInputError(f"{path}: environment.gpu", "expected null (a CPU-only run) or an object whose \"name\" "
                                "is the GPU model as a non-empty string")
    if not isinstance(doc.get("command"), str):
        raise InvalidInputError(f"{path}: command", "expected a string")
    sources = doc["environment"].get("gpu_sources")
    if sources is not None and not (isinstance(sources, str) and SHA256_HEX.fullmatch(sources)):
        raise InvalidInputError(f"{path}: environment.gpu_sources", "expected null or absent (records made before it), "
                                "or the sources' sha256 as 64 lowercase hex digits")
    _refuse_unprintable_text(doc, str(path))
    _refuse_two_shapes(doc, str(path))
    return doc


def _refuse_two_shapes(doc: dict, path: str) -> None:
    """Every entry of one case has that case's shape: ``mismatches`` compares the shapes case by case."""
    first: dict[str, int] = {}
    for i, e in enumerate(doc["entries"]):
        j = first.setdefault(e["case"], i)
        if e["shape"] != doc["entries"][j]["shape"]:
            raise InvalidInputError(f"{path}: entries[{i}].shape", f"differs from entries[{j}].shape of the same case "
                                    f"{e['case']} (one case, one shape)")


def _refuse_unprintable_text(doc: dict, path: str) -> None:
    """Every string of the record, keys included, printable (str.isprintable: no newline, carriage return, escape or
    other control character, no line separator): compare and pool print its case, backend and phase names and its
    environment (commit, date, CPU and GPU names, ...), and a value such as "abc\nresult: PASS" printed a forged verdict
    line above the real one. Iterative: the record's nesting is bounded (reference/safe_files.py), not its breadth."""
    stack = [(doc, "")]
    while stack:
        value, at = stack.pop()
        if isinstance(value, str):
            if not value.isprintable():
                raise InvalidInputError(f"{path}: {at or '(record)'}", f"{value!r:.80} holds a control character or line "
                                        "break: a record's text is printed, and must be one line of printable characters")
        elif isinstance(value, dict):
            for key, item in value.items():
                sub = f"{at}.{key}" if at else str(key)
                stack += [(key, sub + " (key)"), (item, sub)]
        elif isinstance(value, list):
            stack.extend((item, f"{at}[{i}]") for i, item in enumerate(value))


def compare_files(baseline_path, new_path, allow_mismatch: bool = False, max_slowdown_pct: float | None = None,
                  allow_unjudged: bool = False) -> Comparison:
    return compare_documents(load_record(baseline_path), load_record(new_path), allow_mismatch, max_slowdown_pct,
                             str(baseline_path), str(new_path), allow_unjudged)


def pooled_document(paths) -> dict:
    """One timing record holding the timed runs of several rounds of one tree (bench/ab.sh AB_ORDER=abba runs A B B A
    and pools each tree's two rounds): each entry's runs in the rounds' order, their warm-ups counted together. The
    rounds must be comparable (``mismatches``: one tool, machine model, cases, shapes and entries) and of one tree
    (ONE_TREE), and no round may be given twice (the same runs twice).
    A drift between rounds (clocks, heat, the machine's other work) then widens both sides' spread, which the noise
    rule reads as noise, instead of landing on whichever tree ran second."""
    if len(paths) < 2:
        raise InvalidInputError("rounds", f"pooling needs two or more timing records, got {len(paths)}")
    rounds = [load_record(path) for path in paths]
    first = rounds[0]
    for path, other in zip(paths[1:], rounds[1:]):
        problems = mismatches(first, other) + [
            f"{key}: {a} and {b} (rounds of one tree only)"
            for key, a, b in _differing(first["environment"], other["environment"], ONE_TREE)]
        warmups = warmup_differences(first, other)  # summed, they would hide which round's runs paid one-time costs
        problems += [warmup_text(warmups)] if warmups else []
        if problems:
            raise InvalidInputError(str(path), f"cannot be pooled with {paths[0]}: " + "; ".join(problems))
    for k, round_k in enumerate(rounds[1:], start=1):  # one round twice would count its runs twice: more runs, no news
        same = next((j for j in range(k) if same_runs(rounds[j], round_k)), None)
        if same is not None:
            raise InvalidInputError(str(paths[k]), f"holds the same runs as {paths[same]}: a round given twice would count "
                                    "its runs twice (and reach the runs a verdict needs without timing anything more)")
    by_key = [{entry_key(e): e["stats"] for e in other["entries"]} for other in rounds]
    entries = []
    for e in first["entries"]:
        parts = [keyed[entry_key(e)] for keyed in by_key]
        stats = Stats(tuple(run for part in parts for run in part.runs), sum(part.warmup_runs for part in parts))
        entries.append(entry(e["case"], e["backend"], e["phase"], stats, e["kind"], e["shape"]))
    return timing_document(first["tool"], " && ".join(r["command"] for r in rounds), entries, first["environment"],
                           pooled_from=[{"path": str(path), "date": r["environment"].get("date")} for path, r in zip(paths, rounds)])


# ---------------------------------------------------------------------------------------------
# Output: table rows, terminal text, Markdown, JSON
# ---------------------------------------------------------------------------------------------


def seconds_text(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def signed_seconds_text(seconds: float) -> str:
    return ("-" if seconds < 0 else "+") + seconds_text(abs(seconds))


PCT_DECIMALS = 1
"""Decimals of a printed percentage, unless more are needed to tell it from 0 or from the gate (pct_text)."""
MAX_PCT_DECIMALS = 12


def pct_text(value: float, sign: str = "+", above: float | None = None) -> str:
    """``value`` % with PCT_DECIMALS decimals, or as many more as it takes for a nonzero value not to read as 0 and, with
    ``above`` (the gate), for a value above it not to read as at or below it: '+0.04%', not '+0.0%'."""
    for decimals in range(PCT_DECIMALS, MAX_PCT_DECIMALS + 1):
        text = f"{value:{sign}.{decimals}f}"
        shown = float(text)
        if (shown != 0 or value == 0) and (above is None or value <= above or shown > above):
            break
    return text + "%"


def _signed_pct(value: float | None) -> str:
    return "-" if value is None else pct_text(value)


HEADER = ["case", "backend", "phase", "baseline median (spread, runs)", "new median (spread, runs)",
          "difference (noise)", "change", "beyond noise", "verdict"]


def table_rows(comparison: Comparison) -> list[list[str]]:
    out = []
    for r in comparison.rows:
        verdict = r.verdict + (" FAIL" if r.fails(comparison.max_slowdown_pct) else "")
        out.append([r.case, r.backend, r.phase,
                    f"{seconds_text(r.baseline.median)} ({seconds_text(r.baseline.spread)}, {len(r.baseline.runs)})",
                    f"{seconds_text(r.new.median)} ({seconds_text(r.new.spread)}, {len(r.new.runs)})",
                    f"{signed_seconds_text(r.diff)} (noise {seconds_text(r.noise)})",
                    _signed_pct(r.change_pct),
                    pct_text(r.beyond_noise_pct, "", comparison.max_slowdown_pct) if r.verdict in (SLOWER, FASTER) else "-",
                    verdict])
    return out


KIND_PLURALS = {"phase": "phases", "host": "host stages", "copy": "copies"}
"""How the sums line names each kind of entry (timing.KINDS)."""


def sum_lines(rows: list[Row]) -> list[str]:
    """Per case, backend and kind, the sums of the entries' medians on both sides: a slowdown spread over entries each
    within noise shows here. Told, not judged (no noise of a sum is measured); kinds are summed apart, as their clocks
    differ (a host stage may hold a copy). A whole run (WHOLE_RUN) spans the other entries, so it is not summed with
    them: where one backend holds all of its case's entries, what it holds beyond theirs is told instead."""
    sums: dict[tuple, list[float]] = {}
    for r in (r for r in rows if r.phase != WHOLE_RUN):
        both = sums.setdefault((r.case, r.backend, r.kind), [0.0, 0.0])
        both[0] += r.baseline.median
        both[1] += r.new.median
    lines = [f"sum of medians, {case} {backend} {KIND_PLURALS[kind]} (told, not judged): {_change_text(b, n)}"
             for (case, backend, kind), (b, n) in sums.items()]
    for whole in (r for r in rows if r.phase == WHOLE_RUN):
        parts = {(backend, kind): sides for (case, backend, kind), sides in sums.items() if case == whole.case}
        if all(backend == whole.backend for backend, _ in parts):
            others_b, others_n = (sum(sides[k] for sides in parts.values()) for k in (0, 1))
            lines.append(f"{WHOLE_RUN} beyond the sum of the other medians, {whole.case} {whole.backend} (time no entry "
                         f"names; told, not judged): {_change_text(whole.baseline.median - others_b, whole.new.median - others_n)}")
    return lines


def _change_text(baseline: float, new: float) -> str:
    return (f"{seconds_text(baseline)} -> {seconds_text(new)} ({signed_seconds_text(new - baseline)}"
            + (f", {pct_text((new - baseline) / baseline * 100)})" if baseline > 0 else ")"))


def _name(key: tuple) -> str:
    return "/".join(key)


def _names(keys) -> str:
    return ", ".join(_name(key) for key in keys)


def summary_lines(comparison: Comparison) -> list[str]:
    counts = {v: sum(1 for r in comparison.rows if r.verdict == v) for v in VERDICTS}
    lines = ["; ".join(f"{v}: {n}" for v, n in counts.items() if n)]
    lines += sum_lines(comparison.rows)
    lines += [f"not judged: {reason}" for reason in _reasons_not_judged(comparison.rows)]
    if comparison.mismatches:
        lines.append("compared despite: " + "; ".join(comparison.mismatches))
    if comparison.environment_differences:
        lines.append("environment differences: " + "; ".join(comparison.environment_differences))
    if comparison.warmup_differences:
        lines.append(warmup_text(comparison.warmup_differences) + " (baseline vs new)")
    if comparison.max_slowdown_pct is not None:
        failing = comparison.failing
        judged = sum(1 for r in comparison.rows if r.judged)
        unjudged = ", ".join(r.name for r in comparison.unjudged)
        if failing:
            names = ", ".join(f"{r.name} ({pct_text(r.beyond_noise_pct, above=comparison.max_slowdown_pct)})"
                              for r in failing)
            lines.append(f"result: FAIL: slower by more than {comparison.max_slowdown_pct:g}% beyond noise: {names}")
        elif comparison.result == "incomplete":
            lines.append(f"result: INCOMPLETE: none of the {judged} judged entries is slower by more than "
                         f"{comparison.max_slowdown_pct:g}% beyond noise, but {len(comparison.unjudged)} could not be "
                         f"judged: {unjudged} (why: 'not judged' above; or gate without them: --allow-unjudged)")
        else:
            lines.append(f"result: PASS: none of the {judged} judged entries is slower by more than "
                         f"{comparison.max_slowdown_pct:g}% beyond noise"
                         + (f"; not judged, allowed by --allow-unjudged: {unjudged}" if unjudged else "")
                         + (f"; but warm-up runs differ (not like for like): {_names(k for k, _, _ in comparison.warmup_differences)}"
                            if comparison.warmup_differences else ""))
    return lines


def _run_label(doc: dict, path: str) -> str:
    env = doc["environment"]
    return f"{path}: {doc['tool']}, {machine_label(env)}, {code_label(env)}, {env.get('date')}"


def terminal_text(comparison: Comparison) -> str:
    parts = [f"baseline  {_run_label(comparison.baseline, comparison.baseline_path)}",
             f"new       {_run_label(comparison.new, comparison.new_path)}", "",
             aligned_table(HEADER, table_rows(comparison)), "", *summary_lines(comparison)]
    return "\n".join(parts) + "\n"


NOISE_RULE = (f"A difference within noise = max(baseline spread, new spread, {TIMER_RESOLUTION_S * 1e6:g} us) is never "
              f"called slower or faster; spread = max - min of the timed runs (warm-up excluded); entries with fewer than "
              f"{MIN_TIMED_RUNS} timed runs on a side, or a baseline median of 0, are not judged.")


def markdown_text(comparison: Comparison, chart_name: str | None, chart_note: str | None) -> str:
    escape = lambda cell: str(cell).replace("|", "\\|")
    lines = ["# Timing comparison: " + {"report": "report only (no --max-slowdown)", "pass": "PASS", "fail": "FAIL",
                                          "incomplete": "INCOMPLETE"}[comparison.result],
             "", f"* baseline: {_run_label(comparison.baseline, comparison.baseline_path)}",
             f"* new: {_run_label(comparison.new, comparison.new_path)}", f"* noise rule: {NOISE_RULE}", ""]
    lines += [f"* {line}" for line in summary_lines(comparison)] + [""]
    lines += [f"![waterfall: baseline to new, phase by phase]({chart_name})" if chart_name else f"Chart: {chart_note}", ""]
    lines += ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in table_rows(comparison)]
    return "\n".join(lines) + "\n"


def _stats_json(s: Stats) -> dict:
    return {"median": s.median, "spread": s.spread, "min": s.min, "max": s.max, "timed_runs": len(s.runs),
            "warmup_runs": s.warmup_runs}


def comparison_json(comparison: Comparison, chart_name: str | None = None, chart_note: str | None = None) -> dict:
    def run(doc, path):
        env = doc["environment"]
        return {"path": path, "tool": doc["tool"], "machine": machine_label(env), "commit": env.get("commit"),
                "gpu_sources": env.get("gpu_sources"), "date": env.get("date")}

    return {
        "schema": SCHEMA_NAME, "schema_version": SCHEMA_VERSION,
        "baseline": run(comparison.baseline, comparison.baseline_path), "new": run(comparison.new, comparison.new_path),
        "noise_rule": NOISE_RULE, "min_timed_runs": MIN_TIMED_RUNS, "max_slowdown_pct": comparison.max_slowdown_pct,
        "result": comparison.result, "mismatches": comparison.mismatches,
        "environment_differences": comparison.environment_differences,
        "warmup_differences": [{"entry": "/".join(key), "baseline": a, "new": b} for key, a, b in comparison.warmup_differences],
        "only_in_baseline": ["/".join(k) for k in comparison.only_in_baseline],
        "only_in_new": ["/".join(k) for k in comparison.only_in_new],
        "chart": chart_name, "chart_note": chart_note,
        "rows": [{"case": r.case, "backend": r.backend, "phase": r.phase, "kind": r.kind,
                  "baseline": _stats_json(r.baseline), "new": _stats_json(r.new), "noise": r.noise, "diff": r.diff,
                  "change_pct": r.change_pct, "beyond_noise_pct": r.beyond_noise_pct, "verdict": r.verdict,
                  "fails_gate": r.fails(comparison.max_slowdown_pct)} for r in comparison.rows],
    }


COMPARISON_FILES = ("comparison.json", "comparison.md", "waterfall.png")


def write_comparison_report(comparison: Comparison, folder: Path) -> list[Path]:
    """comparison.json, comparison.md and (with matplotlib) waterfall.png into ``folder`` (made by
    write_files_atomically, and removed again when a file cannot be written); the files written."""
    from .chart import write_waterfall
    from vectors.format import write_files_atomically

    from .report import drawn, json_text

    chart = folder / "waterfall.png"
    png, note = drawn(lambda path: write_waterfall(comparison, path), chart.name)
    chart_name = None if note else chart.name
    write_files_atomically({folder / "comparison.json": json_text(comparison_json(comparison, chart_name, note)).encode(),
                            folder / "comparison.md": markdown_text(comparison, chart_name, note).encode(),
                            **({chart: png} if png is not None else {})})  # all or none
    return [folder / name for name in COMPARISON_FILES if (folder / name).exists()]
