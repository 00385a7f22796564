"""Calibration figures of predictions that carry confidences (conventions: ``docs/calibration.md``).

Every turn scores the union of its gold and predicted slots. A slot's distribution is DSTC2's
``normalise_dist`` of its hypotheses (a plain value has score 1; a slot left out is None with
score 1); the label is the gold value, None when gold leaves the slot out or gives an inactive value.
**slot** figures pool every (turn, slot) decision; **joint** figures take each turn's joint as the
product of its slots' marginals. Accuracy, L2, MRR and ROC v2 CA05 are DSTC2's, each decision the item
of one official ``add`` call (`dst_metrics.dstc2.items`); ECE, Brier score and AUROC are those of "the
top hypothesis is right" against its score; ``slt2024_*`` come from `slt2024.slt2024_figures`.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..confidences import Hypotheses, ScoredPredictions
from ..corpus import Corpus, _snapped_value, text_matching
from ..dstc2.items import independent_item, new_ids, plain_item
from ..dstc2.stats import normalise_dist, roc_results
from ..figures.calibration import CALIBRATION_FIGURES
from ..states import INACTIVE_VALUES, Alternatives, _canonical_text
from .slt2024 import linspace_edges, slt2024_figures

DEFAULT_BINS = 10
"""Bins of the reliability diagram and of ECE, unless asked otherwise."""
EDGE_TOLERANCE = 1e-9
"""A confidence within this of an equal-width edge k/B counts as on the edge (so in the bin below):
``1 - sum`` of scores written as decimals misses the decimal by about 1e-16 (``1 - 0.43`` is
0.5700000000000001), far less than any difference between confidences a tracker means."""
BIN_STRATEGIES = ("width", "mass")
"""``width``: B bins of equal width on [0, 1]; ``mass``: edges at the quantiles of the confidences."""
LEVELS = ("slot", "joint")
"""Slot decisions pooled, and the turn's joint."""
SETSUMBT_BINS = 10
"""Equal-width bins of ``joint_ece_min`` (SetSUMBT's default ``n_confidence_bins``), whatever `bins` is."""


@dataclass(frozen=True)
class ReliabilityBin:
    """One non-empty bin ``(low, high]`` (the first bin includes 0): its decisions' count, mean
    confidence and accuracy (the share whose top hypothesis is right)."""

    low: float
    high: float
    count: int
    mean_confidence: float
    accuracy: float

    def as_list(self) -> list[float | int]:
        """``[low, high, count, mean_confidence, accuracy]``."""
        return [self.low, self.high, self.count, self.mean_confidence, self.accuracy]


def bin_edges(confidence: Sequence[float], bins: int = DEFAULT_BINS, strategy: str = "width") -> list[float]:
    """The ``bins + 1`` edges: ``k / bins`` (``width``), or the ``k / bins`` quantiles of `confidence`
    with linear interpolation (``mass``, numpy's default quantile); as scikit-learn's calibration_curve."""
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    if strategy == "width":
        return linspace_edges(bins)
    if strategy != "mass":
        raise ValueError(f"strategy must be one of {BIN_STRATEGIES}, got {strategy!r}")
    ordered = sorted(confidence)
    last = len(ordered) - 1
    edges = []
    for k in range(bins + 1):
        position = k / bins * last
        low = math.floor(position)
        high = min(low + 1, last)
        edges.append(ordered[low] + (ordered[high] - ordered[low]) * (position - low))
    return edges


def width_bin(confidence: float, bins: int) -> int:
    """The equal-width bin of a confidence: i with i/B < c <= (i+1)/B (the first bin includes 0),
    the edges k/B taken as exact fractions and a confidence within `EDGE_TOLERANCE` of one as on it."""
    scaled = confidence * bins  # exact to 1 ulp: far inside the tolerance
    nearest = round(scaled)
    index = nearest - 1 if abs(scaled - nearest) <= EDGE_TOLERANCE * bins else math.floor(scaled)
    return min(max(index, 0), bins - 1)


def reliability_bins(
    correct: Sequence[bool], confidence: Sequence[float], bins: int = DEFAULT_BINS, strategy: str = "width"
) -> list[ReliabilityBin]:
    """The non-empty bins of the reliability diagram; a confidence on an edge goes to the bin below
    (equal width: `width_bin`; equal mass: compared with the quantile edges as they are)."""
    if not confidence:
        return []
    edges = bin_edges(confidence, bins, strategy)
    inner = edges[1:-1]
    counts = [0] * bins
    sums = [0.0] * bins
    rights = [0] * bins
    for right, score in zip(correct, confidence):
        index = width_bin(score, bins) if strategy == "width" else bisect_left(inner, score)
        counts[index] += 1
        sums[index] += score
        rights[index] += bool(right)
    return [
        ReliabilityBin(edges[i], edges[i + 1], counts[i], sums[i] / counts[i], rights[i] / counts[i])
        for i in range(bins)
        if counts[i]
    ]


