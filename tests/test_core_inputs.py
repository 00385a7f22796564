"""Inputs: every accepted shape, and a clear InputError for every kind of bad input.

An InputError is a ValueError whose message names where the problem is (file, dialogue, turn
and field, as far as they apply), raised while the Corpus is built, before any figure.
"""

from __future__ import annotations

import json
import re

import pytest

from dst_metrics import Corpus, InputError, LinearizedFormat, read, score
from tests.conftest import SGD, requires_shared

NORTH = {"hotel": {"area": "north"}}


def layout(gold, pred, dialogue="d1", turn="0") -> dict:
    """A one-turn corpus in the reference layout."""
    return {dialogue: {turn: {"gt": gold, "pr": pred}}}


def input_error(data, **options) -> InputError:
    with pytest.raises(InputError) as caught:
        Corpus.from_reference_layout(data, **options)
    return caught.value


def assert_names(error: Exception, *, dialogue=None, turn=None, field=None, source=None) -> None:
    """The message names the dialogue, the turn and the field (and the file, if given)."""
    message = str(error)
    assert isinstance(error, ValueError)
    if dialogue is not None:
        assert f'dialogue "{dialogue}"' in message, message
    if turn is not None:
        assert re.search(rf"\bturn {re.escape(str(turn))}(,|:)", message), message
    if field is not None:
        assert re.search(rf"\bfield {re.escape(field)}", message), message
    if source is not None:
        assert source in message, message


# --------------------------------------------------------------------------------------------
# Bad states


@pytest.mark.parametrize("side", ["gt", "pr"])
@pytest.mark.parametrize("state", [5, 4.5, True, None], ids=["int", "float", "bool", "null"])
def test_a_state_that_is_not_a_mapping_or_list(state, side):
    data = {"MUL0001": {"0": {"gt": {}, "pr": {}}, "3": {"gt": {}, "pr": {}}}}
    data["MUL0001"]["3"][side] = state
    error = input_error(data)
    assert_names(error, dialogue="MUL0001", turn=3, field=side)
    assert "a state must be an object or an array" in str(error)


@pytest.mark.parametrize(
    "state, field",
    [
        ({1: "north"}, "pr.1"),
        ({"hotel": {2: "north"}}, "pr.hotel"),
        ({("hotel", "area"): "north"}, "pr"),
        ([("hotel", 3, "north")], "pr[0]"),
        ([(None, "area", "north")], "pr[0]"),
    ],
    ids=["flat", "nested", "tuple key", "triple slot", "triple domain"],
)
def test_a_slot_or_domain_name_that_is_not_a_string(state, field):
    error = input_error(layout(NORTH, state))
    assert_names(error, dialogue="d1", turn=0, field=field)
    assert "name must be a string" in str(error)


@pytest.mark.parametrize(
    "state, field",
    [
        ({"hotel-area": None}, "gt.hotel-area"),
        ({"hotel-area": True}, "gt.hotel-area"),
        ({"hotel-area": False}, "gt.hotel-area"),
        ({"hotel": {"area": {"x": "y"}}}, "gt.hotel.area"),
        ({"hotel": {"area": None}}, "gt.hotel.area"),
        ([("hotel", "area", None)], "gt[0]"),
        ({"hotel-area": ["north", None]}, "gt.hotel-area"),
        ({"hotel-area": ["north", ["south"]]}, "gt.hotel-area"),
    ],
    ids=["null", "true", "false", "dict value", "nested null", "triple null", "null in list", "nested list"],
)
def test_a_value_of_another_type(state, field):
    error = input_error(layout(state, NORTH, turn="2"))
    assert_names(error, dialogue="d1", turn=2, field=field)


def test_a_predicted_value_must_be_one_string():
    error = input_error(layout(NORTH, {"hotel-area": ["north", "south"]}))
    assert_names(error, dialogue="d1", turn=0, field="pr.hotel-area")


@pytest.mark.parametrize("values", [[], ["none", "north"], ["", "north"]], ids=["empty", "none", "empty string"])
def test_bad_lists_of_acceptable_values(values):
    # An empty list, or one mixing an inactive value with others (is the slot active or not?).
    error = input_error(layout({"hotel-area": values}, NORTH))
    assert_names(error, dialogue="d1", turn=0, field="gt.hotel-area")


