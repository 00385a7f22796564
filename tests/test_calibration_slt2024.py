"""The ``slt2024`` calibration profile (`dst_metrics.calibration.slt2024`): ECE with bin centres and
scikit-learn's AUROC, as github jennycs0830/Confidence_Score_DST ``evaluation_minicons.py`` computes
them, equal to its printed figures on three inputs; invariants; the command line.

The peer's figures were printed by its own functions (``get_match``, ``get_correct_incorrect``,
``plot_reliability``, ``plot_roc_curve`` exec'd unmodified from the repository at commit 65bae46, run
outside the project with numpy 2.4.6, scikit-learn 1.9.1, matplotlib 3.11.2) by a driver that turns
each input into their ``result`` / ``gold_state`` layout, one entry per (dialogue, domain) so their
first-gold-domain lookup reads the pair's own domain:
``python peer34c_driver.py gtpr examples/confidences.json`` and
``python peer34c_driver.py trade ../shared/reference/trade/MLCSG_all_prediction_TRADE.json SEED DIGITS MODE``.
The seeded confidences are drawn here exactly as that driver draws them (`_seeded_trade`).
"""

from __future__ import annotations

import io
import json
import random
from contextlib import redirect_stdout

import pytest

from dst_metrics import Corpus, read
from dst_metrics.calibration.slt2024 import (
    linspace_edges,
    pair_decisions,
    reliability_table,
    slt2024_auroc,
    slt2024_calibration,
    slt2024_ece,
)
from dst_metrics.cli import main
from dst_metrics.numpy_sums import numpy_sum

from .conftest import REFERENCE, REPO, requires_shared

TRADE = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"

# (seed, digits, mode) -> (pairs, right, their "ECE: ...", their "AUC: ...") as the driver printed them;
# three are read here (10 s each), all five through the same functions in test_seeded_decisions_equal_the_peer
PEER_TRADE = {
    (34, 2, "uniform"): (37077, 34019, 0.42393353233946907, 0.4973354202805646),
    (2024, 0, "uniform"): (37077, 34019, 0.4220473608975914, 0.49527382949215987),
    (7, 1, "uniform"): (37077, 34019, 0.41527514430490703, 0.49466172300782707),
    (34, 2, "informative"): (37077, 34019, 0.29611208943856265, 0.8321982996806059),
    (35, 0, "informative"): (37077, 34019, 0.3040227094964532, 0.8348942789655247),
}
# python peer34c_driver.py gtpr examples/confidences.json -> pairs: 10 right: 8, ECE, AUC
PEER_EXAMPLE = (10, 8, 0.18000000000000005, 0.625)


def _seeded_trade(seed: int, digits: int, mode: str) -> dict:
    """The TRADE file with a confidence on every predicted triple (sorted dialogues, turns, triples;
    one draw each): ``random()``, or for ``informative`` right triples from [0.3, 1) and wrong ones
    from [0, 0.7); rounded to `digits` when nonzero. Layout of examples/confidences.json."""
    data = json.loads(TRADE.read_text())
    rng = random.Random(seed)
    out: dict = {}
    for dialogue in sorted(data):
        for turn_id in sorted(data[dialogue], key=int):
            turn = data[dialogue][turn_id]
            gold: dict = {}
            for triple in turn["turn_belief"]:
                domain, slot, value = triple.split("-", 2)
                gold.setdefault(domain, {})[slot] = value
            pred: dict = {}
            for triple in sorted(turn["pred_bs_ptr"]):
                if mode == "informative":
                    right = triple in turn["turn_belief"]
                    confidence = rng.uniform(0.3, 1.0) if right else rng.uniform(0.0, 0.7)
                else:
                    confidence = rng.random()
                if digits:
                    confidence = round(confidence, digits)
                domain, slot, value = triple.split("-", 2)
                pred.setdefault(domain, {})[slot] = {"value": value, "confidence": confidence}
            out.setdefault(dialogue, {})[turn_id] = {"gt": gold, "pr": pred}
    return out


@requires_shared
@pytest.mark.parametrize("key", [(34, 2, "uniform"), (34, 2, "informative"), (35, 0, "informative")])
def test_seeded_trade_equals_the_peer(key: tuple, tmp_path) -> None:
    path = tmp_path / "seeded.json"
    path.write_text(json.dumps(_seeded_trade(*key)))
    found = slt2024_calibration(read(path))
    assert (found["pairs"], found["right"], found["pair_ece"], found["pair_auroc"]) == PEER_TRADE[key]


