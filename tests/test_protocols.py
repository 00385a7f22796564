"""The protocols of `dst_metrics.protocols`: SGD-X schema sensitivity and CheckDST's pairs, equal to their
authors' code on seeded inputs (`tests/protocol_inputs.py`), and their invariants.

The PEER_* values are what the authors' code printed, run outside the project on the same inputs:

- SGD-X: alexcoca/robust-dst-v2 (commit b9b53f3), its SGD evaluator copy (``robust_dst.evaluation.get_metrics``,
  fuzzywuzzy with python-Levenshtein) writing each file's per-frame metrics, then
  ``scripts/compute_sgd_x_metrics.py``'s ``main`` (``original=False``; variant services renamed ``<service><i>``
  as SGD-X names them) for ``joint_goal_accuracy`` and ``average_goal_accuracy`` (frames without an AGA
  left out of the files, as the evaluator leaves them out). Inputs: ``python tests/protocol_inputs.py sgdx
  ../shared/data/sgd OUT SEED``. The original schema's seen/unseen figures are the evaluator's
  ``#SEEN_SERVICES`` / ``#UNSEEN_SERVICES`` (the script puts every original frame in unseen: docs/compat.md).
- CheckDST: wise-east/CheckDST ``ParlAI/models/add_jga_new_conditional.py`` (commit 5d87545),
  ``get_jga_values`` on ParlAI world-log lines (original, then perturbed, states written
  ``domain slot value, …``). Inputs: ``python tests/protocol_inputs.py checkdst FILE OUT SEED``.
"""

from __future__ import annotations

import json
import re

import pytest

from dst_metrics import InputError, read, score
from dst_metrics.cli import main
from dst_metrics.numpy_sums import numpy_sum
from dst_metrics.protocols import checkdst, sgdx
from tests.conftest import REFERENCE, REPO, SGD, requires_shared
from tests.protocol_inputs import checkdst_perturbed, comparable, sgd_predictions, write_sgdx

# python tests/protocol_inputs.py sgdx ../shared/data/sgd OUT SEED; the driver's printed lines
# ("Average JGA for schema variants ['v1', …] on all services …", "Schema sensitivity …", evaluator aggregates)
PEER_SGDX = {
    1: {
        "sgdx.all.jga_original": 0.7404718210290827,
        "sgdx.seen.jga_original": 0.8033333333333332,
        "sgdx.unseen.jga_original": 0.7346649657869012,
        "sgdx.all.aga_original": 0.9084803880416026,
        "sgdx.seen.aga_original": 0.9189880952380951,
        "sgdx.unseen.aga_original": 0.9075383950805509,
        "sgdx.all.jga_variants": 0.7345202881431768,
        "sgdx.seen.jga_variants": 0.7565291005291005,
        "sgdx.unseen.jga_variants": 0.7324872160312805,
        "sgdx.all.ss_jga": 0.5891727037271721,
        "sgdx.seen.ss_jga": 0.5813401103551573,
        "sgdx.unseen.ss_jga": 0.5898980149213469,
        "sgdx.all.aga_variants": 0.9061917424560422,
        "sgdx.seen.aga_variants": 0.8943650793650794,
        "sgdx.unseen.aga_variants": 0.9072519769273772,
        "sgdx.all.ss_aga": 0.15202600580174208,
        "sgdx.seen.ss_aga": 0.17222229442085019,
        "sgdx.unseen.ss_aga": 0.1502154527131561,
    },
    2: {
        "sgdx.all.aga_original": 0.910800160906674,
        "sgdx.all.aga_variants": 0.9080632246630288,
        "sgdx.all.jga_original": 0.7445371266219238,
        "sgdx.all.jga_variants": 0.7387097046979866,
        "sgdx.all.ss_aga": 0.15095111060095243,
        "sgdx.all.ss_jga": 0.5824089434203783,
        "sgdx.seen.aga_original": 0.9037103174603174,
        "sgdx.seen.aga_variants": 0.8881329365079365,
        "sgdx.seen.jga_original": 0.7774603174603174,
        "sgdx.seen.jga_variants": 0.7508783068783068,
        "sgdx.seen.ss_aga": 0.1903012975129272,
        "sgdx.seen.ss_jga": 0.5916145906232346,
        "sgdx.unseen.aga_original": 0.9114357498602429,
        "sgdx.unseen.aga_variants": 0.9098499313919804,
        "sgdx.unseen.jga_original": 0.741495834799609,
        "sgdx.unseen.jga_variants": 0.7375856256109482,
        "sgdx.unseen.ss_aga": 0.1474234524359515,
        "sgdx.unseen.ss_jga": 0.5815577363160046,
    },
    3: {
        "sgdx.all.aga_original": 0.9085176181148267,
        "sgdx.all.aga_variants": 0.9076206730096544,
        "sgdx.all.jga_original": 0.7435388348993288,
        "sgdx.all.jga_variants": 0.7372858058165549,
        "sgdx.all.ss_aga": 0.15020924715014367,
        "sgdx.all.ss_jga": 0.5820413529116879,
        "sgdx.seen.aga_original": 0.8968551587301589,
        "sgdx.seen.aga_variants": 0.9025912698412699,
        "sgdx.seen.jga_original": 0.7703703703703704,
        "sgdx.seen.jga_variants": 0.7755873015873015,
        "sgdx.seen.ss_aga": 0.16922027970896378,
        "sgdx.seen.ss_jga": 0.5258738910134069,
        "sgdx.unseen.aga_original": 0.9095631320831428,
        "sgdx.unseen.aga_variants": 0.9080715480002033,
        "sgdx.unseen.jga_original": 0.7410602619745845,
        "sgdx.unseen.jga_variants": 0.7337476911045944,
        "sgdx.unseen.ss_aga": 0.14850494967421954,
        "sgdx.unseen.ss_jga": 0.5872074404052675,
    },
}

