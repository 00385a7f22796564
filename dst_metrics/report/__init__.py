"""Reports and plots for papers: ``dst-metrics report FILE... -o report.html`` (docs/report.md).

`collect` gathers what a report shows (figures with bootstrap intervals, comparisons with the
first system, turn positions, the GCA paper's section 5.2 analyses, mistakes per domain and slot)
as plain data; `plots.render_plots` draws it (matplotlib, PNG and SVG), `html.build_report` makes
one self-contained page, `tables.latex_table` / `tables.markdown_table` the table for a paper.
matplotlib is imported only when a plot is drawn (``pip install "dst-metrics[report]"``).
"""

from __future__ import annotations

from .data import ComparisonData, DialoguePoint, PositionRow, ReportData, SystemData, collect
from .html import build_report
from .plots import Plot, render_plots, write_plots
from .tables import latex_table, markdown_table

__all__ = [
    "ComparisonData",
    "DialoguePoint",
    "Plot",
    "PositionRow",
    "ReportData",
    "SystemData",
    "build_report",
    "collect",
    "latex_table",
    "markdown_table",
    "render_plots",
    "write_plots",
]
