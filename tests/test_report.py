"""``dst-metrics report``: the page's tables carry the library's figures, every plot is drawn and
labelled, the LaTeX and Markdown tables parse back to the figures, and the command fails in one
line on bad input. The browser view of the page is in test_report_browser.py."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from .conftest import needs

pytest.importorskip("matplotlib", reason=needs("report", "matplotlib"))
pytest.importorskip("numpy", reason=needs("report", "numpy"))

from dst_metrics import Corpus, Options, read, score  # noqa: E402
from dst_metrics.cli import main  # noqa: E402
from dst_metrics.corpus import Dialogue  # noqa: E402
from dst_metrics.figures.registry import figure_labels  # noqa: E402
from dst_metrics.report import build_report, collect, latex_table, markdown_table, render_plots  # noqa: E402
from dst_metrics.report.plots import PLOTTERS, PNG_DPI  # noqa: E402
from dst_metrics.stats import bootstrap_intervals, compare  # noqa: E402
from dst_metrics.stats.paired import FloorWarning  # noqa: E402

from .conftest import REFERENCE, REPO, requires_shared  # noqa: E402
from .samples import GOLD, PRED  # noqa: E402

P1 = REPO / "examples" / "first_example_p1.json"
P2 = REPO / "examples" / "first_example_p2.json"
T5 = REFERENCE / "t5_zeroshot" / "predictions"
RESTAURANT = T5 / "T5_result_zeroshot_rest.json"
ATTRACTION = T5 / "T5_result_zeroshot_attraction.json"
RESAMPLES = 200  # enough to check the plumbing; the intervals themselves are test_stats*'s business
MAIN = ["gca", "jga", "fga", "sa", "aga", "rsa", "slot_f1"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
PERFECT = [  # the predictions that are GOLD (one of the acceptable values where gold lists several)
    GOLD[0],
    [{}, {"taxi-leave at": "5 pm"}, {"taxi-leave at": "17:00", "taxi-dest": "museum"}],
]


# --------------------------------------------------------------------------------------------
# Reading a page back


class Page(HTMLParser):
    """The parts of a report page the tests read: every element with its attributes and text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[dict] = []  # {"tag", "attrs", "text"}
        self._open: list[dict] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.elements.append(element)
        if tag not in ("img", "meta", "br"):
            self._open.append(element)

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for element in self._open:
            element["text"] += data

    def find(self, tag: str, **attrs: str) -> list[dict]:
        wanted = {key.replace("_", "-"): value for key, value in attrs.items()}
        return [e for e in self.elements if e["tag"] == tag and all(e["attrs"].get(k) == v for k, v in wanted.items())]


def cell_text(page: Page, table_id: str, system: str, key: str) -> str:
    tables = page.find("table", id=table_id)
    assert tables, f"no table #{table_id}"
    cells = [e for e in page.find("td", data_system=system, data_figure=key)]
    assert len(cells) >= 1, (table_id, system, key)
    return cells[0]["text"]


def shown(value: float) -> str:
    return f"{100 * value:.2f}"


def figures_drawn(text: str) -> list[str]:
    """The names of the plots drawn on the page, each an inline SVG chart in a figure."""
    return re.findall(r'<figure id="plot-([^"]+)"><svg class="chart ', text)


def with_gold_in(corpus: Corpus, every: int = 10) -> Corpus:
    """A copy whose every `every`-th dialogue predicts the gold state (10% of the dialogues)."""
    dialogues = tuple(
        Dialogue(d.dialogue_id, d.turn_ids, d.gold, d.gold) if i % every == 0 else d
        for i, d in enumerate(corpus.dialogues)
    )
    return Corpus(dialogues, corpus.value_matching)


@pytest.fixture(scope="module")
def samples():
    return Corpus.from_dialogues(predictions=PRED, references=GOLD)


@pytest.fixture(scope="module")
def two_systems(samples):
    """The samples corpus against a perfect copy of itself: same gold, B better on every figure."""
    perfect = Corpus.from_dialogues(predictions=PERFECT, references=GOLD)
    data = collect([("samples", samples), ("perfect", perfect)], resamples=RESAMPLES, seed=3)
    return data, build_report(data), (samples, perfect)