# python tests/protocol_inputs.py checkdst ../shared/reference/FILE OUT SEED; get_jga_values printed
# (jga_original, jga_perturbed, jga_conditional, jga_new_conditional) and the number of pairs
PEER_CHECKDST = {
    ("trade/MLCSG_all_prediction_TRADE.json", 1): (
        0.5379697791553661,
        0.5244091437427354,
        0.7583723442563918,
        0.4079814025571484,
        5162,
    ),
    ("trade/MLCSG_all_prediction_TRADE.json", 2): (
        0.5318271119842829,
        0.5163064833005894,
        0.7414111562615442,
        0.3943025540275049,
        5090,
    ),
    ("t5_zeroshot/predictions/T5_result_zeroshot_attraction.json", 1): (
        0.3301572177227251,
        0.42067651262505956,
        0.772005772005772,
        0.25488327775131014,
        2099,
    ),
    ("t5_zeroshot/predictions/T5_result_zeroshot_attraction.json", 2): (
        0.3624830086089715,
        0.42274580879021295,
        0.75625,
        0.27412777526053467,
        2207,
    ),
    ("t5_zeroshot/predictions/T5_result_zeroshot_rest.json", 1): (
        0.2559038213825676,
        0.38385573207385143,
        0.7315436241610739,
        0.18720480893087163,
        2329,
    ),
    ("t5_zeroshot/predictions/T5_result_zeroshot_rest.json", 2): (
        0.2676659528907923,
        0.3854389721627409,
        0.744,
        0.19914346895074947,
        2335,
    ),
}


def _run_json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------------------------
# CheckDST


def _checkdst_files(tmp_path, name: str, seed: int) -> tuple[str, str]:
    data = comparable(json.loads((REFERENCE / name).read_text(encoding="utf-8")))
    original, perturbed = tmp_path / "orig.json", tmp_path / "perturbed.json"
    original.write_text(json.dumps(data), encoding="utf-8")
    perturbed.write_text(json.dumps(checkdst_perturbed(data, seed)), encoding="utf-8")
    return str(original), str(perturbed)


@requires_shared
@pytest.mark.parametrize(("name", "seed"), list(PEER_CHECKDST))
def test_checkdst_equals_the_authors_code(tmp_path, capsys, name, seed):
    found = _run_json(capsys, ["checkdst", *_checkdst_files(tmp_path, name, seed), "--json"])
    jga_original, jga_perturbed, jga_conditional, jga_new_conditional, pairs = PEER_CHECKDST[name, seed]
    assert found["checkdst.pairs"] == pairs
    assert found["checkdst.jga_original"] == jga_original
    assert found["checkdst.jga_perturbed"] == jga_perturbed
    assert found["checkdst.jga_conditional"] == jga_conditional
    assert found["checkdst.cjga"] == jga_new_conditional
    # the flip rates follow from the four: P(o≠p) = P(o) + P(p) - 2 P(o∧p); right→wrong = 1 - P(p|o)
    assert found["checkdst.flip_rate"] == pytest.approx(jga_original + jga_perturbed - 2 * jga_new_conditional)
    assert found["checkdst.flip_to_wrong"] == pytest.approx(1 - jga_conditional)
    flip_to_right = (jga_perturbed - jga_new_conditional) / (1 - jga_original)
    assert found["checkdst.flip_to_right"] == pytest.approx(flip_to_right)
    assert found["signature"].endswith("|checkdst|pairs:turn")


