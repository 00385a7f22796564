"""Predicted values that carry confidences, split into plain predictions and scored hypotheses.

A predicted value may be ``{"value": "north", "confidence": 0.83}`` (``"score"`` also works) or a list
of such objects, in any state shape the core reads. `split_scored_state` gives the plain state (each
slot's top hypothesis) and the scored hypotheses, which `ScoredPredictions` keeps per (dialogue, turn,
slot). The conventions are DSTC2's: ``1 - sum`` is the None hypothesis, None loses every tie, scores
outside [0, 1] or summing above 1 are an `InputError` naming the field (``docs/calibration.md``). The
core calls this only for a predicted state it could not read as plain values.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

from .errors import InputError, describe, json_text
from .states import INACTIVE_VALUES, SCORE_KEYS, VALUE_KEY, _canonical_text, is_scored_mapping

SUM_TOLERANCE = 1e-5
"""Scores of one slot may sum to at most ``1 + SUM_TOLERANCE`` (rounding); above it is an error.
Sums within it are renormalised as DSTC2's ``normalise_dist`` does."""

Hypotheses = tuple[tuple[str, float], ...]
"""A slot's active hypotheses ``((value, score), ...)`` in the order given; None holds ``1 - sum``."""


class ScoredPredictions(Mapping):
    """{(dialogue_id, turn_id, slot): Hypotheses} of every predicted slot given with confidences.

    Slots given as plain values are not listed: a plain value is that value with score 1, and a slot
    the prediction leaves out is None with score 1. `turn` gives one turn's slots.
    """

    def __init__(self) -> None:
        self.turns: dict[tuple[str, int], dict[str, Hypotheses]] = {}

    def add_turn(self, dialogue_id: str, turn_id: int, slots: Mapping[str, Hypotheses]) -> None:
        """Record the scored slots of one turn (replacing what that turn had)."""
        self.turns[(dialogue_id, turn_id)] = dict(slots)

    def update(self, other: ScoredPredictions) -> None:
        """Add the turns of `other` (e.g. of another batch)."""
        self.turns.update(other.turns)

    def turn(self, dialogue_id: str, turn_id: int) -> Mapping[str, Hypotheses]:
        """{slot: Hypotheses} of one turn ({} when no slot of it carried confidences)."""
        return self.turns.get((dialogue_id, turn_id), _NO_SLOTS)

    def __getitem__(self, key: tuple[str, int, str]) -> Hypotheses:
        dialogue_id, turn_id, slot = key
        return self.turns[(dialogue_id, turn_id)][slot]

    def __iter__(self) -> Iterator[tuple[str, int, str]]:
        for (dialogue_id, turn_id), slots in self.turns.items():
            for slot in slots:
                yield dialogue_id, turn_id, slot

    def __len__(self) -> int:
        return sum(map(len, self.turns.values()))

    def __repr__(self) -> str:
        return f"ScoredPredictions({len(self)} slots in {len(self.turns)} turns)"


_NO_SLOTS: Mapping[str, Hypotheses] = {}


def is_scored_value(raw: object) -> bool:
    """Whether a raw predicted value carries confidences: an object with ``value`` (or a score key),
    or a non-empty list holding such an object."""
    if isinstance(raw, Mapping):
        return VALUE_KEY in raw or any(key in raw for key in SCORE_KEYS)
    if isinstance(raw, (list, tuple)):
        return any(isinstance(item, Mapping) for item in raw)
    return False


def top_value(hypotheses: Hypotheses) -> str | None:
    """The top hypothesis: the highest score (the first given wins a tie), or None when the residual
    ``1 - sum`` is at least as high (None loses ties, as in DSTC2's ``normalise_dist``)."""
    best, best_score, total = None, -1.0, 0.0
    for value, score in hypotheses:
        total += score
        if score > best_score:
            best, best_score = value, score
    return best if best is not None and best_score >= 1.0 - total else None


