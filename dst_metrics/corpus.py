"""Corpora of dialogues, built from every input layout we accept and validated once.

All validation happens here, before any figure is computed: a bad state, a missing side, an
unpaired or duplicated turn raises `InputError` naming the dialogue, turn and field.
"""

from __future__ import annotations

import functools
import gc
import json
import numbers
from collections.abc import Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .states import VALUE_MATCHINGS, LinearizedFormat, State, normalize_state, plain_state

try:  # msgspec parses JSON fast and can keep each state as raw bytes until it is needed
    import msgspec as _msgspec
except ImportError:  # pragma: no cover - exercised only where msgspec is missing
    _msgspec = None

GOLD_FIELD = "gt"
PRED_FIELD = "pr"


def _without_gc(function):
    """Run `function` with the garbage collector paused (see `_gc_paused`)."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with _gc_paused():
            return function(*args, **kwargs)

    return wrapper


@contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector while building many small containers.

    Building a large corpus allocates millions of dicts and tuples but no reference cycles;
    with the collector running, full collections over them triple the time.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class Dialogue:
    """One dialogue: turn ids in order and the normalized gold and predicted state of each turn.

    Consecutive turns whose input state is unchanged share one state object, so the scorer can
    tell an unchanged turn by identity. States are never mutated.
    """

    dialogue_id: str
    turn_ids: tuple[int, ...]
    gold: tuple[State, ...]
    pred: tuple[State, ...]

    def __len__(self) -> int:
        return len(self.turn_ids)


@dataclass(frozen=True)
class Corpus:
    """Dialogues ready to score, with the value matching their states were normalized under."""

    dialogues: tuple[Dialogue, ...]
    value_matching: str = "exact"

    @property
    def num_turns(self) -> int:
        """Number of turns over all dialogues."""
        return sum(len(d) for d in self.dialogues)

    def __len__(self) -> int:
        return len(self.dialogues)

    def __iter__(self):
        return iter(self.dialogues)

    def dialogue(self, dialogue_id: str) -> Dialogue:
        """The dialogue with this id (KeyError if there is none)."""
        for dialogue in self.dialogues:
            if dialogue.dialogue_id == dialogue_id:
                return dialogue
        raise KeyError(dialogue_id)

    @classmethod
    @_without_gc
    def from_reference_layout(
        cls,
        data: object,
        *,
        value_matching: str = "exact",
        linearized: LinearizedFormat | None = None,
    ) -> Corpus:
        """Build from ``{dialogue_id: {turn_id: {"gt": state, "pr": state}}}`` (turn ids are
        integers or integer strings; turns are ordered by their integer value)."""
        _check_matching(value_matching)
        if not isinstance(data, Mapping):
            raise InputError(
                "expected a mapping {dialogue_id: {turn_id: {'gt': state, 'pr': state}}}, got "
                f"{type(data).__name__}"
            )
        builder = _Builder(value_matching, linearized)
        dialogues = [builder.dialogue(str(d), *_layout_turns(d, turns)) for d, turns in data.items()]
        return cls._checked(dialogues, value_matching)

    @classmethod
    @_without_gc
    def from_dialogues(
        cls,
        predictions: Sequence[Sequence[object]],
        references: Sequence[Sequence[object]],
        *,
        dialogue_ids: Sequence[str] | None = None,
        value_matching: str = "exact",
        linearized: LinearizedFormat | None = None,
    ) -> Corpus:
        """Build from parallel lists of dialogues, each a list of states (turn ids 0, 1, ...)."""
        _check_matching(value_matching)
        if len(predictions) != len(references):
            raise InputError(f"{len(predictions)} predicted dialogues but {len(references)} reference dialogues")
        ids = [str(i) for i in range(len(references))] if dialogue_ids is None else list(dialogue_ids)
        if len(ids) != len(references):
            raise InputError(f"{len(ids)} dialogue ids for {len(references)} dialogues")
        builder = _Builder(value_matching, linearized)
        dialogues = []
        for dialogue_id, pred_turns, gold_turns in zip(ids, predictions, references):
            for name, turns in (("predictions", pred_turns), ("references", gold_turns)):
                if isinstance(turns, (str, Mapping)) or not isinstance(turns, Sequence):
                    raise InputError(
                        f"a dialogue in {name} must be a list of states, got {type(turns).__name__}",
                        dialogue=dialogue_id,
                    )
            if len(pred_turns) != len(gold_turns):
                raise InputError(
                    f"{len(pred_turns)} predicted turns but {len(gold_turns)} reference turns",
                    dialogue=dialogue_id,
                )
            dialogues.append(
                builder.dialogue(str(dialogue_id), list(range(len(gold_turns))), list(gold_turns), list(pred_turns))
            )
        return cls._checked(dialogues, value_matching)

    @classmethod
    @_without_gc
    def from_turn_records(
        cls,
        predictions: Iterable[Mapping],
        references: Iterable[Mapping],
        *,
        value_matching: str = "exact",
        linearized: LinearizedFormat | None = None,
    ) -> Corpus:
        """Build from turn records ``{"dialogue_id": str, "turn_id": int, "state": state}`` in any
        order. Every (dialogue_id, turn_id) must appear exactly once on each side. Dialogues come
        out sorted by id, so the result does not depend on the order of the records."""
        _check_matching(value_matching)
        pred_by_key = _index_records(predictions, "predictions")
        gold_by_key = _index_records(references, "references")
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
        builder = _Builder(value_matching, linearized)
        dialogues = [builder.dialogue(d, *sides) for d, sides in grouped.items()]
        return cls._checked(dialogues, value_matching)

    @classmethod
    def _checked(cls, dialogues: list[Dialogue], value_matching: str) -> Corpus:
        if not dialogues:
            raise InputError("the corpus is empty: there is no dialogue to score")
        seen = set()
        for dialogue in dialogues:
            if dialogue.dialogue_id in seen:
                raise InputError("the dialogue id is used twice", dialogue=dialogue.dialogue_id)
            seen.add(dialogue.dialogue_id)
        return cls(tuple(dialogues), value_matching)


def _check_matching(value_matching: str) -> None:
    if value_matching not in VALUE_MATCHINGS:
        raise ValueError(f"value_matching must be one of {VALUE_MATCHINGS}, got {value_matching!r}")


def _turn_id(key: object, dialogue_id: object) -> int:
    """A turn id: an integer, or a string of ASCII digits ('3'; not ' 3', '1_0' or '+3')."""
    if isinstance(key, numbers.Integral) and not isinstance(key, bool):
        return int(key)
    if isinstance(key, str) and key.isascii() and key.isdigit():
        return int(key)
    raise InputError(f"a turn id must be an integer or a string of digits, got {key!r}", dialogue=dialogue_id, turn=key)


def _index_records(records: Iterable[Mapping], name: str) -> dict[tuple[str, int], object]:
    """{(dialogue_id, turn_id): state} of turn records; a bad or repeated record raises InputError."""
    by_key: dict[tuple[str, int], object] = {}
    for position, record in enumerate(records):
        if (
            type(record) is dict
            and type(record.get("dialogue_id")) is str
            and type(record.get("turn_id")) is int
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
            f"a turn record must be a mapping with 'dialogue_id', 'turn_id' and 'state', got {type(record).__name__}",
            source=where,
        )
    for field in ("dialogue_id", "turn_id", "state"):
        if field not in record:
            raise InputError(f"the turn record has no {field!r}", field=field, source=where)
    dialogue_id = record["dialogue_id"]
    if isinstance(dialogue_id, numbers.Integral) and not isinstance(dialogue_id, bool):
        dialogue_id = str(dialogue_id)  # integer ids, common in datasets, are named by their digits
    if not isinstance(dialogue_id, str):
        raise InputError(
            f"a dialogue id must be a string or an integer, got {type(dialogue_id).__name__} {dialogue_id!r}",
            field="dialogue_id",
            source=where,
        )
    turn_id = record["turn_id"]
    if isinstance(turn_id, bool) or not isinstance(turn_id, numbers.Integral):
        raise InputError(
            f"a turn id must be an integer, got {type(turn_id).__name__} {turn_id!r}",
            dialogue=dialogue_id,
            field="turn_id",
            source=where,
        )
    return dialogue_id, int(turn_id)


def _turn_ids(keys, dialogue_id: object) -> list[int]:
    """The turn ids of a dialogue's keys (see `_turn_id`), digit strings converted in bulk."""
    if all(type(key) is str and key.isdigit() and key.isascii() for key in keys):
        return list(map(int, keys))
    return [_turn_id(key, dialogue_id) for key in keys]


