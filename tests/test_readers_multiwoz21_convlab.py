"""MultiWOZ 2.1 data.json gold and ConvLab-3's unified format (dialogues and predictions.json).

tests/fixtures/convlab holds three MultiWOZ-like dialogues written for these tests (MUL0003: a
guest house booked, then a museum with ``&``; SNG0129: chinese in the centre with ``dontcare``,
booked at 18:45; PMUL1170: a train, then a taxi) with one set of predictions, in four layouts:
``data.json`` (MultiWOZ 2.1, gold only), ``dialogues.json`` (unified dialogues, gold only),
``predictions.json`` (ConvLab-3's DST samples, both sides, as 3.0.1 writes them: no
dialogue_id) and ``reference.json`` (the GCA layout, TRADE's slot names).
"""

from __future__ import annotations

import json

import pytest

from dst_metrics import InputError, score
from dst_metrics.cli import main
from dst_metrics.readers import READERS, detect, read
from dst_metrics.readers.base import Side
from dst_metrics.readers.multiwoz21 import CONVENTION
from dst_metrics.readers.pairing import pair
from tests.conftest import REPO
from tests.samples import read_side, read_with_format

FIXTURES = REPO / "tests" / "fixtures" / "convlab"
DATA_JSON = FIXTURES / "data.json"
DIALOGUES = FIXTURES / "dialogues.json"
PREDICTIONS = FIXTURES / "predictions.json"
REFERENCE_LAYOUT = FIXTURES / "reference.json"
IDS = ["MUL0003.json", "SNG0129.json", "PMUL1170.json"]


