"""Counting: one pass over each dialogue, one diff per turn, added into a `Tally`.

Each turn's changed slots are classified into GCA count types and its gold and predicted states
compared. ``official`` mode reproduces the official GCA code, quirks included; ``corrected``
compares each changed slot once and treats missing, empty and ``none`` as inactive (docs/metrics.md,
"Official and corrected").
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from ..corpus import Dialogue
from ..options import parse_mode
from ..states import INACTIVE_VALUES, NONE_VALUE, Alternatives, State, Value, values_match

CORRECT = "correct"
WRONG = "wrong"
MISSED = "missed"
OVERSHOT = "overshot"
COUNT_TYPES: tuple[str, ...] = (CORRECT, WRONG, MISSED, OVERSHOT)

SlotCount = tuple[str, str]  # (slot, count type)
_ABSENT = object()


def check_mode(mode: str) -> None:
    """Raise OptionError (a ValueError) unless `mode` is 'official' or 'corrected'."""
    parse_mode(mode)


# The diff of one side of one turn

Changes = Collection[tuple[str, "Value | None"]]  # (slot, new value); None: the slot became inactive


def side_changes(new: State, previous: State, removals: bool) -> Changes:
    """The (slot, value) pairs of `new` not in `previous`; with `removals`, also (slot, None) for slots dropped."""
    changes = [(slot, value) for slot, value in new.items() if previous.get(slot, _ABSENT) != value]
    if removals and len(previous) > len(new) - len(changes):
        changes += [(slot, None) for slot in previous if slot not in new]
    return changes


# GCA count types of one turn


def official_count_types(gold: State, pred: State, gold_changes: Changes, pred_changes: Changes) -> list[SlotCount]:
    """Algorithm 1 as the official code runs it (docs/metrics.md, steps 3 and 4 of its "Algorithm 1"), quirks
    included: `gold`/`pred` are the turn's maps, every slot seen earlier on that side and now absent filled in
    as ``"none"``."""
    counted: list[SlotCount] = []
    judged: dict[str, str] = {}  # slots counted CORRECT or WRONG in step 3
    for slot, gold_value in gold_changes:
        if slot not in pred:
            kind = MISSED if gold_value != NONE_VALUE else CORRECT
        elif gold_value == (pred_value := pred[slot]) or (
            gold_value.__class__ is Alternatives and pred_value in gold_value
        ):
            kind = judged[slot] = CORRECT
        elif gold_value == NONE_VALUE:
            kind = OVERSHOT
        else:
            kind = judged[slot] = WRONG
        counted.append((slot, kind))
    for slot, pred_value in pred_changes:
        if slot not in gold:
            kind = OVERSHOT if pred_value != NONE_VALUE else CORRECT
        else:
            gold_value = gold[slot]
            match = gold_value == pred_value or (gold_value.__class__ is Alternatives and pred_value in gold_value)
            step3 = judged.get(slot) if judged else None
            if match and step3 is not CORRECT:
                kind = CORRECT
            elif pred_value == NONE_VALUE:  # quirk 1: a shared removal is correct, then missed
                kind = MISSED
            elif not match and step3 is not WRONG:
                kind = WRONG
            else:
                continue
        counted.append((slot, kind))
    return counted


def corrected_count_types(gold: State, pred: State, gold_changes: Changes, pred_changes: Changes) -> list[SlotCount]:
    """Each slot whose active value changed, compared once (corrected mode): correct, overshot, missed, wrong."""
    counted: list[SlotCount] = []
    for slot in dict.fromkeys([slot for slot, _ in gold_changes] + [slot for slot, _ in pred_changes]):
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


# Turn-level agreement of one turn


class TurnFigures(NamedTuple):
    """One turn's agreement, for JGA, SA, AGA, RSA and F1, by name: what `Tally`'s turn fields (`turn_sum`,
    `turn_histogram`) read. A new per-turn quantity is one field here and its value in `turn_figures`."""

    equal: bool  # gold and predicted states are equal
    errors: int  # SA's misses + wrongs
    tp: int  # |G ∩ P|
    n_gold: int  # |G|
    rel_hits: int  # RSA's numerator
    rel_total: int  # RSA's T*
    fp: int  # false positives
    fn: int  # false negatives


TurnValues = tuple[bool, int, int, int, int, int, int, int]
"""`TurnFigures`' values as a plain tuple, in its field order: what the hot loop builds and counts (`figure_runs`),
named by `TurnFigures._make` when summed. A NamedTuple built at each changed turn cost ``score`` 4 to 7 %
(CHANGELOG, issue 58)."""


def turn_figures(gold: State, pred: State, string_quirk: bool = False) -> TurnValues:
    """A turn's `TurnFigures` values, its active gold and predicted states compared once (the same object: equal).

    With tp = |G ∩ P| and common = |slots(G) ∩ slots(P)|: SA misses + wrongs = (|G| - tp) + (|P| -
    common); RSA T* = |G| + |P| - common, numerator tp. With `string_quirk`, SA and RSA come from
    `official_string_figures`."""
    if gold is pred:
        size = len(gold)
        return (True, 0, size, size, size, size, 0, 0)
    tp = common = 0
    for slot, pred_value in pred.items():
        gold_value = gold.get(slot)
        if gold_value is not None:
            common += 1
            if gold_value == pred_value or (gold_value.__class__ is Alternatives and pred_value in gold_value):
                tp += 1
    n_gold = len(gold)
    n_pred = len(pred)
    if string_quirk:
        slot_errors, relative_hits, relative_total = official_string_figures(gold, pred)
    else:
        slot_errors = n_gold - tp + n_pred - common
        relative_hits, relative_total = tp, n_gold + n_pred - common
    equal = tp == n_gold == n_pred
    return (equal, slot_errors, tp, n_gold, relative_hits, relative_total, n_pred - tp, n_gold - tp)


NO_TURN = turn_figures({}, {})
"""The figures before a dialogue's first turn (never counted: a run starts at the first turn)."""


