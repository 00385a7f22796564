"""The Space's pure functions (the `space` package) over the library's readers, options and figure
registry, no browser."""

from __future__ import annotations

import html
import itertools
import json
import re
from pathlib import Path

import pytest

from dst_metrics import InputError, OptionError, Options, score
from dst_metrics.cli import main
from dst_metrics.figures.registry import FIGURES, figure_keys, figure_labels
from dst_metrics.options import parse_alpha, parse_lambda, parse_mode, parse_num_slots, parse_value_matching
from dst_metrics.readers import READERS, detect, read
from dst_metrics.report import draw, palette, plots
from dst_metrics.space import explore as explore_module
from dst_metrics.space import exports, inputs, scored, style, views
from dst_metrics.space.examples import EXAMPLES
from dst_metrics.space.explore import (
    Exploration,
    compare_sets,
    correlation_rows,
    disagreement_rows,
    explore,
    pair_rows,
    scatter_html,
)
from dst_metrics.space.inputs import SetInput, read_prediction_sets
from dst_metrics.space.page import url_settings
from dst_metrics.states import Alternatives
from tests.samples import read_with_format

from .conftest import REFERENCE, REPO, requires_shared

FIRST = EXAMPLES["first_example"]


def reference_text(example, prediction: str) -> str:
    return json.dumps(example.reference_layout(prediction))


def jsonl_text(example, prediction: str, reverse: bool = False) -> str:
    lines = [
        json.dumps({"dialogue_id": example.dialogue_id, "turn_id": i, "gt": g, "pr": p})
        for i, (g, p) in enumerate(zip(example.gold, example.predictions[prediction], strict=True))
    ]
    return "\n".join(reversed(lines) if reverse else lines) + "\n"


def linearize_state(state: dict) -> str:
    """A normalized state in the linearized format (``slot=value; ...``, slots sorted, alternatives ``a|b``)."""
    values = {slot: "|".join(v.order) if isinstance(v, Alternatives) else v for slot, v in state.items()}
    return "; ".join(f"{slot}={values[slot]}" for slot in sorted(values))


def linearized_text(example, prediction: str) -> str:
    lines = ["# dialogue_id, turn_id, gold, prediction"]
    for i, (g, p) in enumerate(zip(example.gold, example.predictions[prediction], strict=True)):
        lines.append(f"{example.dialogue_id}\t{i}\t{linearize_state(g)}\t{linearize_state(p)}")
    return "\n".join(lines)


def shown(result: Exploration, key: str, name: str) -> str:
    """A figure of the set `name` as the page shows it."""
    return scored.figure_text(next(r for r in result.results if r.name == name), key)


def described(name: str) -> str:
    return READERS[name].description


# --------------------------------------------------------------------------------------------
# Reading the three layouts (dst_metrics.readers)


@pytest.mark.parametrize(
    "make, fmt",
    [(reference_text, "reference"), (jsonl_text, "jsonl"), (linearized_text, "linearized")],
)
def test_every_layout_gives_the_papers_first_example(make, fmt):
    for prediction, gca in (("P1", "73.33"), ("P2", "15.49")):
        text = make(FIRST, prediction)
        assert detect(text.encode("utf-8")) == fmt
        result = explore([(prediction, text)])
        assert result.ok, result.status
        assert result.results[0].layout == fmt
        assert shown(result, "gca", prediction) == gca


def test_layouts_build_the_same_corpus():
    expected = FIRST.corpus("P2")
    assert read(reference_text(FIRST, "P2").encode(), "reference") == expected
    assert read(jsonl_text(FIRST, "P2", reverse=True).encode(), "jsonl") == expected  # order does not matter
    assert read(linearized_text(FIRST, "P2").encode(), "linearized") == expected


def test_linearized_gold_alternatives_and_empty_states():
    text = "d1\t0\t\t\nd1\t1\thotel-area=centre|north\thotel-area=north\n"
    corpus = read(text.encode(), "linearized")
    dialogue = corpus.dialogues[0]
    assert dialogue.gold[0] == {} and dialogue.pred[0] == {}
    assert dialogue.gold[1] == {"hotel-area": frozenset({"centre", "north"})}
    result = explore([("A", text)])
    assert shown(result, "gca", "A") == "100.00"


def test_jsonl_states_may_be_linearized_strings():
    text = '{"dialogue_id": "d1", "turn_id": 0, "gt": "hotel-area=north", "pr": {"hotel": {"area": "north"}}}'
    corpus, used = read_with_format(text.encode())
    assert used == "jsonl"
    assert corpus.dialogues[0].gold[0] == corpus.dialogues[0].pred[0] == {"hotel-area": "north"}


@pytest.mark.parametrize(
    "text, fmt",
    [
        ('{"d": {"0": {"gt": {}, "pr": {}}}}', "reference"),
        ('{\n  "d": {"0": {"gt": {}, "pr": {}}}\n}', "reference"),
        ('{"dialogue_id": "d", "turn_id": 0, "gt": {}, "pr": {}}', "jsonl"),
        ("d\t0\ta=b\ta=b", "linearized"),
        ("{not json", "reference"),
    ],
)
def test_detect_format(text, fmt):
    assert detect(text.encode()) == fmt


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("[1, 2]", ["closest to the reference layout JSON", "JSON array"]),
        ("d\t0\ta=b", ["closest to linearized lines", "3 TAB-separated fields, not 4"]),
    ],
)
def test_detection_names_the_closest_format(text, fragments):
    with pytest.raises(InputError) as caught:
        detect(text.encode())
    for fragment in fragments:
        assert fragment in str(caught.value)
    result = explore([("P1", text)])
    assert not result.ok and result.status.startswith("Prediction set A 'P1': the data looks closest to")


@pytest.mark.parametrize(
    "text, fmt, fragments",
    [
        ('{"MUL0003": {"0": ', "auto", ["not valid JSON"]),
        ('{"MUL0003": {"0": {"gt": ]}}}', "auto", ["not valid JSON", "line 1, column 26"]),
        ("", "auto", ["the input is empty"]),
        ("  \n", "auto", ["only white space"]),
        ("[]", "reference", ["expected an object", "got an array"]),
        ('{"d": {"0": {"gt": {}}}}', "reference", ['dialogue "d", turn 0, field pr:', "the turn has no pr"]),
        ('{"dialogue_id": "d", "turn_id": 0, "gt": {}}', "jsonl", ["line 1, field pr:", "no pr"]),
        (
            '{"dialogue_id": "d", "turn_id": 0, "gt": {}, "pr": {}}\n{"dialogue_id": "d", "turn_id": 0, "gt": {},'
            ' "pr": {}}',
            "jsonl",
            ['line 2, dialogue "d", turn 0:', "already given on line 1"],
        ),
        ('{"dialogue_id": "d", "turn_id": "x", "gt": {}, "pr": {}}', "jsonl", ["line 1", "field turn_id:", '"x"']),
        ('{"dialogue_id": "d", "turn_id": 0, "gt": {}, "pr": {}}\n{oops', "jsonl", ["line 2", "not valid JSON"]),
        ("d\t0\ta=b", "linearized", ["line 1", "4 TAB-separated fields", "found 3"]),
        ("d\tx\ta=b\ta=b", "linearized", ['line 1, dialogue "d", field turn_id:', "turn id", '"x"']),
        ("d\t0\tnoequals\ta=b", "linearized", ['line 1, dialogue "d", turn 0, field gt:', "malformed entry"]),
        ("# only a comment\n\n", "linearized", ["no turn"]),
        ('{"d": {"0": {"gt": {"hotel-area": 5.5j}, "pr": {}}}}', "auto", ["not valid JSON"]),
        ('{"d": {"0": {"gt": {}, "pr": {"hotel": {"area": []}}}}}', "auto", ["turn 0, field pr.hotel.area:"]),
    ],
)
def test_bad_input_names_the_problem(text, fmt, fragments):
    with pytest.raises(InputError) as caught:
        read_with_format(text.encode(), fmt, name="Prediction set A 'P1'")
    message = str(caught.value)
    assert message.startswith("Prediction set A 'P1'")
    for fragment in fragments:
        assert fragment in message
    result = explore([("P1", text)], fmt=fmt)  # the page shows the same message
    assert not result.ok
    for fragment in fragments:
        assert fragment in result.status


