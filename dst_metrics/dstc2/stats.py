"""The DSTC2 official scorer's distributions and ROC rows (docs/dstc2.md, rules 2 and 6):
`normalise_dist` and the ROC rows (`roc_rows`) from the operating points, which `roc_results` builds in
plain Python (calibration needs no numpy) and `dst_metrics.dstc2.fast` with numpy.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import accumulate
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
ROC_NAMES = STAT_NAMES[8:]


def normalise_dist(pairs: Sequence[tuple[Hyp, float]], on_warning: Callable[[str], None] | None = None) -> Dist:
    """The official ``normalise_dist``: docs/dstc2.md, rule 2.

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


def roc_rows(ta: Sequence[int], fa: Sequence[int]) -> dict[str, float | None]:
    """The seven ROC rows from the operating points: at point k, ``ta[k]`` right and ``fa[k]`` wrong
    items are accepted, points from "accept all" towards "accept the top one" (docs/dstc2.md, rule 6).
    Each row is its first point that meets the condition, None where none does. Along the points FA
    falls and FR rises, so each condition turns true once and a bisection finds it."""
    out: dict[str, float | None] = dict.fromkeys(ROC_NAMES)
    if not len(ta):
        return out
    n_true, n_false = int(ta[0]), int(fa[0])
    n = n_true + n_false
    points = range(len(ta))

    def first(condition: Callable[[int], bool], value: Callable[[int], float]) -> float | None:
        k = bisect_left(points, True, key=condition)
        return value(k) if k < len(points) else None

    out["roc.v1_eer"] = first(lambda k: n_true - ta[k] >= fa[k], lambda k: (n_true - ta[k] + fa[k]) / n)
    for name, t in CA_THRESHOLDS:
        out[f"roc.v1_ca{name}"] = first(lambda k, t=t: fa[k] / n <= t, lambda k: ta[k] / n)
        if n_true and n_false:
            out[f"roc.v2_ca{name}"] = first(lambda k, t=t: fa[k] / n_false <= t, lambda k: ta[k] / n_true)
    return out


def roc_results(correct: Sequence[bool], scores: Sequence[float]) -> dict[str, float | None]:
    """The seven ROC rows of items in call order, in plain Python (calibration needs no numpy): items
    stably sorted by descending score; a point accepts items 0..i, i being N-1, the first index of each
    run of equal scores after the first item (among the first N-1 items) and 0. No points when N <= 2."""
    n = len(scores)
    if n <= 2:
        return roc_rows([], [])
    order = sorted(range(n), key=lambda i: -scores[i])
    cumulative = list(accumulate(bool(correct[i]) for i in order))
    points = [n - 1, *(i for i in range(n - 2, 0, -1) if scores[order[i]] != scores[order[i - 1]]), 0]
    ta = [cumulative[i] for i in points]
    return roc_rows(ta, [i + 1 - right for i, right in zip(points, ta)])
