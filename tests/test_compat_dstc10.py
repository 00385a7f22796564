"""DSTC10 track 2 task 1: its state lists (`dst_metrics.readers.dstc10`) and its scorer's figures
(`dst_metrics.compat.dstc10`).

Published-by-run figures: the official ``task1/scripts/scores.py`` (github
alexa/alexa-with-dstc10-track2-dataset at 4882acc, its ``Metric`` over ``zip(labels, entry)``, as its
``main`` does) run outside the project on the files these tests write: the TRADE reference file
converted with `to_dstc10`, and the hand-made cases of `CASES`. The snapshot test compares every entry
of that repository with the ``scores.json`` the organisers published, where ``DST_METRICS_DSTC10`` points
to a copy of its ``task1`` folder (CI has none: it has no network).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dst_metrics import score
from dst_metrics.cli import main
from dst_metrics.compat.dstc10 import as_scores_json
from dst_metrics.readers import detect, read
from dst_metrics.states import decode_values, encode_values
from tests.conftest import REFERENCE, requires_shared

TRADE = REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json"
SNAPSHOT = Path(os.environ.get("DST_METRICS_DSTC10", "/nonexistent"))


def to_dstc10(state: dict) -> dict:
    """A nested reference-layout state as a DSTC10 state: ``book`` slots apart, each value a list."""
    out: dict = {}
    for domain, slots in state.items():
        for slot, value in slots.items():
            part, _, name = slot.partition(" ") if slot.startswith("book ") else ("semi", "", slot)
            values = value if isinstance(value, list) else [value]
            out.setdefault(domain, {}).setdefault(part, {})[name] = values
    return out


def write_trade_as_dstc10(folder: Path) -> tuple[Path, Path]:
    """The TRADE reference file's turns as a DSTC10 entry and labels file, in file order."""
    layout = json.loads(TRADE.read_text())
    turns = [turn for dialogue in layout.values() for _, turn in sorted(dialogue.items(), key=lambda t: int(t[0]))]
    entry, labels = folder / "entry.json", folder / "labels.json"
    entry.write_text(json.dumps([to_dstc10(turn["pr"]) for turn in turns]))
    labels.write_text(json.dumps([to_dstc10(turn["gt"]) for turn in turns]))
    return entry, labels


TRADE_MEASURED = {
    "joint_goal_accuracy": 0.6335504885993485,
    "slot": {
        "accuracy": 0.9712697868449626,
        "value_prediction": {"prec": 0.9224106820642367, "rec": 0.879635206056956, "f1": 0.9005152596115735},
        "none_prediction": {"prec": 0.9804623845736014, "rec": 0.9895157007520601, "f1": 0.9849682397578549},
    },
}
"""scores.py on `write_trade_as_dstc10`'s files."""


