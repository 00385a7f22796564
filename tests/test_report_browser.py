"""The report page in headless Debian Chromium (Playwright, nothing downloaded) at a desktop's
1400 px and a phone's 390 px: every plot loads with a size, nothing is wider than the window
except inside the tables' scroll boxes, the tables show the library's figures, and the page asks
for nothing outside itself. Pages and screenshots (unless DST_METRICS_SCREENSHOTS=0) go to
test-artifacts/report/. Chromium is the session's (tests/conftest.py's `browser`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import needs

pytest.importorskip("matplotlib", reason=needs("report", "matplotlib"))

from dst_metrics import Options, read, score  # noqa: E402
from dst_metrics.report import build_report, collect  # noqa: E402
from dst_metrics.stats import bootstrap_intervals, compare  # noqa: E402

from .conftest import REPO, requires_shared  # noqa: E402
from .space_browser import save_screenshot  # noqa: E402
from .test_report import P1, P2, RESTAURANT, with_gold_in  # noqa: E402

ARTIFACTS = REPO / "test-artifacts" / "report"
WIDTHS = {"desktop": 1400, "phone": 390}
HEIGHT = 900
RESAMPLES = 300

pytestmark = pytest.mark.slow

LAYOUT_JS = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = el => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if ((r.right > width + 1 || r.left < -1) && !scrolls(el)) wide.push(`${el.tagName}#${el.id} ${r.left}..${r.right}`);
  }
  const images = [...document.querySelectorAll('svg.chart')].map(s => ({
    marks: s.querySelectorAll('path, use, text').length, height: s.getBoundingClientRect().height,
    shown: s.getBoundingClientRect().width, alt: s.getAttribute('aria-label'),
    title: s.querySelector('title')?.textContent}));
  return {width, scrollWidth: document.documentElement.scrollWidth, wide, images};
}"""
CELLS_JS = """() => [...document.querySelectorAll('#metrics td[data-figure]')].map(
  td => [td.dataset.system, td.dataset.figure, td.innerText.replace(/\\s+/g, ' ').trim()])"""


def expected_cells(named_corpora, seed: int) -> dict[tuple[str, str], str]:
    """What the #metrics table must show, from the library: 'value low–high' in percent."""
    cells = {}
    for name, corpus in named_corpora:
        scores = score(corpus).scores
        intervals = bootstrap_intervals(corpus, Options(), resamples=RESAMPLES, seed=seed)
        for key, value in scores.items():
            if key in intervals:
                low, high = intervals[key]
                cells[name, key] = f"{100 * value:.2f} {100 * low:.2f}–{100 * high:.2f}"
            else:
                cells[name, key] = str(value)
    return cells


def check_page(browser, page_path: Path, expected: dict, stem: str) -> None:
    requests: list[str] = []
    for label, width in WIDTHS.items():
        page = browser.new_page(viewport={"width": width, "height": HEIGHT})
        page.on("request", lambda request: requests.append(request.url))
        page.goto(page_path.as_uri())
        page.wait_for_load_state("load")
        page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        layout = page.evaluate(LAYOUT_JS)
        save_screenshot(page, ARTIFACTS / f"{stem}-{label}.png", full_page=True)
        cells = {(system, key): text for system, key, text in page.evaluate(CELLS_JS)}
        page.close()
        assert layout["scrollWidth"] <= layout["width"], (label, layout["scrollWidth"], layout["wide"][:5])
        assert not layout["wide"], (label, layout["wide"][:5])
        assert layout["images"], "no plot on the page"
        for image in layout["images"]:
            assert image["marks"] > 10 and image["height"] > 0, image  # a chart drawn, not an empty box
            assert 0 < image["shown"] <= width and image["alt"] and image["title"] == image["alt"], image
        assert cells and all(text == expected[key] for key, text in cells.items()), [
            (key, text, expected[key]) for key, text in cells.items() if text != expected[key]
        ][:5]
    outside = [url for url in requests if not url.startswith(("file:", "data:"))]
    assert not outside, outside


def test_two_systems_report_in_chromium(browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    named = [("first_example_p1.json", read(str(P1))), ("first_example_p2.json", read(str(P2)))]
    data = collect(named, resamples=RESAMPLES, seed=0)
    page_path = ARTIFACTS / "first-example.html"
    page_path.write_text(build_report(data), encoding="utf-8")
    check_page(browser, page_path, expected_cells(named, 0), "first-example")


@requires_shared
def test_t5_report_in_chromium(browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    restaurant = read(str(RESTAURANT))
    better = with_gold_in(restaurant)
    named = [("T5 restaurant (zero-shot)", restaurant), ("T5 restaurant, 10% of dialogues given gold", better)]
    data = collect(named, resamples=RESAMPLES, seed=0)
    page_path = ARTIFACTS / "t5-restaurant.html"
    page_path.write_text(build_report(data), encoding="utf-8")
    check_page(browser, page_path, expected_cells(named, 0), "t5-restaurant")
    found = compare(restaurant, better, Options(), resamples=RESAMPLES, seed=0, names=tuple(n for n, _ in named))
    assert found.figures["jga"].diff > 0 and found.mcnemar.a_only == 0  # the copy only gains turns


PROTOCOL_CELLS_JS = """() => [...document.querySelectorAll('#protocols td[data-figure]')].map(
  td => [td.closest('table').id, td.dataset.system, td.dataset.figure, td.innerText.trim()])"""


def test_report_with_protocols_in_chromium(browser, capsys):
    """`dst-metrics report` with CheckDST's perturbed files and a set carrying confidences: the page's
    layout holds at both widths, and each protocol cell shows what `checkdst --json` gives."""
    import json

    from dst_metrics.cli import main

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    confidences = str(REPO / "examples" / "confidences.json")
    page_path = ARTIFACTS / "protocols.html"
    argv = ["report", str(P1), confidences, "--perturbed", str(P2), "--perturbed", confidences]
    assert main([*argv, "--bootstrap", str(RESAMPLES), "--seed", "0", "-o", str(page_path)]) == 0
    capsys.readouterr()
    named = [(Path(P1).name, read(str(P1))), ("confidences.json", read(confidences))]
    check_page(browser, page_path, expected_cells(named, 0), "protocols")
    expected = {}
    for name, path, perturbed in ((Path(P1).name, str(P1), str(P2)), ("confidences.json", confidences, confidences)):
        assert main(["checkdst", path, perturbed, "--json"]) == 0
        found = json.loads(capsys.readouterr().out)
        for key, value in found.items():
            if key.startswith("checkdst.") and key != "checkdst.pairs":
                expected["protocol-checkdst", name, key] = "—" if value is None else f"{100 * value:.2f}"
    for label, width in WIDTHS.items():
        page = browser.new_page(viewport={"width": width, "height": HEIGHT})
        page.goto(page_path.as_uri())
        page.wait_for_load_state("load")
        drawn = {(table, system, key): text for table, system, key, text in page.evaluate(PROTOCOL_CELLS_JS)}
        save_screenshot(page.locator("#protocols"), ARTIFACTS / f"protocols-section-{label}.png")
        page.close()
        checkdst = {cell: text for cell, text in drawn.items() if cell[0] == "protocol-checkdst"}
        assert checkdst == expected, (label, set(checkdst.items()) ^ set(expected.items()))
        assert any(cell[0] == "protocol-calibration" and text != "—" for cell, text in drawn.items()), label
    html = page_path.read_text(encoding="utf-8")
    section = html[html.index('id="protocols"') : html.index("</section>", html.index('id="protocols"'))]
    assert "|checkdst|pairs:turn</code>" in section and "|ci:" not in section  # no intervals: not in the signature