def _scored_pair(raw: object, where: str) -> tuple[str, float]:
    """(value, score) of one ``{"value": ..., "confidence" | "score": ...}`` object."""
    if not isinstance(raw, Mapping):
        raise InputError(
            f'a list of scored values holds objects {{"value", "score"}}, got {describe(raw)}', field=where
        )
    keys = [key for key in SCORE_KEYS if key in raw]
    if VALUE_KEY not in raw or len(keys) != 1:
        problem = "both confidence and score" if len(keys) > 1 else f"a {VALUE_KEY} and a confidence (or score)"
        raise InputError(f"a scored value needs {problem}: got {json_text(dict(raw))}", field=where)
    extra = sorted(set(raw) - {VALUE_KEY, keys[0]}, key=str)
    if extra:
        raise InputError(f"a scored value has only value and {keys[0]}, got also {json_text(extra)}", field=where)
    value, score = raw[VALUE_KEY], raw[keys[0]]
    if type(value) not in (str, int, float):
        problem = f"a scored value must be a string or a number, got {describe(value)}"
        raise InputError(problem, field=f"{where}.{VALUE_KEY}")
    if type(score) not in (int, float):
        raise InputError(f"a confidence must be a number in [0, 1], got {describe(score)}", field=f"{where}.{keys[0]}")
    if not 0.0 <= score <= 1.0:  # NaN fails both comparisons
        raise InputError(f"a confidence must be in [0, 1], got {json_text(score)}", field=f"{where}.{keys[0]}")
    return str(value), float(score)


def scored_hypotheses(raw: object, where: str, matching: str = "exact") -> Hypotheses:
    """The active hypotheses of one scored value (`is_scored_value`), checked; InputError at `where`.

    Values are folded as `matching` (``exact`` or ``normalized``) folds them; values equal after
    folding are merged by adding their scores (under ``exact`` a value given twice is an error).
    Inactive values (``none``, ``""``) are dropped: their mass is the None hypothesis's.
    """
    if isinstance(raw, Mapping):
        pairs = [_scored_pair(raw, where)]
    else:
        pairs = [_scored_pair(item, f"{where}[{index}]") for index, item in enumerate(raw)]
    total = math.fsum(score for _, score in pairs)
    if total > 1.0 + SUM_TOLERANCE:
        raise InputError(f"the scores of the slot's values sum to {total:.6g}, more than 1", field=where)
    merged: dict[str, float] = {}
    for index, (value, score) in enumerate(pairs):
        text = _canonical_text(value, matching)
        if text in merged and matching == "exact":
            raise InputError(f"the value {json_text(value)} is given twice", field=f"{where}[{index}]")
        merged[text] = merged.get(text, 0.0) + score
    return tuple((value, score) for value, score in merged.items() if value not in INACTIVE_VALUES)


def _split_mapping(raw: Mapping, field: str, matching: str, scored: dict) -> dict:
    plain: dict = {}
    for key, inner in raw.items():
        where = f"{field}.{key}"
        if isinstance(inner, Mapping) and not is_scored_mapping(inner):  # a domain, as the core reads it
            plain[key] = domain = {}
            for slot, value in inner.items():
                _keep(domain, slot, value, f"{key}-{slot}", f"{where}.{slot}", matching, scored)
        elif type(key) is not str and is_scored_value(inner):
            raise InputError(f"a slot name must be a string, got {describe(key)}", field=where)
        else:
            _keep(plain, key, inner, key, where, matching, scored)
    return plain


def _keep(plain: dict, key: object, value: object, slot: str, where: str, matching: str, scored: dict) -> None:
    """Put `value` (or the top of its scored hypotheses) in `plain` under `key`."""
    if not is_scored_value(value):
        plain[key] = value
        return
    hypotheses = scored[slot] = scored_hypotheses(value, where, matching)
    top = top_value(hypotheses)
    if top is not None:
        plain[key] = top


def _split_triples(raw: list | tuple, field: str, matching: str, scored: dict) -> list:
    plain: list = []
    for index, item in enumerate(raw):
        if isinstance(item, (list, tuple)) and len(item) == 3 and is_scored_value(item[2]):
            where = f"{field}[{index}]"
            if type(item[0]) is not str or type(item[1]) is not str:
                raise InputError(f"a domain and a slot name must be strings, got {describe(list(item))}", field=where)
            kept: dict = {}
            _keep(kept, 0, item[2], f"{item[0]}-{item[1]}", where, matching, scored)
            if kept:
                plain.append([item[0], item[1], kept[0]])
        else:
            plain.append(item)
    return plain


def split_scored_state(
    raw: object, field: str = "pr", matching: str = "exact"
) -> tuple[object, dict[str, Hypotheses]] | None:
    """(the plain state: each scored value replaced by its top value, {slot: Hypotheses}) of a raw
    predicted state, or None when no value in it carries confidences.

    `raw` is any shape the core reads: ``{domain: {slot: value}}``, ``{"domain-slot": value}`` or
    ``[[domain, slot, value], ...]``. Bad confidences raise InputError naming the field under `field`.
    """
    scored: dict[str, Hypotheses] = {}
    if isinstance(raw, Mapping):
        plain: object = _split_mapping(raw, field, matching, scored)
    elif isinstance(raw, (list, tuple)):
        plain = _split_triples(raw, field, matching, scored)
    else:
        return None
    return (plain, scored) if scored else None