def _layout_turns(dialogue_id: object, turns: object) -> tuple[list[int], list, list]:
    """Turn ids, gold states and predicted states of one dialogue of the reference layout."""
    if not isinstance(turns, Mapping):
        raise InputError(f"a dialogue must map turn ids to turns, got {type(turns).__name__}", dialogue=dialogue_id)
    turn_ids = _turn_ids(turns, dialogue_id)
    values = turns.values()
    try:  # the common case, checked in bulk; any problem is found and named below
        return turn_ids, [t[GOLD_FIELD] for t in values], [t[PRED_FIELD] for t in values]
    except (TypeError, KeyError):
        pass
    golds, preds = [], []
    for turn_key, turn in turns.items():
        if not isinstance(turn, Mapping):
            raise InputError(
                f"a turn must be a mapping with 'gt' and 'pr', got {type(turn).__name__}",
                dialogue=dialogue_id,
                turn=turn_key,
            )
        for side in (GOLD_FIELD, PRED_FIELD):
            if side not in turn:
                raise InputError(f"the turn has no {side!r} state", dialogue=dialogue_id, turn=turn_key, field=side)
        golds.append(turn[GOLD_FIELD])
        preds.append(turn[PRED_FIELD])
    return turn_ids, golds, preds


class _Builder:
    """Normalizes the turns of one dialogue after another, reusing unchanged states."""

    def __init__(self, value_matching: str, linearized: LinearizedFormat | None) -> None:
        self.matching = value_matching
        self.linearized = linearized
        self.slot_names: dict = {}  # see plain_state

    def dialogue(self, dialogue_id: str, turn_ids: list[int], golds: list, preds: list) -> Dialogue:
        """Validate and normalize one dialogue; turns are put in the order of their ids."""
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
        gold, gold_plain = self._side(dialogue_id, turn_ids, golds, GOLD_FIELD, True)
        pred, _ = self._side(dialogue_id, turn_ids, preds, PRED_FIELD, False, (golds, gold, gold_plain))
        return Dialogue(dialogue_id, tuple(turn_ids), tuple(gold), tuple(pred))

    def _side(
        self,
        dialogue_id: str,
        turn_ids: list[int],
        raws: list,
        field: str,
        gold: bool,
        twin: tuple[list, list, list] | None = None,
    ) -> tuple[list, list]:
        """Normalized states of one side, and for each turn whether its input held only strings.

        An input equal to the previous turn's, or (for predictions) to the gold input of the same
        turn, reuses that state object; `==` on inputs of strings only means equal states. Raw
        JSON (msgspec.Raw) is compared as bytes and decoded only when it differs.
        """
        states: list = []
        plains: list = []
        previous_raw = previous = None
        plain = False
        exact = self.matching == "exact"
        twin_raws, twin_states, twin_plains = twin if twin is not None else (None, None, None)
        for index, (turn_id, raw) in enumerate(zip(turn_ids, raws)):
            if plain and raw == previous_raw:
                states.append(previous)
                plains.append(True)
                continue
            previous_raw = raw
            if twin is not None and twin_plains[index] and raw == twin_raws[index]:
                previous = twin_states[index]
                plain = True
            else:
                previous, plain = self._state(dialogue_id, turn_id, raw, field, gold, exact)
            states.append(previous)
            plains.append(plain)
        return states, plains

    def _state(self, dialogue_id: str, turn_id: int, raw: object, field: str, gold: bool, exact: bool):
        if _msgspec is not None and type(raw) is _msgspec.Raw:
            raw = _msgspec.json.decode(raw)
        state = plain_state(raw, self.slot_names) if exact and type(raw) is dict else None
        if state is not None:
            return state, True
        try:
            state = normalize_state(raw, gold=gold, matching=self.matching, field=field, linearized=self.linearized)
        except InputError as error:
            raise InputError(error.problem, dialogue=dialogue_id, turn=turn_id, field=error.field) from None
        return state, False


