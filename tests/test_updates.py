"""Turn-level updates (`dst_metrics.updates`): accumulation, its inverse, and the detector."""

from __future__ import annotations

import doctest
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics import Corpus, score, updates
from dst_metrics.errors import InputError
from dst_metrics.readers import read
from dst_metrics.updates import (
    accumulate,
    accumulate_layout,
    apply_update,
    is_deletion,
    looks_like_updates,
    updates_from_states,
    vanishing_share,
)
from tests.conftest import REFERENCE, requires_shared

FILES = [
    REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_attraction.json",
    REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json",
    REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json",
]

slots = st.sampled_from(["hotel-area", "hotel-stars", "hotel-book people", "train-day", "taxi-leaveat"])
values = st.sampled_from(["north", "4", "2", "dontcare", "none", "", "monday"])
cumulative = st.lists(st.dictionaries(slots, values, max_size=5), max_size=8)


def test_docstring_example():
    assert doctest.testmod(updates).failed == 0


@settings(max_examples=300, deadline=None)
@given(cumulative)
def test_updates_accumulate_back_to_the_states(states):
    assert accumulate({"d": updates_from_states(states)})["d"] == states


@settings(max_examples=200, deadline=None)
@given(cumulative, st.sampled_from(["[DELETE]", "[delete]"]))
def test_delete_markers_remove_like_null(states, marker):
    marked = [
        {slot: marker if value is None else value for slot, value in update.items()}
        for update in updates_from_states(states)
    ]
    by_turn_id = {str(index): update for index, update in enumerate(marked)}
    assert accumulate({"d": by_turn_id})["d"] == {str(index): state for index, state in enumerate(states)}


@settings(max_examples=200, deadline=None)
@given(cumulative)
def test_an_update_only_touches_its_slots(states):
    for state, update in zip(states, updates_from_states(states)):
        after = apply_update(state, update)
        for slot in state.keys() - update.keys():
            assert after[slot] == state[slot]


def test_turns_applied_in_turn_id_order_and_nested_updates():
    result = accumulate({"d": {"10": {"hotel-area": None}, "2": {"hotel": {"area": "north", "stars": 4}}, "9": {}}})
    assert list(result["d"]) == ["10", "2", "9"]  # the input's keys, each with its accumulated state
    assert result["d"]["2"] == {"hotel-area": "north", "hotel-stars": 4}
    assert result["d"]["9"] == {"hotel-area": "north", "hotel-stars": 4}
    assert result["d"]["10"] == {"hotel-stars": 4}


def test_deletion_values():
    assert is_deletion(None) and is_deletion("[DELETE]") and is_deletion("[Delete]")
    assert not is_deletion("none") and not is_deletion("") and not is_deletion("delete")


def test_bad_updates_are_input_errors():
    with pytest.raises(InputError, match="must be an object"):
        accumulate({"d": ["hotel-area=north"]})
    with pytest.raises(InputError, match="turn id"):
        accumulate({"d": {"first": {}}})
    with pytest.raises(InputError, match="list of updates"):
        accumulate({"d": 3})


def _updates_layout(layout: dict) -> dict:
    """The layout with each predicted state replaced by its update from the turn before (nulls)."""
    out = {}
    for name, turns in layout.items():
        keys = sorted(turns, key=int)
        flat = [
            {f"{d}-{s}": v for d, slot_values in turns[k]["pr"].items() for s, v in slot_values.items()} for k in keys
        ]
        out[name] = {k: {"gt": turns[k]["gt"], "pr": u} for k, u in zip(keys, updates_from_states(flat))}
    return out


@requires_shared
@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_accumulated_updates_score_as_the_cumulative_file(path):
    layout = json.loads(path.read_text())
    update_layout = _updates_layout(layout)
    assert update_layout != layout
    accumulated = Corpus.from_reference_layout(accumulate_layout(update_layout))
    plain = score(read(path)).scores.as_dict()
    assert score(accumulated).scores.as_dict() == plain
    # and the detector tells the two apart ("[DELETE]" for null: a corpus holds strings only)
    marked = {
        name: {
            k: {"gt": t["gt"], "pr": {s: "[DELETE]" if v is None else v for s, v in t["pr"].items()}}
            for k, t in turns.items()
        }
        for name, turns in update_layout.items()
    }
    assert looks_like_updates(Corpus.from_reference_layout(marked))
    assert not looks_like_updates(read(path))
    assert looks_like_updates({name: {k: t["pr"] for k, t in turns.items()} for name, turns in update_layout.items()})
    assert not looks_like_updates({name: {k: t["pr"] for k, t in turns.items()} for name, turns in layout.items()})


def test_vanishing_share_on_a_small_corpus():
    gold = [
        {"hotel-area": "north"},
        {"hotel-area": "north", "hotel-stars": "4"},
        {"hotel-area": "north", "hotel-stars": "4"},
    ]
    cumulative_pred = [
        {"hotel-area": "north"},
        {"hotel-area": "north", "hotel-stars": "4"},
        {"hotel-area": "north", "hotel-stars": "4"},
    ]
    update_pred = [{"hotel-area": "north"}, {"hotel-stars": "4"}, {}]
    no_chance = [{}, {}, {}]
    corpus = Corpus.from_dialogues([cumulative_pred, update_pred, no_chance], [gold, gold, gold])
    assert vanishing_share(corpus) == 0.5  # one of the two dialogues with a chance
    assert not looks_like_updates(corpus)
    assert looks_like_updates(Corpus.from_dialogues([update_pred], [gold]))
