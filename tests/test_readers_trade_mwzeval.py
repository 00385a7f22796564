"""TRADE's prediction file (gold and predictions) and mwzeval's prediction file (predictions only).

tests/fixtures/trade_mwzeval holds two MultiWOZ-like dialogues written for these tests (MUL0003: a
guest house, ``dontcare`` area, booked, then a museum with ``&``; SNG0129: a train leaving at
17:15 predicted as ``5:15 pm``, then chinese in the centre with a gold ``none`` and a predicted
``dontcare``) in three layouts: ``trade.json`` (TRADE's, turns out of order), ``reference.json``
(the GCA layout, same data) and ``mwzeval.json`` (the predictions as mwzeval reads them: ids
lower-case without ``.json``, turns in a list with ``response`` and ``active_domains``).
"""

from __future__ import annotations

import json

import pytest

from dst_metrics import InputError, score
from dst_metrics.cli import main
from dst_metrics.readers import READERS, detect, read
from dst_metrics.readers.base import Side
from dst_metrics.readers.mwzeval import sniff as mwzeval_sniff
from dst_metrics.readers.pairing import pair
from dst_metrics.readers.trade import sniff as trade_sniff
from tests.conftest import REFERENCE, REPO, requires_shared
from tests.samples import read_side, read_with_format

FIXTURES = REPO / "tests" / "fixtures" / "trade_mwzeval"
TRADE = FIXTURES / "trade.json"
REFERENCE_LAYOUT = FIXTURES / "reference.json"
MWZEVAL = FIXTURES / "mwzeval.json"
TRADE_FILE = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"
TRADE_AS_REFERENCE = REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json"
T5 = REFERENCE / "t5_zeroshot" / "predictions"


def gold_side(path) -> Side:
    """The gold states of a reference-layout file as a one-sided input."""
    layout = json.loads(path.read_text(encoding="utf-8"))
    return Side({d: {int(t): turn["gt"] for t, turn in turns.items()} for d, turns in layout.items()})


def located(path, message: str) -> str:
    """The start of an InputError's text: the file, then the place or the problem."""
    return f"{path}, {message}" if message.startswith("dialogue") else f"{path}: {message}"


