"""Every metric as a short function of sums, next to its formula.

Scores are fractions in [0, 1]. With nothing to divide, official mode gives 0 as the official code
does and corrected mode gives 1 when nothing could be wrong (docs/metrics.md, "Official and corrected").
Each formula is written once over `Columns`: one `Tally` (ints, divided exactly) or B summed tallies as
arrays (the bootstrap).
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Protocol, TypeAlias

from ..core.tally import Tally
from ..options import DEFAULT_FGA_LAMBDA, FGA_LAMBDA_GRID, MULTIWOZ_NUM_SLOTS, OFFICIAL_ALPHA

__all__ = [
    "DEFAULT_FGA_LAMBDA",
    "FGA_LAMBDA_GRID",
    "MULTIWOZ_NUM_SLOTS",
    "OFFICIAL_ALPHA",
    "Columns",
    "Operations",
    "aga",
    "fga",
    "fga_grid",
    "final_jga",
    "gca",
    "gca_rates",
    "jga",
    "joint_turn_accuracy",
    "rsa",
    "slot_accuracy",
    "slot_prf",
]


class Operations(Protocol):
    """What a formula does to `Columns` beyond ``+ - * / ** == &``, on Python numbers or numpy arrays."""

    def ratio(self, numerator: Any, denominator: Any, empty: float) -> Any:
        """numerator / denominator, `empty` where the denominator is 0."""

    def exp(self, x: Any) -> Any:
        """e ** x."""

    def keyed(self, c: Any, name: str, term: Callable[[Any, Any, Any], Any]) -> Any:
        """Σ over the keys k of histogram `name` of term(self, k, count[k])."""

    def exact(self, x: float) -> tuple[Any, Any]:
        """(a, b) with a / b = x: exact integers for one tally, (x, 1.0) for arrays."""


Columns: TypeAlias = Any
"""Sums a formula reads: a `Tally`, or B summed tallies column by column (`dst_metrics.stats.matrix` makes
them: each int field of `Tally` as an array of B values under its name, and their `ops`). An alias, so
that each field is declared once, in `Tally` (mypyc reads the fields of either generically)."""


class _Scalar:
    """`Operations` on Python numbers: ints divided exactly, histograms summed with `math.fsum`."""

    def ratio(self, numerator: Any, denominator: Any, empty: float) -> Any:
        return operator.truediv(numerator, denominator) if denominator else empty

    def exp(self, x: Any) -> Any:
        return math.exp(x)

    def keyed(self, c: Any, name: str, term: Callable[[Any, Any, Any], Any]) -> Any:
        histogram = getattr(c, name)
        return _keyed(term, tuple(histogram.items())) if histogram else 0.0

    def exact(self, x: float) -> tuple[Any, Any]:
        return _exact_ratio(x)


SCALAR = _Scalar()


@functools.lru_cache(maxsize=4096)
def _keyed(term: Callable[[Any, Any, Any], Any], items: tuple[tuple[int, int], ...]) -> float:
    """`_Scalar.keyed`, cached: dialogues share few histograms and ``--per-dialogue`` asks each at every λ."""
    return math.fsum([term(SCALAR, key, count) for key, count in items])


def ops(c: Any) -> Any:
    """The `Operations` of `c`: `SCALAR` for a Tally, else the columns' own (``c.ops``)."""
    return SCALAR if isinstance(c, Tally) else c.ops


@functools.lru_cache(maxsize=64)
def _exact_ratio(alpha: float) -> tuple[int, int]:
    """(numerator, denominator) of the exact value of the float `alpha`."""
    weight = Fraction(alpha)
    return weight.numerator, weight.denominator


def _vacuous(mode: str) -> float:
    """Score of a ratio with nothing to count: 0 in official mode, 1 in corrected mode."""
    return 1.0 if mode == "corrected" else 0.0


def gca_rates(c: Columns, mode: str = "official") -> tuple[Any, Any, Any, Any]:
    """(VP, VR, LP, LR) with P = C+W+O, G = C+W+M:
    VP = C/P, VR = C/G, LP = (C+W)/P, LR = (C+W)/G (a zero denominator gives `_vacuous`)."""
    xp = ops(c)
    predicted = c.correct + c.wrong + c.overshot
    gold = c.correct + c.wrong + c.missed
    labelled = c.correct + c.wrong
    empty = _vacuous(mode)
    return (
        xp.ratio(c.correct, predicted, empty),
        xp.ratio(c.correct, gold, empty),
        xp.ratio(labelled, predicted, empty),
        xp.ratio(labelled, gold, empty),
    )


