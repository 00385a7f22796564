"""SIMMC 2.x multimodal DST: its lines and dials JSON (`dst_metrics.readers.simmc`) and the seven figures of its
``evaluate_dst.py`` (`dst_metrics.compat.simmc`).

Published-by-run figures: the DSTC10 evaluation scripts as team 4 (KAIST-AILab/DSTC10-SIMMC at 16b952a,
``evaluation_tools/evaluate.py`` with its ``evaluate_dst.py`` and ``convert_baseline.py``, copies of
facebookresearch/simmc2's DSTC10 ones) run outside the project: on the hand-made cases of `CASES` (each with
`ANCHOR` last: the script's standard errors divide by every part's hits), on the files in
tests/fixtures/simmc/, and on that team's devtest predictions against its target file, where
``DST_METRICS_SIMMC`` points to a copy of that repository (CI has none: it has no network).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dst_metrics import score
from dst_metrics.cli import main
from dst_metrics.compat.simmc import as_report
from dst_metrics.readers import detect, read

FIXTURES = Path(__file__).parent / "fixtures" / "simmc"
SNAPSHOT = Path(os.environ.get("DST_METRICS_SIMMC", "/nonexistent"))
B = " => Belief State : "
ANCHOR = f"User : b{B}INFORM:GET [ type = coat ] ( price ) < 1 > <EOB> r"


def _report(joint: float, act: float, slot: tuple, request: float, objects: float) -> dict:
    """The script's seven figures; `slot` is (precision, recall, F1)."""
    return {
        "joint_accuracy": joint,
        "act_f1": act,
        "slot_prec": slot[0],
        "slot_rec": slot[1],
        "slot_f1": slot[2],
        "request_slot_f1": request,
        "object_f1": objects,
    }


CASES = {
    # target lines, predicted lines, the script's figures
    "frames by position, the later ones merged by the grammar": (
        [f"User : a{B}INFORM:GET [ type = dress ] ( ) <  > INFORM:REFINE [ color = red ] ( price ) < 3 > <EOB> r"],
        [f"User : a{B}INFORM:GET [ type = dress ] ( ) <  > <EOB> r"],
        _report(0.5, 1.0, (0.5, 0.5, 0.5), 0.6666666666666666, 0.6666666666666666),
    ),
    "predictions with no frame: no end, two ends, a blank line": (
        [f"User : a{B}REQUEST:GET [ type = jeans ] ( ) <  > <EOB> r"] * 3,
        [
            f"User : a{B}REQUEST:GET [ type = jeans ] ( ) <  >",
            f"User : a{B}REQUEST:GET [ type = jeans ] () < > <EOB> x <EOB>",
            "",
        ],
        _report(0.25, 0.4, (1.0, 0.25, 0.4), 1.0, 1.0),
    ),
    "availableSizes: sorted lists, a quoted text, a bare list": (
        [
            f"User : a{B}ASK:GET [ availableSizes = ['S', 'XL'] ] ( ) <  > <EOB> r",
            f"User : a{B}ASK:GET [ availableSizes = 'XL' ] ( ) <  > <EOB> r",
            f"User : a{B}ASK:GET [ availableSizes = [S, XL] ] ( ) <  > <EOB> r",
        ],
        [
            f"User : a{B}ASK:GET [ availableSizes = ['XL', 'S'] ] ( ) <  > <EOB> r",
            f"User : a{B}ASK:GET [ availableSizes = ['X', 'L'] ] ( ) <  > <EOB> r",
            f"User : a{B}ASK:GET [ availableSizes = [XL, S] ] ( ) <  > <EOB> r",
        ],
        _report(0.75, 1.0, (0.75, 0.75, 0.75), 1.0, 1.0),
    ),
    "an empty act, an empty slot name, a slot given twice, ids that are not numbers": (
        [
            f"User : a{B}INFORM:GET [ color = red, color = blue ] ( size ) < 7, 012 > <EOB> r",
            f"User : a{B}INFORM:GET [  = red ] ( ) <  > <EOB> r",
        ],
        [
            f"User : a{B}INFORM:GET [ color = blue, color = red, color = red ] ( size, size ) < a7, 12, 7 > <EOB> r",
            f"User : a{B} [  = red ] ( ) <  > <EOB> r",
        ],
        _report(0.6666666666666666, 0.8, (1.0, 0.75, 0.8571428571428571), 1.0, 1.0),
    ),
}

