"""The data model: a corpus of dialogues, each with turn ids and normalized gold and predicted states.

No file reading here (see `dst_metrics.readers`). `CorpusBuilder`, used by every constructor and
reader, checks and normalizes the states dialogue by dialogue (bad input raises `InputError` naming
the dialogue, turn and field). An unchanged state reuses one state object, so the scorer can tell an
unchanged turn by identity. With ``fuzzy`` value matching, a predicted value fuzzily matching gold
(`fuzzy.fuzzy_match`, mwzeval's rule) is replaced by the gold value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any, cast

import msgspec

from . import ids
from ._gc import without_gc
from .confidences import ScoredPredictions, split_scored_state
from .errors import InputError, describe
from .fuzzy import fuzzy_match
from .json_problems import find_json_problem
from .reading import Reading
from .states import (
    DELETE_MARKER,
    INACTIVE_VALUES,
    Alternatives,
    State,
    Value,
    is_deletion,
    normalize_state,
    plain_state,
    values_match,
)


@dataclass(frozen=True)
class Dialogue:
    """One dialogue: turn ids in order and each turn's normalized gold and predicted state (never mutated)."""

    dialogue_id: str
    turn_ids: tuple[int, ...]
    gold: tuple[State, ...]
    pred: tuple[State, ...]

    def __len__(self) -> int:
        return len(self.turn_ids)

    def __reduce__(self) -> tuple:
        # pickled as its field values: compiled, a frozen dataclass refuses the default restoring
        return type(self), (self.dialogue_id, self.turn_ids, self.gold, self.pred)


def restricted(dialogue: Dialogue, keep: Callable[[str], bool]) -> Dialogue:
    """The dialogue with every state cut down to the slots `keep` accepts; a state that turns (or both sides)
    share stays one state, so that unchanged turns are still recognized as such."""
    cut: dict[int, State] = {}

    def restrict(state: State) -> State:
        found = cut.get(id(state))
        if found is None:
            found = cut[id(state)] = {slot: value for slot, value in state.items() if keep(slot)}
        return found

    gold = tuple(map(restrict, dialogue.gold))
    return Dialogue(dialogue.dialogue_id, dialogue.turn_ids, gold, tuple(map(restrict, dialogue.pred)))


