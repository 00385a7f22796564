"""DSTC2.md sections 1, 3, 4, 5 and 7 on synthetic sessions: labels, schedules, components, call order, skips, CSV.

Every session is scored by the package's column-wise scorer and by the literal official call order
(tests/fixtures/dstc2/reference_scorer.py), which must print the same CSV; expected values are derived
by hand in the comments.
"""

from __future__ import annotations

import pytest

from dst_metrics.dstc2.data import Act
from dst_metrics.dstc2.labels import method_label
from dst_metrics.dstc2.output import csv_text
from dst_metrics.dstc2.scorer import score
from tests.fixtures.dstc2.builders import ONTOLOGY, act, random_corpus, session, track, tracker_turn, turn
from tests.fixtures.dstc2.reference_scorer import reference_score

CHINESE = {"food": {"chinese": 1.0}}


def scored(sessions, tracked, **track_options):
    """Scores of both scorers, checked equal as printed."""
    data = track(tracked, **track_options)
    fast = score(sessions, data, ONTOLOGY)
    reference = reference_score(sessions, data, ONTOLOGY)
    assert csv_text(fast) == csv_text(reference)
    assert fast.skipped == reference.skipped
    return fast


def row(scores, component, stat, schedule=1, scheme="a"):
    for r in scores.rows:
        if (r.component, r.stat, r.schedule, r.scheme) == (component, stat, schedule, scheme):
            return r
    raise KeyError(component)


# ---------------------------------------------------------------- section 3: labels


def test_empty_goal_labels_give_a_none_joint_label():
    scores = scored([session("s", [turn()])], [("s", [tracker_turn()])])
    # nothing labelled, nothing tracked: the joint top None equals the label None
    assert row(scores, "goal.joint", "acc").value == 1.0
    assert row(scores, "goal.joint_independent", "acc").value == 1.0


def _canthelp_session(act_name):
    return session(
        "s",
        [
            turn({"food": "chinese"}),
            turn({"food": "chinese"}, system=(act(act_name, ("food", "chinese")),)),
            turn({"food": "indian"}),
        ],
    )


def test_scheme_b_drops_canthelped_values_and_fills_back():
    # A labels: chinese, chinese, indian. canthelp(food=chinese) at turn 1: B[1] is unset, then turn 2's
    # indian fills it: B = chinese, indian, indian. Tracker says chinese throughout.
    scores = scored([_canthelp_session("canthelp")], [("s", [tracker_turn(CHINESE)] * 3)])
    assert row(scores, "goal.food", "acc", 1, "a").value == pytest.approx(2 / 3)
    assert row(scores, "goal.food", "acc", 1, "b").value == pytest.approx(1 / 3)


def test_scheme_b_ignores_canthelp_exception():
    scores = scored([_canthelp_session("canthelp.exception")], [("s", [tracker_turn(CHINESE)] * 3)])
    # no canthelp: B = A = chinese, chinese, indian -> 2/3 under both schemes
    assert row(scores, "goal.food", "acc", 1, "b").value == pytest.approx(2 / 3)


def test_scheme_b_method_is_turn_local():
    turns = [
        turn(method="byconstraints", semantics=(act("inform", ("food", "chinese")),)),
        turn(method="byconstraints", semantics=(act("affirm"),)),  # B: "none", not carried from turn 0
        turn(method="byconstraints", semantics=(act("reqalts"),)),
    ]
    tracked = [tracker_turn(method={"byconstraints": 1.0})] * 3
    scores = scored([session("s", turns)], [("s", tracked)])
    assert row(scores, "method", "acc", 1, "a").value == 1.0  # A labels all byconstraints
    assert row(scores, "method", "acc", 1, "b").value == pytest.approx(1 / 3)  # B: byconstraints, none, byalts


def _act(name, *slots):
    return Act(name, [tuple(s) for s in slots])


def test_method_label_rule():
    assert method_label([]) == "none"
    assert method_label([_act("inform", ("name", "y")), _act("inform", ("food", "x"))]) == "byname"
    assert method_label([_act("bye"), _act("reqalts")]) == "byalternatives"  # reqalts before bye
    assert method_label([_act("bye"), _act("inform", ("food", "x"))]) == "finished"  # bye before inform
    assert method_label([_act("inform", ("food", "x"))]) == "byconstraints"
    assert method_label([_act("request", ("slot", "phone"))]) == "none"


def test_requested_has_no_scheme_b_and_all_uses_a_labels():
    turns = [turn(requested=("phone",))]
    scores = scored([session("s", turns)], [("s", [tracker_turn(requested={"phone": 0.9})])])
    assert not [r for r in scores.rows if r.component.startswith("requested") and r.scheme == "b"]
    # all under scheme b: food, area (None labels, None tops: right), phone (True, top True: right),
    # addr (False, absent default top False: right), method (A "none"; B from empty semantics "none"): 5/5
    assert row(scores, "all", "acc", 1, "b").n == 5
    assert row(scores, "all", "acc", 1, "b").value == 1.0


