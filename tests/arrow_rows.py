"""Arrow rows of a corpus in the `SCHEMA` layout of `dst_metrics.hf_evaluate.arrow`, one per turn: what
`corpus_from_arrow` reads, built here from a validated corpus (the modules build them from their examples
with `turns_of_examples`)."""

from __future__ import annotations

import operator
from itertools import compress

import numpy as np
import pyarrow as pa

from dst_metrics.corpus import Corpus
from dst_metrics.hf_evaluate.arrow import SCHEMA, TURN_TYPE
from dst_metrics.states import State

ENTRY_FIELDS = ("slot", "values")


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
    """A validated corpus as Arrow rows in `SCHEMA` layout, one per turn: what `corpus_from_arrow`
    reads (the modules build these rows from their examples with `turns_of_examples`)."""
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