@dataclass(frozen=True)
class Corpus:
    """Dialogues ready to score; `listed_gold_slots`: every slot a ConvLab-3 gold listed, set or not, else None."""

    dialogues: tuple[Dialogue, ...]
    value_matching: str = "exact"
    listed_gold_slots: frozenset[str] | None = dataclass_field(default=None, compare=False)
    scores: ScoredPredictions | None = dataclass_field(default=None, compare=False, repr=False)
    """Confidences of predicted values, when the predictions carry them (`dst_metrics.calibration`)."""
    reading: tuple[str, ...] = dataclass_field(default=(), compare=False)
    """How the inputs were read where that changes figures, as signature parts (``preds:updates``,
    ``alts:first``, the gold subset, a gold reader's conventions): `scoring` puts them in the signature."""

    @property
    def num_turns(self) -> int:
        """Number of turns over all dialogues."""
        return sum(len(d) for d in self.dialogues)

    def __len__(self) -> int:
        return len(self.dialogues)

    def __reduce__(self) -> tuple:
        # as `Dialogue.__reduce__`: its field values, in order
        return type(self), (self.dialogues, self.value_matching, self.listed_gold_slots, self.scores, self.reading)

    def __iter__(self) -> Iterator[Dialogue]:
        return iter(self.dialogues)

    def dialogue(self, dialogue_id: str) -> Dialogue:
        """The dialogue with this id (KeyError if there is none)."""
        for dialogue in self.dialogues:
            if dialogue.dialogue_id == dialogue_id:
                return dialogue
        raise KeyError(dialogue_id)

    @classmethod
    @without_gc
    def from_dialogues(
        cls,
        predictions: Sequence[Sequence[object]],
        references: Sequence[Sequence[object]],
        *,
        dialogue_ids: Sequence[object] | None = None,
        **reading: Any,
    ) -> Corpus:
        """Build from parallel lists of dialogues, each a list of states (turn ids 0, 1, ...); `reading`: the
        `Reading` settings (``value_matching="fuzzy"``, ...)."""
        builder = CorpusBuilder(Reading(**reading))
        if len(predictions) != len(references):
            raise InputError(f"{len(predictions)} predicted dialogues but {len(references)} reference dialogues")
        names = range(len(references)) if dialogue_ids is None else list(dialogue_ids)
        if len(names) != len(references):
            raise InputError(f"{len(names)} dialogue ids for {len(references)} dialogues")
        for name, pred_turns, gold_turns in zip(names, predictions, references):
            dialogue_id = ids.dialogue_id(name, field=None)
            for side, turns in (("predictions", pred_turns), ("references", gold_turns)):
                if isinstance(turns, (str, Mapping)) or not isinstance(turns, Sequence):
                    raise InputError(
                        f"a dialogue in {side} must be an array of states, got {describe(turns)}",
                        dialogue=dialogue_id,
                    )
            if len(pred_turns) != len(gold_turns):
                raise InputError(
                    f"{len(pred_turns)} predicted turns but {len(gold_turns)} reference turns", dialogue=dialogue_id
                )
            builder.add(dialogue_id, list(range(len(gold_turns))), list(gold_turns), list(pred_turns))
        return builder.corpus()

    @classmethod
    @without_gc
    def from_turn_records(
        cls,
        predictions: Iterable[Mapping],
        references: Iterable[Mapping],
        **reading: Any,
    ) -> Corpus:
        """Build from turn records ``{"dialogue_id": str, "turn_id": int, "state": state}`` in any order, each
        (dialogue_id, turn_id) once on each side; dialogues come out sorted by id. `reading`: as `from_dialogues`."""
        builder = CorpusBuilder(Reading(**reading))
        pred_by_key = index_turn_records(predictions, "predictions")
        gold_by_key = index_turn_records(references, "references")
        for keys, other, name in ((pred_by_key, gold_by_key, "references"), (gold_by_key, pred_by_key, "predictions")):
            for key in keys:
                if key not in other:
                    raise InputError(f"this turn has no partner in {name}", dialogue=key[0], turn=key[1])
        grouped: dict[str, tuple[list, list, list]] = {}
        for key in sorted(gold_by_key):
            turn_ids, golds, preds = grouped.setdefault(key[0], ([], [], []))
            turn_ids.append(key[1])
            golds.append(gold_by_key[key])
            preds.append(pred_by_key[key])
        for dialogue_id, sides in grouped.items():
            builder.add(dialogue_id, *sides)
        return builder.corpus()

    @classmethod
    def from_reference_layout(cls, data: object, **reading: Any) -> Corpus:
        """Build from the parsed reference layout ``{dialogue_id: {turn_id: {"gt": …, "pr": …}}}``; `reading`: as
        `from_dialogues`."""
        return corpus_from_layout(data, Reading(**reading))


RECORD_FIELDS = ("dialogue_id", "turn_id", "state")


def index_turn_records(records: Iterable[Mapping], name: str) -> dict[tuple[str, int], object]:
    """{(dialogue_id, turn_id): state} of turn records; a bad or repeated record raises InputError."""
    by_key: dict[tuple[str, int], object] = {}
    for position, record in enumerate(records):
        if (
            type(record) is dict
            and type(record.get("dialogue_id")) is str
            and type(record.get("turn_id")) is int
            and record["dialogue_id"]
            and record["turn_id"] >= 0
            and "state" in record
        ):
            key = (record["dialogue_id"], record["turn_id"])  # the common case, checked cheaply
        else:
            key = _record_key(record, f"{name}[{position}]")
        if key in by_key:
            raise InputError(
                f"this (dialogue_id, turn_id) appears twice in {name}",
                dialogue=key[0],
                turn=key[1],
                source=f"{name}[{position}]",
            )
        by_key[key] = record["state"]
    return by_key