# ---------------------------------------------------------------- section 4: schedule 2


def test_schedule2_goal_this_slot_from_request():
    turns = [
        turn(system=(act("request", ("slot", "area")),), slu=((act("inform", ("this", "north")),),)),
        turn(),
    ]
    scores = scored([session("s", turns)], [("s", [tracker_turn()] * 2)])
    # "this" is area at turn 0; area stays mentioned: 2 calls; food never mentioned: none (-)
    assert row(scores, "goal.area", "acc", 2).n == 2
    assert row(scores, "goal.food", "acc", 2).n == 0 and row(scores, "goal.food", "acc", 2).value is None
    assert row(scores, "goal.joint", "acc", 2).n == 2  # some slot mentioned
    assert row(scores, "goal.all", "acc", 2).n == 2


def test_schedule2_impl_conf_mentions_but_does_not_set_this():
    turns = [turn(system=(act("impl-conf", ("food", "chinese")),), slu=((act("inform", ("this", "north")),),))]
    scores = scored([session("s", turns)], [("s", [tracker_turn()])])
    # impl-conf contains "conf": food mentioned; "this" has no slot: area not
    assert row(scores, "goal.food", "acc", 2).n == 1
    assert row(scores, "goal.area", "acc", 2).n == 0


def test_schedule2_last_this_act_wins():
    system = (act("request", ("slot", "food")), act("expl-conf", ("area", "north")))
    turns = [turn(system=system, slu=((act("inform", ("this", "south")),),))]
    scores = scored([session("s", turns)], [("s", [tracker_turn()])])
    # expl-conf comes last: "this" is area; expl-conf also mentions area; food is not mentioned
    assert row(scores, "goal.area", "acc", 2).n == 1
    assert row(scores, "goal.food", "acc", 2).n == 0


def test_schedule2_requested_removal_before_addition():
    request_phone = ((act("request", ("slot", "phone")),),)
    turns = [
        turn(slu=request_phone),  # R = {phone}
        turn(system=(act("inform", ("phone", "123")),), slu=request_phone),  # R - {phone} + {phone} = {phone}
        turn(system=(act("offer", ("phone", "123")),)),  # R = {}
    ]
    scores = scored([session("s", turns)], [("s", [tracker_turn()] * 3)])
    assert row(scores, "requested.phone", "acc", 2).n == 2
    assert row(scores, "requested.addr", "acc", 2).n == 0


def test_schedule2_method_flag_stays_on():
    turns = [turn(slu=((act("affirm"),),)), turn(slu=((act("inform", ("food", "x")),),)), turn()]
    scores = scored([session("s", turns)], [("s", [tracker_turn()] * 3)])
    # turn 0: only "none" methods; turn 1 informs (byconstraints): on for turns 1 and 2
    assert row(scores, "method", "acc", 2).n == 2
    assert row(scores, "method", "acc", 1).n == 3


# ---------------------------------------------------------------- section 5: joint forms and call order


def test_tracker_joint_list_versus_independent_product():
    turns = [turn({"food": "chinese"})]
    tracked = [tracker_turn({"food": {"chinese": 0.9}}, joint=[({"food": "chinese"}, 0.4), ({"food": "indian"}, 0.5)])]
    scores = scored([session("s", turns)], [("s", tracked)])
    # joint list: indian .5, chinese .4, None .1: top indian, wrong; p = .4: l2 = .36 + .25 + .01 = .62
    assert row(scores, "goal.joint", "acc").value == 0.0
    assert row(scores, "goal.joint", "l2").value == pytest.approx(0.62)
    # marginals: food chinese .9 (None .1), area None 1.0: top {food: chinese}, right; p = .9;
    # l2 = .01 + ((.81 + .01) * 1 - .81) = .02
    assert row(scores, "goal.joint_independent", "acc").value == 1.0
    assert row(scores, "goal.joint_independent", "l2").value == pytest.approx(0.02)


def test_updates_chain_across_the_slots_of_goal_all():
    turns = [turn({"food": "chinese", "area": "north"})]
    scores = scored([session("s", turns)], [("s", [tracker_turn(CHINESE)])])
    # goal.all calls: food (prev None, top chinese = label): correct; area (prev chinese from the food call,
    # top None, label north): substitution. prec = 1 / (1 + 1) = 0.5 (unchained it would be a deletion: 1.0)
    assert row(scores, "goal.all", "update.prec").value == 0.5
    assert row(scores, "goal.all", "update.acc").value == 0.5
    assert row(scores, "goal.area", "update.prec").value is None  # alone: a deletion only


# ---------------------------------------------------------------- section 1: iteration and skipped sessions


def _three_turns():
    return [turn({"food": "chinese"}), turn({"food": "chinese"}), turn({"food": "chinese"})]


