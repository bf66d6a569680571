"""Every chart the project draws, with matplotlib (the ``report`` extra; Agg backend, no display needed):

* the conformance report's per-phase time of each backend (summed over the vectors it passed), horizontal bars
  on a log scale (phases differ by orders of magnitude): ``write_chart``;
* the timing comparison's waterfall, baseline total -> each phase's change -> new total: ``write_waterfall``.

Without matplotlib nothing is drawn: the writers return a note saying so, and the reports carry their Markdown and
JSON only.
"""
from __future__ import annotations

import importlib
from pathlib import Path

TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
"""Bar colour of the 1st, 2nd, ... backend (matplotlib's tab10 palette)."""
VERDICT_COLOURS = {"slower": "#d62728", "faster": "#2ca02c", "within noise": "#a0a0a0", "not judged": "#d0d0d0"}
TOTAL_COLOUR = "#1f77b4"
DPI = 100
REPORT_TITLE = "per-phase time (sum over vectors), log scale"
MAX_WATERFALL_PANELS = 6
"""Up to this many (case, backend) pairs get a waterfall each; beyond, one per backend, summed over the cases."""
LEGEND_HEIGHT = 0.4
"""Inches kept under the waterfall panels for the legend."""
NO_MATPLOTLIB = "matplotlib is not installed (pip install -e '.[report]'): no chart drawn, Markdown and JSON only"


def matplotlib_available() -> bool:
    """Whether matplotlib (the ``report`` extra) can be imported."""
    try:
        importlib.import_module("matplotlib")
    except ImportError:
        return False
    return True


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ---------------------------------------------------------------------------------------------
# The conformance report's chart
# ---------------------------------------------------------------------------------------------


def chart_series(document: dict) -> dict[str, dict[str, float]]:
    """{phase: {backend: seconds}} from a report document's totals (phases with no time left out)."""
    series = {}
    for phase, entry in document["totals"].items():
        times = {name: entry[name]["seconds"] for name in document["backends"] if entry.get(name, {}).get("seconds")}
        if times:
            series[phase] = times
    return series


def draw_report_chart(series: dict[str, dict[str, float]], backends: list[str], path: Path) -> None:
    plt = _pyplot()
    phases = list(series)
    fig, ax = plt.subplots(figsize=(9, 0.6 * len(phases) * max(1, len(backends)) + 1.5))
    for k, name in enumerate(backends):
        ys = [i * (len(backends) + 1) + k for i in range(len(phases))]
        widths = [series[p].get(name, 0.0) for p in phases]
        bars = ax.barh(ys, widths, color=TAB10[k % len(TAB10)], label=name)
        ax.bar_label(bars, labels=[f"{w:.4g} s" if w else "" for w in widths], padding=3, fontsize=8)
    ax.set_xscale("log")
    ax.set_yticks([i * (len(backends) + 1) + (len(backends) - 1) / 2 for i in range(len(phases))], phases)
    ax.invert_yaxis()
    ax.set_xlabel("seconds")
    ax.set_title(REPORT_TITLE)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def write_chart(document: dict, path: Path) -> str | None:
    """Draw the report chart into ``path``; returns None, or a note saying why nothing was drawn."""
    series = chart_series(document)
    if not series:
        return "no phase was timed, so there is no chart"
    if not matplotlib_available():
        return NO_MATPLOTLIB
    backends = [name for name in document["backends"] if any(name in times for times in series.values())]
    draw_report_chart(series, backends, Path(path))
    return None


# ---------------------------------------------------------------------------------------------
# The comparison's waterfall
# ---------------------------------------------------------------------------------------------


