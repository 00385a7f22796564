"""The protocols beside ``dst-metrics score`` and ``dst-metrics report`` (`dst_metrics.protocols.extras`):
``--perturbed`` gives CheckDST's figures, ``--schema-variants`` SGD-X's, and predictions with confidences the
calibration block, each equal key by key to its own command (``checkdst``, ``sgdx``, ``calibration``), which
tests/test_protocols.py and tests/test_calibration_slt2024.py hold to the authors' code; here the same
authors' figures (their PEER_* values) are asserted once more through ``score``. The report draws the same
values; a combination that makes no sense is one line naming the flag.
"""

from __future__ import annotations

import json
import re

import pytest

from dst_metrics.cli import main
from dst_metrics.cli.score import check_sgd_input
from dst_metrics.options import OptionError
from tests.conftest import REPO, SGD, needs, requires_shared
from tests.protocol_inputs import sgd_predictions, write_sgdx
from tests.test_calibration_slt2024 import PEER_EXAMPLE
from tests.test_protocols import PEER_CHECKDST, PEER_SGDX, _checkdst_files

EXAMPLES = REPO / "examples"
P1, P2 = str(EXAMPLES / "first_example_p1.json"), str(EXAMPLES / "first_example_p2.json")
CONFIDENCES = str(EXAMPLES / "confidences.json")
SGD_FIXTURE = REPO / "tests" / "fixtures" / "sgd"
CALIBRATION_PART = "|calibration|bins:10|slt2024|bins:10"


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _json(capsys, argv: list[str]) -> dict:
    status, out, err = _run(capsys, argv)
    assert status == 0, err
    return json.loads(out)


def _family(found: dict, family: str) -> dict:
    return {key: value for key, value in found.items() if key.startswith(family + ".")}


# --------------------------------------------------------------------------------------------
# CheckDST


@requires_shared
@pytest.mark.parametrize(
    ("name", "seed"),
    [("trade/MLCSG_all_prediction_TRADE.json", 1), ("t5_zeroshot/predictions/T5_result_zeroshot_rest.json", 2)],
)
def test_score_perturbed_equals_the_checkdst_command_and_the_authors_code(tmp_path, capsys, name, seed):
    original, perturbed = _checkdst_files(tmp_path, name, seed)
    alone = _json(capsys, ["checkdst", original, perturbed, "--json"])
    plain = _json(capsys, ["score", original, "--json"])
    found = _json(capsys, ["score", original, "--perturbed", perturbed, "--json"])
    assert _family(found, "checkdst") == _family(alone, "checkdst") and len(_family(alone, "checkdst")) == 8
    jga_original, jga_perturbed, jga_conditional, cjga, pairs = PEER_CHECKDST[name, seed]
    assert (found["checkdst.jga_original"], found["checkdst.jga_perturbed"]) == (jga_original, jga_perturbed)
    assert (found["checkdst.jga_conditional"], found["checkdst.cjga"], found["checkdst.pairs"]) == (
        jga_conditional,
        cjga,
        pairs,
    )
    assert {key: found[key] for key in plain if key not in ("signature", "signatures")} == {
        key: value for key, value in plain.items() if key not in ("signature", "signatures")
    }  # the file's own figures do not change
    assert found["signature"] == plain["signature"] + "|checkdst|pairs:turn"
    assert found["signatures"]["checkdst.cjga"] == plain["signature"] + "|checkdst|pairs:turn"
    assert found["signatures"]["jga"] == plain["signatures"]["jga"]


def test_perturbed_once_per_file_pairs_each_file_with_its_own(capsys):
    found = [
        json.loads(line)
        for line in _run(capsys, ["score", P1, P2, "--perturbed", P2, "--perturbed", P1, "--json"])[1].splitlines()
    ]
    first = _json(capsys, ["checkdst", P1, P2, "--json"])
    second = _json(capsys, ["checkdst", P2, P1, "--json"])
    assert _family(found[0], "checkdst") == _family(first, "checkdst")
    assert _family(found[1], "checkdst") == _family(second, "checkdst")
    # P1 against P2 and back: the same pairs seen from the other side
    assert found[0]["checkdst.jga_original"] == found[1]["checkdst.jga_perturbed"] == found[0]["jga"]
    assert found[0]["checkdst.flip_rate"] == found[1]["checkdst.flip_rate"]