def test_the_same_slot_given_twice():
    error = input_error(layout({"hotel-area": "north", "hotel": {"area": "south"}}, NORTH))
    assert_names(error, dialogue="d1", turn=0, field="gt")
    assert "hotel-area" in str(error)
    error = input_error(layout(["hotel-area-north", ("hotel", "area", "south")], NORTH))
    assert_names(error, dialogue="d1", turn=0, field="gt[1]")


@pytest.mark.parametrize(
    "item",
    ["hotel-area", "hotelarea", "-area-north", "hotel--north", ("hotel", "area"), 7, None],
    ids=["two parts", "one part", "no domain", "no slot", "pair", "int", "null"],
)
def test_bad_items_in_a_state_list(item):
    error = input_error(layout(NORTH, ["hotel-stars-4", item]))
    assert_names(error, dialogue="d1", turn=0, field="pr[1]")


@pytest.mark.parametrize(
    "text", ["hotel-area north", "=north", "hotel-area=north; stars", "hotel-area=north; hotel-area=south"]
)
def test_malformed_linearized_strings(text):
    error = input_error(layout(NORTH, text, turn="1"))
    assert_names(error, dialogue="d1", turn=1, field="pr")
    assert repr(text) in str(error) or text in str(error)


# --------------------------------------------------------------------------------------------
# Bad turns, dialogues and corpora


@pytest.mark.parametrize("missing", ["gt", "pr"])
def test_a_turn_without_gt_or_pr(missing):
    turn = {"gt": NORTH, "pr": NORTH}
    del turn[missing]
    error = input_error({"SNG01": {"0": {"gt": {}, "pr": {}}, "1": turn}})
    assert_names(error, dialogue="SNG01", turn=1, field=missing)


@pytest.mark.parametrize("turn", [[NORTH, NORTH], "north", None, 3])
def test_a_turn_that_is_not_a_mapping(turn):
    error = input_error({"SNG01": {"0": {"gt": {}, "pr": {}}, "1": turn}})
    assert_names(error, dialogue="SNG01", turn=1)


@pytest.mark.parametrize("turns", [[{"gt": {}, "pr": {}}], "turns", None])
def test_a_dialogue_that_is_not_a_mapping(turns):
    assert_names(input_error({"SNG01": turns}), dialogue="SNG01")


@pytest.mark.parametrize("data", [[], "corpus", None, 3])
def test_a_corpus_that_is_not_a_mapping(data):
    assert "expected an object" in str(input_error(data))


def test_a_dialogue_with_no_turns():
    error = input_error({"ok": {"0": {"gt": {}, "pr": {}}}, "SNG02": {}})
    assert_names(error, dialogue="SNG02")
    assert "no turns" in str(error)


@pytest.mark.parametrize("key", ["first", "1.5", "", "0x1", " 2", "1_0", "+3", "\u0663", 1.5, None, True], ids=repr)
def test_a_bad_turn_id(key):
    error = input_error({"d1": {"0": {"gt": {}, "pr": {}}, key: {"gt": {}, "pr": {}}}})
    assert_names(error, dialogue="d1")
    assert "turn id" in str(error)


@pytest.mark.parametrize("keys", [("0", "00"), ("1", 1)], ids=["00", "int and str"])
def test_duplicated_turn_ids(keys):
    data = {"d1": {key: {"gt": {}, "pr": {}} for key in keys}}
    assert len(data["d1"]) == 2
    error = input_error(data)
    assert_names(error, dialogue="d1")
    assert "twice" in str(error)


def test_turn_ids_are_ordered_by_their_integer_value():
    data = {"d1": {str(t): {"gt": {"hotel-area": str(t)}, "pr": {}} for t in (10, 9, 0, 2)}}
    dialogue = Corpus.from_reference_layout(data).dialogues[0]
    assert dialogue.turn_ids == (0, 2, 9, 10)
    assert [state["hotel-area"] for state in dialogue.gold] == ["0", "2", "9", "10"]


