"""The Space's table of N systems in a real browser (tests/space_browser.py: `python app.py` on a free port of
127.0.0.1, headless Debian Chromium through Playwright, nothing from the network): what the section
draws after each interaction (make the table, change the figures, change the baseline, upload systems,
download an export) equals `dst-metrics table` on the same files, at 1400 and 390 px (one page, resized after
each interaction); and the `/table`
endpoint answers a `gradio_client` with the command line's table. Screenshots go to test-artifacts/space/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dst_metrics.cli import main
from dst_metrics.space.inputs import ALL_EXAMPLES, example_input

from .conftest import requires_shared
from .space_browser import ALL, SIZES, WORDS_BROKEN_JS, at_sizes, choose, low_contrast, shot
from .test_space_table import TRADE, assert_same_table, cli_output, trade_files

pytestmark = pytest.mark.slow


TABLE_JS = """() => {
  const table = document.querySelector('#systems-table');
  if (!table) return null;
  const header = [...table.querySelectorAll('thead th')].map(th => th.textContent.trim());
  const rows = [...table.querySelectorAll('tbody tr')].map(tr => ({system: tr.dataset.system,
    cells: Object.fromEntries([...tr.querySelectorAll('td')].map(td => [td.dataset.key,
      {value: parseFloat(td.dataset.value), low: parseFloat(td.dataset.low), high: parseFloat(td.dataset.high),
       mark: td.dataset.mark}]))}));
  const notes = [...document.querySelectorAll('#systems-view p')].map(p => p.textContent);
  return {header, rows, family: parseInt(table.dataset.familySize), notes};
}"""


def drawn(page) -> dict:
    return page.evaluate(TABLE_JS)


def wait_for_header(page, header: list[str]) -> None:
    page.wait_for_function(
        "(h) => JSON.stringify([...document.querySelectorAll('#systems-table thead th')]"
        ".map(t => t.textContent.trim())) === JSON.stringify(h)",
        arg=header,
    )


def wait_for_note(page, text: str) -> None:
    page.wait_for_function("(t) => (document.querySelector('#systems-view')?.textContent || '').includes(t)", arg=text)


def assert_drawn_is(page, cli: dict) -> None:
    """The table drawn holds the command line's systems, figures, intervals, marks and family size."""
    shown = drawn(page)
    assert [row["system"] for row in shown["rows"]] == cli["names"]
    assert shown["family"] == cli["family_size"]
    for row in shown["rows"]:
        for key in cli["keys"]:
            cell = row["cells"][key]
            assert cell["value"] == cli["values"][row["system"]][key], (row["system"], key)
            assert [cell["low"], cell["high"]] == cli["intervals"][row["system"]][key], (row["system"], key)
            assert cell["mark"] == cli["marks"][row["system"]][key], (row["system"], key)
    assert any(f"family of m = {cli['family_size']} tests" in note for note in shown["notes"])


def assert_legible(page, width: int) -> None:
    """No word broken mid-word, every text at least 4.5:1, and at phone width a table wider than the
    page scrolls in its box, with the page's cue, never the page sideways."""
    assert page.evaluate(WORDS_BROKEN_JS) == []
    assert low_contrast(page) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    box = page.locator("#systems-view .table-wrap").first
    if page.evaluate("(w) => w.scrollWidth > w.clientWidth + 1", box.element_handle()):
        cue = page.evaluate("(w) => getComputedStyle(w, '::before').content", box.element_handle())
        assert "scroll the table sideways" in cue


