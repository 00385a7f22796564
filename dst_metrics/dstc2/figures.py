"""The featured DSTC2 figures as a small registry (family ``dstc2``).

The DSTC2 paper (section 3.1) and report.py feature three stats of three components at schedule 2,
label scheme A: accuracy, L2 and ROC v2 CA05 of the joint goal (``goal.joint``), the requested slots
(``requested.all``) and the method. Each entry names the row of the official CSV it reads, so
``featured_figures(scores)`` is a flat ``{key: value}`` for tables, JSON and the Space; a value is
None when the official scorer prints ``-``. `register` adds an entry (any row of `Scores` can be one).
"""

from __future__ import annotations

from dataclasses import dataclass

from .components import FEATURED_SCHEME, Scores

FAMILY = "dstc2"
"""The family of every figure here (the main registry's families are in `dst_metrics.figures.FAMILIES`)."""


@dataclass(frozen=True)
class DSTC2Figure:
    """One registered figure: a (component, stat, schedule, scheme) row of the official CSV."""

    key: str
    label: str
    component: str
    stat: str
    description: str
    higher_is_better: bool = True
    schedule: int = FEATURED_SCHEME[0]
    scheme: str = FEATURED_SCHEME[1]
    family: str = FAMILY

    def value(self, scores: Scores) -> float | None:
        """This figure of a scored tracker (None where the official CSV prints ``-``)."""
        return scores.value(self.component, self.stat, self.schedule, self.scheme)


_COMPONENTS = (
    ("joint", "goal.joint", "Joint goal", "the joint goal (all informable slots at once)"),
    ("requested", "requested.all", "Requested", "each requestable slot, pooled"),
    ("method", "method", "Method", "the search method"),
)
_STATS = (
    ("acc", "acc", "accuracy", "share of scored turns whose top hypothesis is right", True),
    ("l2", "l2", "L2", "mean squared L2 distance between the scores and the one-hot truth", False),
    (
        "roc_v2_ca05",
        "roc.v2_ca05",
        "ROC v2 CA05",
        "true-accept rate at a false-accept rate of at most 5% (discrimination of the top score)",
        True,
    ),
)

FIGURES: list[DSTC2Figure] = [
    DSTC2Figure(
        f"dstc2.{short}.{stat_key}",
        f"{label} {stat_label}",
        component,
        stat,
        f"{stat_text} for {text}; schedule 2, label scheme A",
        higher,
    )
    for short, component, label, text in _COMPONENTS
    for stat_key, stat, stat_label, stat_text, higher in _STATS
]
"""The nine featured figures, joint goal first, in report.py's order of stats."""


def register(figure: DSTC2Figure) -> None:
    """Add a figure (its key must be new)."""
    if any(f.key == figure.key for f in FIGURES):
        raise ValueError(f"figure {figure.key!r} is already registered")
    FIGURES.append(figure)


def featured_figures(scores: Scores) -> dict[str, float | None]:
    """``{key: value}`` of every registered figure, in registry order."""
    return {figure.key: figure.value(scores) for figure in FIGURES}
