"""Calibration of predictions with confidences: reading them (every state shape, the plain figures
from top values), each convention of docs/calibration.md on a hand-derived example, bad confidences as
located errors, the command line and the jga_fga_metrics evaluate module.

Expected values are derived by hand in the comments (DSTC2.md section 6 for acc, L2, MRR and ROC).
"""

from __future__ import annotations

import io
import json
import random
import re
from contextlib import redirect_stderr, redirect_stdout

import pytest

from dst_metrics import Corpus, InputError, read, score
from dst_metrics.calibration import ScoredPredictions
from dst_metrics.calibration.metrics import calibration
from dst_metrics.cli import main
from dst_metrics.confidences import split_scored_state, top_value
from dst_metrics.figures.calibration import CALIBRATION_FIGURES

from .conftest import REFERENCE, needs, requires_shared

CALIBRATION_KEYS = [figure.key for figure in CALIBRATION_FIGURES]


def _corpus(preds: list, golds: list, **kwargs) -> Corpus:
    return Corpus.from_dialogues([preds], [golds], **kwargs)


def _one_slot(pred_value: object, gold: dict | None = None) -> dict:
    """Calibration figures of one turn whose prediction gives hotel-area as `pred_value`."""
    gold = {"hotel": {"area": "north"}} if gold is None else gold
    return calibration(_corpus([{"hotel": {"area": pred_value}}], [gold])).figures


# --------------------------------------------------------------------------------------------
# Reading confidences


def test_every_state_shape_gives_the_same_scores():
    nested = {"hotel": {"area": {"value": "north", "confidence": 0.8}}}
    flat = {"hotel-area": {"value": "north", "confidence": 0.8}}
    triples = [["hotel", "area", {"value": "north", "confidence": 0.8}]]
    listed = {"hotel": {"area": [{"value": "north", "score": 0.8}]}}
    for pred in (nested, flat, triples, listed):
        corpus = _corpus([pred], [{"hotel": {"area": "north"}}])
        assert corpus.dialogues[0].pred[0] == {"hotel-area": "north"}
        assert dict(corpus.scores) == {("0", 0, "hotel-area"): (("north", 0.8),)}


def test_files_without_confidences_have_no_scores():
    corpus = read('{"d": {"0": {"gt": {"hotel": {"area": "north"}}, "pr": {"hotel": {"area": "north"}}}}}')
    assert corpus.scores is None


def test_plain_figures_use_the_top_values():
    # turn 0: stars 4 (0.3) and 5 (0.2) leave None 0.5, which wins the top: stars is not predicted.
    # turn 1: area north 0.6 is the top; stars plain "4". Gold equals the top values in both turns.
    text = json.dumps(
        {
            "d1": {
                "0": {
                    "gt": {"hotel": {"area": "north"}},
                    "pr": {
                        "hotel": {
                            "area": "north",
                            "stars": [{"value": "4", "score": 0.3}, {"value": "5", "score": 0.2}],
                        }
                    },
                },
                "1": {
                    "gt": {"hotel": {"area": "north", "stars": "4"}},
                    "pr": {"hotel-area": {"value": "north", "confidence": 0.6}, "hotel-stars": "4"},
                },
            }
        }
    )
    corpus = read(text)
    assert corpus.dialogues[0].pred == ({"hotel-area": "north"}, {"hotel-area": "north", "hotel-stars": "4"})
    assert score(corpus).scores.jga == 1.0
    assert len(corpus.scores) == 2  # turn 0 stars, turn 1 area
    assert corpus.scores.turn("d1", 1) == {"hotel-area": (("north", 0.6),)}
    assert corpus.scores.turn("d1", 5) == {}