def test_unknown_goal_slot_stops_the_session_at_the_independent_joint():
    bad = tracker_turn({"food": {"chinese": 1.0}, "colour": {"red": 0.5}})
    scores = scored(
        [session("s", _three_turns()), session("t", [turn()])],
        [("s", [tracker_turn(CHINESE), bad, bad]), ("t", [tracker_turn()])],
    )
    # s: turn 0 fully scored; turn 1 reaches goal slots and goal.all of schedule 1 scheme a, then fails
    assert scores.turns == 2 + 1
    assert row(scores, "goal.food", "acc", 1, "a").n == 2 + 1
    assert row(scores, "goal.all", "acc", 1, "a").n == 2 * 2 + 2
    assert row(scores, "goal.joint", "acc", 1, "a").n == 1 + 1
    assert row(scores, "goal.food", "acc", 1, "b").n == 1 + 1
    assert row(scores, "method", "acc", 1, "a").n == 1 + 1
    assert scores.skipped == [("s", 1, "turn 1: goal-labels slot 'colour' is not informable")]


def test_unknown_goal_slot_with_a_joint_list_reaches_goal_joint():
    bad = tracker_turn({"colour": {"red": 0.5}}, joint=[({"food": "chinese"}, 1.0)])
    scores = scored([session("s", _three_turns())], [("s", [bad])])
    assert row(scores, "goal.joint", "acc", 1, "a").n == 1  # the list is scored before the independent form fails
    assert row(scores, "goal.joint_independent", "acc", 1, "a").n == 0


def test_missing_key_counts_the_turn_but_scores_nothing_of_it():
    missing = tracker_turn(CHINESE)
    del missing["method-label"]
    scores = scored([session("s", _three_turns())], [("s", [tracker_turn(CHINESE), missing, tracker_turn(CHINESE)])])
    assert scores.turns == 2
    assert {r.n for r in scores.rows if r.schedule == 1 and r.component in ("goal.food", "method")} == {1}
    assert scores.skipped == [("s", 1, "turn 1: no 'method-label' key")]


def test_canthelp_on_a_slot_that_is_not_informable_skips_the_whole_session():
    turns = [turn(system=(act("canthelp", ("name", "x")),)), turn()]
    scores = scored([session("s", turns)], [("s", [tracker_turn()] * 2)])
    assert scores.turns == 0 and scores.skipped[0][0] == "s"
    assert "not informable" in scores.skipped[0][2]


def test_sessions_and_turns_zip_by_position_ids_never_compared():
    scores = scored([session("s", _three_turns())], [("another id", [tracker_turn(CHINESE)] * 2)])
    # two tracker turns: only two turns scored, the id is ignored
    assert scores.turns == 2 and row(scores, "goal.food", "acc").value == 1.0


# ---------------------------------------------------------------- section 6 edge: very short dialogues


def test_one_turn_dialogue_leaves_roc_and_updates_undefined():
    scores = scored([session("s", [turn()])], [("s", [tracker_turn()])])
    # a single call per component: N < 2 -> every ROC figure is None; top None = label None from start
    # (prev None == label): no update counted -> both undefined
    assert row(scores, "goal.food", "roc.v1_eer").value is None
    assert row(scores, "goal.food", "roc.v2_ca05").value is None
    assert row(scores, "goal.food", "update.acc").value is None
    assert row(scores, "goal.food", "acc").value == 1.0


# ---------------------------------------------------------------- section 7: CSV


def test_csv_rows_order_and_formats():
    scores = scored([session("s", [turn()])], [("s", [tracker_turn()])], wall_time=0.25)
    lines = csv_text(scores).splitlines()
    # mini ontology: scheme a 2 + 3 goal, 2 + 1 requested, method, all = 10 components; scheme b 7; x 15 x 2
    assert len(lines) == 1 + (10 + 7) * 15 * 2 + 5
    assert lines[0] == "state_component, stat, schedule, label_scheme, N, result"
    assert lines[1] == "goal.food, acc, 1, a, 1, 1.0000000"
    assert lines[9] == "goal.food, roc.v1_eer, 1, a, 1, -"
    assert lines[-5:] == [
        "basic,total_wall_time,,,,0.25",
        "basic,sessions,,,,1",
        "basic,turns,,,,1",
        "basic,wall_time_per_turn,,,,0.25",
        "basic,dataset,,,,mini",
    ]


@pytest.mark.parametrize("seed", range(8))
def test_scorers_agree_on_noisy_random_trackers(seed):
    sessions, data = random_corpus(seed, faults=0.08)
    fast = score(sessions, data, ONTOLOGY)
    reference = reference_score(sessions, data, ONTOLOGY)
    assert csv_text(fast) == csv_text(reference)
    for a, b in zip(fast.rows, reference.rows):
        assert a.value == pytest.approx(b.value, rel=1e-12, abs=1e-15) if b.value is not None else a.value is None
