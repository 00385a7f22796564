"""The HTML and SVG drawing primitives of the report page (`report.html`, `report.systems`) and the
Space (`dst_metrics.space`): escaping, number formats, tables in sideways-scrolling boxes, colour
swatches and legends, and the inline SVG charts (grouped bars, a 0-100 scatter, the reliability
diagram), drawn from the same numbers as the tables with no plotting library.

Every mark carries its data (`data-set`, `data-metric` or `data-dialogue`, `data-value`), which
the browser tests compare with the tables; a scatter point with `data-dialogue` is clickable. The
SVGs carry their own presentation attributes, so they also stand alone (a file, an ``<img>``); a
page's CSS (``svg.chart ...``) overrides them.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import counted

SET_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")
"""Okabe-Ito blue, orange, green and purple, one per set A-D: told apart under colour blindness."""
SET_MARKERS = ("circle", "square", "triangle", "diamond")
"""The scatter's marker per set, so that sets differ by shape as well as colour."""
SVG_OPEN = '<svg xmlns="http://www.w3.org/2000/svg" font-family="sans-serif" font-size="10"'
GRID = 'stroke="#cccccc" stroke-width="0.6"'
DIAGONAL = 'stroke="#666666" stroke-dasharray="4 3" stroke-width="1.2"'


# --------------------------------------------------------------------------------------------
# Text and numbers


def esc(text: object) -> str:
    """`text` escaped for HTML text and attributes."""
    return html.escape(str(text), quote=True)


def esc_name(text: object) -> str:
    """A set or file name for a table header: escaped, and breakable only after _ . - / (a long file
    name wraps at its parts, never mid-word)."""
    return re.sub(r"([_./-])", r"\1<wbr>", esc(text))


def _missing(x: float | None) -> bool:
    return x is None or math.isnan(x)


def pct(x: float | None, missing: str = "—") -> str:
    """A fraction as percent with 2 decimals ('73.33'); `missing` for None or NaN."""
    return missing if _missing(x) else f"{100 * x:.2f}"


def signed_pct(x: float | None, missing: str = "—") -> str:
    """A difference of fractions as signed percentage points ('+30.95'); `missing` for None or NaN."""
    return missing if _missing(x) else f"{100 * x:+.2f}"


def num(x: float | None, digits: int = 2, missing: str = "—") -> str:
    """A number with `digits` decimals; `missing` for None or NaN."""
    return missing if _missing(x) else f"{x:.{digits}f}"


def data_attributes(values: Mapping[str, object]) -> str:
    """`values` as ``data-*`` attributes (``_`` in a name becomes ``-``), escaped."""
    return "".join(f' data-{name.replace("_", "-")}="{esc(value)}"' for name, value in values.items())


def table(head: str, rows: Iterable[str], attributes: str = "") -> str:
    """A table (header cells `head`, body `rows` of ``<tr>``) in a box that scrolls sideways when
    the page is narrower than the table; `attributes` go on the ``<table>``."""
    return (
        f'<div class="table-wrap"><table{attributes}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def swatch(index: int) -> str:
    """The small square in the colour of set `index`."""
    return f'<span class="set-swatch" style="background:{SET_COLORS[index]}"></span>'


def legend_html(names: Sequence[str], first_index: int = 0) -> str:
    """The sets' colours, in HTML under a chart (wraps at any width); the first name is set
    number `first_index`."""
    items = "".join(
        f'<span class="legend-item">{swatch(i)}{esc(name)}</span>' for i, name in enumerate(names, start=first_index)
    )
    return f'<div class="chart-legend">{items}</div>'


# --------------------------------------------------------------------------------------------
# Grouped bars

BAR_LABEL_WIDTH = 64
BAR_PLOT_WIDTH = 260
BAR_VALUE_WIDTH = 54  # '100.00' at 15 units (the phone's font) fits
BAR_HEIGHT = 11
BAR_GAP = 4  # room for the values' text at a phone's larger font
BAR_TOP = 6  # the first value's text is not cut at the top
GROUP_GAP = 9
AXIS_HEIGHT = 22
GRID_STEPS = (0, 25, 50, 75, 100)


def bar_chart_svg(figures: Sequence[tuple[str, str]], sets: Sequence[tuple[str, Mapping[str, float]]]) -> str:
    """Horizontal grouped bars: one group per figure (key, label), one bar per set (name, scores),
    the value written at the end of each bar; percent on a 0-100 axis; the sets' legend under it."""
    per_group = len(sets) * (BAR_HEIGHT + BAR_GAP)
    height = BAR_TOP + len(figures) * (per_group + GROUP_GAP) + AXIS_HEIGHT
    width = BAR_LABEL_WIDTH + BAR_PLOT_WIDTH + BAR_VALUE_WIDTH
    parts = [_bar_axis(height - AXIS_HEIGHT)]
    y = float(BAR_TOP)
    for key, label in figures:
        parts.append(
            f'<text class="bar-label" x="{BAR_LABEL_WIDTH - 6}" y="{y + per_group / 2 + 4:.1f}" '
            f'text-anchor="end" font-weight="700">{esc(label.split(" (")[0])}</text>'
        )
        for index, (name, scores) in enumerate(sets):
            value = round(100 * scores[key], 2)  # as the table shows it
            bar_width = max(0.0, min(100.0, value)) / 100 * BAR_PLOT_WIDTH
            parts.append(
                f'<rect class="bar" x="{BAR_LABEL_WIDTH}" y="{y:.1f}" width="{bar_width:.2f}" height="{BAR_HEIGHT}" '
                f'fill="{SET_COLORS[index]}" data-metric="{esc(key)}" data-set="{esc(name)}" '
                f'data-value="{value:.2f}"><title>{esc(label)} · {esc(name)}: {value:.2f}</title></rect>'
                f'<text class="bar-value" x="{BAR_LABEL_WIDTH + bar_width + 3:.2f}" y="{y + BAR_HEIGHT - 2:.1f}">'
                f"{value:.2f}</text>"
            )
            y += BAR_HEIGHT + BAR_GAP
        y += GROUP_GAP
    return (
        f'{SVG_OPEN} class="chart bar-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Main figures in percent, one bar per prediction set">{"".join(parts)}</svg>'
        + legend_html([name for name, _ in sets])
    )


def _bar_axis(bottom: float) -> str:
    parts = []
    for step in GRID_STEPS:
        x = BAR_LABEL_WIDTH + step / 100 * BAR_PLOT_WIDTH
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="0" x2="{x:.1f}" y2="{bottom:.1f}" {GRID}/>'
            f'<text class="tick" x="{x:.1f}" y="{bottom + 14:.1f}" text-anchor="middle">{step}</text>'
        )
    return "".join(parts)