# --------------------------------------------------------------------------------------------
# The page


def test_one_system_page_carries_the_figures_and_intervals():
    corpus = read(str(P1))
    data = collect([("P1", corpus)], resamples=RESAMPLES, seed=1)
    page_text = build_report(data)
    page = Page(page_text)
    scores = score(corpus).scores
    intervals = bootstrap_intervals(corpus, Options(), resamples=RESAMPLES, seed=1)
    for key in MAIN:
        text = cell_text(page, "metrics", "P1", key)
        low, high = intervals[key]
        # the paper's first example: GCA 73.33 (P1), shown with its interval below it
        assert text == f"{shown(scores[key])}{shown(low)}–{shown(high)}", key
    assert cell_text(page, "metrics", "P1", "gca").startswith("73.33")
    assert cell_text(page, "metrics", "P1", "correct") == str(scores.correct)
    assert cell_text(page, "details", "P1", "fga@0.25").startswith(shown(scores["fga@0.25"]))
    assert not page.find("section", id="comparison"), "one system: no comparison"
    assert len(figures_drawn(page_text)) == len(PLOTTERS) + 1 + 2  # shared plots, TO/NU of the system, 2 heat maps
    signature = page.find("code", id="signature")[0]["text"]
    assert signature == Options().signature() + f"|ci:percentile,{RESAMPLES},seed:1,level:0.95"


def test_two_systems_page_compares_with_the_first(two_systems):
    data, text, (samples, perfect) = two_systems
    page = Page(text)
    with pytest.warns(FloorWarning, match="with 2 dialogues only 4 patterns of swaps exist"):  # the page shows it
        expected = compare(samples, perfect, Options(), resamples=RESAMPLES, seed=3, names=("samples", "perfect"))
    assert "With 2 dialogues only 4 patterns of swaps exist" in text
    rows = [e for e in page.find("tr") if "data-diff" in e["attrs"]]
    assert [r["attrs"]["data-figure"] for r in rows] == list(expected.figures)
    for row in rows:
        found = expected.figures[row["attrs"]["data-figure"]]
        assert float(row["attrs"]["data-diff"]) == pytest.approx(found.diff)
        assert float(row["attrs"]["data-p-adjusted"]) == pytest.approx(found.p_adjusted)
        assert row["attrs"]["data-significant"] == str(found.significant).lower()
    jga = next(r for r in rows if r["attrs"]["data-figure"] == "jga")
    # samples: 3 of 6 turns right (by hand: dialogue 0 only its first turn, dialogue 1 all but its first,
    # where "taxi-dest" is overshot); the perfect copy 6 of 6 -> +50.00 points, 3 turns right only for B
    assert "+50.00" in jga["text"]
    mcnemar = page.find("p", data_a_only="0", data_b_only="3")
    assert mcnemar and "clustered by dialogue" in mcnemar[0]["text"]
    assert float(mcnemar[0]["attrs"]["data-p"]) == pytest.approx(expected.mcnemar.p)
    assert len(rows) == 16 and "p (holm, m = 16)" in text  # the family holds fga once, its size in the header
    (summary,) = page.find("p", **{"class": "summary"})  # one sentence above the table, not a row each
    assert summary["text"] == expected.verdict()
    significant = [key for key, f in expected.figures.items() if f.significant]
    assert all(figure_labels(Options())[key] in summary["text"] for key in significant)
    assert summary["text"].startswith("significant at" if significant else "no significant difference at level")
    for system in ("samples", "perfect"):
        assert cell_text(page, "metrics", system, "jga").startswith(
            shown(score(samples if system == "samples" else perfect).scores.jga)
        )


def test_different_gold_is_shown_side_by_side_not_compared(samples):
    data = collect([("P1", read(str(P1))), ("samples", samples)], resamples=20)
    page = Page(build_report(data, plots=[]))
    notes = [e["text"] for e in page.find("p", **{"class": "note"}) if e["text"].startswith("Not compared")]
    assert len(notes) == 1 and "dialogue" in notes[0]
    assert cell_text(page, "metrics", "samples", "gca")