def test_jsonl_and_turn_records_carry_confidences():
    line = {
        "dialogue_id": "a",
        "turn_id": 0,
        "gt": {"hotel-area": "north"},
        "pr": {"hotel-area": {"value": "north", "score": 0.9}},
    }
    corpus = read(json.dumps(line) + "\n", format="jsonl")
    assert dict(corpus.scores) == {("a", 0, "hotel-area"): (("north", 0.9),)}
    records = Corpus.from_turn_records(
        [{"dialogue_id": "a", "turn_id": 0, "state": {"hotel-area": {"value": "north", "score": 0.9}}}],
        [{"dialogue_id": "a", "turn_id": 0, "state": {"hotel-area": "north"}}],
    )
    assert dict(records.scores) == dict(corpus.scores)


def test_normalized_matching_merges_folded_values():
    pred = {"hotel": {"area": [{"value": "North", "score": 0.3}, {"value": " north", "score": 0.3}]}}
    corpus = _corpus([pred], [{"hotel": {"area": "north"}}], value_matching="normalized")
    # folded, the two are one value with 0.3 + 0.3 = 0.6 > None 0.4: the top
    assert dict(corpus.scores) == {("0", 0, "hotel-area"): (("north", 0.6),)}
    assert corpus.dialogues[0].pred[0] == {"hotel-area": "north"}


def test_top_value_ties():
    assert top_value((("north", 0.5),)) == "north"  # None (0.5) loses the tie
    assert top_value((("north", 0.4),)) is None  # None holds 0.6
    assert top_value((("south", 0.4), ("north", 0.4))) == "south"  # the first given wins a tie
    assert top_value(()) is None


def test_split_leaves_plain_states_alone():
    assert split_scored_state({"hotel": {"area": "north"}}) is None
    assert split_scored_state("hotel-area=north") is None


def test_scored_predictions_mapping():
    table = ScoredPredictions()
    table.add_turn("d", 0, {"a-b": (("x", 0.5),)})
    assert table[("d", 0, "a-b")] == (("x", 0.5),)
    assert list(table) == [("d", 0, "a-b")] and len(table) == 1


# --------------------------------------------------------------------------------------------
# Conventions, each on a hand-derived example


def test_low_confidence_value_is_outranked_by_none():
    # north 0.4 leaves None 0.6: the top is None, which is wrong (gold north).
    # L2 = (1 - 0.4)² + 0.6² = 0.72; MRR: north is second, 1/2; Brier (0.6 - 0)² = 0.36.
    figures = _one_slot({"value": "north", "confidence": 0.4})
    assert figures["slot_acc"] == 0.0
    assert figures["slot_l2"] == pytest.approx(0.72)
    assert figures["slot_mrr"] == 0.5
    assert figures["slot_brier"] == pytest.approx(0.36)


def test_slot_left_out_is_none_with_score_one():
    # gold has area, the prediction leaves it out: None with 1, wrong.
    # L2 = (1 - 0)² + 1² = 2; MRR 0 (north not listed); ECE |0 - 1| = 1; Brier 1.
    figures = calibration(_corpus([{}], [{"hotel": {"area": "north"}}])).figures
    assert (figures["slot_acc"], figures["slot_l2"], figures["slot_mrr"]) == (0.0, 2.0, 0.0)
    assert (figures["slot_ece"], figures["slot_brier"]) == (1.0, 1.0)


def test_scored_slots_are_the_union_of_gold_and_prediction():
    # gold names area, the prediction names stars: 2 decisions; a slot neither names is not scored.
    # area: left out, None 1, wrong. stars: 4 at 0.25, None 0.75 is the top, right (gold has no stars).
    pred = {"hotel": {"stars": {"value": "4", "confidence": 0.25}}}
    result = calibration(_corpus([pred], [{"hotel": {"area": "north"}}]))
    assert result.slots == 2 and result.turns == 1
    assert result.figures["slot_acc"] == 0.5
    # L2: area (1-0)² + 1² = 2; stars (1-0.75)² + 0.25² = 0.125; mean 1.0625
    assert result.figures["slot_l2"] == pytest.approx(1.0625)
    empty = calibration(_corpus([{}], [{}]))
    assert empty.slots == 0 and empty.turns == 1 and empty.figures["slot_acc"] is None
    assert empty.figures["joint_acc"] == 1.0  # nothing on either side: the joint None is right