def expected_calibration_error(
    correct: Sequence[bool], confidence: Sequence[float], bins: int = DEFAULT_BINS, strategy: str = "width"
) -> float | None:
    """ECE = sum over bins of (count / N) * |accuracy - mean confidence|; None without decisions."""
    total = len(confidence)
    if total == 0:
        return None
    found = reliability_bins(correct, confidence, bins, strategy)
    return sum(b.count / total * abs(b.accuracy - b.mean_confidence) for b in found)


def brier_score(correct: Sequence[bool], confidence: Sequence[float]) -> float | None:
    """Mean of (confidence - [right])²; None without decisions."""
    if not confidence:
        return None
    return math.fsum((score - bool(right)) ** 2 for right, score in zip(correct, confidence)) / len(confidence)


def auroc(correct: Sequence[bool], confidence: Sequence[float]) -> float | None:
    """Area under the ROC curve of confidence separating right from wrong decisions: the chance that a
    right one scores above a wrong one, ties counting half (Mann-Whitney U with mid-ranks). None
    when all decisions are right or all wrong."""
    positives = sum(map(bool, correct))
    negatives = len(correct) - positives
    if positives == 0 or negatives == 0:
        return None
    order = sorted(range(len(confidence)), key=confidence.__getitem__)
    rank_sum = 0.0
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and confidence[order[end + 1]] == confidence[order[start]]:
            end += 1
        mid_rank = (start + end) / 2 + 1  # ranks start at 1
        rank_sum += mid_rank * sum(bool(correct[order[i]]) for i in range(start, end + 1))
        start = end + 1
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


@dataclass
class Decisions:
    """One level's decisions: each DSTC2 ``add`` call's item (`dst_metrics.dstc2.items`), kept as its
    (right, confidence) pair and its L2 term and reciprocal rank summed in call order (the official ``+=``)."""

    ids: dict = field(default_factory=new_ids)  # the items' interned hypotheses
    correct: list[bool] = field(default_factory=list)
    confidence: list[float] = field(default_factory=list)
    min_confidence: list[float] = field(default_factory=list)  # joint level: min over slots of the top's score
    l2: float = 0.0
    reciprocal_rank: float = 0.0

    def add(self, dist: list, label: object) -> None:
        """One DSTC2 ``add(dist, label)`` call on a plain distribution."""
        self._count(plain_item(dist, label, self.ids))

    def add_independent(self, dists: dict[str, list], label: dict | None) -> None:
        """One call on the independent joint ``{slot: distribution}``."""
        self._count(independent_item(dists, label, self.ids))

    def _count(self, item: tuple) -> None:
        right, score, _, l2, _, reciprocal_rank, _, _ = item
        self.correct.append(right)
        self.confidence.append(score)
        self.l2 += l2
        self.reciprocal_rank += reciprocal_rank

    def figures(self, bins: int) -> dict[str, float | None]:
        """{figure name without the level: value} (see `figures.CALIBRATION_FIGURES`)."""
        n = len(self.correct)
        return {
            "acc": sum(self.correct) / n if n else None,
            "l2": self.l2 / n if n else None,
            "mrr": self.reciprocal_rank / n if n else None,
            "roc_v2_ca05": roc_results(self.correct, self.confidence)["roc.v2_ca05"],
            "ece": expected_calibration_error(self.correct, self.confidence, bins, "width"),
            "ece_mass": expected_calibration_error(self.correct, self.confidence, bins, "mass"),
            "brier": brier_score(self.correct, self.confidence),
            "auroc": auroc(self.correct, self.confidence),
        }


@dataclass(frozen=True)
class Calibration:
    """The calibration figures of a corpus (keys of `figures.CALIBRATION_FIGURES`, None where undefined),
    the number of slot decisions and turns, whether any prediction carried a confidence, and the
    reliability diagram's bins: ``reliability[level][strategy]``."""

    figures: dict[str, float | None]
    slots: int
    turns: int
    bins: int
    has_confidences: bool
    reliability: dict[str, dict[str, list[ReliabilityBin]]]
    by_slot: dict[str, dict[str, float | int | None]] | None = None
    """With ``by_slot=True``: {slot name: the slot-level figures without the ``slot_`` prefix, and ``n``
    its decisions}, slots sorted by name (DSTC2's ``goal.<slot>`` components)."""
    joint_ece_min: float | None = None
    """The joint's ECE in SetSUMBT's convention: the turn's confidence is the minimum over its slots of
    the top's score, `SETSUMBT_BINS` equal-width bins (None without turns)."""

    def as_dict(self) -> dict:
        """JSON-ready: the figures, ``slots``, ``turns``, ``bins``, ``confidences`` and ``reliability``
        ``{level: {strategy: [[low, high, count, mean_confidence, accuracy], ...]}}``."""
        reliability = {
            level: {strategy: [b.as_list() for b in found] for strategy, found in by.items()}
            for level, by in self.reliability.items()
        }
        extra = {"slots": self.slots, "turns": self.turns, "bins": self.bins, "confidences": self.has_confidences}
        by_slot = {} if self.by_slot is None else {"by_slot": self.by_slot}
        figures: dict[str, float | None] = {}
        for key, value in self.figures.items():
            figures[key] = value
            if key == "joint_ece":
                figures["joint_ece_min"] = self.joint_ece_min
        return {**figures, **extra, "reliability": reliability, **by_slot}