def test_intervals_do_not_reach_the_protocols_signatures(capsys):
    pytest.importorskip("numpy", reason=needs("stats", "numpy"))
    found = _json(capsys, ["score", P1, "--perturbed", P2, "--ci", "--bootstrap", "20", "--json"])
    plain = _json(capsys, ["score", P1, "--json"])
    assert found["signature"].endswith(",level:0.95|checkdst|pairs:turn")  # the CI part, then the protocol's
    assert found["signatures"]["checkdst.cjga"] == plain["signature"] + "|checkdst|pairs:turn"  # no interval
    assert "checkdst.cjga" not in found["ci"]


def test_score_table_shows_the_protocols_and_their_signature_part(capsys):
    status, out, _ = _run(capsys, ["score", P1, "--perturbed", P2])
    found = _json(capsys, ["checkdst", P1, P2, "--json"])
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("cJGA "))
    assert row.split()[1] == f"{100 * found['checkdst.cjga']:.2f}"
    assert f"checkdst.pairs {found['checkdst.pairs']}" in out
    assert out.rstrip().splitlines()[-1].endswith("|checkdst|pairs:turn")


# --------------------------------------------------------------------------------------------
# SGD-X


@requires_shared
def test_score_schema_variants_equals_the_sgdx_command_and_the_authors_code(tmp_path, capsys):
    folders = [str(folder) for folder in write_sgdx(SGD, tmp_path, 1)]
    schemas = ["--schema", str(SGD / "schema.json"), "--train-schema", str(SGD / "train_schema.json")]
    alone = _json(capsys, ["sgdx", *folders, "--gold", str(SGD), *schemas, "--json"])
    found = _json(
        capsys, ["score", folders[0], "--gold", str(SGD), *schemas, "--schema-variants", *folders[1:], "--json"]
    )
    assert _family(found, "sgdx") == _family(alone, "sgdx") and len(_family(alone, "sgdx")) == 21
    assert {key: found[key] for key in PEER_SGDX[1]} == PEER_SGDX[1]  # to the last bit
    assert found["signature"].endswith("|sgdx|variants:5|sgd-match:fuzzy")
    assert found["signatures"]["sgdx.all.ss_jga"] == found["signature"]


def _sgd_variants(tmp_path, seeds: range) -> list[str]:
    gold = json.loads((SGD_FIXTURE / "sgd_gold" / "dialogues_001.json").read_text(encoding="utf-8"))
    folders = []
    for seed in seeds:
        folder = tmp_path / f"v{seed}"
        folder.mkdir()
        (folder / "dialogues_001.json").write_text(json.dumps(sgd_predictions(gold, seed, rate=0.5)), encoding="utf-8")
        folders.append(str(folder))
    return folders


@pytest.mark.parametrize("matching", [[], ["--value-matching", "exact"]])
def test_schema_variants_find_the_schema_beside_gold_and_follow_the_value_matching(tmp_path, capsys, matching):
    variants = _sgd_variants(tmp_path, range(1, 4))
    original, gold = str(SGD_FIXTURE / "sgd_pred"), str(SGD_FIXTURE / "sgd_gold")
    alone = _json(capsys, ["sgdx", original, *variants, "--gold", gold, *matching, "--json"])
    found = _json(capsys, ["score", original, "--gold", gold, "--schema-variants", *variants, *matching, "--json"])
    assert _family(found, "sgdx") == _family(alone, "sgdx")
    assert found["sgdx.all.frames"] > 0 and found["sgdx.all.ss_jga"] > 0  # the variants differ
    assert found["sgdx.seen.ss_jga"] is None  # no GOLD/../train/schema.json: no seen/unseen split
    assert found["signature"].endswith(f"|sgdx|variants:3|sgd-match:{'exact' if matching else 'fuzzy'}")


# --------------------------------------------------------------------------------------------
# Calibration


def test_score_json_has_the_calibration_commands_figures(capsys):
    alone = _json(capsys, ["calibration", CONFIDENCES, "--json"])
    found = _json(capsys, ["score", CONFIDENCES, "--json"])
    assert found["calibration"] == {key: value for key, value in alone.items() if key not in ("file", "format")}
    assert (found["calibration"]["slt2024_ece"], found["calibration"]["slt2024_auroc"]) == PEER_EXAMPLE[2:]
    assert found["signature"].endswith(CALIBRATION_PART) and found["calibration"]["signature"].endswith(
        CALIBRATION_PART
    )
    in_processes = _json(capsys, ["score", CONFIDENCES, "--jobs", "2", "--json"])  # streamed, read again
    assert in_processes["calibration"] == found["calibration"]