def write(tmp_path, data: object, name: str = "input.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


# TRADE -----------------------------------------------------------------------------------------


def test_trade_file_is_detected_and_read_like_the_same_data_in_the_reference_layout():
    corpus, used = read_with_format(TRADE)
    assert used == "trade" and detect(TRADE.read_bytes()) == "trade"
    assert corpus == read(REFERENCE_LAYOUT)
    assert score(corpus).scores.as_dict() == score(read(REFERENCE_LAYOUT)).scores.as_dict()


def test_trade_turns_are_put_in_order_and_strings_split_at_their_first_two_hyphens():
    mul = read(TRADE).dialogue("MUL0003.json")
    assert mul.turn_ids == (0, 1, 2, 3)  # the file lists 2, 0, 3, 1
    assert mul.gold[2]["hotel-book people"] == "4"
    assert mul.pred[3]["attraction-name"] == "cambridge and county folk museum"
    sng = read(TRADE).dialogue("SNG0129.json")
    assert sng.gold[2] == {"restaurant-food": "chinese", "restaurant-area": "centre", "hotel-parking": "none"}
    hyphen = {"d": {"0": {"turn_belief": ["hotel-type-guest-house"], "pred_bs_ptr": []}}}
    assert read(json.dumps(hyphen)).dialogues[0].gold[0] == {"hotel-type": "guest-house"}


def test_trade_equal_lists_of_consecutive_turns_share_one_state_object():
    corpus = read(
        '{"d": {"1": {"turn_belief": ["hotel-area-north"], "pred_bs_ptr": ["hotel-area-north"]},'
        ' "0": {"turn_belief": ["hotel-area-north"], "pred_bs_ptr": []}}}'
    )
    (dialogue,) = corpus.dialogues
    assert dialogue.gold[0] is dialogue.gold[1]  # the scorer tells an unchanged turn by identity
    assert dialogue.pred[0] == {} and dialogue.pred[1] == {"hotel-area": "north"}


def test_trade_other_keys_of_a_turn_are_ignored():
    data = {"d": {"0": {"turn_uttr": "a cheap hotel", "turn_belief": ["hotel-pricerange-cheap"], "pred_bs_ptr": []}}}
    assert read(json.dumps(data)).dialogues[0].gold[0] == {"hotel-pricerange": "cheap"}


def turn(gold: object = (), pred: object = ()) -> dict:
    return {"turn_belief": list(gold) if isinstance(gold, tuple) else gold, "pred_bs_ptr": pred}


@pytest.mark.parametrize(
    "data, message",
    [
        ([], 'expected an object {dialogue_id: {turn_id: {"turn_belief"'),
        ({"MUL0003.json": []}, 'dialogue "MUL0003.json": a dialogue must map turn ids to turns, got an array'),
        ({"MUL0003.json": {}}, 'dialogue "MUL0003.json": the dialogue has no turns'),
        ({"MUL0003.json": {"x": turn()}}, 'dialogue "MUL0003.json": a turn id must be a whole number'),
        (
            {"MUL0003.json": {"0": "hotel-area-north"}},
            'dialogue "MUL0003.json", turn 0: a turn must be an object with turn_belief and pred_bs_ptr',
        ),
        (
            {"MUL0003.json": {"0": {"turn_belief": []}}},
            'dialogue "MUL0003.json", turn 0, field pred_bs_ptr: the turn has no pred_bs_ptr',
        ),
        (
            {"MUL0003.json": {"0": turn("hotel-area-north", [])}},
            'dialogue "MUL0003.json", turn 0, field turn_belief: expected an array of "domain-slot-value" strings, '
            'got a string ("hotel-area-north")',
        ),
        (
            {"MUL0003.json": {"0": turn(), "1": turn(pred=["hotel-area-north", None])}},
            'dialogue "MUL0003.json", turn 1, field pred_bs_ptr[1]: expected a "domain-slot-value" string, got null',
        ),
        (
            {"MUL0003.json": {"0": turn(["hotel-area-north", "hotel-stars"])}},
            'dialogue "MUL0003.json", turn 0, field turn_belief[1]: expected a "domain-slot-value" string, '
            'got "hotel-stars"',
        ),
        (
            {"MUL0003.json": {"0": turn(pred=["hotel-area-north", "hotel-area-centre"])}},
            'dialogue "MUL0003.json", turn 0, field pred_bs_ptr[1]: slot "hotel-area" is given twice',
        ),
    ],
)
def test_bad_trade_input_names_file_dialogue_turn_and_field(tmp_path, data, message):
    path = write(tmp_path, data, "all_prediction_TRADE.json")
    with pytest.raises(InputError) as caught:
        read(path, "trade")
    assert str(caught.value).startswith(located(path, message))


def test_trade_invalid_json_names_the_place(tmp_path):
    path = write(tmp_path, '{"MUL0003.json": {"0": {"turn_belief": ["hotel-area-north",], "pred_bs_ptr": []}}}')
    with pytest.raises(
        InputError, match=r"input.json: not valid JSON at line 1, column 60: a comma before the closing ']'"
    ):
        read(path, "trade")


def test_trade_sniff_looks_at_the_first_turn_only():
    assert trade_sniff('{"d": {"0": {"turn_belief": [], "pred_bs_ptr": []}}}').level == 2
    assert trade_sniff('{"d": {"0": {"gt": {}, "pr": {"x": "turn_belief"}}}}').level == 0
    cut = '{\n  "PMUL4648.json": {\n    "3": {\n      "turn_belief": [\n        "attraction-name-nus'
    assert trade_sniff(cut).level == 2  # the head ends inside the first turn
    assert detect(b'{"d": {"0": {"gt": {}, "pr": {}}}}') == "reference"


def test_cli_scores_a_trade_file_with_its_profile(tmp_path, capsys):
    assert main(["score", str(TRADE), "--json", "--compat", "trade"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["signature"].endswith("|compat:trade")
    assert record["jga"] == pytest.approx(1 / 7)  # derived in tests/test_compat_trade_mwzeval.py


@requires_shared
def test_the_real_trade_file_reads_as_its_reference_layout_twin_with_the_published_figures():
    corpus, used = read_with_format(TRADE_FILE)
    assert used == "trade" and corpus.num_turns == 7368 and len(corpus) == 999
    assert corpus == read(TRADE_AS_REFERENCE)
    published = json.loads(TRADE_AS_REFERENCE.with_suffix(".published.json").read_text())
    scores = score(corpus).scores
    keys = {"GCA": "gca", "JGA": "jga", "SA": "sa", "AGA": "aga", "RSA": "rsa", "FGA_0.5": "fga@0.5"}
    keys.update({"FGA_0.25": "fga@0.25", "FGA_0.75": "fga@0.75", "FGA_1.0": "fga@1.0"})
    assert {name: round(100 * scores[key], 2) for name, key in keys.items()} == {k: published[k] for k in keys}


# mwzeval ---------------------------------------------------------------------------------------


def test_mwzeval_predictions_are_detected_and_read_as_the_predicted_side():
    assert detect(MWZEVAL.read_bytes()) == "mwzeval"
    side = read_side(MWZEVAL, "pred")
    assert (side.ids, side.turns, side.source) == ("loose", "position", str(MWZEVAL))
    assert list(side.states) == ["mul0003", "sng0129"]
    assert list(side.states["mul0003"]) == [0, 1, 2, 3]
    assert side.states["sng0129"][0]["train"]["leaveat"] == "5:15 pm"  # "response", "active_domains" ignored


def test_mwzeval_predictions_pair_with_gold_by_loose_id_and_position():
    corpus = pair(gold_side(REFERENCE_LAYOUT), read_side(MWZEVAL, "pred"))
    assert corpus == read(REFERENCE_LAYOUT)  # the gold ids ("MUL0003.json") are kept
    assert corpus.dialogue("MUL0003.json").pred[2]["hotel-name"] == "a & b guest house"


def test_mwzeval_alone_is_one_side_and_has_no_gold():
    with pytest.raises(InputError, match=r"mwzeval.json: this is mwzeval's predictions .* holds one side only"):
        read(MWZEVAL)
    with pytest.raises(InputError, match=r"mwzeval.json: mwzeval's file holds predictions only"):
        read_side(MWZEVAL, "gold")


def test_mwzeval_more_turns_than_gold_is_named():
    data = json.loads(MWZEVAL.read_text())
    data["sng0129"].append({"response": "bye .", "state": {}})
    with pytest.raises(InputError, match=r'dialogue "SNG0129.json": 3 gold turns but 4 predicted turns'):
        pair(gold_side(REFERENCE_LAYOUT), read_side(json.dumps(data), "pred", "mwzeval"))


@pytest.mark.parametrize(
    "data, message",
    [
        ([], 'expected an object {dialogue_id: [{"state"'),
        ({}, "the corpus is empty"),
        ({"mul0003": {"0": {"state": {}}}}, 'dialogue "mul0003": a dialogue must be an array of turns, got an object'),
        ({"mul0003": [{"state": {}}, "hi"]}, 'dialogue "mul0003", turn 1: a turn must be an object with "state"'),
        (
            {"mul0003": [{"response": "hello .", "active_domains": []}]},
            'dialogue "mul0003", turn 0, field state: the turn has no "state"',
        ),
        (
            {"mul0003": [{"state": {}}, {"state": {"hotel": {"stars": None}}}]},
            'dialogue "mul0003", turn 1, field state.hotel.stars: a value must be a string or a number, got null',
        ),
        (
            {"mul0003": [{"state": ["hotel-area"]}]},
            'dialogue "mul0003", turn 0, field state[0]: expected a "domain-slot-value" string, got "hotel-area"',
        ),
    ],
)
def test_bad_mwzeval_input_names_file_dialogue_turn_and_field(tmp_path, data, message):
    path = write(tmp_path, data, "predictions.json")
    with pytest.raises(InputError) as caught:
        read_side(path, "pred", "mwzeval")
    assert str(caught.value).startswith(located(path, message))


def test_mwzeval_sniff_needs_a_state_in_the_first_turn():
    assert mwzeval_sniff('{"mul0003": [{"response": "hi", "state": {}}]}').level == 2
    close = mwzeval_sniff('{"mul0003": [{"response": "hi", "active_domains": []}]}')
    assert (close.level, close.missing) == (
        1,
        'its turns have no "state" (mwzeval predictions need the predicted state)',
    )
    assert mwzeval_sniff('{"mul0003": {"0": {"gt": {}, "pr": {}}}}').level == 0
    assert list(READERS).index("mwzeval") < list(READERS).index("reference")


@requires_shared
def test_real_t5_predictions_written_for_mwzeval_pair_back_into_the_same_corpus(tmp_path):
    source = T5 / "T5_result_zeroshot_attraction.json"
    layout = json.loads(source.read_text())
    predictions = {
        d.lower().removesuffix(".json"): [{"response": "", "state": turns[t]["pr"]} for t in sorted(turns, key=int)]
        for d, turns in layout.items()
    }
    path = write(tmp_path, predictions, "t5_attraction_mwzeval.json")
    corpus = pair(gold_side(source), read_side(path, "pred"))
    assert corpus == read(source)


def data_json_of(reference_layout) -> dict:
    """The gold of a reference-layout file written as MultiWOZ 2.1's data.json (user and system turns)."""
    layout = json.loads(reference_layout.read_text(encoding="utf-8"))
    data = {}
    for dialogue_id, turns in layout.items():
        log = []
        for t in sorted(turns, key=int):
            metadata: dict = {}
            for domain, slots in turns[t]["gt"].items():
                entry = metadata.setdefault(domain, {"book": {"booked": []}, "semi": {}})
                for slot, value in slots.items():
                    book, _, name = slot.partition("book ")
                    entry["book" if not book and name else "semi"][name or slot] = value
            log += [{"text": "i need a place to stay .", "metadata": {}}, {"text": "sure .", "metadata": metadata}]
        data[dialogue_id] = {"goal": {}, "log": log}
    return data


def test_cli_scores_mwzeval_predictions_against_multiwoz_gold(tmp_path, capsys):
    gold = write(tmp_path, data_json_of(REFERENCE_LAYOUT), "data.json")
    assert main(["score", str(MWZEVAL), "--gold", str(gold), "--compat", "mwzeval", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    # the fixture's figures under the profile (derived in tests/test_compat_trade_mwzeval.py): JGA 6/7, F1 58/59
    assert (record["jga"], record["slot_f1"]) == (pytest.approx(6 / 7), pytest.approx(58 / 59))
    assert record["signature"].endswith("|compat:mwzeval")
