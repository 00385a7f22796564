"""What ``add_batch()`` receives, checked with the core. Both sides come in one shape: lists of dialogues
(each a list of states), turn records ``{"dialogue_id", "turn_id", "state"}`` in any order (a batch's
records cover the same turns on both sides), or linearized strings, one per turn, grouped into dialogues
by ``dialogue_ids`` (without it each string is a dialogue of one turn).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .._gc import without_gc
from ..corpus import Corpus
from ..errors import InputError, describe
from ..states import LinearizedFormat

INPUT_OPTIONS = ("dialogue_ids", "linearized")
"""Keyword arguments of ``add_batch()`` (and ``compute()``) about reading inputs."""


def linearized_format(value: LinearizedFormat | Mapping | None) -> LinearizedFormat | None:
    """A `LinearizedFormat` from itself, a mapping of its fields, or None (the default format)."""
    if value is None or isinstance(value, LinearizedFormat):
        return value
    if isinstance(value, Mapping):
        return LinearizedFormat(**value)
    raise TypeError(f"linearized must be a LinearizedFormat or a mapping of its fields, got {value!r}")


def _as_list(items: object, name: str, where: str) -> list:
    if items is None:
        raise InputError(f"{name} are missing: pass both predictions and references", source=where)
    if isinstance(items, (str, bytes, Mapping)) or not hasattr(items, "__len__"):
        raise InputError(f"{name} must be a list of dialogues or of turn records, got {describe(items)}", source=where)
    return items if isinstance(items, list) else list(items)


def _kind(item: object) -> str | None:
    if isinstance(item, Mapping):
        return "records"
    if isinstance(item, str):
        return "strings"
    if isinstance(item, Sequence) and not isinstance(item, bytes):
        return "dialogues"
    return None


def _input_kind(predictions: list, references: list, where: str) -> str:
    kinds = {}
    for name, items in (("predictions", predictions), ("references", references)):
        kind = kinds[name] = _kind(items[0])
        if kind is None:
            raise InputError(
                f"expected a dialogue (a list of states), a turn record (a mapping with 'dialogue_id', "
                f"'turn_id' and 'state') or a linearized state (a string), got {describe(items[0])}",
                source=f"{where}, {name}[0]",
            )
    if kinds["predictions"] != kinds["references"]:
        raise InputError(
            f"predictions are {kinds['predictions']} but references are {kinds['references']}: "
            "give both sides in the same shape",
            source=where,
        )
    return kinds["references"]


def _record_position(records: list, dialogue: object, turn: object) -> int | None:
    for position, record in enumerate(records):
        if isinstance(record, Mapping) and record.get("dialogue_id") == dialogue and record.get("turn_id") == turn:
            return position
    return None


def _located(error: InputError, kind: str, predictions: list, references: list, ids: list) -> InputError:
    """The core's error with the batch position of the offending dialogue or record added."""
    if error.source is not None:
        return error
    field = error.field
    sides = [("predictions", predictions), ("references", references)]
    if field is not None and field.split(".", 1)[0].split("[", 1)[0] in ("gt", "pr"):
        gold = field.startswith("gt")
        field = "state" + field[2:]
        sides = [sides[1]] if gold else [sides[0]]
    source = None
    if kind == "records" and error.dialogue is not None and error.turn is not None:
        for name, records in sides:
            position = _record_position(records, error.dialogue, error.turn)
            if position is not None:
                source = f"{name}[{position}]"
                break
    elif kind == "dialogues" and error.dialogue in ids:
        position = ids.index(error.dialogue)
        turn = "" if error.turn is None else f"[{error.turn}]"
        source = " and ".join(f"{name}[{position}]{turn}" for name, _ in sides)
    return InputError(error.problem, dialogue=error.dialogue, turn=error.turn, field=field, source=source)


