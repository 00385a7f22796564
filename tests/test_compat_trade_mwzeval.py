"""Profiles ``trade`` (TRADE's evaluate_metrics) and ``mwzeval`` (MultiWOZ_Evaluation's get_dst).

Each convention of shared/COMPAT.md is a tiny case whose figure is derived by hand in a comment.
The figures on tests/fixtures/trade_mwzeval and on the shared files were also measured by running
the evaluators themselves outside the project: TRADE's ``evaluate_metrics``, ``compute_acc`` and
``compute_prf`` taken from github jasonwu0731/trade-dst ``models/TRADE.py``, and mwzeval's
``normalize_data`` + ``get_dst`` (github Tomiinek/MultiWOZ_Evaluation at 7f19ee0, fuzzywuzzy 0.18.0
with python-Levenshtein 0.27.5) with gold parsed as its ``parse_state`` parses MultiWOZ 2.2.
"""

from __future__ import annotations

import pytest
from rapidfuzz import fuzz

from dst_metrics import Corpus, score
from dst_metrics.compat import PROFILES
from dst_metrics.compat.mwzeval import normalize_time, normalize_value, partial_ratio
from dst_metrics.options import Options
from dst_metrics.readers import read
from tests.conftest import REFERENCE, REPO, requires_shared

FIXTURES = REPO / "tests" / "fixtures" / "trade_mwzeval"
T5 = REFERENCE / "t5_zeroshot" / "predictions"
TRADE_FILE = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"
KEYS = ("jga", "sa", "slot_precision", "slot_recall", "slot_f1")


def corpus(gold: list, pred: list) -> Corpus:
    """One dialogue whose turns have these gold and predicted states."""
    return Corpus.from_dialogues([pred], [gold])


def trade(gold: list, pred: list, **options: object) -> dict:
    return PROFILES["trade"].figures(corpus(gold, pred), Options(**options))


def mwzeval(gold: list, pred: list) -> dict:
    return PROFILES["mwzeval"].figures(corpus(gold, pred), Options())


# trade -----------------------------------------------------------------------------------------


def test_trade_counts_none_as_an_item():
    # gold {hotel-parking-none, hotel-area-north}, pred {hotel-area-north}: sets differ -> JGA 0
    # (official mode drops none: 1); F1: P = 1/1, R = 1/2 -> 2/3; SA: one missed -> 29/30.
    figures = trade([{"hotel-parking": "none", "hotel-area": "north"}], [{"hotel-area": "north"}])
    assert figures == pytest.approx({"jga": 0, "sa": 29 / 30, "slot_f1": 2 / 3})
    assert score(corpus([{"hotel-parking": "none", "hotel-area": "north"}], [{"hotel-area": "north"}])).scores.jga == 1


def test_trade_empty_value_is_a_string_item():
    # gold {"hotel-area-"}, pred {}: gold non-empty, nothing predicted -> JGA 0, F1 0, SA 29/30.
    assert trade([{"hotel-area": ""}], [{}]) == pytest.approx({"jga": 0, "sa": 29 / 30, "slot_f1": 0})


def test_trade_sa_reads_the_slot_up_to_the_last_hyphen():
    # gold hotel-type-guest-house (slot read: "hotel-type-guest"), pred hotel-type-hotel (slot "hotel-type"):
    # one missed, and the wrong item's slot is not a missed slot -> 2 errors: SA 28/30 (29/30 if read right).
    assert trade([{"hotel-type": "guest-house"}], [{"hotel-type": "hotel"}])["sa"] == pytest.approx(28 / 30)
    # without a hyphen in the value the wrong item's slot is the missed one -> 1 error.
    assert trade([{"hotel-type": "guesthouse"}], [{"hotel-type": "hotel"}])["sa"] == pytest.approx(29 / 30)


def test_trade_sa_uses_k_from_the_options():
    # the same 2 errors with K = 10: (10 - 2) / 10.
    assert trade([{"hotel-type": "guest-house"}], [{"hotel-type": "hotel"}], num_slots=10)["sa"] == pytest.approx(0.8)


