"""The reliability diagram of calibrated predictions, drawn with matplotlib (no pyplot state).

`reliability_diagram(result)` returns a ``matplotlib.figure.Figure``: on top, each non-empty bin's
accuracy as a bar spanning the bin, its mean confidence as a marker and the diagonal of perfect
calibration, with the ECE in the legend; below, how many decisions each bin holds. matplotlib is
imported inside the function (the ``report`` extra installs it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .metrics import BIN_STRATEGIES, LEVELS, Calibration

if TYPE_CHECKING:
    from matplotlib.figure import Figure

WIDTH_IN = 6.0
"""Width of the diagram, inches."""
HEIGHT_IN = 5.5
"""Height of the diagram, inches."""
ACCURACY_COLOR = "#1f77b4"
CONFIDENCE_COLOR = "#d62728"
COUNT_COLOR = "#7f7f7f"
DIAGONAL_COLOR = "#2ca02c"
BAR_ALPHA = 0.6
Y_LIMIT = 1.05
"""Top of the accuracy axis: a little above 1, so markers at 1 stay whole."""
TOP_PANEL_SHARE = 3
"""The accuracy panel is this many times taller than the count panel."""
STRATEGY_NAMES = {"width": "equal-width bins", "mass": "equal-mass bins"}
LEVEL_NAMES = {"slot": "slot decisions", "joint": "joint states"}
ECE_KEYS = {"width": "ece", "mass": "ece_mass"}


def reliability_diagram(
    result: Calibration, level: str = "slot", strategy: str = "width", title: str | None = None
) -> Figure:
    """The reliability diagram of `result` (`metrics.calibration`) at `level` (``slot`` or ``joint``)
    with `strategy` bins (``width`` or ``mass``), as a matplotlib Figure."""
    if level not in LEVELS or strategy not in BIN_STRATEGIES:
        raise ValueError(f"level must be one of {LEVELS} and strategy one of {BIN_STRATEGIES}")
    from matplotlib.figure import Figure

    bins = result.reliability[level][strategy]
    figure = Figure(figsize=(WIDTH_IN, HEIGHT_IN), layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [TOP_PANEL_SHARE, 1]})
    lows = [b.low for b in bins]
    widths = [b.high - b.low for b in bins]
    ece = result.figures[f"{level}_{ECE_KEYS[strategy]}"]
    ece_text = "-" if ece is None else f"{ece:.4f}"
    top.bar(lows, [b.accuracy for b in bins], widths, align="edge", color=ACCURACY_COLOR, alpha=BAR_ALPHA,
            edgecolor="black", label=f"accuracy (ECE {ece_text})")  # fmt: skip
    top.plot([b.mean_confidence for b in bins], [b.accuracy for b in bins], "o", color=CONFIDENCE_COLOR,
             label="(mean confidence, accuracy) of a bin")  # fmt: skip
    top.plot([0, 1], [0, 1], "--", color=DIAGONAL_COLOR, label="perfect calibration")
    top.set_xlim(0, 1)
    top.set_ylim(0, Y_LIMIT)
    top.set_ylabel("accuracy of the top hypothesis")
    top.legend(fontsize="small", loc="best")
    bottom.bar(lows, [b.count for b in bins], widths, align="edge", color=COUNT_COLOR, edgecolor="black")
    bottom.set_xlabel("confidence of the top hypothesis")
    bottom.set_ylabel("decisions")
    figure.suptitle(title or f"Reliability of {LEVEL_NAMES[level]} ({STRATEGY_NAMES[strategy]})")
    return figure
