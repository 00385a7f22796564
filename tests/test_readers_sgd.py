"""The SGD / MultiWOZ 2.2 dialogue-file reader: one side per input (a file or a folder), USER turns only.

Fixtures (tests/fixtures/sgd, written for these tests): an SGD-style folder (Restaurants_2 and
Hotels_2, two dialogues, SYSTEM turns between USER turns, `dontcare`, times, a name with `&`,
several acceptable gold values) and a MultiWOZ 2.2-style file (one dialogue, frames of every
service in each USER turn, slot names already ``restaurant-…``, turn ids counting SYSTEM turns).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dst_metrics import InputError, score
from dst_metrics.readers import detect, read
from dst_metrics.readers.sgd import load_dialogues, slot_name
from dst_metrics.states import Alternatives
from tests.conftest import REPO, SGD, requires_shared
from tests.samples import read_side

FIXTURES = REPO / "tests" / "fixtures" / "sgd"
SGD_GOLD, SGD_PRED = FIXTURES / "sgd_gold", FIXTURES / "sgd_pred"
MWZ_GOLD, MWZ_PRED = FIXTURES / "multiwoz22_gold" / "dialogues_001.json", FIXTURES / "multiwoz22_pred"


def test_slot_names_are_service_dash_slot_unless_already_so():
    assert slot_name("Restaurants_2", "price_range") == "Restaurants_2-price_range"
    assert slot_name("restaurant", "restaurant-area") == "restaurant-area"
    assert slot_name("restaurant", "restaurantarea") == "restaurant-restaurantarea"


def test_a_dialogue_file_and_a_folder_are_detected():
    assert detect(MWZ_GOLD.read_bytes()) == "sgd"
    assert detect((SGD_GOLD / "dialogues_001.json").read_bytes()) == "sgd"


def test_multiwoz22_gold_keeps_every_acceptable_value_and_numbers_user_turns_by_position():
    side = read_side(MWZ_GOLD, "gold")
    (turns,) = side.states.values()
    assert list(turns) == [0, 1, 2]  # the file's USER turn ids are "0", "2", "4"
    assert turns[0] == {"restaurant-food": "chinese", "restaurant-area": "centre"}  # one value: that string
    assert turns[2]["hotel-type"] == ["guest house", "guesthouse"]
    assert turns[2]["hotel-name"] == "a & b guest house" and turns[2]["hotel-parking"] == "dontcare"


def test_predictions_keep_the_first_value_only():
    (turns,) = read_side(MWZ_PRED, "pred").states.values()
    assert turns[1]["restaurant-name"] == "pizza hut" and turns[2]["hotel-type"] == "guest house"


def test_multiwoz22_pair_scores_what_we_derive_by_hand():
    corpus = read(MWZ_PRED, gold=MWZ_GOLD)
    (dialogue,) = corpus.dialogues
    assert dialogue.dialogue_id == "MUL0123.json" and dialogue.turn_ids == (0, 1, 2)
    name = dialogue.gold[1]["restaurant-name"]
    assert isinstance(name, Alternatives) and name.order == ("pizza hut city centre", "pizza hut")
    # turn 0 equal; turn 1 "pizza hut" is an acceptable value; turn 2 "a and b guest house" is not
    # "a & b guest house": JGA 2/3.
    assert score(corpus).scores.jga == pytest.approx(2 / 3)


def test_sgd_folder_carries_each_service_state_over_and_skips_the_schemas():
    side = read_side(SGD_GOLD, "gold")
    assert list(side.states) == ["1_00000", "2_00000"]
    last = side.states["2_00000"][2]  # a Restaurants_2 frame only; the Hotels_2 state carries over
    assert last == {
        "Hotels_2-where_to": "London",
        "Hotels_2-number_of_adults": "2",
        "Hotels_2-has_laundry_service": "dontcare",
        "Restaurants_2-location": "London",
        "Restaurants_2-price_range": "dontcare",
    }


def test_sgd_folder_pair_scores_what_we_derive_by_hand():
    corpus = read(SGD_PRED, gold=SGD_GOLD)
    assert corpus.num_turns == 6
    # Equal turns: 2_00000 turn 0 only. 1_00000: "san jose" (exact), "Chez Panisse and Co", "cheap";
    # 2_00000 turn 1 lacks has_laundry_service (which stays missing in turn 2, which also adds
    # has_seating_outdoors). JGA 1/6.
    assert score(corpus).scores.jga == pytest.approx(1 / 6)
    one_file = read(SGD_PRED / "dialogues_001.json", gold=SGD_GOLD / "dialogues_001.json")
    assert one_file == corpus


def test_a_one_sided_format_alone_asks_for_gold():
    with pytest.raises(InputError, match="holds one side only: give the other side with --gold"):
        read(MWZ_GOLD)


@requires_shared
def test_gold_against_itself_on_the_real_sgd_files_is_perfect():
    corpus = read(SGD, gold=SGD)
    assert (len(corpus), corpus.num_turns) == (384, 2235)  # USER turns of the three test files
    scores = score(corpus).scores
    assert (scores.jga, scores.gca, scores.aga, scores.fga) == (1.0, 1.0, 1.0, 1.0)
    multi = sum(isinstance(v, Alternatives) for d in corpus for s in d.gold for v in s.values())
    assert multi > 0


@requires_shared
def test_the_real_files_give_the_same_gold_states_as_reading_them_by_hand():
    # Independent reading: per USER turn, the last frame of every service so far.
    dialogues = [d for name in sorted(SGD.glob("dialogues_*.json")) for d in json.loads(name.read_text())]
    gold = read_side(SGD, "gold").states
    for dialogue in dialogues:
        current, states = {}, []
        for turn in dialogue["turns"]:
            if turn["speaker"] == "USER":
                for frame in turn["frames"]:
                    current[frame["service"]] = frame["state"]["slot_values"]
                flat = {f"{s}-{k}": v for s, slots in current.items() for k, v in slots.items()}
                states.append({k: v if len(v) > 1 else v[0] for k, v in flat.items()})  # one value: that string
        assert list(gold[dialogue["dialogue_id"]].values()) == states


# --------------------------------------------------------------------------------------------
# Bad input: one line naming the file, dialogue, turn and field


_FRAME = {"service": "Restaurants_2", "state": {"slot_values": {"location": ["San Jose"]}}}


def test_a_turn_repeating_the_previous_frames_shares_its_state_and_a_changed_one_does_not(tmp_path: Path):
    frames = [{"service": "Restaurants_2", "state": {"slot_values": {"location": ["San Jose", "SJ"]}}}]
    changed = [{"service": "Restaurants_2", "state": {"slot_values": {"location": ["Oakland"]}}}]
    turns = [
        {"speaker": "USER", "utterance": u, "frames": f} for u, f in (("a", frames), ("b", frames), ("c", changed))
    ]
    path = tmp_path / "dialogues_001.json"
    path.write_text(json.dumps([{"dialogue_id": "d", "turns": turns}]))
    states = read_side(path, "gold").states["d"]
    assert states[0] is states[1] and states[0] == {"Restaurants_2-location": ["San Jose", "SJ"]}
    assert states[2] == {"Restaurants_2-location": "Oakland"}


def _dialogue(**state_or_turn) -> dict:
    frame = {"service": "Restaurants_2", "state": {"slot_values": {"location": ["San Jose"]}}}
    turn = {"speaker": "USER", "utterance": "hi", "frames": [frame]}
    turn.update(state_or_turn.pop("turn", {}))
    frame["state"].update(state_or_turn)
    return {"dialogue_id": "1_00000", "turns": [{"speaker": "SYSTEM", "frames": []}, turn]}


@pytest.mark.parametrize(
    "data, message",
    [
        (
            [_dialogue(slot_values={"location": "San Jose"})],
            "turn 0, field turns[1].frames[0].state.slot_values.location",
        ),
        ([_dialogue(slot_values={"location": []})], "expected a non-empty array of strings, got an array ([])"),
        (
            [_dialogue(slot_values={"time": ["7 pm", 19]})],
            "field turns[1].frames[0].state.slot_values.time[1]: expected",
        ),
        ([_dialogue(slot_values=[])], "field turns[1].frames[0].state.slot_values: expected an object"),
        ([_dialogue(requested_slots="rating")], "field turns[1].frames[0].state.requested_slots: expected an array"),
        (
            [_dialogue(turn={"speaker": None})],
            'dialogue "1_00000", field turns[1].speaker: expected a string, got null',
        ),
        ([_dialogue(turn={"frames": [{"service": "Hotels_2"}]})], "field turns[1].frames[0].state: there is no state"),
        ([_dialogue(), _dialogue()], 'dialogue "1_00000": the dialogue id is used twice'),
        (
            [_dialogue(turn={"frames": [_FRAME, _FRAME]})],
            "field turns[1].frames[1]: a second frame of service 'Restaurants_2'",
        ),
        ([{"dialogue_id": "x", "turns": [{"speaker": "SYSTEM", "frames": []}]}], "the dialogue has no USER turn"),
        ([{"turns": []}], "field [0].dialogue_id: the dialogue has no dialogue_id"),
        ({"dialogue_id": "x"}, "expected a JSON array of dialogues"),
    ],
)
def test_bad_input_is_one_located_line(tmp_path: Path, data: object, message: str):
    path = tmp_path / "dialogues_001.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as raised:
        read_side(path, "gold", "sgd")
    assert str(raised.value).startswith(str(path)) and message in str(raised.value)


def test_bad_json_and_folders_are_named(tmp_path: Path):
    (tmp_path / "schema.json").write_text("[]")
    with pytest.raises(InputError, match="the folder holds no dialogues_\\*.json file"):
        read_side(tmp_path, "gold", "sgd")
    bad = tmp_path / "dialogues_002.json"
    bad.write_text('[{"dialogue_id": "1_00000",\n "turns": [}]')
    with pytest.raises(InputError, match=r"dialogues_002.json: not valid JSON at line 2, column 12"):
        load_dialogues(tmp_path)


def test_predictions_must_pair_with_gold_turn_by_turn(tmp_path: Path):
    gold = json.loads((SGD_GOLD / "dialogues_001.json").read_text())
    gold[0]["turns"] = gold[0]["turns"][:3]  # two USER turns instead of three
    path = tmp_path / "dialogues_001.json"
    path.write_text(json.dumps(gold))
    with pytest.raises(InputError, match='dialogue "1_00000", turn 2: this turn has no partner in the gold'):
        read(SGD_PRED, gold=path)


def test_a_turn_of_another_speaker_is_kept_and_its_frames_are_not_read(tmp_path: Path):
    # Any speaker is valid; only USER turns' frames are read, so another speaker's frames may have any shape.
    user = {"speaker": "USER", "utterance": "hi", "frames": [_FRAME]}
    with_other = [{"speaker": "ASSISTANT", "utterance": "hello", "frames": [{"service": 7}]}, user]
    both = []
    for name, turns in (("with.json", with_other), ("without.json", [user])):
        path = tmp_path / name
        path.write_text(json.dumps([{"dialogue_id": "d", "turns": turns}]))
        both.append(path)
    assert read_side(both[0], "gold", "sgd").states == read_side(both[1], "gold", "sgd").states
    assert read_side(both[0], "gold", "sgd").states == {"d": {0: {"Restaurants_2-location": "San Jose"}}}
    turns = load_dialogues(both[0])["d"].turns
    assert [turn.speaker for turn in turns] == ["ASSISTANT", "USER"] and turns[0].frames == {}
    assert turns[1].frames["Restaurants_2"].slot_values == {"location": ["San Jose"]}
