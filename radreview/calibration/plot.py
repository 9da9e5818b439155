"""The calibration plot as plain SVG geometry, rendered server-side (no JavaScript, no CDN).

x: the threshold λ from 0 to n+1 (used as the overall λ1); y: a rate from 0 to 1. Lines: the
adjusted risk (c/(c+1))·L̂(λ) + 1/(c+1) that the selection compares with α, the empirical risk
L̂(λ) (true and flagged, of all sentences), the share of true sentences flagged, the share of
sentences flagged and the share of reports flagged (at λ2); a horizontal rule at α and a
vertical one at the chosen overall λ1. Every point uses one λ for every sentence.
"""
from __future__ import annotations

from dataclasses import dataclass

from radreview.plots import Frame, Tick, points

WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 16, 44

SERIES = (
    ("adjusted_risk", "Adjusted risk (compared with α)", "#b00020"),
    ("risk", "Risk L̂(λ): sentences true and flagged, of all sentences", "#e07000"),
    ("true_flag_rate", "True sentences flagged, of the true sentences", "#2e7d32"),
    ("sentence_flag_rate", "Sentences flagged", "#1565c0"),
    ("report_flag_rate", "Reports flagged", "#6a1b9a"),
)


@dataclass(frozen=True)
class Line:
    key: str
    label: str
    color: str
    points: str
    dots: list[tuple[float, float, int, float]]  # x, y, λ, value


@dataclass(frozen=True)
class Plot(Frame):
    lines: list[Line]
    alpha_y: float
    alpha: float
    lambda1_x: float
    lambda1: int


def build(curve: list[dict], *, alpha: float, lambda1: int) -> Plot | None:
    if not curve:
        return None
    top_lambda = max(row["lambda"] for row in curve) or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(lam: float) -> float:
        return round(LEFT + plot_w * lam / top_lambda, 1)

    def y(value: float) -> float:
        return round(TOP + plot_h * (1.0 - max(0.0, min(1.0, value))), 1)

    lines = []
    for key, label, color in SERIES:
        rows = [row for row in curve if row.get(key) is not None]
        if not rows:  # a calibration stored before this series was kept
            continue
        dots = [(x(row["lambda"]), y(row[key]), row["lambda"], row[key]) for row in rows]
        lines.append(Line(key, label, color, points(dots), dots))
    step = 1 if top_lambda <= 20 else max(1, round(top_lambda / 10))
    x_ticks = [Tick(x(lam), str(lam)) for lam in range(0, top_lambda + 1, step)]
    y_ticks = [Tick(y(v), f"{v:.2f}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)]
    return Plot(WIDTH, HEIGHT, LEFT, TOP, LEFT + plot_w, TOP + plot_h, x_ticks, y_ticks, lines,
                y(alpha), alpha, x(lambda1), lambda1)
