"""The Space's robustness section in a real browser (tests/space_browser.py: `python app.py` on a free port of
127.0.0.1, headless Debian Chromium through Playwright, nothing from the network): what CheckDST and
SGD-X draw after each interaction (choose sets, upload sets, upload SGD files, change the value matching,
download) equals `dst-metrics checkdst` / `dst-metrics sgdx` on the same files, at 1400 and 390 px (one page,
resized after each interaction), with no sideways scrolling of the page; the `/checkdst` and `/sgdx` endpoints
answer a `gradio_client` with the commands' JSON. Screenshots go to test-artifacts/space/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dst_metrics.space.protocols_section import ROLES

from .conftest import REFERENCE, SGD, requires_shared
from .protocol_inputs import checkdst_perturbed, comparable, sgd_predictions
from .space_browser import SIZES, WORDS_BROKEN_JS, at_sizes, choose, low_contrast, shot
from .test_app_table_browser import example_files
from .test_space_protocols import TRADE_NAME, assert_same_figures

pytestmark = pytest.mark.slow
FIRST = "?example=first_example"
CHECKDST_NAMES = ("original", "perturbed")
SGDX_NAMES = ("original", "variants")
TRADE_DIALOGUES = 300
"""The first 300 dialogues of the TRADE file (quick to upload and score twice)."""

CELLS_JS = """(table) => {
  const element = document.querySelector(table);
  if (!element) return null;
  return Object.fromEntries([...element.querySelectorAll('td[data-key]')].map(td =>
    [td.dataset.key, {value: JSON.parse(td.dataset.value), text: td.textContent.trim()}]));
}"""


def cli_json(capsys, argv: list[str]) -> dict:
    from dst_metrics.cli import main

    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def wait_for_cell(page, table: str, key: str, value: object) -> None:
    """Until the table drawn shows `value` (unrounded) for `key`."""
    page.wait_for_function(
        '([t, k, v]) => { const td = document.querySelector(`${t} td[data-key="${k}"]`);'
        " return td && td.dataset.value === v; }",
        arg=[table, key, json.dumps(value)],
    )


def assert_drawn_checkdst(page, cli: dict) -> None:
    """Every CheckDST figure drawn: the command's value, shown in percent (— where undefined), and the pairs."""
    cells = page.evaluate(CELLS_JS, "#checkdst-table")
    assert list(cells) == [key for key in cli if key.startswith("checkdst.") and key != "checkdst.pairs"]
    for key, cell in cells.items():
        assert cell["value"] == cli[key], key
        assert cell["text"] == ("—" if cli[key] is None else f"{100 * cli[key]:.2f}"), key
    assert page.locator("#checkdst-pairs").inner_text() == str(cli["checkdst.pairs"])
    assert page.locator("#checkdst-signature").inner_text() == cli["signature"]


def assert_drawn_sgdx(page, cli: dict) -> None:
    """Every SGD-X cell drawn: the command's value, as `dst-metrics sgdx` prints it."""
    cells = page.evaluate(CELLS_JS, "#sgdx-table")
    assert set(cells) == {key for key in cli if key.startswith("sgdx.")}
    for key, cell in cells.items():
        value = cli[key]
        shown = (
            str(value) if key.endswith(".frames") else "-" if value is None
            else f"{value:.4f}" if ".ss_" in key else f"{100 * value:.2f}"
        )  # fmt: skip
        assert cell["value"] == value and cell["text"] == shown, key
    assert page.locator("#sgdx-signature").inner_text() == cli["signature"]


def assert_fits(page, width: int) -> None:
    """No sideways scrolling of the page, no word broken mid-word, every text at least 4.5:1."""
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert page.evaluate(WORDS_BROKEN_JS) == []
    assert low_contrast(page) == []


def wait_for_chips(page, names: list[str]) -> None:
    """Until the SGD-X files listed are `names` (role by role, as the section lists them)."""
    page.wait_for_function(
        "(n) => JSON.stringify([...document.querySelectorAll('#sgdx-files-note .file-chip')]"
        ".map(c => c.textContent)) === JSON.stringify(n)",
        arg=names,
    )


def upload(page, button: str, paths: list[Path]) -> None:
    """Upload `paths` with the button of id `button` (a set's, or an SGD-X role's: upload-sgdx-<role>)."""
    locator = page.locator(f"#{button}")
    locator.scroll_into_view_if_needed()
    if button.startswith("upload-sgdx-"):  # five buttons in one row: their inputs are told by their words
        words = ROLES[button.removeprefix("upload-sgdx-").replace("-", "_")]
        field = page.get_by_test_id(f"{words}-upload-button")
    else:
        field = locator.locator("xpath=..").locator("input[type=file]")
    field.set_input_files([str(path) for path in paths])


