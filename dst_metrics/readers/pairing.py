"""Gold and predictions from two inputs: one `Side` each, matched by dialogue and turn.

A dialogue or turn on one side only is an error naming it. Ids match exactly, or loosely
(case-insensitive, without ``.json``) when either format says so; turns by id or by position.
A side whose ids are ``"position"`` (instances in order, DSTC10's) takes the other side's dialogues
and turns, in order. The corpus takes the gold side's ids.
"""

from __future__ import annotations

import msgspec

from ..corpus import Corpus, CorpusBuilder
from ..errors import InputError, json_text
from ..reading import Reading
from .base import Side


def _loose(dialogue_id: str) -> str:
    return dialogue_id.lower().removesuffix(".json")


def _listed(ids: list) -> str:
    shown = ", ".join(json_text(i) for i in ids[:5])
    return shown + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def _matched_dialogues(gold: Side, pred: Side, only_predicted: bool = False) -> list[tuple[str, str]]:
    """(gold id, predicted id) of every dialogue; one-sided ones raise InputError (except with `only_predicted`)."""
    loose = "loose" in (gold.ids, pred.ids)
    key = _loose if loose else str
    gold_keys = {key(d): d for d in gold.states}
    pred_keys = {key(d): d for d in pred.states}
    checks = [(pred_keys, gold_keys, "the gold", pred.source)]
    if not only_predicted:
        checks.insert(0, (gold_keys, pred_keys, "the predictions", gold.source))
    for keys, other, name, where in checks:
        missing = [keys[k] for k in keys if k not in other]
        if missing:
            raise no_partner(missing, name, where)
    return [(gold_keys[k], pred_keys[k]) for k in gold_keys if k in pred_keys]


def no_partner(missing: list[str], name: str, where: str | None) -> InputError:
    """The error of dialogues with no partner in `name` (``the predictions`` or ``the gold``), found in `where`."""
    hint = " (--only-predicted scores only the gold dialogues predicted)" if name == "the predictions" else ""
    return InputError(f"dialogues with no partner in {name}: {_listed(missing)}{hint}", source=where)


SUBSET_PART = "subset:predicted"
"""The signature part's name when only the gold dialogues predicted are scored: ``subset:predicted(k/n)``."""


def subset_note(predicted: int, gold: int) -> str:
    """The signature part of `predicted` of the `gold` dialogues scored (``only_predicted``)."""
    return f"{SUBSET_PART}({predicted}/{gold})"


def _matched_turns(
    gold_id: str, gold: dict, pred: dict, by_position: bool, sources: tuple[str | None, str | None] = (None, None)
) -> tuple[list[int], list, list]:
    """(turn ids, gold states, predicted states) of one dialogue; a turn on one side only raises InputError
    naming the file it is in (`sources`: the gold's and the predictions')."""
    gold_ids, pred_ids = sorted(gold), sorted(pred)
    if by_position:
        if len(gold_ids) != len(pred_ids):
            message = f"{len(gold_ids)} gold turns but {len(pred_ids)} predicted turns"
            raise InputError(message, dialogue=gold_id, source=sources[1])
        return gold_ids, [gold[t] for t in gold_ids], [pred[t] for t in pred_ids]
    sides = ((gold_ids, pred, "the predictions", sources[0]), (pred_ids, gold, "the gold", sources[1]))
    for ids, other, name, where in sides:
        for turn in ids:
            if turn not in other:
                raise InputError(f"this turn has no partner in {name}", dialogue=gold_id, turn=turn, source=where)
    return gold_ids, [gold[t] for t in gold_ids], [pred[t] for t in gold_ids]


def _instances_in_order(side: Side, other: Side, names: tuple[str, str]) -> Side:
    """`side`, whose states are instances in order, regrouped into `other`'s dialogues and turns; a different
    number of instances raises InputError (`names`: how the two sides are called in it). Its convention (how
    its reader grouped the instances) no longer holds, and is dropped."""
    states = [state for turns in side.states.values() for state in turns.values()]
    places = [(dialogue_id, turn) for dialogue_id, turns in other.states.items() for turn in turns]
    if len(states) != len(places):
        message = f"{len(states)} {names[0]} instances but {len(places)} {names[1]} instances"
        raise InputError(message, source=side.source)
    regrouped: dict[str, dict[int, object]] = {dialogue_id: {} for dialogue_id in other.states}
    for (dialogue_id, turn), state in zip(places, states):
        regrouped[dialogue_id][turn] = state
    return msgspec.structs.replace(side, states=regrouped, ids=other.ids, convention=None)


def pair(
    gold: Side,
    pred: Side,
    reading: Reading | str = "exact",
) -> Corpus:
    """The Corpus of `gold` and `pred` matched by dialogue and turn, read as `reading` says."""
    reading = Reading(value_matching=reading) if isinstance(reading, str) else reading
    only_predicted = reading.only_predicted
    if pred.ids == "position":
        pred = _instances_in_order(pred, gold, ("predicted", "gold"))
    elif gold.ids == "position":
        gold = _instances_in_order(gold, pred, ("gold", "predicted"))
    builder = CorpusBuilder(reading, flat=(gold.flat, pred.flat), unset=(gold.unset, pred.unset))
    by_position = "position" in (gold.turns, pred.turns)
    matched = _matched_dialogues(gold, pred, only_predicted)
    sources = (gold.source, pred.source)
    for gold_id, pred_id in matched:
        turns = _matched_turns(gold_id, gold.states[gold_id], pred.states[pred_id], by_position, sources)
        builder.add(gold_id, *turns)
    builder.notes.extend(side.convention for side in (gold, pred) if side.convention)
    if only_predicted:
        builder.notes.append(subset_note(len(matched), len(gold.states)))
    return builder.corpus()
