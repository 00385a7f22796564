"""Every metric as one short function of a `Tally`, next to its formula.

Scores are fractions in [0, 1]. Where a formula has nothing to divide (no changes, no gold
slot, an empty turn), official mode gives what the official code gives (0) and corrected mode
gives 1 when nothing could have been got wrong; `README.md` lists these deviations.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .core import Tally

OFFICIAL_ALPHA = 10 / 11
"""GCA's weight of the value rates against the label rates, 10:1, as in the official code."""
DEFAULT_FGA_LAMBDA = 0.5
"""FGA's decay λ used by Dey et al. (2022) and the GCA paper's benchmarks."""
FGA_LAMBDA_GRID = (0.25, 0.5, 0.75, 1.0)
"""The λ values the official code reports FGA for."""
MULTIWOZ_NUM_SLOTS = 30
"""K for slot accuracy: the number of slots of MultiWOZ 2.1's five evaluation domains."""


def _vacuous(mode: str) -> float:
    """Score of a ratio with nothing to count: 0 in official mode, 1 in corrected mode."""
    return 1.0 if mode == "corrected" else 0.0


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
    weight = Fraction(alpha)  # exact value of the float
    a, b = weight.numerator, weight.denominator
    numerator = (predicted + gold) * t.correct * labelled * b
    denominator = (predicted**2 + gold**2) * (a * labelled + (b - a) * t.correct)
    return numerator / denominator


def jga(t: Tally) -> float:
    """JGA = (turns whose gold and predicted states are equal) / turns."""
    return t.joint_hits / t.turns


def fga(t: Tally, lam: float = DEFAULT_FGA_LAMBDA) -> float:
    """FGA = (equal turns + Σ over type-2 errors of 1 - exp(-λ·d)) / turns.

    d is the distance from a type-2 error (a turn whose own changes are right but that carries
    an earlier mistake) back to the last type-1 error; type-1 errors score 0.
    """
    partial = math.fsum(count * (1.0 - math.exp(-lam * d)) for d, count in t.fga_distances.items())
    return (t.joint_hits + partial) / t.turns


def slot_accuracy(t: Tally, num_slots: int = MULTIWOZ_NUM_SLOTS) -> float:
    """SA = mean over turns of (K - missed_t - wrong_t) / K = 1 - Σ_t(missed_t + wrong_t) / (K·turns)."""
    return 1.0 - t.slot_errors / (num_slots * t.turns)


def aga(t: Tally, mode: str = "official") -> float:
    """AGA = mean, over turns with an active gold slot, of |G_t ∩ P_t| / |G_t|.

    With no such turn it is `_vacuous` (0 official, 1 corrected)."""
    if not t.goal_turns:
        return _vacuous(mode)
    return math.fsum(hits / size for size, hits in t.goal_hits.items()) / t.goal_turns


def rsa(t: Tally, mode: str = "official") -> float:
    """RSA = mean over turns of (T* - missed_t - wrong_t) / T*, T* = |slots(G_t) ∪ slots(P_t)|.

    A turn with T* = 0 scores 0 (the RSA paper, official) or 1 (corrected: an empty prediction
    of an empty state is right)."""
    partial = math.fsum(hits / size for size, hits in t.relative_hits.items())
    return (partial + t.relative_empty_turns * _vacuous(mode)) / t.turns


def slot_prf(t: Tally) -> tuple[float, float, float]:
    """Slot (precision, recall, F1), micro over turns: TP, FP, FN summed over all turns.

    Precision is 1 when nothing was predicted and recall is 1 when gold has nothing, so an
    empty prediction of an empty corpus scores 1."""
    tp, fp, fn = t.true_positives, t.false_positives, t.false_negatives
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
