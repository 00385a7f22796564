"""What the browser tests share: `python app.py` served on a free port of 127.0.0.1 and headless Debian Chromium
driven by Playwright, one of each per test process (tests/conftest.py's session fixtures `space_server`,
`browser` and `page_context`); a tab per page a test opens, which fails the test on an uncaught page error, a
console error or a request outside the machine; and the checks of what is drawn that several files make
(contrast, whole words). Nothing downloads a browser: without Debian's Chromium headless shell (`CHROMIUM`) or
playwright the tests skip.
Screenshots (unless DST_METRICS_SCREENSHOTS=0) and the server's log go to test-artifacts/space/ at the
repository root."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from dst_metrics.modules import needs_extra

REPO = Path(__file__).resolve().parents[1]

CHROMIUM = Path(os.environ.get("DST_METRICS_CHROMIUM", "/usr/lib/chromium/chromium-headless-shell"))
"""Debian's `chromium-headless-shell`: Chromium's headless browser without the desktop browser around it, what
Playwright runs for headless Chromium. A visit (the page of all three dialogues, then three changes of mode) took
it 9.2-10.3 s of CPU, against 12.3-12.8 s for Debian's `chromium` in its headless mode."""
ARTIFACTS = REPO / "test-artifacts" / "space"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ALL = "?example=all"
"""The query of the page's example with all three of the GCA paper's dialogues, sets P1 and P2."""
LOCAL = ("http://127.0.0.1", "http://localhost", "data:", "blob:", "about:")
START_SECONDS = 150.0
"""How long `python app.py` may take to answer: it returns as soon as the app does, and a loaded machine needs it."""
TIMEOUT_MS = 120000
"""The upper bound of every wait in a page: it returns as soon as the page is ready, and on a machine loaded
with other work a first page's figures took over 60 s (a table or an upload takes seconds on a quiet one)."""
SCREENSHOTS = os.environ.get("DST_METRICS_SCREENSHOTS", "1") != "0"
"""Whether the browser tests write their screenshots, which are for a person to look at: no test reads them.
`.ci/run` sets DST_METRICS_SCREENSHOTS=0, as nobody looks at them there; a full-page screenshot of the Space
takes 1.4-1.9 s of Chromium on a quiet machine."""
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via a proxy


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class SpaceServer:
    url: str
    log: Path

    def errors(self) -> int:
        """Tracebacks the served app has logged so far (gradio logs an event's error there, not in the page)."""
        return self.log.read_text(errors="replace").count("Traceback") if self.log.exists() else 0


