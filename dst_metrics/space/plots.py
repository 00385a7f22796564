"""The page's charts: the SVG charts of `dst_metrics.report.draw` (the report draws with them too)
fed from the scored sets. Drawn on the server from the same numbers as the tables, so a chart can
never show other figures than its table (or keep an old axis)."""

from __future__ import annotations

from dst_metrics import Options
from dst_metrics.report import draw
from dst_metrics.report.draw import esc

from .scored import ScoredSet, main_rows


def bar_chart_svg(results: list[ScoredSet], options: Options) -> str:
    """Horizontal grouped bars of the main figures (registry order), one bar per set."""
    figures = [(row.key, row.label) for row in main_rows(options)]
    return draw.bar_chart_svg(figures, [(r.name, r.report.scores) for r in results])


def reliability_svg(bins: list[list[float]], name: str, set_index: int) -> str:
    """Set `set_index`'s reliability diagram (`draw.reliability_svg`) under its name."""
    chart = draw.reliability_svg(bins, set_index, f"Reliability diagram of {name}")
    return f'<figure class="reliability"><figcaption>{esc(name)}</figcaption>{chart}</figure>'
