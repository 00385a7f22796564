"""Every chart of the report and the Space, drawn with matplotlib (Agg canvas, no pyplot state; imported
only when a chart is drawn). The report and the Space show a chart as inline SVG; ``--plots DIR`` writes it
as PNG, PDF and SVG files. Colours come from `report.palette`. Charts carry no title: the page's caption
and the SVG's ``<title>`` name them. Marks a reader or a test needs carry their data as ``data-*``
attributes in the inline SVG (`inline_svg`).
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import counted
from .data import MISTAKE_TYPES, ReportData, SystemData
from .draw import esc, num
from .palette import (
    COUNT_COLORS,
    FEW_COLOR,
    FIGURE_COLORS,
    HEATMAP_COLORMAP,
    INK,
    system_color,
    system_line_style,
    system_marker,
)

WIDTH_IN, HEIGHT_IN, FONT_PT = 6.4, 3.6, 10.0
"""The report's plots: width and line-plot height in inches, font size in points."""
SPACE_WIDTH_IN, SPACE_FONT_PT = 4.6, 13.0
"""The Space's charts: narrow, so that on a phone their text stays at least 11 px."""
PNG_DPI = 150
SVG_HASH_SALT = "dst-metrics"
"""Fixed salt of the SVG element ids: the same data gives the same SVG bytes."""
MIN_TURNS = 30
"""Turn positions with fewer turns are greyed out: one turn moves their percentage by over 3 points."""
MAX_HEATMAP_ROWS = 30
"""The slot heat map shows the most mistaken slots only."""
HEATMAP_ROW_IN = 0.26
POINT_SIZE = 22
DENSITY_POINTS = 3000
"""Above this many points a scatter draws their density (thousands of marks hide one another)."""
DENSITY_BINS = 40
NAME_LIMIT = 40
"""System names longer than this are cut in the middle."""
LEGEND_COLUMN_CHARACTERS = 36
"""Legend labels longer than this put the legend in one column."""
PERCENT = 100.0
TICKS = [0, 25, 50, 75, 100]
FORMATS = ("png", "pdf", "svg")
TURN_INDEX = "turn index (0 = first turn of a dialogue)"


@dataclass(frozen=True)
class Plot:
    """A drawn chart: file-name stem, title, inline SVG, the matplotlib figure and a caption (empty: the title)."""

    name: str
    title: str
    svg: str
    figure: object = field(repr=False, compare=False)
    caption: str = ""

    def file(self, kind: str) -> bytes:
        """The chart as png, pdf or svg bytes."""
        return save(self.figure, kind, self.name)

    @classmethod
    def of(cls, name: str, title: str, figure, marks: Mapping = {}, caption: str = "") -> Plot:
        """The plot of `figure`, its SVG labelled `title`."""
        return cls(name, title, inline_svg(figure, name, title, marks), figure, caption)


def _rc(font: float) -> dict[str, object]:
    return {"font.size": font, "axes.titlesize": font, "legend.fontsize": font, "axes.labelsize": font}


def _new_figure(width: float = WIDTH_IN, height: float = HEIGHT_IN, columns: int = 1, **grid):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    axes = figure.subplots(len(grid.get("height_ratios", [1])), columns, squeeze=False, **grid)
    return figure, [a for row in axes for a in row]