def test_trade_f1_is_a_mean_over_turns_with_empty_gold_scoring_one_or_zero():
    # turn 0: both empty -> 1; turn 1: gold empty, one predicted -> 0;
    # turn 2: gold {area, stars}, pred {area}: P 1, R 1/2 -> 2/3. Mean (1 + 0 + 2/3) / 3 = 5/9
    # (micro over the corpus would be tp 1, fp 1, fn 1 -> 1/2).
    gold = [{}, {}, {"hotel-area": "north", "hotel-stars": "4"}]
    pred = [{}, {"hotel-area": "north"}, {"hotel-area": "north"}]
    assert trade(gold, pred)["slot_f1"] == pytest.approx(5 / 9)
    assert trade(gold, pred)["jga"] == pytest.approx(1 / 3)


def test_trade_f1_of_a_turn_with_nothing_right_is_zero():
    # gold {area north}, pred {area south}: P = R = 0 -> F1 0 (no division by zero).
    assert trade([{"hotel-area": "north"}], [{"hotel-area": "south"}])["slot_f1"] == 0


def test_trade_acceptable_values_hold_the_predicted_one():
    # gold ["17:00", "5 pm"], pred "5 pm": the gold item is written "taxi-leaveat-5 pm" -> equal sets.
    assert trade([{"taxi-leaveat": ["17:00", "5 pm"]}], [{"taxi-leaveat": "5 pm"}])["jga"] == 1


def test_trade_profile_replaces_jga_sa_f1_and_keeps_our_precision_and_recall():
    data = corpus([{"hotel-parking": "none", "hotel-area": "north"}], [{"hotel-area": "north"}])
    ours, theirs = score(data).scores, score(data, compat="trade").scores
    assert (theirs.jga, ours.jga) == (0, 1)
    assert (theirs.slot_precision, theirs.slot_recall) == (ours.slot_precision, ours.slot_recall)
    assert theirs.signature.endswith("|compat:trade")


def test_trade_figures_on_the_fixture():
    # Derived by hand over the 7 turns of trade.json (and measured with TRADE's own code):
    # JGA: only MUL0003 turn 0 has equal sets -> 1/7. SA errors per turn 0, 1, 2, 3, 1, 1, 3 -> (210 - 11) / 210.
    # F1 per turn: 1, 6/7, 4/5, 12/17, 2/3, 3/4, 1/3, mean 0.7304321728691476.
    figures = PROFILES["trade"].figures(read(FIXTURES / "trade.json"), Options())
    assert figures == pytest.approx({"jga": 1 / 7, "sa": 199 / 210, "slot_f1": 0.7304321728691476})


# mwzeval ---------------------------------------------------------------------------------------


def test_mwzeval_drops_gold_dontcare_and_keeps_predicted_dontcare():
    # gold area dontcare is dropped: gold {stars 4} = pred {stars 4} -> joint, tp 1.
    assert mwzeval([{"hotel-area": "dontcare", "hotel-stars": "4"}], [{"hotel-stars": "4"}])["jga"] == pytest.approx(
        1
    )  # 1 / (1 + 1e-10)
    # predicted area dontcare is a false positive: not joint; tp 1, fp 1 -> P = 1/2.
    figures = mwzeval([{"hotel-stars": "4"}], [{"hotel-stars": "4", "hotel-area": "dontcare"}])
    assert figures["jga"] == 0
    assert figures["slot_precision"] == pytest.approx(0.5)


def test_mwzeval_gold_list_with_dontcare_is_dropped_and_otherwise_keeps_its_first_value():
    assert mwzeval([{"hotel-area": ["north", "dontcare"]}], [{}])["jga"] == pytest.approx(1)  # 1 / (1 + 1e-10)
    # gold ["chinese", "asian oriental"] is "chinese" for mwzeval: "asian oriental" does not match it.
    figures = mwzeval([{"restaurant-food": ["chinese", "asian oriental"]}], [{"restaurant-food": "asian oriental"}])
    assert figures["jga"] == 0 and figures["slot_recall"] == 0


def test_mwzeval_gold_none_is_absent_and_predicted_none_a_false_positive():
    assert mwzeval([{"hotel-parking": "none"}], [{}])["jga"] == pytest.approx(1)  # 1 / (1 + 1e-10)
    assert mwzeval([{}], [{"hotel-parking": "none"}])["jga"] == 0