def test_inactive_values_join_the_none_hypothesis():
    # none 0.7 and north 0.3: None holds 0.7 (the residual), the top; gold has no area: right.
    # L2 = (1 - 0.7)² + 0.3² = 0.18
    figures = _one_slot([{"value": "none", "score": 0.7}, {"value": "north", "score": 0.3}], gold={})
    assert figures["slot_acc"] == 1.0
    assert figures["slot_l2"] == pytest.approx(0.18)


def test_gold_inactive_value_is_the_none_label():
    figures = _one_slot({"value": "north", "confidence": 0.2}, gold={"hotel": {"area": "none"}})
    assert figures["slot_acc"] == 1.0  # None 0.8 is the top, and gold's "none" is the None label


def test_acceptable_values_take_the_best_ranked_one():
    # gold [north, centre]; centre 0.6, north 0.3, None 0.1: the label is centre (ranked first).
    # L2 = (1 - 0.6)² + 0.3² + 0.1² = 0.26; MRR 1
    pred = [{"value": "centre", "score": 0.6}, {"value": "north", "score": 0.3}]
    figures = _one_slot(pred, gold={"hotel": {"area": ["north", "centre"]}})
    assert figures["slot_acc"] == 1.0
    assert figures["slot_l2"] == pytest.approx(0.26)
    assert figures["slot_mrr"] == 1.0


def test_joint_is_the_product_of_marginals():
    # area north 0.8 (None 0.2), stars 4 0.5 (None 0.5, loses the tie); gold area north, stars 4.
    # joint top {area: north, stars: 4} right, confidence 0.8 * 0.5 = 0.4.
    # L2 (independent form): p = 0.4; Π Σ score² = (0.64 + 0.04)(0.25 + 0.25) = 0.34;
    # (1 - 0.4)² + (0.34 - 0.16) = 0.54. Brier (0.4 - 1)² = 0.36; ECE 0.6.
    pred = {"hotel": {"area": {"value": "north", "confidence": 0.8}, "stars": {"value": "4", "confidence": 0.5}}}
    figures = calibration(_corpus([pred], [{"hotel": {"area": "north", "stars": "4"}}])).figures
    assert figures["joint_acc"] == 1.0
    assert figures["joint_l2"] == pytest.approx(0.54)
    assert figures["joint_brier"] == pytest.approx(0.36)
    assert figures["joint_ece"] == pytest.approx(0.6)
    assert figures["joint_mrr"] == 1.0


def test_roc_ece_brier_auroc_on_five_decisions():
    # (right, confidence): (T .9) (T .8) (F .7: south) (T .6) (F .5: south beats None .5 in the tie).
    # ROC v2 (DSTC2.md 6): from "accept all" on, the first point with FA/(FA+TR) <= 0.05 accepts
    # the top two: TA 2 of 3 right -> 2/3. ECE (one decision per bin): (.1+.2+.7+.4+.5)/5 = 0.38.
    # Brier (.01+.04+.49+.16+.25)/5 = 0.19. AUROC: 5 of the 6 (right, wrong) pairs ordered -> 5/6.
    values = [("north", 0.9), ("north", 0.8), ("south", 0.7), ("north", 0.6), ("south", 0.5)]
    preds = [{"hotel": {"area": {"value": v, "confidence": c}}} for v, c in values]
    golds = [{"hotel": {"area": "north"}}] * 5
    figures = calibration(_corpus(preds, golds)).figures
    assert figures["slot_acc"] == pytest.approx(0.6)
    assert figures["slot_roc_v2_ca05"] == pytest.approx(2 / 3)
    assert figures["slot_ece"] == pytest.approx(0.38)
    assert figures["slot_brier"] == pytest.approx(0.19)
    assert figures["slot_auroc"] == pytest.approx(5 / 6)