def save(figure, kind: str, name: str = "") -> bytes:
    """`figure` as PNG, PDF or SVG bytes, reproducible (no dates; SVG ids salted with `name`)."""
    import matplotlib

    if figure.get_layout_engine() is not None:  # lay it out once: every file of it then has the same layout
        figure.draw_without_rendering()
        figure.set_layout_engine("none")
    metadata = {"png": {"Software": None}, "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}
    rc = {"svg.hashsalt": f"{SVG_HASH_SALT}-{name}", "svg.fonttype": "none", "pdf.fonttype": 42}
    with matplotlib.rc_context(rc):
        buffer = io.BytesIO()
        figure.savefig(buffer, format=kind, dpi=PNG_DPI, metadata=metadata.get(kind, {"Date": None, "Creator": None}))
    return buffer.getvalue()


def inline_svg(figure, name: str, label: str, marks: Mapping[str, Mapping[str, object]] = {}) -> str:
    """`figure` as SVG markup for a page (no prolog or metadata), with class ``chart NAME`` and `label` as
    aria-label and ``<title>``. The mark drawn with gid KEY gets the attributes ``marks[KEY]``: ``class``,
    ``tabindex`` and ``role`` as given, the others as ``data-*``."""
    text = save(figure, "svg", name).decode("utf-8").strip()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    text = f'<svg class="chart {esc(name)}" role="img" aria-label="{esc(label)}"' + text[len("<svg") :]
    text = text.replace(">", f"><title>{esc(label)}</title>", 1)

    def group(match: re.Match) -> str:
        key = match[1] or match[2]
        if key not in marks:
            return match[0]
        plain = ("class", "tabindex", "role")
        found = "".join(
            f' {k if k in plain else "data-" + k.replace("_", "-")}="{esc(v)}"' for k, v in marks[key].items()
        )
        return f'<g id="{key}"{found}>'

    # matplotlib wraps each point of a scatter in a link to its url, the mark's key: made a group
    text = re.sub(r'<g id="([^"]+)">|<a xlink:href="#([^"]+)" target="_blank">', group, text)
    return text.replace("</a>", "</g>")  # matplotlib writes no other link


def _legend_below(figure, axes, columns: int = 2) -> None:
    """The legend of `axes` under the plot; one column when a label is long, so that it is never wider."""
    handles, labels = axes.get_legend_handles_labels()
    if max(map(len, labels), default=0) > LEGEND_COLUMN_CHARACTERS:
        columns = 1
    if handles:
        figure.legend(handles, labels, loc="outside lower center", ncols=columns, frameon=False)


def _whole_numbers(axes, *, y: bool = False) -> None:
    """Ticks at whole numbers only: turn indices (x) and, with `y`, counts."""
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    if y:
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))