def _record_key(record: object, where: str) -> tuple[str, int]:
    """(dialogue_id, turn_id) of a turn record that is not a plain dict of a str and an int id."""
    if not isinstance(record, Mapping):
        raise InputError(
            f"a turn record must be an object with {', '.join(RECORD_FIELDS)}, got {describe(record)}", source=where
        )
    for field in RECORD_FIELDS:
        if field not in record:
            raise InputError(f"the turn record has no {field}", field=field, source=where)
    dialogue_id = ids.dialogue_id(record["dialogue_id"], source=where)
    return dialogue_id, ids.turn_id(record["turn_id"], dialogue=dialogue_id, source=where)


# The reference layout


LAYOUT = '{dialogue_id: {turn_id: {"gt": state, "pr": state}}}'


def corpus_from_layout(data: object, reading: Reading | str = "exact") -> Corpus:
    """A Corpus from the parsed reference layout, read as `reading` says (a str: its value matching)."""
    builder = CorpusBuilder(reading)
    if not isinstance(data, Mapping):
        raise InputError(f"expected an object {LAYOUT}, got {describe(data)}")
    for name, turns in data.items():
        dialogue_id = ids.dialogue_id(name, field=None)
        builder.add(dialogue_id, *layout_turns(dialogue_id, turns))
    return builder.corpus()


def layout_turns(
    dialogue_id: str, turns: object, fields: tuple[str, str] = ("gt", "pr")
) -> tuple[list[int], list, list]:
    """Turn ids, gold states and predicted states of one dialogue ``{turn_id: {field: state}}``."""
    if not isinstance(turns, Mapping):
        raise InputError(f"a dialogue must map turn ids to turns, got {describe(turns)}", dialogue=dialogue_id)
    turn_ids = ids.turn_ids(turns, dialogue_id)
    values = turns.values()
    gold, pred = fields
    try:  # the common case, checked in bulk; any problem is found and named below
        return turn_ids, [t[gold] for t in values], [t[pred] for t in values]
    except (TypeError, KeyError):
        pass
    for turn_id, turn in zip(turn_ids, values):
        if not isinstance(turn, Mapping):
            raise InputError(
                f"a turn must be an object with {gold} and {pred}, got {describe(turn)}",
                dialogue=dialogue_id,
                turn=turn_id,
            )
        for field in fields:
            if field not in turn:
                raise InputError(f"the turn has no {field}", dialogue=dialogue_id, turn=turn_id, field=field)
    raise AssertionError("unreachable: a turn without a state was not found")  # pragma: no cover


# Building: states normalized, validated and snapped, one dialogue after another


_RAW = msgspec.Raw  # msgspec parses JSON fast and can keep each state as raw bytes until it is needed
_DECODE = msgspec.json.decode
GOLD_FIELD = "gt"
PRED_FIELD = "pr"


def text_matching(matching: str) -> str:
    """How each value's text is folded under a value matching: ``fuzzy`` folds as ``normalized``."""
    return "normalized" if matching == "fuzzy" else matching


def _snapped_value(gold: Value, pred: str) -> str | None:
    """The gold value (or the first acceptable value) `pred` matches fuzzily; None if none does."""
    if pred in INACTIVE_VALUES:
        return None
    options: tuple[str, ...] = gold.order if type(gold) is Alternatives else (cast(str, gold),)
    for option in options:
        if option not in INACTIVE_VALUES and fuzzy_match(option, pred):
            return option
    return None


def snap_prediction(gold: State, pred: State) -> State:
    """`pred` with each value fuzzily matching its slot's gold value replaced by it (`pred` if unchanged)."""
    snapped = None
    for slot, value in pred.items():
        gold_value = gold.get(slot)
        if gold_value is None or values_match(gold_value, value):
            continue
        option = _snapped_value(gold_value, value)
        if option is not None:
            if snapped is None:
                snapped = dict(pred)
            snapped[slot] = option
    return pred if snapped is None else snapped


def snap_dialogue(golds: Sequence[State], preds: Sequence[State]) -> list:
    """`snap_prediction` for each turn of a dialogue; unchanged turns share one state object."""
    out: list = []
    previous_gold = previous_pred = previous = None
    for gold, pred in zip(golds, preds):
        if not (gold is previous_gold and pred is previous_pred):
            snapped = snap_prediction(gold, pred)
            previous = previous if snapped is not previous and snapped == previous else snapped
            previous_gold, previous_pred = gold, pred
        out.append(previous)
    return out


