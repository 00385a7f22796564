"""The Arrow codec of the `evaluate` modules: a Corpus as rows, one per turn, and back.

Needs only pyarrow and numpy (not `evaluate` or `datasets`), so it is tested on its own. Each row
holds a turn's predicted and gold side: the dialogue id, the turn id and the state as a list of
slot/value entries (a gold entry may carry several acceptable values). States the core shares
between consecutive turns are encoded once and shared again when decoded.

evaluate stores, gathers and reads back the rows of several batches as one cache row: each side's
turns as one Arrow IPC stream (`side_stream`, `streams_column`), so evaluate sees flat binary values.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from itertools import compress

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._gc import without_gc
from ..corpus import Corpus, Dialogue, check_no_deletions, dialogues_read, snap_dialogues, text_matching
from ..errors import InputError
from ..options import parse_value_matching, reading_parts
from ..states import Alternatives, State, normalize_state

ENTRY_FIELDS = ("slot", "values")
STATE_TYPE = pa.list_(pa.struct([("slot", pa.string()), ("values", pa.list_(pa.string()))]))
"""A state: its slot/value entries; ``values`` holds one value, or a gold slot's acceptable values."""
TURN_TYPE = pa.struct([("dialogue_id", pa.string()), ("turn_id", pa.int64()), ("state", STATE_TYPE)])
SCHEMA = pa.schema([("predictions", TURN_TYPE), ("references", TURN_TYPE)])
"""The rows evaluate caches and gathers: a turn's predicted and gold side (same dialogue and turn)."""


def _state_array(states: list[State]) -> pa.ListArray:
    """Normalized states as a list<struct<slot, values: list<string>>> array.

    A state object repeated on consecutive rows (the core shares unchanged states) is encoded
    once and repeated by Arrow.
    """
    changed = list(map(operator.is_not, states, [None, *states[:-1]]))
    distinct = list(compress(states, changed))
    offsets = [0]
    slots: list[str] = []
    values: list = []
    end = offsets.append
    for state in distinct:
        slots += state
        values += state.values()
        end(len(slots))
    if set(map(type, values)) <= {str}:
        value_array = pa.ListArray.from_arrays(
            np.arange(len(values) + 1, dtype=np.int32), pa.array(values, pa.string())
        )
    else:  # gold with several acceptable values
        value_offsets = [0]
        flat: list[str] = []
        for value in values:
            if value.__class__ is str:
                flat.append(value)
            else:
                flat += value.order
            value_offsets.append(len(flat))
        value_array = pa.ListArray.from_arrays(pa.array(value_offsets, pa.int32()), pa.array(flat, pa.string()))
    entries = pa.StructArray.from_arrays([pa.array(slots, pa.string()), value_array], names=ENTRY_FIELDS)
    array = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), entries)
    if len(distinct) < len(states):
        array = array.take(pa.array(np.cumsum(changed) - 1))
    return array


def corpus_table(corpus: Corpus) -> pa.Table:
    """A validated corpus as Arrow rows in `FEATURES` layout, one per turn."""
    dialogue_ids: list[str] = []
    turn_ids: list[int] = []
    gold: list[State] = []
    pred: list[State] = []
    for dialogue in corpus.dialogues:
        dialogue_ids += [dialogue.dialogue_id] * len(dialogue.turn_ids)
        turn_ids += dialogue.turn_ids
        gold += dialogue.gold
        pred += dialogue.pred
    ids = pa.array(dialogue_ids, pa.string())
    turns = pa.array(turn_ids, pa.int64())
    names = [field.name for field in TURN_TYPE]
    return pa.Table.from_arrays(
        [
            pa.StructArray.from_arrays([ids, turns, _state_array(pred)], names=names),
            pa.StructArray.from_arrays([ids, turns, _state_array(gold)], names=names),
        ],
        schema=SCHEMA,
    )


STREAM_SCHEMA = pa.schema([("turns", TURN_TYPE)])
"""The schema of a `side_stream`: one side's turns."""