def waterfall_panels(comparison) -> list[tuple[str, list[tuple[str, float, float, str]]]]:
    """[(title, [(phase, baseline seconds, new seconds, verdict)])]: one panel per (case, backend) when they are few,
    else one per backend with each phase summed over the cases (verdict from the summed difference and noise)."""
    from .compare_timings import FASTER, NOT_JUDGED, SLOWER, WITHIN_NOISE

    groups: dict[tuple, list] = {}
    for r in comparison.rows:
        groups.setdefault((r.case, r.backend), []).append(r)
    if len(groups) <= MAX_WATERFALL_PANELS:
        return [(f"{case} [{backend}]", [(r.phase, r.baseline.median, r.new.median, r.verdict) for r in rows])
                for (case, backend), rows in groups.items()]
    panels = []
    for backend in dict.fromkeys(r.backend for r in comparison.rows):
        phases: dict[str, list] = {}
        for r in comparison.rows:
            if r.backend == backend:
                phases.setdefault(r.phase, []).append(r)
        bars = []
        for phase, rows in phases.items():
            base, new = sum(r.baseline.median for r in rows), sum(r.new.median for r in rows)
            noise = sum(r.noise for r in rows)
            verdict = (NOT_JUDGED if not all(r.judged for r in rows) else
                       SLOWER if new - base > noise else FASTER if base - new > noise else WITHIN_NOISE)
            bars.append((phase, base, new, verdict))
        cases = len({r.case for r in comparison.rows if r.backend == backend})
        panels.append((f"{backend}, sum over {cases} cases", bars))
    return panels


def _seconds_label(seconds: float) -> str:
    return f"{seconds:.3g} s" if abs(seconds) >= 1 else f"{seconds * 1e3:.3g} ms"


def draw_waterfall(panels, path: Path, title: str) -> None:
    """Per panel: the baseline total, then one floating bar per phase from the running total to running + change
    (coloured by verdict), then the new total."""
    plt = _pyplot()
    from matplotlib.patches import Patch

    widest = max(len(bars) for _, bars in panels) + 2
    fig, axes = plt.subplots(len(panels), 1, figsize=(max(8.0, 0.9 * widest + 2), 3.4 * len(panels) + LEGEND_HEIGHT),
                             squeeze=False)
    for ax, (panel_title, bars) in zip(axes[:, 0], panels):
        base_total, new_total = sum(b for _, b, _, _ in bars), sum(n for _, _, n, _ in bars)
        labels, bottoms, heights, colours, notes = ["baseline"], [0.0], [base_total], [TOTAL_COLOUR], [_seconds_label(base_total)]
        running = base_total
        for phase, base, new, verdict in bars:
            change = new - base
            labels.append(phase)
            bottoms.append(min(running, running + change))
            heights.append(abs(change))
            colours.append(VERDICT_COLOURS[verdict])
            notes.append(("+" if change >= 0 else "-") + _seconds_label(abs(change)))
            running += change
        labels.append("new")
        bottoms.append(0.0)
        heights.append(new_total)
        colours.append(TOTAL_COLOUR)
        notes.append(_seconds_label(new_total))
        drawn = ax.bar(range(len(labels)), heights, bottom=bottoms, color=colours, edgecolor="#404040", linewidth=0.5)
        ax.bar_label(drawn, labels=notes, fontsize=7, padding=2)
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
        ax.set_ylabel("seconds")
        change_pct = (new_total - base_total) / base_total * 100 if base_total > 0 else 0.0
        ax.set_title(f"{panel_title}: {_seconds_label(base_total)} -> {_seconds_label(new_total)} ({change_pct:+.1f}%)", fontsize=10)
        ax.set_ylim(0, max(base_total, new_total, max(b + h for b, h in zip(bottoms, heights))) * 1.15 or 1.0)
    legend = [Patch(color=c, label=v) for v, c in VERDICT_COLOURS.items()] + [Patch(color=TOTAL_COLOUR, label="total")]
    fig.legend(handles=legend, loc="lower center", fontsize=8, ncol=len(legend), frameon=False)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout(rect=(0, LEGEND_HEIGHT / fig.get_figheight(), 1, 1))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def write_waterfall(comparison, path: Path) -> str | None:
    """Draw the comparison's waterfall into ``path``; returns None, or a note saying why nothing was drawn."""
    if not matplotlib_available():
        return NO_MATPLOTLIB
    draw_waterfall(waterfall_panels(comparison), Path(path), "baseline -> new, phase by phase (colour: verdict)")
    return None