def test_joint_accuracy_is_jga_of_the_top_values():
    # invariant: the joint's top is the plain prediction, so joint accuracy is JGA (no inactive values)
    rng = random.Random(5)
    values = ["north", "south", "east"]
    slots = ["hotel-area", "hotel-stars", "taxi-leave"]
    preds, golds = [], []
    for _ in range(40):
        gold = {s: rng.choice(values) for s in slots if rng.random() < 0.6}
        pred = {}
        for s in slots:
            if rng.random() < 0.7:
                scores = [rng.random() for _ in values]
                total = sum(scores) * rng.uniform(1.0, 1.5)
                pred[s] = [{"value": v, "score": x / total} for v, x in zip(values, scores)]
        preds.append(pred)
        golds.append(gold)
    corpus = _corpus(preds, golds)
    assert calibration(corpus).figures["joint_acc"] == pytest.approx(score(corpus).scores.jga)


def test_registry_lists_every_figure_once():
    keys = CALIBRATION_KEYS
    assert len(keys) == len(set(keys)) == 18
    assert {f.family for f in CALIBRATION_FIGURES} == {"calibration"}
    assert keys[-2:] == ["slt2024_ece", "slt2024_auroc"]  # SLT 2024's protocol, with its signature part
    assert [f.signature for f in CALIBRATION_FIGURES if f.signature] == ["slt2024|bins:10"] * 2
    assert [f.key for f in CALIBRATION_FIGURES if not f.higher_is_better][:4] == [
        "slot_l2",
        "slot_ece",
        "slot_ece_mass",
        "slot_brier",
    ]


# --------------------------------------------------------------------------------------------
# Bad confidences: located errors


@pytest.mark.parametrize(
    ("value", "field", "problem"),
    [
        ({"value": "north", "confidence": 1.5}, "pr.hotel.area.confidence", "must be in [0, 1], got 1.5"),
        ({"value": "north", "confidence": -0.1}, "pr.hotel.area.confidence", "must be in [0, 1], got -0.1"),
        (
            {"value": "north", "confidence": "high"},
            "pr.hotel.area.confidence",
            'a number in [0, 1], got a string ("high")',
        ),
        ({"value": "north", "confidence": True}, "pr.hotel.area.confidence", "a number in [0, 1], got a boolean"),
        ({"value": "north", "confidence": float("nan")}, "pr.hotel.area.confidence", "must be in [0, 1], got NaN"),
        (
            [{"value": "north", "score": 0.7}, {"value": "south", "score": 0.6}],
            "pr.hotel.area",
            "sum to 1.3, more than 1",
        ),
        ([{"value": "north", "score": 0.5}, "south"], "pr.hotel.area[1]", 'holds objects {"value", "score"}'),
        ({"value": "north"}, "pr.hotel.area", "needs a value and a confidence"),
        ({"value": "north", "confidence": 0.5, "score": 0.5}, "pr.hotel.area", "needs both confidence and score"),
        ({"value": "north", "score": 0.5, "why": "x"}, "pr.hotel.area", 'got also ["why"]'),
        ({"value": None, "score": 0.5}, "pr.hotel.area.value", "a string or a number, got null"),
        (
            [{"value": "north", "score": 0.1}, {"value": "north", "score": 0.2}],
            "pr.hotel.area[1]",
            '"north" is given twice',
        ),
    ],
)
def test_bad_confidences_are_located_errors(value, field, problem):
    with pytest.raises(InputError) as caught:
        _corpus([{"hotel": {"area": value}}], [{"hotel": {"area": "north"}}])
    assert caught.value.field == field and caught.value.dialogue == "0" and caught.value.turn == 0
    assert problem in caught.value.problem


def test_sum_within_rounding_is_accepted():
    pred = [{"value": "north", "score": 0.7}, {"value": "south", "score": 0.3 + 5e-6}]
    assert calibration(_corpus([{"hotel": {"area": pred}}], [{"hotel": {"area": "north"}}])).figures["slot_acc"] == 1


def test_malformed_objects_keep_the_core_error():
    with pytest.raises(InputError, match="a value must be a string or a number, got an object") as caught:
        _corpus([{"hotel": {"area": {"name": "north"}}}], [{"hotel": {"area": "north"}}])
    assert caught.value.field == "pr.hotel.area"