@requires_shared
def test_seeded_decisions_equal_the_peer() -> None:
    """The five seeded inputs' decisions taken straight from the generated layout (no reader)."""
    for key, expected in PEER_TRADE.items():
        correct, confidence = [], []
        for turns in _seeded_trade(*key).values():
            for turn in turns.values():
                for domain, slots in turn["pr"].items():
                    for slot, scored in slots.items():
                        correct.append(turn["gt"].get(domain, {}).get(slot) == scored["value"])
                        confidence.append(scored["confidence"])
        found = (len(correct), sum(correct), slt2024_ece(correct, confidence), slt2024_auroc(correct, confidence))
        assert found == expected, key


def test_example_equals_the_peer() -> None:
    found = slt2024_calibration(read(REPO / "examples" / "confidences.json"))
    assert (found["pairs"], found["right"], found["pair_ece"], found["pair_auroc"]) == PEER_EXAMPLE


def test_example_by_hand() -> None:
    """The 10 pairs of examples/confidences.json (2 wrong: stars 5 at 0.6, pricerange cheap at 0.7).
    Edges k * 0.1 (0.6000000000000001, 0.7000000000000001 for k = 6, 7). numpy.histogram's
    [low, high) counts: 0.4 in bin 4; 0.5, 0.55, 0.6 in bin 5; 0.7 in 6; 0.8, 0.85 in 8; the rest in 9.
    Accuracies over (low, high]: bin 4 holds 0.5 (right): 1; bin 5 0.55 and 0.6: 0.5; bin 6 0.7: 0;
    bin 8 0.85: 1; bin 9: 1. ECE = 0.1 * 0.55 + 0.3 * 0.05 + 0.1 * 0.65 + 0.2 * 0.15 + 0.3 * 0.05 = 0.18.
    AUROC: 5 right scores above both wrong ones, 3 (0.4, 0.5, 0.55) below: 10 / 16 = 0.625."""
    correct, confidence = pair_decisions(read(REPO / "examples" / "confidences.json"))
    assert sorted(zip(confidence, correct)) == [
        (0.4, True), (0.5, True), (0.55, True), (0.6, False), (0.7, False),
        (0.8, True), (0.85, True), (0.92, True), (0.95, True), (0.97, True),
    ]  # fmt: skip
    assert [count for _, count, _ in reliability_table(correct, confidence)] == [0, 0, 0, 0, 1, 3, 1, 0, 2, 3]
    assert [accuracy for _, _, accuracy in reliability_table(correct, confidence)][3:] == [1, 1, 0.5, 0, 1, 1, 1]
    assert slt2024_ece(correct, confidence) == pytest.approx(0.18, abs=1e-15)
    assert slt2024_auroc(correct, confidence) == 0.625


def test_perfectly_calibrated_bins_give_zero() -> None:
    """Each bin's accuracy equals its centre: bin i (centre (2i + 1) / 20) holds 20 decisions at the
    centre, 2i + 1 of them right."""
    correct: list[bool] = []
    confidence: list[float] = []
    for i in range(10):
        centre = (linspace_edges(10)[i] + linspace_edges(10)[i + 1]) / 2
        correct += [True] * (2 * i + 1) + [False] * (20 - 2 * i - 1)
        confidence += [centre] * 20
    assert slt2024_ece(correct, confidence) == pytest.approx(0.0, abs=1e-15)


def test_auroc_of_a_perfect_ranking_is_one_and_reversed_zero() -> None:
    confidence = [0.1, 0.2, 0.35, 0.6, 0.9]
    assert slt2024_auroc([False, False, True, True, True], confidence) == 1.0
    assert slt2024_auroc([True, True, False, False, False], confidence) == 0.0
    assert slt2024_auroc([True, True], [0.2, 0.9]) is None  # one class: theirs is nan


def test_ece_uses_the_centre_not_the_mean_confidence() -> None:
    """Four right decisions at 0.91: ours (mean confidence) is 0.09; theirs |1 - 0.95| = 0.05."""
    from dst_metrics.calibration.metrics import expected_calibration_error

    assert expected_calibration_error([True] * 4, [0.91] * 4) == pytest.approx(0.09)
    assert slt2024_ece([True] * 4, [0.91] * 4) == pytest.approx(0.05)


