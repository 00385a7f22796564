"""The table of N systems (dst_metrics.stats.systems_table, `dst-metrics table`): each system's figures
and intervals equal `score`'s and `bootstrap_intervals`', the tests equal `compare`'s, the family is
pairs × figures, ONE correction runs over the whole table (not per comparison), a null simulation
keeps the share of tables with any false mark at most 5%, small samples are flagged, and the
LaTeX, Markdown, HTML and JSON outputs parse."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import statistics
import subprocess
from html.parser import HTMLParser

import numpy as np
import pytest

from dst_metrics import InputError
from dst_metrics.cli import main
from dst_metrics.compat import PROFILES
from dst_metrics.options import OptionError, Options
from dst_metrics.readers import read
from dst_metrics.report import systems as render
from dst_metrics.report.html import systems_page
from dst_metrics.scoring.scores import score
from dst_metrics.stats import bootstrap_intervals, compare, systems_table
from dst_metrics.stats.paired import smallest_p
from dst_metrics.stats.table import SMALL_SAMPLE, SystemsTable, table_of_matrices
from tests.conftest import REFERENCE, requires_shared
from tests.simulation import simulate_runs, simulate_systems, trade_variant

TRADE = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"
TRADE_LAYOUT = REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json"
T5 = REFERENCE / "t5_zeroshot" / "predictions"
FIVE = ("gca", "jga", "fga", "sa", "slot_f1")


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, written out here apart from the package's `adjust`."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    out, running = [0.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        out[i] = running
    return out


@pytest.fixture(scope="module")
def trade_systems(tmp_path_factory):
    """The TRADE file and three seeded variants (turns given the gold, items dropped, a copy), as corpora."""
    if not TRADE.is_file():
        pytest.skip(f"needs {TRADE}")
    data = json.loads(TRADE.read_text())
    folder = tmp_path_factory.mktemp("variants")
    paths = {"TRADE": TRADE}
    for name, changes in (("fix3", {"fix": 0.03}), ("drop5", {"drop": 0.05}), ("copy", {})):
        path = folder / f"{name}.json"
        path.write_text(json.dumps(trade_variant(data, seed=len(paths), **changes)))
        paths[name] = path
    return {name: (path, read(str(path))) for name, path in paths.items()}


def named(systems: dict) -> list:
    return [(name, corpus) for name, (_, corpus) in systems.items()]


@requires_shared
def test_each_system_s_figures_and_intervals_are_score_s_and_bootstrap_s(trade_systems):
    table = systems_table(named(trade_systems), resamples=200, seed=3)
    assert table.keys == FIVE and table.dialogues == 999 and table.turns == 7368
    # the official GCA code's figures of the TRADE file (shared/reference/trade/*.published.json)
    published = json.loads((REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.published.json").read_text())
    assert round(100 * table.values["TRADE"]["gca"], 2) == published["GCA"]
    assert round(100 * table.values["TRADE"]["jga"], 2) == published["JGA"]
    assert round(100 * table.values["TRADE"]["fga"], 2) == published["FGA_0.5"]
    for name, (_, corpus) in trade_systems.items():
        scores = score(corpus).scores
        intervals = bootstrap_intervals(corpus, resamples=200, seed=3)
        for key in FIVE:
            assert table.values[name][key] == pytest.approx(scores[key], rel=1e-12), (name, key)
            assert table.intervals[name][key] == pytest.approx(intervals[key], rel=1e-9), (name, key)
    assert table.values["copy"] == table.values["TRADE"] and table.marks("copy", "jga") == ""


@requires_shared
def test_a_two_system_table_tests_as_compare_does(trade_systems):
    corpora = named(trade_systems)[:2]
    table = systems_table(corpora, resamples=50, rounds=999, seed=5)
    pair = compare(corpora[0][1], corpora[1][1], resamples=50, rounds=999, seed=5, figures=list(FIVE))
    (test,) = table.tests
    for key in FIVE:
        assert test.figures[key].p == pair.figures[key].p, key  # the same rounds, drawn the same way
        assert test.figures[key].p_adjusted == pair.figures[key].p_adjusted, key  # one pair: the same family
        assert test.figures[key].diff == pytest.approx(pair.figures[key].diff, abs=1e-12), key


@requires_shared
def test_a_mixed_format_table_on_one_gold_and_the_error_when_gold_differs(trade_systems):
    # the TRADE file and the same predictions in the GCA reference layout: one gold, equal figures
    mixed = [("trade", trade_systems["TRADE"][1]), ("layout", read(str(TRADE_LAYOUT)))]
    table = systems_table(mixed, resamples=20)
    assert table.values["trade"] == table.values["layout"]
    assert all(not f.significant and f.p == 1.0 for f in table.tests[0].figures.values())
    # the two T5 files are on different gold (attraction-only and restaurant-only states)
    t5 = [(path.name, read(str(path))) for path in sorted(T5.glob("*.json"))]
    with pytest.raises(InputError, match="are not on one gold") as caught:
        systems_table(t5, resamples=20)
    assert "T5_result_zeroshot_rest.json" in str(caught.value) and "dialogue" in str(caught.value)
    with pytest.raises(InputError, match="are not on one gold"):
        systems_table([t5[0], mixed[0]], resamples=20)


def simulated(systems: int = 4, dialogues: int = 60, seed: int = 0, shifts: tuple = ()) -> dict:
    """`simulate_systems`, the i-th system's skill shifted by shifts[i] (logit scale)."""
    return simulate_systems(np.random.default_rng(seed), systems, dialogues, shifts=shifts)


