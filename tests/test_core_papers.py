"""Worked examples of the papers, with the numbers the papers print.

- RSA paper (Kim et al. 2022), Table 3 (RSA vs AGA) and Table A6 (SA vs RSA per turn);
- GCA paper (Aksu & Chen), Figure 1 (P1 vs P2), section 5.4 (the hypothetical dialogue),
  Figure 6 (MUL1110) and Figure 7 (SNG0779).

The GCA paper's examples come from `dst_metrics.space.examples.EXAMPLES`; where ../shared is present
they are also checked against the reference files the official code scored.
"""

from __future__ import annotations

import json
import math

import pytest

from dst_metrics import Corpus, read, score
from dst_metrics.analysis.explain import domain_gca, mistakes_per_turn, non_uniformity, tail_orientation
from dst_metrics.space.examples import EXAMPLES
from tests.conftest import REFERENCE, requires_shared

MODES = ("official", "corrected")


def one_turn(gold: dict, pred: dict) -> Corpus:
    """A one-turn dialogue from flat states."""
    return Corpus.from_dialogues(predictions=[[pred]], references=[[gold]])


def percent(x: float) -> float:
    return round(100 * x, 2)


# --------------------------------------------------------------------------------------------
# RSA paper, Table 3: AGA cannot tell Model A from Model B, RSA can.