def gca(c: Columns, alpha: float = OFFICIAL_ALPHA, mode: str = "official") -> Any:
    """GCA = (P + G) / (α·P/VP + α·G/VR + (1-α)·P/LP + (1-α)·G/LR).

    A weighted harmonic mean of the four rates; 0 when any rate is 0. With P = G = 0 it is 0 in
    official mode and 1 in corrected mode. For one tally it is evaluated in integers as
    (P+G)·C·L / ((P²+G²)(α·L + (1-α)·C)), L = C+W, and rounded once, so a perfect prediction is 1.0."""
    xp = ops(c)
    predicted = c.correct + c.wrong + c.overshot
    gold = c.correct + c.wrong + c.missed
    labelled = c.correct + c.wrong
    a, b = xp.exact(alpha)
    numerator = (predicted + gold) * c.correct * labelled * b
    denominator = (predicted**2 + gold**2) * (a * labelled + (b - a) * c.correct)
    # the denominator is 0 where P = G = 0 (then `_vacuous`) or C = W = 0 (then 0, as VP = VR = 0 wherever C = 0)
    return xp.ratio(numerator, denominator, _vacuous(mode) * (predicted + gold == 0))


def jga(c: Columns) -> Any:
    """JGA = (turns whose gold and predicted states are equal) / turns."""
    return c.joint_hits / c.turns


def joint_turn_accuracy(c: Columns, teacher_forced: bool = False) -> Any:
    """Joint turn accuracy (DST-STAR): turns whose predicted changes equal gold's turn label, over turns."""
    return (c.joint_hits if teacher_forced else c.turn_hits) / c.turns


def final_jga(c: Columns) -> Any:
    """Final-turn JGA (DST-STAR): dialogues whose last turn's states are equal, over dialogues (0 without)."""
    return ops(c).ratio(c.final_hits, c.final_turns, 0.0)


def fga(c: Columns, lam: float = DEFAULT_FGA_LAMBDA) -> Any:
    """FGA = (equal turns + Σ over type-2 errors of 1 - exp(-λ·d)) / turns, d back to the last type-1 error."""
    return (c.joint_hits + ops(c).keyed(c, "fga_distances", _credit(lam))) / c.turns


def fga_grid(t: Tally, lambdas: tuple[float, ...]) -> tuple[float, ...]:
    """`fga` of one tally at each λ of `lambdas`, the distances read once; the same digits as λ by λ."""
    credits = _credits(lambdas, tuple(t.fga_distances.items()))
    return tuple([(t.joint_hits + credit) / t.turns for credit in credits])


@functools.lru_cache(maxsize=4096)
def _credits(lambdas: tuple[float, ...], items: tuple[tuple[int, int], ...]) -> tuple[float, ...]:
    return tuple([_keyed(_credit(lam), items) if items else 0.0 for lam in lambdas])


@functools.lru_cache(maxsize=64)
def _credit(lam: float) -> Callable[[Any, Any, Any], Any]:
    """FGA's credit of `count` type-2 errors at distance d: one function for each λ, so that `_keyed` caches."""
    return lambda xp, d, count: count * (1.0 - xp.exp(-lam * d))


def slot_accuracy(c: Columns, num_slots: int = MULTIWOZ_NUM_SLOTS) -> Any:
    """SA = mean over turns of (K - missed_t - wrong_t) / K = 1 - Σ_t(missed_t + wrong_t) / (K·turns)."""
    return 1.0 - c.slot_errors / (num_slots * c.turns)


def _share(xp: Any, size: Any, hits: Any) -> Any:
    return hits / size


def aga(c: Columns, mode: str = "official") -> Any:
    """AGA = mean, over turns with an active gold slot, of |G_t ∩ P_t| / |G_t|; `_vacuous` without any."""
    xp = ops(c)
    return xp.ratio(xp.keyed(c, "goal_hits", _share), c.goal_turns, _vacuous(mode))


def rsa(c: Columns, mode: str = "official") -> Any:
    """RSA = mean over turns of (T* - missed - wrong) / T*, T* = |slots(G) ∪ slots(P)|; 0 when T* = 0."""
    del mode  # same definition in both modes
    return ops(c).keyed(c, "relative_hits", _share) / c.turns


def slot_prf(c: Columns) -> tuple[Any, Any, Any]:
    """Slot (precision, recall, F1), micro over turns; precision is 1 with no prediction, recall 1 with no gold."""
    xp = ops(c)
    tp, fp, fn = c.true_positives, c.false_positives, c.false_negatives
    precision = xp.ratio(tp, tp + fp, 1.0)
    recall = xp.ratio(tp, tp + fn, 1.0)
    return precision, recall, xp.ratio(2 * precision * recall, precision + recall, 0.0)