def official_string_figures(gold: State, pred: State) -> tuple[int, int, int]:
    """(SA misses + wrongs, RSA numerator, T*) as the official code computes them on 'domain-slot-value'
    strings, a slot being what precedes the last hyphen (so 'guest-house' lands on a wrong slot)."""

    def gold_item(slot: str, value: Value) -> str:
        if value.__class__ is Alternatives:
            chosen = pred.get(slot)
            return f"{slot}-{chosen if chosen in value else min(value)}"
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


def hyphenated(state: State) -> bool:
    """Whether a value of `state` has a hyphen: only then can `official_string_figures` differ."""
    for value in state.values():
        if value.__class__ is str:
            if "-" in value:
                return True
        elif any("-" in accepted for accepted in value):
            return True
    return False


def changes_inside(changes: Changes, other: State) -> bool:
    """FGA's check: every active (slot, value) of a side's change set is matched in `other`."""
    for slot, value in changes:
        if value is None or value == NONE_VALUE:
            continue  # a removal is not an item of the turn's state
        other_value = other.get(slot)
        if value != other_value and not (
            (value.__class__ is Alternatives and other_value in value)
            or (other_value.__class__ is Alternatives and value in other_value)
        ):
            return False
    return True


def same_label_changes(gold_changes: Changes, pred_changes: Changes, gold_before: State, pred_before: State) -> bool:
    """Whether a turn's DST-STAR turn labels are equal: the same removals, active changes matched slot by slot."""
    pred_label: dict[str, Value | None] = {}
    for slot, value in pred_changes:
        if value is None or value == NONE_VALUE:
            if slot in pred_before:
                pred_label[slot] = None
        else:
            pred_label[slot] = value
    matched = 0
    for slot, gold_value in gold_changes:
        if gold_value is None or gold_value == NONE_VALUE:
            if slot not in gold_before:
                continue
            if slot not in pred_label or pred_label[slot] is not None:
                return False
        else:
            pred_value = pred_label.get(slot)
            if pred_value is None or not values_match(gold_value, pred_value):
                return False
        matched += 1
    return matched == len(pred_label)


