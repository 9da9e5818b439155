"""What the site's server-side SVG plots share (no JavaScript, no CDN): the drawing frame with
its ticks, and the axes every plot draws the same way (templates/_plot_axes.html). Each page's
plot module adds its own series and marks."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class Frame:
    """The SVG's size, the plotting area inside its margins, and the axes' ticks."""

    width: int
    height: int
    left: int
    top: int
    right_edge: int
    bottom_edge: int
    x_ticks: list[Tick]
    y_ticks: list[Tick]


def points(dots) -> str:
    """An SVG polyline's ``points`` from dots whose first two items are x and y."""
    return " ".join(f"{dot[0]},{dot[1]}" for dot in dots)
