"""The report's plots, drawn with matplotlib (Agg canvas, no pyplot state, no network), each
returned as a `Plot` holding PNG and SVG bytes.

- ``figures``: the headline figures of every system with their bootstrap intervals as bars;
- ``turn_accuracy``, ``turn_counts``, ``first_failure``: JGA and RSA, the four GCA counts, and the
  dialogues whose JGA first becomes 0, per turn index (the RSA paper's Figure 1);
- ``gca_vs_fga``: per-dialogue GCA against FGA with the y = x line (GCA paper, section 5.2);
- ``to_nu_<i>``: per-dialogue GCA and FGA against tail orientation and non-uniformity, with
  the Pearson correlations in the legend (one plot per system);
- ``mistakes_domain``, ``mistakes_slot``: heat maps of wrong / missed / overshot counts;
- ``reliability-<i>``: the reliability diagram of a system with confidences, SVG only, drawn by
  `draw.reliability_svg` (the Space's drawing, no matplotlib).

Every plot has a title and axis labels, and a legend wherever it draws several series.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import counted
from .data import MISTAKE_TYPES, ReportData, SystemData

WIDTH_IN = 8.0
"""Width of every plot, inches (at `PNG_DPI` the PNG is 1,200 pixels wide)."""
HEIGHT_IN = 4.2
"""Height of the line and bar plots, inches."""
PNG_DPI = 150
"""Resolution of the PNG files."""
SVG_HASH_SALT = "dst-metrics"
"""Fixed salt of the SVG element ids: the same data gives the same SVG bytes."""
COLORS: tuple[str, ...] = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f")
"""One color per system, in input order (repeats after eight)."""
COUNT_COLORS: dict[str, str] = {"correct": "#2ca02c", "wrong": "#d62728", "missed": "#ff7f0e", "overshot": "#9467bd"}
"""One color per GCA count type."""
LINE_STYLES: tuple[str, ...] = ("-", "--", ":", "-.")
"""One line style per system in plots whose colors stand for something else."""
MAX_HEATMAP_ROWS = 30
"""Slots shown in the slot heat map: the most mistaken ones."""
HEATMAP_ROW_IN = 0.32
"""Height of one heat map row, inches."""
POINT_SIZE = 14
"""Marker area of the per-dialogue scatter plots, points²."""
NAME_LIMIT = 40
"""System names longer than this are cut in the middle in plots."""
PERCENT = 100.0


@dataclass(frozen=True)
class Plot:
    """One rendered plot: a file-name stem, the title drawn on it, the PNG (empty: SVG only) and SVG
    bytes, and a caption for pages (the title with full system names; empty: the title)."""

    name: str
    title: str
    png: bytes
    svg: bytes
    caption: str = ""


def _new_figure(height: float = HEIGHT_IN, columns: int = 1):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(WIDTH_IN, height), layout="constrained")
    axes = figure.subplots(1, columns, squeeze=False)[0]
    return figure, list(axes)


def _render(name: str, title: str, figure, caption: str = "") -> Plot:
    """The figure as PNG and SVG bytes (reproducible: no dates, fixed ids)."""
    import matplotlib

    figure.suptitle(title, fontsize="large", fontweight="bold")
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASH_SALT, "svg.fonttype": "path"}):
        png, svg = io.BytesIO(), io.BytesIO()
        figure.savefig(png, format="png", dpi=PNG_DPI, metadata={"Software": None})
        figure.savefig(svg, format="svg", dpi=PNG_DPI, metadata={"Date": None, "Creator": None})
    return Plot(name, title, png.getvalue(), svg.getvalue(), caption if caption != title else "")


def _whole_numbers(axes, *, y: bool = False) -> None:
    """Ticks at whole numbers only: turn indices (x) and, with `y`, counts."""
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    if y:
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))


def _color(index: int) -> str:
    return COLORS[index % len(COLORS)]


def _style(index: int) -> str:
    return LINE_STYLES[index % len(LINE_STYLES)]


def _legend_below(figure, axes, columns: int = 2) -> None:
    """The legend of `axes` under the plot, out of the way of the data."""
    handles, labels = axes.get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="outside lower center", ncols=columns, fontsize="small")


def short_name(name: str, limit: int = NAME_LIMIT) -> str:
    """`name` cut in the middle to at most `limit` characters (legends and titles stay readable)."""
    if len(name) <= limit:
        return name
    keep = limit - 1
    return name[: (keep + 1) // 2] + "…" + name[len(name) - keep // 2 :]


# --------------------------------------------------------------------------------------------
# Figures with intervals


def figures_plot(data: ReportData) -> Plot:
    """Grouped bars of the headline figures (percent), one color per system, with the bootstrap
    intervals as error bars when they were computed."""
    keys, labels = data.main_keys(), data.labels
    figure, (axes,) = _new_figure()
    width = 0.8 / len(data.systems)
    for index, system in enumerate(data.systems):
        xs = [k + (index - (len(data.systems) - 1) / 2) * width for k in range(len(keys))]
        values = [PERCENT * system.scores[key] for key in keys]
        errors = None
        if system.intervals is not None:
            low = [max(0.0, v - PERCENT * system.intervals[k][0]) for k, v in zip(keys, values)]
            errors = [low, [max(0.0, PERCENT * system.intervals[k][1] - v) for k, v in zip(keys, values)]]
        axes.bar(xs, values, width, color=_color(index), label=short_name(system.name), yerr=errors, capsize=3)
    axes.set_xticks(range(len(keys)), [labels[key] for key in keys])
    axes.set_xlabel("figure")
    axes.set_ylabel("score (%)")
    axes.set_ylim(0, PERCENT)
    _legend_below(figure, axes)
    level = f"{PERCENT * float(data.ci['level']):g}% " if data.ci else ""
    title = f"Figures with {level}bootstrap intervals" if data.ci else "Figures (no intervals computed)"
    return _render("figures", title, figure)


# --------------------------------------------------------------------------------------------
# By turn position


def _positions(system: SystemData, name: str) -> tuple[list[int], list[float]]:
    rows = [row for row in system.positions if row.turns]
    return [row.position for row in rows], [getattr(row, name) for row in rows]


def turn_accuracy_plot(data: ReportData) -> Plot:
    """JGA (solid) and RSA (dashed) of the turns at each turn index, one color per system."""
    figure, (axes,) = _new_figure()
    for index, system in enumerate(data.systems):
        for name, style in (("jga", "-"), ("rsa", "--")):
            xs, ys = _positions(system, name)
            label = f"{short_name(system.name)}: {name.upper()}"
            axes.plot(xs, [PERCENT * y for y in ys], style, marker=".", color=_color(index), label=label)
    axes.set_xlabel("turn index (0 = first turn of a dialogue)")
    axes.set_ylabel("score of the turns at that index (%)")
    axes.set_ylim(0, PERCENT)
    _whole_numbers(axes)
    _legend_below(figure, axes)
    return _render("turn_accuracy", "JGA and RSA by turn position", figure)


def turn_counts_plot(data: ReportData) -> Plot:
    """The four GCA counts of the slots changed at each turn index: one color per count type,
    one line style per system."""
    figure, (axes,) = _new_figure()
    for index, system in enumerate(data.systems):
        for kind, color in COUNT_COLORS.items():
            xs, ys = _positions(system, kind)
            label = f"{short_name(system.name)}: {kind}" if len(data.systems) > 1 else kind
            axes.plot(xs, ys, _style(index), marker=".", color=color, label=label)
    axes.set_xlabel("turn index (0 = first turn of a dialogue)")
    axes.set_ylabel("changed slots counted")
    _whole_numbers(axes, y=True)
    _legend_below(figure, axes, columns=len(data.systems) if len(data.systems) > 1 else len(COUNT_COLORS))
    return _render("turn_counts", "GCA counts by turn position", figure)


def first_failure_plot(data: ReportData) -> Plot:
    """Dialogues whose JGA first becomes 0 at each turn index (the RSA paper's Figure 1)."""
    figure, (axes,) = _new_figure()
    for index, system in enumerate(data.systems):
        xs, ys = _positions(system, "first_failures")
        never = len(system.dialogues) - sum(ys) if system.dialogues else None
        name = short_name(system.name)
        label = (
            name
            if never is None
            else f"{name} ({counted(never, 'dialogue')} never {'fails' if never == 1 else 'fail'})"
        )
        axes.plot(xs, ys, _style(index), marker="o", color=_color(index), label=label)
    axes.set_xlabel("turn index where the dialogue's JGA first becomes 0")
    axes.set_ylabel("dialogues")
    _whole_numbers(axes, y=True)
    _legend_below(figure, axes)
    return _render("first_failure", "Where JGA first fails", figure)


# --------------------------------------------------------------------------------------------
# Per dialogue (GCA paper, section 5.2)


def gca_vs_fga_plot(data: ReportData) -> Plot:
    """Per-dialogue GCA against FGA (percent), one color per system, with the line y = x."""
    figure, (axes,) = _new_figure(height=WIDTH_IN * 0.7)
    axes.plot([0, PERCENT], [0, PERCENT], color="#555555", linewidth=1, label="y = x")
    for index, system in enumerate(data.systems):
        xs = [PERCENT * point.fga for point in system.dialogues]
        ys = [PERCENT * point.gca for point in system.dialogues]
        label = f"{short_name(system.name)} ({counted(len(xs), 'dialogue')})"
        axes.scatter(xs, ys, s=POINT_SIZE, alpha=0.6, color=_color(index), label=label)
    axes.set_xlabel(f"FGA of the dialogue (%, λ = {data.options.fga_lambda:g})")
    axes.set_ylabel("GCA of the dialogue (%)")
    axes.set_xlim(-2, PERCENT + 2)
    axes.set_ylim(-2, PERCENT + 2)
    axes.set_aspect("equal")
    _legend_below(figure, axes)
    return _render("gca_vs_fga", "GCA vs FGA per dialogue", figure)


def _measure_panel(axes, system: SystemData, measure: str, label: str) -> None:
    points = [p for p in system.dialogues if not math.isnan(getattr(p, measure))]
    xs = [getattr(p, measure) for p in points]
    for index, metric in enumerate(("gca", "fga")):
        ys = [PERCENT * getattr(p, metric) for p in points]
        r = system.correlations.get(f"{metric}~{measure}", math.nan)
        legend = f"{metric.upper()} (r = {'n/a' if math.isnan(r) else f'{r:.2f}'})"
        axes.scatter(xs, ys, s=POINT_SIZE, alpha=0.6, color=_color(index), label=legend)
    axes.set_xlabel(label)
    axes.set_ylabel("score of the dialogue (%)")
    axes.set_ylim(-2, PERCENT + 2)
    zou = system.zou.get(measure)
    if zou and not math.isnan(zou["low"]):
        axes.set_title(f"r(FGA) − r(GCA): 95% CI [{zou['low']:.2f}, {zou['high']:.2f}] (Zou)", fontsize="small")
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize="small")