def test_the_family_is_every_pair_tested_times_every_figure_tested():
    matrices = simulated()
    options = Options()
    cases = [({}, 3 * 5), ({"pairs": "all"}, 6 * 5), ({"primary": "jga"}, 3), ({"pairs": "all", "primary": "jga"}, 6)]
    for settings, size in cases:
        table = table_of_matrices(matrices, options, resamples=20, **settings)
        assert table.family_size == size, settings
        assert all(f.family_size == size for test in table.tests for f in test.figures.values())
        assert table.rounds == int(np.ceil(10 * size / 0.05)) - 1  # the smallest p a tenth of level / m
        assert f"family of m = {size} tests" in render.markdown(table)
    assert table_of_matrices(matrices, options, resamples=20, baseline="S3").tests[0].a == "S3"


def test_one_correction_runs_over_the_whole_table_not_per_comparison():
    # S2 and S4 a little better than S1 and S3: raw p-values spread over the whole range
    matrices = simulated(systems=4, dialogues=80, seed=7, shifts=(0, 0.25, 0, 0.35))
    for pairs in ("baseline", "all"):
        table = table_of_matrices(matrices, Options(), resamples=20, pairs=pairs, seed=1)
        raw = [f.p for test in table.tests for f in test.figures.values()]
        found = [f.p_adjusted for test in table.tests for f in test.figures.values()]
        assert found == pytest.approx(holm(raw), rel=1e-12)
        per_comparison = [q for test in table.tests for q in holm([f.p for f in test.figures.values()])]
        assert any(abs(a - b) > 1e-9 for a, b in zip(found, per_comparison))  # the test can tell them apart
        assert all(f.significant == (f.p_adjusted <= 0.05) for test in table.tests for f in test.figures.values())
    bonferroni = table_of_matrices(matrices, Options(), resamples=20, correction="bonferroni")
    m = bonferroni.family_size
    for test in bonferroni.tests:
        for f in test.figures.values():
            assert f.p_adjusted == min(1.0, m * f.p)


def test_a_mark_that_only_a_correction_per_comparison_would_give():
    # one pair with a real JGA difference among many null pairs: per comparison (m = 5) it is
    # significant, over the table's family (m = 45 for 10 systems) it must face the larger Holm factor
    matrices = simulated(systems=10, dialogues=100, seed=0, shifts=(0, 0.45))
    table = table_of_matrices(matrices, Options(), resamples=10, seed=2)
    for test in table.tests:
        per_pair = holm([f.p for f in test.figures.values()])
        for (key, f), q in zip(test.figures.items(), per_pair):
            assert f.p_adjusted >= q - 1e-12, (test.b, key)  # the whole family never adjusts less
    marked = {(t.b, k) for t in table.tests for k, f in t.figures.items() if f.significant}
    per_pair_marked = {
        (t.b, k) for t in table.tests for (k, f), q in zip(t.figures.items(), holm([f.p for f in t.figures.values()]))
        if q <= 0.05
    }  # fmt: skip
    assert marked <= per_pair_marked
    # S2's GCA (p about 0.004): Holm over its own 5 figures marks it, over the table's 45 tests it does not
    assert per_pair_marked - marked == {("S2", "gca")}
    assert table.tests[0].figures["gca"].p_adjusted > 0.05