@pytest.mark.parametrize(
    "build",
    [
        lambda: Corpus.from_reference_layout({}),
        lambda: Corpus.from_dialogues(predictions=[], references=[]),
        lambda: Corpus.from_turn_records([], []),
    ],
    ids=["reference layout", "dialogues", "turn records"],
)
def test_an_empty_corpus(build):
    with pytest.raises(InputError, match="empty"):
        build()


def test_from_dialogues_checks_lengths_and_shapes():
    with pytest.raises(InputError, match="2 predicted dialogues but 1 reference"):
        Corpus.from_dialogues(predictions=[[{}], [{}]], references=[[{}]])
    with pytest.raises(InputError) as caught:
        Corpus.from_dialogues(predictions=[[{}], [{}, {}]], references=[[{}], [{}]], dialogue_ids=["a", "b"])
    assert_names(caught.value, dialogue="b")
    with pytest.raises(InputError) as caught:
        Corpus.from_dialogues(predictions=["hotel-area=north"], references=[[{}]], dialogue_ids=["a"])
    assert_names(caught.value, dialogue="a")
    with pytest.raises(InputError, match="dialogue ids"):
        Corpus.from_dialogues(predictions=[[{}]], references=[[{}]], dialogue_ids=["a", "b"])
    with pytest.raises(InputError) as caught:
        Corpus.from_dialogues(predictions=[[{}], [{}]], references=[[{}], [{}]], dialogue_ids=["a", "a"])
    assert_names(caught.value, dialogue="a")


def record(dialogue_id, turn_id, state):
    return {"dialogue_id": dialogue_id, "turn_id": turn_id, "state": state}


def test_unpaired_turn_records():
    gold = [record("d1", 0, NORTH), record("d1", 1, NORTH)]
    pred = [record("d1", 0, NORTH)]
    with pytest.raises(InputError) as caught:
        Corpus.from_turn_records(pred, gold)
    assert_names(caught.value, dialogue="d1", turn=1)
    with pytest.raises(InputError) as caught:
        Corpus.from_turn_records(gold + [record("d2", 5, {})], gold)
    assert_names(caught.value, dialogue="d2", turn=5)


def test_duplicated_turn_records():
    gold = [record("d1", 0, NORTH), record("d1", 1, NORTH), record("d1", 1, {})]
    with pytest.raises(InputError) as caught:
        Corpus.from_turn_records(gold[:2], gold)
    assert_names(caught.value, dialogue="d1", turn=1)
    assert "twice" in str(caught.value)


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"turn_id": 0, "state": {}}, "dialogue_id"),
        ({"dialogue_id": "d1", "state": {}}, "turn_id"),
        ({"dialogue_id": "d1", "turn_id": 0}, "state"),
        ({"dialogue_id": 7.5, "turn_id": 0, "state": {}}, "dialogue_id"),
        ({"dialogue_id": None, "turn_id": 0, "state": {}}, "dialogue_id"),
        ({"dialogue_id": "", "turn_id": 0, "state": {}}, "dialogue_id"),
        ({"dialogue_id": "d1", "turn_id": "first", "state": {}}, "turn_id"),
        ({"dialogue_id": "d1", "turn_id": " 1", "state": {}}, "turn_id"),
        ({"dialogue_id": "d1", "turn_id": -1, "state": {}}, "turn_id"),
        ({"dialogue_id": "d1", "turn_id": 1.0, "state": {}}, "turn_id"),
        ({"dialogue_id": "d1", "turn_id": True, "state": {}}, "turn_id"),
    ],
)
def test_bad_turn_records(bad, field):
    with pytest.raises(InputError) as caught:
        Corpus.from_turn_records([record("d1", 0, {}), bad], [record("d1", 0, {})])
    assert_names(caught.value, field=field, source="predictions[1]")