# Sums: each field of a `Tally` (and of `compat.base.DialogueSums`) declares under `MERGE` how two sums merge.

MERGE = "merge"
"""The key of a field's metadata holding its merge: merge(mine, theirs) -> their sum, a new value."""


def add_keys(*histograms: dict[Any, int]) -> dict[Any, int]:
    """The merge of histograms: a new {key: the sum of their counts} (the inputs untouched)."""
    out: dict[Any, int] = {}
    for histogram in histograms:
        for key, value in histogram.items():
            out[key] = out.get(key, 0) + value
    return out


def integer() -> Any:
    """A field of sums: an int, summed (0 when nothing is summed)."""
    return field(default=0, metadata={MERGE: operator.add})


def histogram() -> Any:
    """A field of sums: {key: int}, summed key by key (empty when nothing is summed)."""
    return field(default_factory=dict, metadata={MERGE: add_keys})


TURN_TERM = "turn_term"
"""The key of a field's metadata holding what it sums over turns (`turn_sum`, `turn_histogram`)."""


def turn_sum(term: Callable[[TurnFigures], int]) -> Any:
    """A field of sums: Σ over turns of `term` of the turn's figures (``lambda turn: turn.equal``)."""
    return field(default=0, metadata={MERGE: operator.add, TURN_TERM: (None, term)})


def turn_histogram(key: Callable[[TurnFigures], int], term: Callable[[TurnFigures], int]) -> Any:
    """A field of sums: {the turn's `key`: Σ `term`} over turns whose `key` is not 0."""
    return field(default_factory=dict, metadata={MERGE: add_keys, TURN_TERM: (key, term)})


def sum_fields(cls: type, merge: Callable | None = None) -> tuple[str, ...]:
    """The names of the fields of `cls` that declare a merge (or that merge, e.g. `add_keys`), in order."""
    return tuple(f.name for f in fields(cls) if MERGE in f.metadata and merge in (None, f.metadata[MERGE]))


@functools.cache
def _merges(cls: type) -> tuple[Callable, tuple[tuple[Callable, Any], ...]]:
    """(the getter of the fields' values in order, each field's (merge, empty value)) of a class of sums."""
    values = operator.attrgetter(*(f.name for f in fields(cls)))
    return values, tuple(zip([f.metadata[MERGE] for f in fields(cls)], values(cls())))


_FOLDS: dict[Callable, Callable[[Iterable[Any]], Any]] = {operator.add: sum, add_keys: lambda column: add_keys(*column)}
"""The sum of many values of a merge at once, where one is faster than merging them two by two."""


def summed(*sums: Any) -> Any:
    """The sum of declared sums of one class (at least one) as a new one, field by field; inputs unchanged."""
    values, merges = _merges(sums[0].__class__)
    if len(sums) == 2:
        pairs = zip(merges, values(sums[0]), values(sums[1]))
        return sums[0].__class__(*[merge(a, b) for (merge, _), a, b in pairs])
    columns = zip(merges, zip(*map(values, sums)))
    return sums[0].__class__(
        *[
            _FOLDS[merge](column) if merge in _FOLDS else functools.reduce(merge, column, empty)
            for (merge, empty), column in columns
        ]
    )


