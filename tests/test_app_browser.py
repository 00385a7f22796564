"""The Space in a real browser: `python app.py` on a free port, driven by headless Debian Chromium
through Playwright. Nothing downloads a browser; without /usr/bin/chromium or playwright the test
skips. Screenshots and the server log go to test-artifacts/ at the repository root."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from dst_metrics.examples import EXAMPLES
from dst_metrics.readers import READERS
from dst_metrics.states import linearize_state

from .conftest import REPO

FIRST = EXAMPLES["first_example"]

CHROMIUM = Path(os.environ.get("DST_METRICS_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = REPO / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL = ("http://127.0.0.1", "http://localhost", "data:", "blob:", "about:")

pytestmark = pytest.mark.slow
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via a proxy


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(url: str, server: subprocess.Popen, log: Path, timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"app.py exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with _DIRECT.open(url, timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"app.py did not answer on {url} within {timeout} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def server_url():
    """`python app.py` on a free port (GRADIO_SERVER_PORT), always terminated afterwards."""
    ARTIFACTS.mkdir(exist_ok=True)
    port = _free_port()
    env = dict(
        os.environ,
        GRADIO_SERVER_PORT=str(port),
        GRADIO_SERVER_NAME="127.0.0.1",
        GRADIO_ANALYTICS_ENABLED="False",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    )
    log = ARTIFACTS / "app-server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, str(REPO / "app.py")], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_for(url, server, log)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"needs Debian chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright Python package")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def _choose(page, dropdown: str, option: str) -> None:
    page.click(f"#{dropdown} input")
    page.get_by_role("option", name=option, exact=True).click()


def _cell(metric: str, name: str) -> str:
    """The figure's cell, in whichever of the score tables its registry group puts it."""
    return ", ".join(f'{table} td[data-metric="{metric}"][data-set="{name}"]' for table in ("#metrics", "#details"))


def _figure(page, metric: str, name: str) -> str:
    return page.locator(_cell(metric, name)).inner_text(timeout=20000)


def _wait_for_figure(page, metric: str, name: str, value: str) -> None:
    page.wait_for_function(
        "([s, v]) => { const c = document.querySelector(s); return c !== null && c.textContent.trim() === v; }",
        arg=[_cell(metric, name), value],
        timeout=20000,
    )


def _jsonl(example, prediction: str) -> str:
    turns = zip(example.gold, example.predictions[prediction], strict=True)
    return "".join(
        json.dumps({"dialogue_id": example.dialogue_id, "turn_id": i, "gt": g, "pr": p}) + "\n"
        for i, (g, p) in enumerate(turns)
    )


def _linearized(example, prediction: str) -> str:
    turns = zip(example.gold, example.predictions[prediction], strict=True)
    return "".join(
        f"{example.dialogue_id}\t{i}\t{linearize_state(g)}\t{linearize_state(p)}\n" for i, (g, p) in enumerate(turns)
    )