def test_numpy_sum_is_pairwise() -> None:
    """numpy adds 8 partial sums: 1e16 + 1 + 1 + ... differs from left-to-right addition."""
    values = [1e16] + [1.0] * 15
    assert sum(values) == 1e16  # each 1 is lost left to right
    assert numpy_sum(values) == 1e16 + 14  # lanes 1..7 gather 2 each before meeting 1e16 (ulp 2)
    assert numpy_sum([0.1] * 7) == sum([0.1] * 7)


def test_no_pairs() -> None:
    corpus = Corpus.from_dialogues([[{"hotel": {"area": "north"}}]], [[{"hotel": {"area": "north"}}]])
    found = slt2024_calibration(corpus)
    assert (found["pairs"], found["pair_ece"], found["pair_auroc"]) == (0, None, None)


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue()


def test_command_line_json() -> None:
    status, out = _cli("calibration", str(REPO / "examples" / "confidences.json"), "--compat", "slt2024", "--json")
    found = json.loads(out)
    assert status == 0
    assert (found["pairs"], found["right"], found["pair_ece"], found["pair_auroc"]) == PEER_EXAMPLE
    assert found["compat"] == "slt2024" and found["signature"].endswith("|calibration|compat:slt2024|bins:10")


def test_registry_figures_equal_the_profile_and_the_peer() -> None:
    """``slt2024_ece`` / ``slt2024_auroc`` of the calibration registry (`figures.calibration`) are the
    profile's ``pair_ece`` / ``pair_auroc`` (the peer's printed figures), in 10 bins whatever --bins is."""
    from dst_metrics.calibration.metrics import calibration
    from dst_metrics.figures.calibration import CALIBRATION_FIGURES

    path = str(REPO / "examples" / "confidences.json")
    _, out = _cli("calibration", path, "--compat", "slt2024", "--json")
    profile = json.loads(out)
    registry = calibration(read(path)).figures
    assert (registry["slt2024_ece"], registry["slt2024_auroc"]) == (profile["pair_ece"], profile["pair_auroc"])
    assert (registry["slt2024_ece"], registry["slt2024_auroc"]) == PEER_EXAMPLE[2:]
    figure = {entry.key: entry for entry in CALIBRATION_FIGURES}.__getitem__
    assert figure("slt2024_ece").label == "ECE (SLT 2024)" and not figure("slt2024_ece").higher_is_better
    assert figure("slt2024_auroc").label == "AUROC (SLT 2024)" and figure("slt2024_auroc").higher_is_better
    for bins in ("10", "5"):
        status, out = _cli("calibration", path, "--json", "--bins", bins)
        found = json.loads(out)
        assert status == 0 and (found["slt2024_ece"], found["slt2024_auroc"]) == PEER_EXAMPLE[2:]
        assert found["signature"].endswith(f"|calibration|bins:{bins}|slt2024|bins:10")
    status, out = _cli("calibration", path)
    assert status == 0 and "ECE (SLT 2024) 0.1800, AUROC (SLT 2024) 62.50" in out


def test_registry_figures_without_confidences_are_undefined() -> None:
    from dst_metrics.calibration.metrics import calibration

    corpus = Corpus.from_dialogues([[{"hotel": {"area": "north"}}]], [[{"hotel": {"area": "north"}}]])
    found = calibration(corpus).figures
    assert (found["slt2024_ece"], found["slt2024_auroc"]) == (None, None)


def test_command_line_table_and_by_slot_refused(capsys) -> None:
    status, out = _cli("calibration", str(REPO / "examples" / "confidences.json"), "--compat", "slt2024")
    assert status == 0 and "pairs 10 (right 8), ECE 0.1800, AUROC 62.50" in out
    assert main(["calibration", str(REPO / "examples" / "confidences.json"), "--compat", "slt2024", "--by-slot"]) == 2
    assert "--by-slot" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Their results CSV (dst_metrics.readers.slt2024)

CSV_HEADER = (
    '"id","gt_domain","turn_state","total_state","pair_verbalized","slot_confidence","value_confidence",'
    '"pair_confidence","pair_minicons"'
)


def _row(row_id: str, domain: str, total: dict, pairs: dict) -> str:
    cells = [row_id, domain, "{}", json.dumps(total), "{}", "{}", "{}", json.dumps(pairs), "{}"]
    return ",".join('"' + cell.replace('"', '""') + '"' for cell in cells)


def _results_csv(tmp_path, rows: list[str]):
    path = tmp_path / "results.csv"
    path.write_text("\n".join([CSV_HEADER, *rows]) + "\n")
    return path