def test_turn_records_follow_the_id_rules_of_every_reader():
    # dst_metrics.ids: a digit-string turn id and an integer dialogue id are accepted, as in the
    # reference layout, whose turn ids are digit strings and whose dialogue ids are JSON keys.
    corpus = Corpus.from_turn_records(
        [record(7, "1", NORTH), record("7", 0, {})], [record("7", 0, {}), record(7, 1, NORTH)]
    )
    assert [(d.dialogue_id, d.turn_ids) for d in corpus] == [("7", (0, 1))]
    assert corpus == Corpus.from_reference_layout({"7": {"1": {"gt": NORTH, "pr": NORTH}, "0": {"gt": {}, "pr": {}}}})


def test_a_bad_state_in_a_turn_record():
    with pytest.raises(InputError) as caught:
        Corpus.from_turn_records([record("d1", 0, {"hotel-area": None})], [record("d1", 0, {})])
    assert_names(caught.value, dialogue="d1", turn=0, field="pr.hotel-area")


def test_unknown_mode_and_value_matching():
    corpus = Corpus.from_reference_layout(layout(NORTH, NORTH))
    with pytest.raises(ValueError, match="mode"):
        score(corpus, mode="fixed")
    with pytest.raises(ValueError, match="value_matching must be one of exact, normalized"):
        Corpus.from_reference_layout(layout(NORTH, NORTH), value_matching="phonetic")


@pytest.mark.parametrize(
    "options",
    [
        {"alpha": -0.1},
        {"alpha": 1.5},
        {"fga_lambda": 0},
        {"fga_lambdas": (0.5, -1)},
        {"num_slots": 0},
        {"num_slots": 2.5},
    ],
    ids=repr,
)
def test_bad_options(options):
    with pytest.raises(ValueError):
        score(Corpus.from_reference_layout(layout(NORTH, NORTH)), **options)


def test_the_signature_names_every_option():
    corpus = Corpus.from_reference_layout(layout(NORTH, NORTH), value_matching="normalized")
    signature = score(corpus, mode="corrected", fga_lambda=0.25, num_slots=37).scores.signature
    for part in ("mode:corrected", "lambda:0.25", "K:37", "match:normalized", "alpha:10/11"):
        assert part in signature.split("|"), (part, signature)
    assert score(corpus).signature.split("|")[1:] == [
        "mode:official",
        "alpha:10/11",
        "lambda:0.5",
        "K:30",
        "match:normalized",
    ]


# --------------------------------------------------------------------------------------------
# Files


def test_a_file_that_is_not_json(tmp_path):
    path = tmp_path / "predictions.json"
    path.write_text('{"d1": {"0": {"gt": {}, "pr": {}}')  # unterminated
    with pytest.raises(InputError) as caught:
        read(path, "reference")
    assert_names(caught.value, source=str(path))
    assert "JSON" in str(caught.value)
    assert "line 1, column 34" in str(caught.value)  # the end of the truncated document
    with pytest.raises(InputError) as caught:
        read(path)
    assert_names(caught.value, source=str(path))


def test_a_bad_state_in_a_file_names_the_file_dialogue_turn_and_field(tmp_path):
    path = tmp_path / "predictions.json"
    path.write_text(
        json.dumps({"d1": {"0": {"gt": {}, "pr": {}}}, "d2": {"4": {"gt": {"hotel-area": None}, "pr": {}}}})
    )
    with pytest.raises(InputError) as caught:
        read(path, "reference")
    assert_names(caught.value, source=str(path), dialogue="d2", turn=4, field="gt.hotel-area")


def test_errors_are_raised_while_building_the_corpus_before_any_figure():
    # A bad state in the LAST dialogue of a large corpus stops Corpus construction.
    data = {f"d{i:03}": {str(t): {"gt": NORTH, "pr": NORTH} for t in range(5)} for i in range(300)}
    data["d299"]["4"]["pr"] = {"hotel": {"area": 3j}}
    error = input_error(data)
    assert_names(error, dialogue="d299", turn=4, field="pr.hotel.area")
    # ... and likewise in the last turn of the last dialogue given as lists of dialogues.
    gold = [[NORTH] * 5 for _ in range(300)]
    pred = [[NORTH] * 5 for _ in range(299)] + [[NORTH] * 4 + ["hotel-area north"]]
    with pytest.raises(InputError) as caught:
        Corpus.from_dialogues(predictions=pred, references=gold)
    assert_names(caught.value, dialogue="299", turn=4, field="pr")


