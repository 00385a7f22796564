"""Every metric as one short function of a `Tally`, next to its formula.

Scores are fractions in [0, 1]. Where a formula has nothing to divide (no changes, no gold
slot), official mode gives what the official code gives (0) and corrected mode gives 1 when
nothing could have been got wrong; `README.md` lists these deviations. RSA's turn with no slot
on either side scores 0 in both modes (the RSA paper's definition).

Below a function, its ``*_columns`` form computes the same figure of B summed tallies at once, in
floats, for the bootstrap (`dst_metrics.stats.matrix`): `c` is a `Columns`, and the registry entry
(`dst_metrics.figures`) carries both forms.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Protocol

from .core import Tally
from .options import DEFAULT_FGA_LAMBDA, FGA_LAMBDA_GRID, MULTIWOZ_NUM_SLOTS, OFFICIAL_ALPHA

__all__ = [
    "DEFAULT_FGA_LAMBDA",
    "FGA_LAMBDA_GRID",
    "MULTIWOZ_NUM_SLOTS",
    "OFFICIAL_ALPHA",
    "Columns",
    "aga",
    "aga_columns",
    "fga",
    "fga_columns",
    "final_jga",
    "final_jga_columns",
    "gca",
    "gca_columns",
    "gca_rates",
    "gca_rates_columns",
    "jga",
    "jga_columns",
    "joint_turn_accuracy",
    "joint_turn_accuracy_columns",
    "rsa",
    "rsa_columns",
    "slot_accuracy",
    "slot_accuracy_columns",
    "slot_prf",
    "slot_prf_columns",
]


class Columns(Protocol):
    """B summed tallies, column by column (`dst_metrics.stats.matrix` makes them): each int field of
    `Tally` as an array of B values (``c.correct``, ``c.turns``, …), `weighted` for a histogram field,
    and `xp`, the array module (numpy), so that this module needs none."""

    xp: Any
    turns: Any
    correct: Any
    wrong: Any
    missed: Any
    overshot: Any
    joint_hits: Any
    slot_errors: Any
    goal_turns: Any
    relative_empty_turns: Any
    true_positives: Any
    false_positives: Any
    false_negatives: Any
    turn_hits: Any
    final_turns: Any
    final_hits: Any

    def weighted(self, name: str, weight: Callable[[Any], Any]) -> Any:
        """Σ over the keys k of histogram `name` of weight(k) · count[k], for each of the B tallies."""


def _vacuous(mode: str) -> float:
    """Score of a ratio with nothing to count: 0 in official mode, 1 in corrected mode."""
    return 1.0 if mode == "corrected" else 0.0


def _ratio_columns(xp: Any, numerator: Any, denominator: Any, empty: float) -> Any:
    """numerator / denominator elementwise, `empty` where the denominator is 0."""
    safe = xp.where(denominator == 0, 1.0, denominator)
    return xp.where(denominator == 0, empty, numerator / safe)


def gca_rates(t: Tally, mode: str = "official") -> tuple[float, float, float, float]:
    """(VP, VR, LP, LR) with P = C+W+O, G = C+W+M:
    VP = C/P, VR = C/G, LP = (C+W)/P, LR = (C+W)/G (a zero denominator gives `_vacuous`)."""
    predicted = t.correct + t.wrong + t.overshot
    gold = t.correct + t.wrong + t.missed
    labelled = t.correct + t.wrong
    empty = _vacuous(mode)
    precision = (t.correct / predicted, labelled / predicted) if predicted else (empty, empty)
    recall = (t.correct / gold, labelled / gold) if gold else (empty, empty)
    return precision[0], recall[0], precision[1], recall[1]


def gca_rates_columns(c: Columns, mode: str = "official") -> tuple[Any, Any, Any, Any]:
    """`gca_rates` of B tallies."""
    predicted = c.correct + c.wrong + c.overshot
    gold = c.correct + c.wrong + c.missed
    labelled = c.correct + c.wrong
    empty = _vacuous(mode)
    return (
        _ratio_columns(c.xp, c.correct, predicted, empty),
        _ratio_columns(c.xp, c.correct, gold, empty),
        _ratio_columns(c.xp, labelled, predicted, empty),
        _ratio_columns(c.xp, labelled, gold, empty),
    )


@functools.lru_cache(maxsize=64)
def _exact_ratio(alpha: float) -> tuple[int, int]:
    """(numerator, denominator) of the exact value of the float `alpha`."""
    weight = Fraction(alpha)
    return weight.numerator, weight.denominator


def gca(t: Tally, alpha: float = OFFICIAL_ALPHA, mode: str = "official") -> float:
    """GCA = (P + G) / (α·P/VP + α·G/VR + (1-α)·P/LP + (1-α)·G/LR).

    A weighted harmonic mean of the four rates; 0 when any rate is 0. With no change on
    either side (P = G = 0) it is 0 in official mode (quirk 4) and 1 in corrected mode.
    Computed exactly: with L = C+W the denominator is (P²+G²)(α·L + (1-α)·C)/(C·L), so
    GCA = (P+G)·C·L / ((P²+G²)(α·L + (1-α)·C)), evaluated in integers and rounded once
    (a perfect prediction gives exactly 1.0, never 1.0000000000000002).
    """
    predicted = t.correct + t.wrong + t.overshot
    gold = t.correct + t.wrong + t.missed
    if predicted == 0 and gold == 0:
        return _vacuous(mode)
    labelled = t.correct + t.wrong
    if t.correct == 0:  # VP = VR = 0, and P = 0 or G = 0 imply C = 0
        return 0.0
    a, b = _exact_ratio(alpha)
    numerator = (predicted + gold) * t.correct * labelled * b
    denominator = (predicted**2 + gold**2) * (a * labelled + (b - a) * t.correct)
    return operator.truediv(numerator, denominator)  # CPython's exact rounding of big ints, compiled too


def gca_columns(c: Columns, alpha: float = OFFICIAL_ALPHA, mode: str = "official") -> Any:
    """`gca` of B tallies, in floats: (P+G)·C·L / ((P²+G²)(α·L + (1-α)·C)), 0 when C = 0."""
    xp = c.xp
    predicted = c.correct + c.wrong + c.overshot
    gold = c.correct + c.wrong + c.missed
    labelled = c.correct + c.wrong
    denominator = (predicted**2 + gold**2) * (alpha * labelled + (1 - alpha) * c.correct)
    value = _ratio_columns(xp, (predicted + gold) * c.correct * labelled, denominator, 0.0)
    value = xp.where(c.correct == 0, 0.0, value)
    return xp.where((predicted == 0) & (gold == 0), _vacuous(mode), value)


def jga(t: Tally) -> float:
    """JGA = (turns whose gold and predicted states are equal) / turns."""
    return t.joint_hits / t.turns


def jga_columns(c: Columns) -> Any:
    """`jga` of B tallies."""
    return c.joint_hits / c.turns


def joint_turn_accuracy(t: Tally, teacher_forced: bool = False) -> float:
    """Joint turn accuracy (DST-STAR) = (turns whose predicted changes equal gold's turn label) / turns.

    A turn's changes are the slots whose value differs from the previous turn's state, with their new
    values. With `teacher_forced` (predictions made from the gold previous state) the prediction's
    changes are taken against the gold previous state, as DST-STAR does then: they equal gold's exactly
    when the states are equal, so the figure is JGA."""
    return (t.joint_hits if teacher_forced else t.turn_hits) / t.turns


def joint_turn_accuracy_columns(c: Columns, teacher_forced: bool = False) -> Any:
    """`joint_turn_accuracy` of B tallies."""
    return (c.joint_hits if teacher_forced else c.turn_hits) / c.turns


def final_jga(t: Tally) -> float:
    """Final-turn JGA (DST-STAR) = (dialogues whose last turn's states are equal) / dialogues; 0 for a tally
    made without dialogues (a simulated one)."""
    return t.final_hits / t.final_turns if t.final_turns else 0.0


def final_jga_columns(c: Columns) -> Any:
    """`final_jga` of B tallies."""
    return _ratio_columns(c.xp, c.final_hits, c.final_turns, 0.0)


def fga(t: Tally, lam: float = DEFAULT_FGA_LAMBDA) -> float:
    """FGA = (equal turns + Σ over type-2 errors of 1 - exp(-λ·d)) / turns.

    d is the distance from a type-2 error (a turn whose own changes are right but that carries
    an earlier mistake) back to the last type-1 error; type-1 errors score 0.
    """
    return fga_grid(t, (lam,))[0]


def fga_columns(c: Columns, lam: float = DEFAULT_FGA_LAMBDA) -> Any:
    """`fga` of B tallies."""
    partial = c.weighted("fga_distances", lambda d: 1.0 - c.xp.exp(-lam * d))
    return (c.joint_hits + partial) / c.turns


def fga_grid(t: Tally, lambdas: tuple[float, ...]) -> tuple[float, ...]:
    """`fga` at each λ of `lambdas`, the distances read once (``--per-dialogue`` asks each dialogue's FGA
    at the whole grid)."""
    if not t.fga_distances:  # no type-2 error: exactly the value the sum gives, with nothing to add
        return (t.joint_hits / t.turns,) * len(lambdas)
    credits = _type2_credits(lambdas, tuple(t.fga_distances.items()))
    return tuple((t.joint_hits + credit) / t.turns for credit in credits)


@functools.lru_cache(maxsize=4096)
def _type2_credits(lambdas: tuple[float, ...], distances: tuple[tuple[int, int], ...]) -> tuple[float, ...]:
    """Σ count · (1 - exp(-λ·d)) over the (d, count) pairs at each λ, summed exactly (`math.fsum`, so in
    any order). Cached: dialogues share few distance histograms (999 TRADE dialogues: 39)."""
    return tuple(math.fsum([count * (1.0 - math.exp(-lam * d)) for d, count in distances]) for lam in lambdas)


def slot_accuracy(t: Tally, num_slots: int = MULTIWOZ_NUM_SLOTS) -> float:
    """SA = mean over turns of (K - missed_t - wrong_t) / K = 1 - Σ_t(missed_t + wrong_t) / (K·turns)."""
    return 1.0 - t.slot_errors / (num_slots * t.turns)


def slot_accuracy_columns(c: Columns, num_slots: int = MULTIWOZ_NUM_SLOTS) -> Any:
    """`slot_accuracy` of B tallies."""
    return 1.0 - c.slot_errors / (num_slots * c.turns)


def aga(t: Tally, mode: str = "official") -> float:
    """AGA = mean, over turns with an active gold slot, of |G_t ∩ P_t| / |G_t|.

    With no such turn it is `_vacuous` (0 official, 1 corrected)."""
    if not t.goal_turns:
        return _vacuous(mode)
    return math.fsum(hits / size for size, hits in t.goal_hits.items()) / t.goal_turns


def aga_columns(c: Columns, mode: str = "official") -> Any:
    """`aga` of B tallies."""
    return _ratio_columns(c.xp, c.weighted("goal_hits", lambda k: 1.0 / k), c.goal_turns, _vacuous(mode))


def rsa(t: Tally, mode: str = "official") -> float:
    """RSA = mean over turns of (T* - missed_t - wrong_t) / T*, T* = |slots(G_t) ∪ slots(P_t)|.

    A turn with T* = 0 (no slot on either side) scores 0, in both modes: the RSA paper's
    definition as SPEC.md states it and the official code implements it; corrected mode fixes the
    official code's quirks without redefining a metric. `mode` is kept for signature
    compatibility and does not change this convention (the modes differ only in the turn figures
    the Tally holds, e.g. the last-hyphen quirk and ``""`` values)."""
    del mode  # same definition in both modes
    return math.fsum(hits / size for size, hits in t.relative_hits.items()) / t.turns


def rsa_columns(c: Columns) -> Any:
    """`rsa` of B tallies."""
    return c.weighted("relative_hits", lambda k: 1.0 / k) / c.turns


def slot_prf(t: Tally) -> tuple[float, float, float]:
    """Slot (precision, recall, F1), micro over turns: TP, FP, FN summed over all turns.

    Precision is 1 when nothing was predicted and recall is 1 when gold has nothing, so an
    empty prediction of an empty corpus scores 1."""
    tp, fp, fn = t.true_positives, t.false_positives, t.false_negatives
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def slot_prf_columns(c: Columns) -> tuple[Any, Any, Any]:
    """`slot_prf` of B tallies."""
    tp, fp, fn = c.true_positives, c.false_positives, c.false_negatives
    precision = _ratio_columns(c.xp, tp, tp + fp, 1.0)
    recall = _ratio_columns(c.xp, tp, tp + fn, 1.0)
    return precision, recall, _ratio_columns(c.xp, 2 * precision * recall, precision + recall, 0.0)