def decode_raw(raw: object) -> object:
    """A state kept as raw JSON (msgspec.Raw), decoded; anything else as it is."""
    if type(raw) is not _RAW:
        return raw
    try:
        return _DECODE(raw)
    except (UnicodeDecodeError, msgspec.DecodeError) as error:  # e.g. 1e400: valid JSON, but no float holds it
        found = find_json_problem(bytes(raw))
        if found.utf8:
            raise InputError("the state is not UTF-8 text") from None
        raise InputError(f"the state holds {found.problem or 'what msgspec cannot decode: ' + str(error)}") from None


def accumulated(preds: Sequence[State]) -> list[State]:
    """Cumulative states from one dialogue's turn updates: a deletion removes its slot, a value sets it."""
    out: list[State] = []
    state: State = {}
    previous_update = None
    for update in preds:
        if update and update is not previous_update:
            new = dict(state)
            for slot, value in update.items():
                if type(value) is str and is_deletion(value):
                    new.pop(slot, None)
                else:
                    new[slot] = value
            state = state if new == state else new
        previous_update = update  # the same update again changes nothing: applying one is idempotent
        out.append(state)
    return out


def first_alternatives(golds: Sequence[State]) -> list[State]:
    """Gold states with each slot's first acceptable value only (mwzeval's reading)."""
    out: list[State] = []
    previous: State | None = None
    previous_new: Any = None
    for gold in golds:
        if gold is not previous:
            previous = gold
            if any(value.__class__ is Alternatives for value in gold.values()):
                previous_new = {slot: value.first if value.__class__ is Alternatives else value
                                for slot, value in gold.items()}  # fmt: skip
            else:
                previous_new = gold
        out.append(previous_new)
    return out


def check_no_deletions(dialogues: Iterable[Dialogue]) -> None:
    """InputError naming the dialogue, turn and slot of the first predicted deletion (null or ``[DELETE]``)."""
    markers = (DELETE_MARKER, DELETE_MARKER.lower())
    for dialogue in dialogues:
        previous = None
        for turn_id, pred in zip(dialogue.turn_ids, dialogue.pred):
            if pred is previous:
                continue
            previous = pred
            values = pred.values()
            if markers[0] in values or markers[1] in values:
                slot = next(slot for slot, value in pred.items() if value in markers)
                raise InputError(
                    "a deletion (null or [DELETE]) in a cumulative predicted state: turn updates are read with "
                    'prediction_states="updates"',
                    dialogue=dialogue.dialogue_id,
                    turn=turn_id,
                    field=f"prediction.{slot}",
                )


_SHARE: tuple[int, int, list[int]] | None = None  # (k, n, positions kept): see `only_share`


@contextmanager
def only_share(k: int, n: int) -> Iterator[list[int]]:
    """Within the block, builders keep only dialogues at positions k modulo n; the list yielded collects them."""
    global _SHARE
    positions: list[int] = []
    previous, _SHARE = _SHARE, (k, n, positions)
    try:
        yield positions
    finally:
        _SHARE = previous


