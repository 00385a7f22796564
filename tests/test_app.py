"""The Space's pure functions (app.py) over the library's readers, options and figure registry,
no browser."""

from __future__ import annotations

import html
import itertools
import json

import pytest

import app
from dst_metrics import InputError, OptionError, Options
from dst_metrics.examples import EXAMPLES
from dst_metrics.figures import FIGURES, figure_keys, figure_labels
from dst_metrics.options import parse_alpha, parse_lambda, parse_mode, parse_num_slots, parse_value_matching
from dst_metrics.readers import READERS, detect, read, read_with_format
from dst_metrics.states import linearize_state

from .conftest import REFERENCE, requires_shared

FIRST = EXAMPLES["first_example"]


def reference_text(example, prediction: str) -> str:
    return json.dumps(example.reference_layout(prediction))


def jsonl_text(example, prediction: str, reverse: bool = False) -> str:
    lines = [
        json.dumps({"dialogue_id": example.dialogue_id, "turn_id": i, "gt": g, "pr": p})
        for i, (g, p) in enumerate(zip(example.gold, example.predictions[prediction], strict=True))
    ]
    return "\n".join(reversed(lines) if reverse else lines) + "\n"


def linearized_text(example, prediction: str) -> str:
    lines = ["# dialogue_id, turn_id, gold, prediction"]
    for i, (g, p) in enumerate(zip(example.gold, example.predictions[prediction], strict=True)):
        lines.append(f"{example.dialogue_id}\t{i}\t{linearize_state(g)}\t{linearize_state(p)}")
    return "\n".join(lines)


def shown(result: app.Exploration, key: str, name: str) -> str:
    return app.metrics_frame(result.results, result.options).loc[key, name]


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
        result = app.explore([(prediction, text)])
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
    result = app.explore([("A", text)])
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
    result = app.explore([("P1", text)])
    assert not result.ok and result.status.startswith("Prediction set A 'P1': the data looks closest to")