def test_every_plot_is_drawn_and_labelled(two_systems):
    data, text, _ = two_systems
    drawn = re.findall(r'<figure id="plot-([^"]+)">(<svg .*?</svg>)<figcaption>(.*?)</figcaption></figure>', text, re.S)
    plots = render_plots(data)
    assert len(drawn) == len(plots) == len(PLOTTERS) + 2 + 2
    for (name, svg, caption), plot in zip(drawn, plots):
        assert name == plot.name and caption == html.escape(plot.title) and plot.title  # the title once, as caption
        assert f'aria-label="{html.escape(plot.title)}"' in svg and f"<title>{html.escape(plot.title)}</title>" in svg
        assert "<?xml" not in svg and len(svg) > 5000
        labels = re.findall(r"<text [^>]*>([^<]+)</text>", svg)  # text drawn as text
        assert len(labels) >= 4, (plot.name, labels)  # axis labels and tick labels at least
        assert f">{html.escape(plot.title)}</text>" not in svg  # no title drawn in the plot
        png = plot.file("png")
        assert png.startswith(PNG_MAGIC) and len(png) > 5000
        assert int.from_bytes(png[16:20], "big") == round(plot.figure.get_figwidth() * PNG_DPI) >= 720  # >= 4.8 in
        assert plot.file("pdf").startswith(b"%PDF")
    labels = re.findall(r"<text [^>]*>([^<]+)</text>", drawn[0][1])
    assert {"samples", "perfect", "GCA", "score (%)"} <= set(labels)  # legend, figure and axis labels
    bars = re.findall(r'class="bar" data-metric="([^"]+)" data-set="([^"]+)" data-value="([^"]+)"', drawn[0][1])
    assert len(bars) == len(data.main_keys()) * len(data.systems)
    for key, system, value in bars:  # each bar the table's figure
        assert value == shown(next(s for s in data.systems if s.name == system).scores[key])
    assert plots[0].file("svg") == plots[0].file("svg")  # reproducible bytes


def test_extra_sections_are_placed_after_the_plots(two_systems):
    data, _, _ = two_systems
    text = build_report(data, plots=[], extra_sections=[("Reliability", '<p id="hook">diagram</p>')])
    assert text.index('id="plots"') < text.index('<p id="hook">diagram</p>') < text.index('id="signature"')


def test_page_is_self_contained(two_systems):
    _, text, _ = two_systems
    assert "<script" not in text
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", text), "only data: URLs and the charts' own ids"
    outside = text.replace("http://www.w3.org", "")  # the SVG namespaces
    assert "http://" not in outside and "https://" not in outside


def test_names_are_escaped(samples):
    data = collect([("<b>a&b</b>", samples)], resamples=0)
    text = build_report(data, plots=[])
    assert "<b>a&b</b>" not in text and "&lt;b&gt;a&amp;b&lt;/b&gt;" in text


# --------------------------------------------------------------------------------------------
# Tables for papers


def parse_markdown(text: str) -> dict[str, dict[str, str]]:
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
        rows[cells[0].replace("\\|", "|")] = dict(zip(header[1:], cells[1:]))
    return rows


def parse_latex(text: str) -> dict[str, dict[str, str]]:
    body = text.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    header = text.split("\\toprule\n", 1)[1].split(" \\\\", 1)[0].split(" & ")
    rows = {}
    for line in body.strip().splitlines():
        cells = line.removesuffix(" \\\\").split(" & ")
        rows[cells[0]] = dict(zip(header[1:], cells[1:]))
    return rows


def number_and_interval(cell: str) -> tuple[float, tuple[float, float] | None]:
    match = re.fullmatch(r"([\d.]+)(?: (?:\{\\scriptsize )?\[([\d.]+), ([\d.]+)\]\}?)?", cell)
    assert match, cell
    value, low, high = match.groups()
    return float(value), None if low is None else (float(low), float(high))


