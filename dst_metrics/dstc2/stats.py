"""The DSTC2 official scorer's distributions and ROC rows (../shared/DSTC2.md sections 2 and 6).

* `normalise_dist(pairs)`: a tracker's ``[(hypothesis, score), ...]`` → renormalised when the scores
  sum above 1, with the ``(None, residual)`` entry appended, stably sorted by descending score.
* Each ``add`` call's quantities (top right, its score, L2 terms, reciprocal rank) are
  `dst_metrics.dstc2.items`' `plain_item` and `independent_item`; the DSTC2 scorer sums them with numpy
  (`dst_metrics.dstc2.fast`), the calibration figures in plain Python (`dst_metrics.calibration.metrics`).
* `roc_results(correct, scores)`: ``roc.v1_eer``, ``roc.v1_ca05/10/20``, ``roc.v2_ca05/10/20`` in plain
  Python (calibration needs no numpy; `dst_metrics.dstc2.fast` computes the same rows with numpy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

Hyp = Any
"""A hypothesis: a goal value (str), a joint goal (dict), a requested flag (bool), a method (str) or None."""
Dist = list[tuple[Hyp, float]]

SUM_WARNING_EPS = 1e-5
"""Scores summing above 1 by more than this draw the official 'renormalising' warning."""
NEGLOGP_FLOOR = 0.0001
"""``neglogp`` takes ``-ln(max(NEGLOGP_FLOOR, p))``."""
CA_THRESHOLDS: tuple[tuple[str, float], ...] = (("05", 0.05), ("10", 0.10), ("20", 0.20))
"""ROC correct-acceptance figures: the false-acceptance thresholds and their names."""

STAT_NAMES: tuple[str, ...] = (
    "acc",
    "l2",
    "l2.binary",
    "avgp",
    "neglogp",
    "mrr",
    "update.acc",
    "update.prec",
    "roc.v1_eer",
    "roc.v1_ca05",
    "roc.v1_ca10",
    "roc.v1_ca20",
    "roc.v2_ca05",
    "roc.v2_ca10",
    "roc.v2_ca20",
)
"""The 15 stat rows of one component, in the official CSV order."""


def normalise_dist(pairs: Sequence[tuple[Hyp, float]], on_warning: Callable[[str], None] | None = None) -> Dist:
    """The official ``normalise_dist``: DSTC2.md section 2.

    Negative scores are kept (only warned about); scores summing above 1 are divided by their sum;
    ``(None, 1 - total)`` is appended; the list is stably sorted by descending score, so the None
    residual loses every tie. `on_warning` receives the official warnings' texts.
    """
    out = list(pairs)
    total = 0.0
    for _, score in out:
        total += score
        if on_warning is not None and score < 0.0:
            on_warning("score is less than 0.0 (kept as it is)")
    if total > 1.0:
        if on_warning is not None and total - 1.0 > SUM_WARNING_EPS:
            on_warning(f"scores sum to {total!r}, more than 1: renormalised")
        out = [(hyp, score / total) for hyp, score in out]
        total = 1.0
    out.append((None, 1.0 - total))
    out.sort(key=_score, reverse=True)  # stable: ties keep their order, as sorting by -score does
    return out


_score = itemgetter(1)


def roc_curve(correct: Sequence[bool], scores: Sequence[float]) -> list[tuple[int, int, int, int]]:
    """The official operating points ``(TA, FA, TR, FR)``, from "accept all" towards "accept the top one".

    Items are stably sorted by descending score; a point accepts items 0..i where i is 0, the first
    index of each later run of equal scores (among the first N-1 items) and N-1. Empty when N <= 2.
    """
    n = len(scores)
    if n <= 2:
        return []
    order = sorted(range(n), key=lambda i: -scores[i])
    sorted_scores = [scores[i] for i in order]
    cumulative: list[int] = []
    accepted_correct = 0
    for i in order:
        accepted_correct += bool(correct[i])
        cumulative.append(accepted_correct)
    n_true = accepted_correct
    n_false = n - n_true
    points = [0] + [i for i in range(1, n - 1) if sorted_scores[i] != sorted_scores[i - 1]] + [n - 1]
    curve = []
    for i in reversed(points):
        ta = cumulative[i]
        fa = i + 1 - ta
        curve.append((ta, fa, n_false - fa, n_true - ta))
    return curve


def roc_results(correct: Sequence[bool], scores: Sequence[float]) -> dict[str, float | None]:
    """The seven ROC rows of one stat object from its items (in call order): each the first point of
    `roc_curve` that meets its condition, None where none does (so always with N <= 2)."""
    n = len(scores)
    curve = roc_curve(correct, scores)
    out: dict[str, float | None] = {"roc.v1_eer": next(((fr + fa) / n for _, fa, _, fr in curve if fr >= fa), None)}
    for name, threshold in CA_THRESHOLDS:
        out[f"roc.v1_ca{name}"] = next((ta / n for ta, fa, _, _ in curve if fa / n <= threshold), None)
    for name, threshold in CA_THRESHOLDS:
        out[f"roc.v2_ca{name}"] = next(
            (ta / (ta + fr) for ta, fa, tr, fr in curve if ta + fr and fa + tr and fa / (fa + tr) <= threshold), None
        )
    return out
