"""Corpora of dialogues, built from every input layout we accept and validated once.

All validation happens here, before any figure is computed: a bad state, a missing side, an
unpaired or duplicated turn raises `InputError` naming the dialogue, turn and field.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .states import VALUE_MATCHINGS, LinearizedFormat, State, normalize_state, plain_state

try:  # orjson parses reference files several times faster than the standard library
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised only where orjson is missing
    _orjson = None

GOLD_FIELD = "gt"
PRED_FIELD = "pr"


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
        dialogues = []
        for dialogue_id, turns in data.items():
            if not isinstance(turns, Mapping):
                raise InputError(
                    f"a dialogue must map turn ids to turns, got {type(turns).__name__}",
                    dialogue=dialogue_id,
                )
            ordered = []
            for turn_key, turn in turns.items():
                turn_id = _turn_id(turn_key, dialogue_id)
                if not isinstance(turn, Mapping):
                    raise InputError(
                        f"a turn must be a mapping with 'gt' and 'pr', got {type(turn).__name__}",
                        dialogue=dialogue_id,
                        turn=turn_key,
                    )
                for side in (GOLD_FIELD, PRED_FIELD):
                    if side not in turn:
                        raise InputError(
                            f"the turn has no {side!r} state", dialogue=dialogue_id, turn=turn_key, field=side
                        )
                ordered.append((turn_id, turn[GOLD_FIELD], turn[PRED_FIELD]))
            dialogues.append(builder.dialogue(str(dialogue_id), ordered))
        return cls._checked(dialogues, value_matching)

    @classmethod
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
            raise InputError(
                f"{len(predictions)} predicted dialogues but {len(references)} reference dialogues"
            )
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
            ordered = [(i, g, p) for i, (g, p) in enumerate(zip(gold_turns, pred_turns))]
            dialogues.append(builder.dialogue(str(dialogue_id), ordered))
        return cls._checked(dialogues, value_matching)

    @classmethod
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
                    raise InputError(
                        f"this turn has no partner in {name}", dialogue=key[0], turn=key[1]
                    )
        grouped: dict[str, list] = {}
        for key in sorted(gold_by_key):
            grouped.setdefault(key[0], []).append((key[1], gold_by_key[key], pred_by_key[key]))
        builder = _Builder(value_matching, linearized)
        dialogues = [builder.dialogue(d, turns) for d, turns in grouped.items()]
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
    if isinstance(key, bool):
        raise InputError(f"a turn id must be an integer, got {key!r}", dialogue=dialogue_id, turn=key)
    if isinstance(key, numbers.Integral):
        return int(key)
    if isinstance(key, str):
        try:
            return int(key)
        except ValueError:
            pass
    raise InputError(
        f"a turn id must be an integer or an integer string, got {key!r}", dialogue=dialogue_id, turn=key
    )


def _index_records(records: Iterable[Mapping], name: str) -> dict[tuple[str, int], object]:
    by_key: dict[tuple[str, int], object] = {}
    for position, record in enumerate(records):
        where = f"{name}[{position}]"
        if not isinstance(record, Mapping):
            raise InputError(
                f"a turn record must be a mapping with 'dialogue_id', 'turn_id' and 'state', "
                f"got {type(record).__name__}",
                source=where,
            )
        for field in ("dialogue_id", "turn_id", "state"):
            if field not in record:
                raise InputError(f"the turn record has no {field!r}", field=field, source=where)
        dialogue_id = record["dialogue_id"]
        if not isinstance(dialogue_id, str):
            raise InputError(
                f"a dialogue id must be a string, got {type(dialogue_id).__name__} {dialogue_id!r}",
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
        key = (dialogue_id, int(turn_id))
        if key in by_key:
            raise InputError(
                f"this (dialogue_id, turn_id) appears twice in {name}",
                dialogue=dialogue_id,
                turn=key[1],
                source=where,
            )
        by_key[key] = record["state"]
    return by_key


class _Builder:
    """Normalizes the turns of one dialogue after another, reusing unchanged states."""

    def __init__(self, value_matching: str, linearized: LinearizedFormat | None) -> None:
        self.matching = value_matching
        self.linearized = linearized

    def dialogue(self, dialogue_id: str, turns: list[tuple[int, object, object]]) -> Dialogue:
        if not turns:
            raise InputError("the dialogue has no turns", dialogue=dialogue_id)
        turns.sort(key=lambda turn: turn[0])
        turn_ids = tuple(turn[0] for turn in turns)
        for before, after in zip(turn_ids, turn_ids[1:]):
            if before == after:
                raise InputError("the turn id is used twice", dialogue=dialogue_id, turn=after)
        gold = self._side(dialogue_id, turns, 1, GOLD_FIELD, True)
        pred = self._side(dialogue_id, turns, 2, PRED_FIELD, False)
        return Dialogue(dialogue_id, turn_ids, gold, pred)

    def _side(self, dialogue_id, turns, index, field, gold) -> tuple[State, ...]:
        states = []
        previous_raw = previous = None
        plain = False  # the previous raw state held only strings, so `==` means the same state
        exact = self.matching == "exact"
        for turn in turns:
            raw = turn[index]
            if plain and raw == previous_raw:
                states.append(previous)
                continue
            state = plain_state(raw) if exact and type(raw) is dict else None
            plain = state is not None
            if state is None:
                try:
                    state = normalize_state(
                        raw, gold=gold, matching=self.matching, field=field, linearized=self.linearized
                    )
                except InputError as error:
                    raise InputError(
                        error.problem, dialogue=dialogue_id, turn=turn[0], field=error.field
                    ) from None
            previous_raw, previous = raw, state
            states.append(state)
        return tuple(states)


def read_json(path: str | Path) -> object:
    """Read a JSON file, with orjson where it is installed. Raises InputError on invalid JSON."""
    data = Path(path).read_bytes()
    try:
        return _orjson.loads(data) if _orjson is not None else json.loads(data)
    except ValueError as error:  # orjson.JSONDecodeError and json.JSONDecodeError are ValueErrors
        raise InputError(f"not valid JSON: {error}", source=str(path)) from None


def load_reference_file(
    path: str | Path, *, value_matching: str = "exact", linearized: LinearizedFormat | None = None
) -> Corpus:
    """Read a file in the reference layout ``{dialogue_id: {turn_id: {"gt": …, "pr": …}}}``."""
    data = read_json(path)
    try:
        return Corpus.from_reference_layout(data, value_matching=value_matching, linearized=linearized)
    except InputError as error:
        raise error.within(str(path)) from None