@dataclass
class Tally:
    """The sums every metric is computed from, merged by addition as each field declares (`integer`,
    `histogram`, `turn_sum`, `turn_histogram`), so merged tallies give the same figures in any order."""

    turns: int = integer()
    correct: int = integer()
    wrong: int = integer()
    missed: int = integer()
    overshot: int = integer()
    joint_hits: int = turn_sum(lambda turn: turn.equal)  # turns whose gold and predicted states are equal
    slot_errors: int = turn_sum(lambda turn: turn.errors)  # Σ_t SA's (missed_t + wrong_t)
    goal_turns: int = turn_sum(lambda turn: turn.n_gold > 0)  # turns with at least one active gold slot (AGA)
    goal_hits: dict[int, int] = turn_histogram(lambda turn: turn.n_gold, lambda turn: turn.tp)  # |G_t| -> Σ |G_t ∩ P_t|
    relative_empty_turns: int = turn_sum(lambda turn: turn.rel_total == 0)  # turns with T* = 0 (RSA)
    relative_hits: dict[int, int] = turn_histogram(
        lambda turn: turn.rel_total, lambda turn: turn.rel_hits
    )  # T*_t -> Σ RSA numerators
    true_positives: int = turn_sum(lambda turn: turn.tp)
    false_positives: int = turn_sum(lambda turn: turn.fp)
    false_negatives: int = turn_sum(lambda turn: turn.fn)
    fga_distances: dict[int, int] = histogram()  # d -> type-2 turns at d
    turn_hits: int = integer()  # turns whose predicted changes equal gold's (DST-STAR's joint turn accuracy)
    final_turns: int = integer()  # dialogues with a turn: their last turns (final-turn JGA)
    final_hits: int = integer()  # last turns whose gold and predicted states are equal

    def __add__(self, other: Tally) -> Tally:
        return summed(self, other)

    def __reduce__(self) -> tuple:
        # pickled as its field values in order: smaller and faster than the default
        return Tally, _merges(Tally)[0](self)

    def count(self, kind: str) -> int:
        """The GCA count of one type ('correct', 'wrong', 'missed' or 'overshot')."""
        return getattr(self, kind)


# One pass over a dialogue

TurnObserver = Callable[[int, int, State, State, list[SlotCount]], None]


def tally_dialogue(
    dialogue: Dialogue,
    mode: str = "official",
    *,
    observe: TurnObserver | None = None,
) -> Tally:
    """Score one dialogue into a Tally; `observe(position, turn id, gold map, pred map, counted)` sees each turn."""
    check_mode(mode)
    sums = _Sums()
    sums.walk((dialogue,), mode == "official", observe)
    return sums.tally()


def tally_each(dialogues: Iterable[Dialogue], mode: str = "official") -> tuple[Tally, dict[str, Tally]]:
    """The corpus tally and each dialogue's (by id), in one pass over each dialogue."""
    check_mode(mode)
    official = mode == "official"
    tallies: list[Tally] = [Tally()]  # none: a Tally of nothing
    by_dialogue: dict[str, Tally] = {}
    sums = _Sums()
    for dialogue in dialogues:
        sums.clear()
        sums.walk((dialogue,), official, None)
        tally = by_dialogue[dialogue.dialogue_id] = sums.tally()
        tallies.append(tally)
    return summed(*tallies), by_dialogue


def tally_corpus(dialogues: Iterable[Dialogue], mode: str = "official") -> Tally:
    """One Tally for all `dialogues`: the sum of their tallies, in one accumulator."""
    check_mode(mode)
    sums = _Sums()
    official = mode == "official"
    sums.walk(dialogues, official, None)
    return sums.tally()


