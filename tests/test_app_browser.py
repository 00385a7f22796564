"""The Space in a real browser: `python app.py` on a free port, driven by headless Debian Chromium
through Playwright (tests/space_browser.py: one server and one browser per test process, a new page per
test). Nothing downloads a browser; without Debian's Chromium headless shell or playwright the tests skip.
Screenshots and the server log go to test-artifacts/space/ at the repository root.

Each test named after a defect of issue 11 checks what is drawn, not only text: the chart's bars
against the table's figures, bounding boxes at phone width, uncaught page errors."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from dst_metrics import Options, score
from dst_metrics.space.examples import EXAMPLES
from dst_metrics.space.scored import main_rows
from dst_metrics.stats import compare
from dst_metrics.stats.paired import FloorWarning

from .conftest import REFERENCE, REPO
from .space_browser import (
    ALL,
    DIRECT,
    IDLE_JS,
    SIZES,
    WORDS_BROKEN_JS,
    at_sizes,
    choose,
    free_port,
    low_contrast,
    settle,
    shot,
)
from .test_app import _all_text

FIRST = EXAMPLES["first_example"]

pytestmark = pytest.mark.slow


MAIN = [row.key for row in main_rows(Options())]  # the chart's figures: gca, jga, fga, sa, aga, rsa, slot_f1


def _cell(metric: str, name: str) -> str:
    return ", ".join(f'{table} td[data-metric="{metric}"][data-set="{name}"]' for table in ("#metrics", "#details"))


def _figure(page, metric: str, name: str) -> str:
    return page.locator(_cell(metric, name)).first.inner_text()


def _wait_for_figure(page, metric: str, name: str, value: str) -> None:
    page.wait_for_function(
        "([s, v]) => { const c = document.querySelector(s); return c !== null && c.textContent.trim() === v; }",
        arg=[_cell(metric, name), value],
    )


def _wait_for_sets(page, names: list[str]) -> None:
    """Until the figure table's columns are exactly `names`."""
    page.wait_for_function(
        "(names) => { const h = [...document.querySelectorAll('#metrics-main thead th')].slice(1)"
        ".map(t => t.textContent.trim()); return JSON.stringify(h) === JSON.stringify(names); }",
        arg=names,
    )


def _wait_for_signature(page, fragment: str) -> None:
    page.wait_for_function("(f) => (document.querySelector('#signature')?.textContent || '').includes(f)", arg=fragment)


def _assert_chart_equals_table(page, names: list[str]) -> None:
    """The bars drawn are the table's figures: one bar per (main figure, set), each bar's value and
    its drawn length equal to the table's cell, and nothing else (issue 11, defect 1)."""
    drawn = page.evaluate(
        """() => {
        const area = document.querySelector('#bars .plot-area').getBoundingClientRect();
        const bars = [...document.querySelectorAll('#bars .bar')].map(r => ({
            metric: r.dataset.metric, set: r.dataset.set, value: r.dataset.value,
            percent: r.getBBox().width / r.ownerSVGElement.querySelector('.plot-area').getBBox().width * 100,
            shown: r.getBoundingClientRect().width, inside: r.getBoundingClientRect().right <= area.right + 0.5}));
        const cells = {};
        document.querySelectorAll('#metrics td[data-metric]').forEach(
            c => { cells[c.dataset.metric + '|' + c.dataset.set] = c.textContent.trim(); });
        return {bars, cells};
    }"""
    )
    bars, cells = drawn["bars"], drawn["cells"]
    assert len(bars) == len(MAIN) * len(names), bars
    assert sorted({bar["set"] for bar in bars}) == sorted(names)
    assert sorted({bar["metric"] for bar in bars}) == sorted(MAIN)
    for bar in bars:
        assert bar["value"] == cells[f"{bar['metric']}|{bar['set']}"], bar
        assert abs(bar["percent"] - float(bar["value"])) < 0.01, bar  # its length on the 0-100 axis
        assert bar["inside"], bar
        assert (bar["shown"] > 0) == (float(bar["value"]) > 0), bar  # drawn, not only in the DOM