@requires_shared
def test_the_trade_run_as_dstc10_scores_as_the_official_scorer(tmp_path, capsys):
    entry, labels = write_trade_as_dstc10(tmp_path)
    assert main(["score", str(entry), "--gold", str(labels), "--compat", "dstc10", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert as_scores_json(found) == TRADE_MEASURED
    assert found["jga"] == TRADE_MEASURED["joint_goal_accuracy"]
    assert found["sa"] == TRADE_MEASURED["slot"]["accuracy"]
    assert found["slot_f1"] == TRADE_MEASURED["slot"]["value_prediction"]["f1"]
    assert found["turns"] == 7368
    assert "instances:one-per-dialogue" in found["signature"]


def _state(**slots: list) -> dict:
    """A DSTC10 state from ``domain__part__slot=[values]`` keywords."""
    out: dict = {}
    for key, values in slots.items():
        domain, part, slot = key.split("__")
        out.setdefault(domain, {}).setdefault(part, {})[slot] = values
    return out


def _scores(jga: float, accuracy: float, value: tuple, none: tuple) -> dict:
    """scores.py's output from its figures: value and none prediction as (prec, rec, f1)."""
    keys = ("prec", "rec", "f1")
    return {
        "joint_goal_accuracy": jga,
        "slot": {
            "accuracy": accuracy,
            "value_prediction": dict(zip(keys, value)),
            "none_prediction": dict(zip(keys, none)),
        },
    }


CASES = {
    # gold, predictions, scores.py's output
    "number words and case": (
        [_state(hotel__book__people=["2"], hotel__semi__name=["Axiom Hotel"])],
        [_state(hotel__book__people=["Two"], hotel__semi__name=["axiom hotel"])],
        _scores(1.0, 1.0, (1.0, 1.0, 1.0), (1.0, 1.0, 1.0)),
    ),
    "values that normalize alike score an F1 above 1": (
        [_state(hotel__book__people=["2"]), _state(hotel__semi__stars=["3", "4", "5"])],
        [_state(hotel__book__people=["Two", "2", "2"]), _state(hotel__semi__stars=["4", "3"])],
        _scores(0.0, 0.9473684210526315, (1.0666666666666667,) * 3, (1.0, 1.0, 1.0)),
    ),
    "an empty list, a missing slot, a slot the scorer ignores, a value like our encoding": (
        [
            _state(restaurant__semi__food=["thai"], train__semi__day=["monday"], attraction__semi__name=["[x]"]),
            _state(hotel__semi__area=[""]),
        ],
        [
            _state(restaurant__semi__food=[], attraction__semi__name=["[X]"]),
            _state(hotel__semi__area=[""], hotel__semi__type=["hotel"]),
        ],
        _scores(
            0.0,
            0.9473684210526315,
            (0.5, 0.6666666666666666, 0.5714285714285715),
            (1.0, 0.9714285714285714, 0.9855072463768115),
        ),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_hand_made_cases_score_as_the_official_scorer(case, tmp_path, capsys):
    gold, pred, measured = CASES[case]
    (tmp_path / "labels.json").write_text(json.dumps(gold))
    (tmp_path / "entry.json").write_text(json.dumps(pred))
    args = ["score", str(tmp_path / "entry.json"), "--gold", str(tmp_path / "labels.json"), "--compat", "dstc10"]
    assert main([*args, "--json"]) == 0
    assert as_scores_json(json.loads(capsys.readouterr().out)) == measured


@pytest.mark.parametrize("values", [["north"], [], [""], ["[x]"], ["b", "a", "b"], ["Two", "2"], ['["a"]'], ["ü", "é"]])
def test_a_value_list_is_kept_as_its_distinct_values(values):
    encoded = encode_values(values)
    assert isinstance(encoded, str)
    assert sorted(decode_values(encoded)) == sorted(set(values))
    assert encode_values(list(reversed(values))) == encoded  # one encoding per set of values


def test_an_entry_is_detected_and_gold_of_another_length_is_one_line(tmp_path, capsys):
    states = [_state(hotel__semi__area=["north"]), {}, _state(hotel__book__day=["monday"])]
    entry = tmp_path / "entry.json"
    entry.write_text(json.dumps([{}, *states]))
    assert detect(entry.read_bytes()) == "dstc10"
    (tmp_path / "labels.json").write_text(json.dumps(states))
    assert main(["score", str(entry), "--gold", str(tmp_path / "labels.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert "4 predicted instances but 3 gold instances" in captured.err and "entry.json" in captured.err


@pytest.mark.parametrize(
    ("state", "field"),
    [
        ({"hotel": {"semi": {"area": "north"}}}, "hotel.semi.area"),
        ({"hotel": {"semi": {"area": [3]}}}, "hotel.semi.area"),
        ({"hotel": {"info": {"area": ["north"]}}}, "hotel.info"),
        ({"hotel": ["north"]}, "hotel"),
    ],
)
def test_a_bad_instance_is_one_line_naming_it(state, field, tmp_path, capsys):
    good = _state(hotel__semi__area=["north"])
    (tmp_path / "labels.json").write_text(json.dumps([good, good]))
    (tmp_path / "entry.json").write_text(json.dumps([good, state]))
    assert main(["score", str(tmp_path / "entry.json"), "--gold", str(tmp_path / "labels.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "entry.json" in err and field in err and "1" in err


def test_logs_beside_the_labels_group_the_instances_into_dialogues(tmp_path):
    user = [{"speaker": "U", "text": "a hotel in the north"}]
    second = [*user, {"speaker": "S", "text": "which day?"}, {"speaker": "U", "text": "monday"}]
    other = [{"speaker": "U", "text": "a museum"}]
    logs = [user, second, other]
    gold = [
        _state(hotel__semi__area=["north"]),
        _state(hotel__semi__area=["north"], hotel__book__day=["monday"]),
        _state(attraction__semi__type=["museum"]),
    ]
    pred = [gold[0], _state(hotel__semi__area=["north"]), gold[2]]
    (tmp_path / "labels.json").write_text(json.dumps(gold))
    (tmp_path / "entry.json").write_text(json.dumps(pred))
    alone = read(tmp_path / "entry.json", gold=tmp_path / "labels.json")
    (tmp_path / "logs.json").write_text(json.dumps(logs))
    grouped = read(tmp_path / "entry.json", gold=tmp_path / "labels.json")
    assert [len(d.turn_ids) for d in alone.dialogues] == [1, 1, 1]
    assert [len(d.turn_ids) for d in grouped.dialogues] == [2, 1]
    assert "instances:one-per-dialogue" in alone.reading and "instances:one-per-dialogue" not in grouped.reading
    # grouping changes the figures over dialogues, never the scorer's, which are per instance
    assert as_scores_json(score(alone, compat="dstc10").scores) == as_scores_json(
        score(grouped, compat="dstc10").scores
    )
    assert score(grouped).scores["turns"] == 3
    (tmp_path / "logs.json").write_text(json.dumps(logs[:2]))
    with pytest.raises(ValueError, match="2 instances in the logs but 3"):
        read(tmp_path / "entry.json", gold=tmp_path / "labels.json")


@pytest.mark.skipif(
    not (SNAPSHOT / "data" / "test" / "labels.json").is_file(),
    reason="needs DST_METRICS_DSTC10: the task1 folder of alexa/alexa-with-dstc10-track2-dataset",
)
def test_every_entry_of_the_snapshot_scores_its_published_scores(capsys):
    entries = sorted((SNAPSHOT / "results").glob("*/entry*[0-9].json"))
    assert entries
    labels = SNAPSHOT / "data" / "test" / "labels.json"
    for entry in entries:
        assert main(["score", str(entry), "--gold", str(labels), "--compat", "dstc10", "--json"]) == 0
        found = as_scores_json(json.loads(capsys.readouterr().out))
        assert found == json.loads(entry.with_name(entry.stem + ".scores.json").read_text()), entry
