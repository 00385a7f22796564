"""The colours of every chart and swatch of the report and the Space. Three palettes that share no colour:
one per system (Okabe and Ito's colour-blind-safe palette), one per GCA count type and one per figure drawn
as a series (Paul Tol's muted palette). Systems also differ by marker and, where colour stands for a count
type, by line style.
"""

from __future__ import annotations

SYSTEM_COLORS: tuple[str, ...] = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00")
"""Okabe-Ito blue, orange, bluish green, reddish purple, sky blue and vermillion (repeats after six)."""
SYSTEM_MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P")
SYSTEM_LINE_STYLES: tuple[str, ...] = ("-", "--", ":", "-.")
COUNT_COLORS: dict[str, str] = {"correct": "#117733", "wrong": "#CC6677", "missed": "#DDCC77", "overshot": "#88CCEE"}
"""Tol's muted green, rose, sand and cyan: one per GCA count type."""
FIGURE_COLORS: dict[str, str] = {"gca": "#882255", "fga": "#44AA99", "jga": "#332288", "rsa": "#999933"}
"""Tol's muted wine, teal, indigo and olive: one per figure drawn as a series."""
HEATMAP_COLORMAP = "Greys"
"""Grey, so that a heat map reads as an amount, not as a system or a count type."""
FEW_COLOR = "#BBBBBB"
"""Turn positions with too few turns (`plots.MIN_TURNS`)."""
INK = "#333333"
"""Reference lines (y = x, perfect calibration)."""


def system_color(index: int) -> str:
    """The colour of system number `index` (0: the first)."""
    return SYSTEM_COLORS[index % len(SYSTEM_COLORS)]


def system_marker(index: int) -> str:
    """The scatter marker of system number `index`."""
    return SYSTEM_MARKERS[index % len(SYSTEM_MARKERS)]


def system_line_style(index: int) -> str:
    """The line style of system number `index` in plots whose colours stand for count types."""
    return SYSTEM_LINE_STYLES[index % len(SYSTEM_LINE_STYLES)]