def test_gold_with_confidences_is_an_error():
    with pytest.raises(InputError, match="a value must be a string or a number") as caught:
        _corpus([{}], [{"hotel-area": {"value": "north", "confidence": 0.5}}])
    assert caught.value.field == "gt.hotel-area"


# --------------------------------------------------------------------------------------------
# Command line and evaluate

CONFIDENCE_FILE = {
    "d1": {
        str(turn): {"gt": {"hotel": {"area": "north"}}, "pr": {"hotel": {"area": {"value": value, "confidence": c}}}}
        for turn, (value, c) in enumerate(
            [("north", 0.9), ("north", 0.8), ("south", 0.7), ("north", 0.6), ("south", 0.5)]
        )
    }
}


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def test_cli_json(tmp_path):
    path = tmp_path / "confidences.json"
    path.write_text(json.dumps(CONFIDENCE_FILE))
    status, out, _ = _run(["calibration", str(path), "--json", "--bins", "5"])
    record = json.loads(out)
    assert status == 0 and record["format"] == "reference" and record["confidences"] is True
    # the five decisions of test_roc_ece_brier_auroc_on_five_decisions
    assert record["slot_roc_v2_ca05"] == pytest.approx(2 / 3)
    assert record["slot_auroc"] == pytest.approx(5 / 6)
    assert record["slot_brier"] == pytest.approx(0.19)
    # 5 equal-width bins: (.4,.6] holds .6 (right) and .5 (wrong): |0.5 - 0.55| = 0.05; (.6,.8] holds
    # .8 (right) and .7 (wrong): |0.5 - 0.75| = 0.25; (.8,1] holds .9 (right): 0.1.
    # ECE = (2 * 0.05 + 2 * 0.25 + 0.1) / 5 = 0.14
    assert record["slot_ece"] == pytest.approx(0.14)
    assert record["bins"] == 5 and record["slots"] == 5 and record["turns"] == 5
    assert [row[2] for row in record["reliability"]["slot"]["width"]] == [2, 2, 1]
    assert record["signature"].endswith("|calibration|bins:5|slt2024|bins:10")  # SLT 2024's figures: 10 bins
    status, out, _ = _run(["score", str(path), "--json"])
    assert status == 0 and json.loads(out)["jga"] == pytest.approx(0.6)  # top values: 3 of 5 right


def test_cli_table_and_errors(tmp_path):
    path = tmp_path / "confidences.json"
    path.write_text(json.dumps(CONFIDENCE_FILE))
    status, out, _ = _run(["calibration", str(path)])
    assert status == 0 and out.splitlines()[2].split()[:2] == ["slot", "60.00"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"d": {"0": {"gt": {}, "pr": {"hotel": {"area": {"value": "x", "confidence": 2}}}}}}))
    status, out, err = _run(["calibration", str(bad)])
    assert status == 2 and out == ""
    assert err == (
        f'dst-metrics: error: {bad}, dialogue "d", turn 0, field pr.hotel.area.confidence: '
        "a confidence must be in [0, 1], got 2\n"
    )


def test_cli_bad_bins_is_one_line(tmp_path):
    path = tmp_path / "confidences.json"
    path.write_text(json.dumps(CONFIDENCE_FILE))
    with pytest.raises(SystemExit) as caught, redirect_stderr(io.StringIO()) as err:
        main(["calibration", str(path), "--bins", "0"])
    assert caught.value.code == 2
    assert err.getvalue().count("\n") == 1 and "--bins: must be a whole number at least 1" in err.getvalue()


