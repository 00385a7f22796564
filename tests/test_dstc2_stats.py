"""DSTC2.md sections 2 and 6, rule by rule: `normalise_dist` (`dst_metrics.dstc2.stats`), the ROC curve and
the official per-object accumulators of the reference scorer (tests/fixtures/dstc2/reference_scorer.py).

Every expected value is derived by hand in the comment next to it.
"""

from __future__ import annotations

import math
import random

import pytest

from dst_metrics.dstc2.stats import STAT_NAMES, normalise_dist
from dst_metrics.dstc2.stats import roc_results as package_roc_results
from tests.fixtures.dstc2.reference_scorer import (
    MRR,
    ROC,
    Accuracy,
    Probs,
    Updates,
    new_stats,
    roc_curve,
    roc_results,
    top_independent,
)

# ---------------------------------------------------------------- section 2: normalise_dist


def test_negative_score_is_kept_and_warned():
    warnings: list[str] = []
    # total = -0.2 + 0.5 = 0.3 -> residual None 0.7; sorted 0.7, 0.5, -0.2
    out = normalise_dist([("a", -0.2), ("b", 0.5)], warnings.append)
    assert out == [(None, pytest.approx(0.7)), ("b", 0.5), ("a", -0.2)]
    assert len(warnings) == 1 and "less than 0.0" in warnings[0]


def test_sum_above_one_is_renormalised_and_residual_is_zero():
    warnings: list[str] = []
    # 0.6 + 0.6 = 1.2 > 1: each / 1.2 = 0.5, total := 1 -> None 0.0; tie a/b keeps input order, None loses
    assert normalise_dist([("a", 0.6), ("b", 0.6)], warnings.append) == [("a", 0.5), ("b", 0.5), (None, 0.0)]
    assert len(warnings) == 1


def test_warning_only_beyond_tolerance():
    warnings: list[str] = []
    # 1.000001 - 1 = 1e-6 <= 1e-5: renormalised to 1.0 silently
    assert normalise_dist([("a", 1.000001)], warnings.append) == [("a", 1.0), (None, 0.0)]
    assert warnings == []


def test_residual_always_present_and_loses_ties():
    assert normalise_dist([("a", 1.0)]) == [("a", 1.0), (None, 0.0)]
    # a 0.5, residual 0.5: the residual comes last in the tie
    assert normalise_dist([("a", 0.5)]) == [("a", 0.5), (None, 0.5)]
    # b and a tie at 0.25; residual 0.5 wins: None, b, a (input order kept among the tie)
    assert normalise_dist([("b", 0.25), ("a", 0.25)]) == [(None, 0.5), ("b", 0.25), ("a", 0.25)]


def test_residual_sorts_above_negative_scores():
    # total -0.1 -> residual 1.1 first, then -0.1
    assert normalise_dist([("a", -0.1)]) == [(None, pytest.approx(1.1)), ("a", -0.1)]


def test_empty_gives_residual_one():
    assert normalise_dist([]) == [(None, 1.0)]


def test_requested_above_one_gives_negative_false():
    # p = 1.25: [(True, 1.25), (False, -0.25)] sums to 1.0, not > 1: residual 0.0, sorted 1.25, 0.0, -0.25
    assert normalise_dist([(True, 1.25), (False, 1.0 - 1.25)]) == [(True, 1.25), (None, 0.0), (False, -0.25)]


# ---------------------------------------------------------------- section 6: acc, mrr, l2


def _fed(cls, calls):
    stat = cls()
    stat.new_dialog()
    for dist, label, *independent in calls:
        stat.add(dist, label, independent=bool(independent and independent[0]))
    return stat.results()


def test_accuracy_and_undefined_when_no_calls():
    dist = normalise_dist([("x", 0.6), ("y", 0.3)])  # x 0.6, y 0.3, None 0.1
    # top x: right for label x, wrong for y and for None -> 1/3
    assert _fed(Accuracy, [(dist, "x"), (dist, "y"), (dist, None)]) == {"acc": pytest.approx(1 / 3)}
    assert _fed(Accuracy, []) == {"acc": None}
    assert Accuracy().results() == {"acc": None}


def test_mrr_counts_the_none_residual_as_a_hypothesis():
    dist = normalise_dist([("x", 0.6), ("y", 0.3)])  # ranks: x 1, y 2, None 3
    # label None: 1/3; label y: 1/2; label z (absent): 0 -> mean (1/3 + 1/2 + 0) / 3 = 5/18
    assert _fed(MRR, [(dist, None), (dist, "y"), (dist, "z")])["mrr"] == pytest.approx(5 / 18)