def _as_records(layout: dict) -> str:
    """The reference layout as JSON Lines turn records (the other streamed format)."""
    lines = [
        {"dialogue_id": dialogue, "turn_id": int(turn), "gt": record["gt"], "pr": record["pr"]}
        for dialogue, turns in layout.items()
        for turn, record in turns.items()
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_streamed_inputs_say_whether_values_carried_confidences(capsys, tmp_path, jobs):
    # scored without holding the corpus (streamed, or in processes), an input's calibration block comes from
    # the dialogues and confidences its folds kept (`streaming.calibration_corpus`): no second read
    expected = _json(capsys, ["calibration", CONFIDENCES, "--json"])
    layout = json.loads((EXAMPLES / "confidences.json").read_text())
    records = tmp_path / "confidences.jsonl"
    records.write_text(_as_records(layout))
    for path in (CONFIDENCES, str(records)):
        found = _json(capsys, ["score", path, "--jobs", jobs, "--json"])["calibration"]
        assert {k: v for k, v in found.items() if k != "signature"} == {
            k: v for k, v in expected.items() if k not in ("file", "format", "signature")
        }
    # the words alone are not confidences: a slot named "score" and a value "confidence" give no calibration
    for turns in layout.values():
        for record in turns.values():
            for side in ("gt", "pr"):
                record[side] = {"match": {"score": "confidence"}}
    plain = tmp_path / "words.json"
    plain.write_text(json.dumps(layout))
    found = _json(capsys, ["score", str(plain), "--jobs", jobs, "--json"])
    assert "calibration" not in found and found["jga"] == 1.0


def test_slt2024_results_csv_scored_with_gold_has_the_profiles_figures(capsys):
    gold = str(REPO / "tests" / "fixtures" / "trade_mwzeval" / "reference.json")
    results = str(REPO / "tests" / "fixtures" / "slt2024" / "results.csv")
    profile = _json(capsys, ["calibration", results, "--gold", gold, "--compat", "slt2024", "--json"])
    found = _json(capsys, ["score", results, "--gold", gold, "--json"])["calibration"]
    assert (found["slt2024_ece"], found["slt2024_auroc"]) == (profile["pair_ece"], profile["pair_auroc"])
    # the hand count of tests/test_calibration_slt2024.py: 15 pairs, 10 right
    assert found["slt2024_ece"] == pytest.approx(9 / 15 * (5 / 7 - 0.55) + 5 / 15 * 0.05 + 1 / 15 * 0.25, abs=1e-12)
    assert found["slt2024_auroc"] == pytest.approx(0.46, abs=1e-12)


def test_predictions_without_confidences_get_no_calibration_key(capsys):
    found = _json(capsys, ["score", P1, "--json"])
    assert "calibration" not in found and "calibration" not in found["signature"]
    assert not any(key.startswith(("checkdst.", "sgdx.")) for key in found)


# --------------------------------------------------------------------------------------------
# The report


def _drawn(html: str, family: str) -> dict[tuple[str, str], tuple[str, str]]:
    """{(system, figure): (data-value, shown text)} of the protocol table of `family`."""
    section = html[html.index(f'id="protocol-{family}"') :]
    section = section[: section.index("</table>")]
    cells = re.findall(r'<td data-system="([^"]+)" data-figure="([^"]+)" data-value="([^"]+)">([^<]*)</td>', section)
    return {(system, key): (value, shown) for system, key, value, shown in cells}


def test_report_page_draws_the_protocols_values(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason=needs("report", "matplotlib"))
    page = tmp_path / "report.html"
    argv = ["report", P1, CONFIDENCES, "--perturbed", P2, "--perturbed", CONFIDENCES, "-o", str(page)]
    status, _, err = _run(capsys, [*argv, "--bootstrap", "0"])
    assert status == 0, err
    html = page.read_text(encoding="utf-8")
    checkdst, calibration = _drawn(html, "checkdst"), _drawn(html, "calibration")
    for name, path, perturbed in (("first_example_p1.json", P1, P2), ("confidences.json", CONFIDENCES, CONFIDENCES)):
        found = _json(capsys, ["score", path, "--perturbed", perturbed, "--json"])
        for key, value in _family(found, "checkdst").items():
            if key != "checkdst.pairs":
                assert checkdst[name, key] == (repr(value), "—" if value is None else f"{100 * value:.2f}")
    block = _json(capsys, ["score", CONFIDENCES, "--json"])["calibration"]
    assert calibration["confidences.json", "slt2024_ece"] == (repr(block["slt2024_ece"]), f"{block['slt2024_ece']:.4f}")
    assert calibration["confidences.json", "slot_acc"] == (repr(block["slot_acc"]), f"{100 * block['slot_acc']:.2f}")
    assert calibration["first_example_p1.json", "slot_acc"] == ("None", "—")  # no confidences: nothing to show
    assert "JGA|orig" in html and "share of pairs right on both the original and the perturbed" in html
    assert "|checkdst|pairs:turn</code>" in html and f"{CALIBRATION_PART}</code>" in html


@pytest.mark.parametrize("kind", ["--markdown", "--latex"])
def test_report_tables_have_a_row_per_system_for_each_protocol(tmp_path, capsys, kind):
    pytest.importorskip("numpy", reason=needs("report", "numpy"))
    variants = _sgd_variants(tmp_path, range(1, 3))
    original, gold = str(SGD_FIXTURE / "sgd_pred"), str(SGD_FIXTURE / "sgd_gold")
    status, out, err = _run(
        capsys, ["report", original, "--gold", gold, "--schema-variants", *variants, kind, "--bootstrap", "0"]
    )
    found = _json(capsys, ["score", original, "--gold", gold, "--schema-variants", *variants, "--json"])
    assert status == 0, err
    separator = " | " if kind == "--markdown" else " & "
    row = next(
        line
        for line in out[out.index("JGA v1-2") :].splitlines()
        if line.lstrip("| ").startswith("sgd" + ("\\_" if kind == "--latex" else "_") + "pred")
    )
    cells = [cell.strip(" |\\") for cell in row.split(separator)]
    assert cells[1] == f"{100 * found['sgdx.all.jga_original']:.2f}" and cells[3] == f"{found['sgdx.all.ss_jga']:.4f}"
    assert "|sgdx|variants:2|sgd-match:fuzzy" in out.replace("\\textbar{}", "|")


# --------------------------------------------------------------------------------------------
# Combinations that make no sense


BAD = [
    (["score", P1, P2, "--perturbed", P2], "--perturbed is given 1 times for 2 files; give it once per FILE"),
    (["report", P1, P2, "--markdown", "--schema-variants", P1, P2], "--schema-variants is given 1 times for 2 files"),
    (["score", P1, "--schema-variants", P1, P2], "--schema-variants scores SGD predictions against gold: give"),
    (["score", P1, "--perturbed", P2, "--domain", "hotel"], "--perturbed cannot be combined with --domain"),
    (
        ["score", P1, "--schema-variants", P1, P2, "--domain", "hotel"],
        "--schema-variants cannot be combined with --domain",
    ),
    (["score", P1, "--perturbed", CONFIDENCES], f'{CONFIDENCES}, dialogue "conf-1": the perturbed dialogue is not in'),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(argv[3:]) for argv, _ in BAD])