@pytest.mark.slow
def test_evaluate_reports_calibration_only_with_confidences(tmp_path):
    evaluate = pytest.importorskip("evaluate", reason=needs("evaluate", "evaluate"))
    from dst_metrics import module_path

    module = evaluate.load(module_path("jga_fga_metrics"), cache_dir=str(tmp_path))
    turns = CONFIDENCE_FILE["d1"]
    preds = [[turns[t]["pr"] for t in sorted(turns, key=int)]]
    golds = [[turns[t]["gt"] for t in sorted(turns, key=int)]]
    results = module.compute(predictions=preds, references=golds)
    expected = calibration(Corpus.from_dialogues(preds, golds)).figures
    assert {key: results[key] for key in CALIBRATION_KEYS} == expected
    assert results["jga"] == pytest.approx(0.6) and results["slot_auroc"] == pytest.approx(5 / 6)
    plain = module.compute(predictions=golds, references=golds)
    assert plain["jga"] == 1.0 and not set(CALIBRATION_KEYS) & set(plain)
    with pytest.raises(InputError, match="field state.hotel.area.confidence: a confidence must be in"):
        module.compute(predictions=[[{"hotel": {"area": {"value": "x", "confidence": 2}}}]], references=[[{}]])
    # dst_metrics_all has jga_fga_metrics' figures, the calibration ones included, and gca_metric's
    every = evaluate.load(module_path("all"), cache_dir=str(tmp_path)).compute(predictions=preds, references=golds)
    gca = evaluate.load(module_path("gca"), cache_dir=str(tmp_path)).compute(predictions=preds, references=golds)
    assert every == {**gca, **results}


def test_reliability_diagram_draws_every_bin():
    pytest.importorskip("matplotlib", reason=needs("report", "matplotlib"))
    from dst_metrics.report.plots import inline_svg, reliability_chart

    values = [("north", 0.9), ("north", 0.8), ("south", 0.7), ("north", 0.6), ("south", 0.5)]
    preds = [{"hotel": {"area": {"value": v, "confidence": c}}} for v, c in values]
    result = calibration(_corpus(preds, [{"hotel": {"area": "north"}}] * 5), bins=5)
    figure, marks = reliability_chart("slot", result.as_dict()["reliability"]["slot"]["width"])
    accuracy_axes, count_strip = figure.axes
    # (0.4, 0.6]: 0.5 south, 0.6 north; (0.6, 0.8]: 0.7 south, 0.8 north; (0.8, 1]: 0.9 north
    assert [bar.get_height() for bar in accuracy_axes.patches] == [0.5, 0.5, 1.0]  # each bin as tall as its accuracy
    assert [bar.get_height() for bar in count_strip.patches] == [2, 2, 1]  # the bins' sizes
    assert [round(bar.get_x(), 9) for bar in accuracy_axes.patches] == [0.4, 0.6, 0.8]  # each spans its bin
    svg = inline_svg(figure, "reliability", "Reliability", marks)
    bars = re.findall(r'class="reliability-bar" data-accuracy="([\d.]+)"[^>]* data-count="(\d+)"', svg)
    assert [(float(a), int(c)) for a, c in bars] == [(0.5, 2), (0.5, 2), (1.0, 1)]  # each bar carries its data


def test_example_file():
    from .conftest import REPO

    corpus = read(REPO / "examples" / "confidences.json")
    result = calibration(corpus)
    # 10 decisions, 7 right: area x3, stars 4 (0.55) in conf-1 turn 1, food x2, area centre (0.5 vs
    # south 0.45, None 0.05); wrong: stars 5 (gold 4), parking (yes 0.4 < None 0.6), pricerange cheap.
    assert (result.slots, result.turns) == (10, 5)
    assert result.figures["slot_acc"] == pytest.approx(0.7)
    assert result.figures["joint_acc"] == pytest.approx(score(corpus).scores.jga) == pytest.approx(0.6)