def to_nu_plot(system: SystemData, index: int = 0) -> Plot:
    """One system's per-dialogue GCA and FGA against the tail orientation (TO) and the
    non-uniformity (NU) of its mistakes, with Pearson's r of each in the legend and Zou's
    interval for the difference of the correlations above each panel."""
    figure, (left, right) = _new_figure(height=HEIGHT_IN + 0.4, columns=2)
    _measure_panel(left, system, "to", "tail orientation TO of the mistakes")
    _measure_panel(right, system, "nu", "non-uniformity NU of the mistakes")
    title = "GCA and FGA vs TO and NU per dialogue"
    return _render(f"to_nu_{index + 1}", f"{title}: {short_name(system.name)}", figure, f"{title}: {system.name}")


# --------------------------------------------------------------------------------------------
# Mistakes per domain and per slot


def _heatmap_rows(data: ReportData, by: str) -> list[str]:
    """Groups of any system; slots by their mistakes over all systems (most first), at most
    `MAX_HEATMAP_ROWS`; domains by name."""
    totals: dict[str, int] = {}
    for system in data.systems:
        for group, counts in system.mistakes.get(by, {}).items():
            totals[group] = totals.get(group, 0) + sum(counts[k] for k in MISTAKE_TYPES)
    if by != "slot":
        return sorted(totals)
    return sorted(totals, key=lambda group: (-totals[group], group))[:MAX_HEATMAP_ROWS]


