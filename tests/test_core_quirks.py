"""Each quirk of the official GCA code (SPEC.md) on a tiny dialogue, in both modes.

Every expected number is derived by hand from SPEC.md in the comment beside it. Notation:
C, W, M, O = correct, wrong, missed, overshot; P = C+W+O, G = C+W+M; a = 10/11;
GCA = (P + G) / (a P/VP + a G/VR + (1-a) P/LP + (1-a) G/LR). When VP = LP and VR = LR
(W = 0) the weights cancel: GCA = (P + G) / (P/VP + G/VR).
"""

from __future__ import annotations

import math

import pytest

from dst_metrics import Corpus, score
from dst_metrics.analysis.explain import explain_dialogue

A = 10 / 11


def dialogue(gold: list[dict], pred: list[dict]) -> Corpus:
    """One dialogue from per-turn flat states (turn ids 0, 1, 2, ...)."""
    return Corpus.from_dialogues(predictions=[pred], references=[gold])


def both_modes(corpus: Corpus):
    return score(corpus, mode="official").scores, score(corpus, mode="corrected").scores


def counts(scores) -> tuple[int, int, int, int]:
    return scores.correct, scores.wrong, scores.missed, scores.overshot


def count_types(corpus: Corpus, mode: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """(turn, slot, count types) of every counted slot, from the explanation rows."""
    rows = explain_dialogue(corpus.dialogues[0], mode)
    return [(row.position, row.slot, row.count_types) for row in rows if row.count_types]


def counted_rows(corpus: Corpus, mode: str, position: int):
    """The explanation rows of the slots counted in one turn."""
    return [row for row in explain_dialogue(corpus.dialogues[0], mode) if row.position == position and row.count_types]


NORTH = {"hotel-area": "north"}
SOUTH = {"hotel-area": "south"}


# --------------------------------------------------------------------------------------------
# Quirk 1: gold and prediction both remove the same slot in the same turn.


def test_quirk1_shared_removal_is_correct_then_missed_in_official_mode():
    # Turn 0: both set area=north. Turn 1: both drop it (a perfect prediction).
    # Official: turn 0 gold change (area, north) matches -> C. Turn 1: both maps get
    # area=none; gold change (area, none) equals the prediction -> C (correct set); the predicted
    # change (area, none) was counted correct, so step 4 falls to "predicted value is none" -> M.
    # C=2, M=1: P=2, G=3, VP=LP=1, VR=LR=2/3 -> GCA = 5 / (2 + 3 * 3/2) = 10/13.
    # Corrected: turn 0 C; turn 1 area changed on both sides, g = p = inactive -> C. GCA = 1.
    corpus = dialogue([NORTH, {}], [NORTH, {}])
    official, corrected = both_modes(corpus)
    assert counts(official) == (2, 0, 1, 0)
    assert official.gca == pytest.approx(10 / 13)
    assert counts(corrected) == (2, 0, 0, 0)
    assert corrected.gca == 1.0
    assert count_types(corpus, "official") == [
        (0, "hotel-area", ("correct",)),
        (1, "hotel-area", ("correct", "missed")),
    ]
    assert count_types(corpus, "corrected") == [
        (0, "hotel-area", ("correct",)),
        (1, "hotel-area", ("correct",)),
    ]


def test_quirk1_a_perfect_prediction_scores_below_one_only_in_official_mode():
    corpus = dialogue([NORTH, {}], [NORTH, {}])
    official, corrected = both_modes(corpus)
    # The turn-level figures see two equal turns in both modes (JGA = FGA = 1).
    for scores in (official, corrected):
        assert scores.jga == 1.0
        assert scores.fga == 1.0
    assert official.gca < 1.0
    for name in ("gca", "value_precision", "value_recall", "label_precision", "label_recall"):
        assert getattr(corrected, name) == 1.0, name


# --------------------------------------------------------------------------------------------
# Quirk 2: the prediction dropped a slot earlier, then gold sets a new value.


def test_quirk2_new_gold_value_after_a_predicted_removal():
    # Turn 0: both area=north (C). Turn 1: prediction drops it, gold keeps north.
    # Turn 2: gold changes to south, prediction still without area.
    # Official: turn 1 predicted change (area, none), gold north -> M. Turn 2: gold change
    # (area, south); the predicted map holds area=none (filled in), so the slot is not absent ->
    # values differ, gold not none -> W. C=1, W=1, M=1: P=2, G=3, VP=1/2, VR=1/3, LP=1, LR=2/3,
    # denominator = a(4 + 9) + (1-a)(2 + 4.5) = 6.5 (1 + a) -> GCA = 5 / (6.5 * 21/11) = 110/273.
    # Corrected: turn 1 area changed (pred) -> g=north, p inactive -> M; turn 2 area changed
    # (gold) -> g=south, p inactive -> M. C=1, M=2: P=1, G=3, VP=LP=1, VR=LR=1/3 ->
    # GCA = 4 / (1 + 9) = 2/5.
    corpus = dialogue([NORTH, NORTH, SOUTH], [NORTH, {}, {}])
    official, corrected = both_modes(corpus)
    assert counts(official) == (1, 1, 1, 0)
    assert official.gca == pytest.approx(110 / 273)
    assert counts(corrected) == (1, 0, 2, 0)
    assert corrected.gca == pytest.approx(2 / 5)
    assert (2, "hotel-area", ("wrong",)) in count_types(corpus, "official")
    assert (2, "hotel-area", ("missed",)) in count_types(corpus, "corrected")


# --------------------------------------------------------------------------------------------
# Quirk 3: gold dropped a slot earlier, then the prediction sets it.


def test_quirk3_predicted_value_after_a_gold_removal():
    # Turn 0: both area=north (C). Turn 1: gold drops it, prediction keeps north.
    # Turn 2: prediction changes to south, gold still without area.
    # Official: turn 1 gold change (area, none), prediction north -> gold value none -> O.
    # Turn 2: predicted change (area, south); the gold map holds area=none -> not absent, no match,
    # not none, not counted wrong -> W. C=1, W=1, O=1: P=3, G=2, VP=1/3, VR=1/2, LP=2/3, LR=1,
    # denominator = a(9 + 4) + (1-a)(4.5 + 2) -> GCA = 110/273 (the mirror image of quirk 2).
    # Corrected: turn 1 g inactive, p=north -> O; turn 2 g inactive, p=south -> O.
    # C=1, O=2: P=3, G=1, VP=LP=1/3, VR=LR=1 -> GCA = 4 / (9 + 1) = 2/5.
    corpus = dialogue([NORTH, {}, {}], [NORTH, NORTH, SOUTH])
    official, corrected = both_modes(corpus)
    assert counts(official) == (1, 1, 0, 1)
    assert official.gca == pytest.approx(110 / 273)
    assert counts(corrected) == (1, 0, 0, 2)
    assert corrected.gca == pytest.approx(2 / 5)
    assert (2, "hotel-area", ("wrong",)) in count_types(corpus, "official")
    assert (2, "hotel-area", ("overshot",)) in count_types(corpus, "corrected")


# --------------------------------------------------------------------------------------------
# Quirk 4: nothing changes on either side.


@pytest.mark.parametrize("turns", [1, 3])
def test_quirk4_no_changes(turns):
    # No change at all: P = G = 0. Official GCA 0; corrected 1 (nothing to get wrong).
    # Every turn is an empty gold and empty prediction: JGA = FGA = SA = 1 in both modes; AGA (no
    # gold turn) is 0 official, 1 corrected; RSA (T* = 0 in every turn) is 0 in both modes: the
    # RSA paper's definition, which corrected mode keeps; slot P/R/F1 = 1 in both.
    corpus = dialogue([{}] * turns, [{}] * turns)
    official, corrected = both_modes(corpus)
    assert counts(official) == counts(corrected) == (0, 0, 0, 0)
    assert official.gca == 0.0
    assert corrected.gca == 1.0
    assert (official.aga, corrected.aga) == (0.0, 1.0)
    assert official.rsa == corrected.rsa == 0.0
    for scores in (official, corrected):
        assert (scores.jga, scores.fga, scores.sa) == (1.0, 1.0, 1.0)
        assert (scores.slot_precision, scores.slot_recall, scores.slot_f1) == (1.0, 1.0, 1.0)


def test_quirk4_per_dialogue_and_micro_corpus():
    # A corpus of a quiet dialogue and a perfect one: micro counts C=1 in both modes -> GCA 1;
    # per dialogue the quiet one is 0 (official) / 1 (corrected).
    corpus = Corpus.from_dialogues(predictions=[[{}, {}], [NORTH]], references=[[{}, {}], [NORTH]])
    official = score(corpus, mode="official", per_dialogue=True)
    corrected = score(corpus, mode="corrected", per_dialogue=True)
    assert official.scores.gca == corrected.scores.gca == 1.0
    assert official.dialogues["0"].gca == 0.0
    assert corrected.dialogues["0"].gca == 1.0
    assert official.dialogues["1"].gca == corrected.dialogues["1"].gca == 1.0


# --------------------------------------------------------------------------------------------
# The last-hyphen quirk of SA and RSA.


def test_last_hyphen_quirk():
    # Gold: type=guest-house, area=north. Prediction: type=hotel, area=north.
    # Official strings: gold {hotel-type-guest-house, hotel-area-north},
    # predicted {hotel-type-hotel, hotel-area-north}; split at the last hyphen the gold type item
    # has slot "hotel-type-guest".
    #   SA: missed = {hotel-type-guest-house} (slot hotel-type-guest), wrong = hotel-type-hotel
    #       (its slot hotel-type is not a missed slot) -> 2 errors -> 28/30.
    #   RSA: slots {hotel-type-guest, hotel-area} ∪ {hotel-type, hotel-area} -> T* = 3;
    #        missed slots {hotel-type-guest} = 1; wrong {hotel-type-hotel} = 1 -> (3-1-1)/3 = 1/3.
    # Corrected, on (slot, value) pairs:
    #   SA: missed = {type=guest-house} = 1, wrong = 0 (type is a missed slot) -> 29/30.
    #   RSA: T* = |{type, area}| = 2, missed slots 0, wrong 1 -> 1/2.
    # JGA 0, AGA 1/2 and GCA (C=1 area, W=1 type: 11/21) are the same in both modes.
    gold = {"hotel-type": "guest-house", "hotel-area": "north"}
    pred = {"hotel-type": "hotel", "hotel-area": "north"}
    official, corrected = both_modes(dialogue([gold], [pred]))
    assert official.sa == pytest.approx(28 / 30)
    assert official.rsa == pytest.approx(1 / 3)
    assert corrected.sa == pytest.approx(29 / 30)
    assert corrected.rsa == pytest.approx(1 / 2)
    for scores in (official, corrected):
        assert scores.jga == 0.0
        assert scores.aga == pytest.approx(1 / 2)
        assert counts(scores) == (1, 1, 0, 0)
        assert scores.gca == pytest.approx(11 / 21)


def test_hyphenated_values_predicted_exactly_score_one_in_both_modes():
    # Equal sets of strings: no missed, no wrong item wherever the split falls.
    state = {"hotel-type": "guest-house", "train-leaveat": "2019-03-08"}
    for scores in both_modes(dialogue([state], [state])):
        assert (scores.sa, scores.rsa, scores.jga, scores.aga, scores.gca) == (1.0, 1.0, 1.0, 1.0, 1.0)


# --------------------------------------------------------------------------------------------
# Explicit "none" values.


def test_explicit_none_in_gold_is_a_correct_change_in_official_mode_only():
    # Gold {area: none, type: hotel}, prediction {type: hotel}.
    # Official: the gold map keeps area=none; gold changes (area, none) -> slot absent from the
    # prediction and gold value none -> C; (type, hotel) -> C. C=2, GCA 1.
    # Corrected: 'none' is inactive, only type changed -> C=1, GCA 1.
    # Turn figures leave 'none' out in both modes: {type-hotel} both sides -> JGA = RSA = 1.
    official, corrected = both_modes(
        dialogue([{"hotel-area": "none", "hotel-type": "hotel"}], [{"hotel-type": "hotel"}])
    )
    assert counts(official) == (2, 0, 0, 0)
    assert counts(corrected) == (1, 0, 0, 0)
    for scores in (official, corrected):
        assert (scores.gca, scores.jga, scores.rsa, scores.aga, scores.sa) == (1.0, 1.0, 1.0, 1.0, 1.0)


def test_explicit_none_in_prediction_is_a_correct_change_in_official_mode_only():
    # Gold {type: hotel}, prediction {type: hotel, area: none}.
    # Official: predicted change (area, none), slot absent from gold and value none -> C; C=2.
    # Corrected: C=1. Either way nothing is wrong: GCA 1.
    official, corrected = both_modes(
        dialogue([{"hotel-type": "hotel"}], [{"hotel-type": "hotel", "hotel-area": "none"}])
    )
    assert counts(official) == (2, 0, 0, 0)
    assert counts(corrected) == (1, 0, 0, 0)
    assert official.gca == corrected.gca == 1.0
    assert official.jga == corrected.jga == 1.0


def test_gold_none_against_a_predicted_value():
    # Gold {area: none}, prediction {area: north}.
    # Official step 3: (area, none) vs north -> no match, gold none -> O. Step 4: (area, north)
    # in the gold map, no match, not none, not counted wrong in step 3 -> W. So O=1, W=1.
    # Corrected: g inactive, p=north -> O=1. C = 0 -> GCA 0 in both.
    # Turn figures: gold set {} vs {area-north}: JGA 0; RSA T*=1, wrong 1 -> 0; SA 29/30.
    official, corrected = both_modes(dialogue([{"hotel-area": "none"}], [NORTH]))
    assert counts(official) == (0, 1, 0, 1)
    assert counts(corrected) == (0, 0, 0, 1)
    for scores in (official, corrected):
        assert (scores.gca, scores.jga, scores.rsa) == (0.0, 0.0, 0.0)
        assert scores.sa == pytest.approx(29 / 30)
    # No turn has an active gold slot: AGA has nothing to average (0 official, 1 corrected).
    assert (official.aga, corrected.aga) == (0.0, 1.0)


# --------------------------------------------------------------------------------------------
# Official mode: a slot given as an explicit "none" (or "") and omitted later is filled in as
# "none", like a slot that was active (SPEC.md, GCA step 1: every key ever present on that side).


def test_prediction_none_then_omitted_is_wrong_not_missed_in_official_mode():
    # Turn 0: gold {type: hotel}, prediction {type: hotel, area: none}.
    # Turn 1: gold {type: hotel, area: north}, prediction {type: hotel} (area omitted).
    # Official: turn 0 gold change (type, hotel) matches -> C; predicted change (area, none),
    # slot absent from gold and value none -> C. Turn 1: area was present in the prediction
    # (as none), so the predicted map fills it in as area=none, the same pair as in turn 0: no
    # predicted change. Gold change (area, north): slot in the predicted map, none != north,
    # gold not none -> W (not M). C=2, W=1: P=3, G=3, VP=VR=2/3, LP=LR=1 ->
    # GCA = 6 / (a*9/2 + a*9/2 + (1-a)*3 + (1-a)*3) = 6 / (6 + 3a) = 2 / (2 + a) = 11/16.
    # (Counting only active slots as seen gave M instead: C=2, M=1 -> 10/13. The official code
    # prints C=2 W=1 M=0 O=0, GCA 0.6875.)
    # Corrected: 'none' is inactive: turn 0 type -> C; turn 1 area changed on the gold side,
    # g=north, p inactive -> M. C=1, M=1: P=1, G=2, VP=LP=1, VR=LR=1/2 -> GCA = 3 / (1 + 4) = 3/5.
    # Turn figures (none left out, both modes): turn 0 {type-hotel} = {type-hotel}; turn 1 gold
    # {type-hotel, area-north} vs {type-hotel}: JGA 1/2, AGA (1 + 1/2)/2 = 3/4,
    # RSA (1 + (2-1-0)/2)/2 = 3/4.
    corpus = dialogue(
        [{"hotel-type": "hotel"}, {"hotel-type": "hotel", **NORTH}],
        [{"hotel-type": "hotel", "hotel-area": "none"}, {"hotel-type": "hotel"}],
    )
    official, corrected = both_modes(corpus)
    assert counts(official) == (2, 1, 0, 0)
    assert official.gca == pytest.approx(11 / 16)
    assert counts(corrected) == (1, 0, 1, 0)
    assert corrected.gca == pytest.approx(3 / 5)
    for scores in (official, corrected):
        assert (scores.jga, scores.aga, scores.rsa) == (0.5, 0.75, 0.75)
    assert count_types(corpus, "official") == [
        (0, "hotel-type", ("correct",)),
        (0, "hotel-area", ("correct",)),
        (1, "hotel-area", ("wrong",)),
    ]
    assert count_types(corpus, "corrected") == [
        (0, "hotel-type", ("correct",)),
        (1, "hotel-area", ("missed",)),
    ]
    # The explanation shows what GCA compared: the filled-in none, then nothing (corrected).
    (official_row,) = counted_rows(corpus, "official", position=1)
    (corrected_row,) = counted_rows(corpus, "corrected", position=1)
    assert (official_row.gold, official_row.pred) == ("north", "none")
    assert (corrected_row.gold, corrected_row.pred) == ("north", None)


def test_gold_none_then_omitted_is_wrong_not_overshot_in_official_mode():
    # The mirror image. Turn 0: gold {type: hotel, area: none}, prediction {type: hotel}.
    # Turn 1: gold {type: hotel} (area omitted), prediction {type: hotel, area: north}.
    # Official: turn 0 gold changes (type, hotel) -> C and (area, none), slot absent from the
    # prediction and gold value none -> C. Turn 1: the gold map fills area in as none (no gold
    # change); predicted change (area, north): slot in the gold map, no match, not none, not
    # counted wrong in step 3 -> W (not O). C=2, W=1: P=G=3 -> GCA = 2 / (2 + a) = 11/16.
    # (Counting only active slots as seen gave O instead: C=2, O=1 -> 10/13. The official code
    # prints C=2 W=1 M=0 O=0, GCA 0.6875.)
    # Corrected: turn 0 type -> C; turn 1 area changed on the predicted side, g inactive,
    # p=north -> O. C=1, O=1: P=2, G=1, VP=LP=1/2, VR=LR=1 -> GCA = 3 / (4 + 1) = 3/5.
    # Turn figures: turn 0 equal; turn 1 {type-hotel} vs {type-hotel, area-north}: JGA 1/2,
    # AGA (1 + 1)/2 = 1, RSA (1 + (2-0-1)/2)/2 = 3/4.
    corpus = dialogue(
        [{"hotel-type": "hotel", "hotel-area": "none"}, {"hotel-type": "hotel"}],
        [{"hotel-type": "hotel"}, {"hotel-type": "hotel", **NORTH}],
    )
    official, corrected = both_modes(corpus)
    assert counts(official) == (2, 1, 0, 0)
    assert official.gca == pytest.approx(11 / 16)
    assert counts(corrected) == (1, 0, 0, 1)
    assert corrected.gca == pytest.approx(3 / 5)
    for scores in (official, corrected):
        assert (scores.jga, scores.aga, scores.rsa) == (0.5, 1.0, 0.75)
    assert count_types(corpus, "official") == [
        (0, "hotel-type", ("correct",)),
        (0, "hotel-area", ("correct",)),
        (1, "hotel-area", ("wrong",)),
    ]
    assert count_types(corpus, "corrected") == [
        (0, "hotel-type", ("correct",)),
        (1, "hotel-area", ("overshot",)),
    ]
    (official_row,) = counted_rows(corpus, "official", position=1)
    assert (official_row.gold, official_row.pred) == ("none", "north")


def test_spec_example_prediction_none_then_omitted():
    # SPEC.md, GCA step 1: the prediction gives area=none in turn 0 (gold empty) and omits the
    # slot in turn 1, where gold sets north.
    # Official: turn 0 predicted change (area, none), slot absent from gold, value none -> C.
    # Turn 1: predicted map area=none (no change); gold change (area, north) vs none -> W.
    # C=1, W=1: VP=VR=1/2, LP=LR=1 -> GCA = 1 / (1 + a) = 11/21. (The official code prints
    # C=1 W=1 M=0 O=0, GCA 0.5238.)
    # Corrected: turn 0 nothing active changed; turn 1 g=north, p inactive -> M. C=0 -> GCA 0.
    corpus = dialogue([{}, NORTH], [{"hotel-area": "none"}, {}])
    official, corrected = both_modes(corpus)
    assert counts(official) == (1, 1, 0, 0)
    assert official.gca == pytest.approx(11 / 21)
    assert counts(corrected) == (0, 0, 1, 0)
    assert corrected.gca == 0.0
    assert count_types(corpus, "official") == [(0, "hotel-area", ("correct",)), (1, "hotel-area", ("wrong",))]


def test_prediction_empty_string_then_omitted_in_official_mode():
    # The same pattern with "" (an ordinary value in official mode). Turn 0: gold {type: hotel},
    # prediction {type: hotel, area: ""}; turn 1: gold adds area=north, the prediction omits area.
    # Official: turn 0 type -> C; predicted change (area, ""), slot absent from gold, not none -> O.
    # Turn 1: the predicted map fills area in as none, a predicted change (area, none); gold
    # change (area, north) vs none -> W (area counted wrong); step 4 (area, none): no match,
    # predicted none -> M. C=1, W=1, M=1, O=1: P=G=3, VP=VR=1/3, LP=LR=2/3 ->
    # GCA = 6 / (a*9 + a*9 + (1-a)*9/2 + (1-a)*9/2) = 6 / (9 + 9a) = 2 / (3 + 3a) = 22/63.
    # (The official code prints C=1 W=1 M=1 O=1, GCA 0.3492.)
    # Corrected: "" is inactive: turn 0 type -> C; turn 1 g=north, p inactive -> M. GCA = 3/5.
    corpus = dialogue(
        [{"hotel-type": "hotel"}, {"hotel-type": "hotel", **NORTH}],
        [{"hotel-type": "hotel", "hotel-area": ""}, {"hotel-type": "hotel"}],
    )
    official, corrected = both_modes(corpus)
    assert counts(official) == (1, 1, 1, 1)
    assert official.gca == pytest.approx(22 / 63)
    assert counts(corrected) == (1, 0, 1, 0)
    assert corrected.gca == pytest.approx(3 / 5)
    assert (1, "hotel-area", ("wrong", "missed")) in count_types(corpus, "official")


# --------------------------------------------------------------------------------------------
# Quirk 9 (README): one side drops a slot while the other sets a new value, in the same turn.


def test_quirk9_gold_drops_while_prediction_changes_the_slot():
    # Turn 0: both north -> C. Turn 1: gold drops area (map: none, a change), prediction says south.
    # Official step 3: (area, none) vs south -> no match, gold none -> O. Step 4: (area, south) vs
    # gold none -> no match, not none, area not counted wrong in step 3 -> W. So C=1, W=1, O=1.
    # Corrected: area changed on both sides; g inactive, p south -> O once. C=1, O=1.
    official, corrected = both_modes(dialogue([NORTH, {}], [NORTH, SOUTH]))
    assert counts(official) == (1, 1, 0, 1)
    assert counts(corrected) == (1, 0, 0, 1)
    assert count_types(dialogue([NORTH, {}], [NORTH, SOUTH]), "official")[1] == (
        1,
        "hotel-area",
        ("overshot", "wrong"),
    )


def test_quirk9_gold_changes_while_prediction_drops_the_slot():
    # Turn 1: gold says south, the prediction drops area (map: none).
    # Official step 3: (area, south) vs none -> no match, gold not none -> W (area counted wrong).
    # Step 4: (area, none) -> no match, predicted none -> M. So C=1, W=1, M=1.
    # Corrected: g south, p inactive -> M once. C=1, M=1.
    official, corrected = both_modes(dialogue([NORTH, SOUTH], [NORTH, {}]))
    assert counts(official) == (1, 1, 1, 0)
    assert counts(corrected) == (1, 0, 1, 0)


def test_explicit_none_removal_equals_absence_in_corrected_mode():
    # Removing a slot by writing 'none' or by leaving it out is the same change in corrected mode:
    # turn 0 north/north (C), turn 1 gold none / prediction absent (both inactive -> C).
    by_none = dialogue([NORTH, {"hotel-area": "none"}], [NORTH, {}])
    by_absence = dialogue([NORTH, {}], [NORTH, {}])
    none_scores = score(by_none, mode="corrected").scores
    absent_scores = score(by_absence, mode="corrected").scores
    assert counts(none_scores) == counts(absent_scores) == (2, 0, 0, 0)
    assert none_scores.as_dict() == absent_scores.as_dict()


# --------------------------------------------------------------------------------------------
# "" as a value.


def test_empty_string_is_a_value_in_official_mode_and_inactive_in_corrected_mode():
    # Gold {area: "", type: hotel}, prediction {type: hotel}.
    # Official: "" is an ordinary value. GCA: (area, "") absent from the prediction, not none -> M;
    # (type, hotel) -> C. C=1, M=1: P=1, G=2, VP=LP=1, VR=LR=1/2 -> GCA = 3 / (1 + 4) = 3/5.
    # Turn figures on gold {area-, type-hotel} vs {type-hotel}: JGA 0; AGA 1/2; RSA T*=2,
    # missed 1 -> 1/2; SA 1 missed -> 29/30.
    # Corrected: "" is inactive: gold {type: hotel} = prediction -> everything 1, C=1.
    official, corrected = both_modes(dialogue([{"hotel-area": "", "hotel-type": "hotel"}], [{"hotel-type": "hotel"}]))
    assert counts(official) == (1, 0, 1, 0)
    assert official.gca == pytest.approx(3 / 5)
    assert official.jga == 0.0
    assert official.aga == pytest.approx(1 / 2)
    assert official.rsa == pytest.approx(1 / 2)
    assert official.sa == pytest.approx(29 / 30)
    assert counts(corrected) == (1, 0, 0, 0)
    assert (corrected.gca, corrected.jga, corrected.aga, corrected.rsa, corrected.sa) == (1.0,) * 5


def test_predicted_empty_string_is_overshot_in_official_mode_only():
    # Gold {type: hotel}, prediction {type: hotel, area: ""}.
    # Official: predicted change (area, ""), slot absent from gold, value not none -> O; C=1.
    # C=1, O=1: P=2, G=1, VP=LP=1/2, VR=LR=1 -> GCA = 3 / (4 + 1) = 3/5.
    # Corrected: "" is inactive -> C=1 only, GCA 1.
    official, corrected = both_modes(dialogue([{"hotel-type": "hotel"}], [{"hotel-type": "hotel", "hotel-area": ""}]))
    assert counts(official) == (1, 0, 0, 1)
    assert counts(corrected) == (1, 0, 0, 0)
    assert official.gca == pytest.approx(3 / 5)
    assert corrected.gca == 1.0
    assert official.jga == 0.0
    assert corrected.jga == 1.0


# --------------------------------------------------------------------------------------------
# FGA distances: turn ids (official) or positions (corrected).


def fga_corpus(turn_ids: list[int]) -> Corpus:
    # First turn: area wrong (type-1 error). Later turns add type=hotel right in the first of
    # them and repeat; each repeats the earlier mistake with no mistake of its own (type 2).
    gold = [NORTH] + [{**NORTH, "hotel-type": "hotel"}] * (len(turn_ids) - 1)
    pred = [SOUTH] + [{**SOUTH, "hotel-type": "hotel"}] * (len(turn_ids) - 1)
    return Corpus.from_reference_layout(
        {"d": {str(t): {"gt": g, "pr": p} for t, g, p in zip(turn_ids, gold, pred, strict=True)}}
    )


@pytest.mark.parametrize("lam", [0.25, 0.5, 0.75, 1.0])
def test_fga_distances_use_turn_ids_in_official_mode_and_positions_in_corrected_mode(lam):
    # Turn ids 0, 2, 4, 6. The first turn is a type-1 error at id 0 / position 0; the three
    # others are type-2 errors at d = 2, 4, 6 (ids) or d = 1, 2, 3 (positions). No turn is equal.
    # FGA = Σ (1 - e^{-λd}) / 4.
    corpus = fga_corpus([0, 2, 4, 6])
    official = score(corpus, mode="official").scores
    corrected = score(corpus, mode="corrected").scores
    assert official.fga_grid[lam] == pytest.approx(sum(1 - math.exp(-lam * d) for d in (2, 4, 6)) / 4)
    assert corrected.fga_grid[lam] == pytest.approx(sum(1 - math.exp(-lam * d) for d in (1, 2, 3)) / 4)
    assert official.jga == corrected.jga == 0.0
    # GCA counts do not depend on turn ids: area wrong (turn 0), type right (turn 2), C=1, W=1.
    assert counts(official) == counts(corrected) == (1, 1, 0, 0)
    assert official.gca == corrected.gca == pytest.approx(11 / 21)


def test_fga_at_lambda_half_by_hand():
    # λ = 0.5: official (3 - e^-1 - e^-2 - e^-3) / 4 = 0.61175; corrected
    # (3 - e^-0.5 - e^-1 - e^-1.5) / 4 = 0.45062.
    official, corrected = both_modes(fga_corpus([0, 2, 4, 6]))
    assert official.fga == pytest.approx(0.61175, abs=1e-5)
    assert corrected.fga == pytest.approx(0.45062, abs=1e-5)


def test_fga_with_consecutive_turn_ids_is_the_same_in_both_modes():
    official, corrected = both_modes(fga_corpus([0, 1, 2, 3]))
    assert official.fga_grid == corrected.fga_grid
    assert official.fga == pytest.approx((3 - math.exp(-0.5) - math.exp(-1) - math.exp(-1.5)) / 4)


def test_fga_type1_error_when_the_turns_own_change_is_wrong():
    # Turn 0 wrong (type 1, d anchor 0); turn 1 gold adds type=hotel, prediction adds
    # type=guesthouse: the turn's own gold change is not in the prediction -> type 1 again (0);
    # turn 2 repeats with no change -> type 2 at d = 1 from turn 1. FGA = (1 - e^{-λ}) / 3.
    gold = [NORTH, {**NORTH, "hotel-type": "hotel"}, {**NORTH, "hotel-type": "hotel"}]
    pred = [SOUTH, {**SOUTH, "hotel-type": "guesthouse"}, {**SOUTH, "hotel-type": "guesthouse"}]
    for scores in both_modes(dialogue(gold, pred)):
        assert scores.fga_grid[0.5] == pytest.approx((1 - math.exp(-0.5)) / 3)


# --------------------------------------------------------------------------------------------
# A prediction that removes a slot the gold never had.


def test_removing_a_slot_gold_never_had_is_correct_in_both_modes():
    # Turn 0: gold {}, prediction area=north. Turn 1: both empty.
    # Official: turn 0 predicted change (area, north), slot absent from gold -> O. Turn 1:
    # predicted map area=none, gold map has no area; predicted change (area, none), slot absent
    # from gold and value none -> C. Corrected: turn 0 g inactive, p=north -> O; turn 1 area
    # changed on the predicted side, g and p inactive -> C.
    # C=1, O=1: P=2, G=1, VP=LP=1/2, VR=LR=1 -> GCA = 3 / (4 + 1) = 3/5. JGA = 1/2.
    corpus = dialogue([{}, {}], [NORTH, {}])
    official, corrected = both_modes(corpus)
    for scores in (official, corrected):
        assert counts(scores) == (1, 0, 0, 1)
        assert scores.gca == pytest.approx(3 / 5)
        assert scores.jga == 0.5
    for mode in ("official", "corrected"):
        assert count_types(corpus, mode) == [
            (0, "hotel-area", ("overshot",)),
            (1, "hotel-area", ("correct",)),
        ]


def test_gold_removing_a_slot_the_prediction_never_had_is_correct_in_both_modes():
    # The mirror image: turn 0 gold area=north, prediction {} -> M. Turn 1: both empty.
    # Official: the gold map gets area=none; gold change (area, none), slot absent from the
    # predicted map and gold value none -> C. Corrected: area changed on the gold side, g and p
    # inactive -> C. C=1, M=1: P=1, G=2, VP=LP=1, VR=LR=1/2 -> GCA = 3 / (1 + 4) = 3/5.
    corpus = dialogue([NORTH, {}], [{}, {}])
    for scores in both_modes(corpus):
        assert counts(scores) == (1, 0, 1, 0)
        assert scores.gca == pytest.approx(3 / 5)


def test_dontcare_is_an_ordinary_value():
    # dontcare vs north is a wrong value, like any other pair of different values.
    for scores in both_modes(dialogue([{"hotel-area": "dontcare"}], [NORTH])):
        assert counts(scores) == (0, 1, 0, 0)
        assert scores.jga == 0.0
    for scores in both_modes(dialogue([{"hotel-area": "dontcare"}], [{"hotel-area": "dontcare"}])):
        assert counts(scores) == (1, 0, 0, 0)
        assert scores.gca == 1.0


def test_official_weights_value_and_label_rates_ten_to_one():
    # C=1, W=1 (the hypothetical dialogue's counts): VP = VR = 1/2, LP = LR = 1:
    # GCA = 4 / (4a + 4a + 2(1-a) + 2(1-a)) = 1 / (1 + a). With a = 10/11: 11/21; alpha is a
    # parameter, e.g. a = 1/2 -> 2/3 and a = 1 -> 1/2.
    corpus = dialogue([NORTH, {**NORTH, "hotel-type": "hotel"}], [NORTH, {**NORTH, "hotel-type": "guesthouse"}])
    assert score(corpus).scores.gca == pytest.approx(1 / (1 + A))
    assert score(corpus, alpha=0.5).scores.gca == pytest.approx(2 / 3)
    assert score(corpus, alpha=1.0).scores.gca == pytest.approx(1 / 2)
