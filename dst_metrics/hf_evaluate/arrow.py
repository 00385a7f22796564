"""The Arrow codec of the `evaluate` modules (pyarrow and numpy only). evaluate stores one example per dialogue
(or per part added in one batch) in the layout of `EXAMPLE_TYPES`: `dialogue_examples` writes a corpus as
such examples, `encoded_examples` adds their Arrow array, `turns_of_examples` reads the stored examples back
as one row per turn and `corpus_from_arrow` makes the Corpus of those rows. States shared between turns are
encoded once and shared again when decoded.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._gc import without_gc
from ..confidences import ScoredPredictions
from ..corpus import Corpus, CorpusBuilder, Dialogue, check_no_deletions, text_matching
from ..errors import InputError
from ..reading import Reading
from ..states import Alternatives, State, normalize_state

STATE_TYPE = pa.list_(pa.struct([("slot", pa.string()), ("values", pa.list_(pa.string()))]))
"""A state's slot/value entries; ``values`` holds one value, or a gold slot's acceptable values."""
TURN_TYPE = pa.struct([("dialogue_id", pa.string()), ("turn_id", pa.int64()), ("state", STATE_TYPE)])
SCHEMA = pa.schema([("predictions", TURN_TYPE), ("references", TURN_TYPE)])
"""The rows the decoder reads: a turn's predicted and gold side (same dialogue and turn)."""

HYPOTHESES_TYPE = pa.list_(
    pa.struct([("slot", pa.string()), ("values", pa.list_(pa.string())), ("confidences", pa.list_(pa.float64()))])
)
"""A predicted turn's slots given with confidences: each value with its confidence."""
_DIALOGUE_FIELDS = [("dialogue_id", pa.string()), ("turn_ids", pa.list_(pa.int64())), ("states", pa.list_(STATE_TYPE))]
EXAMPLE_TYPES = {
    "predictions": pa.struct([*_DIALOGUE_FIELDS, ("hypotheses", pa.list_(HYPOTHESES_TYPE))]),
    "references": pa.struct(_DIALOGUE_FIELDS),
}
"""An evaluate example per side (the modules' ``features``): a dialogue (or the turns of one batch), its turn
ids and the state after each turn; predictions also each turn's hypotheses (none when no value had one)."""


_NO_HYPOTHESES: list = []


class StateEntries:
    """The ``states`` of `dialogue_examples`: a list of entry dicts per state, one dict per (slot, value) shared
    by every state that holds it. The metric keeps it from batch to batch and clears it after ``compute()``."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], dict] = {}

    def clear(self) -> None:
        self.entries.clear()

    def side(self, states: Iterable[State], made: dict[int, list[dict]]) -> list[list[dict]]:
        """The entry lists of one side's states; `made` maps the id of each state object done so far to its list
        (the core shares state objects between turns and sides)."""
        out: list[list[dict]] = []
        get = self.entries.get
        previous = found = None
        for state in states:
            if state is not previous:
                previous = state
                found = made.get(id(state))
                if found is None:
                    items = state.items()
                    found = list(map(get, items))
                    if None in found:
                        found = [entry or self.entry(item) for entry, item in zip(found, items)]
                    made[id(state)] = found
            out.append(found)  # type: ignore[arg-type]  # set at the first state
        return out

    def entry(self, item: tuple) -> dict:
        slot, value = item
        if value.__class__ is str:
            made = self.entries[item] = {"slot": slot, "values": [value]}
            return made
        return {"slot": slot, "values": list(value.order)}  # acceptable values: equal sets, other orders


class Examples(list):
    """Evaluate examples of one side with their Arrow array: evaluate checks the examples as Python, its writer
    takes the array (`metric.DialogueFeatures.encode_batch`) instead of converting every example again."""

    arrow: pa.Array


def encoded_examples(examples: list[dict], side: str) -> Examples:
    """`examples` of `side` as `Examples`, their array built by Arrow in one call."""
    out = Examples(examples)
    out.arrow = pa.array(examples, EXAMPLE_TYPES[side])
    return out


def dialogue_examples(corpus: Corpus, entries: StateEntries | None = None) -> tuple[list[dict], list[dict]]:
    """A validated corpus as evaluate examples, (predictions, references), one per dialogue; predicted values
    with confidences give the turns' hypotheses. `entries`: the entry dicts of earlier batches, to share."""
    entries = entries or StateEntries()
    made: dict[int, list[dict]] = {}
    scores = corpus.scores
    predictions: list[dict] = []
    references: list[dict] = []
    for dialogue in corpus.dialogues:
        name = dialogue.dialogue_id
        turn_ids = list(dialogue.turn_ids)
        hypotheses = _NO_HYPOTHESES
        if scores is not None:
            turns = [scores.turn(name, turn) for turn in turn_ids]
            if any(turns):
                hypotheses = [
                    [
                        {"slot": slot, "values": [value for value, _ in pairs], "confidences": [c for _, c in pairs]}
                        for slot, pairs in scored.items()
                    ]
                    for scored in turns
                ]
        references.append({"dialogue_id": name, "turn_ids": turn_ids, "states": entries.side(dialogue.gold, made)})
        predicted = entries.side(dialogue.pred, made)
        predictions.append({"dialogue_id": name, "turn_ids": turn_ids, "states": predicted, "hypotheses": hypotheses})
    return predictions, references


