"""The page's charts as inline SVG: drawn on the server from the same numbers as the tables,
so a chart can never show other figures than its table (or keep an old axis), scales with its
box at any width, and needs no plotting library in the browser.

Every mark carries its data (`data-set`, `data-metric` or `data-dialogue`, `data-value`), which
the browser tests compare with the tables; a scatter point with `data-dialogue` is clickable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dst_metrics import Options

from .scored import SET_COLORS, SET_MARKERS, ScoredSet, esc, main_rows

# Bar chart geometry (SVG user units; the SVG scales to its box).
BAR_LABEL_WIDTH = 64
BAR_PLOT_WIDTH = 260
BAR_VALUE_WIDTH = 54  # '100.00' at 15 units (the phone's font) fits
BAR_HEIGHT = 11
BAR_GAP = 4  # room for the values' text at a phone's larger font
BAR_TOP = 6  # the first value's text is not cut at the top
GROUP_GAP = 9
AXIS_HEIGHT = 22
# Scatter geometry: a square plot with a margin, so that a point at (100, 100) is whole.
SCATTER_SIZE = 300
SCATTER_MARGIN = 44
SCATTER_PAD = 8
MARKER_RADIUS = 5
GRID_STEPS = (0, 25, 50, 75, 100)


def bar_chart_svg(results: list[ScoredSet], options: Options) -> str:
    """Horizontal grouped bars: one group per main figure (registry order), one bar per set,
    the value written at the end of each bar; percent on a 0-100 axis."""
    rows = main_rows(options)
    per_group = len(results) * (BAR_HEIGHT + BAR_GAP)
    height = BAR_TOP + len(rows) * (per_group + GROUP_GAP) + AXIS_HEIGHT
    width = BAR_LABEL_WIDTH + BAR_PLOT_WIDTH + BAR_VALUE_WIDTH
    parts = [_bar_axis(height - AXIS_HEIGHT)]
    y = float(BAR_TOP)
    for row in rows:
        parts.append(
            f'<text class="bar-label" x="{BAR_LABEL_WIDTH - 6}" y="{y + per_group / 2 + 4:.1f}" '
            f'text-anchor="end">{esc(row.label.split(" (")[0])}</text>'
        )
        for index, result in enumerate(results):
            value = round(100 * result.report.scores[row.key], 2)  # as the table shows it
            bar_width = max(0.0, min(100.0, value)) / 100 * BAR_PLOT_WIDTH
            parts.append(
                f'<rect class="bar" x="{BAR_LABEL_WIDTH}" y="{y:.1f}" width="{bar_width:.2f}" height="{BAR_HEIGHT}" '
                f'fill="{SET_COLORS[index]}" data-metric="{esc(row.key)}" data-set="{esc(result.name)}" '
                f'data-value="{value:.2f}"><title>{esc(row.label)} · {esc(result.name)}: {value:.2f}</title></rect>'
                f'<text class="bar-value" x="{BAR_LABEL_WIDTH + bar_width + 3:.2f}" y="{y + BAR_HEIGHT - 2:.1f}">'
                f"{value:.2f}</text>"
            )
            y += BAR_HEIGHT + BAR_GAP
        y += GROUP_GAP
    return (
        f'<svg class="chart bar-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Main figures in percent, one bar per prediction set">{"".join(parts)}</svg>'
        + legend_html([r.name for r in results])
    )


def _bar_axis(bottom: float) -> str:
    parts = []
    for step in GRID_STEPS:
        x = BAR_LABEL_WIDTH + step / 100 * BAR_PLOT_WIDTH
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{bottom:.1f}"/>'
            f'<text class="tick" x="{x:.1f}" y="{bottom + 14:.1f}" text-anchor="middle">{step}</text>'
        )
    return "".join(parts)


def legend_html(names: list[str], first_index: int = 0) -> str:
    """The sets' colours, in HTML under a chart (wraps at any width); the first name is set
    number `first_index`."""
    items = "".join(
        f'<span class="legend-item"><span class="set-swatch" style="background:{SET_COLORS[i]}"></span>'
        f"{esc(name)}</span>"
        for i, name in enumerate(names, start=first_index)
    )
    return f'<div class="chart-legend">{items}</div>'


@dataclass(frozen=True)
class Point:
    """One scatter point: coordinates in percent, the set it belongs to and its dialogue."""

    x: float
    y: float
    set_index: int
    set_name: str
    dialogue: str


def _to_px(value: float, flip: bool) -> float:
    inner = SCATTER_SIZE - 2 * SCATTER_PAD
    offset = max(0.0, min(100.0, value)) / 100 * inner + SCATTER_PAD
    return SCATTER_MARGIN + (SCATTER_SIZE - offset if flip else offset)


def _marker(point: Point) -> str:
    x, y = _to_px(point.x, False), _to_px(point.y, True)
    color = SET_COLORS[point.set_index]
    shape = SET_MARKERS[point.set_index]
    r = MARKER_RADIUS
    style = f'fill="{color}" fill-opacity="0.45" stroke="{color}" stroke-width="1.5"'
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" {style}/>'
    if shape == "square":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" {style}/>'
    if shape == "triangle":
        return f'<polygon points="{x:.1f},{y - r - 1:.1f} {x - r:.1f},{y + r:.1f} {x + r:.1f},{y + r:.1f}" {style}/>'
    d = r + 1
    return (
        f'<polygon points="{x:.1f},{y - d:.1f} {x + d:.1f},{y:.1f} {x:.1f},{y + d:.1f} {x - d:.1f},{y:.1f}" {style}/>'
    )


DENSITY_POINTS = 3000
"""Above this many points the scatter draws their density (`_density_cells`): thousands of marks are
megabytes of page and hide one another."""
DENSITY_BINS = 40


def _density_cells(points: list[Point]) -> list[str]:
    """One square per occupied cell of a `DENSITY_BINS` x `DENSITY_BINS` grid over 0-100, darker with
    more points (log scale), its count in `data-count` and its tooltip."""
    counts: dict[tuple[int, int], int] = {}
    for point in points:
        cell = (
            min(int(point.x / 100 * DENSITY_BINS), DENSITY_BINS - 1),
            min(int(point.y / 100 * DENSITY_BINS), DENSITY_BINS - 1),
        )
        counts[cell] = counts.get(cell, 0) + 1
    top = max(counts.values())
    width = 100 / DENSITY_BINS
    cells = []
    for (i, j), count in sorted(counts.items()):
        x0, x1 = _to_px(i * width, False), _to_px((i + 1) * width, False)
        y0, y1 = _to_px((j + 1) * width, True), _to_px(j * width, True)
        shade = 0.15 + 0.85 * math.log1p(count) / math.log1p(top)
        cells.append(
            f'<rect class="cell" x="{x0:.1f}" y="{y0:.1f}" width="{x1 - x0:.1f}" height="{y1 - y0:.1f}" '
            f'fill="{SET_COLORS[0]}" fill-opacity="{shade:.2f}" data-count="{count}"><title>{count} '
            f"point{'s' * (count != 1)} here</title></rect>"
        )
    return cells


def scatter_svg(points: list[Point], x_title: str, y_title: str, names: list[str], label: str) -> str:
    """A 0-100 scatter with the line y = x drawn; each point is a clickable mark
    (`data-dialogue`) with a tooltip, shaped and coloured by its set; above `DENSITY_POINTS` points,
    their density instead, with a note saying so."""
    note = ""
    if len(points) > DENSITY_POINTS:
        note = (
            f'<p class="note density-note">{len(points):,} points, drawn as their density (darker: more); '
            "open a dialogue from the table.</p>"
        )
    total = SCATTER_SIZE + 2 * SCATTER_MARGIN
    low, high = _to_px(0, False), _to_px(100, False)
    parts = []
    for step in GRID_STEPS:
        x, y = _to_px(step, False), _to_px(step, True)
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="{_to_px(0, True):.1f}" x2="{x:.1f}" y2="{_to_px(100, True):.1f}"/>'
            f'<line class="grid" x1="{low:.1f}" y1="{y:.1f}" x2="{high:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{x:.1f}" y="{_to_px(0, True) + 16:.1f}" text-anchor="middle">{step}</text>'
            f'<text class="tick" x="{low - 6:.1f}" y="{y + 4:.1f}" text-anchor="end">{step}</text>'
        )
    parts.append(
        f'<line class="diagonal" x1="{low:.1f}" y1="{_to_px(0, True):.1f}" x2="{high:.1f}" '
        f'y2="{_to_px(100, True):.1f}"><title>y = x</title></line>'
        f'<text class="diagonal-label" x="{high:.1f}" y="{_to_px(100, True) - 6:.1f}" '
        'text-anchor="end">y = x</text>'  # above the plot area: never on a point at 100
    )
    if len(points) > DENSITY_POINTS:
        parts += _density_cells(points)
        points = []
    for point in points:
        parts.append(
            f'<g class="point" tabindex="0" role="button" data-dialogue="{esc(point.dialogue)}" '
            f'data-set="{esc(point.set_name)}" data-x="{point.x:.2f}" data-y="{point.y:.2f}">'
            f"<title>{esc(point.dialogue)} ({esc(point.set_name)}): {esc(x_title)} {point.x:.2f}, "
            f"{esc(y_title)} {point.y:.2f}. Click to open it in the per-turn view.</title>{_marker(point)}</g>"
        )
    middle = SCATTER_MARGIN + SCATTER_SIZE / 2
    parts.append(
        f'<text class="axis-title" x="{middle:.1f}" y="{total - 6}" text-anchor="middle">{esc(x_title)}</text>'
        f'<text class="axis-title" x="12" y="{middle:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 12 {middle:.1f})">{esc(y_title)}</text>'
    )
    return (
        f'<svg class="chart scatter" viewBox="0 0 {total} {total}" role="img" aria-label="{esc(label)}">'
        f"{''.join(parts)}</svg>" + (note or legend_html(names, min((p.set_index for p in points), default=0)))
    )


# Reliability diagram geometry: a square 0-1 plot like the scatter's.
RELIABILITY_SIZE = 220
RELIABILITY_MARGIN = 36


def reliability_svg(bins: list[list[float]], name: str, set_index: int) -> str:
    """A reliability diagram: per confidence bin (low, high, count, mean confidence, accuracy) a bar
    as tall as the bin's accuracy, a dot at its mean confidence, and the diagonal of perfect
    calibration. Each bar carries its numbers (`data-accuracy`, `data-confidence`, `data-count`)."""
    size, margin = RELIABILITY_SIZE, RELIABILITY_MARGIN
    total = size + 2 * margin

    def px(x: float) -> float:
        return margin + max(0.0, min(1.0, x)) * size

    def py(y: float) -> float:
        return margin + size - max(0.0, min(1.0, y)) * size

    color = SET_COLORS[set_index]
    parts = [
        f'<line class="grid" x1="{px(0)}" y1="{py(t)}" x2="{px(1)}" y2="{py(t)}"/>'
        f'<text class="tick" x="{px(0) - 5}" y="{py(t) + 3}" text-anchor="end">{t:g}</text>'
        f'<text class="tick" x="{px(t)}" y="{py(0) + 13}" text-anchor="middle">{t:g}</text>'
        for t in (0, 0.25, 0.5, 0.75, 1)
    ]
    for low, high, count, confidence, accuracy in bins:
        parts.append(
            f'<rect class="reliability-bar" x="{px(low) + 0.5:.1f}" y="{py(accuracy):.1f}" '
            f'width="{max(0.0, px(high) - px(low) - 1):.1f}" height="{py(0) - py(accuracy):.1f}" fill="{color}" '
            f'fill-opacity="0.55" data-accuracy="{accuracy:.4f}" data-confidence="{confidence:.4f}" '
            f'data-count="{int(count)}"><title>confidence {low:.2f}-{high:.2f}: {int(count)} decisions, mean '
            f"confidence {confidence:.2f}, accuracy {accuracy:.2f}</title></rect>"
            f'<circle cx="{px(confidence):.1f}" cy="{py(accuracy):.1f}" r="2.5" fill="{color}"/>'
        )
    parts.append(f'<line class="diagonal" x1="{px(0)}" y1="{py(0)}" x2="{px(1)}" y2="{py(1)}"/>')
    middle = margin + size / 2
    parts.append(
        f'<text class="axis-title" x="{middle}" y="{total - 4}" text-anchor="middle">confidence of the top value</text>'
        f'<text class="axis-title" x="10" y="{middle}" text-anchor="middle" transform="rotate(-90 10 {middle})">'
        "accuracy</text>"
    )
    return (
        f'<figure class="reliability"><figcaption>{esc(name)}</figcaption>'
        f'<svg class="chart reliability-chart" viewBox="0 0 {total} {total}" role="img" '
        f'aria-label="Reliability diagram of {esc(name)}">{"".join(parts)}</svg></figure>'
    )