def load(path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def reference_pred_side() -> Side:
    """The predictions of reference.json as a one-sided input."""
    layout = load(REFERENCE_LAYOUT)
    return Side({d: {int(t): turn["pr"] for t, turn in turns.items()} for d, turns in layout.items()})


def named_samples() -> list[dict]:
    """predictions.json as ConvLab-3 after 3.0.1 writes it (dialogue_id = original id), samples shuffled."""
    samples = load(PREDICTIONS)
    dialogue = -1
    for sample in samples:
        dialogue += sample["utt_idx"] == 0
        sample["dialogue_id"] = IDS[dialogue]
    return samples[::-1]


def test_formats_are_detected():
    found = [detect(path.read_bytes()) for path in (DATA_JSON, PREDICTIONS, DIALOGUES, REFERENCE_LAYOUT)]
    assert found == ["multiwoz21", "convlab", "convlab-unified", "reference"]


def test_data_json_gold_is_the_system_turns_metadata_with_multiwoz_slot_names():
    side = read_side(DATA_JSON, "gold")
    assert list(side.states) == IDS  # ids kept with .json, as in the GCA reference files
    assert list(side.states["MUL0003.json"]) == [0, 1, 2]  # log indices 1, 3, 5
    # booked lists ignored, "not mentioned" and "" dropped, book slots as "domain-book slot"
    assert side.states["MUL0003.json"][1] == {
        "hotel-name": "acorn guest house",
        "hotel-area": "north",
        "hotel-parking": "yes",
        "hotel-internet": "yes",
        "hotel-type": "guest house",
        "hotel-book stay": "3",
        "hotel-book day": "tuesday",
        "hotel-book people": "2",
    }
    assert side.states["PMUL1170.json"][0] == {
        "train-destination": "cambridge",
        "train-day": "monday",
        "train-arriveby": "10:15",
        "train-departure": "london kings cross",
    }
    assert side.states["SNG0129.json"][0]["restaurant-pricerange"] == "dontcare"


def test_a_multiwoz_folder_gives_the_dialogues_of_its_test_list(tmp_path):
    (tmp_path / "data.json").write_bytes(DATA_JSON.read_bytes())
    (tmp_path / "ontology.json").write_text("{}", encoding="utf-8")
    assert list(read_side(tmp_path, "gold").states) == IDS  # no testListFile.txt: every dialogue
    (tmp_path / "testListFile.txt").write_text("PMUL1170.json\nMUL0003.json\n", encoding="utf-8")
    assert list(read_side(tmp_path, "gold").states) == ["MUL0003.json", "PMUL1170.json"]
    (tmp_path / "testListFile.txt").write_text("MUL9999.json\n", encoding="utf-8")
    with pytest.raises(InputError, match="data.json holds none of the dialogues testListFile.txt lists"):
        read_side(tmp_path, "gold")


def test_data_json_gold_with_predictions_is_the_reference_layout():
    corpus = pair(read_side(DATA_JSON, "gold"), reference_pred_side())
    expected = read(REFERENCE_LAYOUT)
    assert corpus == expected
    for options in ({}, {"mode": "corrected"}, {"compat": "convlab"}):
        found, wanted = score(corpus, **options).scores, score(expected, **options).scores
        assert dict(found) == dict(wanted)
        assert found.signature.replace(f"|{CONVENTION}", "") == wanted.signature  # data.json gold says how it was read


def test_data_json_gold_pairs_with_mwzeval_predictions_by_loose_id_and_position(tmp_path):
    if "mwzeval" not in READERS:
        pytest.skip("no mwzeval reader in this tree")
    layout = load(REFERENCE_LAYOUT)
    predictions = {
        d.lower().removesuffix(".json"): [{"state": layout[d][t]["pr"]} for t in sorted(layout[d])] for d in IDS
    }
    (tmp_path / "pred.json").write_text(json.dumps(predictions), encoding="utf-8")
    assert read(tmp_path / "pred.json", gold=DATA_JSON) == read(REFERENCE_LAYOUT)


def test_predictions_json_without_dialogue_ids_splits_dialogues_where_utt_idx_restarts():
    corpus, used = read_with_format(PREDICTIONS)
    assert used == "convlab"
    assert [(d.dialogue_id, d.turn_ids) for d in corpus] == [("0", (0, 1, 2)), ("1", (0, 1)), ("2", (0, 1))]
    first = corpus.dialogues[0]
    # the unified gold lists every slot, "" when unset: such slots are dropped and the listed ones kept
    # for the convlab profile; a predicted "none" stays
    assert "hotel-price range" not in first.gold[0] and first.gold[0]["hotel-type"] == "guest house"
    assert len(first.gold[0]) == 4 and len(corpus.listed_gold_slots) == 31 and first.pred[2]["hotel-internet"] == "none"
    assert first.pred[0] == {
        "hotel-type": "guesthouse",
        "hotel-area": "north",
        "hotel-parking": "yes",
        "hotel-internet": "yes",
    }


def test_predictions_json_with_dialogue_ids_groups_by_them_in_utt_idx_order():
    named = read(json.dumps(named_samples()), "convlab")
    plain = read(PREDICTIONS)
    assert [d.dialogue_id for d in named] == list(reversed(IDS))
    for dialogue in named:
        twin = plain.dialogues[IDS.index(dialogue.dialogue_id)]
        assert (dialogue.turn_ids, dialogue.gold, dialogue.pred) == (twin.turn_ids, twin.gold, twin.pred)
    # corrected mode: official mode keeps "" as a value, so it would count the unified gold's unset slots
    both = [score(corpus, mode="corrected", compat="convlab").scores.as_dict() for corpus in (named, plain)]
    assert both[0] == both[1] and both[0]["jga"] == 3 / 7


def test_unified_dialogues_gold_pairs_by_original_id_into_the_predictions_corpus():
    gold = read_side(DIALOGUES, "gold")
    assert list(gold.states) == IDS and list(gold.states["SNG0129.json"]) == [0, 1]  # user turns only
    samples = named_samples()
    pred = Side({d: {} for d in IDS}, unset="")
    for sample in samples:
        pred.states[sample["dialogue_id"]][sample["utt_idx"] // 2] = sample["predictions"]["state"]
    corpus = pair(gold, pred)
    assert corpus == read(json.dumps(sorted(samples, key=lambda s: (IDS.index(s["dialogue_id"]), s["utt_idx"]))))


def test_the_same_dialogues_give_the_same_convlab_figures_in_every_layout():
    # Measured by running ConvLab-3 3.0.1's convlab/dst/evaluate_unified_datasets.py evaluate() on
    # predictions.json: slot_f1 0.9, precision 0.923..., recall 0.878..., accuracy 0.428...
    # By hand: TP 36, FP 3 (day wednesday, internet "none", taxi "and" for "&"), FN 5 (those three,
    # pricerange dontcare and taxi departure not predicted); turns right: MUL0003 0, SNG0129 1, PMUL1170 0.
    expected = {"jga": 3 / 7, "slot_precision": 36 / 39, "slot_recall": 36 / 41, "slot_f1": 72 / 80}
    for corpus in (
        read(PREDICTIONS),
        read(REFERENCE_LAYOUT),
        pair(read_side(DATA_JSON, "gold"), reference_pred_side()),
    ):
        scores = score(corpus, mode="corrected", compat="convlab").scores
        assert {key: scores[key] for key in expected} == pytest.approx(expected, abs=1e-12)


def test_corrected_figures_of_the_unified_samples_are_those_of_the_reference_layout():
    # corrected mode reads "" as unset, so the reference layout's explicit "" prediction changes nothing
    unified, layout = (score(read(path), mode="corrected").scores.as_dict() for path in (PREDICTIONS, REFERENCE_LAYOUT))
    assert unified == layout and unified["jga"] == 2 / 7  # MUL0003 turn 0 is "guesthouse" for "guest house"


def test_official_figures_of_the_unified_samples_are_those_of_the_layout_without_empty_values():
    # The readers drop the unified format's "" (unset) slots: official mode, where "" is a value, and
    # SA's default K = 30 (the unified gold lists 31 slots) then score the unified file as the layout
    # with its one explicit "" (SNG0129 turn 1, restaurant-name) removed, which official mode would
    # count as an overshot slot.
    layout = json.loads(REFERENCE_LAYOUT.read_text())
    removed = 0
    for turns in layout.values():
        for turn in turns.values():
            for side in ("gt", "pr"):
                flat = [(d, s) for d, slots in turn[side].items() for s, v in slots.items() if v == ""]
                for domain, slot in flat:
                    del turn[side][domain][slot]
                    removed += 1
    assert removed == 1
    unified = score(read(PREDICTIONS)).scores.as_dict()
    assert unified == score(read(json.dumps(layout))).scores.as_dict()
    assert unified["overshot"] == 0 and score(read(REFERENCE_LAYOUT)).scores["overshot"] == 1


def test_a_one_sided_format_asks_for_the_other_side():
    with pytest.raises(InputError, match="holds one side only"):
        read(DATA_JSON)
    with pytest.raises(InputError, match="data.json holds the gold annotation only"):
        read_side(DATA_JSON, "pred")
    assert read_side(DIALOGUES, "pred").states == read_side(DIALOGUES, "gold").states


def _data_json(log: object) -> str:
    return json.dumps({"MUL0003.json": {"goal": {}, "log": log}})


USER = {"text": "a guest house please", "metadata": {}}
SYSTEM = {"text": "sure", "metadata": {"hotel": {"book": {"booked": []}, "semi": {"type": "guest house"}}}}


@pytest.mark.parametrize(
    "text, message",
    [
        (
            _data_json([USER, SYSTEM, USER]),
            'x.json, dialogue "MUL0003.json", turn 1, field log[2]: the log has 3 entries',
        ),
        (
            _data_json([USER, {"text": "sure", "metadata": {"hotel": {"semi": {"stars": 4}}}}]),
            'x.json, dialogue "MUL0003.json", turn 0, field log[1].metadata.hotel.semi.stars: '
            "a value must be a string, got a number (4)",
        ),
        (
            _data_json([USER, {"text": "sure", "metadata": {"hotel": []}}]),
            'x.json, dialogue "MUL0003.json", turn 0, field log[1].metadata.hotel: a domain must be an object',
        ),
        (
            _data_json([USER, {"text": "sure"}]),
            'x.json, dialogue "MUL0003.json", turn 0, field log[1].metadata: a system',
        ),
        ('{"MUL0003.json": {"goal": {}, "log": []}}', 'x.json, dialogue "MUL0003.json": the log must be a non-empty'),
        ('{"MUL0003.json": {"goal": {}, "log": [}}', "x.json: not valid JSON at line 1, column 39"),
    ],
)
def test_bad_data_json_is_located(text, message):
    with pytest.raises(InputError) as caught:
        read_side(text, "gold", "multiwoz21", name="x.json")
    assert str(caught.value).startswith(message)


SAMPLE = {"utt_idx": 0, "state": {"hotel": {"area": "north"}}, "predictions": {"state": {"hotel": {"area": "north"}}}}


@pytest.mark.parametrize(
    "samples, message",
    [
        ([SAMPLE, {"utt_idx": 2, "state": {}}], "p.json, field [1].predictions: the sample has no predictions"),
        (
            [{**SAMPLE, "predictions": {"state": {"hotel": {"area": ["north"]}}}}],
            'p.json, field [0].predictions.state.hotel.area: a value must be a string, got an array (["north"])',
        ),
        ([{**SAMPLE, "state": ["hotel-area-north"]}], "p.json, field [0].state: a state must be an object"),
        ([{**SAMPLE, "utt_idx": -1}], "p.json, field [0].utt_idx: a turn id must be a whole number"),
        ([{"state": {}, "predictions": {"state": {}}}], "p.json, field [0]: it has no utt_idx"),
        ([{**SAMPLE, "predictions": "hotel-area=north"}], "p.json, field [0].predictions: predictions must be an"),
        (
            [{**SAMPLE, "dialogue_id": "a"}, {**SAMPLE, "dialogue_id": "a"}],
            'p.json, dialogue "a", field [1].utt_idx: utt_idx 0 is given twice in the dialogue (samples 0 and 1)',
        ),
        ([{**SAMPLE, "dialogue_id": "a"}, SAMPLE], "p.json, field [1].dialogue_id: the first sample has a dialogue_id"),
        ([{**SAMPLE, "dialogue_id": ""}], "p.json, field [0].dialogue_id: a dialogue id must be a non-empty string"),
        ([], "p.json: expected a non-empty array of samples"),
    ],
)
def test_bad_predictions_json_is_located(samples, message):
    with pytest.raises(InputError) as caught:
        read(json.dumps(samples), "convlab", name="p.json")
    assert str(caught.value).startswith(message)


def _unified(turns: object, **fields: object) -> str:
    return json.dumps([{"dialogue_id": "multiwoz21-test-0", "original_id": "MUL0003.json", "turns": turns, **fields}])


USER_TURN = {"speaker": "user", "utterance": "a guest house", "utt_idx": 0, "state": {"hotel": {"type": "guest house"}}}


@pytest.mark.parametrize(
    "text, message",
    [
        (_unified([{"speaker": "user", "utt_idx": 0}]), 'g.json, dialogue "MUL0003.json", field [0].turns[0].state: '),
        (_unified([{"speaker": "system", "utt_idx": 1}]), 'g.json, dialogue "MUL0003.json", field [0].turns: the dial'),
        (
            _unified([{**USER_TURN, "state": {"hotel": {"type": None}}}]),
            'g.json, dialogue "MUL0003.json", field [0].turns[0].state.hotel.type: a value must be a string, got null',
        ),
        (_unified({"0": USER_TURN}), 'g.json, dialogue "MUL0003.json", field [0].turns: turns must be an array'),
        (json.dumps([{"dialogue_id": "x"}]), 'g.json, field [0]: a dialogue must be an object with "turns"'),
        (json.dumps([{"turns": [USER_TURN]}]), "g.json, field [0].dialogue_id: a dialogue id must be a non-empty"),
        (
            _unified([USER_TURN])[:-1] + "," + _unified([USER_TURN])[1:],
            'g.json, dialogue "MUL0003.json", field [1]: the d',
        ),
        ("[]", "g.json: the file holds no dialogue"),
        ('\n"turns"', "g.json: expected an array of dialogues"),
    ],
)
def test_bad_unified_dialogues_are_located(text, message):
    with pytest.raises(InputError) as caught:
        read_side(text, "gold", "convlab-unified", name="g.json")
    assert str(caught.value).startswith(message)


def test_unified_dialogues_may_be_an_object_keyed_by_id():
    side = read_side(json.dumps({"MUL0003.json": {"turns": [USER_TURN]}}), "gold", "convlab-unified")
    assert side.states == {"MUL0003.json": {0: {"hotel": {"type": "guest house"}}}}


def test_the_command_line_scores_predictions_json_under_the_profile(capsys, tmp_path):
    assert main(["score", str(PREDICTIONS), "--mode", "corrected", "--compat", "convlab", "--json"]) == 0
    line = json.loads(capsys.readouterr().out)
    assert (line["jga"], line["slot_f1"]) == (3 / 7, 0.9) and line["signature"].endswith("|compat:convlab")
    bad = tmp_path / "predictions.json"
    bad.write_text(json.dumps([SAMPLE, {"utt_idx": 2, "state": {}}]), encoding="utf-8")
    assert main(["score", str(bad)]) == 2
    assert f"{bad}, field [1].predictions: the sample has no predictions" in capsys.readouterr().err
