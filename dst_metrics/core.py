"""The shared diff/count core: one pass over each dialogue, one diff per turn.

For every turn it classifies the changed slots into GCA count types and measures the turn-level
agreement of gold and prediction; it adds both into a `Tally`, a small set of sums that merge by
addition. Every metric in `metrics.py` is a short function of a Tally.

Two modes (see SPEC.md and README.md, "Official and corrected"):

- ``official`` reproduces the official GCA code, quirks included;
- ``corrected`` compares each changed slot's gold and predicted value once, treats missing,
  empty and ``none`` alike as inactive, and counts FGA distances in turn positions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Literal

from .corpus import Dialogue
from .states import INACTIVE_VALUES, NONE_VALUE, State, Value, values_match

Mode = Literal["official", "corrected"]
MODES: tuple[str, ...] = ("official", "corrected")

CORRECT = "correct"
WRONG = "wrong"
MISSED = "missed"
OVERSHOT = "overshot"
COUNT_TYPES: tuple[str, ...] = (CORRECT, WRONG, MISSED, OVERSHOT)

SlotCount = tuple[str, str]  # (slot, count type)
_ABSENT = object()


def check_mode(mode: str) -> None:
    """Raise ValueError unless `mode` is 'official' or 'corrected'."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")


# --------------------------------------------------------------------------------------------
# GCA count types of one turn


def official_count_types(
    gold: State, pred: State, prev_gold: State, prev_pred: State, gold_changed: bool = True
) -> list[SlotCount]:
    """Algorithm 1 as the official code runs it (SPEC.md, steps 3 and 4), quirks included.

    `gold`/`pred` are the turn's maps with every slot seen active earlier on that side and now
    absent filled in as ``"none"``; `prev_*` are the previous turn's maps. A slot is changed when
    its (slot, value) pair is not in the previous map.
    """
    counted: list[SlotCount] = []
    correct_slots = set()
    wrong_slots = set()
    if gold_changed:
        for slot, gold_value in gold.items():
            if prev_gold.get(slot, _ABSENT) == gold_value:
                continue
            if slot not in pred:
                kind = MISSED if gold_value != NONE_VALUE else CORRECT
            elif values_match(gold_value, pred[slot]):
                kind = CORRECT
                correct_slots.add(slot)
            elif gold_value == NONE_VALUE:
                kind = OVERSHOT
            else:
                kind = WRONG
                wrong_slots.add(slot)
            counted.append((slot, kind))
    for slot, pred_value in pred.items():
        if prev_pred.get(slot, _ABSENT) == pred_value:
            continue
        if slot not in gold:
            kind = OVERSHOT if pred_value != NONE_VALUE else CORRECT
        else:
            match = values_match(gold[slot], pred_value)
            if match and slot not in correct_slots:
                kind = CORRECT
            elif pred_value == NONE_VALUE:  # quirk 1: a shared removal is correct, then missed
                kind = MISSED
            elif not match and slot not in wrong_slots:
                kind = WRONG
            else:
                continue
        counted.append((slot, kind))
    return counted


def corrected_count_types(
    gold: State, pred: State, prev_gold: State, prev_pred: State, gold_changed: bool = True
) -> list[SlotCount]:
    """Each slot whose active value changed on either side, compared once (SPEC.md, corrected).

    `gold`/`pred` hold active slots only. g == p -> correct; g inactive -> overshot;
    p inactive -> missed; otherwise wrong.
    """
    changed = []
    if gold_changed:
        changed += [slot for slot, value in gold.items() if prev_gold.get(slot) != value]
        changed += [slot for slot in prev_gold if slot not in gold]
    changed += [slot for slot, value in pred.items() if prev_pred.get(slot) != value]
    changed += [slot for slot in prev_pred if slot not in pred]
    counted: list[SlotCount] = []
    for slot in dict.fromkeys(changed):
        gold_value = gold.get(slot)
        pred_value = pred.get(slot)
        if values_match(gold_value, pred_value):
            kind = CORRECT
        elif gold_value is None:
            kind = OVERSHOT
        elif pred_value is None:
            kind = MISSED
        else:
            kind = WRONG
        counted.append((slot, kind))
    return counted


# --------------------------------------------------------------------------------------------
# Turn-level agreement of one turn


def active_view(state: State, mode: str) -> State:
    """The turn-level state: official drops ``"none"`` only; corrected also drops ``""``."""
    if mode == "official":
        if NONE_VALUE not in state.values():
            return state
        return {slot: value for slot, value in state.items() if value != NONE_VALUE}
    if NONE_VALUE not in state.values() and "" not in state.values():
        return state
    return {slot: value for slot, value in state.items() if value not in INACTIVE_VALUES}


# Turn figures, a tuple for speed: (states equal, SA misses + wrongs, |G ∩ P|, |G|,
# RSA numerator, RSA T*, false positives, false negatives).
TurnFigures = tuple[bool, int, int, int, int, int, int, int]