def test_mwzeval_slot_names_are_lower_case_without_spaces_and_arrive_leave():
    gold = [{"train-arriveby": "10:15", "restaurant-book time": "19:00", "train-leaveAt": "08:00"}]
    pred = [{"train-arrive by": "10:15", "restaurant-booktime": "19:00", "train-leave": "08:00"}]
    assert mwzeval(gold, pred)["jga"] == pytest.approx(1)  # 1 / (1 + 1e-10)


@pytest.mark.parametrize(
    "slot, value, canonical",
    [
        ("name", "A & B Guest House ", "a and b guest house"),
        ("name", "the cambridge&county folk museum", "the cambridge and county folk museum"),
        ("name", "Nando's", "nandos"),
        ("name", "christs", "christ's college"),
        ("destination", "the junction", "junction theatre"),
        ("departure", "cityrooms", "cityroomz"),
        ("type", "guest house", "guesthouse"),
        ("type", "Guest House", "Guest House"),  # type is not lower-cased first
        ("food", " Portugese", "portuguese"),
        ("food", "english", "british"),
        ("parking", "free", "yes"),
        ("internet", "free", "yes"),
        ("area", "Centre", "Centre"),  # other slots keep the value as it is
        ("booktime", "7pm", "7pm"),  # book time is no time for mwzeval
        ("leave", "after 5pm", "17:00"),
        ("arrive", "by 10:30", "10:30"),
    ],
)
def test_mwzeval_value_normalization(slot, value, canonical):
    assert normalize_value(slot, value) == canonical


@pytest.mark.parametrize(
    "time, canonical",
    [
        ("afternoon", "13:00"),
        ("Around lunch time", "12:00"),
        ("one o'clock p.m. please", "13:00"),
        ("5:15 pm", "17:15"),
        ("12:30pm", "24:30"),  # 12 is added to any p.m. hour
        ("10am", "10:00"),
        ("9 a.m.", "09:00"),
        ("1715", "17:15"),
        ("7", "07:00"),
        ("7:15", "07:15"),
        ("17 : 15", "17:15"),
        ("9.15", "9.15"),
        ("18:45.", "18:45"),
        ("", "00:00"),
        ("afer 8", "08:00"),
        (":30pm", ":30"),  # mwzeval's int() would fail here: the value is kept as read so far
    ],
)
def test_mwzeval_time_normalization(time, canonical):
    assert normalize_time(time) == canonical


def test_mwzeval_fuzzy_match_is_fuzzywuzzys_partial_ratio_above_95():
    # a substring scores 100: "chinese food" matches "chinese" (one tp, joint).
    assert mwzeval([{"restaurant-food": "chinese"}], [{"restaurant-food": "chinese food"}])["jga"] == pytest.approx(
        1
    )  # 1 / (1 + 1e-10)
    # scores measured with fuzzywuzzy 0.18.0: rapidfuzz's own partial_ratio aligns every window and scores higher.
    assert partial_ratio("architectural", "architecture") == 92 < fuzz.partial_ratio("architectural", "architecture")
    assert partial_ratio("lan hong house", "ian hong house") == 93
    assert (partial_ratio("", ""), partial_ratio("", "north"), partial_ratio("north", "north")) == (100, 0, 100)
    assert mwzeval([{"attraction-type": "architecture"}], [{"attraction-type": "architectural"}])["jga"] == 0


def test_mwzeval_joint_needs_the_same_slots_and_every_value_matching():
    # every gold value matched, one extra predicted slot -> not joint.
    assert mwzeval([{"hotel-area": "north"}], [{"hotel-area": "north", "hotel-stars": "4"}])["jga"] == 0


