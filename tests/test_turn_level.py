"""DST-STAR's turn-level figures: joint turn accuracy and final-turn JGA (issue 34, item 2).

The expected figures were printed by DST-STAR's own evaluation, run outside the project:
``utils/eval_utils.py``'s ``model_evaluation`` (github smartyfh/DST-STAR), its instances built by
its ``Processor._create_instances`` from the file's turns in its TSV layout (every slot seen in the file,
``none`` when inactive), and a stand-in model returning the file's predicted state as label ids with
``ModelBERT``'s accuracy lines. Command: ``python star_driver.py FILE no`` (``tf``: ``is_gt_p_state=True``);
it prints ``joint accuracy``, ``joint turn accuracy`` and ``Final Joint Accuracy``.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dst_metrics import Corpus, Dialogue
from dst_metrics import score as score_report
from dst_metrics.core.tally import Tally, tally_corpus, tally_dialogue, tally_each
from dst_metrics.options import OptionError, Options
from dst_metrics.readers import read
from dst_metrics.states import Alternatives, State, values_match
from tests.conftest import REFERENCE, needs, requires_shared

TRADE_FILE = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"
T5 = REFERENCE / "t5_zeroshot" / "predictions"

# (joint accuracy, joint turn accuracy, Final Joint Accuracy) as DST-STAR printed them (module docstring).
STAR_PRINTED = {
    "trade": (0.5195439739413681, 0.6377578718783931, 0.3953953953953954),
    "attraction": (0.3347266881028939, 0.7466237942122187, 0.14430379746835442),
    "rest": (0.24888359630842513, 0.5546293539743972, 0.11212814645308924),
    "trade_seed34": (0.40418023887079263, 0.3580347448425624, 0.27127127127127126),
}


def seeded_variant(data: dict, seed: int = 34) -> dict:
    """A TRADE-layout file whose predictions are the original's, perturbed turn by turn: each predicted item
    dropped with probability 0.1, a gold item of a slot it lacks added with probability 0.2 (errors then vanish and come
    back, so turn labels differ from the states' errors)."""
    rng = random.Random(seed)
    out = {}
    for dialogue_id in sorted(data):
        turns = data[dialogue_id]
        out[dialogue_id] = {}
        for key in sorted(turns, key=int):
            gold, pred = turns[key]["turn_belief"], turns[key]["pred_bs_ptr"]
            kept = [item for item in pred if rng.random() >= 0.1]
            slots = {item.rsplit("-", 1)[0] for item in kept}
            kept += [item for item in gold if item.rsplit("-", 1)[0] not in slots and rng.random() < 0.2]
            out[dialogue_id][key] = {"turn_belief": list(gold), "pred_bs_ptr": kept}
    return out


def inputs(name: str, tmp_path) -> Corpus:
    if name == "trade":
        return read(TRADE_FILE)
    if name == "trade_seed34":
        path = tmp_path / "trade_seed34.json"
        path.write_text(json.dumps(seeded_variant(json.loads(TRADE_FILE.read_text()))))
        return read(path)
    return read(T5 / f"T5_result_zeroshot_{name}.json")


@requires_shared
@pytest.mark.parametrize("name", list(STAR_PRINTED))
def test_figures_equal_dst_star_printed(name: str, tmp_path) -> None:
    jga, jta, final = STAR_PRINTED[name]
    scores = score(inputs(name, tmp_path))
    assert (scores["jga"], scores["joint_turn_accuracy"], scores["final_jga"]) == (jga, jta, final)
    # DST-STAR with is_gt_p_state=True printed its joint accuracy as the joint turn accuracy on each file
    forced = score(inputs(name, tmp_path), teacher_forced=True)
    assert (forced["jga"], forced["joint_turn_accuracy"], forced["final_jga"]) == (jga, jga, final)


def score(corpus: Corpus, **options: object):
    return score_report(corpus, **options).scores


def dialogue(gold: list, pred: list) -> Corpus:
    return Corpus.from_dialogues([pred], [gold])


def test_turn_label_by_hand() -> None:
    # gold sets a=1 (t0), keeps it (t1), changes it to 2 and sets b (t2); the prediction sets a=1 one turn
    # late and never b: t0 misses a's change, t1 makes a change gold does not, t2 changes a but not b.
    gold = [{"a": "1"}, {"a": "1"}, {"a": "2", "b": "x"}]
    pred = [{}, {"a": "1"}, {"a": "2"}]
    scores = score(dialogue(gold, pred))
    assert scores["joint_turn_accuracy"] == 0.0
    assert scores["jga"] == 1 / 3 and scores["final_jga"] == 0.0
    # a wrong value kept from turn 0 on: every later turn's changes are right, the states never are
    gold = [{"a": "1"}, {"a": "1", "b": "x"}, {"a": "1", "b": "x"}]
    pred = [{"a": "9"}, {"a": "9", "b": "x"}, {"a": "9", "b": "x"}]
    scores = score(dialogue(gold, pred))
    assert (scores["joint_turn_accuracy"], scores["jga"]) == (2 / 3, 0.0)
    # a removal is a change (to inactive) on both sides, and "none" is inactive
    gold = [{"a": "1"}, {}]
    pred = [{"a": "1"}, {"a": "none"}]
    assert score(dialogue(gold, pred))["joint_turn_accuracy"] == 1.0


@requires_shared
def test_invariants_on_the_trade_file() -> None:
    corpus = read(TRADE_FILE)
    total, by_dialogue = tally_each(corpus.dialogues)
    summed = sum(by_dialogue.values(), Tally())
    assert (summed.turn_hits, summed.final_turns, summed.final_hits) == (
        total.turn_hits,
        total.final_turns,
        total.final_hits,
    )
    assert total.final_turns == len(corpus.dialogues) == 999
    # the final turns' hits, counted here from each dialogue's last turn alone
    last = [
        tally_corpus([type(d)(d.dialogue_id, d.turn_ids[-1:], d.gold[-1:], d.pred[-1:])]).joint_hits
        for d in corpus.dialogues
    ]
    assert total.final_hits == sum(last)
    # gold scored against itself: every turn's changes are gold's
    itself = Corpus.from_dialogues([list(d.gold) for d in corpus.dialogues], [list(d.gold) for d in corpus.dialogues])
    assert score(itself)["joint_turn_accuracy"] == score(itself)["final_jga"] == 1.0


def test_teacher_forced_signature_and_option() -> None:
    scores = score(dialogue([{"a": "1"}], [{"a": "1"}]), teacher_forced=True)
    assert scores.signatures()["jga"].endswith("|prev:gold")
    assert "prev:gold" not in score(dialogue([{"a": "1"}], [{"a": "1"}])).signature
    with pytest.raises(OptionError, match="teacher_forced"):
        Options(teacher_forced="yes")


def test_the_evaluate_module_returns_them_and_takes_teacher_forced() -> None:
    evaluate = pytest.importorskip("evaluate", reason=needs("evaluate", "evaluate"))
    from tests.conftest import REPO

    module = evaluate.load(str(REPO / "jga_fga_metrics"))
    # turn 0: area wrong; turn 1: stars added on both sides, the area error carried over
    gold = [[{"hotel-area": "north"}, {"hotel-area": "north", "hotel-stars": "4"}]]
    pred = [[{"hotel-area": "south"}, {"hotel-area": "south", "hotel-stars": "4"}]]
    plain = module.compute(predictions=pred, references=gold)
    assert (plain["jga"], plain["joint_turn_accuracy"], plain["final_jga"]) == (0.0, 0.5, 0.0)
    forced = module.compute(predictions=pred, references=gold, teacher_forced=True)
    assert forced["joint_turn_accuracy"] == 0.0 and forced["signature"].endswith("|prev:gold")


# --------------------------------------------------------------------------------------------
# The hot loop's turn label (from the change sets of `advance_side`) against the plain definition

SLOTS = ("hotel-area", "hotel-name", "train-day", "train-leave")
VALUES = ("north", "south", "4", "none", "")
GOLD_VALUES = (*VALUES, Alternatives(("north", "south")), Alternatives(("4", "south")))


def plain_active(state: dict, official: bool) -> dict:
    """The turn-level state: official drops "none" only (as the official code's maps), corrected "" too."""
    inactive = {"none"} if official else {"none", ""}
    return {slot: value for slot, value in state.items() if not (isinstance(value, str) and value in inactive)}


def plain_hit(gold: dict, gold_before: dict, pred: dict, pred_before: dict) -> bool:
    """DST-STAR's turn label, written out: the slots set to a new active value (with it) and the slots that
    became inactive; equal when the removals are the same slots and each new value is matched."""
    gold_new = {slot: value for slot, value in gold.items() if gold_before.get(slot) != value}
    pred_new = {slot: value for slot, value in pred.items() if pred_before.get(slot) != value}
    if set(gold_before) - set(gold) != set(pred_before) - set(pred) or gold_new.keys() != pred_new.keys():
        return False
    return all(values_match(value, pred_new[slot]) for slot, value in gold_new.items())


@st.composite
def dialogues(draw) -> Dialogue:
    """A dialogue of normalized states: each side set, overwritten, given "none"/"" or dropped slot by slot,
    or unchanged (the previous object again); the prediction also takes gold's object of the turn, or a copy."""
    turns = draw(st.integers(1, 7))
    gold: list[dict] = []
    pred: list[dict] = []

    def edited(state: dict, values: tuple) -> dict:
        new = dict(state)
        for slot in draw(st.lists(st.sampled_from(SLOTS), max_size=3)):
            value = draw(st.sampled_from((*values, None)))
            if value is None:
                new.pop(slot, None)
            else:
                new[slot] = value
        return new

    for t in range(turns):
        before = gold[-1] if gold else {}
        gold.append(before if t and draw(st.booleans()) else edited(before, GOLD_VALUES))
        how = draw(st.sampled_from(("gold", "copy", "same", "edit", "edit")))
        if how == "gold":
            pred.append(gold[-1])
        elif how == "copy":
            pred.append(dict(gold[-1]))
        elif how == "same" and pred:
            pred.append(pred[-1])
        else:
            pred.append(edited(pred[-1] if pred else {}, VALUES))
    return Dialogue("d", tuple(range(turns)), tuple(gold), tuple(pred))


def same_turn_label(gold: State, gold_before: State, pred: State, pred_before: State) -> bool:
    """DST-STAR's joint turn accuracy of one turn: the slots whose active value changed since the
    side's previous turn, with their new values, and the slots that became inactive, are the same on
    both sides (`side_changes` with removals, values matched by `values_match`), as set operations.

    The plain definition: the hot loop reads the labels from the change sets it has already computed
    (`core._Sums.walk`, `core.same_label_changes`); the property test below holds the two equal."""
    if gold_before.keys() - gold.keys() != pred_before.keys() - pred.keys():
        return False
    gold_changed = gold.items() - gold_before.items()
    pred_changed = pred.items() - pred_before.items()
    if len(gold_changed) != len(pred_changed):
        return False
    if gold_changed == pred_changed:
        return True
    pred_label = dict(pred_changed)
    return all(slot in pred_label and values_match(value, pred_label[slot]) for slot, value in gold_changed)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(dialogues(), min_size=1, max_size=3), st.sampled_from(("official", "corrected")))
def test_turn_hits_equal_the_plain_definition(corpus: list[Dialogue], mode: str) -> None:
    official = mode == "official"
    expected = 0
    for d in corpus:
        gold_before: dict = {}
        pred_before: dict = {}
        for g, p in zip(d.gold, d.pred):
            gold_active, pred_active = plain_active(g, official), plain_active(p, official)
            hit = plain_hit(gold_active, gold_before, pred_active, pred_before)
            assert same_turn_label(gold_active, gold_before, pred_active, pred_before) is hit
            expected += hit
            gold_before, pred_before = gold_active, pred_active
    assert tally_corpus(corpus, mode).turn_hits == expected
    assert sum(tally_dialogue(d, mode).turn_hits for d in corpus) == expected