def turn_figures(gold: State, pred: State, mode: str) -> TurnFigures:
    """Compare a turn's active gold and predicted states once, for JGA, SA, AGA, RSA and F1.

    With tp = |G ∩ P| (pairs that match) and common = |slots(G) ∩ slots(P)|:
    SA misses + wrongs = (|G| - tp) + (|P| - common); RSA T* = |G| + |P| - common and its
    numerator T* - missed - wrong = tp. Official mode takes the slot of a 'domain-slot-value'
    string at its last hyphen for SA and RSA (`official_string_figures`).
    """
    tp = common = 0
    for slot, pred_value in pred.items():
        gold_value = gold.get(slot)
        if gold_value is not None:
            common += 1
            if gold_value == pred_value or (gold_value.__class__ is frozenset and pred_value in gold_value):
                tp += 1
    n_gold = len(gold)
    n_pred = len(pred)
    if mode == "official" and (_has_hyphen_value(gold) or _has_hyphen_value(pred)):
        slot_errors, relative_hits, relative_total = official_string_figures(gold, pred)
    else:
        slot_errors = n_gold - tp + n_pred - common
        relative_hits, relative_total = tp, n_gold + n_pred - common
    equal = tp == n_gold == n_pred
    return (equal, slot_errors, tp, n_gold, relative_hits, relative_total, n_pred - tp, n_gold - tp)


def _has_hyphen_value(state: State) -> bool:
    for value in state.values():
        if value.__class__ is str and "-" in value:
            return True
    return False


def official_string_figures(gold: State, pred: State) -> tuple[int, int, int]:
    """SA and RSA as the official code computes them on 'domain-slot-value' strings.

    The slot of a string is what precedes its last hyphen, so a value with a hyphen
    ('guest-house') lands on a wrong slot. Returns (SA misses + wrongs, RSA numerator, T*).
    A gold value with several acceptable values (not part of the official code) is written
    with the predicted value where that is acceptable.
    """

    def gold_item(slot: str, value: Value) -> str:
        if value.__class__ is frozenset:
            chosen = pred.get(slot)
            value = chosen if chosen in value else min(value)
        return f"{slot}-{value}"

    gold_items = {gold_item(slot, value) for slot, value in gold.items()}
    pred_items = {f"{slot}-{value}" for slot, value in pred.items()}
    missed = gold_items - pred_items
    extra = pred_items - gold_items
    missed_slots = {item.rsplit("-", 1)[0] for item in missed}
    wrong = sum(1 for item in extra if item.rsplit("-", 1)[0] not in missed_slots)
    gold_slots = {item.rsplit("-", 1)[0] for item in gold_items}
    pred_slots = {item.rsplit("-", 1)[0] for item in pred_items}
    total = len(gold_slots | pred_slots)
    return len(missed) + wrong, total - len(gold_slots - pred_slots) - len(extra), total


def changes_agree(state: State, prev_state: State, other: State) -> bool:
    """FGA's check: every (slot, value) new in `state` since `prev_state` is matched in `other`.

    Called both ways: the gold change set must be inside the prediction and vice versa.
    """
    for slot, value in state.items():
        if prev_state.get(slot) != value:
            other_value = other.get(slot)
            if not (values_match(value, other_value) or values_match(other_value, value)):
                return False
    return True


# --------------------------------------------------------------------------------------------
# Sums