@pytest.mark.parametrize("kind", ["markdown", "latex"])
def test_paper_tables_parse_back_to_the_figures(kind, samples):
    p1 = read(str(P1))
    data = collect([("first|P1", p1), ("samples_2", samples)], resamples=RESAMPLES, seed=5)
    text = markdown_table(data) if kind == "markdown" else latex_table(data)
    rows = parse_markdown(text) if kind == "markdown" else parse_latex(text)
    names = {"first|P1": "first|P1", "samples_2": "samples_2"} if kind == "markdown" else {}
    names = names or {"first|P1": "first|P1", "samples\\_2": "samples_2"}
    assert set(rows) == set(names)
    labels = {"gca": "GCA", "jga": "JGA", "fga": "FGA", "sa": "SA", "aga": "AGA", "rsa": "RSA", "slot_f1": "Slot F1"}
    for shown_name, name in names.items():
        corpus = p1 if name == "first|P1" else samples
        scores = score(corpus).scores
        intervals = bootstrap_intervals(corpus, Options(), resamples=RESAMPLES, seed=5)
        for key, label in labels.items():
            value, interval = number_and_interval(rows[shown_name][label])
            assert value == round(100 * scores[key], 2)
            assert interval == (round(100 * intervals[key][0], 2), round(100 * intervals[key][1], 2))
        assert rows[shown_name]["Turns"] == str(scores.turns)
    assert rows["first|P1" if kind == "markdown" else "first|P1"]["GCA"].startswith("73.33")
    assert "seed:5" in text


def test_tables_without_intervals_have_no_brackets(samples):
    data = collect([("samples", samples)], resamples=0)
    rows = parse_markdown(markdown_table(data))
    assert number_and_interval(rows["samples"]["JGA"]) == (round(100 * score(samples).scores.jga, 2), None)
    assert "[" not in latex_table(data).split("\\midrule", 1)[1].split("\\bottomrule")[0]


# --------------------------------------------------------------------------------------------
# Command line


def test_command_writes_page_plots_and_table(tmp_path, capsys):
    page, plots = tmp_path / "report.html", tmp_path / "plots"
    status = main(["report", str(P1), str(P2), "-o", str(page), "--plots", str(plots), "--bootstrap", "50"])
    out = capsys.readouterr()
    assert status == 0, out.err
    text = page.read_text(encoding="utf-8")
    parsed = Page(text)
    assert cell_text(parsed, "metrics", "first_example_p1.json", "gca").startswith("73.33")
    assert cell_text(parsed, "metrics", "first_example_p2.json", "gca").startswith("15.49")
    assert "|ci:percentile,50,seed:0,level:0.95" in parsed.find("code", id="signature")[0]["text"]
    written = sorted(path.name for path in plots.iterdir())
    assert len(written) == 3 * len(figures_drawn(text))  # PNG, PDF and SVG
    assert all((plots / name).stat().st_size > 0 for name in written)
    assert {"figures.png", "figures.svg", "gca_vs_fga.svg", "mistakes_slot.png"} <= set(written)


def test_predictions_with_confidences_get_a_reliability_diagram(tmp_path, capsys):
    # examples/confidences.json carries confidences, P1 does not: one diagram, for the first system only.
    from dst_metrics.calibration.metrics import calibration

    confident = REPO / "examples" / "confidences.json"
    page, plots = tmp_path / "report.html", tmp_path / "plots"
    arguments = ["report", str(confident), str(P1), "-o", str(page), "--plots", str(plots), "--bootstrap", "0"]
    assert main(arguments) == 0, capsys.readouterr().err
    written = sorted(path.name for path in plots.iterdir() if path.name.startswith("reliability"))
    assert written == ["reliability-1.pdf", "reliability-1.png", "reliability-1.svg"]
    svg = (plots / "reliability-1.svg").read_text(encoding="utf-8")
    result = calibration(read(confident))
    bins = result.as_dict()["reliability"]["slot"]["width"]
    text = page.read_text(encoding="utf-8")  # the page's chart carries each bin's size
    counts = re.findall(r'class="reliability-bar"[^>]*data-count="(\d+)"', text)
    assert [int(c) for c in counts] == [int(b[2]) for b in bins]
    assert svg.startswith("<?xml")  # a file of its own
    text = page.read_text(encoding="utf-8")
    assert "Reliability of the confidences" in text and f"ECE {result.figures['slot_ece']:.4f}" in text
    assert "ECE (SLT 2024) 0.1800; AUROC (SLT 2024) 0.6250" in text  # the peer's 0.18 and 0.625


