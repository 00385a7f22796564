"""The Space's robustness protocols (`dst_metrics.space.protocols`): CheckDST of two of the page's sets and SGD-X
of uploaded SGD files give `dst-metrics checkdst --json` / `dst-metrics sgdx --json` key by key (and so the
reference code's figures, tests/test_protocols.py's PEER_*), the tables draw those values, the commands shown
print them again, the downloads hold the command's JSON, and bad input is said in words, not a traceback."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from dst_metrics.cli import main
from dst_metrics.protocols import checkdst, sgdx
from dst_metrics.space.inputs import SetInput, example_input
from dst_metrics.space.protocols import (
    SgdxFiles,
    api_checkdst,
    api_sgdx,
    checkdst_view,
    sgdx_view,
    write_export,
)
from tests.conftest import REFERENCE, REPO, SGD, requires_shared
from tests.protocol_inputs import checkdst_perturbed, comparable, write_sgdx
from tests.test_protocols import PEER_CHECKDST, PEER_SGDX

TRADE_NAME = "trade/MLCSG_all_prediction_TRADE.json"
CELL = re.compile(r'data-key="([^"]+)" data-value="([^"]*)">([^<]*)<')


def cli_json(capsys, argv: list[str]) -> dict:
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def drawn_cells(html: str) -> dict[str, tuple[object, str]]:
    """{key: (the cell's unrounded value, its text)} of a protocol table's HTML."""
    return {key: (json.loads(value.replace("&quot;", '"')), text) for key, value, text in CELL.findall(html)}


def assert_same_figures(page: dict, cli: dict, names: tuple[str, ...]) -> None:
    """Every key of the command's JSON, equal to the last bit, but the files' names (the page names sets) and the
    header every command's JSON starts with (its schema and its input files' digests: `cli.json_output`)."""
    cli = {key: value for key, value in cli.items() if key not in ("schema", "inputs")}
    assert set(page) == set(cli)
    assert {key: page[key] for key in cli if key not in names} == {key: cli[key] for key in cli if key not in names}


# --------------------------------------------------------------------------------------------
# CheckDST


def checkdst_files(folder, seed: int) -> tuple:
    """TRADE's predictions (CheckDST-comparable) and a seeded perturbed copy, as tests/test_protocols.py writes them."""
    data = comparable(json.loads((REFERENCE / TRADE_NAME).read_text(encoding="utf-8")))
    original, perturbed = folder / "orig.json", folder / "perturbed.json"
    original.write_text(json.dumps(data), encoding="utf-8")
    perturbed.write_text(json.dumps(checkdst_perturbed(data, seed)), encoding="utf-8")
    return original, perturbed


def uploaded(path) -> SetInput:
    return SetInput("", "", str(path), path.name)


@requires_shared
@pytest.mark.parametrize("seed", [1, 2])
def test_checkdst_of_two_sets_is_the_command_line_s_and_the_authors(tmp_path, capsys, seed):
    original, perturbed = checkdst_files(tmp_path, seed)
    entries = [SetInput(), uploaded(original), SetInput(), uploaded(perturbed)]  # sets B and D
    view = checkdst_view(entries, "B", "D")
    assert view.ok, view.status
    cli = cli_json(capsys, ["checkdst", str(original), str(perturbed), "--json"])
    assert_same_figures(view.figures, cli, ("original", "perturbed"))
    assert (view.figures["original"], view.figures["perturbed"]) == ("orig", "perturbed")
    jga_original, jga_perturbed, jga_conditional, cjga, pairs = PEER_CHECKDST[TRADE_NAME, seed]
    assert view.figures["checkdst.cjga"] == cjga and view.figures["checkdst.pairs"] == pairs
    assert view.figures["checkdst.jga_conditional"] == jga_conditional
    assert view.figures["signature"].endswith("|checkdst|pairs:turn")
    # the table draws every figure: the unrounded value in data-value, the percent as the command prints it
    cells = drawn_cells(view.html)
    assert list(cells) == [entry.key for entry in checkdst.FIGURES]
    for key, (value, text) in cells.items():
        assert value == cli[key] and text == (f"{100 * cli[key]:.2f}" if cli[key] is not None else "—")
    assert f'data-value="{pairs}">{pairs}</span> pairs' in view.html
    assert cli["signature"].replace("|", "|<wbr>") in view.html
    # the command shown prints the same figures from the files
    words = shlex.split(view.command)
    assert words[:4] == ["dst-metrics", "checkdst", "orig.json", "perturbed.json"]
    argv = [str(tmp_path / word) if word.endswith(".json") else word for word in words[1:]]
    assert cli_json(capsys, argv) == cli


@requires_shared
def test_checkdst_follows_the_page_s_mode_and_value_matching(tmp_path, capsys):
    original, perturbed = checkdst_files(tmp_path, 2)
    entries = [uploaded(perturbed), SetInput(), uploaded(original), SetInput()]
    view = checkdst_view(entries, "C", "A", settings=("corrected", "normalized"))
    assert view.ok, view.status
    flags = ["--mode", "corrected", "--value-matching", "normalized", "--json"]
    cli = cli_json(capsys, ["checkdst", str(original), str(perturbed), *flags])
    assert_same_figures(view.figures, cli, ("original", "perturbed"))
    assert "mode:corrected" in cli["signature"] and "match:normalized" in cli["signature"]
    assert "--mode corrected --value-matching normalized" in view.command


def test_checkdst_of_the_paper_s_example_counts_its_three_turns(capsys, tmp_path):
    # Figure 1 of the GCA paper: P1 is wrong on every turn, P2 right on turn 3 only (JGA 0 and 1/3)
    sets = example_input("first_example").sets
    view = checkdst_view([SetInput(name, text) for name, text in sets], "A", "B")
    assert view.ok, view.status
    found = view.figures
    assert found["checkdst.pairs"] == 3
    assert (found["checkdst.jga_original"], found["checkdst.jga_perturbed"]) == (0.0, 1 / 3)
    assert found["checkdst.jga_conditional"] is None and found["checkdst.flip_to_wrong"] is None  # none right in P1
    assert found["checkdst.flip_to_right"] == found["checkdst.flip_rate"] == 1 / 3
    paths = []
    for name, text in sets:
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(text)
    assert_same_figures(found, cli_json(capsys, ["checkdst", *map(str, paths), "--json"]), ("original", "perturbed"))
    assert drawn_cells(view.html)["checkdst.jga_conditional"] == (None, "—")


@requires_shared
def test_checkdst_says_why_two_sets_do_not_pair(tmp_path):
    original, perturbed = checkdst_files(tmp_path, 1)
    entries = [uploaded(original), uploaded(perturbed), SetInput(), SetInput()]
    reversed_view = checkdst_view(entries, "B", "A")  # the original lacks dialogues the 'perturbed' one holds
    assert not reversed_view.ok and reversed_view.html == ""
    assert "perturbed set A 'orig' against original set B 'perturbed'" in reversed_view.status
    assert "the perturbed dialogue is not in the original predictions" in reversed_view.status
    same = checkdst_view(entries, "A", "A")
    assert not same.ok and "the original and the perturbed predictions are the same set (A)" in same.status
    empty = checkdst_view(entries, "A", "C")
    assert not empty.ok and "set C is empty" in empty.status


@requires_shared
def test_the_checkdst_endpoint_and_download_are_the_command_line_s(tmp_path, capsys):
    original, perturbed = checkdst_files(tmp_path, 1)
    cli = cli_json(capsys, ["checkdst", str(original), str(perturbed), "--json"])
    answer = api_checkdst(original.read_text(), perturbed.read_text())
    assert_same_figures(answer, cli, ("original", "perturbed"))
    view = checkdst_view([uploaded(original), uploaded(perturbed)], "A", "B")
    saved = json.loads(open(write_export(view.figures, "checkdst", tmp_path / "out")).read())
    assert list(saved) == [key for key in cli if key not in ("schema", "inputs")]  # the command's keys, in its order
    assert_same_figures(saved, cli, ("original", "perturbed"))
    with pytest.raises(ValueError, match="the perturbed dialogue is not in the original predictions"):
        api_checkdst(perturbed.read_text(), original.read_text())


# --------------------------------------------------------------------------------------------
# SGD-X


def named(path) -> tuple[str, str]:
    return str(path), path.name


def one_file_per_variant(folders: list, target) -> list:
    """Each variant's dialogues_*.json joined into one file (a variant is one upload of the page)."""
    files = []
    for folder in folders:
        dialogues = [d for path in sorted(folder.glob("dialogues_*.json")) for d in json.loads(path.read_text())]
        files.append(target / f"{folder.name}.json")
        files[-1].write_text(json.dumps(dialogues), encoding="utf-8")
    return files


@pytest.fixture(scope="module")
def sgdx_inputs(tmp_path_factory) -> dict:
    if not (SGD / "schema.json").is_file():
        pytest.skip(f"needs {SGD}")
    folder = tmp_path_factory.mktemp("sgdx")
    folders = write_sgdx(SGD, folder, 1)
    return {"folders": folders, "variants": one_file_per_variant(folders[1:], folder)}


@requires_shared
def test_sgdx_of_uploaded_files_is_the_command_line_s_and_the_authors(sgdx_inputs, capsys, tmp_path):
    folders, variants = sgdx_inputs["folders"], sgdx_inputs["variants"]
    files = SgdxFiles(
        [named(path) for path in sorted(folders[0].glob("dialogues_*.json"))],  # three files: one folder
        [named(path) for path in variants],
        [named(path) for path in sorted(SGD.glob("dialogues_*.json"))],
        [named(SGD / "schema.json")],
        [named(SGD / "train_schema.json")],
    )
    view = sgdx_view(files, scratch=tmp_path)
    assert view.ok, view.status
    schemas = ["--schema", str(SGD / "schema.json"), "--train-schema", str(SGD / "train_schema.json")]
    cli = cli_json(capsys, ["sgdx", *map(str, folders), "--gold", str(SGD), *schemas, "--json"])
    assert_same_figures(view.figures, cli, ("original", "variants"))
    assert {key: view.figures[key] for key in PEER_SGDX[1]} == PEER_SGDX[1]  # the reference code's, to the bit
    assert view.figures["variants"] == ["v1.json", "v2.json", "v3.json", "v4.json", "v5.json"]
    assert view.figures["signature"] == cli["signature"] and cli["signature"].endswith(
        "|sgdx|variants:5|sgd-match:fuzzy"
    )
    cells = drawn_cells(view.html)
    assert set(cells) == {key for key in cli if key.startswith("sgdx.")}
    for key, (value, text) in cells.items():
        shown = str(value) if key.endswith(".frames") else f"{value:.4f}" if ".ss_" in key else f"{100 * value:.2f}"
        assert value == cli[key] and text == shown, key
    header = re.findall(r"<th>([^<]+)</th>", view.html.split("<tbody>")[0])
    assert header == ["split", "frames", "JGA orig", "JGA v1-5", "SS JGA", "AGA orig", "AGA v1-5", "SS AGA"]
    assert list(re.findall(r'data-split="(\w+)"', view.html)) == ["all", "seen", "unseen"]
    assert "need the train schema" not in view.html
    assert not any(tmp_path.iterdir())  # the folder joining the original's files is gone


@requires_shared
def test_sgdx_with_two_variants_exact_matching_and_no_train_schema(sgdx_inputs, capsys, tmp_path):
    variants = sgdx_inputs["variants"][:2]
    original = sgdx_inputs["variants"][4]  # any SGD prediction file will do as the original
    gold = SGD / "dialogues_002.json"
    single = tmp_path / "dialogues_002.json"  # the dialogues of gold's file only
    ids = {d["dialogue_id"] for d in json.loads(gold.read_text())}
    for target, source in ((single, original), *((tmp_path / p.name, p) for p in variants)):
        target.write_text(json.dumps([d for d in json.loads(source.read_text()) if d["dialogue_id"] in ids]))
    files = SgdxFiles([named(single)], [named(tmp_path / p.name) for p in variants], [named(gold)],
                      [named(SGD / "schema.json")])  # fmt: skip
    view = sgdx_view(files, "exact")
    assert view.ok, view.status
    argv = ["sgdx", str(single), *(str(tmp_path / p.name) for p in variants), "--gold", str(gold)]
    cli = cli_json(capsys, [*argv, "--schema", str(SGD / "schema.json"), "--value-matching", "exact", "--json"])
    assert_same_figures(view.figures, cli, ("original", "variants"))
    assert cli["signature"].endswith("|sgdx|variants:2|sgd-match:exact") and cli["sgdx.seen.frames"] == 0
    assert drawn_cells(view.html)["sgdx.seen.ss_jga"] == (None, "-")
    assert re.findall(r"<th>(\w+ v1-\d)</th>", view.html) == ["JGA v1-2", "AGA v1-2"]
    assert "- no frame (seen / unseen services need the train schema)" in view.html
    assert view.command.endswith("--value-matching exact --json") and "--train-schema" not in view.command


@pytest.mark.parametrize("count", [3, 6])
def test_the_sgdx_table_names_the_variants_by_their_count(tmp_path, capsys, count):
    gold = REPO / "tests" / "fixtures" / "sgd" / "sgd_gold"
    original, *variants = write_sgdx(gold, tmp_path, 4, variants=count)
    sides = [[named(folder / "dialogues_001.json")] for folder in (original, *variants)]
    files = SgdxFiles(sides[0], [side[0] for side in sides[1:]], [named(gold / "dialogues_001.json")],
                      [named(gold / "schema.json")], [named(gold / "train_schema.json")])  # fmt: skip
    view = sgdx_view(files, scratch=tmp_path)
    assert view.ok, view.status
    argv = ["sgdx", str(original), *map(str, variants), "--gold", str(gold), "--json"]
    cli = cli_json(capsys, [*argv, "--train-schema", str(gold / "train_schema.json")])
    header = re.findall(r"<th>([^<]+)</th>", view.html.split("<tbody>")[0])
    names = ["JGA orig", f"JGA v1-{count}", "SS JGA", "AGA orig", f"AGA v1-{count}", "SS AGA"]
    assert header == ["split", "frames", *names]
    for split in ("all", "seen", "unseen"):
        row = view.html.split(f'<tr data-split="{split}">')[1].split("</tr>")[0]
        keys = [key for key, _, _ in CELL.findall(row)]
        assert keys == [f"sgdx.{split}.{name}" for name in ("frames", "jga_original", "jga_variants", "ss_jga",
                                                              "aga_original", "aga_variants", "ss_aga")]  # fmt: skip
    for key, (value, text) in drawn_cells(view.html).items():
        shown = str(value) if key.endswith(".frames") else f"{value:.4f}" if ".ss_" in key else f"{100 * value:.2f}"
        assert value == cli[key] and text == shown, key
    assert cli["sgdx.all.frames"] > 0 and view.figures["signature"] == cli["signature"]


@requires_shared
def test_sgdx_says_what_is_missing(sgdx_inputs, tmp_path):
    variants = [named(path) for path in sgdx_inputs["variants"]]
    gold, schema = [named(SGD / "dialogues_001.json")], [named(SGD / "schema.json")]
    full = SgdxFiles(variants[:1], variants[1:], gold, schema)
    cases = [
        (SgdxFiles(variants[:1], variants[1:2], gold, schema), "at least 2 schema variants (one prediction file"),
        (SgdxFiles(variants[:1], variants[1:], gold, []), "SGD-X needs the test schema (schema.json): upload it"),
        (SgdxFiles([], variants[1:], gold, schema), "SGD-X needs the original schema's predictions: upload it"),
        (SgdxFiles(variants[:1], variants[1:], [], schema), "SGD-X needs the gold dialogues: upload it"),
        (SgdxFiles(variants[:1], variants[1:], gold, schema, schema * 2), "the train schema is one file"),
        (full, "v1.json: dialogues with no partner in the gold"),  # a variant holds every test dialogue
    ]
    for files, message in cases:
        view = sgdx_view(files, scratch=tmp_path)
        assert not view.ok and view.html == "" and message in view.status, view.status
        assert str(sgdx_inputs["variants"][0].parent) not in view.status  # file names, not server paths


@requires_shared
def test_the_sgdx_endpoint_and_download_are_the_command_line_s(sgdx_inputs, capsys, tmp_path):
    variants = sgdx_inputs["variants"]
    gold = sgdx_inputs["folders"][0].parent / "gold.json"
    gold.write_text(json.dumps([d for p in sorted(SGD.glob("dialogues_*.json")) for d in json.loads(p.read_text())]))
    schemas = ["--schema", str(SGD / "schema.json"), "--train-schema", str(SGD / "train_schema.json")]
    cli = cli_json(capsys, ["sgdx", *map(str, variants), "--gold", str(gold), *schemas, "--json"])
    texts = [path.read_text() for path in variants]
    schema, train = (SGD / "schema.json").read_text(), (SGD / "train_schema.json").read_text()
    answer = api_sgdx(texts[0], texts[1:], gold.read_text(), schema, train)
    assert_same_figures(answer, cli, ("original", "variants"))
    assert answer["variants"] == ["v1.json", "v2.json", "v3.json", "v4.json"]
    saved = json.loads(open(write_export(answer, "sgdx", tmp_path)).read())
    assert list(saved) == [key for key in cli if key not in ("schema", "inputs")] and saved == answer
    with pytest.raises(ValueError, match="at least 2 schema variants"):
        api_sgdx(texts[0], texts[1:2], gold.read_text(), schema)
    keys = [entry.key for entry in sgdx.FIGURES]
    assert keys == [key for key in cli if key in keys]