def _upload(page, box: str, path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    page.locator(f"#upload-{box}").locator("xpath=..").locator("input[type=file]").set_input_files(str(path))


def test_space_in_chromium(browser, server_url, tmp_path):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    external: list[str] = []
    page.on("request", lambda request: None if request.url.startswith(LOCAL) else external.append(request.url))
    page.set_default_timeout(20000)
    try:
        page.goto(server_url)
        page.wait_for_selector('#metrics td[data-metric="gca"]')  # the first example is loaded at start

        # Another example first, then the first example: its figures replace the others.
        _choose(page, "example", "Section 5.4: the hypothetical dialogue, P1 vs P2")
        _wait_for_figure(page, "jga", "P1", "83.33")
        assert _figure(page, "gca", "P1") == _figure(page, "gca", "P2") == "52.38"

        _choose(page, "example", "Figure 1: the first example, P1 vs P2")
        _wait_for_figure(page, "gca", "P2", "15.49")
        assert _figure(page, "gca", "P1") == "73.33"
        assert _figure(page, "gca", "P2") == "15.49"
        assert _figure(page, "jga", "P2") == "33.33"
        assert page.locator("#signature").inner_text().startswith("dst-metrics:")
        assert "mode:official|alpha:10/11" in page.locator("#signature").inner_text()
        slots = page.locator("#slots")
        assert slots.locator('td[data-kinds="wrong"]').count() == 2 + 6
        assert slots.locator('td[data-kinds="correct"]').count() == 5 + 1
        page.wait_for_timeout(800)  # let the bar chart finish drawing
        page.screenshot(path=str(ARTIFACTS / "app-first-example.png"), full_page=True)

        # Invalid JSON: a readable message in the page, no traceback.
        page.fill("#data-a textarea", '{"MUL0003": {"0": {"gt": ]')
        page.locator("#data-a textarea").press_sequentially(" ")  # typed: gradio's input event fires
        page.click("#score")
        error = page.locator("#status-error")
        error.wait_for()
        message = error.inner_text()
        assert "Could not score this input" in message
        assert "Prediction set A 'P1'" in message and "not valid JSON" in message and "line 1, column 26" in message
        assert "Traceback" not in page.content()
        assert not page.locator("#metrics").is_visible()
        assert page.locator("#example-note").inner_text().strip() == "Your own data."
        page.screenshot(path=str(ARTIFACTS / "app-invalid-json.png"), full_page=True)

        # The page keeps working: three dialogues, the section 5.2 analysis, and a row click
        # opening that dialogue in the per-slot view.
        _choose(page, "example", "All three paper dialogues as one corpus")
        _wait_for_figure(page, "dialogues", "P1", "3")
        assert not page.locator("#status-error").is_visible()
        table = page.locator("#disagreements")
        table.get_by_text("SNG0779").first.wait_for()
        assert "-60.22" in table.inner_text() and "+30.95" in table.inner_text()
        assert page.locator("#scatter").is_visible()
        table.get_by_text("SNG0779").first.click()
        page.wait_for_function("() => document.querySelector('#slots').textContent.includes('Dialogue SNG0779')")
        assert page.locator("#slots").get_by_text("no change").count() == 2 * 4  # four quiet turns per set

        # Corrected mode re-scores on the spot, says so in the signature and keeps the dialogue.
        page.locator("#mode").get_by_text("corrected", exact=True).click()
        page.wait_for_function("() => document.querySelector('#signature').textContent.includes('mode:corrected')")
        assert "Dialogue SNG0779 (corrected mode)" in page.locator("#slots").inner_text()  # the view stays put
        page.wait_for_timeout(800)
        page.screenshot(path=str(ARTIFACTS / "app-three-dialogues.png"), full_page=True)

        # Uploads: JSON Lines for set B that does not match set A (three dialogues) is refused
        # with a message; then linearized lines for set A make the pair comparable again.
        _upload(page, "b", tmp_path / "p2.jsonl", _jsonl(FIRST, "P2"))
        error.wait_for()
        assert "do not cover the same dialogues" in error.inner_text()
        assert "only in 'P1': ['MUL1110', 'SNG0779']" in error.inner_text()
        _upload(page, "a", tmp_path / "p1.tsv", _linearized(FIRST, "P1"))
        _wait_for_figure(page, "gca", "P1", "73.33")
        assert _figure(page, "gca", "P2") == "15.49"
        status = page.locator("#status").inner_text()
        linearized, jsonl = READERS["linearized"].description, READERS["jsonl"].description
        assert f"P1 read as {linearized}; P2 read as {jsonl}." in status
        assert page.locator("#data-a textarea").input_value().startswith("MUL0003\t0\t")

        # A narrow window: the per-slot tables stack instead of overflowing.
        page.set_viewport_size({"width": 760, "height": 1000})
        page.wait_for_timeout(500)
        widths = page.evaluate(
            "() => [...document.querySelectorAll('#slots .table-wrap')].map(w => [w.scrollWidth, w.clientWidth])"
        )
        assert widths and all(scroll <= client + 1 for scroll, client in widths), widths
        page.screenshot(path=str(ARTIFACTS / "app-narrow-uploads.png"), full_page=True)

        assert external == [], f"the page loaded from the internet: {external}"
    finally:
        context.close()
