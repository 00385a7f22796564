"""Value matching ``fuzzy``: predictions snapped to the gold value of their slot and turn when
fuzzywuzzy's partial_ratio (`dst_metrics.fuzzy`, as mwzeval calls it) is above 95, after case and
white space folding."""

import json

import pytest
from rapidfuzz import fuzz

from dst_metrics import Corpus
from dst_metrics.cli import main
from dst_metrics.corpus import snap_prediction
from dst_metrics.fuzzy import fuzzy_match, partial_ratio
from dst_metrics.hf_evaluate.arrow import corpus_from_arrow
from dst_metrics.options import VALUE_MATCHINGS, OptionError, Options
from dst_metrics.scoring.scores import score
from tests.arrow_rows import corpus_table

MODES = ("official", "corrected")


def built(gold, pred, matching="fuzzy"):
    """The one dialogue of a corpus of flat states (turn ids 0, 1, …)."""
    return Corpus.from_dialogues([pred], [gold], value_matching=matching)


def test_the_rule_and_its_threshold():
    assert "fuzzy" in VALUE_MATCHINGS and Options(value_matching="fuzzy").signature().endswith("|match:fuzzy")
    assert partial_ratio("chinese", "chinese food") == 100  # a substring
    assert fuzzy_match("chinese", "chinese food") and fuzzy_match("north", "the north")
    # one substitution in 20 characters: exactly 95, which is not above 95
    assert partial_ratio("abcdefghijklmnopqrst", "abcdefghiXklmnopqrst") == 95
    assert not fuzzy_match("abcdefghijklmnopqrst", "abcdefghiXklmnopqrst")
    # equal lengths: fuzzywuzzy scores the whole strings (95), where rapidfuzz's partial_ratio
    # tries every window and finds 97.4 in the end window
    assert partial_ratio("abcdefghijklmnopqrst", "abcdefghijklmnopqrsX") == 95
    assert fuzz.partial_ratio("abcdefghijklmnopqrst", "abcdefghijklmnopqrsX") > 97
    assert not fuzzy_match("abcdefghijklmnopqrst", "abcdefghijklmnopqrsX")
    assert partial_ratio("architectural", "architecture") == 92  # rapidfuzz: 95.65
    assert not fuzzy_match("chinese", "chinse")  # 83
    with pytest.raises(OptionError, match="fuzzy"):
        Options(value_matching="fuzzi")


@pytest.mark.parametrize("mode", MODES)
def test_substring_matches_in_every_figure(mode):
    # One turn, gold food "chinese", predicted "chinese food": exact gives W = 1 (GCA 0, JGA 0);
    # fuzzy snaps the prediction to "chinese": C = 1, GCA 1, JGA 1, slot F1 1.
    gold, pred = [{"restaurant-food": "chinese"}], [{"restaurant-food": "chinese food"}]
    exact = score(built(gold, pred, "exact"), mode=mode).scores
    fuzzy_corpus = built(gold, pred)
    fuzzy = score(fuzzy_corpus, mode=mode).scores
    assert (exact.wrong, exact.correct, exact.gca, exact.jga) == (1, 0, 0, 0)
    assert (fuzzy.wrong, fuzzy.correct, fuzzy.gca, fuzzy.jga, fuzzy.slot_f1) == (0, 1, 1, 1, 1)
    assert fuzzy_corpus.dialogues[0].pred == ({"restaurant-food": "chinese"},)
    assert fuzzy.signature.endswith("|match:fuzzy")


def test_below_the_threshold_nothing_changes():
    gold, pred = [{"restaurant-food": "italian"}], [{"restaurant-food": "indian"}]  # partial_ratio 66.7
    assert built(gold, pred).dialogues[0].pred == ({"restaurant-food": "indian"},)
    assert score(built(gold, pred)).scores.wrong == 1


def test_case_and_white_space_are_folded_first():
    # "CHINESE  Food" folds to "chinese food", a superstring of gold "chinese" (folded from "Chinese").
    corpus = built([{"restaurant-food": "Chinese"}], [{"restaurant-food": "CHINESE  Food"}])
    assert corpus.dialogues[0].gold == ({"restaurant-food": "chinese"},)
    assert corpus.dialogues[0].pred == ({"restaurant-food": "chinese"},)


def test_acceptable_values():
    # The prediction takes the acceptable value it matches ("north", the second one), a string.
    corpus = built([{"hotel-area": ["centre", "north"]}], [{"hotel-area": "the north"}])
    assert corpus.dialogues[0].pred == ({"hotel-area": "north"},)
    assert score(corpus).scores.jga == 1


def test_same_slot_and_same_turn_only():
    # Turn 0: gold has no food yet, so "chinese food" stays (an overshot). Turn 1: gold says
    # "chinese", the prediction is snapped. A gold value of another slot never snaps anything.
    gold = [{}, {"restaurant-food": "chinese"}]
    pred = [{"restaurant-food": "chinese food"}, {"restaurant-food": "chinese food", "restaurant-name": "chinese"}]
    dialogue = built(gold, pred).dialogues[0]
    assert dialogue.pred == (
        {"restaurant-food": "chinese food"},
        {"restaurant-food": "chinese", "restaurant-name": "chinese"},
    )


def test_inactive_values_never_snap():
    # partial_ratio("none", "no") is 100, but none is inactive: "no" stays a wrong value.
    assert fuzzy_match("none", "no")
    gold, pred = {"hotel-parking": "none", "hotel-area": ""}, {"hotel-parking": "no", "hotel-area": "x"}
    assert snap_prediction(gold, pred) is pred
    assert snap_prediction({"hotel-area": "north"}, {"hotel-area": "none"}) == {"hotel-area": "none"}


def test_unchanged_turns_keep_sharing_one_state():
    # Turns 1 and 2 repeat turn 0 on both sides: one state object, as the builder makes them;
    # turn 3 changes gold only and snaps to an equal state: still the same object.
    gold = [{"a-x": "chinese"}] * 3 + [{"a-x": "chinese", "b-y": "1"}]
    pred = [{"a-x": "chinese food"}] * 4
    states = built(gold, pred).dialogues[0].pred
    assert states[0] is states[1] is states[2] is states[3] and states[0] == {"a-x": "chinese"}


def test_exact_and_normalized_are_unchanged():
    gold, pred = [{"restaurant-food": "Chinese"}], [{"restaurant-food": "chinese food"}]
    assert built(gold, pred, "exact").dialogues[0].pred == ({"restaurant-food": "chinese food"},)
    assert built(gold, pred, "normalized").dialogues[0].pred == ({"restaurant-food": "chinese food"},)


def test_evaluate_rows_snap_like_the_builder():
    gold = [[{"a-x": "Chinese"}, {"a-x": "Chinese", "b-y": ["centre", "north"]}]]
    pred = [[{"a-x": "chinese food"}, {"a-x": "chinese food", "b-y": "the north"}]]
    table = corpus_table(Corpus.from_dialogues(pred, gold))
    back = corpus_from_arrow(table["predictions"], table["references"], "fuzzy")
    assert back == Corpus.from_dialogues(pred, gold, value_matching="fuzzy")
    assert score(back).scores.jga == 1


def test_cli(tmp_path, capsys):
    path = tmp_path / "ref.json"
    path.write_text(
        json.dumps({"d": {"0": {"gt": {"restaurant-food": "chinese"}, "pr": {"restaurant-food": "Chinese food"}}}})
    )
    assert main(["score", str(path), "--value-matching", "fuzzy", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["jga"] == 1 and "|match:fuzzy" in record["signature"]