def test_ids_follow_the_librarys_rules():
    """A turn id given as a string of digits and an integer dialogue id are accepted."""
    text = '{"dialogue_id": 7, "turn_id": "0", "gt": {}, "pr": {}}'
    result = explore([("P1", text)])
    assert result.ok, result.status
    assert result.dialogue_ids == ["7"]


def test_explore_reports_bad_input_in_the_status_and_never_raises():
    result = explore([("P1", '{"MUL0003": {"0": ')])
    assert not result.ok
    assert result.status.startswith(f"Prediction set A 'P1' (read as {described('reference')}, auto-detected): ")
    assert "not valid JSON" in result.status
    chosen = explore([("P1", '{"MUL0003": {"0": ')], fmt="reference")
    assert chosen.status.startswith(f"Prediction set A 'P1' (read as {described('reference')}): ")
    html = views.status_html(result.status, False)
    assert "Could not score this input" in html and "Traceback" not in html
    for garbage in ("}", "\t\t\t", "{}", "null", '{"d": []}', '{"d": {"x": {"gt": {}, "pr": {}}}}', "ä\x00"):
        assert not explore([("A", garbage)]).ok


@pytest.mark.parametrize(
    "option, value, parse",
    [
        ("alpha", "ten", parse_alpha),
        ("alpha", "1/0", parse_alpha),
        ("alpha", "3/2", parse_alpha),
        ("fga_lambda", 0, parse_lambda),
        ("fga_lambda", None, parse_lambda),  # an emptied gradio Number
        ("fga_lambda", float("nan"), parse_lambda),
        ("num_slots", 2.5, parse_num_slots),
        ("num_slots", float("inf"), parse_num_slots),
        ("num_slots", None, parse_num_slots),
        ("num_slots", 0, parse_num_slots),
        ("mode", "strict", parse_mode),
        ("value_matching", "phonetic", parse_value_matching),
    ],
)
def test_bad_options_are_reported_in_the_librarys_words(option, value, parse):
    with pytest.raises(OptionError) as caught:
        parse(value)
    result = explore([("P1", reference_text(FIRST, "P1"))], **{option: value})
    assert not result.ok
    assert result.status == str(caught.value)


def test_other_bad_choices_are_reported():
    result = explore([("P1", reference_text(FIRST, "P1"))], fmt="xml")
    assert not result.ok and f"format must be one of {', '.join(('auto', *READERS))}; got 'xml'" in result.status
    result = explore([("P1", reference_text(FIRST, "P1"))], num_slots=2)  # fewer than a turn's slots
    assert not result.ok and "K must be at least" in result.status


def test_read_settings_builds_the_librarys_options():
    assert inputs.read_settings("official", "10/11", 0.5, 30.0, "exact") == Options()  # gradio gives floats
    options = inputs.read_settings("corrected", " 0.5 ", 1, 5, "normalized")
    assert (options.mode, options.alpha, options.fga_lambda, options.num_slots) == ("corrected", 0.5, 1.0, 5)
    assert isinstance(options.num_slots, int) and options.value_matching == "normalized"


def labels(options: Options) -> dict[str, str]:
    return {row.key: row.label for row in scored.metric_rows(options)}


def test_options_reach_the_figures_and_the_signature():
    result = explore([("P1", reference_text(FIRST, "P1"))], alpha="10/11", fga_lambda=1.0, num_slots=10)
    signature = result.results[0].report.signature
    assert "|mode:official|alpha:10/11|lambda:1|K:10|match:exact" in signature
    assert signature.replace("|", "|<wbr>") in result.signature  # a narrow page breaks it at a bar
    assert signature == result.options.signature()
    assert labels(result.options)["fga"] == "FGA (λ=1)" and labels(result.options)["sa"] == "SA (K=10)"
    assert shown(result, "fga", "P1") == shown(result, "fga@1.0", "P1")
    corrected = explore([("P1", reference_text(FIRST, "P1"))], mode="corrected")
    assert "mode:corrected" in corrected.results[0].report.signature


# --------------------------------------------------------------------------------------------
# The figure registry (dst_metrics.figures.registry) drives every table and the chart


def test_the_tables_show_every_registered_figure():
    result = explore([("P1", reference_text(FIRST, "P1"))])
    rows = scored.metric_rows(result.options)
    keys = figure_keys(Options())
    assert "turns" in keys and "fga@0.25" in keys and "correct" in keys
    assert [row.key for row in rows if row.key != "dialogues"] == keys  # every key, in registry order
    assert shown(result, "dialogues", "P1") == "1" and shown(result, "turns", "P1") == "3"
    registry = figure_labels(Options())
    for key in keys:
        if key not in ("fga", "sa"):  # the page names their option: FGA (λ=0.5), SA (K=30)
            assert labels(result.options)[key] == registry[key]
    assert labels(result.options)["fga@0.25"] == "FGA λ=0.25"
    scores = result.results[0].report.scores
    assert shown(result, "fga@0.25", "P1") == draw.pct(scores.fga_grid[0.25])
    assert shown(result, "correct", "P1") == str(scores.correct) == "5"


def test_each_registry_group_is_one_table_with_the_registrys_descriptions():
    result = explore([("P1", reference_text(FIRST, "P1"))])
    tables = {"main": result.metrics.split("</table>")[0], "counts": result.metrics.split("</table>")[1]}
    tables["detail"] = result.details
    seen = []
    for figure in FIGURES:
        for key in figure.keys(result.options):
            cell = f'<td data-metric="{key}" data-set="P1">'
            assert cell in tables[figure.group], (key, figure.group)
            assert sum(cell in table for table in tables.values()) == 1
            seen.append(key)
        assert f'title="{html.escape(figure.description, quote=True)}"' in tables[figure.group]
    assert seen == figure_keys(result.options)
    assert 'id="metrics-main"' in tables["main"] and "Metric (%)" in tables["main"]
    assert "GCA counts<" in tables["counts"]
    assert "More figures (% or count)" in tables["detail"]  # turns is a count among rates