def read_json(path: str | Path) -> object:
    """Read a JSON file (with msgspec where installed). Raises InputError on invalid JSON."""
    data = Path(path).read_bytes()
    try:
        return _msgspec.json.decode(data) if _msgspec is not None else json.loads(data)
    except ValueError as error:  # msgspec.DecodeError and json.JSONDecodeError are ValueErrors
        raise InputError(f"not valid JSON: {error}", source=str(path)) from None


if _msgspec is not None:

    class _RawTurn(_msgspec.Struct):
        """A turn of the reference layout whose states stay undecoded JSON until needed."""

        gt: _msgspec.Raw
        pr: _msgspec.Raw

    _RAW_LAYOUT = _msgspec.json.Decoder(dict[str, dict[str, _RawTurn]])


def load_reference_file(
    path: str | Path, *, value_matching: str = "exact", linearized: LinearizedFormat | None = None
) -> Corpus:
    """Read a file in the reference layout ``{dialogue_id: {turn_id: {"gt": …, "pr": …}}}``.

    The fast path keeps every state as raw JSON and decodes only the states that differ from
    the previous turn's; anything unusual goes through `Corpus.from_reference_layout`, whose
    errors name the file, dialogue, turn and field.
    """
    _check_matching(value_matching)
    try:
        with _gc_paused():
            if _msgspec is not None:
                data = Path(path).read_bytes()
                try:
                    layout = _RAW_LAYOUT.decode(data)
                except _msgspec.ValidationError:
                    pass  # valid JSON of another shape: the general path names the problem
                except _msgspec.DecodeError as error:
                    raise InputError(f"not valid JSON: {error}", source=str(path)) from None
                else:
                    return _corpus_from_raw_layout(layout, value_matching, linearized)
            return Corpus.from_reference_layout(read_json(path), value_matching=value_matching, linearized=linearized)
    except InputError as error:
        raise (error if error.source == str(path) else error.within(str(path))) from None


def _corpus_from_raw_layout(layout: dict, value_matching: str, linearized: LinearizedFormat | None) -> Corpus:
    builder = _Builder(value_matching, linearized)
    dialogues = []
    for dialogue_id, turns in layout.items():
        values = turns.values()
        turn_ids = _turn_ids(turns, dialogue_id)
        golds = [turn.gt for turn in values]
        preds = [turn.pr for turn in values]
        dialogues.append(builder.dialogue(dialogue_id, turn_ids, golds, preds))
    return Corpus._checked(dialogues, value_matching)