class TurnEncoder:
    """Checks each ``add_batch()`` call with the core. A problem is an `InputError` raised before anything is
    written, naming the batch (``batch 0``: the first since the last ``compute()``), the position in it, the
    dialogue, the turn and the field; a (dialogue_id, turn_id) added twice is one."""

    def __init__(self, linearized: LinearizedFormat | Mapping | None = None, id_prefix: str = "") -> None:
        self.linearized = linearized_format(linearized)
        self.id_prefix = id_prefix  # keeps generated dialogue ids distinct across processes
        self.reset()

    def reset(self) -> None:
        """Forget the batches added so far (after ``compute()``)."""
        self.batches = 0
        self.dialogues = 0
        self.seen: set[tuple[str, int]] = set()
        self.next_turn: dict[str, int] = {}  # linearized strings with dialogue_ids: each dialogue's next turn id
        self.scores = None  # confidences.ScoredPredictions of the batches whose values carry confidences

    @without_gc
    def encode(
        self,
        predictions: object,
        references: object,
        *,
        dialogue_ids: Sequence[str] | None = None,
        linearized: LinearizedFormat | Mapping | None = None,
    ) -> Corpus | None:
        """One batch checked, as a Corpus (None when empty). Dialogues get `dialogue_ids`, else running numbers
        over the batches (prefixed by the process id with several processes)."""
        where = f"batch {self.batches}"
        fmt = linearized_format(linearized) or self.linearized
        predictions = _as_list(predictions, "predictions", where)
        references = _as_list(references, "references", where)
        if len(predictions) != len(references):
            raise InputError(f"{len(predictions)} predictions but {len(references)} references", source=where)
        if not references:
            self.batches += 1
            return None
        kind = _input_kind(predictions, references, where)
        numbered = kind == "dialogues" or (kind == "strings" and dialogue_ids is None)  # counted in the ids
        next_turn = None
        if kind == "strings":
            predictions, references, next_turn = self._strings(predictions, references, dialogue_ids, where)
            kind, dialogue_ids = "records", None
        corpus, ids = self._corpus(kind, predictions, references, dialogue_ids, fmt, where)
        keys = [(d.dialogue_id, turn) for d in corpus.dialogues for turn in d.turn_ids]
        if not self.seen.isdisjoint(keys):
            dialogue, turn = next(key for key in keys if key in self.seen)
            error = InputError(
                "this (dialogue_id, turn_id) was already added by an earlier batch", dialogue=dialogue, turn=turn
            )
            raise _located(error, kind, predictions, references, ids).within(where)
        if corpus.scores is not None:  # predictions with confidences: kept for the calibration figures
            if self.scores is None:
                self.scores = corpus.scores
            else:
                self.scores.update(corpus.scores)
        self.seen.update(keys)
        if next_turn is not None:
            self.next_turn = next_turn
        self.batches += 1
        self.dialogues += len(references) * numbered
        return corpus

    def _corpus(
        self, kind: str, predictions: list, references: list, dialogue_ids: Sequence[str] | None,
        fmt: LinearizedFormat | None, where: str,
    ) -> tuple[Corpus, list[str]]:  # fmt: skip
        """The batch's Corpus (its errors located in the batch) and the ids given to dialogues."""
        ids: list[str] = []
        try:
            if kind == "records":
                if dialogue_ids is not None:
                    raise InputError("dialogue_ids is for dialogue-level input; turn records carry their own")
                return Corpus.from_turn_records(predictions, references, linearized=fmt, keep_deletions=True), ids
            if dialogue_ids is None:
                ids = [f"{self.id_prefix}{self.dialogues + i}" for i in range(len(references))]
            else:
                ids = [str(d) for d in dialogue_ids]
            return Corpus.from_dialogues(
                predictions, references, dialogue_ids=ids, linearized=fmt, keep_deletions=True
            ), ids
        except InputError as error:
            raise _located(error, kind, predictions, references, ids).within(where) from None

    def _strings(
        self, predictions: list, references: list, dialogue_ids: Sequence[str] | None, where: str
    ) -> tuple[list, list, dict[str, int] | None]:
        """Linearized strings as turn records in the same positions, and each dialogue's next turn id after them.
        With `dialogue_ids` a string is the next turn of its dialogue (over batches), else turn 0 of a dialogue."""
        for name, items in (("predictions", predictions), ("references", references)):
            for position, item in enumerate(items):
                if not isinstance(item, str):
                    raise InputError(
                        f"a batch of linearized strings holds strings only, got {describe(item)}",
                        source=f"{where}, {name}[{position}]",
                    )
        following = None
        if dialogue_ids is None:
            names = [f"{self.id_prefix}{self.dialogues + i}" for i in range(len(references))]
            turns = [0] * len(names)
        else:
            names = [str(d) for d in dialogue_ids]
            if len(names) != len(references):
                raise InputError(
                    f"{len(names)} dialogue_ids for {len(references)} linearized strings: give one per string",
                    source=where,
                )
            turns = []
            following = dict(self.next_turn)
            for name in names:
                turn = following.get(name, 0)
                following[name] = turn + 1
                turns.append(turn)
        pred_records = [{"dialogue_id": d, "turn_id": t, "state": s} for d, t, s in zip(names, turns, predictions)]
        gold_records = [{"dialogue_id": d, "turn_id": t, "state": s} for d, t, s in zip(names, turns, references)]
        return pred_records, gold_records, following