def _gold(tmp_path, turns: dict) -> object:
    """A reference-layout file whose gold side is `turns` ({dialogue: [state, ...]})."""
    layout = {d: {str(i): {"gt": state, "pr": {}} for i, state in enumerate(states)} for d, states in turns.items()}
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(layout))
    return path


def test_results_csv_is_read_with_its_pairs(tmp_path) -> None:
    """Turn 1 predicts train departure norwich (0.9, right) and destination ely (0.3, wrong); turn 2
    adds day monday (0.8, right) and keeps the others as plain values (no decisions)."""
    rows = [
        _row("mul0484-1", "train", {"train": {"departure": "norwich", "destination": "ely"}},
             {"departure_norwich": 0.9, "destination_ely": 0.3}),
        _row("mul0484-2", "train", {"train": {"departure": "norwich", "destination": "ely", "day": "monday"}},
             {"day_monday": 0.8}),
    ]  # fmt: skip
    gold = _gold(
        tmp_path,
        {"MUL0484.json": [
            {"train": {"departure": "norwich", "destination": "cambridge"}},
            {"train": {"departure": "norwich", "destination": "cambridge", "day": "monday"}},
        ]},
    )  # fmt: skip
    corpus = read(_results_csv(tmp_path, rows), gold=gold)
    correct, confidence = pair_decisions(corpus)
    assert sorted(zip(confidence, correct)) == [(0.3, False), (0.8, True), (0.9, True)]
    assert corpus.dialogues[0].pred[1]["train-destination"] == "ely"  # the plain state: total_state
    assert slt2024_auroc(correct, confidence) == 1.0


def test_results_csv_errors_name_line_and_field(tmp_path) -> None:
    from dst_metrics import InputError

    bad_key = _row("mul0484-1", "train", {}, {"departure": 0.9})
    with pytest.raises(InputError, match=r"line 2.*pair_confidence\.departure|pair_confidence\.departure.*line 2"):
        read(_results_csv(tmp_path, [bad_key]), gold=_gold(tmp_path, {"mul0484": [{}]}))
    bad_id = _row("mul0484", "train", {}, {})
    with pytest.raises(InputError, match="<dialogue>-<turn"):
        read(_results_csv(tmp_path, [bad_id]), gold=_gold(tmp_path, {"mul0484": [{}]}))
    gap = [_row("mul0484-1", "train", {}, {}), _row("mul0484-3", "train", {}, {})]
    with pytest.raises(InputError, match="without a gap"):
        read(_results_csv(tmp_path, gap), gold=_gold(tmp_path, {"mul0484": [{}, {}]}))


def test_results_csv_is_detected_and_scored_from_the_command_line(tmp_path) -> None:
    """tests/fixtures/slt2024/results.csv (written from tests/fixtures/trade_mwzeval/reference.json: each
    turn's new predicted values, confidences 0.5 to 0.75) against that file's gold side: 15 pairs, wrong
    ones at 0.5, 0.6, 0.6, 0.65, 0.7. Weights: [0.5, 0.6) 9 pairs, [0.6, 0.7) 5, [0.7, 0.8) 1; judged:
    (0.5, 0.6] 5 of 7 right, (0.6, 0.7] 3 of 5, (0.7, 0.8] 1 of 1 (the two at 0.5 judged in an empty-
    weight bin). ECE = 9/15 * |5/7 - 0.55| + 5/15 * |0.6 - 0.65| + 1/15 * |1 - 0.75| = 0.1319047...;
    AUROC: right above wrong, ties half: (9.5 + 2 * 4.5 + 3 + 1.5) / 50 = 0.46."""
    gold = REPO / "tests" / "fixtures" / "trade_mwzeval" / "reference.json"
    results = REPO / "tests" / "fixtures" / "slt2024" / "results.csv"
    status, out = _cli("calibration", str(results), "--gold", str(gold), "--compat", "slt2024", "--json")
    found = json.loads(out)
    assert status == 0 and found["format"].startswith("slt2024")
    parts = found["signature"].split("|")
    assert "pred:slt2024-pair_confidence" in parts and parts[-3:] == ["calibration", "compat:slt2024", "bins:10"]
    corpus = read(results, gold=gold)
    correct, confidence = pair_decisions(corpus)
    assert (found["pairs"], found["right"]) == (len(correct), sum(correct)) == (15, 10)
    assert found["pair_ece"] == pytest.approx(9 / 15 * (5 / 7 - 0.55) + 5 / 15 * 0.05 + 1 / 15 * 0.25, abs=1e-12)
    assert found["pair_auroc"] == pytest.approx(0.46, abs=1e-12)