def _sum_dicts(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    out = dict(a)
    for key, value in b.items():
        out[key] = out.get(key, 0) + value
    return out


@dataclass
class Tally:
    """The sums every metric is computed from; tallies merge by addition (`+`).

    Ratios are kept as integer sums grouped by denominator, and FGA as a histogram of
    distances, so merged tallies give the same figures in any order, batching or process split.
    """

    turns: int = 0
    correct: int = 0
    wrong: int = 0
    missed: int = 0
    overshot: int = 0
    joint_hits: int = 0  # turns whose gold and predicted states are equal
    slot_errors: int = 0  # Σ_t SA's (missed_t + wrong_t)
    goal_turns: int = 0  # turns with at least one active gold slot (AGA)
    goal_hits: dict[int, int] = field(default_factory=dict)  # |G_t| -> Σ |G_t ∩ P_t|
    relative_empty_turns: int = 0  # turns with T* = 0 (RSA)
    relative_hits: dict[int, int] = field(default_factory=dict)  # T*_t -> Σ RSA numerators
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    fga_distances: dict[int, int] = field(default_factory=dict)  # d -> type-2 turns at d

    def __add__(self, other: Tally) -> Tally:
        merged = {}
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            merged[f.name] = _sum_dicts(mine, theirs) if isinstance(mine, dict) else mine + theirs
        return Tally(**merged)

    def count(self, kind: str) -> int:
        """The GCA count of one type ('correct', 'wrong', 'missed' or 'overshot')."""
        return getattr(self, kind)

    def to_dict(self) -> dict:
        """A JSON-ready copy (dict keys become strings)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = {str(k): v for k, v in sorted(value.items())} if isinstance(value, dict) else value
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Tally:
        """The inverse of `to_dict`."""
        kwargs = {}
        for f in fields(cls):
            value = data[f.name]
            kwargs[f.name] = {int(k): int(v) for k, v in value.items()} if isinstance(value, dict) else int(value)
        return cls(**kwargs)


# --------------------------------------------------------------------------------------------
# One pass over a dialogue

TurnObserver = Callable[[int, int, State, State, list[SlotCount]], None]


def tally_dialogue(
    dialogue: Dialogue,
    mode: str = "official",
    *,
    into: Tally | None = None,
    observe: TurnObserver | None = None,
) -> Tally:
    """Score one dialogue into a Tally (a new one, or `into`): one diff per turn, read by every
    metric.

    `observe`, if given, is called for every turn with (position, turn id, gold map, predicted
    map, counted slots), where the maps are what GCA compared (see `official_count_types`).
    """
    official = mode == "official"
    count_types = official_count_types if official else corrected_count_types
    tally = Tally() if into is None else into
    tally.turns += len(dialogue.turn_ids)
    counts = {CORRECT: 0, WRONG: 0, MISSED: 0, OVERSHOT: 0}
    distances = tally.fga_distances
    goal_hits = tally.goal_hits
    relative_hits = tally.relative_hits

    prev_g = prev_p = None  # normalized state objects of the previous turn
    gold_active = pred_active = prev_gold_active = prev_pred_active = {}
    gold_map = pred_map = prev_gold_map = prev_pred_map = {}
    seen_gold: set = set()
    seen_pred: set = set()
    figures: TurnFigures | None = None
    run = 0  # turns in a row with these figures
    prev_equal = False
    last_error = -1  # turn id (official) or position (corrected) of the last FGA type-1 error

    for position, (turn_id, g, p) in enumerate(zip(dialogue.turn_ids, dialogue.gold, dialogue.pred)):
        if g is prev_g and p is prev_p:
            # Nothing changed on either side: no GCA change, same turn figures, and an unequal
            # turn is an FGA type-2 error.
            run += 1
            if not prev_equal:
                distance = (turn_id if official else position) - last_error
                distances[distance] = distances.get(distance, 0) + 1
            if observe is not None:
                observe(position, turn_id, gold_map, pred_map, [])
            continue

        if run:
            _add_figures(tally, figures, run, goal_hits, relative_hits)
        gold_changed = g is not prev_g
        prev_gold_active, prev_pred_active = gold_active, pred_active
        prev_gold_map, prev_pred_map = gold_map, pred_map
        if gold_changed:
            gold_active = active_view(g, mode)
            if official:
                gold_map = _filled_map(g, seen_gold)
                seen_gold.update(gold_active)
            else:
                gold_map = gold_active
        if p is not prev_p:
            pred_active = active_view(p, mode)
            if official:
                pred_map = _filled_map(p, seen_pred)
                seen_pred.update(pred_active)
            else:
                pred_map = pred_active

        counted = count_types(gold_map, pred_map, prev_gold_map, prev_pred_map, gold_changed)
        for _, kind in counted:
            counts[kind] += 1
        if observe is not None:
            observe(position, turn_id, gold_map, pred_map, counted)

        figures = turn_figures(gold_active, pred_active, mode)
        run = 1
        equal = figures[0]
        if not equal:
            if (
                position == 0
                or prev_equal
                or not changes_agree(gold_active, prev_gold_active, pred_active)
                or not changes_agree(pred_active, prev_pred_active, gold_active)
            ):
                last_error = turn_id if official else position
            else:
                distance = (turn_id if official else position) - last_error
                distances[distance] = distances.get(distance, 0) + 1
        prev_equal = equal
        prev_g, prev_p = g, p

    if run:
        _add_figures(tally, figures, run, goal_hits, relative_hits)
    tally.correct += counts[CORRECT]
    tally.wrong += counts[WRONG]
    tally.missed += counts[MISSED]
    tally.overshot += counts[OVERSHOT]
    return tally


def tally_corpus(dialogues, mode: str = "official") -> Tally:
    """One Tally for all `dialogues` (the sum of their tallies, computed in one accumulator)."""
    check_mode(mode)
    total = Tally()
    for dialogue in dialogues:
        tally_dialogue(dialogue, mode, into=total)
    return total


def _filled_map(state: State, seen: set) -> State:
    """Official GCA map: slots seen active earlier on this side but absent now become 'none'."""
    if seen.issubset(state.keys()):
        return state
    filled = dict.fromkeys(seen, NONE_VALUE)
    filled.update(state)
    return filled


def _add_figures(tally: Tally, figures: TurnFigures, run: int, goal_hits: dict, relative_hits: dict) -> None:
    equal, slot_errors, tp, n_gold, rel_hits, rel_total, fp, fn = figures
    if equal:
        tally.joint_hits += run
    tally.slot_errors += slot_errors * run
    if n_gold:
        tally.goal_turns += run
        goal_hits[n_gold] = goal_hits.get(n_gold, 0) + tp * run
    if rel_total:
        relative_hits[rel_total] = relative_hits.get(rel_total, 0) + rel_hits * run
    else:
        tally.relative_empty_turns += run
    tally.true_positives += tp * run
    tally.false_positives += fp * run
    tally.false_negatives += fn * run
