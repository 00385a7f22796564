"""The colours of every chart and swatch of the report and the Space, defined once.

Three palettes that never share a colour, so that a colour keeps one meaning on a page:

- `SYSTEM_COLORS`: one per system (prediction set), in input order, from Okabe and Ito's
  colour-blind-safe palette; the same system has the same colour in every chart, table swatch and legend.
- `COUNT_COLORS`: one per GCA count type (correct, wrong, missed, overshot), from Paul Tol's muted palette.
- `FIGURE_COLORS`: one per figure drawn as a series (GCA, FGA, JGA, RSA), from Paul Tol's muted palette.

Both sources are designed to be told apart under the common colour-vision deficiencies; systems also
differ by marker (`SYSTEM_MARKERS`) and, where colour stands for a count type, by line style
(`SYSTEM_LINE_STYLES`).
"""

from __future__ import annotations

SYSTEM_COLORS: tuple[str, ...] = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
"""Okabe-Ito blue, orange, bluish green, reddish purple, sky blue and vermillion: one per system
(repeats after six)."""
SYSTEM_MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P")
"""The scatter marker per system (matplotlib's names), so that systems differ by shape as well."""
SYSTEM_LINE_STYLES: tuple[str, ...] = ("-", "--", ":", "-.")
"""One line style per system in plots whose colours stand for count types."""
COUNT_COLORS: dict[str, str] = {"correct": "#117733", "wrong": "#CC6677", "missed": "#DDCC77", "overshot": "#88CCEE"}
"""Tol's muted green, rose, sand and cyan: one per GCA count type."""
FIGURE_COLORS: dict[str, str] = {"gca": "#882255", "fga": "#44AA99", "jga": "#332288", "rsa": "#999933"}
"""Tol's muted wine, teal, indigo and olive: one per figure drawn as a series."""
HEATMAP_COLORMAP = "Greys"
"""The heat maps' colour scale (counts): grey, so that it reads as an amount and not as a system or type."""
FEW_COLOR = "#BBBBBB"
"""Positions with too few turns to read a figure off (`plots.MIN_TURNS`) are drawn in this grey."""
INK = "#333333"
"""Reference lines (y = x, perfect calibration)."""


def system_color(index: int) -> str:
    """The colour of system number `index` (0: the first file or set)."""
    return SYSTEM_COLORS[index % len(SYSTEM_COLORS)]


def system_marker(index: int) -> str:
    """The scatter marker of system number `index`."""
    return SYSTEM_MARKERS[index % len(SYSTEM_MARKERS)]


def system_line_style(index: int) -> str:
    """The line style of system number `index` in plots whose colours stand for count types."""
    return SYSTEM_LINE_STYLES[index % len(SYSTEM_LINE_STYLES)]