def _folded(hypotheses: Hypotheses, matching: str, gold: object) -> list[tuple[str, float]]:
    """Hypotheses folded as the corpus' value matching folds values (fuzzy: snapped to gold), merged."""
    if matching == "exact":
        return list(hypotheses)
    folding = text_matching(matching)
    merged: dict[str, float] = {}
    for value, score in hypotheses:
        text = _canonical_text(value, folding)
        if matching == "fuzzy" and gold is not None:
            text = _snapped_value(gold, text) or text
        merged[text] = merged.get(text, 0.0) + score
    return list(merged.items())


def _label(gold: object, dist: list) -> object:
    """The slot's true label: the gold value, None when inactive or absent; of acceptable values, the
    one `dist` ranks highest (else the first given)."""
    if gold is None or gold in INACTIVE_VALUES:
        return None
    if gold.__class__ is Alternatives:
        return next((hyp for hyp, _ in dist if hyp in gold), gold.first)
    return gold


def _add_turn(levels: dict, per_slot: dict | None, gold: Mapping, pred: Mapping, turn_scores, matching) -> None:
    """One turn's DSTC2 calls: each slot of the union (sorted), then the independent joint."""
    slot_level, joint_level = levels["slot"], levels["joint"]
    marginals: dict[str, list] = {}
    joint_label: dict[str, object] = {}
    for slot in sorted(gold.keys() | pred.keys() | turn_scores.keys()):
        gold_value, value = gold.get(slot), pred.get(slot)
        if slot in turn_scores:
            hypotheses = _folded(turn_scores[slot], matching, gold_value)
        else:
            hypotheses = [] if value is None or value in INACTIVE_VALUES else [(value, 1.0)]
        dist = normalise_dist(hypotheses)
        label = _label(gold_value, dist)
        slot_level.add(dist, label)
        if per_slot is not None:
            (per_slot.get(slot) or per_slot.setdefault(slot, Decisions())).add(dist, label)
        marginals[slot] = dist
        if label is not None:
            joint_label[slot] = label
    joint_level.add_independent(marginals, joint_label or None)
    joint_level.min_confidence.append(min((dist[0][1] for dist in marginals.values()), default=1.0))


def calibration(
    corpus: Corpus, scores: ScoredPredictions | None = None, *, bins: int = DEFAULT_BINS, by_slot: bool = False
) -> Calibration:
    """The calibration figures of `corpus`, whose confidences are `scores` (default `corpus.scores`;
    without any, every predicted value counts as certain); `by_slot` adds each slot name's figures.
    See the module docstring."""
    if bins < 1:
        raise ValueError(f"bins must be at least 1, got {bins}")
    scores = corpus.scores if scores is None else scores
    levels = {level: Decisions() for level in LEVELS}
    per_slot: dict[str, Decisions] | None = {} if by_slot else None
    no_scores: Mapping = {}
    for dialogue in corpus.dialogues:
        for turn_id, gold, pred in zip(dialogue.turn_ids, dialogue.gold, dialogue.pred):
            turn_scores = no_scores if scores is None else scores.turn(dialogue.dialogue_id, turn_id)
            _add_turn(levels, per_slot, gold, pred, turn_scores, corpus.value_matching)
    values = {f"{level}_{name}": v for level, found in levels.items() for name, v in found.figures(bins).items()}
    values.update(slt2024_figures(corpus, scores))  # SLT 2024's protocol, in its own bins
    reliability = {
        level: {s: reliability_bins(found.correct, found.confidence, bins, s) for s in BIN_STRATEGIES}
        for level, found in levels.items()
    }
    return Calibration(
        figures={figure.key: values[figure.key] for figure in CALIBRATION_FIGURES},
        slots=len(levels["slot"].correct),
        turns=len(levels["joint"].correct),
        bins=bins,
        has_confidences=bool(scores),
        reliability=reliability,
        by_slot=None
        if per_slot is None
        else {slot: {**per_slot[slot].figures(bins), "n": len(per_slot[slot].correct)} for slot in sorted(per_slot)},
        joint_ece_min=expected_calibration_error(
            levels["joint"].correct, levels["joint"].min_confidence, SETSUMBT_BINS, "width"
        ),
    )