def test_one_sided_mwzeval_predictions_carry_confidences():
    from dst_metrics.readers import pair
    from dst_metrics.readers.base import Side
    from tests.samples import read_side

    from .conftest import REPO

    fixtures = REPO / "tests" / "fixtures" / "trade_mwzeval"
    layout = json.loads((fixtures / "reference.json").read_text())
    gold = Side({d: {int(t): turn["gt"] for t, turn in turns.items()} for d, turns in layout.items()})
    data = json.loads((fixtures / "mwzeval.json").read_text())
    data["mul0003"][0]["state"]["hotel"]["type"] = {"value": "guest house", "confidence": 0.7}
    corpus = pair(gold, read_side(json.dumps(data), "pred", "mwzeval"))
    assert corpus == read(fixtures / "reference.json")  # the same top values
    assert dict(corpus.scores) == {("MUL0003.json", 0, "hotel-type"): (("guest house", 0.7),)}
    data["mul0003"][0]["state"]["hotel"]["type"] = {"value": "guest house", "confidence": 7}
    with pytest.raises(InputError, match=r'dialogue "mul0003", turn 0, field state.hotel.type.confidence: .* got 7'):
        read_side(json.dumps(data), "pred", "mwzeval")


def test_turn_encoder_keeps_the_confidences_of_every_batch():
    pytest.importorskip("pyarrow", reason=needs("evaluate", "pyarrow"))
    from dst_metrics.hf_evaluate.batches import TurnEncoder

    encoder = TurnEncoder()
    gold = [[{"hotel": {"area": "north"}}]]
    encoder.encode([[{"hotel": {"area": {"value": "north", "confidence": 0.8}}}]], gold)
    encoder.encode(gold, gold)  # a batch without confidences adds none
    encoder.encode([[{"hotel": {"area": [{"value": "south", "score": 0.9}]}}]], gold)
    assert dict(encoder.scores) == {
        ("0", 0, "hotel-area"): (("north", 0.8),),
        ("2", 0, "hotel-area"): (("south", 0.9),),
    }
    encoder.reset()
    assert encoder.scores is None


def test_by_slot_figures():
    from .conftest import REPO

    result = calibration(read(REPO / "examples" / "confidences.json"), by_slot=True)
    assert sum(figures["n"] for figures in result.by_slot.values()) == result.slots
    pooled = sum(figures["acc"] * figures["n"] for figures in result.by_slot.values()) / result.slots
    assert pooled == pytest.approx(result.figures["slot_acc"])
    # hotel-stars: 4 at 0.55 (right, turn 1) and 5 at 0.6 (wrong, turn 2). Equal-width: one bin
    # (0.5, 0.6], |0.5 - 0.575| = 0.075. Equal-mass: edges 0.55 ... 0.6, one decision per end bin:
    # (0.45 + 0.6) / 2 = 0.525. AUROC: the right one scores lower: 0.
    stars = result.by_slot["hotel-stars"]
    assert (stars["n"], stars["acc"]) == (2, 0.5)
    assert stars["ece"] == pytest.approx(0.075) and stars["ece_mass"] == pytest.approx(0.525)
    assert stars["auroc"] == 0.0
    assert calibration(read(REPO / "examples" / "confidences.json")).by_slot is None