def test_null_tables_have_a_false_mark_in_at_most_5_percent():
    # every system from one process: any mark is false. 120 tables of 4 systems on 40 dialogues
    rng = np.random.default_rng(36)
    options = Options()
    any_mark = any_raw = 0
    tables = 120
    for repetition in range(tables):
        matrices = simulate_systems(rng, 4, 40)
        table = table_of_matrices(matrices, options, resamples=5, seed=repetition)
        any_mark += any(f.significant for t in table.tests for f in t.figures.values())
        any_raw += any(f.p <= 0.05 for t in table.tests for f in t.figures.values())
    assert any_mark / tables <= 0.05
    assert any_raw / tables > 0.10  # uncorrected, the 15 tests of a table often mark something


def test_small_samples_are_flagged_and_the_smallest_p_counts_the_dialogues():
    matrices = simulated(systems=3, dialogues=3, seed=4, shifts=(0, 3.0))
    table = table_of_matrices(matrices, Options(), resamples=50)
    assert table.small_sample and table.dialogues == 3 < SMALL_SAMPLE
    assert smallest_p(table.rounds, 3) == 0.25  # 2^3 = 8 patterns of swaps; the observed one and its mirror count
    assert table.p_floor == min(1.0, table.family_size * 0.25)
    text = render.markdown(table)
    assert "only 3 dialogues (fewer than 20): the intervals and the tests are unreliable" in text
    assert "with 3 dialogues only 8 patterns of swaps exist" in text
    # the randomization p of a system better in each of 3 dialogues is that of the exact test, 2/8
    for test in table.tests:
        for key, f in test.figures.items():
            assert f.p >= 0.2 and not f.significant, (test.b, key)


def test_marks_mean_what_the_note_says():
    matrices = simulated(systems=3, dialogues=150, seed=9, shifts=(0, 0, 1.2))
    table = table_of_matrices(matrices, Options(), resamples=50)
    assert table.marks("S3", "jga") == "*" and table.marks("S1", "jga") == ""
    every = table_of_matrices(matrices, Options(), resamples=50, pairs="all")
    assert every.letters() == {"S1": "a", "S2": "b", "S3": "c"}
    assert every.marks("S3", "jga") == "ab" and every.marks("S1", "jga") == "" and every.marks("S2", "jga") == ""
    assert every.best("jga") == ["S3"]


def test_bad_choices_are_refused():
    matrices = simulated(systems=2, dialogues=10)
    with pytest.raises(OptionError, match="figures must be some of"):
        table_of_matrices(matrices, Options(), figures=["gca", "nope"])
    with pytest.raises(OptionError, match="the baseline must be one of the systems"):
        table_of_matrices(matrices, Options(), baseline="S9")
    with pytest.raises(OptionError, match="primary figure must be one of the table's figures"):
        table_of_matrices(matrices, Options(), primary="rsa")
    with pytest.raises(OptionError, match="at least two systems"):
        table_of_matrices({"S1": matrices["S1"]}, Options())
    with pytest.raises(OptionError, match="a baseline is for pairs='baseline'"):
        table_of_matrices(matrices, Options(), pairs="all", baseline="S1")
    for rounds in (0, -3, True, 2.5):  # as compare refuses them: a p below 0 or above 1 otherwise
        with pytest.raises(OptionError, match="randomization rounds must be a whole number at least 1"):
            table_of_matrices(matrices, Options(), rounds=rounds)


# --------------------------------------------------------------------------------------------
# Outputs


@pytest.fixture(scope="module")
def table() -> SystemsTable:
    return table_of_matrices(simulated(systems=4, dialogues=120, seed=5, shifts=(0, 0.8)), Options(), resamples=50)


