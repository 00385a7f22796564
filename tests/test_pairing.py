"""Gold and predictions from two one-sided inputs: matched by dialogue and turn, never skipped."""

from __future__ import annotations

import pytest

from dst_metrics import Corpus, InputError, score
from dst_metrics.readers.base import Side
from dst_metrics.readers.pairing import pair

NORTH = {"hotel-area": "north"}
SOUTH = {"hotel-area": "south"}


def test_sides_pair_by_dialogue_and_turn_into_the_same_corpus_as_one_file():
    gold = Side({"MUL0003": {0: {}, 1: NORTH}, "SNG01": {0: SOUTH}})
    pred = Side({"SNG01": {0: SOUTH}, "MUL0003": {1: SOUTH, 0: {}}})
    corpus = pair(gold, pred)
    expected = Corpus.from_reference_layout(
        {
            "MUL0003": {"0": {"gt": {}, "pr": {}}, "1": {"gt": NORTH, "pr": SOUTH}},
            "SNG01": {"0": {"gt": SOUTH, "pr": SOUTH}},
        }
    )
    assert corpus == expected
    assert score(corpus).scores.as_dict() == score(expected).scores.as_dict()


def test_loose_ids_and_turns_by_position():
    # mwzeval: dialogue ids lower-case without ".json", turns by position; the gold ids are kept.
    gold = Side({"MUL0003.json": {0: {}, 2: NORTH}})
    pred = Side({"mul0003": {0: {}, 1: NORTH}}, ids="loose", turns="position")
    (dialogue,) = pair(gold, pred).dialogues
    assert (dialogue.dialogue_id, dialogue.turn_ids, dialogue.pred[1]) == ("MUL0003.json", (0, 2), NORTH)


@pytest.mark.parametrize(
    "gold, pred, message",
    [
        (
            Side({"a": {0: {}}, "b": {0: {}}}, source="gold.json"),
            Side({"a": {0: {}}}),
            'gold.json: dialogues with no partner in the predictions: "b" '
            "(--only-predicted scores only the gold dialogues predicted)",
        ),
        (
            Side({"a": {0: {}}}),
            Side({"a": {0: {}}, "c": {0: {}}}, source="p.json"),
            'p.json: dialogues with no partner in the gold: "c"',
        ),
        (
            Side({"a": {0: {}, 1: {}}}),
            Side({"a": {0: {}}}),
            'dialogue "a", turn 1: this turn has no partner in the predictions',
        ),
        (
            Side({"a": {0: {}}}),
            Side({"a": {0: {}, 3: {}}}),
            'dialogue "a", turn 3: this turn has no partner in the gold',
        ),
        (
            Side({"a": {0: {}}}),
            Side({"a": {0: {}, 1: {}}}, turns="position"),
            'dialogue "a": 1 gold turns but 2 predicted turns',
        ),
    ],
)
def test_a_dialogue_or_turn_on_one_side_is_an_error_naming_it(gold, pred, message):
    with pytest.raises(InputError) as caught:
        pair(gold, pred)
    assert str(caught.value) == message


def test_a_bad_state_is_named_with_its_dialogue_and_turn():
    with pytest.raises(InputError, match=r'dialogue "a", turn 0, field pr.hotel-area: a value must be'):
        pair(Side({"a": {0: {}}}), Side({"a": {0: {"hotel-area": None}}}))


@pytest.mark.parametrize(
    ("gold_turns", "pred_turns", "named"),
    [({0: {}, 1: NORTH}, {0: {}}, "gold.json"), ({0: {}}, {0: {}, 1: SOUTH}, "pred.json")],
)
def test_a_turn_on_one_side_only_names_the_file_it_is_in(gold_turns, pred_turns, named):
    # found by the fuzz of issue 57: a turn id given twice in a ConvLab unified file left its turn without a
    # partner, and the error named the dialogue and turn but no file
    gold = Side({"MUL0003": gold_turns}, "gold.json")
    pred = Side({"MUL0003": pred_turns}, "pred.json")
    with pytest.raises(InputError) as error:
        pair(gold, pred)
    assert str(error.value).startswith(f'{named}, dialogue "MUL0003", turn 1: this turn has no partner')