def test_checkdst_of_the_example_sets_then_swapped_then_an_empty_set(visit, tmp_path, capsys):
    files = list(example_files(tmp_path, "first_example").values())  # P1, P2
    page = visit(FIRST)
    page.locator("#run-checkdst").scroll_into_view_if_needed()
    page.locator("#run-checkdst").click()
    page.wait_for_selector("#checkdst-table")
    cli = cli_json(capsys, ["checkdst", *map(str, files), "--json"])

    def computed(width: int) -> None:
        assert_drawn_checkdst(page, cli)
        assert "dst-metrics checkdst set_a.json set_b.json" in page.locator("#checkdst-command").inner_text()
        shot(page, f"issue34-checkdst-example-{width}", "#protocols-col")
        assert_fits(page, width)

    at_sizes(page, SIZES, computed)
    choose(page, "checkdst-original", "B: P2")
    choose(page, "checkdst-perturbed", "A: P1")
    swapped = cli_json(capsys, ["checkdst", *map(str, files[::-1]), "--json"])
    wait_for_cell(page, "#checkdst-table", "checkdst.jga_original", swapped["checkdst.jga_original"])
    at_sizes(page, SIZES, lambda width: assert_drawn_checkdst(page, swapped))
    choose(page, "checkdst-perturbed", "C")
    page.wait_for_selector("#checkdst-error")

    def empty(width: int) -> None:
        assert "set C is empty" in page.locator("#checkdst-error").inner_text()
        assert page.locator("#checkdst-table").count() == 0  # never a stale table
        shot(page, f"issue34-checkdst-error-{width}", "#protocols-col")
        assert_fits(page, width)

    at_sizes(page, SIZES, empty)


@requires_shared
def test_checkdst_of_uploaded_sets_and_its_download(visit, tmp_path, capsys):
    data = comparable(json.loads((REFERENCE / TRADE_NAME).read_text(encoding="utf-8")))
    data = {key: data[key] for key in sorted(data)[:TRADE_DIALOGUES]}
    original, perturbed = tmp_path / "trade.json", tmp_path / "trade_perturbed.json"
    original.write_text(json.dumps(data))
    perturbed.write_text(json.dumps(checkdst_perturbed(data, 1)))
    page = visit(FIRST)
    for label, path in (("a", original), ("b", perturbed)):  # B covers fewer dialogues: left out of the scores
        upload(page, f"upload-{label}", [path])
        page.wait_for_function(
            "(l) => /read and scored|left out/.test(document.querySelector(`#note-${l}`)?.textContent || '')", arg=label
        )
    page.locator("#run-checkdst").scroll_into_view_if_needed()
    page.locator("#run-checkdst").click()
    cli = cli_json(capsys, ["checkdst", str(original), str(perturbed), "--json"])
    wait_for_cell(page, "#checkdst-table", "checkdst.cjga", cli["checkdst.cjga"])
    assert cli["checkdst.pairs"] > 1000
    link = page.locator('#protocols-downloads a[download="checkdst.json"]')
    link.wait_for()
    with page.expect_download() as caught:
        link.click()
    saved = json.loads(Path(caught.value.path()).read_text(encoding="utf-8"))
    assert list(saved) == [key for key in cli if key not in ("schema", "inputs")]  # less the header (json_output)
    assert_same_figures(saved, cli, CHECKDST_NAMES)

    def computed(width: int) -> None:
        assert_drawn_checkdst(page, cli)
        command = page.locator("#checkdst-command").inner_text()
        assert "dst-metrics checkdst trade.json trade_perturbed.json" in command
        shot(page, f"issue34-checkdst-uploaded-{width}", "#protocols-col")
        assert_fits(page, width)

    at_sizes(page, SIZES, computed)


def sgd_files(folder: Path, variants: int = 5) -> dict:
    """SGD-X inputs on the third SGD test file (the one with seen services): the original schema's predictions
    and `variants` seeded variants (as tests/protocol_inputs.py makes them), one file each."""
    folder.mkdir(parents=True, exist_ok=True)
    gold = json.loads((SGD / "dialogues_003.json").read_text(encoding="utf-8"))
    files = {}
    for index, name in enumerate(["orig", *(f"v{number}" for number in range(1, variants + 1))]):
        files[name] = folder / f"{name}.json"
        files[name].write_text(json.dumps(sgd_predictions(gold, 1000 + 10 * index)), encoding="utf-8")
    return files