# --------------------------------------------------------------------------------------------
# Scatter

SCATTER_SIZE = 300
"""A square plot with a margin, so that a point at (100, 100) is whole."""
SCATTER_MARGIN = 44
SCATTER_PAD = 8
MARKER_RADIUS = 5
DENSITY_POINTS = 3000
"""Above this many points the scatter draws their density (`_density_cells`): thousands of marks are
megabytes of page and hide one another."""
DENSITY_BINS = 40


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
            f'fill="{SET_COLORS[0]}" fill-opacity="{shade:.2f}" data-count="{count}"><title>'
            f"{counted(count, 'point')} here</title></rect>"
        )
    return cells


def _scatter_grid() -> list[str]:
    """The grid, its ticks and the line y = x (its label above the plot area: never on a point at 100)."""
    low, high, bottom, top = _to_px(0, False), _to_px(100, False), _to_px(0, True), _to_px(100, True)
    parts = []
    for step in GRID_STEPS:
        x, y = _to_px(step, False), _to_px(step, True)
        parts.append(
            f'<line class="grid" x1="{x:.1f}" y1="{bottom:.1f}" x2="{x:.1f}" y2="{top:.1f}" {GRID}/>'
            f'<line class="grid" x1="{low:.1f}" y1="{y:.1f}" x2="{high:.1f}" y2="{y:.1f}" {GRID}/>'
            f'<text class="tick" x="{x:.1f}" y="{bottom + 16:.1f}" text-anchor="middle">{step}</text>'
            f'<text class="tick" x="{low - 6:.1f}" y="{y + 4:.1f}" text-anchor="end">{step}</text>'
        )
    parts.append(
        f'<line class="diagonal" x1="{low:.1f}" y1="{bottom:.1f}" x2="{high:.1f}" y2="{top:.1f}" {DIAGONAL}>'
        f'<title>y = x</title></line><text class="diagonal-label" x="{high:.1f}" y="{top - 6:.1f}" '
        'text-anchor="end">y = x</text>'
    )
    return parts


def scatter_svg(points: list[Point], x_title: str, y_title: str, names: list[str], label: str) -> str:
    """A 0-100 scatter with the line y = x drawn; each point is a clickable mark
    (`data-dialogue`) with a tooltip, shaped and coloured by its set; above `DENSITY_POINTS` points,
    their density instead, with a note saying so."""
    total = SCATTER_SIZE + 2 * SCATTER_MARGIN
    parts = _scatter_grid()
    note = ""
    if len(points) > DENSITY_POINTS:
        note = (
            f'<p class="note density-note">{len(points):,} points, drawn as their density (darker: more); '
            "open a dialogue from the table.</p>"
        )
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
    parts.append(_axis_titles(x_title, y_title, (middle, middle), total - 6, 12))
    return (
        f'{SVG_OPEN} class="chart scatter" viewBox="0 0 {total} {total}" role="img" aria-label="{esc(label)}">'
        f"{''.join(parts)}</svg>" + (note or legend_html(names, min((p.set_index for p in points), default=0)))
    )


