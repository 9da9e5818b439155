"""The drafting-quality plot as plain SVG geometry, rendered server-side (no JavaScript, no CDN),
as the calibration page draws its plot (radreview/calibration/plot.py).

x: the signing weeks of the rows shown, oldest left; y: errors per compared study. One line per
drafting model version: solid for all errors, dashed for the significant ones. A week in which
a version had no compared study has no point, and its line skips it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from radreview.plots import Frame, Tick, points

from .selectors import Row

WIDTH, HEIGHT = 900, 320
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 16, 56
INSET = 40  # the first and last week stand this far inside the axes, their labels whole
COLORS = ("#1565c0", "#b00020", "#2e7d32", "#6a1b9a", "#e07000", "#00838f", "#5d4037")


@dataclass(frozen=True)
class Series:
    key: str
    label: str
    color: str
    dashed: bool
    points: str
    dots: list[tuple[float, float, str, float]]  # x, y, week, value


@dataclass(frozen=True)
class Plot(Frame):
    series: list[Series]


def _top(value: float) -> float:
    """A round upper bound for the y axis."""
    for bound in (0.5, 1, 2, 3, 5, 10, 20, 50, 100):
        if value <= bound:
            return float(bound)
    return float(value)


def version_label(model_name: str, model_version: str) -> str:
    return f"{model_name} ({model_version or 'version not given'})"


def build(rows: list[Row]) -> Plot | None:
    compared = [r for r in rows if r.compared]
    if not compared:
        return None
    weeks: list[date] = sorted({r.week for r in compared})
    versions = sorted({(r.model_name, r.model_version) for r in compared})
    values = [r.errors / r.compared for r in compared]
    y_top = _top(max(values) or 0.5)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(week: date) -> float:
        if len(weeks) == 1:
            return round(LEFT + plot_w / 2, 1)
        inner = plot_w - 2 * INSET
        return round(LEFT + INSET + inner * weeks.index(week) / (len(weeks) - 1), 1)

    def y(value: float) -> float:
        return round(TOP + plot_h * (1.0 - min(value, y_top) / y_top), 1)

    series = []
    for n, (name, version) in enumerate(versions):
        color = COLORS[n % len(COLORS)]
        mine = sorted((r for r in compared if (r.model_name, r.model_version) == (name, version)),
                      key=lambda r: r.week)
        for significant in (False, True):
            dots = []
            for r in mine:
                value = (r.significant if significant else r.errors) / r.compared
                dots.append((x(r.week), y(value), r.week.isoformat(), value))
            what = "significant errors" if significant else "all errors"
            series.append(Series(
                key=f"{n}-{'significant' if significant else 'all'}",
                label=f"{version_label(name, version)}: {what} per study", color=color,
                dashed=significant, points=points(dots),
                dots=dots))
    step = max(1, round(len(weeks) / 8))
    x_ticks = [Tick(x(w), w.isoformat()) for w in weeks[::step]]
    y_ticks = [Tick(y(y_top * f), f"{y_top * f:.2f}") for f in (0.0, 0.25, 0.5, 0.75, 1.0)]
    return Plot(WIDTH, HEIGHT, LEFT, TOP, LEFT + plot_w, TOP + plot_h, x_ticks, y_ticks, series)