def example_files(tmp_path: Path, key: str = ALL_EXAMPLES) -> dict:
    """{set name: file} of a preloaded example's sets, written under `tmp_path`."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, text in example_input(key).sets:
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(text)
    return files


def test_table_of_the_sets_then_other_figures_then_another_baseline(visit, tmp_path, capsys):
    files = example_files(tmp_path)
    page = visit(ALL)
    page.locator("#make-table").click()
    wait_for_header(page, ["System", "GCA", "JGA", "FGA", "SA", "Slot F1"])
    cli = json.loads(cli_output(capsys, files, "--json"))

    def made(width: int) -> None:
        assert_drawn_is(page, cli)
        notes = " ".join(drawn(page)["notes"])
        assert "only 3 dialogues (fewer than 20): the intervals and the tests are unreliable" in notes
        assert page.locator("#systems-view p.warning").first.is_visible()
        shot(page, f"issue36-table-sets-{width}", "#systems-col")
        assert_legible(page, width)

    at_sizes(page, SIZES, made)
    for label in ("SA", "Slot F1"):  # three figures: the family is 1 pair × 3
        page.locator("#systems-figures label", has_text=label).first.click()
    wait_for_header(page, ["System", "GCA", "JGA", "FGA"])
    cli = json.loads(cli_output(capsys, files, "--json", "--figures", "gca,jga,fga"))

    def three_figures(width: int) -> None:
        assert_drawn_is(page, cli)
        shot(page, f"issue36-table-figures-{width}", "#systems-col")

    at_sizes(page, SIZES, three_figures)
    choose(page, "systems-baseline", "P2")
    wait_for_note(page, "differs from P2")
    baseline = json.loads(cli_output(capsys, files, "--json", "--figures", "gca,jga,fga", "--baseline", "P2"))

    def another_baseline(width: int) -> None:
        assert_drawn_is(page, baseline)
        assert "--baseline P2" in page.locator("#systems-command").inner_text()
        shot(page, f"issue36-table-baseline-{width}", "#systems-col")
        assert_legible(page, width)

    at_sizes(page, SIZES, another_baseline)
    # other sets scored above: the table of the sets is made again, of them
    first = example_files(tmp_path / "first", "first_example")
    choose(page, "example", "Figure 1: the first example, P1 vs P2")
    wait_for_note(page, "only 1 dialogue (fewer than 20)")
    flags = ("--json", "--figures", "gca,jga,fga", "--baseline", "P2")
    assert_drawn_is(page, json.loads(cli_output(capsys, first, *flags)))


@requires_shared
def test_uploaded_systems_another_baseline_and_a_download(visit, tmp_path, capsys):
    if not TRADE.is_file():
        pytest.skip(f"needs {TRADE}")
    files = trade_files(tmp_path)
    page = visit(ALL)
    upload = page.locator("#upload-systems")
    upload.scroll_into_view_if_needed()
    upload.locator("xpath=..").locator("input[type=file]").set_input_files([str(p) for p in files.values()])
    page.wait_for_function(
        "() => [...document.querySelectorAll('#systems-table tbody tr')].map(r => r.dataset.system).join() "
        "=== 'trade,fix,drop'"
    )
    cli = json.loads(cli_output(capsys, files, "--json"))

    def uploaded(width: int) -> None:
        assert page.locator("#systems-source input[value=files]").is_checked()  # the uploaded files are the systems
        assert_drawn_is(page, cli)
        shot(page, f"issue36-table-uploaded-{width}", "#systems-col")

    at_sizes(page, SIZES, uploaded)
    choose(page, "systems-baseline", "fix")
    wait_for_note(page, "differs from fix")
    cli = json.loads(cli_output(capsys, files, "--json", "--baseline", "fix"))
    page.locator('#systems-downloads a[download="table.md"]').wait_for()
    with page.expect_download() as caught:
        page.locator('#systems-downloads a[download="table.md"]').click()
    downloaded = Path(caught.value.path()).read_text(encoding="utf-8")
    assert downloaded == cli_output(capsys, files, "--markdown", "--baseline", "fix")

    def another_baseline(width: int) -> None:
        assert_drawn_is(page, cli)
        signature = page.locator("#systems-signature").inner_text()  # the page carries its .md's line (issue 47)
        assert signature.startswith("dst-metrics") and f"Signature: `{signature}`" in downloaded
        shot(page, f"issue36-table-download-{width}", "#systems-col")
        assert_legible(page, width)

    at_sizes(page, SIZES, another_baseline)


@requires_shared
def test_uploaded_files_named_alike_are_runs_of_one_system(visit, tmp_path, capsys):
    if not TRADE.is_file():
        pytest.skip(f"needs {TRADE}")
    files = trade_files(tmp_path)  # trade, fix, drop: the first two typed as runs of "T"
    page = visit(ALL, width=1400)
    upload = page.locator("#upload-systems")
    upload.scroll_into_view_if_needed()
    upload.locator("xpath=..").locator("input[type=file]").set_input_files([str(p) for p in files.values()])
    wait_for_note(page, "family of m = 10 tests")
    names = page.locator("#systems-names textarea")
    names.fill("T\nT\nD")
    names.blur()
    page.wait_for_function(
        "() => [...document.querySelectorAll('#systems-table tbody tr')].map(r => r.dataset.system).join() === 'T,D'"
    )
    named = {f"{name}{index}": path for index, (name, path) in enumerate(zip("TTD", files.values()))}
    capsys.readouterr()
    argv = [*map(str, named.values()), *(w for name in "TTD" for w in ("--name", name)), "--json"]
    assert main(["table", *argv]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["names"] == ["T", "D"] and len(cli["runs"]["T"]) == 2
    assert_drawn_is(page, cli)
    assert page.locator('#systems-table tr[data-system="T"] td[data-runs="2"]').count() == len(cli["keys"])
    wait_for_note(page, "the mean over a system")
    shot(page, "issue46-table-runs-1400", "#systems-col")
    assert_legible(page, 1400)


@requires_shared
def test_the_table_endpoint_answers_a_client_with_the_command_line_s_table(server_url, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    client_module = pytest.importorskip("gradio_client")
    if not TRADE.is_file():
        pytest.skip(f"needs {TRADE}")
    files = trade_files(tmp_path)
    client = client_module.Client(server_url, verbose=False)
    texts = [path.read_text() for path in files.values()]
    answer = client.predict(texts, list(files), api_name="/table")
    assert_same_table(answer, json.loads(cli_output(capsys, files, "--json")))
    flags = ("--pairs", "all", "--figures", "gca,jga", "--primary", "gca", "--correction", "bonferroni")
    answer = client.predict(
        texts, list(files), figures="gca,jga", pairs="all", primary="gca", correction="bonferroni", api_name="/table"
    )
    assert_same_table(answer, json.loads(cli_output(capsys, files, "--json", *flags)))
    assert answer["family_size"] == 3  # 3 pairs × the primary figure
    with pytest.raises(Exception, match="at least two systems"):
        client.predict(texts[:1], api_name="/table")