def _axis_titles(x_title: str, y_title: str, at: tuple[float, float], bottom: float, left: float) -> str:
    """The x title centred at `at`'s x on `bottom`, the y title turned, centred at `at`'s y at `left`."""
    x, y = at
    return (
        f'<text class="axis-title" x="{x:g}" y="{bottom:g}" text-anchor="middle">{esc(x_title)}</text>'
        f'<text class="axis-title" x="{left:g}" y="{y:g}" text-anchor="middle" '
        f'transform="rotate(-90 {left:g} {y:g})">{esc(y_title)}</text>'
    )


# --------------------------------------------------------------------------------------------
# The reliability diagram

RELIABILITY_SIZE = 220
"""A square 0-1 plot like the scatter's, with the bins' sizes in a strip below it."""
RELIABILITY_MARGIN = 36
RELIABILITY_LEFT = 54
"""Room on the left for the ticks ('0.75') and the axis title at a phone's larger font."""
COUNT_STRIP = 34
COUNT_COLOR = "#7f7f7f"


def reliability_svg(bins: Sequence[Sequence[float]], set_index: int = 0, label: str = "Reliability diagram") -> str:
    """The reliability diagram of calibrated predictions: per confidence bin (low, high, count, mean
    confidence, accuracy) a bar spanning the bin as tall as its accuracy, a dot at its mean
    confidence, the diagonal of perfect calibration, and below, a bar per bin as tall as its share
    of the largest bin. Each accuracy bar carries its numbers (`data-accuracy`, `data-confidence`,
    `data-count`)."""
    size, margin, left = RELIABILITY_SIZE, RELIABILITY_MARGIN, RELIABILITY_LEFT
    total, strip_top = size + 2 * margin, size + 2 * margin + 4

    def px(x: float) -> float:
        return left + max(0.0, min(1.0, x)) * size

    def py(y: float) -> float:
        return margin + size - max(0.0, min(1.0, y)) * size

    color = SET_COLORS[set_index]
    parts = [
        f'<line class="grid" x1="{px(0)}" y1="{py(t)}" x2="{px(1)}" y2="{py(t)}" {GRID}/>'
        f'<text class="tick" x="{px(0) - 5}" y="{py(t) + 3}" text-anchor="end">{t:g}</text>'
        f'<text class="tick" x="{px(t)}" y="{py(0) + 13}" text-anchor="middle">{t:g}</text>'
        for t in (0, 0.25, 0.5, 0.75, 1)
    ]
    most = max((count for _, _, count, _, _ in bins), default=0) or 1
    for low, high, count, confidence, accuracy in bins:
        x, width = px(low) + 0.5, max(0.0, px(high) - px(low) - 1)
        strip = COUNT_STRIP * count / most
        parts.append(
            f'<rect class="reliability-bar" x="{x:.1f}" y="{py(accuracy):.1f}" width="{width:.1f}" '
            f'height="{py(0) - py(accuracy):.1f}" fill="{color}" fill-opacity="0.55" data-accuracy="{accuracy:.4f}" '
            f'data-confidence="{confidence:.4f}" data-count="{int(count)}"><title>confidence {low:.2f}-{high:.2f}: '
            f"{int(count)} decisions, mean confidence {confidence:.2f}, accuracy {accuracy:.2f}</title></rect>"
            f'<circle cx="{px(confidence):.1f}" cy="{py(accuracy):.1f}" r="2.5" fill="{color}"/>'
            f'<rect class="count-bar" x="{x:.1f}" y="{strip_top + COUNT_STRIP - strip:.1f}" width="{width:.1f}" '
            f'height="{strip:.1f}" fill="{COUNT_COLOR}"><title>{int(count)} decisions</title></rect>'
        )
    parts.append(f'<line class="diagonal" x1="{px(0)}" y1="{py(0)}" x2="{px(1)}" y2="{py(1)}" {DIAGONAL}/>')
    middle = (left + size / 2, margin + size / 2)
    parts.append(_axis_titles("confidence of the top value", "accuracy", middle, total - 4, 14))
    parts.append(
        f'<text class="tick" x="{px(0)}" y="{strip_top + COUNT_STRIP + 14}">'
        f"decisions per bin (most: {int(most)})</text>"
    )
    height = strip_top + COUNT_STRIP + 18
    return (
        f'{SVG_OPEN} class="chart reliability-chart" viewBox="0 0 {left + size + margin} {height}" role="img" '
        f'aria-label="{esc(label)}">{"".join(parts)}</svg>'
    )