TABLE3_GOLD = {"restaurant-area": "centre", "restaurant-food": "indian", "restaurant-people": "2"}
TABLE3_MODEL_A = {"restaurant-area": "centre", "restaurant-food": "chinese", "attraction-area": "centre"}
TABLE3_MODEL_B = {
    "restaurant-area": "centre",
    "restaurant-food": "chinese",
    "restaurant-name": "nusha",
    "attraction-area": "centre",
    "attraction-pricerange": "cheap",
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pred, rsa", [(TABLE3_MODEL_A, 0.2500), (TABLE3_MODEL_B, 0.1667)], ids=["model_A", "model_B"])
def test_rsa_table3(pred, rsa, mode):
    scores = score(one_turn(TABLE3_GOLD, pred), mode=mode).scores
    assert scores.jga == 0
    assert round(scores.aga, 4) == 0.3333
    assert round(scores.rsa, 4) == rsa


def test_rsa_table3_exact_fractions():
    # Model A: T* = |{r-area, r-food, r-people, a-area}| = 4, missed = {r-people} = 1,
    # wrong = {r-food-chinese, a-area-centre} = 2 -> (4 - 1 - 2) / 4 = 1/4.
    # Model B: T* = 6 (adds r-name, a-pricerange), missed 1, wrong 4 -> 1/6. AGA = 1/3 for both.
    a = score(one_turn(TABLE3_GOLD, TABLE3_MODEL_A)).scores
    b = score(one_turn(TABLE3_GOLD, TABLE3_MODEL_B)).scores
    assert a.rsa == pytest.approx(1 / 4)
    assert b.rsa == pytest.approx(1 / 6)
    assert a.aga == b.aga == pytest.approx(1 / 3)
    # SA (not printed in Table 3, derived from SPEC): Model A misses r-food-indian and
    # r-people-2; of its extra items only a-area-centre counts as wrong (r-food is a missed slot),
    # so 3 errors: (30 - 3) / 30. Model B adds r-name-nusha and a-pricerange-cheap: 5 errors.
    assert a.sa == pytest.approx(27 / 30)
    assert b.sa == pytest.approx(25 / 30)


@pytest.mark.parametrize("mode", MODES)
def test_rsa_turn_with_no_slot_on_either_side_scores_zero(mode):
    # Equation 3 divides by T*, the slots of the gold and predicted states; a turn with none
    # (T* = 0) scores 0, as in the RSA paper and the official code, in both modes: corrected
    # mode fixes the official code's quirks, it does not redefine RSA.
    # Dialogue: turn 0 {} / {} (T* = 0 -> 0); turn 1 r-area=centre on both sides (T* = 1 -> 1);
    # turn 2 Table 3's gold and Model A (1/4). RSA = (0 + 1 + 1/4) / 3 = 5/12.
    area = {"restaurant-area": "centre"}
    corpus = Corpus.from_dialogues(predictions=[[{}, area, TABLE3_MODEL_A]], references=[[{}, area, TABLE3_GOLD]])
    assert score(corpus, mode=mode).scores.rsa == pytest.approx(5 / 12)
    assert score(one_turn({}, {}), mode=mode).scores.rsa == 0.0


# --------------------------------------------------------------------------------------------
# RSA paper, Table A6: slot accuracy stays high while nothing is right; RSA rewards the turns
# that are. Columns "Predicted State | Gold State": the prediction keeps restaurant-name-nusha
# (turns 0-3), the gold has attraction-name-nusha from turn 2 on.

NUSHA = {"restaurant-name": "nusha"}
AREA_FOOD = {"restaurant-area": "centre", "restaurant-food": "indian"}
PRICE = {"restaurant-pricerange": "expensive"}
SAFFRON = {"restaurant-name": "saffron brasserie"}
GOLD_NUSHA = {"attraction-name": "nusha"}
A6_PRED = [NUSHA] * 4 + [AREA_FOOD, {**AREA_FOOD, **PRICE}] + [{**SAFFRON, **AREA_FOOD, **PRICE}] * 4
A6_GOLD = (
    [{}] * 2
    + [GOLD_NUSHA] * 2
    + [{**GOLD_NUSHA, **AREA_FOOD}, {**GOLD_NUSHA, **AREA_FOOD, **PRICE}]
    + [{**GOLD_NUSHA, **SAFFRON, **AREA_FOOD, **PRICE}] * 4
)
A6_SA = [0.9667, 0.9667, 0.9333, 0.9333, 0.9667, 0.9667, 0.9667, 0.9667, 0.9667, 0.9667]
A6_RSA = [0, 0, 0, 0, 0.6667, 0.75, 0.8, 0.8, 0.8, 0.8]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("turn", range(10))
def test_table_a6_per_turn(turn, mode):
    scores = score(one_turn(A6_GOLD[turn], A6_PRED[turn]), mode=mode, num_slots=30).scores
    assert round(scores.sa, 4) == A6_SA[turn]
    assert round(scores.rsa, 4) == A6_RSA[turn]


@pytest.mark.parametrize("mode", MODES)
def test_table_a6_dialogue_means(mode):
    # As one dialogue, SA and RSA are the means of the per-turn figures: SA errors per turn
    # 1, 1, 2, 2, 1, 1, 1, 1, 1, 1 = 12 -> 1 - 12/300; RSA = (2/3 + 3/4 + 4 * 4/5) / 10.
    corpus = Corpus.from_dialogues(predictions=[A6_PRED], references=[A6_GOLD])
    scores = score(corpus, mode=mode).scores
    assert scores.sa == pytest.approx(1 - 12 / 300)
    assert scores.rsa == pytest.approx((2 / 3 + 3 / 4 + 4 * 4 / 5) / 10)
    assert scores.sa == pytest.approx(sum(A6_SA) / 10, abs=1e-4)
    assert scores.rsa == pytest.approx(sum(A6_RSA) / 10, abs=1e-4)
    assert scores.jga == 0  # no turn of Table A6 is predicted exactly


def test_slot_accuracy_depends_on_k():
    # K is a parameter: turn 2 of Table A6 has 2 errors -> (K - 2) / K.
    corpus = one_turn(A6_GOLD[2], A6_PRED[2])
    for k in (2, 10, 30, 37):
        assert score(corpus, num_slots=k).scores.sa == pytest.approx((k - 2) / k)


# --------------------------------------------------------------------------------------------
# GCA paper, Figure 1: P1 gets 5 of 7 slots right, P2 only 1; every metric but GCA prefers P2.


@pytest.mark.parametrize("mode", MODES)
def test_first_example_gca(mode):
    example = EXAMPLES["first_example"]
    p1 = score(example.corpus("P1"), mode=mode).scores
    p2 = score(example.corpus("P2"), mode=mode).scores
    assert (p1.correct, p1.wrong, p1.missed, p1.overshot) == (5, 2, 0, 0)  # "five of seven"
    assert (p2.correct, p2.wrong, p2.missed, p2.overshot) == (1, 6, 0, 0)  # "only one"
    # With M = O = 0: P = G = 7, LP = LR = 1, VP = VR = C/7, so GCA = 1 / (1 + a(7/C - 1)):
    # P1: 1 / (1 + (10/11)(2/5)) = 11/15; P2: 1 / (1 + (10/11) 6) = 11/71.
    assert p1.gca == pytest.approx(11 / 15)
    assert p2.gca == pytest.approx(11 / 71)
    assert (percent(p1.gca), percent(p2.gca)) == (73.33, 15.49)
    assert (percent(p1.jga), percent(p2.jga)) == (0.0, 33.33)


@pytest.mark.parametrize("mode", MODES)
def test_first_example_other_metrics_prefer_p2(mode):
    example = EXAMPLES["first_example"]
    p1 = score(example.corpus("P1"), mode=mode).scores
    p2 = score(example.corpus("P2"), mode=mode).scores
    assert p1.gca > p2.gca
    for name in ("jga", "fga", "aga", "rsa"):
        assert getattr(p2, name) > getattr(p1, name), name
    for lam in (0.25, 0.5, 0.75, 1.0):
        assert p2.fga_grid[lam] > p1.fga_grid[lam]
    # SA "gives inflated and similar scores to both": above 0.9 and within 0.05 of each other.
    assert min(p1.sa, p2.sa) > 0.9
    assert abs(p1.sa - p2.sa) < 0.05


# --------------------------------------------------------------------------------------------
# GCA paper, section 5.4: the hypothetical zero-shot dialogue.


def test_hypothetical_example_is_the_dialogue_the_paper_describes():
    # Six turns (JGA 83.33 = 5/6), one active slot set in the first turn and one in the last.
    example = EXAMPLES["hypothetical"]
    internet, both = {"hotel-internet": "yes"}, {"hotel-internet": "yes", "hotel-parking": "yes"}
    assert list(example.gold) == [internet] * 5 + [both]
    assert list(example.predictions["P1"]) == [internet] * 5 + [{**internet, "hotel-parking": "no"}]
    assert list(example.predictions["P2"]) == [{"hotel-internet": "no"}] * 5 + [
        {"hotel-internet": "no", "hotel-parking": "yes"}
    ]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "prediction, jga, rsa, fga, gca",
    [("P1", 83.33, 91.67, 83.33, 52.38), ("P2", 0.0, 8.33, 59.75, 52.38)],
)
def test_hypothetical_example(prediction, jga, rsa, fga, gca, mode):
    scores = score(EXAMPLES["hypothetical"].corpus(prediction), mode=mode, fga_lambda=0.5).scores
    assert [percent(x) for x in (scores.jga, scores.rsa, scores.fga, scores.gca)] == [jga, rsa, fga, gca]
    # One right and one wrong change: C = W = 1, VP = VR = 1/2, LP = LR = 1 -> GCA = 1/(1 + a) = 11/21.
    assert (scores.correct, scores.wrong, scores.missed, scores.overshot) == (1, 1, 0, 0)
    assert scores.gca == pytest.approx(11 / 21)