def test_mwzeval_slot_scores_are_micro_with_its_smoothing():
    # turn 0: gold {area north, stars 4}, pred {area north} -> tp 1, fn 1; turn 1: gold {}, pred {name x} -> fp 1.
    # P = 1 / (2 + 1e-10), R = 1 / (2 + 1e-10), F1 = 2PR / (P + R + 1e-10); JGA 0 / 2.
    gold = [{"hotel-area": "north", "hotel-stars": "4"}, {}]
    pred = [{"hotel-area": "north"}, {"hotel-name": "acorn guest house"}]
    p = 1 / (2 + 1e-10)
    assert mwzeval(gold, pred) == {
        "jga": 0.0,
        "slot_precision": p,
        "slot_recall": p,
        "slot_f1": 2 * p * p / (2 * p + 1e-10),
    }
    # nothing to find and nothing found: P = R = F1 = 0 (not 1), JGA 1 / (1 + 1e-10).
    assert mwzeval([{}], [{}]) == {"jga": 1 / (1 + 1e-10), "slot_precision": 0.0, "slot_recall": 0.0, "slot_f1": 0.0}


def test_mwzeval_figures_on_the_fixture():
    # Derived by hand over the 7 turns of reference.json (and measured with mwzeval itself): gold dontcare and
    # none dropped, "&" = "and", "guest house" = "guesthouse", "5:15 pm" = "17:15", "chinese food" matches
    # "chinese": every turn joint but the last, whose predicted pricerange dontcare is the one FP.
    # tp 2 + 3 + 7 + 8 + 3 + 4 + 2 = 29, fp 1, fn 0: P 29/30, R 1, F1 58/59; JGA 6/7.
    report = score(read(FIXTURES / "reference.json"), compat="mwzeval").scores
    assert {k: report[k] for k in ("jga", "slot_precision", "slot_recall", "slot_f1")} == pytest.approx(
        {"jga": 6 / 7, "slot_precision": 29 / 30, "slot_recall": 1.0, "slot_f1": 58 / 59}
    )


# shared files ------------------------------------------------------------------------------------

# (file, profile) -> figures printed by the evaluator itself on the file (see the module docstring):
# TRADE's code gives fractions; mwzeval gives JGA and F1 x100 and P, R as fractions (here all fractions).
MEASURED = {
    (TRADE_FILE, "trade"): {"jga": 0.5194082519001085, "sa": 0.9724710459644855, "slot_f1": 0.9049800291712039},
    (T5 / "T5_result_zeroshot_attraction.json", "trade"): {
        "jga": 0.3347266881028939,
        "sa": 0.9654019292604702,
        "slot_f1": 0.43211146838156567,
    },
    (T5 / "T5_result_zeroshot_rest.json", "trade"): {
        "jga": 0.24888359630842513,
        "sa": 0.9482981045946459,
        "slot_f1": 0.7120320039194676,
    },
    (TRADE_FILE, "mwzeval"): {
        "jga": 0.5355591748099818,
        "slot_precision": 0.9180624106588965,
        "slot_recall": 0.8994556600782134,
        "slot_f1": 0.9086637924781323,
    },
    (T5 / "T5_result_zeroshot_attraction.json", "mwzeval"): {
        "jga": 0.3418006430868058,
        "slot_precision": 0.8407821229049496,
        "slot_recall": 0.23124199743917462,
        "slot_f1": 0.3627234384076041,
    },
    (T5 / "T5_result_zeroshot_rest.json", "mwzeval"): {
        "jga": 0.267639178326875,
        "slot_precision": 0.838598726114639,
        "slot_recall": 0.6314022635718336,
        "slot_f1": 0.7203983365673129,
    },
}


@requires_shared
@pytest.mark.parametrize("path, profile", list(MEASURED), ids=lambda x: getattr(x, "stem", x))
def test_profiles_reproduce_the_evaluators_on_the_shared_files(path, profile):
    scores = score(read(path), compat=profile).scores
    assert {k: scores[k] for k in MEASURED[path, profile]} == pytest.approx(MEASURED[path, profile], abs=1e-12)


@requires_shared
def test_mwzeval_moves_the_t5_jga_as_compat_md_states():
    # COMPAT.md: JGA 33.47 -> 34.18 (attraction) and 24.89 -> 26.76 (restaurant), in percent.
    found = {}
    for name in ("T5_result_zeroshot_attraction", "T5_result_zeroshot_rest"):
        data = read(T5 / f"{name}.json")
        found[name] = (round(100 * score(data).scores.jga, 2), round(100 * score(data, compat="mwzeval").scores.jga, 2))
    assert found == {"T5_result_zeroshot_attraction": (33.47, 34.18), "T5_result_zeroshot_rest": (24.89, 26.76)}