class CorpusBuilder:
    """Normalizes the turns of one dialogue after another; `corpus()` checks and returns them."""

    def __init__(
        self,
        reading: Reading | str = "exact",
        *,
        flat: tuple[bool, bool] = (False, False),
        unset: tuple[str | None, str | None] = (None, None),
    ) -> None:
        """`reading`: a `Reading` (or a str: its value matching). `flat`: every input state of a side is a flat
        dict the reader built. `unset`: the value a side's format writes for an unset slot, or None.
        `notes`: further signature parts (`Corpus.reading`)."""
        reading = Reading(value_matching=reading) if isinstance(reading, str) else reading
        self.reading = reading
        self.notes: list[str] = list(reading.parts)
        self.updates = reading.prediction_states == "updates"
        self.deletions = self.updates or reading.keep_deletions
        self.first = reading.gold_alternatives == "first"
        self.flat = flat
        self.unset = unset
        self.share = _SHARE
        self.added = 0  # dialogues given to `add`, kept or not (only_share)
        self.listed: set[str] | None = set() if unset[0] is not None else None
        self.matching = reading.value_matching
        self.folding = text_matching(self.matching)
        self.linearized = reading.linearized
        self.slot_names: dict = {}  # see plain_state
        self.dialogues: list[Dialogue] = []
        self.scores: ScoredPredictions | None = None  # once a predicted value has a confidence

    def add(self, dialogue_id: str, turn_ids: list[int], golds: list, preds: list) -> None:
        """Validate and normalize one dialogue; turns are put in the order of their ids."""
        if self.share is not None:
            position, self.added = self.added, self.added + 1
            if not self.keeps(position):
                return
            self.share[2].append(position)
        if not turn_ids:
            raise InputError("the dialogue has no turns", dialogue=dialogue_id)
        if any(after <= before for before, after in zip(turn_ids, turn_ids[1:])):
            order = sorted(range(len(turn_ids)), key=turn_ids.__getitem__)
            turn_ids = [turn_ids[i] for i in order]
            golds = [golds[i] for i in order]
            preds = [preds[i] for i in order]
            for before, after in zip(turn_ids, turn_ids[1:]):
                if before == after:
                    raise InputError("the turn id is used twice", dialogue=dialogue_id, turn=after)
        gold = pred = gold_plain = None
        if self.matching == "exact" and self.unset == (None, None):
            gold = self._raw_side(golds)
            if gold is not None:
                pred = self._raw_side(preds, golds, gold)
        if gold is None:
            gold, gold_plain = self._side(dialogue_id, turn_ids, golds, GOLD_FIELD, True)
        if pred is None:  # gold_plain is None where `_raw_side` built gold: states of strings only
            twin = (golds, gold, gold_plain or [True] * len(gold))
            pred, _ = self._side(dialogue_id, turn_ids, preds, PRED_FIELD, False, twin)
        self.add_states(dialogue_id, turn_ids, gold, pred)

    def add_states(
        self, dialogue_id: str, turn_ids: Sequence[int], gold: Sequence[State], pred: Sequence[State]
    ) -> None:
        """Add one dialogue whose states are normalized already (the `evaluate` modules), as `add` does."""
        if self.updates:
            pred = accumulated(pred)
        if self.first:
            gold = first_alternatives(gold)
        if self.matching == "fuzzy":
            pred = snap_dialogue(gold, pred)
        self.dialogues.append(Dialogue(dialogue_id, tuple(turn_ids), tuple(gold), tuple(pred)))

    def keeps(self, position: int) -> bool:
        """Whether the dialogue given `position`-th to this builder is kept (`only_share`)."""
        return self.share is None or position % self.share[1] == self.share[0]

    def pass_over(self) -> None:
        """Count the next dialogue as given and left out of the share, without its turns (`keeps`)."""
        if self.share is None or self.keeps(self.added):
            raise ValueError("only a dialogue the share leaves out is passed over: `add` it")
        self.added += 1

    def list_gold_slots(self, slots: Iterable[str]) -> None:
        """Gold slots the format listed unset, which a reader dropped before `add` (`Corpus.listed_gold_slots`)."""
        if self.listed is None:
            raise ValueError("listed gold slots belong to a format with an unset value: CorpusBuilder(unset=...)")
        self.listed.update(slots)

    def corpus(self) -> Corpus:
        """The dialogues added so far; an empty corpus or a repeated dialogue id is an InputError."""
        if not self.dialogues and not (self.share is not None and self.added):  # a share may be empty
            raise InputError("the corpus is empty: there is no dialogue to score")
        seen = set()
        for dialogue in self.dialogues:
            if dialogue.dialogue_id in seen:
                raise InputError("the dialogue id is used twice", dialogue=dialogue.dialogue_id)
            seen.add(dialogue.dialogue_id)
        listed = None if self.listed is None else frozenset(self.listed)
        return Corpus(
            tuple(self.dialogues),
            self.matching,
            listed_gold_slots=listed,
            scores=self.scores,
            reading=tuple(dict.fromkeys(self.notes)),
        )

    def _side(
        self,
        dialogue_id: str,
        turn_ids: list[int],
        raws: list,
        field: str,
        gold: bool,
        twin: tuple[list, list, list] | None = None,
    ) -> tuple[list, list]:
        """Normalized states of one side, and for each turn whether its input held only strings; an input equal
        to the previous turn's (or, for predictions, the gold input) reuses that state object."""
        states: list = []
        plains: list = []
        previous_raw = previous = None
        plain = False
        exact = self.matching == "exact"
        unset = self.unset[0 if gold else 1]
        if self.unset[0] != self.unset[1]:
            twin = None  # a prediction equal to its gold input may still read differently
        twin_raws, twin_states, twin_plains = twin if twin is not None else ([], [], [])
        for index, (turn_id, raw) in enumerate(zip(turn_ids, raws)):
            if plain and (raw is previous_raw or raw == previous_raw):
                states.append(previous)
                plains.append(True)
                continue
            previous_raw = raw
            if twin is not None and twin_plains[index] and raw == twin_raws[index]:
                previous = twin_states[index]
                plain = True
            else:
                previous, plain = self._state(dialogue_id, turn_id, raw, field, gold, exact)
                if unset is not None:
                    previous = self._without_unset(previous, unset, gold)
            states.append(previous)
            plains.append(plain)
        return states, plains

    def _raw_side(self, raws: list, twin_raws: list | None = None, twin_states: list | None = None) -> list | None:
        """`_side` for raw JSON states of strings in one loop; None as soon as a state is anything else."""
        states: list = []
        previous_raw = previous = None
        decode = _DECODE
        slot_names = self.slot_names
        for index, raw in enumerate(raws):
            if raw == previous_raw:
                states.append(previous)
                continue
            if type(raw) is not _RAW:
                return None
            previous_raw = raw
            if twin_raws is not None and raw == twin_raws[index]:
                previous = twin_states[index]  # type: ignore[index]  # given with `twin_raws`
            else:
                try:
                    nested = decode(raw)
                except Exception:  # noqa: BLE001 - `_side` decodes it again and names the problem
                    return None
                previous = plain_state(nested, slot_names) if type(nested) is dict else None
                if previous is None:
                    return None
            states.append(previous)
        return states

    def _without_unset(self, state: State, unset: str, gold: bool) -> State:
        if gold:
            assert self.listed is not None  # a gold side with an unset value: `__init__` made it a set
            self.listed.update(state)
        return {slot: value for slot, value in state.items() if value != unset} if unset in state.values() else state

    def _state(self, dialogue_id: str, turn_id: int, raw: object, field: str, gold: bool, exact: bool):
        try:
            if type(raw) is _RAW:
                raw = decode_raw(raw)
            flat = self.flat[0 if gold else 1] and exact
            if flat and all(type(value) is str for value in cast("Mapping[str, object]", raw).values()):
                return raw, True
            state = plain_state(raw, self.slot_names) if exact and type(raw) is dict else None
            if state is not None:
                return state, True
            state = normalize_state(
                raw, gold=gold, matching=self.folding, field=field, linearized=self.linearized, deletions=self.deletions
            )
        except InputError as error:
            state = None if gold or type(raw) is _RAW else self._scored_state(dialogue_id, turn_id, raw, field)
            if state is None:
                raise error.located(dialogue=dialogue_id, turn=turn_id, field=error.field or field) from None
        return state, False

    def _scored_state(self, dialogue_id: str, turn_id: int, raw: object, field: str) -> State | None:
        """The top-value state of a prediction with confidences, hypotheses kept in `self.scores`; else None."""
        try:
            split = split_scored_state(raw, field, self.folding)
            if split is None:
                return None
            folding, linearized = self.folding, self.linearized
            state = normalize_state(split[0], gold=False, matching=folding, field=field, linearized=linearized)
        except InputError as error:
            raise error.located(dialogue=dialogue_id, turn=turn_id, field=error.field or field) from None
        if self.scores is None:
            self.scores = ScoredPredictions()
        self.scores.add_turn(dialogue_id, turn_id, split[1])
        return state