@requires_shared
def test_checkdst_of_unchanged_predictions_is_their_jga_with_no_flips():
    corpus = read(str(REFERENCE / "t5_zeroshot/predictions/T5_result_zeroshot_rest.json"))
    found = checkdst.checkdst_figures(corpus, corpus)
    jga = score(corpus).scores.jga
    assert found["checkdst.pairs"] == corpus.num_turns
    assert found["checkdst.jga_original"] == found["checkdst.jga_perturbed"] == found["checkdst.cjga"] == jga
    assert found["checkdst.jga_conditional"] == 1.0
    assert found["checkdst.flip_rate"] == found["checkdst.flip_to_wrong"] == found["checkdst.flip_to_right"] == 0.0


def test_checkdst_figures_of_hand_counted_pairs():
    # o, p per pair: (1,1) (1,0) (0,1) (0,0) (1,1): N 5, Σo 3, Σp 3, both 2, flips 2
    pairs = [(True, True), (True, False), (False, True), (False, False), (True, True)]
    values = {entry.key: entry.compute(pairs) for entry in checkdst.FIGURES}
    assert values == {
        "checkdst.jga_original": 3 / 5,
        "checkdst.jga_perturbed": 3 / 5,
        "checkdst.cjga": 2 / 5,
        "checkdst.jga_conditional": 2 / 3,
        "checkdst.flip_rate": 2 / 5,
        "checkdst.flip_to_wrong": 1 / 3,
        "checkdst.flip_to_right": 1 / 2,
    }
    nothing_right = {entry.key: entry.compute([(False, False)]) for entry in checkdst.FIGURES}
    assert nothing_right["checkdst.jga_conditional"] is None and nothing_right["checkdst.flip_to_right"] == 0.0


def test_checkdst_names_a_perturbed_turn_the_original_lacks():
    from dst_metrics import Corpus

    original = Corpus.from_dialogues(predictions=[[{"hotel": {"area": "north"}}]], references=[[{}]])
    perturbed = Corpus.from_dialogues(predictions=[[{}], [{}]], references=[[{}], [{}]])
    with pytest.raises(InputError, match="not in the original"):
        checkdst.checkdst_figures(original, perturbed)


# --------------------------------------------------------------------------------------------
# SGD-X


@requires_shared
@pytest.mark.parametrize("seed", list(PEER_SGDX))
def test_sgdx_equals_the_authors_code(tmp_path, capsys, seed):
    folders = [str(folder) for folder in write_sgdx(SGD, tmp_path, seed)]
    schemas = ["--schema", str(SGD / "schema.json"), "--train-schema", str(SGD / "train_schema.json")]
    found = _run_json(capsys, ["sgdx", *folders, "--gold", str(SGD), *schemas, "--json"])
    assert {key: found[key] for key in PEER_SGDX[seed]} == PEER_SGDX[seed]  # to the last bit
    assert found["sgdx.all.frames"] == found["sgdx.seen.frames"] + found["sgdx.unseen.frames"] == 2235
    assert found["signature"].endswith("|sgdx|variants:5|sgd-match:fuzzy")


@requires_shared
def test_sgdx_of_identical_variants_has_no_sensitivity(tmp_path):
    gold = SGD / "dialogues_001.json"
    predictions = tmp_path / "dialogues_001.json"
    predictions.write_text(json.dumps(sgd_predictions(json.loads(gold.read_text(encoding="utf-8")), 7)))
    found = sgdx.sgdx_figures(predictions, [predictions] * 3, gold, SGD / "schema.json", SGD / "train_schema.json")
    assert found["sgdx.all.frames"] == found["sgdx.seen.frames"] + found["sgdx.unseen.frames"] > 0
    for split in sgdx.SPLITS:
        for measure in sgdx.MEASURES:
            if found[f"sgdx.{split}.{measure}_original"] is None:  # a split without the measure: none at all
                assert found[f"sgdx.{split}.ss_{measure}"] is None
                continue
            # the mean of three equal values need not be that value to the last bit, hence a std of ~1e-17
            assert found[f"sgdx.{split}.ss_{measure}"] == pytest.approx(0.0, abs=1e-12)
            assert found[f"sgdx.{split}.{measure}_variants"] == pytest.approx(found[f"sgdx.{split}.{measure}_original"])
    no_train = sgdx.sgdx_figures(predictions, [gold, predictions], gold, SGD / "schema.json")
    assert no_train["sgdx.seen.ss_jga"] is None and no_train["sgdx.all.ss_jga"] > 0
    assert no_train["sgdx.all.jga_variants"] == pytest.approx((1 + found["sgdx.all.jga_original"]) / 2)