def _upload(page, box: str, path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    page.locator(f"#upload-{box}").scroll_into_view_if_needed()  # where a user clicks it (below the metric card)
    page.locator(f"#upload-{box}").locator("xpath=..").locator("input[type=file]").set_input_files(str(path))


def _jsonl(example, prediction: str) -> str:
    turns = zip(example.gold, example.predictions[prediction], strict=True)
    return "".join(
        json.dumps({"dialogue_id": example.dialogue_id, "turn_id": i, "gt": g, "pr": p}) + "\n"
        for i, (g, p) in enumerate(turns)
    )


IN_VIEWPORT_JS = """(s) => { const r = document.querySelector(s).getBoundingClientRect();
  return r.height > 0 && r.top >= -1 && r.top < innerHeight; }"""  # -1 px: sub-pixel layout


def _in_viewport(page, selector: str) -> bool:
    return page.evaluate(IN_VIEWPORT_JS, selector)


def _corpus(side: int):
    from dst_metrics import Corpus

    return Corpus.from_reference_layout(json.loads(_all_text(side)))


# --------------------------------------------------------------------------------------------
# The defects of issue 11, each with the test that would have caught it


def test_defect1_chart_equals_table_after_every_change(visit, tmp_path):
    page = visit()
    _assert_chart_equals_table(page, ["P1", "P2"])
    choose(page, "example", "Figure 6: MultiWOZ dialogue MUL1110")
    _wait_for_sets(page, ["prediction"])
    assert _figure(page, "gca", "prediction") == "31.43"
    _assert_chart_equals_table(page, ["prediction"])
    choose(page, "example", "All three paper dialogues as one corpus")
    _wait_for_figure(page, "dialogues", "P1", "3")
    _assert_chart_equals_table(page, ["P1", "P2"])
    page.locator("#name-a input").fill("sys1")
    page.click("h1")  # leaving the box renames the set
    _wait_for_sets(page, ["sys1", "P2"])
    _assert_chart_equals_table(page, ["sys1", "P2"])
    page.locator("#mode").get_by_text("corrected", exact=True).click()
    _wait_for_signature(page, "mode:corrected")
    _assert_chart_equals_table(page, ["sys1", "P2"])
    page.click("#empty-b")
    _wait_for_sets(page, ["sys1"])
    _assert_chart_equals_table(page, ["sys1"])
    _upload(page, "b", tmp_path / "other.json", _all_text(1))
    _wait_for_sets(page, ["sys1", "other"])
    _assert_chart_equals_table(page, ["sys1", "other"])
    shot(page, "renamed-corrected-upload-1400")


def test_defect2_upload_leaves_the_example_and_says_so_next_to_the_button(visit, tmp_path):
    page = visit(width=1400, height=900)
    _upload(page, "a", tmp_path / "mysys.jsonl", _jsonl(FIRST, "P1"))
    _wait_for_sets(page, ["mysys"])  # named after its file; the example's P2 left set B
    assert _figure(page, "gca", "mysys") == "73.33"
    assert page.locator("#data-b textarea").input_value() == ""
    note = page.locator("#note-a")
    note.get_by_text("read and scored").wait_for()
    assert "mysys.jsonl" in note.inner_text()
    assert _in_viewport(page, "#note-a")
    _assert_chart_equals_table(page, ["mysys"])
    shot(page, "upload-1400")
    other = json.dumps({"OTHER": FIRST.reference_layout("P2")["MUL0003"]})
    _upload(page, "b", tmp_path / "other.json", other)
    page.locator("#note-b").get_by_text("left out").wait_for()
    status = page.locator("#status-ok").inner_text()
    assert "Set B ('other') is left out: 'mysys' and 'other' do not cover the same dialogues" in status
    _assert_chart_equals_table(page, ["mysys"])  # A stays scored: a set that does not match never blocks it
    shot(page, "upload-set-aside-1400")


def test_defect3_options_apply_when_leaving_the_box(visit):
    from dst_metrics import score

    page = visit()
    page.locator("#k input").fill("10")
    page.click("h1")  # no Enter
    _wait_for_signature(page, "K:10")
    expected = score(FIRST.corpus("P1"), Options(num_slots=10)).scores.sa
    assert _figure(page, "sa", "P1") == f"{100 * expected:.2f}"
    page.locator("#alpha input, #alpha textarea").first.fill("0.5")
    page.keyboard.press("Tab")
    _wait_for_signature(page, "alpha:0.5")
    expected = score(FIRST.corpus("P1"), Options(alpha=0.5, num_slots=10)).scores.gca
    assert _figure(page, "gca", "P1") == f"{100 * expected:.2f}"
    page.locator("#lambda input").fill("1")
    page.click("h1")
    _wait_for_signature(page, "lambda:1|")
    _assert_chart_equals_table(page, ["P1", "P2"])


def test_defect4_a_row_click_opens_the_dialogue_where_the_user_looks(visit):
    page = visit(ALL)
    page.locator("#disagreements tr[data-dialogue='SNG0779']").first.click()
    page.wait_for_function("() => document.querySelector('#slots').textContent.includes('Dialogue SNG0779')")
    settle(page, IN_VIEWPORT_JS, "#slots-col")  # scrolled to
    assert _in_viewport(page, "#slots-col")
    scores = page.locator("#slots .dialogue-scores li[data-set='P1']").inner_text()
    assert "GCA 52.38" in scores and "JGA 83.33" in scores  # the dialogue's own figures (section 5.4)
    assert page.locator("#slots").get_by_text("no change").count() == 4  # four quiet turns, one row each
    shot(page, "row-click-1400")


def test_defect5_scatter_draws_y_equals_x_whole_points_and_opens_them(visit):
    page = visit(ALL)
    diagonal = page.evaluate(
        "() => { const b = document.querySelector('#scatter .diagonal path').getBBox(); return [b.width, b.height]; }"
    )
    assert diagonal[0] == pytest.approx(diagonal[1], abs=0.01) and diagonal[0] > 0  # y = x on equal axes
    assert page.locator("#scatter .point").count() == 6  # 3 dialogues x 2 sets
    shapes = page.evaluate(  # the marker each point is drawn with
        "() => [...document.querySelectorAll('#scatter .point')].map(g => [g.dataset.set, g.dataset.marker])"
    )
    assert len({shape for name, shape in shapes if name == "P1"}) == 1  # one marker per set ...
    assert {shape for name, shape in shapes if name == "P1"} != {shape for name, shape in shapes if name == "P2"}
    page.locator("#scatter .point[data-set='P2'][data-dialogue='MUL1110']").click()
    page.wait_for_function("() => document.querySelector('#slots').textContent.includes('Dialogue MUL1110')")
    # A perfect dialogue sits at (100, 100): drawn whole inside the chart.
    perfect = "".join(
        json.dumps({"dialogue_id": d, "turn_id": t, "gt": {"a-b": "x"}, "pr": {"a-b": "x" if d == "d1" else "y"}})
        + "\n"
        for d in ("d1", "d2")
        for t in (0, 1)
    )
    page.click("#empty-b")
    _wait_for_sets(page, ["P1"])
    page.locator("#data-a textarea").fill(perfect)
    page.click("#score")
    _wait_for_figure(page, "dialogues", "P1", "2")
    placed = """() => { const svg = document.querySelector('#scatter svg').getBoundingClientRect();
        return [...document.querySelectorAll('#scatter .point')].map(g => {
        const r = g.firstElementChild.getBoundingClientRect();
        return [g.dataset.x, g.dataset.y, r.left >= svg.left && r.right <= svg.right && r.top >= svg.top
        && r.bottom <= svg.bottom]; }); }"""
    # the new chart may still be laid out (or the page scrolling) when the table shows the figure
    settle(page, f"() => {{ const p = ({placed})(); return p.length === 2 && p.every(q => q[2]); }}")
    inside = page.evaluate(placed)
    assert ["100.00", "100.00", True] in inside and all(whole for _, _, whole in inside), inside


def test_defect6_two_sets_compare_per_dialogue_and_line_up_by_turn(visit):
    page = visit(ALL)
    rows = page.evaluate(
        "() => [...document.querySelectorAll('#pair-table tbody tr')].map(r => [...r.children].map(c => c.textContent))"
    )
    assert [r[0] for r in rows] == ["MUL0003", "SNG0779", "MUL1110"]  # |Δ GCA| 57.84, 0, 0: largest first
    for _, gca_a, gca_b, delta, *_ in rows:
        assert float(delta) == pytest.approx(float(gca_b) - float(gca_a), abs=0.011)
    clipped = page.evaluate(
        """() => [...document.querySelectorAll('.table-wrap')].filter(w => w.offsetParent !== null).map(w => {
        const r = w.getBoundingClientRect(); return w.scrollWidth > w.clientWidth + 1
        && getComputedStyle(w).overflowX !== 'auto' || r.right > innerWidth + 1; })"""
    )
    assert not any(clipped)
    nu = page.evaluate(
        "() => { const t = [...document.querySelectorAll('#disagreements th')].find(h => h.textContent === 'NU');"
        " const w = t.closest('.table-wrap').getBoundingClientRect(); const r = t.getBoundingClientRect();"
        " return r.right <= w.right + 1; }"
    )
    assert nu, "the NU column is cut off"
    page.locator("#unchanged input").check()
    page.wait_for_function("() => document.querySelector('#slots').textContent.includes('unchanged')")
    turns = page.evaluate(
        """() => { const turns = {}; document.querySelectorAll('#slots tr[data-slot]').forEach(r => {
        (turns[r.dataset.turn] = turns[r.dataset.turn] || []).push(r.dataset.slot);
        if (r.querySelectorAll('td.kinds').length !== 2) throw new Error('a row without both sets'); });
        return Object.values(turns); }"""
    )
    order = {}
    for slots in turns:
        for slot in slots:
            order.setdefault(slot, len(order))
    assert all(slots == sorted(slots, key=order.__getitem__) for slots in turns)  # one slot order in every turn
    shot(page, "three-dialogues-compare-1400")


PHONE = {"width": 390, "height": 844}
CUT_OFF_JS = """() => {
  // Every control, label, table and chart lies inside the window, or inside a box that scrolls
  // sideways; none is clipped by a box that hides overflow, and no label's text overflows it.
  const bad = [];
  const overflow = (a) => getComputedStyle(a).overflowX;
  for (const e of document.querySelectorAll(
      'button, input, textarea, table, svg.chart, .chip, label, h1, h2, p, th, .file-chip, .label-wrap .icon')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || e.closest('.hide, [hidden]')) continue;
    const name = e.tagName + '.' + e.className + ': ' + (e.textContent || '').trim().slice(0, 30);
    let scrolled = false;
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const o = overflow(a);
      if (o === 'auto' || o === 'scroll') { scrolled = true; break; }
      if (o === 'hidden' || o === 'clip') {
        const b = a.getBoundingClientRect();
        if (r.right > b.right + 1 || r.left < b.left - 1) { bad.push('clipped ' + name); break; }
      }
    }
    if (!scrolled && (r.left < -1 || r.right > innerWidth + 1)) bad.push('outside ' + name);
    if (e.tagName === 'LABEL' && e.scrollWidth > e.clientWidth + 1) bad.push('overflows ' + name);
  }
  if (document.documentElement.scrollWidth > innerWidth + 1) bad.push('page wider than the window');
  return bad;
}"""
BROKEN_WORDS_JS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll('#slots td.slot, #slots td.value, .chip, .legend-text')) {
    const text = cell.firstChild && cell.firstChild.nodeType === 3 ? cell.firstChild : null;
    if (!text) continue;
    const re = /[^\\s-]+/g; let m;
    while ((m = re.exec(text.data))) {
      const range = document.createRange(); range.setStart(text, m.index); range.setEnd(text, m.index + m[0].length);
      if (range.getClientRects().length > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""


def test_defect7_phone_width_nothing_cut_off_no_word_broken(visit, tmp_path):
    for query, name in (("", "first-example-390"), (ALL, "three-dialogues-390")):
        page = visit(query, **PHONE)
        settle(page, CUT_OFF_JS)  # the charts laid out
        assert page.evaluate(CUT_OFF_JS) == []
        assert page.evaluate(BROKEN_WORDS_JS) == []
        width = page.locator("#example").bounding_box()["width"]
        assert width >= 300, width  # the example dropdown is not squeezed
        _assert_chart_equals_table(page, ["P1", "P2"])
        shot(page, name)
    _upload(page, "a", tmp_path / "phone_upload.jsonl", _jsonl(FIRST, "P2"))  # leaves the example
    _wait_for_sets(page, ["phone_upload"])
    page.locator("#note-a").get_by_text("read and scored").wait_for()
    assert page.evaluate(CUT_OFF_JS) == []
    shot(page, "upload-390")
    page.locator("#data-a textarea").fill('{"MUL0003": {"0": {"gt": ]')
    page.click("#score")
    page.locator("#status-error").wait_for()
    settle(page, IN_VIEWPORT_JS, "#status-error")  # scrolled to
    assert _in_viewport(page, "#status-error") and page.evaluate(CUT_OFF_JS) == []
    shot(page, "invalid-json-390")


def test_defect8_errors_hide_views_without_page_errors_and_alpha_has_one_wording(visit):
    from dst_metrics.options import OptionError, parse_alpha

    with pytest.raises(OptionError) as caught:
        parse_alpha("ten")
    page = visit()
    page.locator("#alpha input, #alpha textarea").first.fill("ten")
    page.keyboard.press("Enter")
    page.locator("#status-error").wait_for()
    by_enter = page.locator("#status-error").inner_text()
    assert str(caught.value) in by_enter
    page.locator("#alpha input, #alpha textarea").first.fill("10/11")
    page.keyboard.press("Enter")
    _wait_for_figure(page, "gca", "P1", "73.33")
    page.locator("#alpha input, #alpha textarea").first.fill("ten")
    page.click("h1")
    page.locator("#status-error").wait_for()
    assert page.locator("#status-error").inner_text() == by_enter  # one wording, by Enter or by leaving
    page.locator("#data-a textarea").fill('{"MUL0003": {"0": {"gt": ]')
    page.locator("#alpha input, #alpha textarea").first.fill("10/11")
    page.click("#score")
    page.wait_for_function("() => document.querySelector('#status-error')?.textContent.includes('not valid JSON')")
    assert not page.locator("#bars").is_visible()
    shot(page, "invalid-json-1400")
    page.wait_for_timeout(500)  # a ResizeObserver error would arrive now; `visit` fails on any


def test_comparison_takeaway_and_url_state(visit):
    from dst_metrics import score

    page = visit(ALL)
    page.wait_for_selector("#compare table.compare-table")
    with pytest.warns(FloorWarning, match="no difference can be significant"):  # 3 dialogues
        expected = compare(_corpus(0), _corpus(1), Options(), names=("P1", "P2"))
    for key in MAIN:
        row = page.locator(f"#compare tr[data-metric='{key}'] td").all_inner_texts()
        diff = expected.figures[key]
        assert row[2] == f"{100 * diff.diff:+.2f}", (key, row)
        assert row[3] == f"[{100 * diff.ci[0]:+.2f}, {100 * diff.ci[1]:+.2f}]", (key, row)
        assert row[5] == ("yes" if diff.significant else "no")
    command = page.locator("#command").inner_text()
    assert "dst-metrics score set_a.json set_b.json --mode official --alpha 10/11 --fga-lambda 0.5" in command
    page.click("#prepare")
    page.locator("#downloads a[download='figures.json']").wait_for()  # the report draws its plots
    downloads = ("figures.csv", "dialogues.csv", "dialogues.json", "table.tex", "table.md", "report.html")
    for name in (*downloads, "model-index.yaml"):
        assert page.locator(f"#downloads a[download='{name}']").count() == 1
    href = page.locator("#downloads a[download='figures.json']").get_attribute("href")
    with DIRECT.open(href, timeout=10) as response:
        figures = json.loads(response.read())
    assert [s["set"] for s in figures["sets"]] == ["P1", "P2"]
    assert figures["sets"][0]["gca"] == score(_corpus(0)).scores.gca  # unrounded, as the library gives it
    assert figures["comparison"]["figures"]["gca"]["diff"] == pytest.approx(expected.figures["gca"].diff)
    assert "example=all" in page.url and "mode=official" in page.url
    shot(page, "takeaway-1400")

    linked = visit("?example=hypothetical&mode=corrected&k=20&dialogue=SNG0779")
    _wait_for_signature(linked, "mode:corrected|alpha:10/11|lambda:0.5|K:20")
    hypothetical = EXAMPLES["hypothetical"]
    expected = score(hypothetical.corpus("P2"), Options(mode="corrected", num_slots=20)).scores
    assert _figure(linked, "sa", "P2") == f"{100 * expected.sa:.2f}"
    assert linked.locator("#mode input[value='corrected']").is_checked()


def test_confidences_show_calibration_at_both_widths(visit):
    from dst_metrics.calibration.metrics import calibration
    from dst_metrics.readers import read

    expected = calibration(read(REPO / "examples" / "confidences.json")).figures
    for width, height in ((1400, 900), (PHONE["width"], PHONE["height"])):
        page = visit("?example=confidences", width=width, height=height)
        page.locator("#calibration td[data-metric='slot_ece']").wait_for()
        assert page.locator("#calibration td[data-metric='slot_ece']").inner_text() == f"{expected['slot_ece']:.2f}"
        assert page.locator("#calibration .reliability-bar").count() > 0
        _assert_chart_equals_table(page, ["scored"])
        if width == PHONE["width"]:
            assert page.evaluate(CUT_OFF_JS) == []
        shot(page, f"confidences-{width}")


def test_predictions_only_upload_with_a_gold_folder(visit):
    """An SGD prediction file is paired with the gold uploaded as several files (a folder)."""
    from dst_metrics import score
    from dst_metrics.readers import read

    fixtures = REPO / "tests" / "fixtures" / "sgd"
    page = visit()
    page.locator("#upload-a").locator("xpath=..").locator("input[type=file]").set_input_files(
        str(fixtures / "sgd_pred" / "dialogues_001.json")
    )
    page.locator("#status-error").wait_for()
    assert "holds predictions only" in page.locator("#status-error").inner_text()
    page.get_by_text("Gold file, for predictions-only formats").click()
    gold_files = [str(p) for p in sorted((fixtures / "sgd_gold").glob("*.json"))]
    page.locator("#upload-gold").locator("xpath=..").locator("input[type=file]").set_input_files(gold_files)
    expected = score(read(fixtures / "sgd_pred", gold=fixtures / "sgd_gold")).scores
    _wait_for_figure(page, "gca", "dialogues_001", f"{100 * expected.gca:.2f}")
    assert _figure(page, "jga", "dialogues_001") == f"{100 * expected.jga:.2f}"
    assert "--gold set_gold_files" in page.locator("#command").inner_text()
    shot(page, "gold-folder-1400")


def test_a_third_system_is_charted_and_compared_with_a(visit):
    page = visit(ALL)
    _settled(page, ["P1", "P2"], "3")  # the example of the URL has loaded: it would empty a C typed before
    page.get_by_text("A third and fourth system (sets C and D)").click()
    page.locator("#data-c textarea").wait_for(state="visible")
    page.wait_for_timeout(1000)  # the accordion's first opening mounts its boxes: typed at once, C may be lost
    page.locator("#data-c textarea").fill(_all_text(0))  # C holds A's predictions
    page.click("#score")
    _wait_for_sets(page, ["P1", "P2", "C"])
    _assert_chart_equals_table(page, ["P1", "P2", "C"])
    page.locator("#compare h3").nth(1).wait_for()
    assert page.locator("#compare h3").all_inner_texts() == ["P2 against P1", "C against P1"]
    same = page.locator("#compare table").nth(1).locator("tr[data-metric='gca'] td").all_inner_texts()
    assert same[2] == "+0.00" and same[5] == "no"  # C = A: no difference
    page.wait_for_function("() => document.querySelectorAll('#scatter .point[data-set=\"C\"]').length === 3")
    shapes = page.evaluate(  # the marker each point is drawn with, and its drawn size
        "() => [...document.querySelectorAll('#scatter .point')].map(g => [g.dataset.set, g.dataset.marker,"
        " g.firstElementChild.getBoundingClientRect().width])"
    )
    by_set = {name: {shape for other, shape, _ in shapes if other == name} for name, _, _ in shapes}
    assert len(by_set["C"]) == 1 and len(shapes) == 9 and all(width > 0 for *_, width in shapes)  # a third shape
    assert by_set["C"].isdisjoint(by_set["P1"] | by_set["P2"])
    shot(page, "three-systems-1400")


# --------------------------------------------------------------------------------------------
# Issue 23: quick clicks, options out of range, tables that fit, the URL as the state, stale sets


def _settled(page, names: list[str], dialogues: str) -> None:
    """Until the page shows `names` on `dialogues` dialogues and nothing changes for 2 s."""
    _wait_for_sets(page, names)
    _wait_for_figure(page, "dialogues", names[0], dialogues)
    page.wait_for_selector("#intervals-table, #intervals-one")  # the step after the figures ran too
    parts = "['#metrics', '#details', '#bars', '#intervals'].map(s => document.querySelector(s))"
    # what is drawn, without gradio's progress marks: a step still shown as pending when its figures are
    # already there is not a change
    page.wait_for_function(f"() => !{parts}.some(e => e.querySelector('.pending'))")
    drawn = f"() => {parts}.map(e => (e.querySelector('.prose') || e).innerHTML)"
    before = page.evaluate(drawn)
    page.wait_for_timeout(2000)
    assert page.evaluate(drawn) == before, "the page changed after it settled"


def test_issue23_quick_example_switches_and_uploads_settle_on_the_last_choice(visit, tmp_path):
    page = visit()
    for label in (
        "Section 5.4: the hypothetical dialogue, P1 vs P2",
        "Figure 6: MultiWOZ dialogue MUL1110",
        "All three paper dialogues as one corpus",
    ):  # each chosen as soon as the dropdown closes, while the previous one still computes
        choose(page, "example", label)
    _settled(page, ["P1", "P2"], "3")
    _assert_chart_equals_table(page, ["P1", "P2"])
    assert page.locator("#data-b textarea").input_value() != ""  # B's box holds the B that is drawn
    assert page.locator("#pair-scatter .point").count() == 3  # B against A, one point per dialogue
    page.locator("#compare table.compare-table").wait_for()
    assert "example=all" in page.url
    _upload(page, "a", tmp_path / "first.json", _all_text(0))
    _upload(page, "b", tmp_path / "second.json", _all_text(1))  # at once, before A's figures arrive
    _settled(page, ["first", "second"], "3")
    _assert_chart_equals_table(page, ["first", "second"])
    page.locator("#compare table.compare-table[data-a='first']").wait_for()
    shot(page, "issue23-quick-clicks-1400")


def test_issue23_an_option_out_of_range_says_why_and_keeps_the_figures(visit):
    page = visit()
    for field, value, valid in (("lambda", "-3", "0.5"), ("lambda", "0", "0.5"), ("k", "0", "30")):
        # each from the figures the valid value gave: the one before it put back and scored
        page.locator(f"#{field} input").fill(value)
        page.keyboard.press("Enter")
        page.locator("#status-error").wait_for()
        message = page.locator("#status-error").inner_text()
        expected = "an FGA lambda must be a number > 0" if field == "lambda" else "num_slots (K, slots per turn for SA)"
        assert expected in message and "still those of the last options that scored" in message, (field, value)
        settle(page, IDLE_JS)  # every output of the event drawn, gradio's error pill with it
        pills = page.evaluate(
            "() => [...document.querySelectorAll('#scores-col *, #compare-col *, #slots-col *, #analysis-col *')]"
            ".filter(e => e.offsetParent !== null && e.children.length === 0 && e.textContent.trim() === 'Error')"
            ".length"
        )
        assert pills == 0, (field, value)  # no component covered by gradio's error pill
        assert _figure(page, "gca", "P1") == "73.33"  # the last good figures, still readable
        _assert_chart_equals_table(page, ["P1", "P2"])
        assert "lambda=0.5" in page.url and "k=30" in page.url  # the URL names what the figures were computed with
        page.locator(f"#{field} input").fill(valid)
        page.keyboard.press("Enter")
        page.locator("#status-ok").wait_for()
        settle(page, IDLE_JS)


def _table_widths(page) -> list[dict]:
    return page.evaluate(
        """() => [...document.querySelectorAll('.table-wrap')].filter(w => w.offsetParent !== null).map(w => {
        const t = w.querySelector('table'); const first = t.querySelector('tbody tr > *:first-child');
        const box = first ? first.getBoundingClientRect() : null;
        return {table: t.id || t.className, width: t.scrollWidth, room: w.clientWidth,
                scrolls: getComputedStyle(w).overflowX, first: box && [box.left, box.right]}; })"""
    )


CARD_CELLS_SPILL_JS = """() => {
  const bad = [];
  for (const cell of document.querySelectorAll('#slots .slot-table td')) {
    const box = cell.getBoundingClientRect();
    if (!box.width) continue;
    const name = (cell.dataset.label || '') + ' ' + cell.textContent.trim().slice(0, 20);
    if (cell.scrollWidth > cell.clientWidth + 1) bad.push('spills: ' + name);
    const label = parseFloat(getComputedStyle(cell, '::before').width) || 0;
    for (const chip of cell.querySelectorAll('.chip')) {
      const r = chip.getBoundingClientRect();
      if (r.left < box.left + label - 1 || r.right > box.right + 1) bad.push('chip over its label: ' + name);
    }
  }
  return bad;
}"""


def test_issue23_tables_fit_at_1400_and_read_at_390_with_long_file_names(visit):
    long_a = "MLCSG_TRADE_reference_layout_predictions_seed42.json"
    long_b = "T5_zero_shot_predictions_restaurant_domain_v2.json"
    for width in (1400, 390):
        page = visit(ALL, width=width)
        page.locator("#name-a input").fill(long_a)
        page.keyboard.press("Enter")
        page.locator("#name-b input").fill(long_b)
        page.keyboard.press("Enter")
        _wait_for_sets(page, [long_a, long_b])
        page.locator(f"#compare table.compare-table[data-a='{long_a}']").wait_for()
        settle(page, IDLE_JS)  # every table drawn again with the new names
        tables = _table_widths(page)
        assert len(tables) >= 7, tables
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # no sideways page
        for table in tables:
            if width == 1400:
                assert table["width"] <= table["room"] + 1, table  # every column shown
            else:  # narrower than the table: it scrolls in its box, its first column stays on screen
                assert table["width"] <= table["room"] + 1 or table["scrolls"] == "auto", table
                if table["first"]:
                    assert 0 <= table["first"][0] and table["first"][1] <= width, table
        if width == 390:  # the per-turn cards: a long set name's label wraps beside its chips, none spills
            assert page.evaluate(CARD_CELLS_SPILL_JS) == []
        shot(page, f"issue23-long-names-{width}")


def test_issue23_the_url_is_what_is_shown_and_reloading_restores_it(visit):
    page = visit(ALL)
    choose(page, "dialogue", "MUL1110")
    page.wait_for_function("() => document.querySelector('#slots').textContent.includes('Dialogue MUL1110')")
    page.locator("#unchanged input").check()
    page.wait_for_function("() => location.search.includes('unchanged=1')")
    assert "dialogue=MUL1110" in page.url
    page.locator("#lambda input").press("ArrowUp")  # changes the box, not yet the figures
    page.wait_for_timeout(800)
    assert "lambda=0.5" in page.url
    page.locator("#lambda input").press("Enter")
    _wait_for_signature(page, "lambda:0.75|")
    page.wait_for_function("() => location.search.includes('lambda=0.75')")
    page.locator("#scatter .point[data-dialogue='SNG0779']").first.click()  # also leaves the λ box
    page.wait_for_function("() => location.search.includes('dialogue=SNG0779')")
    settle(page, IDLE_JS)  # leaving the box asked for the figures shown: not computed again, nothing reset
    assert "dialogue=SNG0779" in page.url and "Dialogue SNG0779" in page.locator("#slots .slot-title").inner_text()
    restored = visit(page.url.removeprefix(page.url.split("?")[0]))
    restored.wait_for_function("() => document.querySelector('#slots').textContent.includes('Dialogue SNG0779')")
    assert restored.locator("#unchanged input").is_checked()
    _wait_for_signature(restored, "lambda:0.75|")
    assert restored.locator("#slots").get_by_text("unchanged").count() > 0


def test_issue23_a_new_a_is_never_blocked_by_an_older_b_and_one_dialogue_is_not_tested(visit, tmp_path):
    page = visit()
    page.locator("#compare-one").wait_for()  # the first example is one dialogue: a note, no interval
    assert page.locator("#compare table.compare-table").count() == 0
    _upload(page, "a", tmp_path / "mine.jsonl", _jsonl(FIRST, "P1"))
    _upload(page, "b", tmp_path / "theirs.jsonl", _jsonl(FIRST, "P2"))
    _settled(page, ["mine", "theirs"], "1")
    mul1110 = EXAMPLES["mul1110"]
    _upload(page, "a", tmp_path / "new.jsonl", _jsonl(mul1110, next(iter(mul1110.predictions))))
    _settled(page, ["new"], "1")
    status = page.locator("#status-ok").inner_text()
    assert "Set B ('theirs') is left out" in status and "do not cover the same dialogues" in status
    _assert_chart_equals_table(page, ["new"])


def test_issue23_a_compatibility_profile_on_the_page(visit):
    from dst_metrics.space.inputs import page_profiles

    page = visit(ALL)
    label = next(label for label, name in page_profiles() if name == "fnctod")
    choose(page, "compat", label)
    _wait_for_signature(page, "compat:fnctod")
    _assert_chart_equals_table(page, ["P1", "P2"])
    page.wait_for_function("() => location.search.includes('compat=fnctod')")
    page.locator("#compare-compat").wait_for()
    assert "--compat fnctod" in page.locator("#command").inner_text()
    shot(page, "issue23-compat-1400")


# --------------------------------------------------------------------------------------------
# Issue 36: the Space, fourth version


def test_issue36_a_pasted_set_leaves_the_example_and_its_link_shows_no_other_figures(visit):
    page = visit(ALL)
    _wait_for_sets(page, ["P1", "P2"])
    # The issue's reproducer: select all of set A and paste another file (one input event with the whole text).
    page.locator("#data-a textarea").fill(_jsonl(FIRST, "P2"))
    page.click("#score")
    _wait_for_sets(page, ["own data"])
    published = FIRST.published["P2"]
    assert _figure(page, "gca", "own data") == f"{published['gca']:.2f}"  # 15.49: the pasted file's, not 59.91
    assert _figure(page, "jga", "own data") == f"{published['jga']:.2f}"
    assert page.locator("#name-a input").input_value() == "own data"
    assert page.locator("#example input").input_value() == ""
    assert "Your own data" in page.locator("#example-note").inner_text()
    page.wait_for_function("() => location.search.includes('data=own')")
    assert "example=" not in page.url
    shot(page, "issue36-pasted-own-data-1400")
    # The link opens no figures at all (own data is never in a URL), and says why.
    shared = visit(page.url.removeprefix(page.url.split("?")[0]), ready="#status-ok")
    assert "Nothing to score yet" in shared.locator("#status-ok").inner_text()
    assert "made from someone's own data" in shared.locator("#example-note").inner_text()
    assert (
        shared.locator('#metrics td[data-metric="gca"]').count() == 0 or not shared.locator("#scores-col").is_visible()
    )
    shot(shared, "issue36-own-data-link-1400")


def test_issue36_k_below_a_turns_slots_keeps_the_figures_and_k_must_be_whole(visit):
    page = visit(ALL)
    _wait_for_sets(page, ["P1", "P2"])
    gca = _figure(page, "gca", "P1")
    for value, expected in (
        ("5", "is 5, but this turn has 7 slots"),  # MUL0003 turn 2 has 7 slots (gold and prediction together)
        ("2.5", "must be a whole number >= 1; got 2.5"),  # refused, not cut to 2
    ):
        page.locator("#k input").fill(value)
        page.keyboard.press("Enter")
        page.wait_for_function(
            "(e) => (document.querySelector('#status-error')?.textContent || '').includes(e)", arg=expected
        )
        assert "still those of the last options that scored" in page.locator("#status-error").inner_text()
        assert page.locator("#scores-col").is_visible() and _figure(page, "gca", "P1") == gca
        _assert_chart_equals_table(page, ["P1", "P2"])
        assert "k=30" in page.url
    shot(page, "issue36-k-too-small-1400")


def test_issue36_uploads_say_what_happened_at_their_button_and_the_server_logs_no_error(visit, space_server, tmp_path):
    page = visit()
    before = space_server.errors()
    one_turn = json.dumps({"dialogue_id": "D1", "turn_id": 0, "gt": {"hotel-area": "north"}, "pr": {}}) + "\n"
    _upload(page, "a", tmp_path / "one.jsonl", one_turn)
    page.locator("#note-a").get_by_text("read and scored (1 turn)").wait_for()
    dstc2 = REFERENCE / "dstc2" / "baseline.track.json"
    if dstc2.exists():
        page.locator("#upload-b").locator("xpath=..").locator("input[type=file]").set_input_files(str(dstc2))
        page.locator("#note-b-error").wait_for()
        assert "dst-metrics dstc2 --trackfile" in page.locator("#note-b-error").inner_text()
        assert "DSTC2 tracker output" in page.locator("#status-error").inner_text()
        shot(page, "issue36-dstc2-at-its-button-1400")
        page.click("#empty-b")
    trade = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"
    if trade.exists():
        page.locator("#upload-a").locator("xpath=..").locator("input[type=file]").set_input_files(str(trade))
        page.locator("#note-a").get_by_text("read and scored (7,368 turns)").wait_for()
        from dst_metrics.space.inputs import page_profiles

        for label, name in page_profiles()[:3]:  # the profile changed after the upload (issue 36: 13 errors logged)
            choose(page, "compat", label)
            _wait_for_signature(page, f"compat:{name}")
    page.wait_for_timeout(1000)
    assert space_server.errors() == before, space_server.log.read_text()[-3000:]


CHART_TEXT_JS = """() => [...document.querySelectorAll('svg.chart')].filter(s => s.getBoundingClientRect().width > 0)
  .flatMap(s => { const scale = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
    return [...s.querySelectorAll('text')].map(t => ({text: t.textContent,
      px: parseFloat(getComputedStyle(t).fontSize) * scale})); }).filter(t => t.px < 10.95)
  .map(t => `${t.text} ${t.px.toFixed(1)}px`)"""


def test_issue36_legible_contrast_whole_words_chart_text_and_scroll_cues(visit):
    page = visit(ALL, width=1400, height=900)
    _wait_for_sets(page, ["P1", "P2"])
    page.locator("#compare table.compare-table").first.wait_for()
    page.locator("#intervals table").first.wait_for()
    settle(page, IDLE_JS)

    def legible(width: int) -> None:
        shot(page, f"issue36-legibility-{width}")
        found = {"broken": page.evaluate(WORDS_BROKEN_JS), "contrast": low_contrast(page)}
        if width < 640:
            found["chart text"] = page.evaluate(CHART_TEXT_JS)
        assert found == {name: [] for name in found}, width

    at_sizes(page, SIZES, legible)


def test_issue36_a_profiles_figures_are_marked_and_beside_ours(visit):
    from dst_metrics.space.inputs import page_profiles

    page = visit(ALL)
    label = next(label for label, name in page_profiles() if name == "fnctod")
    choose(page, "compat", label)
    _wait_for_signature(page, "compat:fnctod")
    table = page.locator("#compat-table")
    table.wait_for()
    expected = score(_corpus(0), compat="fnctod").scores

    def marked(width: int) -> None:
        average = table.locator("td[data-metric='average_jga'][data-set='P1'][data-side='theirs']").inner_text()
        assert average == f"{100 * expected['average_jga']:.2f}"  # FnCTOD's average JGA, shown
        mark = page.evaluate(
            "() => getComputedStyle(document.querySelector('#metrics td.compat[data-metric=\"jga\"]'), '::after')"
            ".content"
        )
        assert "†" in mark and page.locator(".compat-note").first.is_visible()
        assert page.locator("#metrics td[data-metric='gca'].compat").count() == 0  # GCA keeps ours
        _assert_chart_equals_table(page, ["P1", "P2"])
        shot(page, f"issue36-compat-side-by-side-{width}")

    at_sizes(page, SIZES, marked)


def test_issue36_the_api_is_score_and_compare_and_score_answers_from_a_client(server_url, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    client_module = pytest.importorskip("gradio_client")
    client = client_module.Client(server_url, verbose=False)
    api = client.view_api(print_info=False, return_format="dict")
    named = set(api["named_endpoints"])
    assert named == {"/score", "/compare", "/table", "/checkdst", "/sgdx"} and not api["unnamed_endpoints"]
    answer = client.predict(_jsonl(FIRST, "P1"), api_name="/score")
    published = FIRST.published["P1"]
    assert round(100 * answer["figures"]["gca"], 2) == published["gca"]  # 73.33, the GCA paper's Figure 1
    assert round(100 * answer["figures"]["jga"], 2) == published["jga"]
    assert answer["turns"] == len(FIRST.gold) and answer["dialogues"] == 1 and answer["format"] == "jsonl"
    assert answer["signature"].startswith("dst-metrics:") and "|K:30|" in answer["signature"]
    with pytest.raises(Exception, match="num_slots"):
        client.predict(_jsonl(FIRST, "P1"), num_slots=2.5, api_name="/score")
    with pytest.raises(Exception, match="not valid JSON"):
        client.predict('{"MUL0003": {"0": {"gt": ]', api_name="/score")
    compared = client.predict(_all_text(0), _all_text(1), resamples=200, api_name="/compare")
    with pytest.warns(FloorWarning, match="no difference can be significant"):  # 3 dialogues
        expected = compare(_corpus(0), _corpus(1), Options(), resamples=200, names=("A", "B"))
    assert compared["figures"]["gca"]["diff"] == pytest.approx(expected.figures["gca"].diff)
    with pytest.raises(ValueError):  # gradio_client's refusal, by its type (its words are its own: issue 56)
        client.predict(api_name="/compute")  # the page's own events are not callable


def test_issue36_the_metric_card_comes_first_and_its_widget_scores_typed_turns(visit):
    # typed at 390 px: a text box grows to its text as it is typed, not when the page is resized after
    page = visit(width=390)
    phone_first = SIZES[::-1]
    page.locator("#metric-card .label-wrap").click()  # closed on arrival (issue 47): one click away
    card = page.locator("#metric-card-text")

    def up_front(width: int) -> None:
        assert card.is_visible() and "α = 10/11" in card.inner_text()
        scores_top = page.locator("#scores-col").bounding_box()["y"]
        assert card.bounding_box()["y"] < page.locator("#example").bounding_box()["y"] < scores_top, width

    at_sizes(page, phone_first, up_front)
    page.locator("#try-states textarea").fill(
        "hotel-area=north | hotel-area=north\nhotel-area=north | hotel-area=south"
    )
    page.click("#try-score")
    # C 1, W 1 (the area, turn 1), M 0, O 0: P = G = 2, VP = VR = 1/2, LP = LR = 1 -> GCA = 4 / (10/11 * 8 + 2/11)
    gca = 4 / (10 / 11 * 2 * 2 / 0.5 + 1 / 11 * 2 * 2)
    page.wait_for_function(
        "(t) => document.querySelector('#try-result')?.textContent.includes(t)", arg=f"GCA {100 * gca:.2f}"
    )

    def scored(width: int) -> None:
        assert "JGA 50.00" in page.locator("#try-result").inner_text()
        assert page.evaluate(WORDS_BROKEN_JS) == [] and low_contrast(page) == []
        shot(page, f"issue36-metric-card-{width}")

    at_sizes(page, phone_first, scored)


def test_issue36_a_closed_tab_leaves_no_session_behind(browser, tmp_path, monkeypatch):
    """The page state gradio keeps per session (every view's last HTML, the corpora in gr.State) goes when
    the tab closes (`Page.closed` on `demo.unload`), not an hour later or at the 10,000th session."""
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path))
    from dst_metrics.space.page import build_demo

    demo = build_demo()
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector('#metrics td[data-set="P1"]')  # laid out with the page, before any event
        page.locator("#systems-col").wait_for()  # shown at the end of the page's first event
        sessions = demo.state_holder.session_data
        assert len(sessions) == 1 and next(iter(sessions.values())).state_data  # the results are held
        context.close()
        deadline = time.monotonic() + 30
        while sessions and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not sessions
    finally:
        demo.close()
