"""Issue 47 in Chromium: the first screen (data, Score, figures), the per-turn view before the protocol sections,
in-page links that keep the visitor's data, a URL that names only what is shown, contrast of every text and
button, no stray horizontal scroll, and the link preview. The server and browser of tests/space_browser.py."""

from __future__ import annotations

import json
import time

import pytest

from dst_metrics.space.examples import EXAMPLES

from .space_browser import ARTIFACTS, QUIET_JS, WORDS_BROKEN_JS, at_sizes, contrasts, shot

pytestmark = pytest.mark.slow

TOP_JS = """(s) => { const e = document.querySelector(s);
  return e && e.offsetParent ? e.getBoundingClientRect().top + scrollY : null; }"""
BOTTOM_JS = """(s) => { const e = document.querySelector(s);
  return e && e.offsetParent ? e.getBoundingClientRect().bottom + scrollY : null; }"""
PLACEHOLDERS = ("#downloads", "#systems-command", "#systems-downloads", "#checkdst-command", "#sgdx-command")


def _contrast(page) -> dict:
    """Every visible text, buttons and the footer included: by colour pair, its lowest contrast ratio."""
    found = contrasts(page, "svg, .cm-editor, [aria-hidden=true]")
    (ARTIFACTS / f"issue47-contrast-{page.viewport_size['width']}.json").write_text(json.dumps(found, indent=1))
    return found


def test_issue47_first_screen_order_placeholders_contrast_and_preview(visit):
    sizes = ((1400, 900), (390, 844))
    page = visit(width=1400, height=900)
    score_top = {}

    def first_screen(width: int) -> None:
        height = page.viewport_size["height"]
        shot(page, f"issue47-first-{width}")
        top = {s: page.evaluate(TOP_JS, s) for s in ("#example", "#upload-a", "#score", "#metrics", "#slots-col")}
        score_top[width] = top["#score"]
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

    at_sizes(page, sizes, first_screen)
    # the metric card is one click away and opening it leaves Score where it was
    page.locator("#metric-card .label-wrap").click()
    page.locator("#metric-card-text").wait_for()

    def card_open(width: int) -> None:
        assert "α = 10/11" in page.locator("#metric-card-text").inner_text()
        assert page.evaluate(TOP_JS, "#score") > score_top[width]  # it opens above (the visitor asked for it)

    at_sizes(page, sizes, card_open)
    page.locator("#metric-card .label-wrap").click()

    def card_closed(width: int) -> None:
        page.wait_for_function(
            "(y) => Math.abs(document.querySelector('#score').getBoundingClientRect().top + scrollY - y) < 2",
            arg=score_top[width],
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

    at_sizes(page, sizes, card_closed)


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
    shot(page, "issue47-own-data-1400")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "issue47-own-data-390")
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


def test_issue60_the_served_page_s_link_preview_is_ours_alone(space_server):
    """What a site that shows a link reads (no script runs): one tag per property, each HEAD's; gradio's "Gradio"
    and "Click to try out the app!" tags are not served, whatever their wording."""
    import urllib.request

    from dst_metrics.space.served_head import META_TAG, PREVIEW_PREFIXES, meta_property
    from dst_metrics.space.style import page_head

    HEAD = page_head("example=first_example")

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(space_server.url + "?example=all", timeout=30) as response:
        served = response.read().decode("utf-8")
    tags = [meta_property(tag) for tag in META_TAG.findall(served.split("</head>")[0])]
    preview = [(name, content) for name, content in tags if name.startswith(PREVIEW_PREFIXES) or name == "description"]
    assert preview == [meta_property(tag) for tag in META_TAG.findall(HEAD)], preview
    assert any(name == "" for name, _ in tags)  # <meta charset> is kept


FRAMES_JS = """(() => { window.frameTimes = new Set(); window.changeTimes = [];
  const native = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) => native((time) => { window.frameTimes.add(time); callback(time); });
  new MutationObserver(() => window.changeTimes.push(performance.now()))
    .observe(document, {childList: true, subtree: true, attributes: true, characterData: true});
})();"""
"""Before any of the page's scripts: the time of each animation frame its scripts are given, and of each change
of the page (a change may draw at full speed for a second: `style.IDLE_FRAMES_JS`)."""
IDLE_FRAMES_JS = """(since) => [...window.frameTimes].filter((time) => time > since
  && !window.changeTimes.some((change) => change <= time && time - change < 1100)).length"""
"""The frames after `since` that no change of the page in the second before asked for."""


@pytest.mark.parametrize("width", [1400, 390])
def test_issue60_an_idle_page_draws_at_most_two_frames_a_second(browser, server_url, width):
    """After the figures and everything after them, nothing changing: at most 2 animation frames a second over 10 s
    (60 with gradio 6.31's page-loader timer running on after its tracker is gone). A change of the page (gradio
    announces "complete" to screen readers some seconds later) may draw for a second: those frames are not idle."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        context.add_init_script(FRAMES_JS)
        page = context.new_page()
        page.goto(server_url)
        page.wait_for_selector('#metrics td[data-set="P1"]')
        page.evaluate(QUIET_JS, 2)
        since = page.evaluate("() => performance.now()")
        time.sleep(10)  # not Playwright's wait, which asks the page for frames
        frames = page.evaluate("() => window.frameTimes.size")
        idle = page.evaluate(IDLE_FRAMES_JS, since)
        changes = page.evaluate("(since) => window.changeTimes.filter((time) => time > since).length", since)
        assert idle <= 20, (
            f"{idle} frames in 10 s at {width} px with nothing changing ({frames} in all, {changes} changes)"
        )
        shot(page, f"issue60-idle-{width}")
    finally:
        context.close()