def short_name(name: str, limit: int = NAME_LIMIT) -> str:
    """`name` cut in the middle to at most `limit` characters."""
    if len(name) <= limit:
        return name
    keep = limit - 1
    return name[: (keep + 1) // 2] + "…" + name[len(name) - keep // 2 :]


# --------------------------------------------------------------------------------------------
# Figures as grouped bars


@dataclass(frozen=True)
class BarSet:
    """One system of the bar chart: its name, its figures (fractions) and their intervals, if any."""

    name: str
    scores: Mapping[str, float]
    intervals: Mapping[str, tuple[float, float]] | None = None


def figures_chart(
    name: str, figures: Sequence[tuple[str, str]], sets: Sequence[BarSet], *, space: bool = False
) -> tuple[object, dict[str, dict[str, object]]]:
    """Horizontal grouped bars on a 0-100 axis: a group per figure (key, label), a bar per set in its colour,
    the value written after the bar (and its interval). The figure and its marks: each bar (class ``bar``)
    and the plot area (class ``plot-area``) that the bars' lengths are measured against."""
    import matplotlib

    width, font = (SPACE_WIDTH_IN, SPACE_FONT_PT) if space else (WIDTH_IN, FONT_PT)
    bar = 0.8 / max(1, len(sets))
    height = 0.9 + 0.22 * (font / FONT_PT) * len(figures) * (len(sets) + 0.6) + 0.3 * math.ceil(len(sets) / 2)
    marks: dict[str, dict[str, object]] = {}
    with matplotlib.rc_context(_rc(font)):
        figure, (axes,) = _new_figure(width, height)
        axes.patch.set_gid(f"{name}-area")
        marks[f"{name}-area"] = {"class": "plot-area"}
        for row, (key, _) in enumerate(figures):  # in the table's order
            for index, system in enumerate(sets):
                value = round(PERCENT * system.scores[key], 2)  # as the table shows it
                y = row + (index - (len(sets) - 1) / 2) * bar
                error, end = None, value
                if system.intervals is not None and key in system.intervals:
                    low, high = (PERCENT * v for v in system.intervals[key])
                    error, end = [[max(0.0, value - low)], [max(0.0, high - value)]], max(value, high)
                (patch,) = axes.barh(
                    [y], [max(0.0, min(PERCENT, value))], bar * 0.9, color=system_color(index),
                    xerr=error, capsize=2, error_kw={"elinewidth": 0.8, "ecolor": INK},
                    label=short_name(system.name) if row == 0 else None,
                )  # fmt: skip
                gid = f"{name}-bar-{index}-{row}"
                patch.set_gid(gid)
                marks[gid] = {"class": "bar", "metric": key, "set": system.name, "value": f"{value:.2f}"}
                axes.text(end + 1, y, f"{value:.2f}", va="center", fontsize=font if space else font * 0.8)
        axes.set_yticks(range(len(figures)), [label.split(" (")[0] for _, label in figures], fontweight="bold")
        axes.invert_yaxis()  # the first figure on top, as in the table
        axes.set(xlim=(0, PERCENT), xticks=TICKS, xlabel="score (%)")
        axes.grid(axis="x", color="#DDDDDD", linewidth=0.6)
        axes.set_axisbelow(True)
        axes.spines[["top", "right"]].set_visible(False)
        _legend_below(figure, axes, columns=min(len(sets), 2 if space else 3))
    return figure, marks


def figures_plot(data: ReportData) -> Plot:
    """The headline figures of every system, with the bootstrap intervals as error bars when computed."""
    keys, labels = data.main_keys(), data.labels
    sets = [BarSet(s.name, s.scores, s.intervals) for s in data.systems]
    figure, marks = figures_chart("figures", [(key, labels[key]) for key in keys], sets)
    level = f"{PERCENT * float(data.ci['level']):g}% " if data.ci else ""
    title = f"Figures with {level}bootstrap intervals" if data.ci else "Figures (no intervals computed)"
    return Plot.of("figures", title, figure, marks)


# --------------------------------------------------------------------------------------------
# By turn position


def _positions(system: SystemData, name: str) -> tuple[list[int], list[float]]:
    rows = [row for row in system.positions if row.turns]
    return [row.position for row in rows], [getattr(row, name) for row in rows]


def _few(system: SystemData) -> set[int]:
    """The positions where `system` has fewer than `MIN_TURNS` turns."""
    return {row.position for row in system.positions if row.turns and row.turns < MIN_TURNS}


def _position_figure(data: ReportData, legend_rows: int, y_title: str, x_title: str = TURN_INDEX):
    """A line plot over turn positions above a strip of the turns at each position (the most over the
    systems); positions with fewer than `MIN_TURNS` turns greyed in both."""
    height = HEIGHT_IN + 0.6 + 0.2 * legend_rows  # the plot keeps its height whatever the legend's
    figure, (axes, strip) = _new_figure(height=height, height_ratios=[5, 1], sharex=True)
    axes.set_ylabel(y_title)
    strip.set_xlabel(x_title)
    turns: dict[int, int] = {}
    for system in data.systems:
        for row in system.positions:
            turns[row.position] = max(turns.get(row.position, 0), row.turns)
    positions = sorted(p for p, n in turns.items() if n)
    counts = [turns[p] for p in positions]
    few = [p for p, n in zip(positions, counts) if n < MIN_TURNS]
    strip.bar(positions, counts, 0.8, color=[FEW_COLOR if n < MIN_TURNS else "#777777" for n in counts])
    strip.set_ylabel("turns", rotation=0, ha="right", va="center")
    strip.set_yticks([0, max(counts, default=1)])
    strip.spines[["top", "right"]].set_visible(False)
    for position in few:
        axes.axvspan(position - 0.5, position + 0.5, color=FEW_COLOR, alpha=0.25, linewidth=0)
    if few:
        axes.plot([], [], color=FEW_COLOR, linewidth=6, alpha=0.5, label=f"fewer than {MIN_TURNS} turns")
    _whole_numbers(strip)
    return figure, axes, strip


def _line(axes, xs, ys, few: set[int], style: str, color: str, label: str | None, marker: str = ".") -> None:
    """A series over turn positions, faint and grey at the positions in `few`."""
    axes.plot(xs, ys, style, color=color, alpha=0.3)
    strong = [math.nan if x in few else y for x, y in zip(xs, ys)]
    axes.plot(xs, strong, style, marker=marker, color=color, label=label)
    grey = [(x, y) for x, y in zip(xs, ys) if x in few]
    if grey:
        axes.plot(*zip(*grey), linestyle="none", marker=marker, color=FEW_COLOR, zorder=3)


def turn_accuracy_plot(data: ReportData) -> Plot:
    """JGA (solid) and RSA (dashed) of the turns at each turn index, in each system's colour."""
    figure, axes, _ = _position_figure(data, 2 * len(data.systems) + 1, "score at that index (%)")
    for index, system in enumerate(data.systems):
        few = _few(system)
        for name, style in (("jga", "-"), ("rsa", "--")):
            xs, ys = _positions(system, name)
            label = f"{short_name(system.name)}: {name.upper()}"
            _line(axes, xs, [PERCENT * y for y in ys], few, style, system_color(index), label)
    axes.set_ylim(0, PERCENT)
    _legend_below(figure, axes)
    return Plot.of("turn_accuracy", "JGA and RSA by turn position", figure)


def turn_counts_plot(data: ReportData) -> Plot:
    """The four GCA counts of the slots changed at each turn index: a colour per count type, a line style per system."""
    figure, axes, _ = _position_figure(data, len(COUNT_COLORS) + len(data.systems) + 1, "changed slots counted")
    for index, system in enumerate(data.systems):
        few = _few(system)
        for kind, color in COUNT_COLORS.items():
            xs, ys = _positions(system, kind)
            _line(axes, xs, ys, few, system_line_style(index), color, None)
    for kind, color in COUNT_COLORS.items():  # the legend: colour = count type, line style = system
        axes.plot([], [], "-", marker=".", color=color, label=kind)
    if len(data.systems) > 1:
        for index, system in enumerate(data.systems):
            axes.plot([], [], system_line_style(index), color=INK, label=short_name(system.name))
    _whole_numbers(axes, y=True)
    _legend_below(figure, axes, columns=3)
    return Plot.of("turn_counts", "GCA counts by turn position", figure)


def first_failure_plot(data: ReportData) -> Plot:
    """Dialogues whose JGA first becomes 0 at each turn index (the RSA paper's Figure 1)."""
    figure, axes, _ = _position_figure(
        data, len(data.systems) + 1, "dialogues", "turn index where the dialogue's JGA first becomes 0"
    )
    for index, system in enumerate(data.systems):
        xs, ys = _positions(system, "first_failures")
        label = short_name(system.name)
        if system.dialogues:
            never = len(system.dialogues) - sum(ys)
            label += f" ({counted(never, 'dialogue')} never {'fails' if never == 1 else 'fail'})"
        style, color, marker = system_line_style(index), system_color(index), system_marker(index)
        _line(axes, xs, ys, _few(system), style, color, label, marker=marker)
    _whole_numbers(axes, y=True)
    _legend_below(figure, axes)
    return Plot.of("first_failure", "Where JGA first fails", figure)


# --------------------------------------------------------------------------------------------
# Scatter plots of dialogues


@dataclass(frozen=True)
class Point:
    """One scatter point: coordinates in percent, the system it belongs to and its dialogue."""

    x: float
    y: float
    set_index: int
    set_name: str
    dialogue: str


def scatter_chart(
    name: str, points: Sequence[Point], x_title: str, y_title: str, names: Sequence[str], *, space: bool = False
) -> tuple[object, dict[str, dict[str, object]], str]:
    """A square 0-100 scatter with the line y = x (mark class ``diagonal``), each system's points in its
    colour and marker, `names` in the legend. Each point is a mark of class ``point`` that a page can make
    clickable. Above `DENSITY_POINTS` points, their density instead (mark class ``density``) and a note
    saying so. Returns the figure, its marks and the note (empty when the points are drawn)."""
    import matplotlib

    width, font = (SPACE_WIDTH_IN, SPACE_FONT_PT) if space else (WIDTH_IN * 0.75, FONT_PT)
    marks: dict[str, dict[str, object]] = {}
    note = ""
    with matplotlib.rc_context(_rc(font)):
        figure, (axes,) = _new_figure(width, width + 0.5 + 0.25 * len(names))
        (diagonal,) = axes.plot([0, PERCENT], [0, PERCENT], color=INK, linewidth=1, linestyle="--", label="y = x")
        diagonal.set_gid(f"{name}-diagonal")
        marks[f"{name}-diagonal"] = {"class": "diagonal"}
        if len(points) > DENSITY_POINTS:
            import numpy
            from matplotlib.colors import LogNorm

            counts, _, _ = numpy.histogram2d(
                [p.x for p in points], [p.y for p in points], DENSITY_BINS, [[0, PERCENT], [0, PERCENT]]
            )
            axes.imshow(
                numpy.ma.masked_equal(counts.T, 0), origin="lower", extent=(0, PERCENT, 0, PERCENT),
                cmap=HEATMAP_COLORMAP, norm=LogNorm(vmin=1, vmax=max(1.0, counts.max())), interpolation="nearest",
            )  # fmt: skip
            axes.patch.set_gid(f"{name}-density")  # the image itself is written without its gid
            marks[f"{name}-density"] = {"class": "density", "points": int(counts.sum())}
            note = f"{len(points):,} points, drawn as their density (darker: more); open a dialogue from the table."
        else:
            for index in sorted({p.set_index for p in points}):
                mine = [p for p in points if p.set_index == index]
                label = names[index] if index < len(names) else mine[0].set_name
                color = system_color(index)
                collection = axes.scatter(
                    [p.x for p in mine], [p.y for p in mine], s=POINT_SIZE * (2 if space else 1),
                    marker=system_marker(index), facecolor=color, edgecolor=color, alpha=0.6, linewidth=1,
                )  # fmt: skip
                axes.plot([], [], system_marker(index), color=color, alpha=0.6, label=short_name(label))  # legend
                keys = [f"{name}-point-{index}-{k}" for k in range(len(mine))]
                collection.set_urls([f"#{key}" for key in keys])
                for key, p in zip(keys, mine):
                    marks[key] = {
                        "class": "point", "tabindex": 0, "role": "button", "dialogue": p.dialogue,
                        "set": p.set_name, "x": f"{p.x:.2f}", "y": f"{p.y:.2f}", "marker": system_marker(index),
                    }  # fmt: skip
        limits = (-3, PERCENT + 3)
        axes.set(xlim=limits, ylim=limits, aspect="equal", xticks=TICKS, yticks=TICKS, xlabel=x_title, ylabel=y_title)
        axes.grid(color="#DDDDDD", linewidth=0.6)
        axes.set_axisbelow(True)
        _legend_below(figure, axes, columns=1)
    return figure, marks, note


def gca_vs_fga_plot(data: ReportData) -> Plot:
    """Per-dialogue GCA against FGA (percent), one colour and marker per system, with the line y = x."""
    points = [
        Point(PERCENT * p.fga, PERCENT * p.gca, index, system.name, p.dialogue_id)
        for index, system in enumerate(data.systems)
        for p in system.dialogues
    ]
    names = [f"{short_name(s.name)} ({counted(len(s.dialogues), 'dialogue')})" for s in data.systems]
    x_title = f"FGA of the dialogue (%, λ = {data.options.fga_lambda:g})"
    figure, marks, note = scatter_chart("gca_vs_fga", points, x_title, "GCA of the dialogue (%)", names)
    title = "GCA vs FGA per dialogue"
    return Plot.of("gca_vs_fga", title, figure, marks, note and f"{title}: {note}")


def _measure_panel(axes, system: SystemData, measure: str, label: str) -> None:
    points = [p for p in system.dialogues if not math.isnan(getattr(p, measure))]
    xs = [getattr(p, measure) for p in points]
    for metric, marker in (("gca", "o"), ("fga", "^")):
        ys = [PERCENT * getattr(p, metric) for p in points]
        r = system.correlations.get(f"{metric}~{measure}", math.nan)
        legend = f"{metric.upper()} (r = {'n/a' if math.isnan(r) else f'{r:.2f}'})"
        color = FIGURE_COLORS[metric]
        axes.scatter(xs, ys, s=POINT_SIZE, marker=marker, alpha=0.6, color=color, label=legend)
    axes.set(xlabel=label, ylabel="score of the dialogue (%)", ylim=(-2, PERCENT + 2))
    zou = system.zou.get(measure)
    if zou and not math.isnan(zou["low"]):
        axes.set_title(f"r(FGA) − r(GCA): 95% CI [{zou['low']:.2f}, {zou['high']:.2f}] (Zou)", fontsize="small")
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize="small")