@pytest.mark.parametrize(
    "text, fmt, fragments",
    [
        ('{"MUL0003": {"0": ', "auto", ["not valid JSON"]),
        ('{"MUL0003": {"0": {"gt": ]}}}', "auto", ["not valid JSON", "line 1, column 26"]),
        ("", "auto", ["the input is empty"]),
        ("  \n", "auto", ["only white space"]),
        ("[]", "reference", ["expected an object", "got an array"]),
        ('{"d": {"0": {"gt": {}}}}', "reference", ['dialogue "d", turn 0, field pr:', "no pr state"]),
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
    result = app.explore([("P1", text)], fmt=fmt)  # the page shows the same message
    assert not result.ok
    for fragment in fragments:
        assert fragment in result.status


def test_ids_follow_the_librarys_rules():
    """A turn id given as a string of digits and an integer dialogue id are accepted."""
    text = '{"dialogue_id": 7, "turn_id": "0", "gt": {}, "pr": {}}'
    result = app.explore([("P1", text)])
    assert result.ok, result.status
    assert result.dialogue_ids == ["7"]


def test_explore_reports_bad_input_in_the_status_and_never_raises():
    result = app.explore([("P1", '{"MUL0003": {"0": ')])
    assert not result.ok
    assert result.status.startswith(f"Prediction set A 'P1' (read as {described('reference')}, auto-detected): ")
    assert "not valid JSON" in result.status
    chosen = app.explore([("P1", '{"MUL0003": {"0": ')], fmt="reference")
    assert chosen.status.startswith(f"Prediction set A 'P1' (read as {described('reference')}): ")
    html = app.status_html(result.status, False)
    assert "Could not score this input" in html and "Traceback" not in html
    for garbage in ("}", "\t\t\t", "{}", "null", '{"d": []}', '{"d": {"x": {"gt": {}, "pr": {}}}}', "ä\x00"):
        assert not app.explore([("A", garbage)]).ok


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
    result = app.explore([("P1", reference_text(FIRST, "P1"))], **{option: value})
    assert not result.ok
    assert result.status == str(caught.value)


def test_other_bad_choices_are_reported():
    result = app.explore([("P1", reference_text(FIRST, "P1"))], fmt="xml")
    assert not result.ok and f"format must be one of {', '.join(('auto', *READERS))}; got 'xml'" in result.status
    result = app.explore([("P1", reference_text(FIRST, "P1"))], num_slots=2)  # fewer than a turn's slots
    assert not result.ok and "K must be at least" in result.status


def test_read_settings_builds_the_librarys_options():
    assert app.read_settings("official", "10/11", 0.5, 30.0, "exact") == Options()  # gradio gives floats
    options = app.read_settings("corrected", " 0.5 ", 1, 5, "normalized")
    assert (options.mode, options.alpha, options.fga_lambda, options.num_slots) == ("corrected", 0.5, 1.0, 5)
    assert isinstance(options.num_slots, int) and options.value_matching == "normalized"


def test_options_reach_the_figures_and_the_signature():
    result = app.explore([("P1", reference_text(FIRST, "P1"))], alpha="10/11", fga_lambda=1.0, num_slots=10)
    signature = result.results[0].report.signature
    assert "|mode:official|alpha:10/11|lambda:1|K:10|match:exact" in signature
    assert signature in result.signature
    assert signature == result.options.signature()
    frame = app.metrics_frame(result.results, result.options)
    assert frame.loc["fga", "Metric"] == "FGA (λ=1)" and frame.loc["sa", "Metric"] == "SA (K=10)"
    assert frame.loc["fga", "P1"] == frame.loc["fga@1.0", "P1"]
    corrected = app.explore([("P1", reference_text(FIRST, "P1"))], mode="corrected")
    assert "mode:corrected" in corrected.results[0].report.signature


# --------------------------------------------------------------------------------------------
# The figure registry (dst_metrics.figures) drives every table and the chart


def test_the_table_shows_every_registered_figure():
    result = app.explore([("P1", reference_text(FIRST, "P1"))])
    frame = app.metrics_frame(result.results)  # options default to those the sets were scored with
    assert frame.equals(app.metrics_frame(result.results, result.options))
    keys = figure_keys(Options())
    assert "turns" in keys and "fga@0.25" in keys and "correct" in keys
    assert [key for key in frame.index if key != "dialogues"] == keys  # every key, in registry order
    assert frame.loc["dialogues", "P1"] == "1" and frame.loc["turns", "P1"] == "3"
    labels = figure_labels(Options())
    for key in keys:
        if key not in ("fga", "sa"):  # the page names their option: FGA (λ=0.5), SA (K=30)
            assert frame.loc[key, "Metric"] == labels[key]
    assert frame.loc["fga@0.25", "Metric"] == "FGA λ=0.25"
    scores = result.results[0].report.scores
    assert frame.loc["fga@0.25", "P1"] == app.pct(scores.fga_grid[0.25])
    assert frame.loc["correct", "P1"] == str(scores.correct) == "5"


def test_each_registry_group_is_one_table_with_the_registrys_descriptions():
    result = app.explore([("P1", reference_text(FIRST, "P1"))])
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
    sets = app.read_prediction_sets([("P1", reference_text(FIRST, "P1"))])
    options = Options(fga_lambdas=(0.1, 2))
    results = app.score_sets(sets, options)
    frame = app.metrics_frame(results)
    assert {"fga@0.1", "fga@2.0"} <= set(frame.index) and "fga@0.25" not in frame.index
    assert set(figure_keys(options)) <= set(frame.index)
    assert frame.loc["fga@2.0", "Metric"] == "FGA λ=2.0"
    assert app.signature_html(results).count("lambdas:0.1,2") == 1


def test_the_format_choices_come_from_the_readers():
    assert app.format_label("auto") == "auto-detect"
    for name, reader in READERS.items():
        assert app.format_label(name) == reader.description
        assert f"(`{name}`)" in app.format_help()


# --------------------------------------------------------------------------------------------
# Two prediction sets


def test_the_papers_examples_side_by_side():
    first = app.example_input("first_example")
    result = app.explore([(first.name_a, first.text_a), (first.name_b, first.text_b)])
    frame = app.metrics_frame(result.results, result.options)
    assert list(frame.columns) == ["Metric", "P1", "P2"]
    assert (frame.loc["gca", "P1"], frame.loc["gca", "P2"]) == ("73.33", "15.49")
    assert (frame.loc["jga", "P1"], frame.loc["jga", "P2"]) == ("0.00", "33.33")
    assert (frame.loc["correct", "P1"], frame.loc["wrong", "P2"]) == ("5", "6")
    html = app.metrics_html(result.results, result.options)
    assert '<td data-metric="gca" data-set="P1">73.33</td>' in html
    assert '<td data-metric="gca" data-set="P2">15.49</td>' in html

    hypothetical = app.example_input("hypothetical")
    result = app.explore([("P1", hypothetical.text_a), ("P2", hypothetical.text_b)])
    frame = app.metrics_frame(result.results, result.options)
    assert frame.loc["gca"].tolist()[1:] == ["52.38", "52.38"]
    assert frame.loc["jga"].tolist()[1:] == ["83.33", "0.00"]
    assert frame.loc["fga"].tolist()[1:] == ["83.33", "59.75"]
    assert frame.loc["rsa"].tolist()[1:] == ["91.67", "8.33"]

    mul1110 = app.example_input("mul1110")
    assert mul1110.text_b == ""
    result = app.explore([(mul1110.name_a, mul1110.text_a), (mul1110.name_b, mul1110.text_b)])
    assert len(result.results) == 1
    assert (shown(result, "gca", "prediction"), shown(result, "fga", "prediction")) == ("31.43", "48.84")


def test_bars_are_ordered_as_the_table():
    first = app.example_input("first_example")
    result = app.explore([("zeta", first.text_a), ("alpha", first.text_b)])
    bars = result.bars
    ordered = bars.sort_values("bar")  # the chart sorts labels ascending
    main = [figure.label for figure in FIGURES if figure.group == "main"]
    expected = [(label, name) for label in main for name in ("zeta", "alpha")]
    assert [(m.split(" (")[0], s) for m, s in zip(ordered["metric"], ordered["set"], strict=True)] == expected
    assert bars.loc[(bars["metric"] == "GCA") & (bars["set"] == "zeta"), "score (%)"].item() == 73.33


def test_second_set_must_match_the_first():
    p1 = reference_text(FIRST, "P1")
    other = json.dumps({"OTHER": FIRST.reference_layout("P2")["MUL0003"]})
    result = app.explore([("P1", p1), ("P2", other)])
    assert not result.ok
    assert "do not cover the same dialogues" in result.status
    assert "only in 'P1': ['MUL0003']" in result.status and "only in 'P2': ['OTHER']" in result.status

    short = FIRST.reference_layout("P2")
    del short["MUL0003"]["2"]
    result = app.explore([("P1", p1), ("P2", json.dumps(short))])
    assert "different turns" in result.status and "[0, 1, 2]" in result.status

    changed_gold = FIRST.reference_layout("P2")
    changed_gold["MUL0003"]["1"]["gt"] = {"hotel-internet": "no"}
    result = app.explore([("P1", p1), ("P2", json.dumps(changed_gold))])
    assert "gold state differs" in result.status and "turn 1" in result.status

    same_name = app.explore([("P", p1), ("P", reference_text(FIRST, "P2"))])
    assert [r.name for r in same_name.results] == ["P", "P (B)"]


def test_second_set_may_use_another_layout():
    result = app.explore([("P1", reference_text(FIRST, "P1")), ("P2", linearized_text(FIRST, "P2"))])
    assert result.ok, result.status
    assert [shown(result, "gca", n) for n in ("P1", "P2")] == ["73.33", "15.49"]
    assert f"P1 read as {described('reference')}; P2 read as {described('linearized')}." in result.status


# --------------------------------------------------------------------------------------------
# The per-slot view


def test_slot_view_colours_each_count_type():
    first = app.example_input("first_example")
    result = app.explore([("P1", first.text_a), ("P2", first.text_b)])
    html = result.slots
    assert "Dialogue <b>MUL0003</b>" in html
    assert html.count('data-kinds="wrong"') == 2 + 6  # P1: internet, parking; P2: parking and five slots
    assert html.count('data-kinds="correct"') == 5 + 1
    assert "correct 5 · wrong 2 · missed 0 · overshot 0" in html
    assert "correct 1 · wrong 6 · missed 0 · overshot 0" in html
    for kind, (background, _, _) in app.COUNT_STYLES.items():
        assert f"background:{background}" in html  # the legend shows every colour
        assert kind in html
    assert "unchanged" not in html.split('<div class="slot-sets">')[1]
    with_unchanged = app.slot_view_html(result.results, "MUL0003", "official", True)
    assert with_unchanged.count('data-kinds=""') == 2 * 3  # internet and parking carried over, twice


def test_slot_view_marks_quiet_turns_and_escapes_names():
    text = json.dumps({"<b>x</b>": {"0": {"gt": {"a-b": "<i>"}, "pr": {}}, "1": {"gt": {"a-b": "<i>"}, "pr": {}}}})
    result = app.explore([("<s>", text)])
    assert "&lt;b&gt;x&lt;/b&gt;" in result.slots and "<b>x</b>" not in result.slots
    assert "&lt;i&gt;" in result.slots and "&lt;s&gt;" in result.metrics
    assert 'class="no-change">no change<' in result.slots  # turn 1 changes nothing
    assert 'data-kinds="missed"' in result.slots


def test_official_quirk_shows_two_count_types():
    gold = [{"hotel-area": "north"}, {}]
    text = json.dumps({"d": {str(i): {"gt": g, "pr": g} for i, g in enumerate(gold)}})
    official = app.explore([("A", text)])
    assert 'data-kinds="correct missed"' in official.slots  # quirk 1
    corrected = app.explore([("A", text)], mode="corrected")
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
    for kind, (background, text, symbol) in app.COUNT_STYLES.items():
        light, dark = sorted((_relative_luminance(background), _relative_luminance(text)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.5, kind  # WCAG AA for normal text
        assert symbol
    for vision, matrix in VISION.items():
        for a, b in itertools.combinations(app.COUNT_STYLES, 2):
            la, lb = _lab_under(app.COUNT_STYLES[a][0], matrix), _lab_under(app.COUNT_STYLES[b][0], matrix)
            distance = sum((x - y) ** 2 for x, y in zip(la, lb, strict=True)) ** 0.5
            assert distance > 20, (vision, a, b, distance)  # CIE76 ΔE: clearly different


# --------------------------------------------------------------------------------------------
# Per-dialogue GCA vs FGA (section 5.2)


def test_single_dialogue_has_no_per_dialogue_analysis():
    first = app.example_input("first_example")
    result = app.explore([("P1", first.text_a)])
    assert result.dialogues is None and result.disagreements is None
    assert "needs several" in app.analysis_note(result)


def test_disagreement_table_of_the_three_paper_dialogues():
    combined = app.example_input(app.ALL_EXAMPLES)
    result = app.explore([(combined.name_a, combined.text_a), (combined.name_b, combined.text_b)])
    assert result.ok and result.dialogue_ids == ["MUL0003", "SNG0779", "MUL1110"]
    table = result.disagreements
    assert list(table.columns) == ["Set", "Dialogue", "Turns", "Mistakes", "GCA", "FGA", "FGA − GCA", "TO", "NU"]
    assert table.iloc[0].tolist() == ["P1", "MUL0003", "3", "2", "73.33", "13.12", "-60.22", "-0.17", "2.00"]
    assert table.iloc[1][["Set", "Dialogue", "GCA", "FGA", "FGA − GCA"]].tolist() == [
        "P1",
        "SNG0779",
        "52.38",
        "83.33",
        "+30.95",
    ]
    gaps = [abs(float(x)) for x in table["FGA − GCA"]]
    assert gaps == sorted(gaps, reverse=True) and len(table) == 6
    assert len(app.disagreement_frame(result.dialogues, top=2)) == 2
    assert result.dialogue_id == "MUL0003" and "Dialogue <b>MUL0003</b>" in result.slots
    chosen = app.explore([("P1", combined.text_a)], dialogue_id="SNG0779")
    assert chosen.dialogue_id == "SNG0779" and "Dialogue <b>SNG0779</b>" in chosen.slots
    assert app.explore([("P1", combined.text_a)], dialogue_id="nope").dialogue_id == "MUL0003"
    scatter = result.scatter
    assert scatter.loc[(scatter["set"] == "P2") & (scatter["dialogue"] == "MUL0003"), "GCA"].item() == 15.49
    correlations = app.correlations_frame(result.dialogues)
    assert list(correlations.columns) == ["Pair", "P1", "P2", "GCA paper"]
    assert correlations["GCA paper"].tolist() == [0.08, -0.05, 0.59, 0.40]
    assert '<th scope="row">NU vs FGA</th>' in result.correlations
    # the first example's P1 counts as in the single-dialogue run
    assert result.results[0].report.dialogues["MUL0003"].gca == pytest.approx(0.7333, abs=5e-5)


@requires_shared
def test_real_corpus_reproduces_published_figures_and_lists_disagreements():
    text = (REFERENCE / "t5_zeroshot" / "predictions").glob("*attraction*.json")
    path = next(text)
    published = json.loads((REFERENCE / "t5_zeroshot" / "published" / path.name).read_text())
    result = app.explore([("T5", path.read_text())], top=20)
    assert result.ok, result.status
    frame = app.metrics_frame(result.results, result.options)
    assert frame.loc["gca", "T5"] == f"{published['GCA']:.2f}"
    assert frame.loc["jga", "T5"] == f"{published['JGA']:.2f}"
    assert frame.loc["fga", "T5"] == f"{published['FGA_0.5']:.2f}"
    assert frame.loc["rsa", "T5"] == f"{published['RSA']:.2f}"
    assert len(result.dialogue_ids) == 395 and len(result.disagreements) == 20
    gaps = [abs(float(x)) for x in result.disagreements["FGA − GCA"]]
    assert gaps == sorted(gaps, reverse=True)
    assert gaps[0] == pytest.approx(100 * result.dialogues["FGA - GCA"].abs().max(), abs=0.006)


# --------------------------------------------------------------------------------------------
# Uploads and examples


def test_read_upload(tmp_path):
    good = tmp_path / "p1.json"
    good.write_text("\ufeff" + reference_text(FIRST, "P1"), encoding="utf-8")
    assert app.read_upload(good).startswith("{")
    bad = tmp_path / "p1.bin"
    bad.write_bytes(b"\xff\xfe\x00 not text")
    with pytest.raises(InputError, match="p1.bin: the file is not UTF-8 text"):
        app.read_upload(bad)
    with pytest.raises(InputError, match="no file"):
        app.read_upload(None)


def test_every_example_choice_loads_and_scores():
    for _, key in app.EXAMPLE_CHOICES:
        chosen = app.example_input(key)
        assert json.loads(chosen.text_a)  # the boxes hold valid reference layout JSON
        result = app.explore([(chosen.name_a, chosen.text_a), (chosen.name_b, chosen.text_b)])
        assert result.ok, (key, result.status)
    assert "GCA 73.33" in app.example_input("first_example").description