def test_command_prints_markdown(capsys):
    assert main(["report", str(P1), "--markdown", "--bootstrap", "0"]) == 0
    rows = parse_markdown(capsys.readouterr().out)
    assert rows["first_example_p1.json"]["GCA"] == "73.33"
    assert rows["first_example_p1.json"]["Turns"] == "3"


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["missing.json", "-o", "x.html"], "missing.json"),
        ([str(P1)], "nothing to write"),
        ([str(P1), "--markdown", "--name", "a", "--name", "b"], "--name is given 2 times for 1 file"),
        ([str(P1), "--markdown", "--bootstrap", "-3"], "--bootstrap"),
        ([str(P1), "--latex", "--markdown"], "--latex"),  # argparse's refusal, in its words (not read: issue 56)
        ([str(P1), "-o", "/nonexistent-folder/r.html", "--bootstrap", "0"], "/nonexistent-folder/r.html"),
    ],
)
def test_command_errors_are_one_line(arguments, message, capsys):
    try:
        status = main(["report", *arguments])
    except SystemExit as stop:  # argparse's own usage errors
        status = stop.code
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("dst-metrics: error:") and err.count("\n") == 1 and message in err, err


HEAVY_MODULES = ("matplotlib", "numpy", "dst_metrics.cli.score")


