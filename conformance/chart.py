"""The report's chart: per-phase time of each backend (summed over the vectors it passed), as
horizontal bars on a log scale (phases differ by orders of magnitude). matplotlib draws it when it
is importable (the ``report`` extra); otherwise the pure-Python canvas of conformance/png.py does."""
import math
from pathlib import Path

from .png import Canvas

COLOURS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189)]
"""Bar colour of the 1st, 2nd, ... backend (matplotlib's tab10 palette)."""
GRID = (220, 220, 220)
AXIS = (90, 90, 90)

WIDTH = 960
LEFT_MARGIN = 120
RIGHT_MARGIN = 150
TOP_MARGIN = 64
BOTTOM_MARGIN = 36
BAR_HEIGHT = 14
GROUP_GAP = 12
TEXT_SCALE = 2
TITLE = "per-phase time (sum over vectors), log scale"


def chart_series(document: dict) -> dict[str, dict[str, float]]:
    """{phase: {backend: seconds}} from a report document's totals (phases with no time left out)."""
    series = {}
    for phase, entry in document["totals"].items():
        times = {name: entry[name]["seconds"] for name in document["backends"] if entry.get(name, {}).get("seconds")}
        if times:
            series[phase] = times
    return series


def _decades(series) -> tuple[int, int]:
    """The log10 range [lo, hi] of whole decades covering every time."""
    values = [t for times in series.values() for t in times.values() if t > 0]
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    return lo, max(hi, lo + 1)


def draw_with_canvas(series: dict[str, dict[str, float]], backends: list[str], path: Path) -> None:
    """The chart with the dependency-free canvas (see conformance/png.py)."""
    lo, hi = _decades(series)
    plot_width = WIDTH - LEFT_MARGIN - RIGHT_MARGIN
    group_height = len(backends) * BAR_HEIGHT + GROUP_GAP
    height = TOP_MARGIN + len(series) * group_height + BOTTOM_MARGIN
    canvas = Canvas(WIDTH, height)

    def x_of(seconds: float) -> int:
        return LEFT_MARGIN + round((math.log10(seconds) - lo) / (hi - lo) * plot_width)

    canvas.text(LEFT_MARGIN, 8, TITLE, scale=TEXT_SCALE)
    legend_x = LEFT_MARGIN
    for k, name in enumerate(backends):
        canvas.fill(legend_x, 32, legend_x + 12, 44, COLOURS[k % len(COLOURS)])
        legend_x = canvas.text(legend_x + 18, 33, name, scale=TEXT_SCALE) + 24
    plot_bottom = height - BOTTOM_MARGIN
    for decade in range(lo, hi + 1):
        x = x_of(10.0**decade)
        canvas.fill(x, TOP_MARGIN - 6, x + 1, plot_bottom, GRID)
        label = f"1e{decade} s"
        canvas.text(x - canvas.text_width(label, TEXT_SCALE) // 2, plot_bottom + 8, label, AXIS, TEXT_SCALE)
    canvas.fill(LEFT_MARGIN, TOP_MARGIN - 6, LEFT_MARGIN + 1, plot_bottom, AXIS)
    y = TOP_MARGIN
    for phase, times in series.items():
        canvas.text(8, y + (len(backends) * BAR_HEIGHT) // 2 - 5, phase, scale=TEXT_SCALE)
        for k, name in enumerate(backends):
            if name in times:
                end = max(x_of(times[name]), LEFT_MARGIN + 2)
                canvas.fill(LEFT_MARGIN + 1, y + 1, end, y + BAR_HEIGHT - 1, COLOURS[k % len(COLOURS)])
                canvas.text(end + 6, y + 2, f"{times[name]:.4g} s", AXIS, TEXT_SCALE)
            y += BAR_HEIGHT
        y += GROUP_GAP
    path.write_bytes(canvas.png())


def draw_with_matplotlib(series: dict[str, dict[str, float]], backends: list[str], path: Path) -> None:
    """The same chart with matplotlib (Agg backend, no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    phases = list(series)
    fig, ax = plt.subplots(figsize=(9, 0.6 * len(phases) * max(1, len(backends)) + 1.5))
    for k, name in enumerate(backends):
        ys = [i * (len(backends) + 1) + k for i in range(len(phases))]
        widths = [series[p].get(name, 0.0) for p in phases]
        colour = tuple(c / 255 for c in COLOURS[k % len(COLOURS)])
        ax.barh(ys, widths, color=colour, label=name)
    ax.set_xscale("log")
    ax.set_yticks([i * (len(backends) + 1) + (len(backends) - 1) / 2 for i in range(len(phases))], phases)
    ax.invert_yaxis()
    ax.set_xlabel("seconds")
    ax.set_title(TITLE)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def matplotlib_available() -> bool:
    """Whether matplotlib (the ``report`` extra) can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def write_chart(document: dict, path: Path, use_matplotlib: bool | None = None) -> str | None:
    """Draw the chart into ``path``; returns None, or a note saying why nothing was drawn.
    use_matplotlib=None: matplotlib if importable, else the built-in canvas."""
    series = chart_series(document)
    if not series:
        return "no phase was timed, so there is no chart"
    backends = [name for name in document["backends"] if any(name in times for times in series.values())]
    if use_matplotlib is None:
        use_matplotlib = matplotlib_available()
    (draw_with_matplotlib if use_matplotlib else draw_with_canvas)(series, backends, path)
    return None
