"""Profile ``dstc10``: the figures of DSTC10 track 2 task 1's official scorer (github
alexa/alexa-with-dstc10-track2-dataset, ``task1/scripts/scores.py``), from states read by
`readers.dstc10` (or any other format).

Its rules (``docs/compat.md``): 19 MultiWOZ slots only; a slot's values are compared as the set of
the values given, each lower-cased and with the number words one to nine as digits; both sides
lacking a slot is a match (a "none" match), one side lacking it a mismatch, and when both hold values
the slot scores the F1 of its value lists (pairs of equal values over the numbers of values, which
exceeds 1 where two values of one side normalize alike) and matches when that F1 is exactly 1. An
instance counts for JGA when its 19 slots match. The F1s are summed as floats in instance order, as
the scorer does, so the profile scores in one process.
"""

from __future__ import annotations

from ..corpus import Corpus
from ..options import Options
from ..readers.dstc10 import slot_name
from ..states import Alternatives, State, decode_values
from .base import Profile

NAME = "dstc10"

SLOTS = tuple(
    slot_name(domain, part, slot)
    for domain, part, slot in (
        ("restaurant", "book", "people"),
        ("restaurant", "book", "day"),
        ("restaurant", "book", "time"),
        ("restaurant", "semi", "food"),
        ("restaurant", "semi", "pricerange"),
        ("restaurant", "semi", "name"),
        ("restaurant", "semi", "area"),
        ("hotel", "book", "people"),
        ("hotel", "book", "rooms"),
        ("hotel", "book", "day"),
        ("hotel", "book", "stay"),
        ("hotel", "semi", "name"),
        ("hotel", "semi", "area"),
        ("hotel", "semi", "pricerange"),
        ("hotel", "semi", "stars"),
        ("hotel", "semi", "type"),
        ("attraction", "semi", "type"),
        ("attraction", "semi", "name"),
        ("attraction", "semi", "area"),
    )
)
"""The scorer's slots, in its order, under our names (``hotel-book people``, ``hotel-area``)."""

NUMBER_WORDS = dict(zip("one two three four five six seven eight nine".split(), "123456789"))
"""The number words the scorer writes as digits (its ``normalize_dict``)."""


def normalize_value(value: str) -> str:
    """A value as the scorer compares it: lower-cased, a number word from one to nine as its digit."""
    lowered = value.lower()
    return NUMBER_WORDS.get(lowered, lowered)


def _values(state: State, slot: str) -> list[str] | None:
    """The distinct values of `slot` in a state, None where the state lacks it (a gold slot's alternatives
    from another format are its values)."""
    value = state.get(slot)
    if value is None:
        return None
    if value.__class__ is Alternatives:
        return list(value.order)
    return decode_values(value)


def value_list_f1(gold: list[str], pred: list[str]) -> float:
    """The scorer's F1 of two slots' value lists: equal (normalized) pairs over the lists' lengths."""
    hits = sum(1 for g in gold for p in pred if normalize_value(g) == normalize_value(p))
    if not hits:
        return 0.0
    precision, recall = hits / len(pred), hits / len(gold)
    return 2 * precision * recall / (precision + recall)


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall > 0.0 else 0.0


def dstc10_scores(corpus: Corpus) -> dict[str, object]:
    """The scorer's output, key for key: ``joint_goal_accuracy`` and ``slot`` (``accuracy``,
    ``value_prediction`` and ``none_prediction``, each ``prec``, ``rec``, ``f1``)."""
    instances = joint = slots_matched = 0
    gold_values = gold_none = pred_values = pred_none = none_matched = 0
    value_score = 0.0
    for dialogue in corpus.dialogues:
        for gold, pred in zip(dialogue.gold, dialogue.pred):
            instances += 1
            all_matched = True
            for slot in SLOTS:
                gold_list, pred_list = _values(gold, slot), _values(pred, slot)
                gold_none += gold_list is None
                gold_values += gold_list is not None
                pred_none += pred_list is None
                pred_values += pred_list is not None
                if gold_list is None or pred_list is None:
                    matched = gold_list is None and pred_list is None
                    none_matched += matched
                else:
                    f1 = value_list_f1(gold_list, pred_list)
                    value_score += f1
                    matched = f1 == 1.0
                slots_matched += matched
                all_matched = all_matched and matched
            joint += all_matched
    value_p = value_score / pred_values if pred_values else 0.0
    value_r = value_score / gold_values if gold_values else 0.0
    none_p = none_matched / pred_none if pred_none else 0.0
    none_r = none_matched / gold_none if gold_none else 0.0
    return {
        "joint_goal_accuracy": joint / instances,
        "slot": {
            "accuracy": slots_matched / (instances * len(SLOTS)),
            "value_prediction": {"prec": value_p, "rec": value_r, "f1": _f1(value_p, value_r)},
            "none_prediction": {"prec": none_p, "rec": none_r, "f1": _f1(none_p, none_r)},
        },
    }


def profile_figures(corpus: Corpus, options: Options) -> dict[str, object]:
    """`dstc10_scores` under our keys: ``jga``, ``sa``, value-prediction ``slot_precision`` / ``slot_recall``
    / ``slot_f1`` and none-prediction ``none_precision`` / ``none_recall`` / ``none_f1``; its conventions
    ignore `options`."""
    scores = dstc10_scores(corpus)
    slot = scores["slot"]
    value, none = slot["value_prediction"], slot["none_prediction"]
    return {
        "jga": scores["joint_goal_accuracy"],
        "sa": slot["accuracy"],
        "slot_precision": value["prec"],
        "slot_recall": value["rec"],
        "slot_f1": value["f1"],
        "none_precision": none["prec"],
        "none_recall": none["rec"],
        "none_f1": none["f1"],
    }


def as_scores_json(figures: dict[str, object]) -> dict[str, object]:
    """The scorer's output (an entry's ``scores.json``) from `profile_figures`' figures."""
    return {
        "joint_goal_accuracy": figures["jga"],
        "slot": {
            "accuracy": figures["sa"],
            "value_prediction": {
                "prec": figures["slot_precision"],
                "rec": figures["slot_recall"],
                "f1": figures["slot_f1"],
            },
            "none_prediction": {
                "prec": figures["none_precision"],
                "rec": figures["none_recall"],
                "f1": figures["none_f1"],
            },
        },
    }


_REPEATED = 'a slot whose values repeat once lower-cased (["Two", "2"]) scores an F1 other than 1, so it does not match'
SELF_CHECK = dict.fromkeys(("jga", "sa", "slot_precision", "slot_recall", "slot_f1"), _REPEATED)
"""Why a figure is below 1 on gold scored against itself (``dst-metrics check``)."""

PROFILE = Profile(
    NAME,
    "DSTC10 track 2's scores.py: 19 slots, value lists lower-cased, number words as digits, list F1",
    profile_figures,
    self_check=SELF_CHECK,
)
