"""The Space's table of N systems (`dst_metrics.space.systems`): the page's table is `dst-metrics table`'s on
the same files (figures, intervals, p-values, marks, family), its downloads are the command line's outputs
and a CSV of the same figures, a small sample is flagged as the command line flags it, and bad input is
said in the library's words."""

from __future__ import annotations

import csv
import io
import json

import pytest

from dst_metrics import Corpus, InputError, score
from dst_metrics.cli import main
from dst_metrics.options import OptionError
from dst_metrics.readers import read
from dst_metrics.report.html import systems_output
from dst_metrics.space.inputs import ALL_EXAMPLES, SetInput, example_input
from dst_metrics.space.systems import TableChoices, api_table, table_csv, table_view, write_exports
from tests.conftest import REFERENCE, requires_shared
from tests.simulation import trade_variant

TRADE = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"
DIALOGUES = 40
"""The first 40 dialogues of the TRADE file: above the small-sample threshold (20), quick to test."""
VARIANTS = (("trade", {}), ("fix", {"fix": 0.2}), ("drop", {"drop": 0.3}))


def trade_files(folder) -> dict:
    """{name: path} of the TRADE file's first dialogues and two seeded variants of it."""
    data = json.loads(TRADE.read_text())
    part = {key: data[key] for key in sorted(data)[:DIALOGUES]}
    paths = {}
    for seed, (name, changes) in enumerate(VARIANTS):
        path = folder / f"{name}.json"
        path.write_text(json.dumps(trade_variant(part, seed=seed, **changes) if changes else part))
        paths[name] = path
    return paths


@pytest.fixture(scope="module")
def systems(tmp_path_factory) -> dict:
    if not TRADE.is_file():
        pytest.skip(f"needs {TRADE}")
    return trade_files(tmp_path_factory.mktemp("systems"))


def cli_output(capsys, paths: dict, *flags: str) -> str:
    """`dst-metrics table` on the files, named as the page names them (the file name without .json)."""
    names = [word for name in paths for word in ("--name", name)]
    capsys.readouterr()
    assert main(["table", *map(str, paths.values()), *names, *flags]) == 0
    return capsys.readouterr().out


def uploaded(paths: dict) -> list[SetInput]:
    return [SetInput("", "", str(path), path.name) for path in paths.values()]


def assert_same_table(page: dict, cli: dict) -> None:
    """Every figure, interval, test and mark of the page's table equal to the command line's."""
    for key in ("names", "keys", "tested", "baseline", "pairs", "primary", "family_size", "rounds", "correction"):
        assert page[key] == cli[key], key
    assert page["values"] == cli["values"] and page["marks"] == cli["marks"]
    assert page["intervals"] == cli["intervals"]
    assert [t["figures"] for t in page["tests"]] == [t["figures"] for t in cli["tests"]]
    assert page["signature"] == cli["signature"]


CASES = [
    (TableChoices(), ()),
    (TableChoices(baseline="fix"), ("--baseline", "fix")),
    (
        TableChoices(("gca", "jga", "aga"), "all", primary="jga", correction="bonferroni"),
        ("--figures", "gca,jga,aga", "--pairs", "all", "--primary", "jga", "--correction", "bonferroni"),
    ),
]


@requires_shared
@pytest.mark.parametrize(("choices", "flags"), CASES)
def test_the_page_s_table_is_the_command_line_s(systems, capsys, choices, flags):
    view = table_view(uploaded(systems), choices)
    assert view.ok, view.status
    cli = json.loads(cli_output(capsys, systems, "--json", *flags))
    assert_same_table(json.loads(systems_output(view.table, "json")), cli)
    family = len(cli["tests"]) * len(cli["tested"])
    assert cli["family_size"] == family and f"family of m = {family} tests" in view.html
    assert "fewer than 20" not in view.html  # 40 dialogues
    # the command shown makes the same table from the files
    assert view.command.startswith("dst-metrics table trade.json fix.json drop.json --name trade")


@requires_shared
def test_the_downloads_are_the_command_line_s_outputs_and_a_csv_of_the_same_figures(systems, capsys, tmp_path):
    view = table_view(uploaded(systems), TableChoices(baseline="drop"))
    paths = {path.rsplit(".", 1)[1]: path for path in write_exports(view.table, tmp_path)}
    assert sorted(paths) == ["csv", "html", "json", "md", "tex"]
    flags = ("--baseline", "drop")
    assert open(paths["md"]).read() == cli_output(capsys, systems, "--markdown", *flags)
    assert open(paths["tex"]).read() == cli_output(capsys, systems, "--latex", *flags)
    cli = json.loads(cli_output(capsys, systems, "--json", *flags))
    assert_same_table(json.loads(open(paths["json"]).read()), cli)
    assert 'id="systems-table"' in open(paths["html"]).read()
    rows = list(csv.DictReader(io.StringIO(open(paths["csv"]).read())))
    assert [row["system"] for row in rows] == cli["names"]
    for row in rows:
        for key in cli["keys"]:
            assert float(row[key]) == cli["values"][row["system"]][key]
            assert [float(row[f"{key}_low"]), float(row[f"{key}_high"])] == cli["intervals"][row["system"]][key]
            assert row[f"{key}_mark"] == cli["marks"][row["system"]][key]
    assert cli["marks"]["drop"] == {key: "" for key in cli["keys"]}  # the baseline is marked against no one
    assert any(cli["marks"]["trade"].values())  # TRADE differs from its 30% dropped copy