# --------------------------------------------------------------------------------------------
# Accepted shapes

EXPECTED = {"hotel-area": "north", "hotel-book day": "sunday", "train-leaveat": "18:45"}
SHAPES = {
    "nested": {"hotel": {"area": "north", "book day": "sunday"}, "train": {"leaveat": "18:45"}},
    "flat": {"hotel-area": "north", "hotel-book day": "sunday", "train-leaveat": "18:45"},
    "mixed": {"hotel": {"area": "north", "book day": "sunday"}, "train-leaveat": "18:45"},
    "triples": [("hotel", "area", "north"), ("hotel", "book day", "sunday"), ("train", "leaveat", "18:45")],
    "lists": [["hotel", "area", "north"], ["hotel", "book day", "sunday"], ["train", "leaveat", "18:45"]],
    "strings": ["hotel-area-north", "hotel-book day-sunday", "train-leaveat-18:45"],
    "linearized": "hotel-area=north; hotel-book day=sunday; train-leaveat=18:45",
    "linearized spaces": "  hotel-area = north ;hotel-book day=sunday;train-leaveat=18:45; ",
}


@pytest.mark.parametrize("shape", SHAPES)
def test_every_state_shape_is_accepted(shape):
    corpus = Corpus.from_reference_layout(layout(SHAPES[shape], SHAPES["flat"]))
    dialogue = corpus.dialogues[0]
    assert dialogue.gold == (EXPECTED,)
    assert dialogue.pred == (EXPECTED,)
    for mode in ("official", "corrected"):
        scores = score(corpus, mode=mode).scores
        assert (scores.jga, scores.correct, scores.gca) == (1.0, 3, 1.0)


def test_string_items_split_at_the_first_two_hyphens():
    # 'domain-slot-value': the value keeps its own hyphens.
    corpus = Corpus.from_reference_layout(layout(["hotel-type-guest-house", "train-day-2019-03-08"], {}))
    assert corpus.dialogues[0].gold == ({"hotel-type": "guest-house", "train-day": "2019-03-08"},)


def test_an_empty_state_in_every_shape():
    for state in ({}, [], "", ";", {"hotel": {}}):
        assert Corpus.from_reference_layout(layout(state, state)).dialogues[0].gold == ({},)


@pytest.mark.parametrize(
    "raw, expected",
    [(4, "4"), (0, "0"), (-2, "-2"), (4.5, "4.5"), ("4", "4")],
)
def test_numbers_become_strings(raw, expected):
    gold = {"hotel": {"stars": raw}}
    corpus = Corpus.from_reference_layout(layout(gold, {"hotel-stars": expected}))
    assert corpus.dialogues[0].gold == ({"hotel-stars": expected},)
    assert score(corpus).scores.jga == 1.0
    triples = Corpus.from_reference_layout(layout([("hotel", "stars", raw)], [("hotel", "stars", expected)]))
    assert triples.dialogues[0].gold == corpus.dialogues[0].gold


def test_gold_lists_of_acceptable_values_in_every_shape():
    alternatives = LinearizedFormat(alternatives_separator="|")
    for gold in (
        {"hotel": {"area": ["north", "centre"]}},
        {"hotel-area": ["north", "centre"]},
        {"hotel-area": ("north", "centre")},
        [("hotel", "area", ["north", "centre"])],
        "hotel-area=north|centre",
    ):
        corpus = Corpus.from_reference_layout(layout(gold, {"hotel-area": "centre"}), linearized=alternatives)
        assert corpus.dialogues[0].gold == ({"hotel-area": frozenset({"north", "centre"})},)
        for mode in ("official", "corrected"):
            assert score(corpus, mode=mode).scores.jga == 1.0
    # A one-element list is that value.
    single = Corpus.from_reference_layout(layout({"hotel-area": ["north"]}, {}))
    assert single.dialogues[0].gold == ({"hotel-area": "north"},)


def test_a_custom_linearized_format():
    fmt = LinearizedFormat(slot_separator=",", value_separator=":")
    corpus = Corpus.from_reference_layout(layout("hotel-area:north, train-leaveat:18:45", {}), linearized=fmt)
    assert corpus.dialogues[0].gold == ({"hotel-area": "north", "train-leaveat": "18:45"},)