def test_hypothetical_p2_fga_by_hand():
    # P2: turn 0 is a type-1 error (first turn); turns 1-4 repeat the error with no change of
    # their own (type 2, d = 1..4); turn 5 sets parking right: its changes agree, so type 2, d = 5.
    # FGA = Σ_{d=1..5} (1 - e^{-λd}) / 6.
    scores = score(EXAMPLES["hypothetical"].corpus("P2")).scores
    for lam in (0.25, 0.5, 0.75, 1.0):
        expected = sum(1 - math.exp(-lam * d) for d in range(1, 6)) / 6
        assert scores.fga_grid[lam] == pytest.approx(expected)
    assert scores.fga == pytest.approx(scores.fga_grid[0.5])


@pytest.mark.parametrize(
    "prediction, mistakes, to", [("P1", [0, 0, 0, 0, 0, 1], 5 / 12), ("P2", [1, 0, 0, 0, 0, 0], -5 / 12)]
)
def test_hypothetical_tail_orientation_and_non_uniformity(prediction, mistakes, to):
    # Section 5.2: TO = (E_t - (n-1)/2) / n, NU = Σ_t |m_t - E_m| / E_m with E_m = m / n.
    # P1's one mistake (parking wrong) is in the last turn: E_t = 5, TO = (5 - 2.5) / 6 = 5/12;
    # P2's (internet wrong) in the first: TO = -5/12. Both: m = 1, E_m = 1/6,
    # NU = (5 * 1/6 + 5/6) / (1/6) = 10.
    dialogue = EXAMPLES["hypothetical"].corpus(prediction).dialogues[0]
    assert mistakes_per_turn(dialogue) == mistakes
    assert tail_orientation(mistakes) == pytest.approx(to)
    assert non_uniformity(mistakes) == pytest.approx(10)