@requires_shared
def test_sgdx_of_uploaded_files_then_exact_matching_then_too_few_variants(visit, tmp_path, capsys):
    files = sgd_files(tmp_path)
    variants = [files[f"v{number}"] for number in range(1, 6)]
    gold, schema, train = SGD / "dialogues_003.json", SGD / "schema.json", SGD / "train_schema.json"
    page = visit(FIRST)
    upload(page, "upload-sgdx-original", [files["orig"]])
    upload(page, "upload-sgdx-variants", variants)
    wait_for_chips(page, ["orig.json", *(path.name for path in variants)])
    upload(page, "upload-sgdx-gold", [gold])
    upload(page, "upload-sgdx-train-schema", [train])
    upload(page, "upload-sgdx-schema", [schema])  # the last file it needs: SGD-X is computed
    argv = ["sgdx", str(files["orig"]), *map(str, variants), "--gold", str(gold), "--schema", str(schema)]
    cli = cli_json(capsys, [*argv, "--train-schema", str(train), "--json"])
    wait_for_cell(page, "#sgdx-table", "sgdx.seen.frames", cli["sgdx.seen.frames"])
    chips = [path.name for path in files.values()] + ["dialogues_003.json", "schema.json", "train_schema.json"]
    assert cli["sgdx.seen.frames"] > 0 and cli["sgdx.unseen.frames"] > 0

    def computed(width: int) -> None:
        assert page.locator("#sgdx-files-note .file-chip").all_inner_texts() == chips  # every upload kept
        assert_drawn_sgdx(page, cli)
        assert "dst-metrics sgdx orig.json v1.json" in page.locator("#sgdx-command").inner_text()
        shot(page, f"issue34-sgdx-uploaded-{width}", "#protocols-col")
        assert_fits(page, width)

    at_sizes(page, SIZES, computed)
    page.locator("#sgdx-matching label", has_text="exact").first.click()
    exact = cli_json(capsys, [*argv, "--train-schema", str(train), "--value-matching", "exact", "--json"])
    wait_for_cell(page, "#sgdx-table", "sgdx.all.jga_original", exact["sgdx.all.jga_original"])
    assert exact["sgdx.all.jga_original"] < cli["sgdx.all.jga_original"]  # misspelt values no longer match
    at_sizes(page, SIZES, lambda width: assert_drawn_sgdx(page, exact))
    link = page.locator('#protocols-downloads a[download="sgdx.json"]')
    link.wait_for()
    with page.expect_download() as caught:
        link.click()
    saved = json.loads(Path(caught.value.path()).read_text(encoding="utf-8"))
    assert list(saved) == [key for key in exact if key not in ("schema", "inputs")]
    assert_same_figures(saved, exact, SGDX_NAMES)
    page.locator("#empty-sgdx").click()
    page.wait_for_function("() => !document.querySelector('#sgdx-table')")
    # the same files chosen again after the removal (a file input holding them would fire no change)
    for button, paths in (("original", [files["orig"]]), ("variants", variants[:1]), ("gold", [gold]),
                          ("schema", [schema])):  # fmt: skip
        upload(page, f"upload-sgdx-{button}", paths)
    wait_for_chips(page, ["orig.json", "v1.json", "dialogues_003.json", "schema.json"])
    page.locator("#run-sgdx").click()
    page.wait_for_selector("#sgdx-error")

    def too_few(width: int) -> None:
        assert "at least 2 schema variants" in page.locator("#sgdx-error").inner_text()
        shot(page, f"issue34-sgdx-error-{width}", "#protocols-col")
        assert_fits(page, width)

    at_sizes(page, SIZES, too_few)


@requires_shared
def test_the_checkdst_and_sgdx_endpoints_answer_a_client(server_url, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    client_module = pytest.importorskip("gradio_client")
    client = client_module.Client(server_url, verbose=False)
    files = list(example_files(tmp_path, "first_example").values())
    answer = client.predict(files[0].read_text(), files[1].read_text(), api_name="/checkdst")
    assert_same_figures(answer, cli_json(capsys, ["checkdst", *map(str, files), "--json"]), CHECKDST_NAMES)
    sgd = sgd_files(tmp_path / "sgd", 3)
    gold, schema = SGD / "dialogues_003.json", SGD / "schema.json"
    texts = [path.read_text() for path in sgd.values()]
    answer = client.predict(texts[0], texts[1:], gold.read_text(), schema.read_text(), api_name="/sgdx")
    cli = cli_json(capsys, ["sgdx", *map(str, sgd.values()), "--gold", str(gold), "--schema", str(schema), "--json"])
    assert_same_figures(answer, cli, SGDX_NAMES)
    with pytest.raises(Exception, match="at least 2 schema variants"):
        client.predict(texts[0], texts[1:2], gold.read_text(), schema.read_text(), api_name="/sgdx")