def test_a_custom_lambda_grid_gives_its_own_rows():
    sets = inputs.read_prediction_sets([SetInput("P1", reference_text(FIRST, "P1"))])
    options = Options(fga_lambdas=(0.1, 2))
    results = scored.score_sets(sets, options)
    keys = [row.key for row in scored.metric_rows(options)]
    assert {"fga@0.1", "fga@2.0"} <= set(keys) and "fga@0.25" not in keys
    assert labels(options)["fga@2.0"] == "FGA λ=2.0"
    assert views.signature_line(results[0].report.signature, "signature").count("lambdas:0.1,2") == 1


def test_the_format_choices_come_from_the_readers():
    assert inputs.format_label("auto") == "auto-detect"
    for name, reader in READERS.items():
        assert inputs.format_label(name) == reader.description
        assert f"(`{name}`)" in style.format_help()


# --------------------------------------------------------------------------------------------
# Several prediction sets


def test_the_papers_examples_side_by_side():
    first = inputs.example_input("first_example")
    result = explore(first.sets)
    assert [r.name for r in result.results] == ["P1", "P2"]
    assert (shown(result, "gca", "P1"), shown(result, "gca", "P2")) == ("73.33", "15.49")
    assert (shown(result, "jga", "P1"), shown(result, "jga", "P2")) == ("0.00", "33.33")
    assert (shown(result, "correct", "P1"), shown(result, "wrong", "P2")) == ("5", "6")
    table = views.metrics_html(result.results, result.options)
    assert '<td data-metric="gca" data-set="P1">73.33</td>' in table
    assert '<td data-metric="gca" data-set="P2">15.49</td>' in table

    result = explore(inputs.example_input("hypothetical").sets)
    expected = {
        "gca": ("52.38", "52.38"),
        "jga": ("83.33", "0.00"),
        "fga": ("83.33", "59.75"),
        "rsa": ("91.67", "8.33"),
    }
    for key, values in expected.items():
        assert (shown(result, key, "P1"), shown(result, key, "P2")) == values

    mul1110 = inputs.example_input("mul1110")
    assert len(mul1110.sets) == 1
    result = explore(mul1110.sets)
    assert (shown(result, "gca", "prediction"), shown(result, "fga", "prediction")) == ("31.43", "48.84")


def bars(svg: str) -> list[tuple[str, str, float, float, str]]:
    """(metric, set, value, drawn length in percent of the plot area, fill) of every bar, in drawing order."""
    area = re.search(r'class="plot-area">\s*<path d="M ([\d.]+) [\d.]+ \s*L ([\d.]+) ', svg)
    width = float(area[2]) - float(area[1])
    found = re.findall(
        r'class="bar" data-metric="([^"]+)" data-set="([^"]+)" data-value="([\d.]+)">\s*'
        r'<path d="M ([\d.]+) [\d.]+ \s*L ([\d.]+) [^"]*"[^>]*style="fill: (#[0-9a-f]+)', svg
    )  # fmt: skip
    return [(m, name, float(v), (float(x1) - float(x0)) / width * 100, fill) for m, name, v, x0, x1, fill in found]


def test_the_chart_draws_the_tables_figures_in_table_order():
    first = inputs.example_input("first_example")
    result = explore([("zeta", first.sets[0][1]), ("alpha", first.sets[1][1])])
    drawn = bars(result.bars)
    main = [figure.key for figure in FIGURES if figure.group == "main" and not figure.is_count]
    assert [(m, s) for m, s, *_ in drawn] == [(key, name) for key in main for name in ("zeta", "alpha")]
    for metric, name, value, length, _ in drawn:
        assert f"{value:.2f}" == shown(result, metric, name)
        assert length == pytest.approx(value, abs=0.01)  # on the 0-100 axis
    assert ("gca", "zeta", 73.33) == drawn[0][:3]
    # each set keeps its colour by position, whatever its name
    assert {(name, fill) for _, name, _, _, fill in drawn} == {
        ("zeta", palette.system_color(0).lower()), ("alpha", palette.system_color(1).lower())
    }  # fmt: skip


def test_scatter_draws_y_equals_x_and_keeps_points_inside():
    points = [plots.Point(100, 100, 0, "A", "d1"), plots.Point(0, 0, 1, "B", "d2")]
    svg = scatter_html("test", points, "FGA (%)", "GCA (%)", ["A", "B"], "test")
    view = [float(v) for v in re.search(r'viewBox="([\d. ]+)"', svg)[1].split()]
    line = re.search(r'class="diagonal">\s*<path d="M ([\d.]+) ([\d.]+) \s*L ([\d.]+) ([\d.]+)', svg)
    x1, y1, x2, y2 = (float(v) for v in line.groups())
    assert x2 - x1 == pytest.approx(y1 - y2, abs=0.01) and x2 > x1  # y = x on equal axes
    drawn = re.findall(r'data-dialogue="(d\d)"[^>]*>\s*<use xlink:href="#([^"]+)" x="([\d.]+)" y="([\d.]+)"', svg)
    assert [d for d, *_ in drawn] == ["d1", "d2"] and drawn[0][1] != drawn[1][1]  # sets differ in shape
    for _, _, x, y in drawn:
        assert 5 <= float(x) <= view[2] - 5 and 5 <= float(y) <= view[3] - 5  # drawn whole
    (high,) = [(float(x), float(y)) for d, _, x, y in drawn if d == "d1"]
    assert high == pytest.approx((x2, y2), abs=0.01)  # (100, 100) is the diagonal's end


def test_a_set_that_does_not_match_the_first_is_left_out_with_the_reason():
    """A stale set B never blocks a new set A (issue 23, item 8): A is scored alone, and the page says
    why B is left out; the library's reading of several sets still refuses them."""
    p1 = reference_text(FIRST, "P1")
    other = json.dumps({"OTHER": FIRST.reference_layout("P2")["MUL0003"]})
    result = explore([("P1", p1), ("P2", other)])
    assert result.ok and [r.name for r in result.results] == ["P1"]
    assert "Set B ('P2') is left out: 'P1' and 'P2' do not cover the same dialogues" in result.status
    with pytest.raises(InputError, match="do not cover the same dialogues"):
        read_prediction_sets([SetInput("P1", p1), SetInput("P2", other)])
    assert "only in 'P1': ['MUL0003']" in result.status and "only in 'P2': ['OTHER']" in result.status

    short = FIRST.reference_layout("P2")
    del short["MUL0003"]["2"]
    result = explore([("P1", p1), ("P2", json.dumps(short))])
    assert "different turns" in result.status and "[0, 1, 2]" in result.status

    changed_gold = FIRST.reference_layout("P2")
    changed_gold["MUL0003"]["1"]["gt"] = {"hotel-internet": "no"}
    result = explore([("P1", p1), ("P2", json.dumps(changed_gold))])
    assert "gold state differs" in result.status and "turn 1" in result.status

    same_name = explore([("P", p1), ("P", reference_text(FIRST, "P2"))])
    assert [r.name for r in same_name.results] == ["P", "P (B)"]