def test_l2_plain_counts_every_other_score_including_residual():
    dist = normalise_dist([("x", 0.6), ("y", 0.3)])  # x .6, y .3, None .1
    results = _fed(Probs, [(dist, "y")])
    # p = 0.3; others 0.6, 0.1: l2 = 0.7^2 + 0.36 + 0.01 = 0.86; binary = 0.49 + 0.7^2 = 0.98
    assert results["l2"] == pytest.approx(0.86)
    assert results["l2.binary"] == pytest.approx(0.98)
    assert results["avgp"] == pytest.approx(0.3)
    assert results["neglogp"] == pytest.approx(-math.log(0.3))


def test_l2_label_none_makes_the_residual_correct():
    dist = normalise_dist([("x", 0.6)])  # x .6, None .4
    # label None: p = 0.4, others [0.6]: l2 = 0.36 + 0.36 = 0.72
    assert _fed(Probs, [(dist, None)])["l2"] == pytest.approx(0.72)


def test_l2_last_match_wins_and_negative_scores_count():
    dist = [("x", 0.5), ("x", 0.2), (None, 0.4), ("y", -0.1)]  # a hand-made list with a repeated hypothesis
    # p = 0.2 (the last x); every x is "the label", so the others are 0.4 and -0.1:
    # l2 = 0.8^2 + 0.16 + 0.01 = 0.81; binary = 0.64 + (0.4 - 0.1)^2 = 0.73
    results = _fed(Probs, [(dist, "x")])
    assert results["l2"] == pytest.approx(0.81)
    assert results["l2.binary"] == pytest.approx(0.73)
    # mrr takes the first match (rank 1)
    assert _fed(MRR, [(dist, "x")])["mrr"] == 1.0


def test_neglogp_floor():
    dist = normalise_dist([("x", 1.0)])
    # label y is absent: p = 0 -> -ln(0.0001) = 9.2103...
    assert _fed(Probs, [(dist, "y")])["neglogp"] == pytest.approx(-math.log(0.0001))


# ---------------------------------------------------------------- independent joint


def _dists():
    # food: chinese .7, None .3 ; area: None 1.0 (absent)
    return {"food": normalise_dist([("chinese", 0.7)]), "area": [(None, 1.0)]}


def test_top_independent_product_includes_residual_tops():
    food = normalise_dist([("chinese", 0.2)])  # None .8 on top
    # top over slots whose top is not None: none -> None; score = 0.8 * 1.0
    assert top_independent({"food": food, "area": [(None, 1.0)]}) == (None, pytest.approx(0.8))
    assert top_independent(_dists()) == ({"food": "chinese"}, pytest.approx(0.7))


def test_independent_stats():
    label = {"food": "chinese"}
    # p = p_food(chinese) .7 * p_area(None) 1.0 = .7
    # sum_q2 = (0.49 + 0.09) * 1.0 - 0.49 = 0.09; l2 = 0.09 + 0.09 = 0.18; binary = 2 * 0.09 = 0.18
    results = _fed(Probs, [(_dists(), label, True)])
    assert results["l2"] == pytest.approx(0.18)
    assert results["l2.binary"] == pytest.approx(0.18)
    assert results["avgp"] == pytest.approx(0.7)
    assert _fed(Accuracy, [(_dists(), label, True)])["acc"] == 1.0
    # label {} never happens (None instead): label None -> food must be None: rank 2, area rank 1 -> 1/2
    assert _fed(MRR, [(_dists(), None, True)])["mrr"] == pytest.approx(0.5)
    # area labelled north: not in area's list -> 0
    assert _fed(MRR, [(_dists(), {"food": "chinese", "area": "north"}, True)])["mrr"] == 0.0
    # p for that label = 0.7 * 0 = 0: l2 = 1 + (0.58 - 0) = 1.58, binary 2
    results = _fed(Probs, [(_dists(), {"food": "chinese", "area": "north"}, True)])
    assert results["l2"] == pytest.approx(1.58) and results["l2.binary"] == pytest.approx(2.0)


# ---------------------------------------------------------------- updates