FIXTURE_MEASURED = _report(0.4, 1.0, (1.0, 0.8333333333333334, 0.9090909090909091), 0.8, 0.888888888888889)
"""The script on tests/fixtures/simmc/pred.txt against target.txt."""

TEAM4_MEASURED = _report(
    0.595307236612847,
    0.9606226042513648,
    (0.8948748991121872, 0.8799603174603174, 0.8873549419767907),
    0.9001788908765653,
    0.7381628787878788,
)
"""The script on team 4's devtest_results/dstc10-simmc-devtest-pred-subtask-3.txt against
data_object_special/simmc2_dials_dstc10_devtest_target.txt (8,609 turns)."""


def _simmc_json(args: list[str], capsys) -> dict:
    assert main(["score", *args, "--compat", "simmc", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("case", list(CASES))
def test_hand_made_cases_score_as_the_official_script(case, tmp_path, capsys):
    gold, pred, measured = CASES[case]
    (tmp_path / "target.txt").write_text("\n".join([*gold, ANCHOR]) + "\n")
    (tmp_path / "pred.txt").write_text("\n".join([*pred, ANCHOR]) + "\n")
    found = _simmc_json([str(tmp_path / "pred.txt"), "--gold", str(tmp_path / "target.txt")], capsys)
    assert as_report(found) == measured


def test_the_fixture_scores_as_the_official_script_and_our_jga_is_its_joint_accuracy(capsys):
    args = [str(FIXTURES / "pred.txt"), "--gold", str(FIXTURES / "target.txt")]
    found = _simmc_json(args, capsys)
    assert as_report(found) == FIXTURE_MEASURED
    ours = score(read(FIXTURES / "pred.txt", gold=FIXTURES / "target.txt")).scores
    assert ours["jga"] == found["jga"]  # one frame a turn: a state equal in act, slots, requests and objects
    assert ours["turns"] == 5 and "dialogues:by-context" in ours.signature


def test_simmc_2_1_lines_with_disambiguation_candidates_score_as_the_dstc11_script(tmp_path, capsys):
    """facebookresearch/simmc2 at 6e3de4e (DSTC11's ``gpt2_dst/scripts/evaluate.py``) gives the fixture's figures on
    its lines with ``| candidates |`` after the objects: no figure of the seven reads them."""
    for name, candidates in (("target.txt", "| 3, 4 |"), ("pred.txt", "| 3 |")):
        text = (FIXTURES / name).read_text().replace(" > <EOB>", f" > {candidates} <EOB>")
        (tmp_path / name).write_text(text)
    found = _simmc_json([str(tmp_path / "pred.txt"), "--gold", str(tmp_path / "target.txt")], capsys)
    assert as_report(found) == FIXTURE_MEASURED


def test_target_lines_start_a_dialogue_where_the_context_has_no_system_turn():
    corpus = read(FIXTURES / "pred.txt", gold=FIXTURES / "target.txt")
    assert [len(dialogue.turn_ids) for dialogue in corpus.dialogues] == [3, 2]
    assert detect((FIXTURES / "pred.txt").read_bytes()) == "simmc"


def _dials(lines_gold: list[dict]) -> dict:
    return {"split": "devtest", "dialogue_data": lines_gold}


def _turn(act: str, slots: dict, requested: list, objects: list) -> dict:
    attributes = {"slot_values": slots, "request_slots": requested, "objects": objects}
    return {"transcript": "...", "transcript_annotated": {"act": act, "act_attributes": attributes}}


FIXTURE_DIALS = _dials(
    [
        {
            "dialogue_idx": 11,
            "dialogue": [
                _turn("REQUEST:GET", {"type": "jacket", "color": "black"}, [], []),
                _turn("ASK:GET", {}, ["availableSizes"], [12]),
                _turn("REQUEST:ADD_TO_CART", {"size": "XL"}, [], [12]),
            ],
        },
        {
            "dialogue_idx": 12,
            "dialogue": [
                _turn("REQUEST:GET", {"type": "sofa", "customerReview": "good"}, [], []),
                _turn("ASK:GET", {"availableSizes": ["XL", "S", "L"]}, ["brand", "availableSizes"], [3, 7]),
            ],
        },
    ]
)
"""tests/fixtures/simmc/target.txt as the dials JSON."""


def test_the_dials_json_as_gold_scores_as_its_target_lines(tmp_path, capsys):
    dials = tmp_path / "devtest.json"
    dials.write_text(json.dumps(FIXTURE_DIALS))
    assert detect(dials.read_bytes()) == "simmc"
    assert as_report(_simmc_json([str(FIXTURES / "pred.txt"), "--gold", str(dials)], capsys)) == FIXTURE_MEASURED
    by_lines = score(read(FIXTURES / "pred.txt", gold=FIXTURES / "target.txt")).scores
    by_json = score(read(FIXTURES / "pred.txt", gold=dials)).scores
    figures = [
        {key: value for key, value in scores.as_dict().items() if key != "signature"} for scores in (by_json, by_lines)
    ]
    assert figures[0] == figures[1]
    assert "dialogues:by-context" in by_lines.signature and "dialogues:by-context" not in by_json.signature


def test_scored_in_two_processes_as_in_one(capsys):
    args = [str(FIXTURES / "pred.txt"), "--gold", str(FIXTURES / "target.txt")]
    assert _simmc_json([*args, "--jobs", "2"], capsys) == _simmc_json(args, capsys)


def test_predictions_of_another_length_are_one_line(tmp_path, capsys):
    (tmp_path / "pred.txt").write_text((FIXTURES / "pred.txt").read_text() + ANCHOR + "\n")
    assert main(["score", str(tmp_path / "pred.txt"), "--gold", str(FIXTURES / "target.txt")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "6 predicted instances but 5 gold instances" in captured.err and "pred.txt" in captured.err


def test_a_target_line_without_a_belief_state_is_one_line_naming_it(tmp_path, capsys):
    lines = (FIXTURES / "target.txt").read_text().splitlines()
    lines[3] = lines[3].replace(" <EOB>", "")
    (tmp_path / "target.txt").write_text("\n".join(lines) + "\n")
    assert main(["score", str(FIXTURES / "pred.txt"), "--gold", str(tmp_path / "target.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "target.txt, line 4" in err and "belief state" in err


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"objects": ["12"]}, "transcript_annotated.act_attributes.objects"),
        ({"request_slots": "brand"}, "transcript_annotated.act_attributes.request_slots"),
        ({"slot_values": ["type"]}, "transcript_annotated.act_attributes.slot_values"),
    ],
)
def test_a_bad_dials_turn_is_one_line_naming_it(change, field, tmp_path, capsys):
    dials = json.loads(json.dumps(FIXTURE_DIALS))
    dials["dialogue_data"][1]["dialogue"][1]["transcript_annotated"]["act_attributes"].update(change)
    (tmp_path / "devtest.json").write_text(json.dumps(dials))
    assert main(["score", str(FIXTURES / "pred.txt"), "--gold", str(tmp_path / "devtest.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "devtest.json" in err and 'dialogue "12"' in err and field in err


TEAM10 = "Bhathiya-hw/simmc2/model/task2_baseline/gat_coref/results/simmc2_dials_dstc10_devtest_predicted"
TARGET = "rungjoo/simmc2.0/evaluation/model/mm_dst/gpt2_dst/data/simmc2_dials_dstc10_devtest_target.txt"
needs_snapshot = pytest.mark.skipif(
    not (SNAPSHOT / "KAIST-AILab").is_dir(),
    reason="needs DST_METRICS_SIMMC: a folder of owner/repo copies (KAIST-AILab/DSTC10-SIMMC, Bhathiya-hw/simmc2, "
    "rungjoo/simmc2.0) holding the files these tests name",
)


@needs_snapshot
def test_team_4s_devtest_predictions_score_as_the_official_script(capsys):
    team = SNAPSHOT / "KAIST-AILab" / "DSTC10-SIMMC"
    pred = team / "devtest_results" / "dstc10-simmc-devtest-pred-subtask-3.txt"
    target = team / "data_object_special" / "simmc2_dials_dstc10_devtest_target.txt"
    found = _simmc_json([str(pred), "--gold", str(target)], capsys)
    assert as_report(found) == TEAM4_MEASURED
    assert found["turns"] == 8609


@needs_snapshot
@pytest.mark.parametrize("run", ["", "_baseline_v2", "_baseline_k1only"])
def test_team_10s_devtest_predictions_score_their_published_reports(run, capsys):
    """Team 10 (Heriot-Watt) published each run's report.json beside its predictions."""
    found = _simmc_json([str(SNAPSHOT / f"{TEAM10}{run}.txt"), "--gold", str(SNAPSHOT / TARGET)], capsys)
    published = json.loads((SNAPSHOT / f"{TEAM10}{run}_report.json").read_text())
    assert as_report(found) == {key: published[key] for key in as_report(found)}