def side_stream(column: pa.ChunkedArray | pa.Array) -> bytes:
    """One side of `SCHEMA` rows (a column of `TURN_TYPE`) as an Arrow IPC stream."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, STREAM_SCHEMA) as writer:
        writer.write_table(pa.Table.from_arrays([column], schema=STREAM_SCHEMA))
    return sink.getvalue().to_pybytes()


def streams_column(streams: Iterable[bytes] | pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    """The turns of `side_stream` streams (bytes, or a binary Arrow array: read without a copy), in
    order, as one column of `TURN_TYPE`."""
    if isinstance(streams, (pa.Array, pa.ChunkedArray)):
        streams = [value.as_buffer() for value in streams]
    chunks: list[pa.Array] = []
    for stream in streams:
        reader = pa.ipc.open_stream(stream)
        if not reader.schema.equals(STREAM_SCHEMA):
            raise InputError(f"the cached rows are not turns of this dst-metrics version: {reader.schema}")
        chunks += reader.read_all().column(0).chunks
    return pa.chunked_array(chunks, TURN_TYPE)


def _struct(column: pa.ChunkedArray | pa.Array) -> pa.StructArray:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return column


def _codes(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(code per element, distinct Python strings): equal strings become one Python object."""
    if strings.null_count:
        raise InputError("the cached rows hold a null slot or value")
    encoded = pc.dictionary_encode(strings)
    distinct = np.empty(len(encoded.dictionary), dtype=object)
    distinct[:] = encoded.dictionary.to_pylist()
    return encoded.indices.to_numpy(zero_copy_only=False), distinct


def _folded(names: np.ndarray, matching: str) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values after folding under `matching`, code of each name among them): each distinct
    value is folded once, by the core's own `normalize_state`."""
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
    """A list<struct<slot, values>> array back to normalized states (several values: Alternatives),
    their values folded under `matching` (a `text_matching`).

    `continues[i]` tells that row i is the turn after row i-1 in the same dialogue; such a row
    equal to the previous one gets the previous state object, as `Corpus` shares them.
    """
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
    prediction_states: str = "cumulative",
    gold_alternatives: str = "any",
) -> Corpus:
    """The Corpus of rows in `FEATURES` layout from any number of batches and processes.

    Rows are grouped by dialogue id and ordered by turn id; a (dialogue_id, turn_id) that occurs
    twice (e.g. added by two processes) raises InputError. Consecutive equal states of a dialogue
    become one object, as `Corpus` builds them. Predicted turn updates (``prediction_states=
    "updates"``) are accumulated and ``gold_alternatives="first"`` applied before fuzzy snapping, as
    `CorpusBuilder` does; cumulative predictions holding a deletion raise InputError.
    """
    parse_value_matching(value_matching)
    reading_parts(prediction_states, gold_alternatives)  # checked before the rows are read
    pred = _struct(predictions)
    gold = _struct(references)
    if len(gold) == 0:
        raise InputError("the corpus is empty: there is no turn to score")
    order = pc.sort_indices(
        pa.table({"d": gold.field("dialogue_id"), "t": gold.field("turn_id")}),
        sort_keys=[("d", "ascending"), ("t", "ascending")],
    )
    pred_ids, pred_turns, pred_states = pred.take(order).flatten()
    gold_ids, gold_turns, gold_states = gold.take(order).flatten()
    if not (pred_ids.equals(gold_ids) and pred_turns.equals(gold_turns)):
        raise InputError("the cached rows pair predictions and references of different turns")
    dialogue_codes, dialogue_names = _codes(gold_ids)
    turn_ids = gold_turns.to_numpy()
    continues = np.zeros(len(turn_ids), dtype=bool)
    continues[1:] = dialogue_codes[1:] == dialogue_codes[:-1]
    twice = np.flatnonzero(continues[1:] & (turn_ids[1:] == turn_ids[:-1]))
    if len(twice):
        row = int(twice[0]) + 1
        raise InputError(
            "this (dialogue_id, turn_id) was added twice (by two batches or processes)",
            dialogue=dialogue_names[dialogue_codes[row]],
            turn=int(turn_ids[row]),
        )
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
    return _read_as_asked(dialogues, value_matching, prediction_states, gold_alternatives)


def _read_as_asked(
    dialogues: tuple[Dialogue, ...], value_matching: str, prediction_states: str, gold_alternatives: str
) -> Corpus:
    """The corpus of decoded dialogues with the reading conventions applied and, with fuzzy value
    matching, predictions snapped to gold, in `CorpusBuilder`'s order; nulls of cumulative states refused."""
    reading = reading_parts(prediction_states, gold_alternatives)
    if prediction_states == "cumulative":
        check_no_deletions(dialogues)
    if reading:
        dialogues = dialogues_read(dialogues, prediction_states, gold_alternatives)
    if value_matching == "fuzzy":  # predictions snapped to gold, as CorpusBuilder does
        dialogues = snap_dialogues(dialogues)
    return Corpus(dialogues, value_matching, reading=reading)