def test_normalized_value_matching():
    data = layout({"hotel-area": "North  Side"}, {"hotel-area": " north side "})
    assert score(Corpus.from_reference_layout(data)).scores.jga == 0.0
    assert score(Corpus.from_reference_layout(data, value_matching="normalized")).scores.jga == 1.0


def test_the_three_constructors_agree():
    gold = [[{"hotel-area": "north"}, {"hotel-area": "north", "hotel-stars": "4"}], [{}]]
    pred = [[{"hotel-area": "north"}, {"hotel-area": "south"}], [{"taxi-leaveat": "10:00"}]]
    from_dialogues = Corpus.from_dialogues(predictions=pred, references=gold, dialogue_ids=["a", "b"])
    from_layout = Corpus.from_reference_layout(
        {
            "b": {"0": {"gt": gold[1][0], "pr": pred[1][0]}},
            "a": {"1": {"gt": gold[0][1], "pr": pred[0][1]}, "0": {"gt": gold[0][0], "pr": pred[0][0]}},
        }
    )
    records = [(d, t) for d in (1, 0) for t in range(len(gold[d]))]
    from_records = Corpus.from_turn_records(
        [record("ab"[d], t, pred[d][t]) for d, t in records],
        [record("ab"[d], t, gold[d][t]) for d, t in reversed(records)],
    )
    assert from_dialogues == from_records
    assert {d.dialogue_id: d for d in from_layout} == {d.dialogue_id: d for d in from_dialogues}
    assert score(from_layout).scores.as_dict() == score(from_dialogues).scores.as_dict()


# --------------------------------------------------------------------------------------------
# SGD: several acceptable gold values per slot


def sgd_gold_states(dialogue: dict) -> list[dict]:
    """Per USER turn, the state accumulated over the dialogue: {service: {slot: [values]}}."""
    states, current = [], {}
    for turn in dialogue["turns"]:
        if turn["speaker"] != "USER":
            continue
        for frame in turn["frames"]:
            current.setdefault(frame["service"], {}).update(frame["state"]["slot_values"])
        states.append({service: dict(slots) for service, slots in current.items()})
    return states


def last_acceptable(state: dict) -> dict:
    return {service: {slot: values[-1] for slot, values in slots.items()} for service, slots in state.items()}


@pytest.fixture(scope="module")
def sgd():
    dialogues = []
    for name in ("dialogues_001.json", "dialogues_002.json", "dialogues_003.json"):
        dialogues += json.loads((SGD / name).read_text())
    gold = {d["dialogue_id"]: sgd_gold_states(d) for d in dialogues}
    pred = {d: [last_acceptable(state) for state in states] for d, states in gold.items()}
    return gold, pred


def sgd_corpus(gold: dict, pred: dict) -> Corpus:
    ids = list(gold)
    return Corpus.from_dialogues(
        predictions=[pred[d] for d in ids], references=[gold[d] for d in ids], dialogue_ids=ids
    )


@requires_shared
def test_sgd_lists_of_acceptable_values(sgd):
    gold, pred = sgd
    corpus = sgd_corpus(gold, pred)
    assert corpus.num_turns == 2235  # USER turns in the three files
    assert any(isinstance(v, frozenset) for d in corpus for s in d.gold for v in s.values())
    corrected = score(corpus, mode="corrected").scores
    for name in ("gca", "value_precision", "value_recall", "label_precision", "label_recall"):
        assert getattr(corrected, name) == 1.0, name
    for name in ("jga", "fga", "sa", "aga", "slot_precision", "slot_recall", "slot_f1"):
        assert getattr(corrected, name) == 1.0, name
    # RSA scores a turn with no slot on either side 0 (the RSA paper), in both modes: a perfect
    # prediction gets the share of turns with a gold slot.
    with_slots = sum(1 for d in corpus for state in d.gold if state)
    assert with_slots < corpus.num_turns
    assert corrected.rsa == score(corpus).scores.rsa == with_slots / corpus.num_turns
    assert corrected.wrong == corrected.missed == corrected.overshot == 0
    official = score(corpus, mode="official").scores
    assert (official.jga, official.fga, official.sa, official.aga) == (1.0, 1.0, 1.0, 1.0)
    assert (official.correct, official.wrong, official.missed, official.overshot) == (
        corrected.correct,
        0,
        0,
        0,
    )


