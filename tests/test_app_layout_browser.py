"""Issue 47 in Chromium: the first screen (data, Score, figures), the per-turn view before the protocol sections,
in-page links that keep the visitor's data, a URL that names only what is shown, contrast of every text and
button, no stray horizontal scroll, and the link preview. One server for the module (as test_app_browser.py)."""

from __future__ import annotations

import json

import pytest

from dst_metrics.readers.examples import EXAMPLES

from . import test_app_browser as space_browser
from .test_app_browser import ARTIFACTS, WORDS_BROKEN_JS, _shot

pytestmark = pytest.mark.slow
browser = space_browser.browser  # the fixtures: this module's own server, one browser
server_url = space_browser.server_url
visit = space_browser.visit

CONTRAST_JS = """() => {
  // Every visible text (buttons included) against its effective background: WCAG ratios by colour pair.
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const behind = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3); } return [255, 255, 255]; };
  const found = {};
  const walker = document.createTreeWalker(document.querySelector('gradio-app') || document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const e = t.parentElement;
    if (!t.data.trim() || !e || !e.offsetParent || e.closest('svg, .cm-editor, [aria-hidden=true]')) continue;
    const style = getComputedStyle(e); const color = rgb(style.color);
    if (color.length === 4 && color[3] < 1) continue;
    const back = behind(e); const [a, b] = [lum(color), lum(back)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const key = `${e.closest('button') ? 'button ' : ''}${style.color} on rgb(${back.join(', ')})`;
    if (!(key in found) || ratio < found[key].ratio) {
      found[key] = {ratio: +ratio.toFixed(2), text: t.data.trim().slice(0, 30)}; }
  }
  return found;
}"""
TOP_JS = """(s) => { const e = document.querySelector(s);
  return e && e.offsetParent ? e.getBoundingClientRect().top + scrollY : null; }"""
BOTTOM_JS = """(s) => { const e = document.querySelector(s);
  return e && e.offsetParent ? e.getBoundingClientRect().bottom + scrollY : null; }"""
PLACEHOLDERS = ("#downloads", "#systems-command", "#systems-downloads", "#checkdst-command", "#sgdx-command")


def _contrast(page) -> dict:
    found = page.evaluate(CONTRAST_JS)
    (ARTIFACTS / f"issue47-contrast-{page.viewport_size['width']}.json").write_text(json.dumps(found, indent=1))
    return found


@pytest.mark.parametrize(("width", "height"), [(1400, 900), (390, 844)])
def test_issue47_first_screen_order_placeholders_contrast_and_preview(visit, width, height):
    page = visit(width=width, height=height)
    _shot(page, f"issue47-first-{width}")
    top = {s: page.evaluate(TOP_JS, s) for s in ("#example", "#upload-a", "#score", "#metrics", "#slots-col")}
    score_bottom = page.evaluate(BOTTOM_JS, "#score")
    if width == 1400:  # data (example, paste, upload) and Score in the first screen, figures within 1.5 screens
        assert page.evaluate(BOTTOM_JS, "#upload-a") <= height and score_bottom <= height, top
        assert top["#metrics"] < 1.5 * height, top
    else:
        assert score_bottom < 2 * height, top
    # the per-turn view right after the figures, before the comparison and the protocol sections
    order = [page.evaluate(TOP_JS, s) or 1e9 for s in ("#metrics", "#slots-col", "#compare-col", "#systems-col")]
    assert order == sorted(order) and order[1] < 1e9, order
    assert [s for s in PLACEHOLDERS if page.locator(s).is_visible()] == []
    # the metric card is one click away and opening it leaves Score where it was
    page.locator("#metric-card .label-wrap").click()
    page.locator("#metric-card-text").wait_for()
    assert "α = 10/11" in page.locator("#metric-card-text").inner_text()
    assert page.evaluate(TOP_JS, "#score") > top["#score"]  # it opens above (the visitor asked for it)
    page.locator("#metric-card .label-wrap").click()
    page.wait_for_function(
        "(y) => Math.abs(document.querySelector('#score').getBoundingClientRect().top + scrollY - y) < 2",
        arg=top["#score"],
    )
    ratios = _contrast(page)
    assert {k: v for k, v in ratios.items() if v["ratio"] < 4.5} == {}
    assert any(key.startswith("button rgb(255, 255, 255)") for key in ratios), ratios  # Score's white on its colour
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    assert page.locator("#systems-baseline input").input_value() == "the first system"
    head = page.evaluate(  # the last tag of each name wins
        "() => Object.fromEntries([...document.head.querySelectorAll('meta[name=description], meta[property^=og]')]"
        ".map((m) => [m.getAttribute('name') || m.getAttribute('property'), m.content]))"
    )
    assert "Granular Change Accuracy" in head["description"], head
    assert "GCA explorer" in head["og:title"] and "dialogue state" in head["og:description"], head


def _reference_text(prediction: str) -> str:
    example = EXAMPLES["first_example"]
    turns = {str(i): {"gt": g, "pr": p} for i, (g, p) in enumerate(zip(example.gold, example.predictions[prediction]))}
    return json.dumps({example.dialogue_id: turns})


def test_issue47_own_data_keeps_its_url_honest_and_the_jump_link_keeps_the_data(visit):
    page = visit(width=1400, height=900)
    assert "example=first_example" in page.evaluate("location.search")
    own = _reference_text("P2")
    page.fill("#data-a textarea", own)
    # pasted, not scored: the example's figures are gone and the URL names no example
    page.wait_for_function("() => document.querySelector('#status')?.textContent.includes('Not yet scored')")
    assert not page.locator("#metrics").is_visible()
    assert "example=" not in page.evaluate("location.search")
    page.fill("#data-b textarea", "")
    page.fill("#name-a input", "trade_dst_own")
    page.click("#score")
    page.wait_for_function("() => location.search.includes('data=own')")
    page.locator('#metrics td[data-metric="gca"]').first.wait_for()
    assert "15.49" in page.locator("#metrics").inner_text()  # P2's published GCA (the GCA paper's Figure 1)
    _shot(page, "issue47-own-data-1400")
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(300)
    _shot(page, "issue47-own-data-390")
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    page.set_viewport_size({"width": 1400, "height": 900})
    assert page.evaluate(WORDS_BROKEN_JS.replace("-/_,.|=&:", "-/,.|=&:")) == []  # no break after `_` either
    # the in-page link scrolls, keeps the URL and the pasted data
    search = page.evaluate("location.search")
    page.evaluate("window.scrollTo(0, 0)")
    page.click("text=jump to the scores")
    page.wait_for_function("() => document.querySelector('#scores-col').getBoundingClientRect().top < 5")
    assert page.evaluate("location.search") == search and page.locator("#data-a textarea").input_value() == own
    # an emptied λ says what it takes
    page.fill("#lambda input", "")
    page.locator("#lambda input").blur()
    page.wait_for_function("() => document.querySelector('#status')?.textContent.includes('λ (FGA decay) is empty')")
    assert "got None" not in page.locator("#status").inner_text()
    page.fill("#lambda input", "0.5")
    page.locator("#lambda input").blur()
    # a failed score: the URL names no example and no options of figures no longer shown
    page.fill("#data-a textarea", "{not json")
    page.click("#score")
    page.wait_for_selector("#status-error")
    page.wait_for_function("() => location.search === ''")
    assert not page.locator("#metrics").is_visible()