def test_a_combination_that_makes_no_sense_is_one_line_naming_the_flag(argv, message, capsys):
    status, out, err = _run(capsys, argv)
    assert (status, out) == (2, "")
    assert err.startswith(f"dst-metrics: error: {message}") and err.count("\n") == 1, err


def test_schema_variants_need_two_and_sgd_input(tmp_path, capsys):
    original, gold = str(SGD_FIXTURE / "sgd_pred"), str(SGD_FIXTURE / "sgd_gold")
    variant = _sgd_variants(tmp_path, range(1, 2))
    status, _, err = _run(capsys, ["score", original, "--gold", gold, "--schema-variants", *variant])
    assert status == 2 and "--schema-variants needs at least 2 schema variants, got 1" in err
    with pytest.raises(
        OptionError, match=r"--schema-variants: SGD-X scores SGD predictions, but p1.json was read as trade"
    ):
        check_sgd_input("p1.json", "trade", ("v1", "v2"))
    check_sgd_input("pred", "sgd, gold sgd", ("v1", "v2"))  # an SGD input passes


def test_perturbed_on_dask_is_refused_naming_the_flag(capsys):
    pytest.importorskip("distributed", reason=needs("distributed", "dask", "distributed"))
    status, _, err = _run(capsys, ["score", P1, "--perturbed", P2, "--engine", "dask"])
    assert status == 2 and "--perturbed needs the whole corpus in one process; it cannot run on --engine dask" in err
