"""Profile ``sgd``: the official SGD evaluator's figures (shared/COMPAT.md, ``sgd``).

Figures on the fixtures (tests/fixtures/sgd) are derived by hand in the comments; the same
fixtures and the perturbation of the real test files below were also scored by the evaluator's
own functions (metrics.py, evaluate.get_metrics with fuzzywuzzy and numpy, outside the project):
every figure of every group agreed to 1e-6, fuzzy matching on and off, joint accuracy across
services and across turns.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics import InputError, score
from dst_metrics.cli import main
from dst_metrics.compat import PROFILES
from dst_metrics.compat.sgd import (
    ALL_SERVICES,
    SgdInputs,
    f1_scores,
    frame_figures,
    goal_figures,
    load_schema,
    sgd_metrics,
    token_sort_ratio,
)
from dst_metrics.options import OptionError
from dst_metrics.readers import read
from dst_metrics.readers.sgd import Frame
from tests.conftest import REPO, SGD, requires_shared

FIXTURES = REPO / "tests" / "fixtures" / "sgd"
SGD_GOLD, SGD_PRED = FIXTURES / "sgd_gold", FIXTURES / "sgd_pred"
MWZ_GOLD, MWZ_PRED = FIXTURES / "multiwoz22_gold", FIXTURES / "multiwoz22_pred"


def schemas(folder: Path) -> tuple[Path, Path]:
    return folder / "schema.json", folder / "train_schema.json"


# --------------------------------------------------------------------------------------------
# Value matching: fuzzywuzzy's token_sort_ratio


@pytest.mark.parametrize(
    "reference, hypothesis, expected",
    [
        # "chez co panisse" (15) vs "and chez co panisse" (19): all 15 kept, 2*15/34 = 88.2 -> 88
        ("Chez Panisse & Co", "Chez Panisse and Co", 88),
        ("San Jose", "san jose!", 100),  # lower-cased, punctuation made space
        ("7 pm", "7pm", 86),  # "7 pm" vs "7pm": 2*3/7 = 85.7
        ("a", "abcdefghijklmno", 12),  # 2*1/16 = 12.5, rounded half to even as Python's round
        ("café", "cafe", 86),  # é (U+00E9) is dropped: "caf" vs "cafe", 2*3/7
        ("!!", "??", 100),  # both empty after processing: equal
        ("", "x", 0),
        ("guest house", "house guest", 100),  # tokens sorted
    ],
)
def test_token_sort_ratio_as_fuzzywuzzy(reference: str, hypothesis: str, expected: int):
    assert token_sort_ratio(reference, hypothesis) == expected


def test_the_two_fuzzywuzzy_backends_differ_on_partial_matches():
    # Measured with fuzzywuzzy 0.18: with python-Levenshtein (0.27) 24, with its pure-Python
    # difflib fallback (what the evaluator's requirements.txt installs) 12. On the 33,041 pairs of
    # values of one slot in the shared SGD test files, each backend equals ours in every pair.
    assert token_sort_ratio("11th of this month", "Friday next week") == 24
    assert token_sort_ratio("11th of this month", "Friday next week", "difflib") == 12
    assert token_sort_ratio("Chez Panisse & Co", "Chez Panisse and Co", "difflib") == 88


# --------------------------------------------------------------------------------------------
# One frame: each convention on a tiny case


def frame(values: dict, intent: str = "FindRestaurants", requested=(), spans=None) -> Frame:
    return Frame("Restaurants_2", values, intent, list(requested), spans)


SLOTS = (("restaurant_name", False), ("time", False), ("price_range", True), ("has_seating_outdoors", True))


def test_categorical_slots_match_the_first_gold_value_only():
    gold = frame({"price_range": ["moderate", "cheap"]})
    assert goal_figures(gold, frame({"price_range": ["moderate"]}), SLOTS, True)["joint_goal_accuracy"] == 1.0
    assert goal_figures(gold, frame({"price_range": ["cheap"]}), SLOTS, True)["joint_goal_accuracy"] == 0.0


def test_non_categorical_slots_take_the_best_gold_value_and_the_first_predicted_value():
    gold = frame({"time": ["7 pm", "19:00"]})
    assert goal_figures(gold, frame({"time": ["19:00"]}), SLOTS, False)["joint_goal_accuracy"] == 1.0
    # only the first predicted value is read: "18:00" scores 0 exactly even though "19:00" follows
    assert goal_figures(gold, frame({"time": ["18:00", "19:00"]}), SLOTS, False)["joint_goal_accuracy"] == 0.0


def test_joint_goal_accuracy_is_the_product_of_fuzzy_slot_scores():
    gold = frame({"restaurant_name": ["Chez Panisse & Co"], "time": ["7 pm"]})
    figures = goal_figures(gold, frame({"restaurant_name": ["Chez Panisse and Co"], "time": ["7pm"]}), SLOTS, True)
    # 0.88 * 0.86 (the ratios above); AGA over the two active slots: (0.88 + 0.86) / 2
    assert figures["joint_goal_accuracy"] == pytest.approx(0.88 * 0.86)
    assert figures["average_goal_accuracy"] == pytest.approx(0.87)
    assert figures["joint_cat_accuracy"] == 1.0  # both categorical slots inactive on both sides
    assert "average_cat_accuracy" not in figures  # no active categorical slot: not counted
    exact = goal_figures(gold, frame({"restaurant_name": ["Chez Panisse and Co"], "time": ["7 pm"]}), SLOTS, False)
    assert (exact["joint_goal_accuracy"], exact["average_noncat_accuracy"]) == (0.0, 0.5)


def test_inactive_on_both_sides_is_right_and_on_one_side_wrong():
    empty = goal_figures(frame({}), frame({}), SLOTS, True)
    assert empty == {"joint_goal_accuracy": 1.0, "joint_cat_accuracy": 1.0, "joint_noncat_accuracy": 1.0}
    extra = goal_figures(frame({}), frame({"has_seating_outdoors": ["True"]}), SLOTS, True)
    assert (extra["joint_goal_accuracy"], extra["joint_cat_accuracy"], extra["joint_noncat_accuracy"]) == (0, 0, 1)
    missed = goal_figures(frame({"time": ["7 pm"]}), frame({}), SLOTS, True)
    assert (missed["average_goal_accuracy"], missed["joint_goal_accuracy"]) == (0.0, 0.0)


def test_requested_slots_intent_and_slot_tagging():
    assert f1_scores([], []) == (1.0, 1.0, 1.0)  # nothing on either side
    assert f1_scores(["rating", "phone_number"], ["rating"]) == pytest.approx((2 / 3, 1.0, 0.5))
    assert f1_scores(["rating"], ["address"]) == (0.0, 0.0, 0.0)
    utterance = "Find me somewhere to eat in San Jose at 7 pm."
    spans = [("time", 40, 44), ("price_range", 0, 4)]  # a categorical span is not counted
    gold = frame({}, "FindRestaurants", ["rating"], spans)
    figures = frame_figures(gold, frame({}, "ReserveRestaurant", [], []), SLOTS, utterance, True)
    assert figures["active_intent_accuracy"] == 0.0
    assert (figures["requested_slots_precision"], figures["requested_slots_recall"]) == (1.0, 0.0)
    assert (figures["slot_tagging_precision"], figures["slot_tagging_recall"], figures["slot_tagging_f1"]) == (1, 0, 0)
    assert "slot_tagging_f1" not in frame_figures(gold, frame({}, spans=None), SLOTS, utterance, True)


# --------------------------------------------------------------------------------------------
# The fixtures, by hand


def test_sgd_fixture_by_hand():
    # Six frames (one per USER turn), schema slots: Restaurants_2 restaurant_name, location, time
    # (non-categorical), price_range, has_seating_outdoors (categorical); Hotels_2 where_to
    # (non-categorical), number_of_adults, has_laundry_service (categorical).
    # F1 location "san jose" ~ "San Jose" = 1; its span missed.      JGA 1,    AGA 1
    # F2 restaurant_name "Chez Panisse and Co" = 0.88, rest right.   JGA 0.88, AGA (1+.88+1)/3 = .96
    # F3 price_range "cheap" (gold "moderate") 0, name and time match the 2nd gold value, intent wrong.
    #                                                                JGA 0,    AGA 3/4
    # F4 right.                                                      JGA 1,    AGA 1
    # F5 has_laundry_service (gold dontcare) missed, requested "rating" missed.  JGA 0, AGA 2/3
    # F6 extra has_seating_outdoors.                                 JGA 0,    AGA 2/2
    found = sgd_metrics(SGD_PRED, SGD_GOLD, *schemas(SGD_GOLD))
    assert set(found) == {ALL_SERVICES, "Restaurants_2", "Restaurants", "Hotels_2", "Hotels", "#SEEN_SERVICES"} | {
        "#UNSEEN_SERVICES"
    }
    expected = {
        "active_intent_accuracy": 5 / 6,
        "requested_slots_f1": 5 / 6,
        "requested_slots_precision": 1.0,
        "requested_slots_recall": 5 / 6,
        "slot_tagging_f1": 5 / 6,
        "slot_tagging_precision": 1.0,
        "slot_tagging_recall": 5 / 6,
        "joint_goal_accuracy": (1 + 0.88 + 0 + 1 + 0 + 0) / 6,
        "average_goal_accuracy": (1 + 0.96 + 0.75 + 1 + 2 / 3 + 1) / 6,
        "joint_cat_accuracy": (1 + 1 + 0 + 1 + 0 + 0) / 6,
        "average_cat_accuracy": (1 + 0 + 1 + 0.5 + 1) / 5,  # F1 has no active categorical slot
        "joint_noncat_accuracy": (1 + 0.88 + 1 + 1 + 1 + 1) / 6,
        "average_noncat_accuracy": (1 + 0.94 + 1 + 1 + 1 + 1) / 6,
    }
    assert found[ALL_SERVICES] == pytest.approx(expected)
    # Restaurants_2 = F1, F2, F3, F6 and is seen (train schema); Hotels_2 = F4, F5, unseen.
    assert found["Restaurants_2"]["joint_goal_accuracy"] == pytest.approx((1 + 0.88) / 4)
    assert found["Restaurants"] == found["Restaurants_2"] == found["#SEEN_SERVICES"]
    assert found["Hotels_2"]["average_goal_accuracy"] == pytest.approx((1 + 2 / 3) / 2)
    assert found["#UNSEEN_SERVICES"] == found["Hotels_2"]
    exact = sgd_metrics(SGD_PRED, SGD_GOLD, *schemas(SGD_GOLD), fuzzy=False)[ALL_SERVICES]
    # exactly: F1 location 0 (JGA 0, AGA 0), F2 name 0 (JGA 0, AGA 2/3)
    assert exact["joint_goal_accuracy"] == pytest.approx(1 / 6)
    assert exact["average_goal_accuracy"] == pytest.approx((0 + 2 / 3 + 0.75 + 1 + 2 / 3 + 1) / 6)
    assert exact["average_noncat_accuracy"] == pytest.approx((0 + 0.5 + 1 + 1 + 1 + 1) / 6)


def test_multiwoz22_fixture_and_joint_accuracy_across_turns():
    # Frames per USER turn: hotel and restaurant (MultiWOZ 2.2 lists every service). Only the last
    # hotel frame is off: hotel-name "a and b guest house" = 0.88 -> JGA 0.88. The hotel-type
    # prediction "guest house" is the first gold value (categorical).
    found = sgd_metrics(MWZ_PRED, MWZ_GOLD, *schemas(MWZ_GOLD))
    assert found[ALL_SERVICES]["joint_goal_accuracy"] == pytest.approx(5.88 / 6)
    assert found["hotel"]["joint_goal_accuracy"] == pytest.approx(2.88 / 3)
    across = sgd_metrics(MWZ_PRED, MWZ_GOLD, *schemas(MWZ_GOLD), joint_across_turns=True)
    # Across turns: one product per turn, (1 + 1 + 0.88) / 3. The domain of service "hotel" is
    # "hotel" too, so the evaluator multiplies each hotel frame in twice: (1 + 1 + 0.88²) / 3.
    assert across[ALL_SERVICES]["joint_goal_accuracy"] == pytest.approx(2.88 / 3)
    assert across["hotel"]["joint_goal_accuracy"] == pytest.approx((2 + 0.88**2) / 3)
    assert across["hotel"]["average_goal_accuracy"] == found["hotel"]["average_goal_accuracy"]


# --------------------------------------------------------------------------------------------
# The command line and the profile


def run_json(capsys, *args: str) -> dict:
    assert main(["score", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_prints_our_keys_and_the_evaluators(capsys):
    schema, train = schemas(SGD_GOLD)
    gold = str(SGD_GOLD)
    record = run_json(
        capsys, str(SGD_PRED), "--gold", gold, "--schema", str(schema), "--train-schema", str(train), "--compat", "sgd"
    )
    assert record["sgd"][ALL_SERVICES]["joint_goal_accuracy"] == pytest.approx(2.88 / 6)
    assert record["jga"] == record["sgd"][ALL_SERVICES]["joint_goal_accuracy"]
    assert record["aga"] == record["sgd"][ALL_SERVICES]["average_goal_accuracy"]
    assert record["sgd_value_matching"] == "fuzzy" and record["signature"].endswith("|compat:sgd")
    assert 0 < record["gca"] < 1 and record["turns"] == 6
    # --schema defaults to GOLD/schema.json; --value-matching exact turns fuzzy matching off
    exact = run_json(capsys, str(SGD_PRED), "--gold", gold, "--compat", "sgd", "--value-matching", "exact")
    assert exact["jga"] == pytest.approx(1 / 6) and exact["sgd_value_matching"] == "exact"
    assert "#SEEN_SERVICES" not in exact["sgd"]  # no train schema given or found in GOLD/../train


def test_cli_errors_are_one_line(tmp_path: Path, capsys):
    assert main(["score", str(SGD_PRED), "--gold", str(SGD_GOLD / "dialogues_001.json"), "--compat", "sgd"]) == 2
    assert "--compat sgd needs the schema of the evaluated split: give it with --schema" in capsys.readouterr().err
    bad = tmp_path / "schema.json"
    bad.write_text('[{"service_name": "Restaurants_2", "slots": [{"name": "time"}]}]')
    assert main(["score", str(SGD_PRED), "--gold", str(SGD_GOLD), "--schema", str(bad), "--compat", "sgd"]) == 2
    assert f"{bad}, field [0].slots[0]: a slot must be an object" in capsys.readouterr().err
    assert main(["score", str(SGD_PRED), "--gold", str(SGD_GOLD), "--compat", "sgd", "--by", "domain"]) == 2
    assert "--compat sgd groups its figures itself (sgd: each service and domain): drop --by" in capsys.readouterr().err


def test_score_without_the_files_says_how_to_give_them():
    corpus = read(SGD_PRED, gold=SGD_GOLD)
    with pytest.raises(OptionError, match="the sgd profile scores SGD dialogue files with their schema"):
        score(corpus, compat="sgd")
    schema, train = schemas(SGD_GOLD)
    inputs = SgdInputs(str(SGD_PRED), str(SGD_GOLD), str(schema), str(train), fuzzy=False)
    assert score(corpus, compat="sgd", compat_inputs=inputs).scores.jga == pytest.approx(1 / 6)
    with pytest.raises(OptionError, match="the trade profile reads nothing but the corpus"):
        score(corpus, compat="trade", compat_inputs=inputs)
    with pytest.raises(OptionError, match=re.escape(f"compat must be one of the profiles ({', '.join(PROFILES)})")):
        score(corpus, compat="sgdd")


def _write(folder: Path, dialogues: list) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "dialogues_001.json").write_text(json.dumps(dialogues))
    return folder


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d[0]["turns"][2].update(utterance="Something else."), "turn 1, field turns[2].utterance: the utter"),
        (lambda d: d[1]["turns"][4]["frames"][0].update(service="Hotels_2"), 'has no frame of service "Restaurants_2"'),
        (lambda d: d[0]["turns"][0]["frames"][0]["state"].pop("active_intent"), "has no state.active_intent"),
        (lambda d: d[0]["turns"][0].update(speaker="SYSTEM"), "field turns[0]: the speakers of the gold and the"),
        (lambda d: d[1].update(services=["Hotels_2"]), 'dialogue "2_00000", field services: the services of the'),
    ],
)
def test_predictions_must_match_gold_as_the_evaluator_checks(tmp_path: Path, change, message: str):
    dialogues = json.loads((SGD_PRED / "dialogues_001.json").read_text())
    change(dialogues)
    with pytest.raises(InputError, match=re.escape(message)):
        sgd_metrics(_write(tmp_path / "pred", dialogues), SGD_GOLD, *schemas(SGD_GOLD))


# --------------------------------------------------------------------------------------------
# The real SGD test files


def perturb(dialogues: list, schema: dict) -> tuple[list, dict]:
    """A prediction: gold with changes in the first USER frame that allows each, in every 7th
    dialogue a categorical value wrong, every 5th one requested slot dropped, every 6th a
    non-categorical value upper-cased, every 9th the intent wrong. Returns the frames changed,
    by kind, as (dialogue, turn index) with what was needed to derive the figures."""
    pred = copy.deepcopy(dialogues)
    changed: dict = {"cat": {}, "requested": {}, "upper": {}, "intent": set()}
    for index, dialogue in enumerate(pred):
        done: set = set()
        for position, turn in enumerate(dialogue["turns"]):
            if turn["speaker"] != "USER":
                continue
            (frame,) = turn["frames"]  # one frame per USER turn in these files
            state, key = frame["state"], (dialogue["dialogue_id"], position)
            kinds = dict(schema[frame["service"]])
            values = state["slot_values"]
            cat = [s for s in values if kinds[s]]
            if index % 7 == 0 and "cat" not in done and cat:
                values[cat[0]] = ["__wrong__"]
                changed["cat"][key] = (len(values), len(cat))
                done.add("cat")
            if index % 5 == 0 and "requested" not in done and state["requested_slots"]:
                changed["requested"][key] = len(state["requested_slots"])
                state["requested_slots"] = state["requested_slots"][:-1]
                done.add("requested")
            upper = [s for s in values if not kinds[s] and values[s][0].upper() not in values[s]]
            if index % 6 == 0 and "upper" not in done and upper:
                values[upper[0]] = [values[upper[0]][0].upper()]
                changed["upper"][key] = (len(values), len(values) - len(cat))
                done.add("upper")
            if index % 9 == 0 and "intent" not in done:
                state["active_intent"] = "__wrong__"
                changed["intent"].add(key)
                done.add("intent")
    return pred, changed


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    dialogues = [d for path in sorted(SGD.glob("dialogues_*.json")) for d in json.loads(path.read_text())]
    schema = load_schema(SGD / "schema.json")
    pred, changed = perturb(dialogues, schema)
    folder = _write(tmp_path_factory.mktemp("sgd") / "pred", pred)
    return dialogues, schema, folder, changed


@requires_shared
def test_real_gold_against_itself_scores_one_everywhere(capsys):
    args = ["--gold", str(SGD), "--schema", str(SGD / "schema.json"), "--train-schema", str(SGD / "train_schema.json")]
    record = run_json(capsys, str(SGD), *args, "--compat", "sgd")
    services = {
        f["service"]
        for path in SGD.glob("dialogues_*.json")
        for d in json.loads(path.read_text())
        for t in d["turns"]
        for f in t["frames"]
    }
    seen = services & set(load_schema(SGD / "train_schema.json"))
    assert 0 < len(seen) < len(services)
    groups = {ALL_SERVICES, "#SEEN_SERVICES", "#UNSEEN_SERVICES", *services, *(s.split("_")[0] for s in services)}
    assert set(record["sgd"]) == groups
    assert all(value == 1.0 for figures in record["sgd"].values() for value in figures.values())
    assert len(record["sgd"][ALL_SERVICES]) == 13
    assert (record["jga"], record["gca"], record["aga"]) == (1.0, 1.0, 1.0)


@requires_shared
def test_real_files_with_a_perturbation_score_what_we_derive(real):
    dialogues, schema, folder, changed = real
    frames = [
        (turn["frames"][0], schema[turn["frames"][0]["service"]])
        for dialogue in dialogues
        for turn in dialogue["turns"]
        if turn["speaker"] == "USER"
    ]
    n = len(frames)
    assert n == 2235 and len(changed["cat"]) > 40 and len(changed["upper"]) > 40 and len(changed["requested"]) > 40
    with_cat = sum(any(cat for _, cat in slots) for _, slots in frames)  # frames with joint_cat
    active = sum(bool(f["state"]["slot_values"]) for f, _ in frames)  # frames with AGA
    found = sgd_metrics(folder, SGD, SGD / "schema.json", SGD / "train_schema.json")[ALL_SERVICES]
    # a wrong categorical value zeroes the frame's JGA and joint_cat and costs 1/a of its AGA
    # (a active slots); upper case scores 1 under fuzzy matching; a dropped requested slot of n
    # gives recall (n-1)/n and F1 2(n-1)/(2n-1).
    assert found["joint_goal_accuracy"] == pytest.approx(1 - len(changed["cat"]) / n)
    assert found["joint_cat_accuracy"] == pytest.approx(1 - len(changed["cat"]) / with_cat)
    assert found["average_goal_accuracy"] == pytest.approx(1 - sum(1 / a for a, _ in changed["cat"].values()) / active)
    assert found["active_intent_accuracy"] == pytest.approx(1 - len(changed["intent"]) / n)
    lost = sum(1 - 2 * (k - 1) / (2 * k - 1) for k in changed["requested"].values())
    assert found["requested_slots_f1"] == pytest.approx(1 - lost / n)
    assert found["requested_slots_recall"] == pytest.approx(1 - sum(1 / k for k in changed["requested"].values()) / n)
    assert found["requested_slots_precision"] == found["slot_tagging_f1"] == found["joint_noncat_accuracy"] == 1.0
    exact = sgd_metrics(folder, SGD, SGD / "schema.json", SGD / "train_schema.json", fuzzy=False)[ALL_SERVICES]
    wrong = set(changed["cat"]) | set(changed["upper"])
    assert exact["joint_goal_accuracy"] == pytest.approx(1 - len(wrong) / n)
    assert exact["joint_noncat_accuracy"] == pytest.approx(1 - len(changed["upper"]) / n)


@requires_shared
def test_real_files_our_figures_see_the_same_changes(real):
    dialogues, _, folder, changed = real
    scores = score(read(folder, gold=SGD)).scores
    # Our turn state carries each service's last frame over: a changed frame's turn is wrong, and
    # so is any later turn before the service's next frame; a dropped requested slot or a wrong
    # intent is no state change.
    wrong_frames = set(changed["cat"]) | set(changed["upper"])
    assert round((1 - scores.jga) * scores.turns) >= len(wrong_frames)
    assert scores.wrong >= len(wrong_frames) and scores.missed == scores.overshot == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abc"), max_size=3), st.lists(st.sampled_from("abc"), max_size=3))
def test_f1_scores_count_multisets(reference, hypothesis):
    # the evaluator's definition: true positives are the multiset intersection (shortcuts for empty and single lists)
    true_positive = sum((Counter(reference) & Counter(hypothesis)).values())
    precision = true_positive / len(hypothesis) if hypothesis else 1.0
    recall = true_positive / len(reference) if reference else 1.0
    f1 = 2.0 * precision * recall / (precision + recall) if precision + recall > 0.0 else 0.0
    assert f1_scores(reference, hypothesis) == (f1, precision, recall)
