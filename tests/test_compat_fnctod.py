"""FnCTOD's DST figures (`dst_metrics.compat.fnctod`).

Published-by-run figures: FnCTOD's own ``compute_jacc`` (github facebookresearch/FnCTOD at 243fa2f,
``src/multiwoz/utils/compute_joint_acc.py``, called with ``ignore_dontcare_in_pred=True`` as its
``inference.py`` does) run outside the project on each reference file converted to its eval turns:
each state written with FnCTOD's ``paser_dict_to_bs`` after renaming slots to UBAR's, a dialogue's
``all_domains`` = the domains of its gold slots; command, from a clone of FnCTOD:
``python run_fnctod.py FILE.json`` (the converter and runner lived in /tmp, see docs/compat.md).
"Average JGA" is the mean of the five per-domain JGAs it printed.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics import Corpus, score
from dst_metrics.cli import main
from dst_metrics.compat.fnctod import DOMAINS, belief_span, fix_value, fnctod_figures, read_span, turn_strings
from dst_metrics.readers import read
from tests.conftest import REFERENCE, requires_shared

T5 = REFERENCE / "t5_zeroshot" / "predictions"
TRADE = REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json"

MEASURED = {
    T5 / "T5_result_zeroshot_attraction.json": {
        "jga": 0.3369774919614148,
        "slot_f1": 0.351984126984127,
        "slot_precision": 0.8266542404473439,
        "slot_recall": 0.22359465591126795,
        "average_jga": 0.06737657308809293,
        "jga_attraction": 0.33688286544046464,
        "f1_attraction": 0.43573195654512314,
        "turns_attraction": 3099,
        "turns_restaurant": 0,
        "jga_restaurant": 0.0,
    },
    T5 / "T5_result_zeroshot_rest.json": {
        "jga": 0.2578148258410241,
        "slot_f1": 0.7105406287392582,
        "slot_precision": 0.8322079245763792,
        "slot_recall": 0.6199107905475942,
        "average_jga": 0.05156296516820482,
        "jga_restaurant": 0.2578148258410241,
        "f1_restaurant": 0.7209909884366535,
        "turns_restaurant": 3359,
        "turns_attraction": 0,
    },
    TRADE: {
        "jga": 0.5191368078175895,
        "slot_f1": 0.9025312927246903,
        "slot_precision": 0.9189868627344975,
        "slot_recall": 0.8866546696919907,
        "average_jga": 0.7186385374118094,
        "jga_restaurant": 0.6776429809358753,
        "f1_restaurant": 0.9146533773050256,
        "turns_restaurant": 3462,
        "jga_taxi": 0.7692307692307693,
        "f1_taxi": 0.8686888868707046,
        "turns_taxi": 1573,
        "jga_hotel": 0.6228748068006182,
        "f1_hotel": 0.9070148952279151,
        "turns_hotel": 3235,
        "jga_attraction": 0.7408468640560331,
        "f1_attraction": 0.9001591849729398,
        "turns_attraction": 3141,
        "jga_train": 0.7825972660357519,
        "f1_train": 0.9411575003451926,
        "turns_train": 3804,
    },
}


@requires_shared
@pytest.mark.parametrize("path", list(MEASURED), ids=lambda path: path.name)
def test_figures_equal_fnctods_own_run(path):
    figures = fnctod_figures(read(path))
    for key, expected in MEASURED[path].items():
        assert figures[key] == pytest.approx(expected, abs=1e-12), key
    assert figures["average_jga"] == pytest.approx(sum(figures[f"jga_{d}"] for d in DOMAINS) / 5)


@requires_shared
def test_the_fnctod_profile_scores_as_fnctod_and_groups_the_domains(capsys):
    scores = score(read(TRADE), compat="fnctod").scores
    measured = MEASURED[TRADE]
    for key in ("jga", "slot_f1", "slot_precision", "slot_recall", "average_jga"):
        assert scores[key] == pytest.approx(measured[key], abs=1e-12), key
    for domain in DOMAINS:
        group = scores["fnctod"][domain]
        assert group["joint_goal_accuracy"] == pytest.approx(measured[f"jga_{domain}"], abs=1e-12)
        assert group["turns"] == measured[f"turns_{domain}"]
    assert scores.signature.endswith("|compat:fnctod")
    assert scores["gca"] == score(read(TRADE)).scores["gca"]  # GCA keeps our definition
    assert main(["score", "--compat", "fnctod", str(TRADE)]) == 0
    out = capsys.readouterr().out
    assert "average_jga 71.86" in out  # the paper tables' "Average JGA", printed beside the table
    assert "restaurant  67.76  91.47   3462" in out


def figures(gold: list, pred: list, **kwargs: object) -> dict:
    return fnctod_figures(Corpus.from_dialogues([pred], [gold]), **kwargs)


def test_span_uses_ubar_names_and_informable_slots_only():
    state = {"hotel-book people": "2", "hotel-leaveat": "x", "train-leaveat": "09:00", "hotel-area": ""}
    assert belief_span(state) == "[hotel] people 2 [train] leave 09:00"
    assert read_span("[hotel] people 2 [train] leave 09:00") == {"[hotel]->people->2", "[train]->leave->09:00"}


def test_a_value_holding_a_slot_token_is_cut():
    # "day" starts a slot: "day trip" is read as slot day with value "trip" and name with no value
    assert read_span("[attraction] name day trip") == {"[attraction]->name->", "[attraction]->day->trip"}


def test_value_fixes():
    assert fix_value("type", "theatre") == "tre"  # value[4:] of anything starting with "the"
    assert fix_value("area", "the centre") == "the centre"  # area rules come first: no cut
    assert fix_value("area", "no") == "north"
    assert fix_value("parking", "free") == "yes"
    assert fix_value("name", "kings college") == "king's college"
    assert fix_value("area", "cambridge") == "none"


def test_typos_fixed_in_predictions_only():
    gold, pred = turn_strings({"hotel-type": "guesthouse"}, {"hotel-type": "guesthouse"})
    assert gold == {"[hotel]->type->guesthouse"} and pred == {"[hotel]->type->guest house"}
    gold, pred = turn_strings({"hotel-area": "centre"}, {"hotel-area": "center"})
    assert gold == pred


def test_end_of_text_leaves_predictions_only():
    # FnCTOD's compute_jacc run on these two turns (outside the project): JGA 1.0, then 0.0
    assert figures([{"restaurant-food": "thai"}], [{"restaurant-food": "thai <|endoftext|>"}])["jga"] == 1.0
    assert figures([{"restaurant-food": "<|endoftext|>"}], [{"restaurant-food": "<|endoftext|>"}])["jga"] == 0.0


def test_none_anywhere_and_predicted_dontcare_dropped():
    gold, pred = turn_strings(
        {"restaurant-name": "nonesuch", "restaurant-food": "dontcare"},
        {"restaurant-name": "nonesuch", "restaurant-food": "dontcare"},
    )
    assert gold == {"[restaurant]->food->dontcare"} and pred == set()
    assert figures([{"restaurant-food": "dontcare"}], [{"restaurant-food": "dontcare"}])["jga"] == 0.0


def test_per_domain_counts_the_dialogues_domains_and_average_counts_missing_domains_as_zero():
    gold = [{}, {"hotel-area": "north"}]
    pred = [{"taxi-leaveat": "09:00"}, {"hotel-area": "north"}]
    result = figures(gold, pred)
    assert result["jga"] == 0.5  # turn 0 has a wrong taxi slot
    assert result["turns_hotel"] == 2 and result["jga_hotel"] == 1.0  # both turns, hotel slots equal
    assert result["turns_taxi"] == 0 and result["jga_taxi"] == 0.0  # taxi is not a gold domain
    assert result["average_jga"] == 0.2
    given = figures(gold, pred, dialogue_domains={"0": ["hotel", "taxi"]})
    assert given["turns_taxi"] == 2 and given["jga_taxi"] == 0.5
    assert given["f1_taxi"] == 0.5  # turn 0: empty gold, a prediction: 0; turn 1: both empty: 1


slot_names = st.sampled_from(
    ["hotel-area", "hotel-book people", "train-leaveat", "taxi-destination", "attraction-name"]
)
slot_values = st.sampled_from(["north", "2", "09:00", "the place", "kings college", "centre", "guest house"])
states = st.dictionaries(slot_names, slot_values, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(states, min_size=1, max_size=4), min_size=1, max_size=4))
def test_predicting_gold_scores_one_and_figures_are_fractions(dialogues):
    result = fnctod_figures(Corpus.from_dialogues(dialogues, dialogues))
    assert result["jga"] == 1.0
    for domain in DOMAINS:
        assert result[f"jga_{domain}"] == (1.0 if result[f"turns_{domain}"] else 0.0)
    shifted = [[{**state, "hotel-area": "south"} for state in dialogue] for dialogue in dialogues]
    worse = fnctod_figures(Corpus.from_dialogues(shifted, dialogues))
    assert 0.0 <= worse["jga"] <= 1.0 and 0.0 <= worse["slot_f1"] <= 1.0
    assert worse["jga_hotel"] <= result["jga_hotel"] and worse["turns_hotel"] == result["turns_hotel"]