def to_nu_plot(system: SystemData, index: int = 0) -> Plot:
    """One system's per-dialogue GCA and FGA against the tail orientation (TO) and non-uniformity (NU) of
    its mistakes: Pearson's r in the legend, Zou's interval of their difference above each panel."""
    figure, (left, right) = _new_figure(height=HEIGHT_IN, columns=2)
    _measure_panel(left, system, "to", "tail orientation TO")
    _measure_panel(right, system, "nu", "non-uniformity NU")
    title = f"GCA and FGA vs TO and NU of the mistakes per dialogue: {system.name}"
    return Plot.of(f"to_nu_{index + 1}", title, figure)


# --------------------------------------------------------------------------------------------
# Mistakes per domain and per slot


def _heatmap_rows(data: ReportData, by: str) -> list[str]:
    """Domains by name; slots by their mistakes over all systems, most first, at most `MAX_HEATMAP_ROWS`."""
    totals: dict[str, int] = {}
    for system in data.systems:
        for group, counts in system.mistakes.get(by, {}).items():
            totals[group] = totals.get(group, 0) + sum(counts[k] for k in MISTAKE_TYPES)
    if by != "slot":
        return sorted(totals)
    return sorted(totals, key=lambda group: (-totals[group], group))[:MAX_HEATMAP_ROWS]


