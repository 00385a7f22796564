"""Reports and plots for papers: ``dst-metrics report FILE... -o report.html`` (docs/report.md). `collect`
gathers what a report shows as plain data; `plots` draws it (matplotlib, imported only when a plot is
drawn), `html.build_report` makes one self-contained page, `tables` the table for a paper.
"""

from __future__ import annotations

from .data import ComparisonData, DialoguePoint, PositionRow, ReportData, SystemData, collect
from .html import build_report
from .plots import Plot, render_plots, write_plots
from .tables import latex_table, markdown_table

__all__ = [
    "ComparisonData", "DialoguePoint", "Plot", "PositionRow", "ReportData", "SystemData", "build_report", "collect",
    "latex_table", "markdown_table", "render_plots", "write_plots",
]  # fmt: skip