def _wait_for(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"app.py exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with DIRECT.open(url, timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"app.py did not answer on {url} within {START_SECONDS} s:\n{log.read_text()[-3000:]}")


@contextmanager
def served_app(scratch: Path) -> Iterator[SpaceServer]:
    """`python app.py` on a free port (GRADIO_SERVER_PORT), always terminated afterwards; its temporary files
    (uploads, the sessions' downloads) in `scratch`, its log in test-artifacts/space/, one per test process."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = free_port()
    local = "127.0.0.1,localhost"
    env = dict(
        os.environ, TMPDIR=str(scratch), GRADIO_TEMP_DIR=str(scratch / "gradio"), GRADIO_SERVER_PORT=str(port),
        GRADIO_SERVER_NAME="127.0.0.1", GRADIO_ANALYTICS_ENABLED="False", NO_PROXY=local, no_proxy=local,
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    )  # fmt: skip
    log = ARTIFACTS / f"app-server-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, str(REPO / "app.py")], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_for(url, server, log)
        yield SpaceServer(url, log)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


@contextmanager
def chromium() -> Iterator:
    """Headless Debian Chromium (a Playwright `Browser`); the test skips without it or without playwright."""
    if not CHROMIUM.exists():
        pytest.skip(f"needs Debian's Chromium headless shell at {CHROMIUM} (apt-get install chromium-headless-shell)")
    sync_api = pytest.importorskip("playwright.sync_api", reason=needs_extra("this test", "dev", ("playwright",)))
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@contextmanager
def pages(context, server_url: str) -> Iterator[Callable]:
    """Opens the served page (query, width, height) in a tab of `context`, until `ready` is on it; at the end, the
    tabs closed, no uncaught page error or console error (issue 11, defect 8) and nothing loaded from the internet.
    Each tab is a session of its own on the server (gradio's session is the page load's, not the context's)."""
    opened, errors, external = [], [], []

    def open_page(query: str = "", width: int = 1400, height: int = 900, ready: str = '#metrics td[data-metric="gca"]'):
        page = context.new_page()
        opened.append(page)
        page.set_viewport_size({"width": width, "height": height})
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("request", lambda request: None if request.url.startswith(LOCAL) else external.append(request.url))
        page.goto(server_url + query)
        page.wait_for_selector(ready)
        return page

    yield open_page
    for page in opened:
        page.close()
    assert errors == [], errors
    assert external == [], f"the page loaded from the internet: {external}"


def choose(page, dropdown: str, option: str) -> None:
    """Picks `option` of the dropdown whose elem_id is `dropdown`, in that dropdown's own list: the list of the
    dropdown chosen just before can still be open (gradio closes it after the click)."""
    page.click(f"#{dropdown} input")
    page.locator(f"#{dropdown}").get_by_role("option", name=option, exact=True).click()


QUIET_JS = """(seconds) => new Promise((done) => { let last = performance.now();
  new MutationObserver(() => { last = performance.now(); })
    .observe(document, {childList: true, subtree: true, attributes: true, characterData: true});
  const check = () => performance.now() - last > seconds * 1000 ? done(true) : setTimeout(check, 100);
  check(); })"""
"""Resolves once nothing in the page has changed for `seconds` (gradio's pending timers change it every frame)."""
NEXT_FRAME_JS = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def settle(page, check: str, arg: object = None, timeout: float = 30000) -> None:
    """Until the JavaScript function `check` returns true or an empty list (the page as the test wants it), for at
    most `timeout` ms: the wait after a scroll, a redraw or a layout. The test's assertion that follows says
    what is wrong when it never does."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # playwright: the dev extra, as `chromium`

    holds = f"(arg) => {{ const found = ({check})(arg); return Array.isArray(found) ? found.length === 0 : !!found; }}"
    try:
        page.wait_for_function(holds, arg=arg, timeout=timeout)
    except PlaywrightTimeout:
        pass


SIZES = ((1400, 900), (390, 900))
"""The viewports (width, height) the browser tests check a page at: a desktop's and a phone's width."""


def at_sizes(page, sizes: Sequence[tuple[int, int]], check: Callable[[int], None]) -> None:
    """`check(width)` with the page's viewport at each (width, height) of `sizes` in turn, once laid out at it
    (the next two frames); then the viewport it had before. One page load checks what each width draws after
    the same interactions; a page loaded at phone width is the tests that visit it so. A text box keeps the
    height it grew to as it was typed into: type at the narrowest width, or its text is cut off there."""
    before = page.viewport_size
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate(NEXT_FRAME_JS)
        check(width)
    page.set_viewport_size(before)
    page.evaluate(NEXT_FRAME_JS)


IDLE_JS = "() => document.querySelector('gradio-app .pending') === null"
"""No output of the page is still computing (gradio marks it `pending`)."""


def save_screenshot(target, path: Path, **options) -> None:
    """`target.screenshot` (a page or a locator) into `path`, unless DST_METRICS_SCREENSHOTS=0 (`SCREENSHOTS`)."""
    if SCREENSHOTS:
        target.screenshot(path=str(path), **options)


def shot(page, name: str, section: str | None = None) -> None:
    """The whole page, once what was last changed is painted, as test-artifacts/space/`name`.png; with `section`
    (a selector), that section alone as `name`-section.png too."""
    page.evaluate(NEXT_FRAME_JS)
    save_screenshot(page, ARTIFACTS / f"{name}.png", full_page=True)
    if section:
        save_screenshot(page.locator(section), ARTIFACTS / f"{name}-section.png")


WORDS_BROKEN_JS = """() => {
  // Every word on the page drawn on one line: a line may break only at a space or after - / _ , (no 'Tur|n').
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector('gradio-app') || document.body, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    const parent = text.parentElement;
    if (!parent || !parent.offsetParent || parent.closest('textarea, .cm-editor, svg, code, pre, [aria-hidden=true]')) {
      continue;
    }
    const re = /\\S{2,}/g; let m;
    while ((m = re.exec(text.data))) {
      const range = document.createRange(); let top = null;
      for (let i = 0; i < m[0].length; i++) {
        range.setStart(text, m.index + i); range.setEnd(text, m.index + i + 1);
        const box = range.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        if (top !== null && Math.abs(box.top - top) > 2 && !'-/_,.|=&:'.includes(m[0][i - 1])) {
          broken.push(m[0].slice(0, i) + '|' + m[0].slice(i)); break;
        }
        top = box.top;
      }
    }
  }
  return broken;
}"""
CONTRAST_JS = """(skipped) => {
  // Every visible text outside `skipped` against its effective background: by colour pair, the lowest WCAG
  // ratio and a text drawn with it.
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
    if (!t.data.trim() || !e || !e.offsetParent || e.closest(skipped)) continue;
    const style = getComputedStyle(e); const color = rgb(style.color);
    if (color.length === 4 && color[3] < 1) continue;
    const back = behind(e); const [a, b] = [lum(color), lum(back)];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const key = `${e.closest('button') ? 'button ' : ''}${style.color} on rgb(${back.join(', ')})`;
    if (!(key in found) || ratio < found[key].ratio) found[key] = {ratio, text: t.data.trim().slice(0, 40)};
  }
  return found;
}"""
TEXTS = "svg, .cm-editor, footer, button, [aria-hidden=true]"
"""What `low_contrast` leaves out by default: charts, code editors, gradio's footer and the buttons."""


def contrasts(page, skipped: str = TEXTS) -> dict[str, dict]:
    """{'[button ]colour on background': {'ratio': lowest WCAG contrast ratio, 'text': a text drawn so}}."""
    return page.evaluate(CONTRAST_JS, skipped)


def low_contrast(page, skipped: str = TEXTS) -> list[str]:
    """The colour pairs of visible text below 4.5:1 (WCAG AA for normal text), each with a text drawn so."""
    found = contrasts(page, skipped)
    return [f"{v['text']} ({key}, {v['ratio']:.2f}:1)" for key, v in found.items() if v["ratio"] < 4.5]