def test_schema_sensitivity_of_hand_computed_frames():
    # frame 1: 1, 0.5 → mean 0.75, std √0.125; frame 2: 0, 0 → nan, left out; frame 3: 1, 1 → 0
    variants = [[1.0, 0.0, 1.0], [0.5, 0.0, 1.0]]
    assert sgdx.schema_sensitivity([], variants) == pytest.approx((0.125**0.5 / 0.75 + 0.0) / 2)
    assert sgdx.variants_mean([], variants) == pytest.approx(3.5 / 6)
    assert sgdx.schema_sensitivity([], [[0.0], [0.0]]) is None


def test_sums_are_numpys_pairwise_sums():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(3)
    for n in (1, 7, 8, 9, 127, 128, 129, 1000, 4099):
        values = (rng.random(n) * rng.choice([1e-3, 1.0, 1e5], n)).tolist()
        assert numpy_sum(values) == float(np.sum(np.asarray(values)))


def test_sgdx_needs_two_variants():
    with pytest.raises(InputError, match="at least 2"):
        sgdx.sgdx_figures("a", ["b"], "gold", "schema")


def test_the_protocol_registries_list_every_figure_once():
    sgdx_keys = [entry.key for entry in sgdx.FIGURES]
    assert len(set(sgdx_keys)) == len(sgdx_keys) == 18 and "sgdx.unseen.ss_aga" in sgdx_keys
    keys = [entry.key for entry in checkdst.FIGURES]
    assert keys[2] == "checkdst.cjga" and len(set(keys)) == len(keys)


SGD_FIXTURE = REPO / "tests" / "fixtures" / "sgd" / "sgd_gold"


def _columns(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


@pytest.mark.parametrize("count", [3, 5, 6])
def test_sgdx_tables_name_the_variants_by_their_count(tmp_path, capsys, count):
    original, *variants = map(str, write_sgdx(SGD_FIXTURE, tmp_path, 4, variants=count))
    sgd = ["--gold", str(SGD_FIXTURE), "--train-schema", str(SGD_FIXTURE / "train_schema.json")]
    found = _run_json(capsys, ["sgdx", original, *variants, *sgd, "--json"])
    assert main(["sgdx", original, *variants, *sgd]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(f"and {count} schema variants: SGD-X")
    names = ["JGA orig", f"JGA v1-{count}", "SS JGA", "AGA orig", f"AGA v1-{count}", "SS AGA"]
    assert _columns(lines[1]) == ["split", "frames", *names]
    for line, split in zip(lines[2:5], ("all", "seen", "unseen")):
        keys = [
            f"sgdx.{split}.{name}" for m in ("jga", "aga") for name in (f"{m}_original", f"{m}_variants", f"ss_{m}")
        ]
        cells = [f"{found[key]:.4f}" if ".ss_" in key else f"{100 * found[key]:.2f}" for key in keys]
        assert _columns(line) == [split, str(found[f"sgdx.{split}.frames"]), *cells]
    assert found["sgdx.all.frames"] > 0 and found["sgdx.all.ss_jga"] > 0  # the variants differ
    pytest.importorskip("numpy", reason="needs numpy (pip install -e '.[report]')")
    assert main(["report", original, *sgd, "--schema-variants", *variants, "--markdown", "--bootstrap", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(index for index, line in enumerate(lines) if f"| JGA v1-{count} |" in line)
    row = dict(zip(lines[header].strip("| ").split(" | "), lines[header + 2].strip("| ").split(" | ")))
    assert row[f"JGA v1-{count}"] == f"{100 * found['sgdx.all.jga_variants']:.2f}"
    assert row[f"AGA v1-{count} (unseen)"] == f"{100 * found['sgdx.unseen.aga_variants']:.2f}"
    assert sum(f" v1-{count}" in name for name in row) == sum(" v1-" in name for name in row) == 6