def test_a_small_sample_is_flagged_as_the_command_line_flags_it(tmp_path, capsys):
    sets = example_input(ALL_EXAMPLES).sets  # three dialogues
    view = table_view([SetInput(name, text) for name, text in sets], TableChoices())
    assert view.ok and view.table.dialogues == 3
    assert "only 3 dialogues (fewer than 20): the intervals and the tests are unreliable" in view.html
    assert "only 8 patterns of swaps exist" in view.html  # 2^3 sign patterns: nothing can be significant
    paths = {}
    for name, text in sets:
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(text)
    terminal = cli_output(capsys, paths)
    for note in ("only 3 dialogues (fewer than 20)", "family of m = 5 tests", "only 8 patterns of swaps exist"):
        assert note in terminal and note in view.html


def test_bad_input_and_choices_are_said_in_the_library_s_words():
    sets = example_input(ALL_EXAMPLES).sets
    one = table_view([SetInput(*sets[0])], TableChoices())
    assert not one.ok and "at least two systems" in one.status
    first = example_input("first_example").sets
    other_gold = table_view([SetInput(*sets[0]), SetInput(*first[0])], TableChoices())
    assert not other_gold.ok and "not on one gold" in other_gold.status
    bad_primary = table_view([SetInput(*s) for s in sets], TableChoices(("gca",), primary="jga"))
    assert not bad_primary.ok and "primary figure must be one of the table's figures" in bad_primary.status
    unknown = table_view([SetInput(*s) for s in sets], TableChoices(("gca", "nope")))
    assert not unknown.ok and "nope" in unknown.status
    with pytest.raises(OptionError, match="baseline must name one of the systems"):
        api_table([text for _, text in sets], ["P1", "P2"], choices=TableChoices(baseline="P3"))
    with pytest.raises(OptionError, match="one per prediction set"):
        api_table([text for _, text in sets], ["P1"])
    with pytest.raises(InputError, match="not valid JSON"):
        api_table([sets[0][1], '{"MUL0003": ]'])


def test_the_csv_has_a_row_per_system_and_four_columns_per_figure():
    sets = example_input(ALL_EXAMPLES).sets
    view = table_view([SetInput(*s) for s in sets], TableChoices(("gca", "jga")))
    rows = list(csv.reader(io.StringIO(table_csv(view.table))))
    header = ["system", "gca", "gca_low", "gca_high", "gca_mark", "jga", "jga_low", "jga_high", "jga_mark"]
    assert rows[0] == header and [row[0] for row in rows[1:]] == ["P1", "P2"]
    corpus = Corpus.from_reference_layout(json.loads(sets[0][1]))
    assert float(rows[1][1]) == score(corpus).scores["gca"]  # unrounded, as `score` gives it


@requires_shared
def test_sets_given_one_name_are_runs_of_one_system_as_on_the_command_line(systems, capsys, tmp_path):
    # three runs of "T" (the TRADE part and two seeded variants), two of "D": the page's table, the /table
    # endpoint and `dst-metrics table` with the same names give one table of two systems, means over runs
    data = json.loads(systems["trade"].read_text())
    paths = {}
    for seed in (1, 2):
        paths[f"t{seed}"] = tmp_path / f"t{seed}.json"
        paths[f"t{seed}"].write_text(json.dumps(trade_variant(data, seed=seed, swap=0.05)))
    files = [systems["trade"], paths["t1"], paths["t2"], systems["drop"], systems["fix"]]
    names = ["T", "T", "T", "D", "D"]
    view = table_view([SetInput(n, "", str(p), p.name) for n, p in zip(names, files)], TableChoices(), runs=True)
    assert view.ok, view.status
    assert view.table.names == ("T", "D") and view.status.startswith("Table of 2 systems (5 runs) on 40 dialogues")
    capsys.readouterr()
    argv = [*map(str, files), *(w for n in names for w in ("--name", n)), "--json"]
    assert main(["table", *argv]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert_same_table(json.loads(systems_output(view.table, "json")), cli)
    assert cli["runs"] == json.loads(systems_output(view.table, "json"))["runs"] and len(cli["runs"]["T"]) == 3
    each = [score(read(str(p))).scores["jga"] for p in files[:3]]
    assert cli["values"]["T"]["jga"] == pytest.approx(sum(each) / 3, rel=1e-12)
    assert view.command.startswith("dst-metrics table trade.json t1.json t2.json drop.json fix.json --name T --name T")
    assert 'data-runs="3"' in view.html and "± the sample standard deviation over a system" in view.html
    texts = [p.read_text() for p in files]
    api = api_table(texts, names, choices=TableChoices(resamples=50))
    assert api["names"] == ["T", "D"] and len(api["runs"]["D"]) == 2
    with pytest.raises(InputError, match="all runs of T"):
        api_table(texts[:2], ["T", "T"])