def test_a_third_and_fourth_set_and_an_empty_b():
    p1, p2 = reference_text(FIRST, "P1"), reference_text(FIRST, "P2")
    result = explore([("A", p1), ("", ""), ("C", p2), ("D", linearized_text(FIRST, "P1"))])
    assert result.ok, result.status
    assert [r.name for r in result.results] == ["A", "C", "D"]  # the empty B is left out
    assert [shown(result, "gca", n) for n in ("A", "C", "D")] == ["73.33", "15.49", "73.33"]
    assert len(bars(result.bars)) == 3 * 7
    # one dialogue: no interval or p-value (the bootstrap resamples dialogues), a note instead
    assert "One dialogue cannot be tested" in compare_sets(result) and not result.comparisons
    texts = [_all_text(0), "", _all_text(1), _all_text(0)]
    several = explore([(name, text) for name, text in zip("ABCD", texts)])
    table = compare_sets(several)  # each later set against A
    assert "<h3>C against A</h3>" in table and "<h3>D against A</h3>" in table
    assert [c.names for c in several.comparisons] == [("A", "C"), ("A", "D")]
    assert several.comparisons[1].figures["gca"].diff == 0  # D holds A's predictions
    expected = score(read(_all_text(1))).scores.gca - score(read(_all_text(0))).scores.gca
    assert several.comparisons[0].figures["gca"].diff == pytest.approx(expected)


def _all_text(side: int) -> str:
    """The three paper dialogues in one reference layout, each with its first (0) or last (1) prediction."""
    layout = {}
    for example in EXAMPLES.values():
        names = list(example.predictions)
        layout.update(example.reference_layout(names[min(side, len(names) - 1)]))
    return json.dumps(layout)


def test_second_set_may_use_another_layout():
    result = explore([("P1", reference_text(FIRST, "P1")), ("P2", linearized_text(FIRST, "P2"))])
    assert result.ok, result.status
    assert [shown(result, "gca", n) for n in ("P1", "P2")] == ["73.33", "15.49"]
    assert f"P1 read as {described('reference')}; P2 read as {described('linearized')}." in result.status


def test_comparison_of_a_and_b_is_the_librarys():
    from dst_metrics.stats import compare
    from dst_metrics.stats.paired import FloorWarning

    combined = inputs.example_input(inputs.ALL_EXAMPLES)
    result = explore(combined.sets)
    table = compare_sets(result)
    with pytest.warns(FloorWarning, match="with 3 dialogues only 8 patterns of swaps exist"):
        expected = compare(result.results[0].corpus, result.results[1].corpus, result.options, names=("P1", "P2"))
    assert "with 3 dialogues only 8 patterns of swaps exist" in table  # shown on the page
    for key in ("gca", "jga", "fga"):
        diff = expected.figures[key]
        row = table.split(f'<tr data-metric="{key}"')[1].split("</tr>")[0]
        assert f"{100 * diff.diff:+.2f}" in row and f"[{100 * diff.ci[0]:+.2f}, {100 * diff.ci[1]:+.2f}]" in row
    assert result.comparison.as_dict() == expected.as_dict()
    assert "p (holm, m = 16 figures)" in table  # the family's size next to the adjusted p (issue 19)
    # per dialogue, B − A, the largest |GCA difference| first: MUL0003 (15.49 − 73.33) leads
    rows = pair_rows(result.results[0], result.results[1], 10)
    assert rows[0] == ("MUL0003", ["MUL0003", "73.33", "15.49", "-57.84", "+33.33", "+20.22"])
    assert [dialogue for dialogue, _ in rows] == ["MUL0003", "SNG0779", "MUL1110"]
    assert 'data-dialogue="SNG0779"' in result.pair_scatter and 'class="diagonal"' in result.pair_scatter


# --------------------------------------------------------------------------------------------
# Any data in: uploads, gold for one-sided formats, limits


def test_an_uploaded_file_names_its_set_and_the_command(tmp_path):
    path = tmp_path / "t5_restaurant.tsv"
    path.write_text(linearized_text(FIRST, "P1"), encoding="utf-8")
    result = explore([SetInput("", "", str(path), path.name)])
    assert [r.name for r in result.results] == ["t5_restaurant"]
    assert shown(result, "gca", "t5_restaurant") == "73.33"
    assert result.command.startswith("dst-metrics score t5_restaurant.tsv --mode official")
    typed = explore([SetInput("mine", "", str(path), path.name)])
    assert [r.name for r in typed.results] == ["mine"]  # a typed name wins


def test_gold_upload_pairs_predictions_only_formats():
    gold_file = REPO / "tests" / "fixtures" / "sgd" / "sgd_gold" / "dialogues_001.json"
    pred_file = REPO / "tests" / "fixtures" / "sgd" / "sgd_pred" / "dialogues_001.json"
    entry = SetInput("sgd", "", str(pred_file), pred_file.name)
    alone = explore([entry])
    assert not alone.ok and "holds predictions only" in alone.status and "'Gold'" in alone.status
    result = explore([entry], gold=SetInput("gold", "", str(gold_file), gold_file.name))
    assert result.ok, result.status
    expected = score(read(pred_file, gold=gold_file)).scores
    assert shown(result, "gca", "sgd") == draw.pct(expected.gca)
    assert shown(result, "jga", "sgd") == draw.pct(expected.jga)
    assert "--gold dialogues_001.json" in result.command


