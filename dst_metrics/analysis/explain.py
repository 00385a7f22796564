"""Explanations: each turn's slots with their GCA count type (Figure 2 of the GCA paper), counts and
GCA per domain (`dst_metrics.analysis.breakdown`'s), and the paper's section 5.2 measures of where
mistakes fall, all from the per-turn comparison the scores use (`core.tally_dialogue`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from ..core.tally import CORRECT, COUNT_TYPES, SlotCount, check_mode, tally_dialogue
from ..corpus import Dialogue
from ..figures import metrics
from ..options import Options
from ..states import INACTIVE_VALUES, NONE_VALUE, Alternatives, State, Value, slot_domain
from .breakdown import domain_reports


def display_value(value: Value | None) -> str | None:
    """A value as text: acceptable values joined by ' | ', None when the slot is absent."""
    if value is None:
        return None
    if isinstance(value, Alternatives):
        return " | ".join(value.order)
    return value


@dataclass(frozen=True)
class SlotRow:
    """One slot in one turn: its gold and predicted values and how GCA counted it.

    `count_types` is empty when the slot did not change this turn (it was judged earlier);
    in official mode a slot can be counted twice in a turn (quirk 1: correct, then missed).
    """

    position: int
    turn_id: int
    slot: str
    gold: str | None
    pred: str | None
    count_types: tuple[str, ...]

    @property
    def domain(self) -> str:
        """The slot's domain (`states.slot_domain`): ``hotel``, SGD's ``Restaurants``."""
        return slot_domain(self.slot)

    @property
    def label(self) -> str:
        """The count types as text ('missed', 'correct + missed'), or 'unchanged'."""
        return " + ".join(self.count_types) if self.count_types else "unchanged"


def _is_shown(value: Value | None) -> bool:
    return value is not None and value not in INACTIVE_VALUES


def explain_dialogue(dialogue: Dialogue, mode: str = "official") -> list[SlotRow]:
    """Per turn, per slot: the values GCA compared and the count types it gave.

    A slot is listed in a turn when it is active on either side or was counted in that turn.
    """
    check_mode(mode)
    rows: list[SlotRow] = []

    def observe(position: int, turn_id: int, gold: State, pred: State, counted: list[SlotCount]) -> None:
        kinds: dict[str, list[str]] = {}
        for slot, kind in counted:
            kinds.setdefault(slot, []).append(kind)
        slots = [
            s for s in dict.fromkeys([*gold, *pred]) if s in kinds or _is_shown(gold.get(s)) or _is_shown(pred.get(s))
        ]
        slots += [s for s in kinds if s not in gold and s not in pred]
        for slot in slots:
            rows.append(
                SlotRow(
                    position,
                    turn_id,
                    slot,
                    display_value(gold.get(slot)),
                    display_value(pred.get(slot)),
                    tuple(kinds.get(slot, ())),
                )
            )

    tally_dialogue(dialogue, mode, observe=observe)
    return rows


def domain_gca(
    dialogues: Iterable[Dialogue], mode: str = "official", alpha: float = metrics.OFFICIAL_ALPHA
) -> dict[str, dict[str, float]]:
    """Per domain: the four counts and GCA computed from them (`dst_metrics.analysis.breakdown`)."""
    out = {}
    for domain, report in domain_reports(dialogues, Options(mode=mode, alpha=alpha)).items():
        out[domain] = {kind: report.scores[kind] for kind in (*COUNT_TYPES, "gca")}
    return out


def mistakes_per_turn(dialogue: Dialogue, mode: str = "official") -> list[int]:
    """m_t: the number of missed, wrong and overshot counts in each turn (by position)."""
    mistakes = [0] * len(dialogue)
    for row in explain_dialogue(dialogue, mode):
        mistakes[row.position] += sum(1 for kind in row.count_types if kind != CORRECT)
    return mistakes


def tail_orientation(mistakes: list[int]) -> float:
    """TO = (E_t - (n-1)/2) / n, E_t the mean turn index of the mistakes (GCA paper, eq. 7-8).

    Positive when mistakes lean to the end of the dialogue; NaN when there is no mistake."""
    n, m = len(mistakes), sum(mistakes)
    if not m:
        return math.nan
    mean_index = sum(t * m_t for t, m_t in enumerate(mistakes)) / m
    return (mean_index - (n - 1) / 2) / n


def non_uniformity(mistakes: list[int]) -> float:
    """NU = Σ_t |m_t - E_m| / E_m with E_m = m / n (GCA paper, eq. 9-10); NaN with no mistake."""
    n, m = len(mistakes), sum(mistakes)
    if not m:
        return math.nan
    expected = m / n
    return sum(abs(m_t - expected) for m_t in mistakes) / expected


def pearson(xs: list[float], ys: list[float]) -> float:
    """Pearson correlation of two equally long lists (pairs with a NaN are left out)."""
    pairs = [(x, y) for x, y in zip(xs, ys) if not (math.isnan(x) or math.isnan(y))]
    if len(pairs) < 2:
        return math.nan
    mx = sum(x for x, _ in pairs) / len(pairs)
    my = sum(y for _, y in pairs) / len(pairs)
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    sxx = sum((x - mx) ** 2 for x, _ in pairs)
    syy = sum((y - my) ** 2 for _, y in pairs)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else math.nan


__all__ = [
    "NONE_VALUE",
    "SlotRow",
    "display_value",
    "domain_gca",
    "explain_dialogue",
    "mistakes_per_turn",
    "non_uniformity",
    "pearson",
    "tail_orientation",
]
