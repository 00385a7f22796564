"""The DSTC2 official scorer's per-call quantities and accumulators (../shared/DSTC2.md sections 2 and 6).

The column-wise scorer (`dst_metrics.dstc2.fast`, `items`) computes the same quantities per item;
the calibration figures (`dst_metrics.calibration.metrics`) feed these accumulators call by call.

* `normalise_dist(pairs)`: a tracker's ``[(hypothesis, score), ...]`` → renormalised when the scores
  sum above 1, with the ``(None, residual)`` entry appended, stably sorted by descending score.
* A *plain* distribution is the list `normalise_dist` returns. An *independent* one
  (``add(..., independent=True)``) is a dict ``{slot: plain distribution}``; its hypothesis is the
  dict of the slots' top values (None when every top is None) and its score the product of the tops.
* `Stat` objects (`Accuracy`, `Probs`, `MRR`), each one (component, stat family) of the official scorer,
  receive ``add(dist, true_label)`` calls in the official order; ``results()`` gives the rows in CSV
  order (None when undefined), ``n`` the CSV's N.
* `roc_results(correct, scores)`: ``roc.v1_eer``, ``roc.v1_ca05/10/20``, ``roc.v2_ca05/10/20``.
"""

from __future__ import annotations

import math
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


def top_independent(dists: dict[str, Dist]) -> tuple[dict[str, Hyp] | None, float]:
    """The independent joint's top: ``({slot: top} over slots whose top is not None, or None; Π top scores)``."""
    top_hyp: dict[str, Hyp] | None = None
    top_score = 1.0
    for slot, dist in dists.items():
        hyp, score = dist[0]
        if hyp is not None:
            if top_hyp is None:
                top_hyp = {}
            top_hyp[slot] = hyp
        top_score *= score
    return top_hyp, top_score


def slot_matches(slot: str, hyp: Hyp, label: dict[str, Hyp] | None) -> bool:
    """Whether `hyp` of `slot` agrees with a joint label: None where the label lacks the slot, else its value."""
    if label is None or slot not in label:
        return hyp is None
    return hyp == label[slot]


def _top(dist: Any, independent: bool) -> tuple[Hyp, float]:
    return top_independent(dist) if independent else dist[0]


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator > 0 else None


class Stat:
    """One official stat object: ``add`` calls in the official order, then ``results()``."""

    def __init__(self) -> None:
        self.n = 0

    def add(self, dist: Any, true_label: Hyp, *, independent: bool = False) -> None:
        """Count one (distribution, label) pair."""
        raise NotImplementedError

    def results(self) -> dict[str, float | None]:
        """{stat name: value or None}, in the official CSV order."""
        raise NotImplementedError

    def new_dialog(self) -> None:
        """Called at the start of every session (only the official ``Updates`` keeps state across calls)."""


class Accuracy(Stat):
    """``acc``: the share of calls whose top hypothesis equals the label."""

    def __init__(self) -> None:
        super().__init__()
        self.correct = 0

    def add(self, dist: Any, true_label: Hyp, *, independent: bool = False) -> None:
        self.correct += _top(dist, independent)[0] == true_label
        self.n += 1

    def results(self) -> dict[str, float | None]:
        return {"acc": _ratio(self.correct, self.n)}


def reciprocal_rank(dist: Any, true_label: Hyp, independent: bool = False) -> float:
    """1/(1+index of the label), or for the independent form 1/Π(1+index per slot); 0 if not found."""
    if not independent:
        for index, (hyp, _) in enumerate(dist):
            if hyp == true_label:
                return 1.0 / (1.0 + index)
        return 0.0
    rank = 1.0
    for slot, slot_dist in dist.items():
        for index, (hyp, _) in enumerate(slot_dist):
            if slot_matches(slot, hyp, true_label):
                rank *= 1 + index
                break
        else:
            return 0.0
    return 1.0 / rank


class MRR(Stat):
    """``mrr``: the mean reciprocal rank of the label."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0.0

    def add(self, dist: Any, true_label: Hyp, *, independent: bool = False) -> None:
        self.total += reciprocal_rank(dist, true_label, independent)
        self.n += 1

    def results(self) -> dict[str, float | None]:
        return {"mrr": _ratio(self.total, self.n)}


def prob_terms(dist: Any, true_label: Hyp, independent: bool = False) -> tuple[float, float, float]:
    """``(p, l2 term, l2.binary term)`` of one call: DSTC2.md section 6, ``l2``."""
    if independent:
        return _prob_terms_independent(dist, true_label)
    p = 0.0
    others: list[float] = []
    for hyp, score in dist:
        if hyp == true_label:
            p = score  # the last match wins, as in the official loop
        else:
            others.append(score)
    l2 = (1 - p) ** 2 + sum([q**2 for q in others])
    return p, l2, (1 - p) ** 2 + sum(others) ** 2


def _prob_terms_independent(dists: dict[str, Dist], true_label: Hyp) -> tuple[float, float, float]:
    p = 1.0
    for slot, dist in dists.items():
        p_slot = 0.0
        for hyp, score in dist:
            if slot_matches(slot, hyp, true_label):
                p_slot = score
        p *= p_slot
    sum_q2 = 1.0
    for dist in dists.values():
        sum_q2 *= sum([score**2 for _, score in dist])
    return p, (1 - p) ** 2 + (sum_q2 - p**2), (1 - p) ** 2 + (1 - p) ** 2


class Probs(Stat):
    """``l2``, ``l2.binary``, ``avgp``, ``neglogp``: from the score of the correct hypothesis."""

    def __init__(self) -> None:
        super().__init__()
        self.l2 = 0.0
        self.l2_binary = 0.0
        self.p = 0.0
        self.neglogp = 0.0

    def add(self, dist: Any, true_label: Hyp, *, independent: bool = False) -> None:
        p, l2, l2_binary = prob_terms(dist, true_label, independent)
        self.l2 += l2
        self.l2_binary += l2_binary
        self.p += p
        self.neglogp += -math.log(max(NEGLOGP_FLOOR, p))
        self.n += 1

    def results(self) -> dict[str, float | None]:
        n = self.n
        return {
            "l2": _ratio(self.l2, n),
            "l2.binary": _ratio(self.l2_binary, n),
            "avgp": _ratio(self.p, n),
            "neglogp": _ratio(self.neglogp, n),
        }


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