def test_latex_has_booktabs_rules_the_best_in_bold_and_the_marks_in_a_footnote(table):
    text = render.latex(table)
    lines = text.splitlines()
    rules = [line for line in lines if line in (r"\toprule", r"\midrule", r"\bottomrule")]
    assert rules == [r"\toprule", r"\midrule", r"\bottomrule"]
    body = lines[lines.index(r"\midrule") + 1 : lines.index(r"\bottomrule")]
    assert len(body) == 4
    cells = [row.removesuffix(r" \\").split(" & ") for row in body]
    for column, key in enumerate(table.keys, start=1):
        values = [float(re.search(r"\d+\.\d\d", row[column]).group()) for row in cells]
        bold = [i for i, row in enumerate(cells) if row[column].startswith(r"\textbf{")]
        assert bold == [i for i, v in enumerate(values) if v == max(values)], key
    assert any(r"$^{*}$" in cell for row in cells for cell in row)  # S2 differs from S1
    footnote = next(line for line in lines if line.startswith(r"\parbox"))
    assert r"$^{*}$ differs from S1 at level 0.05" in footnote and "family of m = 15 tests" in footnote


def test_markdown_parses_as_a_table(table):
    text = render.markdown(table)
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + 4 and rows[1] == "| --- |" + " ---: |" * 5
    for row, name in zip(rows[2:], table.names):
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert cells[0] == name and len(cells) == 6
        for key, cell in zip(table.keys, cells[1:]):
            number = float(re.search(r"\d+\.\d\d", cell).group())
            assert number == pytest.approx(100 * table.values[name][key], abs=0.005)
            assert cell.startswith("**") == (name in table.best(key))
    assert "family of m = 15 tests" in text and "Signature: `" in text