def test_version_imports_neither_matplotlib_nor_numpy_nor_the_commands():
    # `from dst_metrics.cli import main` is what the console script runs; the commands' modules are imported
    # only when one runs (a module __getattr__ once answered cli.__path__ by importing them all: 150 ms)
    code = (
        "import sys\nfrom dst_metrics.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert result.stdout.splitlines()[-1] == "[]"


def test_commands_defined_elsewhere_do_not_import_the_score_command():
    code = (
        "import sys\nfrom dst_metrics.cli import main\n"
        "try:\n    main(['dstc2', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('dst_metrics.cli.score', 'numpy') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert "--trackfile" in result.stdout and result.stdout.splitlines()[-1] == "[]"


# --------------------------------------------------------------------------------------------
# The T5 zero-shot files


@requires_shared
def test_t5_restaurant_against_a_copy_with_gold_in_ten_percent():
    restaurant = read(str(RESTAURANT))
    better = with_gold_in(restaurant)
    # 3,199 rounds (from 16 figures and level 0.05): the smallest adjusted p is 16/3200
    data = collect([("T5", restaurant), ("T5 + 10% gold", better)], resamples=1000, seed=0)
    page = Page(build_report(data, plots=[]))
    # published figures of the file (README, ../shared/reference): GCA 59.75, JGA 24.89, FGA 51.17
    for key, published in (("gca", "59.75"), ("jga", "24.89"), ("fga", "51.17")):
        assert cell_text(page, "metrics", "T5", key).startswith(published)
    expected = compare(restaurant, better, Options(), resamples=1000, seed=0, names=("T5", "T5 + 10% gold"))
    rows = {r["attrs"]["data-figure"]: r["attrs"] for r in page.find("tr") if "data-diff" in r["attrs"]}
    for key in ("gca", "jga", "fga"):
        assert float(rows[key]["data-diff"]) == pytest.approx(expected.figures[key].diff)
        assert float(rows[key]["data-diff"]) > 0 and rows[key]["data-significant"] == "true"
    assert page.find("p", data_a_only="0")  # the copy is right wherever the original is


@requires_shared
def test_t5_both_domains_side_by_side(tmp_path):
    page_path = tmp_path / "t5.html"
    assert main(["report", str(RESTAURANT), str(ATTRACTION), "-o", str(page_path), "--bootstrap", "100"]) == 0
    text = page_path.read_text(encoding="utf-8")
    page = Page(text)
    assert cell_text(page, "metrics", RESTAURANT.name, "jga").startswith("24.89")
    assert cell_text(page, "metrics", ATTRACTION.name, "jga").startswith("33.47")
    assert any(e["text"].startswith("Not compared") for e in page.find("p"))  # different gold
    assert len(figures_drawn(text)) == len(PLOTTERS) + 2 + 2


def test_converters_take_the_stats_objects_or_their_dicts(samples):
    from dst_metrics.report.data import dialogue_points, position_rows, zou_intervals
    from dst_metrics.stats import analyze, by_position

    profile, analysis = by_position(samples), analyze(samples)
    rows = position_rows(profile)
    assert rows == position_rows(profile.as_dict())
    # by hand (tests/samples.py): 2 dialogues of 3 turns. Dialogue 0 is right at index 0 only (stars 5, not 4,
    # from index 1 on); dialogue 1 is wrong at index 0 only (taxi-dest overshot; "5 pm" is acceptable later).
    assert [(r.position, r.turns, r.jga) for r in rows] == [(0, 2, 0.5), (1, 2, 0.5), (2, 2, 0.5)]
    assert sum(r.first_failures for r in rows) == 2  # both dialogues fail somewhere
    assert sum(r.correct + r.wrong + r.missed + r.overshot for r in rows) == sum(
        score(samples).scores[k] for k in ("correct", "wrong", "missed", "overshot")
    )
    points = dialogue_points(analysis)
    assert [p.dialogue_id for p in points] == ["0", "1"]
    assert [(p.gca, p.fga) for p in points] == [(p.gca, p.fga) for p in dialogue_points(analysis.as_dict())]
    assert zou_intervals(analysis).keys() == zou_intervals(analysis.as_dict()).keys() == {"to", "nu"}


def test_command_names_a_missing_plotting_library(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    assert main(["report", str(P1), "-o", "unused.html"]) == 2
    err = capsys.readouterr().err
    where = "." if Path.cwd().resolve() == REPO.resolve() else str(REPO)
    assert (
        err
        == f'dst-metrics: error: --output needs matplotlib, from the "report" extra: pip install -e "{where}[report]"\n'
    )
    assert not (REPO / "unused.html").exists()


@requires_shared
def test_paper_tables_mark_a_significant_difference_from_the_first_system():
    """Issue 23, item 10: the LaTeX and Markdown tables carry each figure's interval and mark with * a later
    system's figure that differs significantly from the first's (here: the gold itself against T5)."""
    from dst_metrics.corpus import Corpus, Dialogue
    from dst_metrics.report import collect
    from dst_metrics.report.tables import latex_table, markdown_table

    t5 = read(REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json")
    perfect = Corpus(tuple(Dialogue(d.dialogue_id, d.turn_ids, d.gold, d.gold) for d in t5.dialogues))
    data = collect([("T5", t5), ("gold", perfect)], None, resamples=200, seed=0)
    markdown, latex = markdown_table(data), latex_table(data)
    t5_row = next(line for line in markdown.splitlines() if line.startswith("| T5 |"))
    gold_row = next(line for line in markdown.splitlines() if line.startswith("| gold |"))
    assert "\\*" not in t5_row and "| 100.00\\* [100.00, 100.00] |" in gold_row  # JGA of gold: 100, marked
    assert gold_row.startswith("| gold | 99.33\\* [")  # official GCA of gold itself: quirk 1 (dst-metrics check)
    # issue 36: one correction over every test of the table (1 pair × 7 headline figures)
    assert "* differs from T5 at level 0.05 (paired randomization test, holm over every test of the table: m = 7)" in (
        markdown
    )
    assert "gold & 99.33* {\\scriptsize [" in latex and "100.00* {\\scriptsize [100.00, 100.00]}" in latex