def test_updates_counts():
    def top(hyp):
        return [(hyp, 1.0)]

    # dialog: (prev None) cur a label a -> correct; cur a label a -> prev==true, no change: nothing;
    # cur b label a -> prev==true, changed: insertion; cur b label c -> prev!=true, prev==cur: deletion;
    # cur d label c -> prev!=true, changed, true!=cur: substitution
    calls = [(top("a"), "a"), (top("a"), "a"), (top("b"), "a"), (top("b"), "c"), (top("d"), "c")]
    results = _fed(Updates, calls)
    # correct 1, insertions 1, deletions 1, substitutions 1: acc = 1/3, prec = 1/3
    assert results == {"update.acc": pytest.approx(1 / 3), "update.prec": pytest.approx(1 / 3)}


def test_updates_reset_per_dialog_and_undefined():
    stat = Updates()
    stat.new_dialog()
    stat.add([("a", 1.0)], "a")  # correct
    stat.new_dialog()
    stat.add([("a", 1.0)], "a")  # prev None again: correct again (not "no change")
    assert stat.results() == {"update.acc": 1.0, "update.prec": 1.0}
    # prev None, top None, label None: prev==true and unchanged -> counts nothing: both undefined
    assert _fed(Updates, [([(None, 1.0)], None)]) == {"update.acc": None, "update.prec": None}


# ---------------------------------------------------------------- ROC


def _roc(items):
    stat = ROC()
    for correct, score in items:
        stat.add([("x", score)], "x" if correct else "y")
    return stat.results()


def test_roc_points_take_the_first_item_of_a_tie_run():
    # sorted scores .9(T) .5(F) .5(T) .1(F); points i = 0, 1 (first of the .5 run), 3
    curve = roc_curve([True, False, True, False], [0.9, 0.5, 0.5, 0.1])
    # from accept-all: i=3: TA 2 FA 2 TR 0 FR 0; i=1: TA 1 FA 1 TR 1 FR 1; i=0: TA 1 FA 0 TR 2 FR 1
    assert curve == [(2, 2, 0, 0), (1, 1, 1, 1), (1, 0, 2, 1)]


def test_roc_figures():
    results = _roc([(True, 0.9), (False, 0.5), (True, 0.5), (False, 0.1)])
    # EER: first point with FR >= FA: i=3 has FR 0 < FA 2; i=1 FR 1 >= FA 1 -> (1 + 1) / 4 = 0.5
    assert results["roc.v1_eer"] == 0.5
    # CA v1 @5%: FA/N <= .05 first at i=0 (FA 0) -> TA/N = 1/4; same at 10%; @20%: 1/4 (i=1 has 1/4 = .25 > .2)
    assert results["roc.v1_ca05"] == results["roc.v1_ca20"] == 0.25
    # CA v2 @20%: FA rate 2/2, 1/2, 0/2 -> first <= .2 at i=0: TA rate 1/2
    assert results["roc.v2_ca05"] == results["roc.v2_ca20"] == 0.5


@pytest.mark.parametrize("seed", range(4))
def test_the_package_roc_rows_are_the_literal_ones(seed):
    # dstc2.stats.roc_results (calibration's) against the literal curve and rows, ties and short lists included
    draw = random.Random(seed)
    for _ in range(300):
        n = draw.randrange(0, 20)
        correct = [draw.random() < draw.random() for _ in range(n)]
        scores = [draw.randrange(5) / 4 if draw.random() < 0.5 else draw.random() for _ in range(n)]
        assert package_roc_results(correct, scores) == roc_results(correct, scores)
    assert package_roc_results([True, False, True, False], [0.9, 0.5, 0.5, 0.1])["roc.v1_eer"] == 0.5


def test_roc_v2_undefined_when_all_tops_right_or_wrong():
    results = _roc([(True, 0.9), (True, 0.5), (True, 0.1)])
    assert results["roc.v2_ca05"] is None and results["roc.v1_ca05"] is not None
    assert _roc([(False, 0.9), (False, 0.5), (False, 0.1)])["roc.v2_ca20"] is None


def test_roc_short_lists_are_undefined():
    # N = 2: empty curve -> every figure None (the script prints "Could not find a place ..."); N = 1: N < 2
    assert set(_roc([(True, 0.9), (False, 0.1)]).values()) == {None}
    assert set(_roc([(True, 0.9)]).values()) == {None}
    assert set(_roc([]).values()) == {None}


def test_eer_none_when_no_point_has_fr_at_least_fa():
    # all wrong, distinct scores: FR = 0 everywhere, FA >= 1 -> no point: None
    assert _roc([(False, 0.9), (False, 0.5), (False, 0.1)])["roc.v1_eer"] is None


def test_stat_names_cover_the_five_families_in_csv_order():
    results = {}
    for stat in new_stats():
        results.update(stat.results())
    assert tuple(results) == STAT_NAMES