def test_html_cells_carry_the_values(table):
    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.found = []

        def handle_starttag(self, tag, attrs):
            if tag == "td" and "data-value" in dict(attrs):
                self.found.append(dict(attrs))

    parser = Cells()
    parser.feed(systems_page(table, "jga"))
    assert len(parser.found) == 4 * 5
    by_cell = {(i // 5, cell["data-key"]): cell for i, cell in enumerate(parser.found)}
    for index, name in enumerate(table.names):
        for key in table.keys:
            cell = by_cell[(index, key)]
            assert float(cell["data-value"]) == table.values[name][key]
            assert cell["data-mark"] == table.marks(name, key)
            assert (float(cell["data-low"]), float(cell["data-high"])) == table.intervals[name][key]


def test_the_json_holds_every_field_of_the_table(table):
    data = json.loads(json.dumps(table.as_dict()))
    assert {f.name for f in dataclasses.fields(SystemsTable)} <= set(data)
    assert (data["names"], data["keys"], data["tested"]) == (list(table.names), list(table.keys), list(table.tested))
    assert data["values"] == table.values
    assert data["intervals"] == {n: {k: list(v) for k, v in found.items()} for n, found in table.intervals.items()}
    figures = [{k: {**dataclasses.asdict(d), "ci": list(d.ci)} for k, d in t.figures.items()} for t in table.tests]
    assert data["tests"] == [{"a": t.a, "b": t.b, "figures": f} for t, f in zip(table.tests, figures, strict=True)]
    for name in ("baseline", "signature", "dialogues", "turns", "correction", "level", "rounds", "resamples"):
        assert data[name] == getattr(table, name), name
    for name in ("seed", "method", "interval_level", "primary", "labels"):
        assert data[name] == getattr(table, name), name
    assert Options(**{k: tuple(v) if isinstance(v, list) else v for k, v in data["options"].items()}) == table.options
    assert data["family_size"] == 15 and data["pairs"] == "baseline" and data["baseline"] == "S1"
    assert data["marks"]["S2"]["jga"] == table.marks("S2", "jga")


def test_the_matrix_holds_every_difference(table):
    every = table_of_matrices(simulated(systems=3, dialogues=80, seed=2), Options(), resamples=20, pairs="all")
    text = render.matrix_markdown(every, "gca")
    rows = [line for line in text.splitlines() if line.startswith("|")][2:]
    for row, a in zip(rows, every.names):
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        for cell, b in zip(cells[1:], every.names):
            if a != b:
                assert float(cell.rstrip("\\*")) == pytest.approx(100 * every.diff(b, a, "gca"), abs=0.005)
    assert "(n.t.)" in render.matrix_markdown(table, "gca")  # baseline pairs: S2 - S3 was not tested


@requires_shared
def test_profiles_show_each_evaluator_s_jga_and_the_ranking(trade_systems):
    corpora = named(trade_systems)[:3]
    table = systems_table(corpora, resamples=20, profiles=["trade", "fga", "sgd"])
    ours, trade, fga, sgd = table.profiles
    assert ours.name == "ours" and sgd.error and not sgd.values
    for name, corpus in corpora:
        assert trade.values[name]["jga"] == PROFILES["trade"].compute(corpus, Options())["jga"]
        assert fga.values[name]["fga"] == PROFILES["fga"].compute(corpus, Options())["fga"]
    # TRADE's own evaluation counts none as an item: 3,827 of 7,368 turns (shared/reference/trade/README.md)
    assert trade.values["TRADE"]["jga"] == 3827 / 7368
    assert ours.values["TRADE"]["jga"] == table.values["TRADE"]["jga"]
    text = render.profiles_markdown(table)
    assert "JGA (trade)" in text and "left out: sgd" in text


# --------------------------------------------------------------------------------------------
# Command line


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["table", *argv, "--quiet"])
    out, err = capsys.readouterr()
    return status, out, err


@requires_shared
def test_cli_table_in_every_format(capsys, trade_systems):
    paths = [str(path) for path, _ in trade_systems.values()]
    names = [arg for name in trade_systems for arg in ("--name", name)]
    status, out, err = run(capsys, *paths, *names, "--bootstrap", "50", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["names"] == list(trade_systems) and data["family_size"] == 15 and data["baseline"] == "TRADE"
    assert round(100 * data["values"]["TRADE"]["gca"], 2) == 81.86
    status, out, _ = run(capsys, *paths, *names, "--bootstrap", "50", "--latex", "--primary", "jga")
    assert status == 0 and r"\toprule" in out and "family of m = 3 tests" in out
    status, out, _ = run(capsys, *paths, *names, "--bootstrap", "50", "--markdown", "--matrix", "jga")
    assert status == 0 and "| JGA: row − column |" in out and "family of m = 30 tests" in out  # --matrix: every pair
    status, out, _ = run(capsys, *paths[:2], "--bootstrap", "20", "--baseline", paths[1])
    assert status == 0 and "* differs from fix3.json" in out
    status, _, err = run(capsys, paths[0])
    assert status == 2 and "a table compares at least two systems" in err
    status, _, err = run(capsys, *paths[:2], "--matrix", "rsa")
    assert status == 2 and "--matrix must be one of the table's figures" in err
    t5 = [str(path) for path in sorted(T5.glob("*.json"))]
    status, _, err = run(capsys, *t5, "--bootstrap", "20")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "are not on one gold" in err


# --------------------------------------------------------------------------------------------
# In the report


@requires_shared
def test_the_report_marks_by_the_table_s_one_correction(trade_systems):
    from dst_metrics.report.data import collect
    from dst_metrics.report.html import build_report
    from dst_metrics.report.tables import latex_table, markdown_table

    data = collect(named(trade_systems), resamples=50, analyses=False)
    table = data.table
    keys = ["gca", "jga", "fga", "sa", "aga", "rsa", "slot_f1"]  # the report's headline figures
    assert table is not None and list(table.keys) == keys and table.family_size == 3 * 7
    text = markdown_table(data)
    assert "holm over every test of the table: m = 21" in text
    for row, name in zip([line for line in text.splitlines() if line.startswith("|")][2:], table.names):
        cells = row.strip("|").split(" | ")[1:]
        for key, cell in zip(keys, cells):
            assert ("\\*" in cell) == table.differs(name, key), (name, key)
    assert "m = 21" in latex_table(data)
    page = build_report(data, plots=[])
    assert '<section id="systems"><h2>Table of 4 systems</h2>' in page and 'data-family-size="21"' in page


def test_cli_refuses_bad_choices_before_reading_any_file(capsys, tmp_path):
    missing = [str(tmp_path / "a.json"), str(tmp_path / "b.json")]  # never read: the choices fail first
    for argv, message in (
        (["--profiles", "nope"], "--profiles must be all or some of fga, convlab, sgd, trade, mwzeval, fnctod"),
        (["--primary", "rsa"], "--primary must be one of the table's figures (gca, jga, fga, sa, slot_f1)"),
        (["--figures", "gca,jga", "--matrix", "fga"], "--matrix must be one of the table's figures (gca, jga)"),
        (["--pairs", "all", "--baseline", "a.json"], "--baseline is for --pairs baseline"),
        (["--baseline", "c.json"], "--baseline must name one of the systems (a.json, b.json)"),
        (["-o", str(tmp_path / "no" / "t.md")], "cannot write the table: its folder does not exist"),
    ):
        status, _, err = run(capsys, *missing, *argv)
        assert status == 2 and message in err and len(err.strip().splitlines()) == 1, argv


# --------------------------------------------------------------------------------------------
# Runs per system (issue 46)


def jga_of(matrix) -> float:
    """JGA from a tally matrix's columns, written out here: joint hits over turns."""
    total = matrix.rows.sum(axis=0)
    return total[matrix.layout.scalars["joint_hits"]] / total[matrix.layout.scalars["turns"]]


def test_a_system_s_value_is_the_mean_of_its_runs_and_its_sd_the_sample_sd():
    runs = simulate_runs(np.random.default_rng(46), (3, 2, 1), 60)
    table = table_of_matrices(runs, Options(), resamples=30)
    assert table.names == ("S1", "S2", "S3") and [table.run_count(n) for n in table.names] == [3, 2, 1]
    for name, found in runs.items():
        each = [jga_of(m) for m in found]
        assert table.values[name]["jga"] == pytest.approx(sum(each) / len(each), rel=1e-12)
        if len(each) > 1:
            assert table.spread[name]["jga"] == pytest.approx(statistics.stdev(each), rel=1e-9)
            assert [run["jga"] for run in table.runs[name]] == pytest.approx(each, rel=1e-12)
        else:
            assert name not in table.spread  # no sd of a single run
    assert "runs:3+2+1" in table.signature and table.has_runs
    data = json.loads(json.dumps(table.as_dict()))
    assert len(data["runs"]["S1"]) == 3 and data["spread"]["S2"]["jga"] == table.spread["S2"]["jga"]
    low, high = table.intervals["S1"]["jga"]
    assert low < table.values["S1"]["jga"] < high


def test_copies_of_one_run_give_the_table_of_that_run():
    # a system whose runs are all the same run: the mean is that run, the sd 0, the intervals and tests unchanged
    single = simulated(systems=3, dialogues=70, seed=11, shifts=(0, 0.5))
    copies = {name: [matrix] * count for (name, matrix), count in zip(single.items(), (3, 1, 2))}
    one = table_of_matrices(single, Options(), resamples=40, seed=4)
    many = table_of_matrices(copies, Options(), resamples=40, seed=4)
    for name in one.names:
        for key in FIVE:
            assert many.values[name][key] == pytest.approx(one.values[name][key], rel=1e-12, abs=1e-15)
            assert many.intervals[name][key] == pytest.approx(one.intervals[name][key], rel=1e-12, abs=1e-15)
    assert all(sd == 0.0 for found in many.spread.values() for sd in found.values())
    for test_one, test_many in zip(one.tests, many.tests, strict=True):
        for key in FIVE:
            assert test_many.figures[key].p == test_one.figures[key].p, (test_one.b, key)
    assert not one.has_runs and one.runs == {} and "runs:" not in one.signature


def test_null_tables_with_runs_have_a_false_mark_in_at_most_5_percent():
    # every system from one process, with 3, 3 and 1 runs: any mark is false. 80 tables on 40 dialogues
    # (benchmarks/sim_table.py --runs 3,3,1 runs 1,000 on 200 dialogues)
    rng = np.random.default_rng(46)
    any_mark = any_raw = 0
    tables = 80
    for repetition in range(tables):
        runs = simulate_runs(rng, (3, 3, 1), 40)
        table = table_of_matrices(runs, Options(), resamples=5, seed=repetition, pairs="all")
        any_mark += any(f.significant for t in table.tests for f in t.figures.values())
        any_raw += any(f.p <= 0.05 for t in table.tests for f in t.figures.values())
    assert any_mark / tables <= 0.05
    assert any_raw / tables > 0.10  # uncorrected, the 15 tests of a table often mark something


def test_runs_that_differ_from_their_system_are_tested_as_one_system():
    # S2's runs are better than S1's (shift 0.6 on the logit scale): marked; S3 is S1's process: not marked
    runs = simulate_runs(np.random.default_rng(7), (3, 3, 2), 150, shifts=(0, 0.6, 0))
    table = table_of_matrices(runs, Options(), resamples=20)
    assert table.marks("S2", "jga") == "*" and table.marks("S3", "jga") == ""
    assert table.tests[0].figures["jga"].diff == pytest.approx(table.values["S2"]["jga"] - table.values["S1"]["jga"])


@requires_shared
def test_runs_on_real_files_and_a_run_on_other_dialogues(capsys, trade_systems, tmp_path):
    data = json.loads(TRADE.read_text())
    paths = []
    for seed in (1, 2, 3):
        path = tmp_path / f"swap{seed}.json"
        path.write_text(json.dumps(trade_variant(data, seed=seed, swap=0.02)))
        paths.append(str(path))
    fix, drop = str(trade_systems["fix3"][0]), str(trade_systems["drop5"][0])
    names = ["--name", "A"] * 3 + ["--name", "B", "--name", "B"]
    status, out, err = run(capsys, *paths, fix, drop, *names, "--bootstrap", "20", "--json")
    assert status == 0, err
    found = json.loads(out)
    assert found["names"] == ["A", "B"] and len(found["runs"]["A"]) == 3 and len(found["runs"]["B"]) == 2
    each = [score(read(path)).scores["jga"] for path in paths]
    assert found["values"]["A"]["jga"] == pytest.approx(sum(each) / 3, rel=1e-12)
    assert found["spread"]["A"]["jga"] == pytest.approx(statistics.stdev(each), rel=1e-9)
    status, out, _ = run(capsys, *paths, fix, drop, *names, "--bootstrap", "20", "--markdown", "--intervals")
    assert status == 0 and "±" in out and "mean over a system's runs (A 3, B 2)" in out and "<" not in out
    # a run without one dialogue: one line naming the run and the dialogue
    short = dict(data)
    dropped = sorted(short)[5]
    del short[dropped]
    (tmp_path / "short.json").write_text(json.dumps(short))
    status, _, err = run(
        capsys, paths[0], str(tmp_path / "short.json"), fix, "--name", "A", "--name", "A", "--name", "B"
    )
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "A (run 2 of 2) and A (run 1 of 2) are not on one gold" in err and dropped in err
    status, _, err = run(capsys, paths[0], paths[1], "--name", "A", "--name", "A")
    assert status == 2 and "a table compares at least two systems; got the runs of one (A)" in err


# --------------------------------------------------------------------------------------------
# The LaTeX fits a column of a two-column article; the Markdown renders as a table


ACL_ARTICLE = r"""\documentclass[11pt,twocolumn]{article}
\usepackage[a4paper,margin=2.5cm,columnsep=0.6cm]{geometry}
\usepackage{booktabs,tabularx}
\begin{document}
%s
Some text of the article. %s
\end{document}
"""
"""An ACL-like article: A4, two columns, 2.5 cm margins, 0.6 cm between the columns, 11 pt."""
LONG_NAMES = ("RefPyDST (GPT-3.5)", "IC-DST (Codex-davinci)", "SDP-DST (T5-large)", "TRADE (GloVe+char)",
              "SOM-DST (BERT-base)", "LDST (LLaMA-7B)")  # fmt: skip


def overfull_boxes(latex: str, folder) -> list[str]:
    """The Overfull \\hbox lines pdflatex logs for the table in the ACL-like article (pdflatex must run clean)."""
    source = folder / "article.tex"
    source.write_text(ACL_ARTICLE % (latex, "More text. " * 200))
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", source.name],
        cwd=folder, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    log = (folder / "article.log").read_text(errors="replace")
    assert done.returncode == 0, log[-2000:]
    return [line for line in log.splitlines() if line.startswith("Overfull \\hbox")]


@pytest.fixture(scope="module")
def six_systems(trade_systems, tmp_path_factory) -> list:
    """Six systems of the TRADE file (its variants and two more), named as long as real systems are."""
    data = json.loads(TRADE.read_text())
    corpora = [corpus for _, corpus in trade_systems.values()][:3]
    folder = tmp_path_factory.mktemp("six")
    for seed, changes in ((7, {"fix": 0.06}), (8, {"drop": 0.1}), (9, {"swap": 0.05})):
        path = folder / f"{seed}.json"
        path.write_text(json.dumps(trade_variant(data, seed=seed, **changes)))
        corpora.append(read(str(path)))
    return list(zip(LONG_NAMES, corpora))


@requires_shared
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex with booktabs (texlive-latex-recommended)")
def test_the_latex_table_fits_a_column_of_an_acl_article(six_systems, tmp_path):
    three = systems_table(six_systems[:3], resamples=50)
    six = systems_table(six_systems, figures=[*FIVE, "aga"], resamples=50)
    assert any(six.marks(name, "jga") for name in six.names)  # marks drawn, as a real table has them
    for name, table in (("3x5", three), ("6x6", six)):
        for intervals in (None, True):
            latex = render.latex(table, intervals)
            assert r"\begin{table}[t]" in latex and r"\begin{tabularx}{\columnwidth}" in latex
            assert latex.startswith(f"% {table.signature}\n") and "texttt" not in latex
            folder = tmp_path / f"{name}-{intervals}"
            folder.mkdir()
            assert overfull_boxes(latex, folder) == [], (name, intervals)
    wide = render.latex(six, "ci", wide=True)
    assert r"\begin{table*}[t]" in wide and r"\begin{tabularx}{\textwidth}" in wide
    (tmp_path / "wide").mkdir()
    assert overfull_boxes(wide, tmp_path / "wide") == []


def test_the_latex_cells_hold_one_number_and_intervals_on_request(table):
    plain = render.latex(table)
    body = plain[plain.index(r"\midrule") : plain.index(r"\bottomrule")]
    assert "[" not in body and r"\pm" not in body and len(re.findall(r"\d+\.\d\d", body)) == 4 * 5
    spread = render.latex(table, "ci")
    body = spread[spread.index(r"\midrule") : spread.index(r"\bottomrule")]
    halves = [float(x) for x in re.findall(r"\$\\pm\$(\d+\.\d\d)", body)]
    expected = [
        100 * (table.intervals[n][k][1] - table.intervals[n][k][0]) / 2 for n in table.names for k in table.keys
    ]
    assert halves == pytest.approx(expected, abs=0.005)
    assert r"$\pm$ half the width of the 95\% percentile bootstrap interval" in spread
    assert r"\caption{Scores in percent of 4 systems on 120 dialogues" in spread


def test_the_markdown_has_no_html_and_renders_as_a_table(table):
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py renders the Markdown (comes with rich)")
    every = table_of_matrices(simulated(systems=3, dialogues=150, seed=9, shifts=(0, 0, 1.2)), Options(),
                              resamples=20, pairs="all")  # fmt: skip
    for found in (table, every):
        for intervals in (None, "ci"):
            text = render.markdown(found, intervals)
            tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(text)
            assert not [t for t in tokens if t.type.startswith("html")], text
            assert not any(c.type.startswith("html") for t in tokens for c in t.children or []), text
            assert "<" not in text and "&#" not in text
            rows = [t for t in tokens if t.type == "tr_open"]
            cells = [t for t in tokens if t.type == "td_open"]
            assert len(rows) == 1 + len(found.names) and len(cells) == len(found.names) * (1 + len(found.keys))
            html = markdown_it.MarkdownIt("commonmark").enable("table").render(text)
            assert "<em>" not in html  # no mark read as emphasis
            for name in found.names:
                for key in found.keys:
                    mark = found.marks(name, key)
                    if mark == "*":
                        assert f"{100 * found.values[name][key]:.2f}*" in html.replace("</strong>", "")
    assert "(ab)" in render.markdown(every)  # letters in parentheses: better than the systems a and b