def test_limits_give_readable_errors(tmp_path):
    deep = '{"d": {"0": {"gt": ' + "[" * 100000 + "]" * 100000 + ', "pr": {}}}}'
    result = explore([("A", "x" * 10 + deep)])  # not valid JSON at the start: the reader says so
    assert not result.ok
    path = tmp_path / "deep.json"
    path.write_text(deep, encoding="utf-8")
    result = explore([SetInput("", "", str(path), path.name)])
    assert not result.ok and "nested too deeply" in result.status and "Prediction set A 'deep'" in result.status
    big = "d\t0\ta=b\ta=b\n" * (inputs.MAX_PASTE_BYTES // 12 + 1)
    result = explore([("A", big)])
    assert not result.ok and "upload it as a file instead" in result.status
    result = explore([SetInput("A", "", str(tmp_path / "gone.json"), "gone.json")])
    assert not result.ok and "upload it again" in result.status


# --------------------------------------------------------------------------------------------
# Take it away


def test_the_command_and_the_snippet_reproduce_the_figures(tmp_path, capsys, monkeypatch):
    combined = inputs.example_input(inputs.ALL_EXAMPLES)
    result = explore(combined.sets, mode="corrected", alpha="0.8", fga_lambda=0.75, num_slots=12)
    for (_, text), name in zip(combined.sets, exports.file_names(result.results)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    score_line, compare_line = result.command.splitlines()  # the figures, then B against A
    words = score_line.split()
    assert words[:4] == ["dst-metrics", "score", "set_a.json", "set_b.json"]
    assert compare_line.split()[:4] == ["dst-metrics", "compare", "set_a.json", "set_b.json"]
    assert main([*compare_line.split()[1:], "--json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    compare_sets(result)
    assert compared["figures"]["gca"]["diff"] == pytest.approx(result.comparison.figures["gca"].diff)
    assert main([*words[1:], "--json"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for record, scored_set in zip(printed, result.results):
        assert record["signature"] == scored_set.report.signature == result.options.signature()
        for key in ("gca", "jga", "fga", "sa", "aga", "rsa", "slot_f1"):
            assert record[key] == scored_set.report.scores[key]
    snippet = result.snippet.split("# the difference")[0]
    exec(compile(snippet, "snippet", "exec"), {})  # runs in tmp_path: reads the same files
    out = capsys.readouterr().out
    assert f"'gca': {round(100 * result.results[0].report.scores.gca, 2)}" in out
    assert result.options.signature() in out


def test_downloads_hold_the_figures(tmp_path):
    combined = inputs.example_input(inputs.ALL_EXAMPLES)
    result = explore(combined.sets)
    written = exports.write_downloads(result.results, result.options, folder=str(tmp_path / "downloads"))
    paths = {p.rsplit("/", 1)[1]: p for p in written}
    assert {"figures.csv", "figures.json", "dialogues.csv", "dialogues.json", "table.md", "table.tex"} <= set(paths)
    assert "model-index.yaml" in paths
    _check_model_index(paths["model-index.yaml"], result.results)
    figures = json.loads(open(paths["figures.json"], encoding="utf-8").read())
    assert figures["sets"][1]["gca"] == result.results[1].report.scores.gca
    csv_lines = open(paths["dialogues.csv"], encoding="utf-8").read().splitlines()
    assert len(csv_lines) == 1 + 2 * 3 and csv_lines[0].startswith("set,dialogue_id,gca")
    markdown = open(paths["table.md"], encoding="utf-8").read()
    assert "| P1 | 59.91 [" in markdown and result.options.signature() in markdown  # with its interval
    report = open(paths["report.html"], encoding="utf-8").read()  # dst_metrics.report's page
    assert f'data-figure="gca" data-value="{result.results[0].report.scores.gca!r}"' in report
    latex = open(paths["table.tex"], encoding="utf-8").read()
    assert r"P1 & 59.91 {\scriptsize [" in latex
    assert not any("\\*" in line for line in markdown.splitlines() if line.startswith("| P"))  # 3 dialogues: none


def _check_model_index(path: str, results: list) -> None:
    """model-index.yaml: a card's metadata per set, read back by huggingface_hub, each headline figure's value and
    the set's signature (dst_metrics.model_card)."""
    hub = pytest.importorskip("huggingface_hub", reason="the space extra installs huggingface_hub")
    import yaml

    documents = list(yaml.safe_load_all(open(path, encoding="utf-8").read()))
    assert len(documents) == len(results)
    headline = [figure.key for figure in FIGURES if figure.group == "main" and not figure.is_count]
    for document, result in zip(documents, results):
        card = hub.ModelCardData(**document)
        assert card.model_name == result.name
        assert {r.metric_type: r.metric_value for r in card.eval_results} == {
            key: result.report.scores[key] for key in headline
        }
        assert {r.metric_config for r in card.eval_results} == {result.report.signature}
        assert {(r.dataset_type, r.dataset_split) for r in card.eval_results} == {("DATASET", "SPLIT")}


def test_url_settings():
    settings = url_settings({"example": "mul1110", "mode": "corrected", "alpha": "0.9", "k": "12", "unchanged": "1"})
    assert settings == {
        "example": "mul1110",
        "mode": "corrected",
        "alpha": "0.9",
        "lambda": 0.5,
        "k": 12.0,
        "match": "exact",
        "unchanged": True,
        "dialogue": None,
        "compat": "",
    }
    assert url_settings({"compat": "fnctod"})["compat"] == "fnctod"
    assert url_settings({"compat": "sgd"})["compat"] == ""  # the page offers no profile that needs SGD files
    odd = url_settings({"example": "<script>", "mode": "strict", "k": "many", "match": "phonetic"})
    assert (odd["example"], odd["mode"], odd["k"], odd["match"]) == ("first_example", "official", 30, "exact")


# --------------------------------------------------------------------------------------------
# The per-turn view


def test_slot_view_colours_each_count_type_and_lines_sets_up():
    first = inputs.example_input("first_example")
    result = explore(first.sets)
    page = result.slots
    assert "Dialogue <b>MUL0003</b>" in page
    assert page.count('data-kinds="wrong"') == 2 + 6  # P1: internet, parking; P2: parking and five slots
    assert page.count('data-kinds="correct"') == 5 + 1
    assert "(correct 5 · wrong 2 · missed 0 · overshot 0)" in page
    assert "(correct 1 · wrong 6 · missed 0 · overshot 0)" in page
    assert "GCA 73.33 · JGA 0.00 · FGA 13.12" in page  # the dialogue's own figures
    for kind, (background, _, _) in views.COUNT_STYLES.items():
        assert f"background:{background}" in page  # the legend shows every colour
        assert kind in page
    assert "chip-unchanged" not in page.split("<tbody>")[1]
    assert page.count('<tr class="turn-start"') == 3  # one row group per turn, both sets in each row
    with_unchanged = views.slot_view_html(result.results, "MUL0003", "official", True)
    assert with_unchanged.count('data-kinds=""') == 2 * 3  # internet and parking carried over, twice


def test_slot_view_marks_quiet_turns_and_escapes_names():
    text = json.dumps({"<b>x</b>": {"0": {"gt": {"a-b": "<i>"}, "pr": {}}, "1": {"gt": {"a-b": "<i>"}, "pr": {}}}})
    result = explore([("<s>", text)])
    assert "&lt;b&gt;x&lt;/b&gt;" in result.slots and "<b>x</b>" not in result.slots
    assert "&lt;i&gt;" in result.slots and "&lt;s&gt;" in result.metrics
    assert 'class="no-change">no change<' in result.slots  # turn 1 changes nothing
    assert 'data-kinds="missed"' in result.slots


def test_official_quirk_shows_two_count_types():
    gold = [{"hotel-area": "north"}, {}]
    text = json.dumps({"d": {str(i): {"gt": g, "pr": g} for i, g in enumerate(gold)}})
    official = explore([("A", text)])
    assert 'data-kinds="correct missed"' in official.slots  # quirk 1
    corrected = explore([("A", text)], mode="corrected")
    assert 'data-kinds="correct missed"' not in corrected.slots


def _relative_luminance(color: str) -> float:
    def linear(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(color[i : i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _lab_under(color: str, matrix) -> tuple[float, float, float]:
    """CIE L*a*b* of `color` as seen with a colour-vision deficiency (Machado et al. 2009)."""

    def linear(c: int) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    rgb = [linear(int(color[i : i + 2], 16)) for i in (1, 3, 5)]
    r, g, b = (min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb, strict=True)))) for row in matrix)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


VISION = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.01182, 0.04294, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.3039)),
}


def test_count_colours_are_readable_and_distinguishable():
    for kind, (background, text, symbol) in views.COUNT_STYLES.items():
        light, dark = sorted((_relative_luminance(background), _relative_luminance(text)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5, kind  # WCAG AA for normal text
        assert symbol
    for vision, matrix in VISION.items():
        for a, b in itertools.combinations(views.COUNT_STYLES, 2):
            la, lb = _lab_under(views.COUNT_STYLES[a][0], matrix), _lab_under(views.COUNT_STYLES[b][0], matrix)
            distance = sum((x - y) ** 2 for x, y in zip(la, lb, strict=True)) ** 0.5
            assert distance > 20, (vision, a, b, distance)  # CIE76 ΔE: clearly different


# --------------------------------------------------------------------------------------------
# Per-dialogue GCA vs FGA (section 5.2)


def test_single_dialogue_has_no_per_dialogue_analysis():
    first = inputs.example_input("first_example")
    result = explore(first.sets[:1])
    assert result.dialogue_rows is None and result.disagreements == "" and result.pair_table == ""
    assert "needs several" in style.analysis_note(result)


def test_disagreement_table_of_the_three_paper_dialogues():
    combined = inputs.example_input(inputs.ALL_EXAMPLES)
    result = explore(combined.sets)
    assert result.ok and result.dialogue_ids == ["MUL0003", "SNG0779", "MUL1110"]
    table = disagreement_rows(result.dialogue_rows)
    assert table[0] == ("MUL0003", ["P1", "MUL0003", "3", "2", "73.33", "13.12", "-60.22", "-0.17", "2.00"])
    assert table[1][1][:2] + table[1][1][4:7] == ["P1", "SNG0779", "52.38", "83.33", "+30.95"]
    gaps = [abs(float(cells[6])) for _, cells in table]
    assert gaps == sorted(gaps, reverse=True) and len(table) == 6
    assert len(disagreement_rows(result.dialogue_rows, top=2)) == 2
    assert '<tr class="clickable" tabindex="0" data-dialogue="SNG0779">' in result.disagreements
    assert result.dialogue_id == "MUL0003" and "Dialogue <b>MUL0003</b>" in result.slots
    chosen = explore(combined.sets[:1], dialogue_id="SNG0779")
    assert chosen.dialogue_id == "SNG0779" and "Dialogue <b>SNG0779</b>" in chosen.slots
    assert explore(combined.sets[:1], dialogue_id="nope").dialogue_id == "MUL0003"
    assert 'data-dialogue="MUL0003" data-set="P2" data-x="33.33" data-y="15.49"' in result.scatter
    columns, correlations = correlation_rows(result.results, result.dialogue_rows)
    assert columns == ["P1", "P2", "GCA paper"]
    assert [values[-1] for _, values in correlations] == [0.08, -0.05, 0.59, 0.40]
    assert '<th scope="row">NU vs FGA</th>' in result.correlations
    # the first example's P1 counts as in the single-dialogue run
    assert result.results[0].report.dialogues["MUL0003"].gca == pytest.approx(0.7333, abs=5e-5)


@requires_shared
def test_real_corpus_reproduces_published_figures_and_lists_disagreements():
    path = next((REFERENCE / "t5_zeroshot" / "predictions").glob("*attraction*.json"))
    published = json.loads((REFERENCE / "t5_zeroshot" / "published" / path.name).read_text())
    result = explore([SetInput("", "", str(path), path.name)], top=20)
    assert result.ok, result.status
    name = path.stem
    assert shown(result, "gca", name) == f"{published['GCA']:.2f}"
    assert shown(result, "jga", name) == f"{published['JGA']:.2f}"
    assert shown(result, "fga", name) == f"{published['FGA_0.5']:.2f}"
    assert shown(result, "rsa", name) == f"{published['RSA']:.2f}"
    table = disagreement_rows(result.dialogue_rows, 20)
    assert len(result.dialogue_ids) == 395 and len(table) == 20
    gaps = [abs(float(cells[6])) for _, cells in table]
    assert gaps == sorted(gaps, reverse=True)
    assert gaps[0] == pytest.approx(100 * max(abs(r["FGA - GCA"]) for r in result.dialogue_rows), abs=0.006)


def test_every_example_choice_loads_and_scores():
    for _, key in inputs.EXAMPLE_CHOICES:
        chosen = inputs.example_input(key)
        assert json.loads(chosen.sets[0][1])  # the boxes hold valid reference layout JSON
        result = explore(chosen.sets)
        assert result.ok, (key, result.status)
    assert "GCA 73.33" in inputs.example_input("first_example").description


# --------------------------------------------------------------------------------------------
# Confidence-scored predictions (dst_metrics.calibration)


def test_confidences_give_the_calibration_figures_and_a_reliability_diagram(tmp_path):
    from dst_metrics.calibration.metrics import calibration
    from dst_metrics.readers import read

    chosen = inputs.example_input(inputs.CONFIDENCES)
    result = explore(chosen.sets)
    assert result.ok, result.status
    expected = calibration(read(inputs.CONFIDENCES_FILE))
    for key in ("slot_acc", "slot_ece", "joint_brier", "joint_auroc", "slt2024_ece", "slt2024_auroc"):
        assert f'data-metric="{key}" data-set="scored">{expected.figures[key]:.2f}</td>' in result.calibration
    # SLT 2024's figures (the peer's printed 0.18, 0.625: tests/test_calibration_slt2024.py), titled with the signature
    assert (expected.figures["slt2024_ece"], expected.figures["slt2024_auroc"]) == (0.18000000000000005, 0.625)
    assert ">ECE (SLT 2024)</th>" in result.calibration and "(signature: slt2024|bins:10)" in result.calibration
    bins = expected.as_dict()["reliability"]["slot"]["width"]
    assert result.calibration.count('class="reliability-bar"') == len(bins)
    counts = [int(c) for c in re.findall(r'data-count="(\d+)"', result.calibration)]
    assert counts == [int(b[2]) for b in bins] and sum(counts) == expected.as_dict()["slots"]
    assert explore(inputs.example_input("first_example").sets).calibration == ""  # no confidences, no section
    written = exports.write_downloads(result.results, result.options, folder=str(tmp_path / "downloads"))
    downloads = {p.rsplit("/", 1)[1]: p for p in written}
    with open(downloads["figures.json"], encoding="utf-8") as file:
        record = json.load(file)["calibration"]["scored"]
    assert record["slot_ece"] == expected.figures["slot_ece"] and record["slt2024_auroc"] == 0.625


def test_several_uploaded_files_are_read_as_one_folder(tmp_path):
    """SGD and MultiWOZ 2.2 come as folders of dialogues_*.json: several files uploaded at once are
    one folder, paired with the gold folder as `read(..., gold=...)` pairs them."""
    fixtures = REPO / "tests" / "fixtures" / "sgd"
    uploads = []
    for side in ("sgd_pred", "sgd_gold"):
        (tmp_path / side).mkdir()
        for file in sorted((fixtures / side).glob("*.json")):  # gradio keeps each upload in a folder of its own
            (tmp_path / side / file.name).mkdir()
            (tmp_path / side / file.name / file.name).write_bytes(file.read_bytes())
        uploads.append([str(p) for p in sorted((tmp_path / side).glob("*/*.json"))])
    pred_folder, pred_name = inputs.folder_of(uploads[0], "A")
    gold_folder, gold_name = inputs.folder_of(uploads[1], "gold")
    assert pred_name == "set_a_files" and sorted(p.name for p in Path(gold_folder).iterdir()) == [
        "dialogues_001.json",
        "schema.json",
        "train_schema.json",
    ]
    result = explore([SetInput("", "", pred_folder, pred_name)], gold=SetInput("", "", gold_folder, gold_name))
    assert result.ok, result.status
    expected = score(read(fixtures / "sgd_pred", gold=fixtures / "sgd_gold")).scores
    assert shown(result, "gca", "set_a_files") == draw.pct(expected.gca)
    assert result.command.startswith("dst-metrics score set_a_files --gold set_gold_files")


def test_what_a_session_kept_is_deleted_with_it(tmp_path):
    from dst_metrics.space.page import remove_session_file

    upload = tmp_path / "upload.json"
    upload.write_text("{}")
    folder = tmp_path / "set_a_files-0123"
    folder.mkdir()
    (folder / "dialogues_001.json").write_text("[]")
    remove_session_file({"path": str(upload), "filename": "upload.json"})
    remove_session_file(str(folder))
    remove_session_file(None)  # a set never uploaded
    assert not upload.exists() and not folder.exists()
    paths = exports.write_downloads(*_first_results(), folder=str(tmp_path / "session"))
    again = exports.write_downloads(*_first_results(), folder=str(tmp_path / "session"))
    assert paths == again and sorted(p.name for p in (tmp_path / "session").iterdir()) == sorted(
        p.rsplit("/", 1)[1] for p in paths
    )  # one folder per session, rewritten


def _first_results():
    result = explore(inputs.example_input("first_example").sets)
    return result.results, result.options


def test_the_card_reads_the_registries_and_cites_the_gca_paper():
    """Issue 23, item 10: the page's card lists every figure of the registry with its meaning, every
    compatibility profile, how to install and load the modules, and the GCA paper's BibTeX with a link."""
    from dst_metrics import citations
    from dst_metrics.compat import PROFILES

    card = style.card_markdown()
    for figure in FIGURES:
        if figure.group in ("main", "detail", "counts"):
            key = f"{figure.key}@λ" if figure.per_lambda else figure.key  # issue 36: `fga` listed once
            assert card.count(f"| `{key}` |") == 1, key
            assert f"| `{key}` | {figure.label}{'λ' if figure.per_lambda else ''} | {figure.description} |" in card
    assert all(f"`--compat {name}`: {profile.description}" in card for name, profile in PROFILES.items())
    assert citations.GCA.strip() in card and "https://arxiv.org/abs/2403.11123" in card
    assert 'pip install "dst-metrics[evaluate]"' in card and 'module_path("all")' in card


def test_many_points_are_drawn_as_their_density():
    """Issue 23, item 9: above DENSITY_POINTS the scatter is a density of bounded size, whose cells count
    every point; below, one clickable mark per point."""
    points = [plots.Point(i % 101, (i * 7) % 101, 0, "A", f"d{i}") for i in range(plots.DENSITY_POINTS + 1)]
    svg = scatter_html("density", points, "FGA (%)", "GCA (%)", ["A"], "density")
    assert f'class="density" data-points="{len(points)}"' in svg  # every point counted in the density
    assert 'class="point"' not in svg and "3,001 points, drawn as their density" in svg
    assert len(svg) < 200_000  # bounded, whatever the number of dialogues
    few = scatter_html("few", points[:10], "FGA (%)", "GCA (%)", ["A"], "few")
    assert few.count('class="point"') == 10


def test_each_sets_intervals_are_the_librarys():
    """Issue 23, item 10: per-system intervals on the page (as report.html has them), the library's own."""
    from dst_metrics.space.explore import set_intervals
    from dst_metrics.stats import bootstrap_intervals

    combined = inputs.example_input(inputs.ALL_EXAMPLES)
    result = explore(combined.sets)
    shown = set_intervals(result)
    for scored_set in result.results:
        low, high = bootstrap_intervals(scored_set.corpus, result.options, resamples=1000, seed=0)["gca"]
        cell = f'data-metric="gca" data-set="{scored_set.name}">[{100 * low:.2f}, {100 * high:.2f}]</td>'
        assert cell in shown, cell
    one = explore([("P1", reference_text(FIRST, "P1"))])
    assert 'id="intervals-one"' in set_intervals(one)


def test_every_figure_per_domain_is_the_command_lines():
    """Issue 23, item 10: the page's by-domain table holds `dst-metrics score --by domain`'s figures."""
    from dst_metrics.analysis.breakdown import breakdown

    combined = inputs.example_input(inputs.ALL_EXAMPLES)
    result = explore(combined.sets)
    for scored_set in result.results:
        for domain, scores in breakdown(scored_set.corpus, result.options, "domain").items():
            cell = f'data-metric="gca" data-set="{scored_set.name}" data-domain="{domain}">{100 * scores.gca:.2f}<'
            assert cell in result.by_domain, cell


def test_another_evaluators_conventions_on_the_page():
    """Issue 23, item 10: the command line's --compat profiles (those that score a corpus alone) on the page:
    their figures in the table and chart, the profile in the signature, the command and the URL."""
    combined = inputs.example_input(inputs.ALL_EXAMPLES)
    assert [name for _, name in inputs.page_profiles()] == [
        "fga",
        "convlab",
        "trade",
        "mwzeval",
        "fnctod",
        "dstc10",
        "simmc",
    ]
    for profile in ("fnctod", "dstc10"):
        result = explore(combined.sets, compat=profile)
        expected = score(result.results[0].corpus, compat=profile).scores
        assert shown(result, "jga", "P1") == f"{100 * expected.jga:.2f}"
        assert result.results[0].report.signature.endswith(f"|compat:{profile}")
        assert f"--compat {profile}" in result.command and "dst-metrics compare" not in result.command
        assert 'id="compare-compat"' in compare_sets(result)


# --------------------------------------------------------------------------------------------
# Issue 36: a link you can trust, K the data rules out, DSTC2 files


def test_only_the_examples_own_sets_may_be_named_in_the_url():
    example = inputs.example_input("all")
    entries = [SetInput(name, text) for name, text in example.sets] + [SetInput(), SetInput()]
    assert inputs.shows_example("all", entries)
    assert not inputs.shows_example("first_example", entries)  # another example's text
    assert not inputs.shows_example("all", entries, fmt="jsonl")
    assert not inputs.shows_example("all", entries, gold=SetInput("gold", "{}"))
    pasted = [SetInput("P1", jsonl_text(EXAMPLES["first_example"], "P2")), *entries[1:]]
    assert not inputs.shows_example("all", pasted)
    assert inputs.left_example_names("all", pasted) == {0: "own data"}  # P2 still holds the example's text
    uploaded = [SetInput("P1", "", "/tmp/x.json", "x.json"), SetInput("P2", "", "/tmp/y.json", "y.json")]
    assert inputs.left_example_names("all", uploaded) == {0: "own data", 1: "own data B"}
    assert inputs.left_example_names("all", [SetInput("mine", "{}")]) == {}  # a name the visitor gave stays


def test_a_link_of_own_data_opens_no_example():
    assert url_settings({"data": "own"})["example"] is None
    assert url_settings({"data": "own", "example": "mul1110"})["example"] == "mul1110"
    assert url_settings({})["example"] == "first_example"


def test_k_below_a_turns_slots_is_an_option_error_that_keeps_the_figures():
    result = explore([("P1", _all_text(0))], num_slots=5)
    assert not result.ok and result.options_error
    assert "is 5, but this turn has 7 slots" in result.status and 'dialogue "MUL0003", turn 2' in result.status
    assert not explore([("P1", _all_text(0))], num_slots=2.5).ok  # refused, not cut to 2
    assert "whole number" in explore([("P1", _all_text(0))], num_slots=2.5).status


@requires_shared
def test_a_dstc2_track_file_is_pointed_to_the_dstc2_command():
    track = REFERENCE / "dstc2" / "baseline.track.json"
    assert inputs.is_dstc2_track(track)
    assert not inputs.is_dstc2_track(REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json")
    result = explore([SetInput("", "", str(track), track.name)])
    assert not result.ok and "dst-metrics dstc2 --trackfile" in result.status and "'baseline.track'" in result.status


def test_the_card_says_which_profiles_the_menu_lacks():
    card = style.card_markdown()
    offered = {name for _, name in inputs.page_profiles()}
    for line in card.splitlines():
        if line.startswith("- `--compat "):
            name = line.split("`--compat ")[1].split("`")[0]
            assert ("command line only" in line) == (name not in offered), line  # sgd: not in the menu, said so


def test_a_profiles_cells_are_marked_and_shown_beside_ours():
    combined = inputs.example_input(inputs.ALL_EXAMPLES)
    result = explore(combined.sets, compat="fnctod")
    theirs = score(result.results[0].corpus, compat="fnctod").scores
    ours = score(result.results[0].corpus).scores
    side = re.search(r'<table class="data-table compat-table".*?</table>', result.details, re.S).group(0)
    cell = r'<td class="num{}" data-metric="{}" data-set="P1" data-side="{}">([^<]*)</td>'
    assert (
        re.search(cell.format(" compat", "average_jga", "theirs"), side).group(1)
        == f"{100 * theirs['average_jga']:.2f}"
    )
    assert re.search(cell.format("", "average_jga", "ours"), side).group(1) == "—"  # not a figure of ours
    assert re.search(cell.format("", "jga", "ours"), side).group(1) == f"{100 * ours.jga:.2f}"
    # mwzeval normalizes values: its JGA is marked in the figure table, ours is unmarked without a profile
    marked = explore(combined.sets, compat="mwzeval")
    assert '<td data-metric="jga" data-set="P1" class="compat"' in marked.metrics
    assert 'class="compat"' not in marked.metrics.split('data-metric="gca"')[1].split("</td>")[0]  # GCA stays ours
    assert "computed mwzeval's way" in marked.metrics + marked.details
    assert 'class="compat"' not in explore(combined.sets).metrics


def test_the_try_it_widget_scores_typed_turns_by_the_papers_formula():
    # Three turns, the area predicted wrong from turn 1 on: C 3 (area, stars, day), W 1 (area), M 0, O 0.
    # By the formula of SPEC.md with P = G = 4: VP = VR = 3/4, LP = LR = 1, so
    # GCA = 8 / (10/11 * 2 * 4/(3/4) + 1/11 * 2 * 4) = 0.76744...; JGA 1/3 (only turn 0 right).
    html_out = explore_module.try_states(style.TRY_STATES_EXAMPLE)
    gca = 8 / (10 / 11 * 2 * 4 / 0.75 + 1 / 11 * 2 * 4)
    assert f"<b>GCA {100 * gca:.2f}</b>" in html_out and "JGA 33.33" in html_out
    assert "C 3, W 1, M 0, O 0" in html_out and "3 turns" in html_out
    assert "1 turn;" in explore_module.try_states("hotel-area=north | hotel-area=north")
    assert "line 2: write the gold state, then |" in explore_module.try_states("a-b=c | a-b=c\nno bar")
    assert 'id="try-error"' in explore_module.try_states("")


def test_the_metric_card_quotes_the_published_values():
    card = style.METRIC_CARD
    for name, figures in EXAMPLES["first_example"].published.items():
        assert f"{name} GCA {figures['gca']:.2f}, JGA {figures['jga']:.2f}" in card
    mul1110 = EXAMPLES["mul1110"].published["prediction"]
    assert f"GCA {mul1110['gca']:.2f}, FGA {mul1110['fga']:.2f}" in card
    assert "α = 10/11" in card and "arXiv:2403.11123" in card


@requires_shared
def test_the_metric_card_quotes_the_trade_files_published_figures():
    published = json.loads((REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.published.json").read_text())
    assert f"GCA {published['GCA']:.2f}, JGA {published['JGA']:.2f}" in style.METRIC_CARD


def test_the_pages_mistakes_per_turn_are_the_librarys_and_the_analysis_may_follow_the_figures():
    from dst_metrics.analysis.explain import mistakes_per_turn

    corpus = _corpus_of(_all_text(1))
    for mode in ("official", "corrected"):
        for dialogue in corpus.dialogues:
            assert explore_module.turn_mistakes(dialogue, mode) == mistakes_per_turn(dialogue, mode)
    sets = inputs.example_input(inputs.ALL_EXAMPLES).sets
    at_once = explore(sets)
    later = explore(sets, analyse=False)
    assert not later.analysed and later.dialogue_rows is None and later.metrics == at_once.metrics
    explore_module.analyse_sets(later)
    assert later.analysed and later.dialogue_rows == at_once.dialogue_rows
    assert (later.scatter, later.correlations, later.by_domain) == (
        at_once.scatter,
        at_once.correlations,
        at_once.by_domain,
    )


@requires_shared
def test_the_pages_mistakes_per_turn_on_trades_file():
    from dst_metrics import read
    from dst_metrics.analysis.explain import mistakes_per_turn

    corpus = read(REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json")
    for dialogue in corpus.dialogues[:200]:
        assert explore_module.turn_mistakes(dialogue, "official") == mistakes_per_turn(dialogue, "official")


def _corpus_of(text: str):
    from dst_metrics import Corpus

    return Corpus.from_reference_layout(json.loads(text))


def test_a_chart_of_the_same_numbers_is_drawn_once_and_is_the_chart_drawn_afresh():
    """The server keeps the charts it drew (`bars_svg`, `scatter_html`): the next visitor of an example, or a mode
    changed back, gets the same SVG without drawing; other numbers draw another chart."""
    entries = inputs.example_input(inputs.ALL_EXAMPLES).sets
    bars, scatters = explore_module.bars_svg, explore_module._scatter_html
    bars.cache_clear()
    scatters.cache_clear()
    first = explore(entries)
    assert (bars.cache_info().misses, scatters.cache_info().misses) == (1, 2)  # bars, GCA-FGA, B against A
    other = explore(entries, fga_lambda=0.75)  # FGA changes: the bars and GCA-FGA; B against A is GCA's alone
    assert (bars.cache_info().misses, scatters.cache_info().misses, scatters.cache_info().hits) == (2, 3, 1)
    assert other.bars != first.bars and other.pair_scatter == first.pair_scatter
    again = explore(entries)
    assert (bars.cache_info().hits, scatters.cache_info().hits, bars.cache_info().misses) == (1, 3, 2)  # not drawn
    assert (again.bars, again.scatter, again.pair_scatter) == (first.bars, first.scatter, first.pair_scatter)
    rows = tuple((row.key, row.label) for row in scored.main_rows(first.options))
    sets = tuple((r.name, tuple(r.report.scores[key] for key, _ in rows)) for r in first.results)
    assert bars.__wrapped__(rows, sets) == first.bars  # the chart a fresh drawing gives
