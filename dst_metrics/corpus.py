"""The data model: a corpus of dialogues, each with turn ids and normalized gold and predicted
states. No file reading here (see `dst_metrics.readers`); the constructors take Python objects
and validate everything before any figure is computed: a bad state, a missing side, an unpaired
or duplicated turn raises `InputError` naming the dialogue, turn and field.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import TYPE_CHECKING

from . import ids
from ._gc import without_gc
from .errors import InputError, describe
from .states import LinearizedFormat, State

if TYPE_CHECKING:
    from .calibration.extract import ScoredPredictions


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
    """Dialogues ready to score, with the value matching their states were normalized under.

    `listed_gold_slots`: where the gold format lists unset slots too (ConvLab-3's unified format,
    with ``""``), which the reader drops from the states: every slot the gold listed, set or not
    (the ``convlab`` profile visits them); None for other formats.
    """

    dialogues: tuple[Dialogue, ...]
    value_matching: str = "exact"
    listed_gold_slots: frozenset[str] | None = dataclass_field(default=None, compare=False)
    scores: ScoredPredictions | None = dataclass_field(default=None, compare=False, repr=False)
    """Confidences of predicted values, when the predictions carry them (`dst_metrics.calibration`)."""

    @property
    def num_turns(self) -> int:
        """Number of turns over all dialogues."""
        return sum(len(d) for d in self.dialogues)

    def __len__(self) -> int:
        return len(self.dialogues)

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
        value_matching: str = "exact",
        linearized: LinearizedFormat | None = None,
    ) -> Corpus:
        """Build from parallel lists of dialogues, each a list of states (turn ids 0, 1, ...)."""
        from .build import CorpusBuilder

        builder = CorpusBuilder(value_matching, linearized)
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
        *,
        value_matching: str = "exact",
        linearized: LinearizedFormat | None = None,
    ) -> Corpus:
        """Build from turn records ``{"dialogue_id": str, "turn_id": int, "state": state}`` in any
        order. Every (dialogue_id, turn_id) must appear exactly once on each side. Dialogues come
        out sorted by id, so the result does not depend on the order of the records."""
        from .build import CorpusBuilder

        builder = CorpusBuilder(value_matching, linearized)
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
    def from_reference_layout(
        cls, data: object, *, value_matching: str = "exact", linearized: LinearizedFormat | None = None
    ) -> Corpus:
        """Build from the parsed reference layout ``{dialogue_id: {turn_id: {"gt": …, "pr": …}}}``
        (see `dst_metrics.readers.reference`)."""
        from .readers.reference import corpus_from_layout

        return corpus_from_layout(data, value_matching=value_matching, linearized=linearized)


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