def mistakes_heatmap(data: ReportData, by: str = "domain") -> Plot:
    """Heat map of wrong, missed and overshot counts per domain or slot: a panel per system, one colour scale."""
    import matplotlib

    rows = _heatmap_rows(data, by)
    grids = [[[s.mistakes.get(by, {}).get(g, {}).get(k, 0) for k in MISTAKE_TYPES] for g in rows] for s in data.systems]
    top = max((value for grid in grids for row in grid for value in row), default=0)
    height = max(HEIGHT_IN * 0.6, 1.4 + HEATMAP_ROW_IN * len(rows))
    figure, panels = _new_figure(height=height, columns=len(data.systems), sharey=True)
    cmap = matplotlib.colormaps[HEATMAP_COLORMAP]
    for system, grid, axes in zip(data.systems, grids, panels):
        image = axes.imshow(grid or [[0] * len(MISTAKE_TYPES)], cmap=cmap, aspect="auto", vmin=0, vmax=max(top, 1))
        for y, row in enumerate(grid):  # each cell labelled with its count
            for x, value in enumerate(row):
                color = "white" if top and value > top / 2 else "black"
                axes.text(x, y, str(value), ha="center", va="center", fontsize="x-small", color=color)
        axes.set_xticks(range(len(MISTAKE_TYPES)), MISTAKE_TYPES, fontsize="small")
        axes.set_yticks(range(len(rows)), rows, fontsize="small")
        if len(data.systems) > 1:
            axes.set_title(short_name(system.name, NAME_LIMIT // len(data.systems) + 8), fontsize="small")
    panels[0].set_ylabel(by)
    from matplotlib.ticker import MaxNLocator

    bar = figure.colorbar(image, ax=panels, label="changed slots", fraction=0.04, aspect=30, pad=0.02)
    bar.ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    shown = f" ({len(rows)} most mistaken)" if by == "slot" and len(rows) == MAX_HEATMAP_ROWS else ""
    title = f"Mistakes per {by}{shown}: wrong, missed and overshot changed slots"
    return Plot.of(f"mistakes_{by}", title, figure)


# --------------------------------------------------------------------------------------------
# The reliability diagram


def reliability_chart(
    name: str, bins: Sequence[Sequence[float]], set_index: int = 0, *, space: bool = False
) -> tuple[object, dict[str, dict[str, object]]]:
    """The reliability diagram: per confidence bin (low, high, count, mean confidence, accuracy) a bar as tall
    as its accuracy and a dot at its mean confidence, the diagonal, and a strip of the bins' sizes below.
    Returns the figure and its marks (class ``reliability-bar``)."""
    import matplotlib

    width, font = (SPACE_WIDTH_IN, SPACE_FONT_PT) if space else (WIDTH_IN * 0.6, FONT_PT)
    color = system_color(set_index)
    marks: dict[str, dict[str, object]] = {}
    with matplotlib.rc_context(_rc(font)):
        figure, (axes, strip) = _new_figure(width, width * 1.15, height_ratios=[4, 1], sharex=True)
        axes.plot([0, 1], [0, 1], color=INK, linestyle="--", linewidth=1)
        for k, (low, high, count, confidence, accuracy) in enumerate(bins):
            (patch,) = axes.bar([low], [accuracy], high - low, align="edge", color=color, alpha=0.55, linewidth=0)
            gid = f"{name}-bin-{k}"
            patch.set_gid(gid)
            marks[gid] = {
                "class": "reliability-bar", "accuracy": f"{accuracy:.4f}", "confidence": f"{confidence:.4f}",
                "count": int(count),
            }  # fmt: skip
            axes.plot([confidence], [accuracy], "o", color=color, markersize=4)
            strip.bar([low], [count], high - low, align="edge", color="#777777", linewidth=0)
        axes.set(xlim=(0, 1), ylim=(0, 1), ylabel="accuracy")
        axes.grid(color="#DDDDDD", linewidth=0.6)
        axes.set_axisbelow(True)
        strip.set_ylabel("slots", rotation=0, ha="right", va="center")
        strip.set_yticks([0, max((b[2] for b in bins), default=1)])
        strip.set_xlabel("confidence")
        strip.spines[["top", "right"]].set_visible(False)
    return figure, marks


def reliability_plots(named_corpora: Sequence[tuple[str, object]]) -> list[Plot]:
    """A reliability diagram (slot level, equal-width bins) per system whose predictions carry confidences;
    the caption gives the slot ECE and SLT 2024's figures."""
    from ..calibration.metrics import calibration
    from ..figures.calibration import CALIBRATION_FIGURES

    plots = []
    for index, (name, corpus) in enumerate(named_corpora):
        if getattr(corpus, "scores", None) is None:
            continue
        result = calibration(corpus)
        key = f"reliability-{index + 1}"
        figure, marks = reliability_chart(key, result.as_dict()["reliability"]["slot"]["width"], index)
        title = f"Reliability of the confidences: {name}"
        ece = num(result.figures["slot_ece"], 4, "n/a")
        peers = "".join(
            f"; {entry.label} {num(result.figures[entry.key], 4, 'n/a')}"
            for entry in CALIBRATION_FIGURES
            if entry.signature
        )
        caption = (
            f"{title}: bars, the accuracy of the top value per confidence bin (ECE {ece}{peers}); dots, the bin's mean "
            "confidence; dashed, perfect calibration; below, the bins' sizes"
        )
        plots.append(Plot.of(key, title, figure, marks, caption))
    return plots


# --------------------------------------------------------------------------------------------
# All of them

PLOTTERS: tuple[Callable[[ReportData], Plot], ...] = (
    figures_plot, turn_accuracy_plot, turn_counts_plot, first_failure_plot, gca_vs_fga_plot
)  # fmt: skip
"""The plots drawn once for all systems, in page order (then TO/NU per system, then heat maps)."""


def render_plots(data: ReportData) -> list[Plot]:
    """Every plot of the report, in page order."""
    plots = [plot(data) for plot in PLOTTERS]
    plots += [to_nu_plot(system, index) for index, system in enumerate(data.systems)]
    plots += [mistakes_heatmap(data, by) for by in ("domain", "slot")]
    return plots


def write_plots(plots: Sequence[Plot], folder: str) -> list[str]:
    """Write each plot as ``NAME.png``, ``NAME.pdf`` and ``NAME.svg`` into `folder` (made if missing); the paths."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for plot in plots:
        for kind in FORMATS:
            (out / f"{plot.name}.{kind}").write_bytes(plot.file(kind))
    return [str(out / f"{plot.name}.{kind}") for plot in plots for kind in FORMATS]
