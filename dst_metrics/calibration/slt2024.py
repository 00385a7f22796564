"""The ``slt2024`` calibration profile: ECE and AUROC as "Confidence Estimation for LLM-based Dialogue
State Tracking" (Sun et al., SLT 2024; github jennycs0830/Confidence_Score_DST, ``evaluation_minicons.py``)
computes them. A decision is one predicted (slot, value) pair that carries a confidence; ECE compares
each equal-width bin's accuracy with the bin's centre; AUROC is scikit-learn's. Every sum is numpy's
pairwise summation (`numpy_sum`), so the figures equal theirs to the last digit. Conventions:
``docs/compat.md``, section "Confidence Estimation for LLM-based DST".
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from ..confidences import ScoredPredictions
from ..corpus import Corpus
from ..figures.calibration import SLT2024_BINS  # their n_bins, kept with the registry's slt2024 figures
from ..numpy_sums import numpy_sum
from ..states import values_match

PROFILE = "slt2024"
"""The profile's name (``dst-metrics calibration --profile slt2024``)."""


def linspace_edges(bins: int) -> list[float]:
    """``numpy.linspace(0, 1, bins + 1)``: ``k * (1 / bins)``, the last exactly 1."""
    step = 1.0 / bins
    return [k * step for k in range(bins)] + [1.0]


def histogram_counts(confidence: Sequence[float], edges: Sequence[float]) -> list[int]:
    """``numpy.histogram(confidence, bins=edges)[0]``: bins ``[low, high)``, the last ``[low, high]``."""
    counts = [0] * (len(edges) - 1)
    for score in confidence:
        if edges[0] <= score <= edges[-1]:
            counts[min(bisect_right(edges, score), len(counts)) - 1] += 1
    return counts


def reliability_table(
    correct: Sequence[bool], confidence: Sequence[float], bins: int = SLT2024_BINS
) -> list[tuple[float, int, float]]:
    """Their reliability diagram: per bin ``(centre, histogram count, accuracy)``, the accuracy over
    ``low < c <= high`` (0 when no decision is; see the module)."""
    edges = linspace_edges(bins)
    counts = histogram_counts(confidence, edges)
    judged = [0] * bins
    rights = [0] * bins
    for right, score in zip(correct, confidence):
        index = bisect_left(edges, score) - 1  # edges[index] < score <= edges[index + 1]
        if 0 <= index < bins:
            judged[index] += 1
            rights[index] += bool(right)
    return [((edges[i] + edges[i + 1]) / 2, counts[i], rights[i] / judged[i] if judged[i] else 0) for i in range(bins)]


def slt2024_ece(correct: Sequence[bool], confidence: Sequence[float], bins: int = SLT2024_BINS) -> float | None:
    """Their ECE: sum over bins of (count / total) * |accuracy - bin centre|; None without a
    confidence in [0, 1] (theirs: nan)."""
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    table = reliability_table(correct, confidence, bins)
    total = sum(count for _, count, _ in table)
    if total == 0:
        return None
    return numpy_sum([count / total * abs(accuracy - centre) for centre, count, accuracy in table])


def roc_points(correct: Sequence[bool], confidence: Sequence[float]) -> tuple[list[float], list[float]]:
    """scikit-learn's ``roc_curve(correct, confidence)[:2]`` (``drop_intermediate=True``): (fpr, tpr);
    both classes must be present."""
    order = sorted(range(len(confidence)), key=lambda i: -confidence[i])
    tps: list[float] = []
    fps: list[float] = []
    right = 0
    for position, index in enumerate(order):
        right += bool(correct[index])
        last = position == len(order) - 1
        if last or confidence[order[position + 1]] != confidence[index]:
            tps.append(float(right))
            fps.append(float(position + 1 - right))
    if len(fps) > 2:
        keep = [0] + [
            i
            for i in range(1, len(fps) - 1)
            if fps[i + 1] - 2 * fps[i] + fps[i - 1] or tps[i + 1] - 2 * tps[i] + tps[i - 1]
        ]
        keep.append(len(fps) - 1)
        tps, fps = [tps[i] for i in keep], [fps[i] for i in keep]
    tps, fps = [0.0, *tps], [0.0, *fps]
    return [f / fps[-1] for f in fps], [t / tps[-1] for t in tps]


def slt2024_auroc(correct: Sequence[bool], confidence: Sequence[float]) -> float | None:
    """scikit-learn's ``auc`` of `roc_points`: ``numpy.trapezoid(tpr, fpr)``; None when all decisions
    are right or all wrong (theirs: nan, with a warning)."""
    positives = sum(map(bool, correct))
    if positives == 0 or positives == len(correct):
        return None
    fpr, tpr = roc_points(correct, confidence)
    return numpy_sum([(fpr[i + 1] - fpr[i]) * (tpr[i + 1] + tpr[i]) / 2.0 for i in range(len(fpr) - 1)])


def pair_decisions(corpus: Corpus, scores: ScoredPredictions | None = None) -> tuple[list[bool], list[float]]:
    """(right, confidence) of every scored slot of every turn, in corpus order (see the module)."""
    scores = corpus.scores if scores is None else scores
    correct: list[bool] = []
    confidence: list[float] = []
    if not scores:
        return correct, confidence
    for dialogue in corpus.dialogues:
        for turn_id, gold in zip(dialogue.turn_ids, dialogue.gold):
            for slot, hypotheses in scores.turn(dialogue.dialogue_id, turn_id).items():
                if not hypotheses:
                    continue
                value, score = max(hypotheses, key=lambda hypothesis: hypothesis[1])  # first wins ties
                correct.append(values_match(gold.get(slot), value))
                confidence.append(score)
    return correct, confidence


def slt2024_figures(corpus: Corpus, scores: ScoredPredictions | None = None) -> dict[str, float | None]:
    """The registry's ``slt2024_ece`` and ``slt2024_auroc`` (`figures.CALIBRATION_FIGURES`): the
    ``pair_ece`` and ``pair_auroc`` of `slt2024_calibration` in `SLT2024_BINS` bins."""
    found = slt2024_calibration(corpus, scores, bins=SLT2024_BINS)
    return {"slt2024_ece": found["pair_ece"], "slt2024_auroc": found["pair_auroc"]}


def slt2024_calibration(
    corpus: Corpus, scores: ScoredPredictions | None = None, *, bins: int = SLT2024_BINS
) -> dict[str, object]:
    """``{"pair_ece", "pair_auroc", "pairs", "right", "bins", "reliability": [[centre, count,
    accuracy], ...]}`` of `pair_decisions`, figures None where theirs are nan."""
    correct, confidence = pair_decisions(corpus, scores)
    return {
        "pair_ece": slt2024_ece(correct, confidence, bins),
        "pair_auroc": slt2024_auroc(correct, confidence),
        "pairs": len(correct),
        "right": sum(correct),
        "bins": bins,
        "reliability": [list(row) for row in reliability_table(correct, confidence, bins)],
    }