def first_gold_change(states: list[dict]) -> tuple[int, str, str, int] | None:
    """(turn t, service, slot, end u) of the first slot gold sets: the value stays the same for
    turns t .. u-1 and differs at u (or u is the number of turns)."""
    previous: dict = {}
    for t, state in enumerate(states):
        for service, slots in state.items():
            for slot, values in slots.items():
                if previous.get(service, {}).get(slot) != values:
                    u = t + 1
                    while u < len(states) and states[u][service][slot] == values:
                        u += 1
                    return t, service, slot, u
        previous = state
    return None


@requires_shared
@pytest.mark.parametrize("mode", ["official", "corrected"])
def test_sgd_one_wrong_value_per_dialogue(sgd, mode):
    # In each dialogue, predict a wrong value for the first slot gold sets, for as long as gold
    # keeps that value. The slot's change is then wrong instead of correct (C - 1, W + 1) and the
    # turns t .. u-1 are no longer equal; nothing else changes. (With accumulated states nothing
    # is ever removed, so official and corrected mode count alike.)
    gold, pred = sgd
    before = score(sgd_corpus(gold, pred), mode=mode).scores
    modified = {d: [{s: dict(slots) for s, slots in state.items()} for state in states] for d, states in pred.items()}
    changed_dialogues = lost_turns = 0
    for d, states in gold.items():
        found = first_gold_change(states)
        if found is None:
            continue
        t, service, slot, u = found
        if u < len(states) and set(states[u][service][slot]) == set(states[t][service][slot]):
            continue  # only the order of the acceptable values changed: not a change of the set
        for turn in range(t, u):
            modified[d][turn][service][slot] = "not an acceptable value"
        changed_dialogues += 1
        lost_turns += u - t
    assert changed_dialogues > 300
    after = score(sgd_corpus(gold, modified), mode=mode).scores
    assert after.correct == before.correct - changed_dialogues
    assert after.wrong == before.wrong + changed_dialogues
    assert (after.missed, after.overshot) == (before.missed, before.overshot)
    assert round(after.jga * after.turns) == round(before.jga * before.turns) - lost_turns


def test_integer_dialogue_ids_of_turn_records_are_named_by_their_digits():
    records = [{"dialogue_id": 7, "turn_id": 0, "state": {"hotel-area": "north"}}]
    corpus = Corpus.from_turn_records(records, [{**records[0], "dialogue_id": "7"}])
    assert [d.dialogue_id for d in corpus.dialogues] == ["7"]
    assert score(corpus).scores.jga == 1.0


def test_signature_names_a_grid_of_several_lambdas_other_than_the_default():
    from dst_metrics import Options

    assert "lambdas" not in Options().signature()
    assert "lambdas" not in Options(fga_lambda=1.0).signature()  # the grid is the default one
    assert "|lambda:1|lambdas:1|" in Options(fga_lambda=1.0, fga_lambdas=(1.0,)).signature()
    assert "|lambda:0.25|lambdas:0.25,0.5,1|" in Options(fga_lambda=0.25, fga_lambdas=(0.25, 0.5, 1.0)).signature()


def test_acceptable_values_keep_the_order_they_were_given_in():
    # Some evaluators read only the first gold value (mwzeval, SGD's categorical slots).
    from dst_metrics.states import Alternatives

    corpus = Corpus.from_reference_layout(layout({"hotel-area": ["north", "centre", "north"]}, NORTH))
    value = corpus.dialogues[0].gold[0]["hotel-area"]
    assert isinstance(value, Alternatives) and value.order == ("north", "centre") and value.first == "north"
    assert value == frozenset({"centre", "north"}) == Alternatives(["centre", "north"])  # still a set
    import pickle

    assert pickle.loads(pickle.dumps(value)).order == ("north", "centre")