def _combined(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    return column


def _examples(column: pa.ChunkedArray | pa.Array, side: str, names: tuple[str, ...]) -> list[pa.Array]:
    """The fields `names` of a column of stored examples of `side`, checked; only those fields are gathered."""
    if not column.type.equals(EXAMPLE_TYPES[side]):
        raise InputError(f"the cached {side} are not dialogues of this dst-metrics version: {column.type}")
    return [_combined(pc.struct_field(column, name)) for name in names]


def turns_of_examples(column: pa.ChunkedArray | pa.Array, side: str) -> pa.StructArray:
    """The turns of stored examples of `side` as one `TURN_TYPE` row each, in order (`corpus_from_arrow` reads them)."""
    dialogue_ids, turn_ids, states = _examples(column, side, ("dialogue_id", "turn_ids", "states"))
    if not pc.list_value_length(turn_ids).equals(pc.list_value_length(states)):
        raise InputError(f"the cached {side} hold a dialogue whose turn_ids and states differ in number")
    ids = dialogue_ids.take(pc.list_parent_indices(turn_ids))
    names = [field.name for field in TURN_TYPE]
    return pa.StructArray.from_arrays([ids, turn_ids.flatten(), states.flatten()], names=names)


def hypotheses_of_examples(column: pa.ChunkedArray | pa.Array) -> ScoredPredictions | None:
    """The confidences of stored predicted examples, or None when no value carried one."""
    dialogue_ids, turn_ids, hypotheses = _examples(column, "predictions", ("dialogue_id", "turn_ids", "hypotheses"))
    scored = np.flatnonzero(pc.list_value_length(hypotheses).to_numpy(zero_copy_only=False) > 0)
    if not len(scored):
        return None
    rows = pa.array(scored)
    scores = ScoredPredictions()
    for name, turns, turn_hypotheses in zip(
        dialogue_ids.take(rows).to_pylist(), turn_ids.take(rows).to_pylist(), hypotheses.take(rows).to_pylist()
    ):
        for turn, slots in zip(turns, turn_hypotheses):
            if slots:
                scores.add_turn(name, turn, {s["slot"]: tuple(zip(s["values"], s["confidences"])) for s in slots})
    return scores


def _codes(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(code per element, distinct Python strings): equal strings become one Python object."""
    if strings.null_count:
        raise InputError("the cached rows hold a null slot or value")
    encoded = pc.dictionary_encode(strings)
    distinct = np.empty(len(encoded.dictionary), dtype=object)
    distinct[:] = encoded.dictionary.to_pylist()
    return encoded.indices.to_numpy(zero_copy_only=False), distinct


def _folded(names: np.ndarray, matching: str) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values after folding under `matching`, code of each name among them), by `normalize_state`."""
    folded: dict[str, int] = {}
    remap = np.array(
        [
            folded.setdefault(normalize_state({"s": name}, gold=False, matching=matching)["s"], len(folded))
            for name in names
        ],
        dtype=np.int64,
    )
    distinct = np.empty(len(folded), dtype=object)
    distinct[:] = list(folded)
    return distinct, remap


def _decode_states(states: pa.ListArray, continues: np.ndarray, gold: bool, matching: str) -> list[State]:
    """A list<struct<slot, values>> array back to states (several values: Alternatives) folded under
    `matching`. A row equal to the previous turn of its dialogue (`continues`) gets its state object."""
    offsets = states.offsets.to_numpy().astype(np.int64)
    offsets -= offsets[0]
    starts, ends = offsets[:-1], offsets[1:]
    slot_array, values_array = states.flatten().flatten()
    slot_codes, slot_names = _codes(slot_array)
    flat_values = values_array.flatten()
    if len(flat_values) == len(values_array):  # one value per entry (value lists are never empty)
        value_codes, value_names = _codes(flat_values)
        if matching != "exact":
            value_names, remap = _folded(value_names, matching)
            value_codes = remap[value_codes]
        values = value_names[value_codes].tolist()
        # Entry k of a row equals entry k of the row before: same codes, one row length earlier.
        lengths = ends - starts
        same = np.zeros(len(lengths), dtype=bool)
        same[1:] = continues[1:] & (lengths[1:] == lengths[:-1])
        entry = np.arange(len(slot_codes))
        earlier = np.maximum(entry - np.repeat(lengths, lengths), 0)
        differs = (slot_codes != slot_codes[earlier]) | (value_codes != value_codes[earlier])
        differing = np.concatenate(([0], np.cumsum(differs)))
        same &= differing[ends] == differing[starts]
    else:
        values = [items[0] if len(items) == 1 else Alternatives(items) for items in values_array.to_pylist()]
        same = None
    slots = slot_names[slot_codes].tolist()
    if same is None:  # several acceptable values: each distinct state normalized again under `matching`
        out, previous, previous_row = [], None, None
        for start, end, follows in zip(starts.tolist(), ends.tolist(), continues.tolist()):
            row = dict(zip(slots[start:end], values[start:end]))
            if not (follows and row == previous_row):
                state = row if matching == "exact" else _renormalized(row, gold, matching)
                previous = previous if follows and state == previous else state
                previous_row = row
            out.append(previous)
        return out
    new = ~same
    built = np.empty(int(new.sum()), dtype=object)
    built[:] = [dict(zip(slots[a:b], values[a:b])) for a, b in zip(starts[new].tolist(), ends[new].tolist())]
    return built[np.cumsum(new) - 1].tolist()


def _renormalized(state: State, gold: bool, matching: str) -> State:
    raw = {slot: list(value.order) if isinstance(value, Alternatives) else value for slot, value in state.items()}
    return normalize_state(raw, gold=gold, matching=matching)


@without_gc
def corpus_from_arrow(
    predictions: pa.ChunkedArray | pa.Array,
    references: pa.ChunkedArray | pa.Array,
    value_matching: str = "exact",
    **reading_settings: Any,
) -> Corpus:
    """The Corpus of rows in `SCHEMA` layout from any number of batches and processes: rows grouped by dialogue
    id and ordered by turn id, then read as `CorpusBuilder` reads every input, with the `Reading` settings given
    (``prediction_states="updates"``, ...). A (dialogue_id, turn_id) that occurs twice raises InputError."""
    reading = Reading(value_matching=value_matching, **reading_settings)  # checked before the rows are read
    pred = _combined(predictions)
    gold = _combined(references)
    if len(gold) == 0:
        raise InputError("the corpus is empty: there is no turn to score")
    grouped = _grouped(pred, gold)
    sorted_rows = _sorted(pred, gold) if grouped is None else grouped
    dialogue_codes, dialogue_names, turn_ids, continues, pred_states, gold_states = sorted_rows
    matching = text_matching(value_matching)
    golds = _decode_states(gold_states, continues, True, matching)
    preds = _decode_states(pred_states, continues, False, matching)
    bounds = [*np.flatnonzero(~continues).tolist(), len(turn_ids)]
    turns = turn_ids.tolist()
    dialogues = tuple(
        Dialogue(
            dialogue_names[dialogue_codes[start]],
            tuple(turns[start:end]),
            tuple(golds[start:end]),
            tuple(preds[start:end]),
        )
        for start, end in zip(bounds, bounds[1:])
    )
    if grouped is not None:  # in order of dialogue id, as the sorted rows give them
        dialogues = tuple(sorted(dialogues, key=operator.attrgetter("dialogue_id")))
    return _read_as_asked(dialogues, reading)


def _sorted(pred: pa.StructArray, gold: pa.StructArray) -> tuple:
    """`_paired_rows` sorted by (dialogue_id, turn_id); a (dialogue_id, turn_id) added twice raises InputError."""
    order = pc.sort_indices(
        pa.table({"d": gold.field("dialogue_id"), "t": gold.field("turn_id")}),
        sort_keys=[("d", "ascending"), ("t", "ascending")],
    )
    rows = _paired_rows(pred.take(order), gold.take(order))
    if rows is None:
        raise InputError("the cached rows pair predictions and references of different turns")
    dialogue_codes, dialogue_names, turn_ids, continues = rows[:4]
    twice = np.flatnonzero(continues[1:] & (turn_ids[1:] == turn_ids[:-1]))
    if len(twice):
        row = int(twice[0]) + 1
        raise InputError(
            "this (dialogue_id, turn_id) was added twice (by two batches or processes)",
            dialogue=dialogue_names[dialogue_codes[row]],
            turn=int(turn_ids[row]),
        )
    return rows


def _grouped(pred: pa.StructArray, gold: pa.StructArray) -> tuple | None:
    """The `_paired_rows` of rows that need no sorting (each dialogue's rows together, turn ids increasing)."""
    rows = _paired_rows(pred, gold)
    if rows is None:
        return None
    dialogue_names, turn_ids, continues = rows[1:4]
    if len(turn_ids) - int(continues.sum()) != len(dialogue_names):  # a dialogue in two places
        return None
    if not bool(np.all(turn_ids[1:][continues[1:]] > turn_ids[:-1][continues[1:]])):
        return None
    return rows


def _paired_rows(pred: pa.StructArray, gold: pa.StructArray) -> tuple | None:
    """(dialogue codes, dialogue names, turn ids, continues, predicted states, gold states) of rows whose sides
    hold the same turns in the same order, else None; `continues[i]`: row i is in row i-1's dialogue."""
    pred_ids, pred_turns, pred_states = pred.flatten()
    gold_ids, gold_turns, gold_states = gold.flatten()
    if not (pred_ids.equals(gold_ids) and pred_turns.equals(gold_turns)):
        return None
    dialogue_codes, dialogue_names = _codes(gold_ids)
    turn_ids = gold_turns.to_numpy()
    continues = np.zeros(len(turn_ids), dtype=bool)
    continues[1:] = dialogue_codes[1:] == dialogue_codes[:-1]
    return dialogue_codes, dialogue_names, turn_ids, continues, pred_states, gold_states


def _read_as_asked(dialogues: tuple[Dialogue, ...], reading: Reading) -> Corpus:
    """The corpus of decoded dialogues, finished by `CorpusBuilder` as every input is."""
    if reading.prediction_states == "cumulative":
        check_no_deletions(dialogues)
    builder = CorpusBuilder(reading)
    for dialogue in dialogues:
        builder.add_states(dialogue.dialogue_id, dialogue.turn_ids, dialogue.gold, dialogue.pred)
    return builder.corpus()