def mistakes_heatmap(data: ReportData, by: str = "domain") -> Plot:
    """Heat map of wrong, missed and overshot counts per domain or slot (rows): one panel per
    system (one color scale for all), each cell labelled with its count."""
    rows = _heatmap_rows(data, by)
    grids = [[[s.mistakes.get(by, {}).get(g, {}).get(k, 0) for k in MISTAKE_TYPES] for g in rows] for s in data.systems]
    top = max((value for grid in grids for row in grid for value in row), default=0)
    height = max(HEIGHT_IN * 0.7, 1.8 + HEATMAP_ROW_IN * len(rows))
    figure, panels = _new_figure(height=height, columns=len(data.systems))
    for system, grid, axes in zip(data.systems, grids, panels):
        image = axes.imshow(grid or [[0] * len(MISTAKE_TYPES)], cmap="Reds", aspect="auto", vmin=0, vmax=max(top, 1))
        for y, row in enumerate(grid):  # each cell labelled with its count
            for x, value in enumerate(row):
                color = "white" if top and value > top / 2 else "black"
                axes.text(x, y, str(value), ha="center", va="center", fontsize="x-small", color=color)
        axes.set_xticks(range(len(MISTAKE_TYPES)), MISTAKE_TYPES, fontsize="small")
        axes.set_yticks(range(len(rows)), rows if axes is panels[0] else [], fontsize="small")
        axes.set_xlabel("count type")
        if len(data.systems) > 1:
            axes.set_title(short_name(system.name, NAME_LIMIT // len(data.systems) + 8), fontsize="small")
    panels[0].set_ylabel(by)
    figure.colorbar(image, ax=panels, label="changed slots")
    shown = f" ({len(rows)} most mistaken)" if by == "slot" and len(rows) == MAX_HEATMAP_ROWS else ""
    return _render(f"mistakes_{by}", f"Mistakes per {by}{shown}", figure)


# --------------------------------------------------------------------------------------------
# All of them

PLOTTERS: tuple[Callable[[ReportData], Plot], ...] = (
    figures_plot,
    turn_accuracy_plot,
    turn_counts_plot,
    first_failure_plot,
    gca_vs_fga_plot,
)
"""The plots drawn once for all systems, in page order (then TO/NU per system, then heat maps)."""


def render_plots(data: ReportData) -> list[Plot]:
    """Every plot of the report, in page order."""
    plots = [plot(data) for plot in PLOTTERS]
    plots += [to_nu_plot(system, index) for index, system in enumerate(data.systems)]
    plots += [mistakes_heatmap(data, by) for by in ("domain", "slot")]
    return plots


def reliability_plots(named_corpora: Sequence[tuple[str, object]]) -> list[Plot]:
    """A reliability diagram (slot level, equal-width bins; `draw.reliability_svg`, the Space's) per
    system whose predictions carry confidences (`Corpus.scores`, see `dst_metrics.calibration`); none
    for the others. The caption gives the slot ECE and the registry's peer-protocol figures (SLT
    2024's). SVG only: the plot has no PNG."""
    from ..calibration.figures import CALIBRATION_FIGURES
    from ..calibration.metrics import calibration
    from .draw import num, reliability_svg

    plots = []
    for index, (name, corpus) in enumerate(named_corpora):
        if getattr(corpus, "scores", None) is None:
            continue
        result = calibration(corpus)
        title = f"Reliability of the confidences: {short_name(name)}"
        svg = reliability_svg(result.as_dict()["reliability"]["slot"]["width"], 0, title)
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
        plots.append(Plot(f"reliability-{index + 1}", title, b"", svg.encode("utf-8"), caption))
    return plots


def write_plots(plots: Sequence[Plot], folder: str) -> list[str]:
    """Write each plot as ``NAME.png`` (when it has one) and ``NAME.svg`` into `folder` (made if
    missing); the paths."""
    from pathlib import Path

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for plot in plots:
        for suffix, content in ((".png", plot.png), (".svg", plot.svg)):
            if not content:
                continue
            path = out / f"{plot.name}{suffix}"
            path.write_bytes(content)
            written.append(str(path))
    return written
