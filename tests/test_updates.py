"""Turn-level updates (`dst_metrics.generation.updates`): accumulation, its inverse, and the detector."""

from __future__ import annotations

import doctest
import json
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics import Corpus, score
from dst_metrics.cli import main
from dst_metrics.errors import InputError, describe
from dst_metrics.generation import updates
from dst_metrics.generation.updates import (
    FlatState,
    accumulate,
    apply_update,
    is_deletion,
    looks_like_updates,
    vanishing_share,
)
from dst_metrics.readers import read
from tests.conftest import REFERENCE, requires_shared

FILES = [
    REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_attraction.json",
    REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json",
    REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json",
]

slots = st.sampled_from(["hotel-area", "hotel-stars", "hotel-book people", "train-day", "taxi-leaveat"])
values = st.sampled_from(["north", "4", "2", "dontcare", "none", "", "monday"])
cumulative = st.lists(st.dictionaries(slots, values, max_size=5), max_size=8)


def accumulate_layout(data: Mapping[object, Mapping[object, Mapping]], side: str = "pr") -> dict:
    """The reference layout ``{dialogue_id: {turn_id: {"gt": …, "pr": …}}}`` with `side`'s states read
    as updates and replaced by the accumulated states (the other side untouched)."""
    if not isinstance(data, Mapping):
        raise InputError(f"expected an object of dialogues, got {describe(data)}")
    updates = {}
    for name, turns in data.items():
        if not isinstance(turns, Mapping):
            raise InputError(f"a dialogue must map turn ids to turns, got {describe(turns)}", dialogue=name)
        updates[name] = {}
        for key, turn in turns.items():
            if not isinstance(turn, Mapping) or side not in turn:
                raise InputError(f"the turn has no {side} state", dialogue=name, turn=key, field=side)
            updates[name][key] = turn[side]
    states = accumulate(updates)
    return {
        name: {key: {**turn, side: states[name][key]} for key, turn in turns.items()} for name, turns in data.items()
    }


def updates_from_states(states: Sequence[Mapping[str, object]]) -> list[FlatState]:
    """The updates that `accumulate` turns back into these flat cumulative states: each turn's new or
    changed slots, and None for each slot dropped since the turn before."""
    updates: list[FlatState] = []
    previous: Mapping[str, object] = {}
    for state in states:
        update: FlatState = {slot: value for slot, value in state.items() if previous.get(slot, _MISSING) != value}
        update.update({slot: None for slot in previous if slot not in state})
        updates.append(update)
        previous = state
    return updates


_MISSING = object()


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


def _without_signatures(record: dict) -> dict:
    return {key: value for key, value in record.items() if key not in ("signature", "signatures", "file", "inputs")}


@requires_shared
@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_a_file_of_updates_scores_as_its_cumulative_file_figure_for_figure(path, tmp_path, capsys):
    """--prediction-states updates (CLI, one process and two; Python `read`): each figure equals the
    cumulative file's, the signature says preds:updates; read as cumulative it gets the warning."""
    updates_file = tmp_path / "updates.json"
    updates_file.write_text(json.dumps(_updates_layout(json.loads(path.read_text()))))
    expected = score(read(path)).scores
    found = score(read(updates_file, prediction_states="updates")).scores
    assert dict(found) == dict(expected)
    assert found.signature == expected.signature + "|preds:updates"
    assert main(["score", "--json", "--quiet", str(path)]) == 0
    plain = json.loads(capsys.readouterr().out)
    for jobs in ("1", "2"):
        argv = ["score", "--json", "--quiet", "--jobs", jobs, "--prediction-states", "updates", str(updates_file)]
        assert main(argv) == 0
        out = capsys.readouterr()
        record = json.loads(out.out)
        assert _without_signatures(record) == _without_signatures(plain)
        assert record["signature"].endswith("|preds:updates") and "warning" not in out.err
    assert "warning" not in capsys.readouterr().err
    marked = tmp_path / "marked.json"  # [DELETE] reads as a value when cumulative: warned, not an error
    marked.write_text(updates_file.read_text().replace("null", '"[DELETE]"'))
    assert main(["score", "--quiet", str(marked)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"warning: {marked}: {updates.UPDATES_WARNING}"]
    assert main(["score", "--quiet", "--prediction-states", "updates", str(marked)]) == 0
    assert capsys.readouterr().err == ""
    assert main(["score", "--quiet", str(updates_file)]) == 2  # null in cumulative states: the option named
    assert "--prediction-states updates" in capsys.readouterr().err


@requires_shared
def test_the_evaluate_module_accumulates_updates_added_in_shuffled_batches(tmp_path):
    """Turn records of updates, shuffled and added in batches that split dialogues: compute() with
    prediction_states="updates" gives the cumulative file's figures; cumulative reading refuses nulls."""
    import random

    import evaluate

    from dst_metrics import module_path

    path = FILES[1]
    layout = _updates_layout(json.loads(path.read_text()))
    preds, refs = [], []
    for name, turns in layout.items():
        for key, turn in turns.items():
            preds.append({"dialogue_id": name, "turn_id": int(key), "state": turn["pr"]})
            refs.append({"dialogue_id": name, "turn_id": int(key), "state": turn["gt"]})
    order = list(range(len(preds)))
    random.Random(7).shuffle(order)
    metric = evaluate.load(module_path("all"), cache_dir=str(tmp_path))
    for start in range(0, len(order), 500):
        batch = order[start : start + 500]
        metric.add_batch(predictions=[preds[i] for i in batch], references=[refs[i] for i in batch])
    found = metric.compute(prediction_states="updates")
    expected = score(read(path)).scores
    for key in ("gca", "jga", "fga", "sa", "aga", "rsa"):
        assert found[key] == expected[key], key
    assert "|preds:updates" in found["signature"]
    with pytest.raises(InputError, match='prediction_states="updates"'):
        metric.compute(predictions=preds[:50], references=refs[:50])


def _apart_lines(updates_like: int) -> str:
    """25 dialogues as JSON Lines, the first `updates_like` of them predicted as per-turn updates, the
    others as gold; dialogue d00's last turn comes back after d09, where a stream stops."""
    gold = [{"hotel-area": "north"}, {"hotel-area": "north", "hotel-stars": "4"}, {"hotel-area": "north"}]
    updates = [{"hotel-area": "north"}, {"hotel-stars": "4"}, {}]
    lines = []
    for number in range(25):
        pred = updates if number < updates_like else gold
        turns = range(2) if number == 0 else range(3)
        lines += [{"dialogue_id": f"d{number:02}", "turn_id": t, "gt": gold[t], "pr": pred[t]} for t in turns]
        if number == 9:
            lines.append({"dialogue_id": "d00", "turn_id": 2, "gt": gold[2], "pr": updates[2]})
    return "".join(json.dumps(line) + "\n" for line in lines)


def test_a_stream_that_stops_part_way_does_not_vote_twice(tmp_path, capsys):
    """The stream stops after 10 dialogues that look like updates and the file is read whole: read once,
    10 of 25 vote updates (no warning); had the 10 voted twice, 20 of 35 would be a majority. With 13
    of 25, the warning comes once."""
    for updates_like, warnings in ((10, 0), (13, 1)):
        path = tmp_path / f"apart{updates_like}.jsonl"
        path.write_text(_apart_lines(updates_like))
        assert main(["score", "--quiet", "--jobs", "1", str(path)]) == 0
        assert capsys.readouterr().err.count(updates.UPDATES_WARNING) == warnings