def test_tail_orientation_and_non_uniformity_by_hand():
    # m = [2, 0, 1, 1]: m = 4, n = 4, E_t = (0+0+2+3)/4 = 5/4, TO = (5/4 - 3/2) / 4 = -1/16;
    # E_m = 1, NU = |2-1| + |0-1| + 0 + 0 = 2. Spread evenly, NU = 0; no mistake: undefined (NaN).
    assert tail_orientation([2, 0, 1, 1]) == pytest.approx(-1 / 16)
    assert non_uniformity([2, 0, 1, 1]) == pytest.approx(2)
    assert non_uniformity([1, 1, 1]) == 0
    assert math.isnan(tail_orientation([0, 0])) and math.isnan(non_uniformity([0, 0]))


def test_first_example_by_domain():
    # Every slot of Figure 1 is a hotel slot: the hotel row is the whole dialogue.
    dialogues = EXAMPLES["first_example"].corpus("P1").dialogues
    assert domain_gca(dialogues) == {
        "hotel": {"correct": 5, "wrong": 2, "missed": 0, "overshot": 0, "gca": pytest.approx(11 / 15)}
    }


# --------------------------------------------------------------------------------------------
# GCA paper, Figure 6 (MUL1110) and Figure 7 (SNG0779).


@pytest.mark.parametrize("mode", MODES)
def test_mul1110(mode):
    scores = score(EXAMPLES["mul1110"].corpus("prediction"), mode=mode).scores
    assert (percent(scores.gca), percent(scores.fga)) == (31.43, 48.84)
    # "it only predicts one out of four slots correctly": the hotel name; attraction type is
    # missed, attraction name wrong, attraction area missed.
    assert (scores.correct, scores.wrong, scores.missed, scores.overshot) == (1, 1, 2, 0)


@requires_shared
@pytest.mark.parametrize("mode", MODES)
def test_sng0779(mode):
    scores = score(read(REFERENCE / "paper_sample_dials/predictions/sample_2.json", "reference"), mode=mode)
    scores = scores.scores
    assert (percent(scores.gca), percent(scores.fga)) == (75.0, 34.84)
    # "it predicts three out of five slots correctly": area is missed, name overshot.
    assert (scores.correct, scores.wrong, scores.missed, scores.overshot) == (3, 0, 1, 1)


def test_examples_carry_the_papers_figures():
    assert EXAMPLES["first_example"].published == {
        "P1": {"gca": 73.33, "jga": 0.0},
        "P2": {"gca": 15.49, "jga": 33.33},
    }
    assert EXAMPLES["hypothetical"].published == {
        "P1": {"jga": 83.33, "rsa": 91.67, "fga": 83.33, "gca": 52.38},
        "P2": {"jga": 0.0, "rsa": 8.33, "fga": 59.75, "gca": 52.38},
    }
    assert EXAMPLES["mul1110"].published == {"prediction": {"gca": 31.43, "fga": 48.84}}
    for example in EXAMPLES.values():
        for prediction, figures in example.published.items():
            scores = score(example.corpus(prediction)).scores
            assert {name: percent(getattr(scores, name)) for name in figures} == figures


# --------------------------------------------------------------------------------------------
# The examples are the dialogues the official code scored (../shared/reference).

EXAMPLE_FILES = [
    ("first_example", "P1", "poc/paper1"),
    ("first_example", "P2", "poc/paper2"),
    ("hypothetical", "P1", "paper_sample_dials/hypothetical_p1"),
    ("hypothetical", "P2", "paper_sample_dials/hypothetical_p2"),
    ("mul1110", "prediction", "paper_sample_dials/sample_1"),
]


@requires_shared
@pytest.mark.parametrize("name, prediction, stem", EXAMPLE_FILES)
def test_examples_match_the_reference_files(name, prediction, stem):
    folder, file = stem.split("/")
    path = REFERENCE / folder / "predictions" / f"{file}.json"
    reference = read(path, "reference")
    example = EXAMPLES[name].corpus(prediction)
    assert len(reference) == len(example) == 1
    ours, theirs = example.dialogues[0], reference.dialogues[0]
    assert theirs.dialogue_id.removesuffix(".json") == ours.dialogue_id
    assert (ours.turn_ids, ours.gold, ours.pred) == (theirs.turn_ids, theirs.gold, theirs.pred)
    published = json.loads((REFERENCE / folder / "published" / f"{file}.json").read_text())
    scores = score(example).scores
    assert percent(scores.gca) == published["GCA"]
    assert percent(scores.jga) == published["JGA"]
    assert percent(scores.rsa) == published["RSA"]
    assert percent(scores.aga) == published["AGA"]
    assert percent(scores.fga_grid[0.5]) == published["FGA_0.5"]