class _Sums:
    """Accumulators of the hot loop, plain dicts and ints; `tally()` turns them into a Tally."""

    def __init__(self) -> None:
        self.turns = 0
        self.counts = {CORRECT: 0, WRONG: 0, MISSED: 0, OVERSHOT: 0}
        self.figure_runs: dict[TurnValues, int] = {}  # turn figures -> number of turns
        self.fga_distances: dict[int, int] = {}  # FGA type-2 distance -> number of turns
        self.turn_hits = self.final_turns = self.final_hits = 0

    def clear(self) -> None:
        """Back to no turn (one accumulator for each dialogue in turn: `tally()` copies what it keeps)."""
        self.turns = 0
        counts = self.counts
        counts[CORRECT] = counts[WRONG] = counts[MISSED] = counts[OVERSHOT] = 0
        self.figure_runs.clear()
        self.fga_distances.clear()
        self.turn_hits = self.final_turns = self.final_hits = 0

    def walk(self, dialogues: Iterable[Dialogue], official: bool, observe: TurnObserver | None) -> None:
        """One pass over each dialogue, one diff per turn, read by every metric."""
        count_types = official_count_types if official else corrected_count_types
        counts = self.counts
        figure_runs = self.figure_runs
        distances = self.fga_distances
        turns = label_misses = final_turns = final_hits = 0  # label misses: changed turns whose labels differ
        for dialogue in dialogues:
            turns += len(dialogue.turn_ids)
            prev_g = prev_p = None  # normalized state objects of the previous turn
            gold_active: State = {}  # turn-level states (active slots)
            pred_active: State = gold_active
            gold_map: State = {}  # what GCA compares (official: with "none" for dropped slots)
            pred_map: State = gold_map
            gold_hyphen = pred_hyphen = False
            figures = NO_TURN  # set before it is read (run > 0)
            run = 0  # turns in a row with these figures
            prev_equal = False
            last_error = -1  # turn id (official) or position (corrected) of the last FGA type-1 error

            for position, (turn_id, g, p) in enumerate(zip(dialogue.turn_ids, dialogue.gold, dialogue.pred)):
                if g is prev_g and p is prev_p:
                    # Nothing changed on either side: the same turn figures; an unequal turn is FGA type 2.
                    run += 1
                    if not prev_equal:
                        distance = (turn_id if official else position) - last_error
                        distances[distance] = distances.get(distance, 0) + 1
                    if observe is not None:
                        observe(position, turn_id, gold_map, pred_map, [])
                    continue

                if run:
                    figure_runs[figures] = figure_runs.get(figures, 0) + run
                gold_before, pred_before = gold_active, pred_active
                shared = p is g and pred_map is gold_map  # the gold state on the same map: the same advance
                if g is not prev_g:
                    gold_active, gold_map, gold_changes, gold_hyphen = advance_side(g, gold_map, official, gold_hyphen)
                else:
                    gold_changes = ()
                if shared:  # the same turn labels too; gold's hyphen flag holds for gold's map
                    pred_active, pred_map, pred_changes, pred_hyphen = gold_active, gold_map, gold_changes, gold_hyphen
                else:
                    if p is not prev_p:
                        pred_active, pred_map, pred_changes, pred_hyphen = advance_side(
                            p, pred_map, official, pred_hyphen
                        )
                    else:
                        pred_changes = ()
                    # DST-STAR's turn labels, from the change sets just computed (an unchanged side's are (),
                    # unequal to an empty set: same_label_changes holds them equal)
                    if official and (gold_active is not g or pred_active is not p):  # a "none" given
                        label_misses += not same_label_changes(gold_changes, pred_changes, gold_before, pred_before)
                    # else the labels, removals as (slot, None|"none"): of the same size, equal sets or equal
                    # only where gold accepts several values
                    elif len(gold_changes) != len(pred_changes) or (
                        gold_changes != pred_changes
                        and not same_label_changes(gold_changes, pred_changes, gold_before, pred_before)
                    ):
                        label_misses += 1
                counted = count_types(gold_map, pred_map, gold_changes, pred_changes)
                for _, kind in counted:
                    counts[kind] += 1
                if observe is not None:
                    observe(position, turn_id, gold_map, pred_map, counted)

                figures = turn_figures(gold_active, pred_active, gold_hyphen or pred_hyphen)
                run = 1
                equal = figures[0]  # TurnFigures.equal
                if not equal:
                    if (
                        position == 0
                        or prev_equal
                        or not changes_inside(gold_changes, pred_active)
                        or not changes_inside(pred_changes, gold_active)
                    ):
                        last_error = turn_id if official else position
                    else:
                        distance = (turn_id if official else position) - last_error
                        distances[distance] = distances.get(distance, 0) + 1
                prev_equal = equal
                prev_g, prev_p = g, p

            if run:  # the dialogue has a turn: its last turn's
                figure_runs[figures] = figure_runs.get(figures, 0) + run
                final_turns += 1
                final_hits += prev_equal
        self.turns += turns
        self.turn_hits += turns - label_misses
        self.final_turns += final_turns
        self.final_hits += final_hits

    def tally(self) -> Tally:
        """The sums as a Tally: each turn field summed over the runs of equal turn figures, the others copied."""
        turn_histograms, counts, histograms, values = _tally_plan()
        made: list[Any] = [0] * len(_TALLY_FIELDS)
        for index in turn_histograms:
            made[index] = {}
        for index, name in counts:
            made[index] = self.counts[name]
        for index, name in histograms:
            made[index] = dict(getattr(self, name))  # a copy: the sums go on
        for index, name in values:
            made[index] = getattr(self, name)
        for figures, run in self.figure_runs.items():
            sums, keyed = _turn_terms(figures)
            for index, term in sums:
                made[index] += term * run
            for index, key, term in keyed:
                histogram = made[index]
                histogram[key] = histogram.get(key, 0) + term * run
        return Tally(*made)