@requires_shared
def test_joint_accuracy_of_a_published_file_is_its_jga():
    # without confidences every value is certain: the joint's top is the prediction, right iff JGA's turn is
    corpus = read(REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json")
    result = calibration(corpus)
    assert result.figures["joint_acc"] == pytest.approx(score(corpus).scores.jga) == pytest.approx(0.2489, abs=5e-5)
    assert result.turns == corpus.num_turns and result.has_confidences is False


# --------------------------------------------------------------------------------------------
# Bin edges by exact rational rules, and SetSUMBT's joint-goal ECE (issue 19)


@pytest.mark.parametrize("bins", [50, 100])
def test_a_none_confidence_on_an_edge_goes_to_the_bin_below(bins):
    from bisect import bisect_left

    from dst_metrics.calibration.metrics import bin_edges, width_bin
    from dst_metrics.dstc2.stats import normalise_dist

    naive_misses = 0
    for k in range(1, bins):
        score = float(f"{1 - k / bins:.4f}")  # a value written as a decimal, e.g. 0.43
        none = dict(normalise_dist([("x", score)]))[None]  # 1 - 0.43 = 0.5700000000000001
        assert width_bin(none, bins) == k - 1, (k, none)  # on the edge k/B: the bin below
        assert width_bin(none + 1e-6, bins) == k and width_bin(none - 1e-6, bins) == k - 1
        naive_misses += bisect_left(bin_edges([], bins)[1:-1], none) != k - 1
    assert naive_misses > 0  # comparing with the float edges k·(1/B) puts some of them a bin too high
    assert width_bin(0.0, bins) == 0 and width_bin(1.0, bins) == bins - 1


def test_a_none_confidence_on_an_edge_in_the_reliability_diagram():
    # stars 4 at 0.43: the None hypothesis holds 1 - 0.43 = 0.5700000000000001 and is the top (right:
    # gold has no stars); at 100 bins it belongs to (0.56, 0.57], not (0.57, 0.58]
    corpus = _corpus([{"hotel": {"stars": [{"value": "4", "score": 0.43}]}}], [{}])
    result = calibration(corpus, bins=100)
    (found,) = result.reliability["slot"]["width"]
    assert (found.low, found.count) == (pytest.approx(0.56), 1) and found.high == pytest.approx(0.57)


def _scored(value: str, score: float) -> dict:
    return {"value": value, "confidence": score}


def test_joint_ece_min_by_hand():
    # SetSUMBT's joint-goal ECE: the turn's confidence is the minimum over its slots of the top score.
    #   turn 0: area north 0.9, stars 4 0.7 (None 0.3); gold north, 4: right. min 0.7 (product 0.63)
    #   turn 1: area north 0.8, stars 5 0.6 (None 0.4); gold north, 4: wrong. min 0.6 (product 0.48)
    #   turn 2: area north 0.95, stars 4 0.3 (None 0.7 is the top); gold north only: right. min 0.7 (0.665)
    #   turn 3: area north 0.55; gold south: wrong. min 0.55 (product 0.55)
    # 10 bins: (0.6, 0.7] holds turns 0 and 2 (0.7 is on the edge), accuracy 1, confidence 0.7;
    # (0.5, 0.6] holds turns 1 and 3, accuracy 0, confidence 0.575:
    # ECE = 2/4 · 0.3 + 2/4 · 0.575 = 0.4375. The product (joint_ece): (0.6, 0.7] turns 0 and 2, accuracy
    # 1, confidence 0.6475; (0.4, 0.5] turn 1 (0.48); (0.5, 0.6] turn 3 (0.55):
    # 2/4 · 0.3525 + 1/4 · 0.48 + 1/4 · 0.55 = 0.43375.
    preds = [
        {"hotel": {"area": _scored("north", 0.9), "stars": _scored("4", 0.7)}},
        {"hotel": {"area": _scored("north", 0.8), "stars": _scored("5", 0.6)}},
        {"hotel": {"area": _scored("north", 0.95), "stars": _scored("4", 0.3)}},
        {"hotel": {"area": _scored("north", 0.55)}},
    ]
    golds = [
        {"hotel": {"area": "north", "stars": "4"}},
        {"hotel": {"area": "north", "stars": "4"}},
        {"hotel": {"area": "north"}},
        {"hotel": {"area": "south"}},
    ]
    result = calibration(_corpus(preds, golds), bins=20)  # joint_ece_min keeps 10 bins whatever --bins
    assert result.joint_ece_min == pytest.approx(0.4375, abs=1e-15)
    assert calibration(_corpus(preds, golds)).figures["joint_ece"] == pytest.approx(0.43375, abs=1e-15)
    data = result.as_dict()
    keys = list(data)
    assert keys[keys.index("joint_ece") + 1] == "joint_ece_min" and data["joint_ece_min"] == result.joint_ece_min


def test_calibration_json_has_joint_ece_min(tmp_path):
    from .conftest import REPO

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["calibration", str(REPO / "examples" / "confidences.json"), "--json"]) == 0
    data = json.loads(out.getvalue())
    expected = calibration(read(REPO / "examples" / "confidences.json")).joint_ece_min
    assert data["joint_ece_min"] == expected and expected is not None