_TALLY_FIELDS = fields(Tally)
_Placed = tuple[tuple[int, str], ...]  # (a field's index, its name) of some of `Tally`'s fields


@functools.cache
def _tally_plan() -> tuple[tuple[int, ...], _Placed, _Placed, _Placed]:
    """Where `_Sums.tally` puts each field of `Tally` (by index): (the turn histograms, which start empty; the GCA
    counts; the walk's own histograms; its other values). The turn sums start at 0 (their declared terms)."""
    turn_histograms: list[int] = []
    counts: list[tuple[int, str]] = []
    histograms: list[tuple[int, str]] = []
    values: list[tuple[int, str]] = []
    for index, f in enumerate(_TALLY_FIELDS):
        if TURN_TERM in f.metadata:
            if f.metadata[TURN_TERM][0] is not None:
                turn_histograms.append(index)
        elif f.name in COUNT_TYPES:
            counts.append((index, f.name))
        elif f.metadata[MERGE] is add_keys:
            histograms.append((index, f.name))
        else:
            values.append((index, f.name))
    return tuple(turn_histograms), tuple(counts), tuple(histograms), tuple(values)


@functools.lru_cache(maxsize=1 << 16)
def _turn_terms(values: TurnValues) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, Any, int], ...]]:
    """What one turn's figures add to `Tally`'s turn fields, each field's declared term of the named figures: the
    sums ((the field's index, the term), terms of 0 left out) and the histograms ((index, key, term); a key of 0
    adds nothing). Cached: a corpus has few distinct figures, and ``--per-dialogue`` sums them for every dialogue."""
    figures = TurnFigures._make(values)
    sums: list[tuple[int, int]] = []
    keyed: list[tuple[int, Any, int]] = []
    for index, f in enumerate(_TALLY_FIELDS):
        if TURN_TERM in f.metadata:
            key, term = f.metadata[TURN_TERM]
            if key is None:
                if term(figures):
                    sums.append((index, term(figures)))
            elif key(figures):
                keyed.append((index, key(figures), term(figures)))
    return tuple(sums), tuple(keyed)


def advance_side(
    state: State, previous_map: State, official: bool, hyphen: bool = False
) -> tuple[State, State, Changes, bool]:
    """Move one side (gold or prediction) to its new state: the active state, the map GCA compares, its
    changes against `previous_map`, and `hyphen` (official SA/RSA must read the states as strings). In
    official mode the map fills in ``"none"`` for every slot of `previous_map` the state lacks (docs/metrics.md,
    Algorithm 1, step 1)."""
    if official:
        active = state
        if NONE_VALUE in state.values():
            active = {slot: value for slot, value in state.items() if value != NONE_VALUE}
        gca_map = state
        if not state.keys() >= previous_map.keys():
            gca_map = dict.fromkeys(previous_map, NONE_VALUE)
            gca_map.update(state)
        changes = gca_map.items() - previous_map.items()  # side_changes as one set operation: values hash
        if not hyphen:
            for _, value in changes:
                if value.__class__ is str and "-" in value:
                    hyphen = True
                    break
        return active, gca_map, changes, hyphen
    active = state
    values = state.values()
    if NONE_VALUE in values or "" in values:
        active = {slot: value for slot, value in state.items() if value not in INACTIVE_VALUES}
    changes = active.items() - previous_map.items()
    if len(previous_map) > len(active) - len(changes):  # a slot of the previous state is gone
        changes |= {(slot, None) for slot in previous_map.keys() - active.keys()}
    return active, active, changes, False
