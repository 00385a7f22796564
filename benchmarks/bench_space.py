"""The Space's answer time: an uploaded file to every figure and view (`space.explore.explore`), and
the A/B comparison (`compare_sets`, 1000 paired bootstrap resamples), on the T5 restaurant file
(3,359 turns) and on that file repeated 6 times under new dialogue ids (20,154 turns).

    python benchmarks/bench_space.py [--runs 3] [--browser] [--large] [--load] [--idle] [--first [--app PATH ...]]

Prints seconds (median of the runs) and the peak resident memory of the process. `--browser` also
starts `app.py` and measures, in headless Chromium (/usr/bin/chromium), the time from choosing the
file in the upload button to the figures on the page. Targets (issue 11): T5 restaurant upload to
figures <= 1 s, a 20,000-turn upload <= 5 s. `--large` (issue 36): TRADE's file (7,368 turns) and a
30 MB file of TRADE's file repeated under new dialogue ids, uploaded in Chromium: figures within 1.5 s and
10 s, the server under 1 GB. `--load` (issue 36): a bounded run against 127.0.0.1 only, `--requests` calls
of the `/score` endpoint (the T5 restaurant file) from `--clients` local gradio_client threads, then
`--sessions` browser sessions that upload it and close; the server's resident memory at start, at its
peak and after the run (target: back within 150 MB of the start). Needs ../shared, except `--idle`
(issue 60): an idle page's animation frames per second and its main thread's CPU per 10 s (at most 2 frames/s).
`--first` (issue 60): the page's load to its first figures (target <= 1.5 s) and TRADE's upload to its figures
(<= 1.0 s), in the page's own clock (`SHOWN_JS`), the runs alternating between the `--app` files given (e.g. the
app.py of a checkout of the last release, then this one's). Browser times are the page's clock, not the waits'.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import median_seconds  # noqa: E402  (the benchmarks' one timing function)

from dst_metrics.space.explore import compare_sets, explore  # noqa: E402
from dst_metrics.space.inputs import SetInput  # noqa: E402

SOURCE = REPO.parent / "shared" / "reference" / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json"
REPEAT = 6
TRADE = REPO.parent / "shared" / "reference" / "trade" / "MLCSG_all_prediction_TRADE.json"
LARGE_BYTES = 30_000_000
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu"]
CHROMIUM = os.environ.get("DST_METRICS_CHROMIUM", "/usr/lib/chromium/chromium-headless-shell")
"""Debian's headless shell, as the browser tests use (tests/space_browser.py)."""
FRAMES_JS = """(() => { window.frameTimes = new Set();
  const native = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) => native((time) => { window.frameTimes.add(time); callback(time); });
})();"""
SHOWN_JS = """(() => { window.shownAt = {};
  // the page's own clock: when a file is chosen, and the frame in which a set's figures are first drawn
  document.addEventListener("change", (event) => {
    if (event.target.type === "file") window.chosenAt = performance.now();
  }, true);
  const look = () => document.querySelectorAll("#metrics td[data-set]").forEach((cell) => {
    const name = cell.dataset.set;
    if (name in window.shownAt) return;
    window.shownAt[name] = 0;
    requestAnimationFrame(() => { window.shownAt[name] = performance.now(); });
  });
  document.addEventListener("DOMContentLoaded", () =>
    new MutationObserver(look).observe(document.body, {childList: true, subtree: true}));
})();"""
"""Times in the page's clock (milliseconds since the page was asked for): the tests' waits poll every 0.5 s after
the first second, so timing them adds up to half a second that no visitor sees."""
SETTLE = 2
"""Seconds between the first figures and an upload: a visitor takes longer to choose a file."""
IDLE_SECONDS = 10
IDLE_AFTER = 12
"""Seconds after the first figures before an idle page is measured: gradio announces "complete" to screen
readers (a change of the page) about 9 s after it loads."""


class Server:
    """`python app.py` on a free port of 127.0.0.1 (its temporary files in `folder`); `rss()` in MB."""

    def __init__(self, folder: str, app: Path = REPO / "app.py") -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        env = dict(
            os.environ, GRADIO_SERVER_PORT=str(port), GRADIO_SERVER_NAME="127.0.0.1", NO_PROXY="127.0.0.1,localhost",
            no_proxy="127.0.0.1,localhost", GRADIO_ANALYTICS_ENABLED="False", GRADIO_TEMP_DIR=folder, TMPDIR=folder,
        )  # fmt: skip
        self.process = subprocess.Popen([sys.executable, str(app)], cwd=app.parent, env=env, stdout=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}/"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        for _ in range(300):
            try:
                opener.open(self.url, timeout=1)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("app.py did not answer within 60 s")

    def rss(self, field: str = "VmRSS") -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(status.split(f"{field}:")[1].split()[0]) / 1024

    def cpu_seconds(self) -> float:
        """User + system CPU seconds the server has used so far (its threads and any child processes waited
        for): unlike wall time, hardly moved by other processes sharing the machine."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def _shown_seconds(page, name: str) -> float:
    """Seconds from the page's request to the frame that first draws set `name`'s figures (`SHOWN_JS`)."""
    page.wait_for_function(f"(window.shownAt || {{}})[{json.dumps(name)}] > 0", timeout=180000)
    return page.evaluate(f"window.shownAt[{json.dumps(name)}]") / 1000


def upload_seconds(browser, server: Server, path: Path, runs: int, cpu: list[float] | None = None) -> list[float]:
    """Seconds from choosing `path` in set A's upload button to the frame that draws its figures, in the page's
    clock, `SETTLE` s after the first figures, per run; the server's CPU seconds of each run are appended to `cpu`
    when given."""
    times = []
    for _ in range(runs):
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.add_init_script(SHOWN_JS)
        page.goto(server.url)
        _shown_seconds(page, "P1")
        time.sleep(SETTLE)
        start_cpu = server.cpu_seconds()
        page.locator("#upload-a").locator("xpath=..").locator("input[type=file]").set_input_files(str(path))
        times.append(_shown_seconds(page, path.stem) - page.evaluate("window.chosenAt") / 1000)
        if cpu is not None:
            cpu.append(server.cpu_seconds() - start_cpu)
        page.close()
    return times


def first_figures(apps: list[Path], runs: int) -> None:
    """Issue 60: load to the first figures and TRADE's upload to its figures, in Chromium at 1400 px, the runs
    alternating between `apps` (e.g. a checkout of the last release beside this one)."""
    from playwright.sync_api import sync_playwright

    loads: dict[Path, list[float]] = {app: [] for app in apps}
    uploads: dict[Path, list[float]] = {app: [] for app in apps}
    with tempfile.TemporaryDirectory() as folder:
        servers = {app: Server(str(Path(folder) / str(i)), app) for i, app in enumerate(apps)}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for server in servers.values():  # each server's first page is slower: not counted
                    upload_seconds(browser, server, TRADE, 1)
                for _ in range(runs):
                    for app, server in servers.items():
                        page = browser.new_page(viewport={"width": 1400, "height": 900})
                        page.add_init_script(SHOWN_JS)
                        page.goto(server.url)
                        loads[app].append(_shown_seconds(page, "P1"))
                        page.close()
                        uploads[app] += upload_seconds(browser, server, TRADE, 1)
                browser.close()
        finally:
            for server in servers.values():
                server.stop()
    for app in apps:
        load, upload = loads[app], uploads[app]
        print(
            f"{app}: load to first figures median {statistics.median(load):.2f} s "
            f"(runs: {', '.join(f'{t:.2f}' for t in load)}); TRADE upload to figures median "
            f"{statistics.median(upload):.2f} s (runs: {', '.join(f'{t:.2f}' for t in upload)})"
        )


def large(runs: int, folder: str) -> None:
    """TRADE's file and a 30 MB file built from it: upload to figures in Chromium, the server's peak memory."""
    from playwright.sync_api import sync_playwright

    one = json.loads(TRADE.read_text())
    repeated: dict = {}
    while len(json.dumps(repeated)) < LARGE_BYTES:
        copy = len(repeated) // len(one)
        repeated.update({f"{d.removesuffix('.json')}-copy{copy}.json": turns for d, turns in one.items()})
    big = Path(folder) / "trade_30mb.json"
    big.write_text(json.dumps(repeated))
    turns = sum(len(t) for t in repeated.values())
    server = Server(str(Path(folder) / "server"))
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for path, count in ((TRADE, 7368), (big, turns)):
                cpu: list[float] = []
                times = upload_seconds(browser, server, path, runs, cpu)
                size = path.stat().st_size / 1e6
                print(
                    f"{path.name} ({size:.1f} MB, {count:,} turns) in Chromium: upload to figures "
                    f"median {statistics.median(times):.2f} s (runs: {', '.join(f'{t:.2f}' for t in times)}); "
                    f"the server's CPU median {statistics.median(cpu):.2f} s; load average {os.getloadavg()[0]:.1f}"
                )
            browser.close()
        print(f"server: peak memory {server.rss('VmHWM'):.0f} MB, now {server.rss():.0f} MB")
    finally:
        server.stop()


def load(requests: int, clients: int, sessions: int, folder: str) -> None:
    """A bounded run against a local server: /score calls from gradio_client threads, then browser sessions
    that upload the T5 restaurant file and close; the server's memory before, at its peak and after."""
    from concurrent.futures import ThreadPoolExecutor

    from gradio_client import Client
    from playwright.sync_api import sync_playwright

    text = SOURCE.read_text()
    server = Server(str(Path(folder) / "server"))
    try:
        start = server.rss()
        print(f"server at start: {start:.0f} MB")

        def one_client(count: int) -> list[float]:
            client = Client(server.url, verbose=False)
            seconds = []
            for _ in range(count):
                began = time.perf_counter()
                answer = client.predict(text, api_name="/score")
                assert answer["turns"] == 3359, answer
                seconds.append(time.perf_counter() - began)
            return seconds

        shares = [requests // clients + (i < requests % clients) for i in range(clients)]
        began = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            seconds = [s for part in pool.map(one_client, shares) for s in part]
        wall = time.perf_counter() - began
        print(
            f"/score: {len(seconds)} requests from {clients} clients, all right; "
            f"median {statistics.median(seconds):.2f} s, "
            f"{len(seconds) / wall:.1f} requests/s; server now {server.rss():.0f} MB"
        )
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for _ in range(sessions):
                context = browser.new_context(viewport={"width": 1400, "height": 900})
                page = context.new_page()
                page.goto(server.url)
                page.wait_for_selector('#metrics td[data-set="P1"]', timeout=60000)
                page.locator("#upload-a").locator("xpath=..").locator("input[type=file]").set_input_files(str(SOURCE))
                page.wait_for_selector(f'#metrics td[data-set="{SOURCE.stem}"]', timeout=120000)
                page.locator("#disagreements table").wait_for(timeout=120000)
                context.close()  # the tab closes: its session ends
            browser.close()
        print(f"{sessions} browser sessions (upload, figures, close); server now {server.rss():.0f} MB")
        time.sleep(20)  # the server notices closed tabs by their missing heartbeat
        end, peak = server.rss(), server.rss("VmHWM")
        verdict = "within" if end - start <= 150 else "NOT within"
        print(
            f"server: start {start:.0f} MB, peak {peak:.0f} MB, after the run {end:.0f} MB ({verdict} 150 MB of start)"
        )
    finally:
        server.stop()


def browser_seconds(paths: list[Path], runs: int) -> None:
    """Upload each file into set A of a served page; print the median time until its figures show."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        server = Server(folder)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for path in paths:
                    times = upload_seconds(browser, server, path, runs)
                    print(f"{path.name} in Chromium: upload to figures on the page {statistics.median(times):.2f} s")
                browser.close()
        finally:
            server.stop()


def _task_seconds(cdp) -> float:
    """The CPU seconds of the page's main thread so far (Chromium's `TaskDuration` performance metric)."""
    return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")


def idle(runs: int) -> None:
    """An idle page (issue 60): after the first figures and `IDLE_AFTER` s more, the animation frames the page's
    scripts are given and the CPU seconds of its main thread (Chromium's TaskDuration) over 10 s, at 1400 and
    390 px."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        server = Server(folder)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                for width in (1400, 390):
                    frames, cpu = [], []
                    for _ in range(runs):
                        context = browser.new_context(viewport={"width": width, "height": 900})
                        context.add_init_script(FRAMES_JS)
                        page = context.new_page()
                        cdp = context.new_cdp_session(page)
                        cdp.send("Performance.enable")
                        page.goto(server.url)
                        page.wait_for_selector('#metrics td[data-set="P1"]', timeout=60000)
                        time.sleep(IDLE_AFTER)

                        page.evaluate("() => window.frameTimes.clear()")
                        before = _task_seconds(cdp)
                        time.sleep(IDLE_SECONDS)
                        cpu.append(_task_seconds(cdp) - before)
                        frames.append(page.evaluate("() => window.frameTimes.size") / IDLE_SECONDS)
                        context.close()
                    print(
                        f"idle page at {width} px: {statistics.median(frames):.1f} frames/s, main thread "
                        f"{statistics.median(cpu):.3f} s of CPU per {IDLE_SECONDS} s (medians of {runs})"
                    )
                browser.close()
        finally:
            server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement; the median is printed")
    parser.add_argument("--browser", action="store_true", help="also time uploads in headless Chromium")
    parser.add_argument("--large", action="store_true", help="only: TRADE's file and a 30 MB one in Chromium")
    parser.add_argument("--load", action="store_true", help="only: a bounded run of local clients, server memory")
    parser.add_argument("--first", action="store_true", help="only: load to first figures, TRADE upload to figures")
    parser.add_argument(
        "--app", type=Path, action="append", help="--first: an app.py to time (repeatable; runs alternate)"
    )
    parser.add_argument("--idle", action="store_true", help="only: an idle page's frames and CPU in Chromium")
    parser.add_argument("--requests", type=int, default=200, help="--load: /score requests (default 200)")
    parser.add_argument("--clients", type=int, default=8, help="--load: concurrent local clients (default 8)")
    parser.add_argument("--sessions", type=int, default=20, help="--load: browser sessions (default 20)")
    args = parser.parse_args()
    if args.idle:
        idle(args.runs)
        return 0
    if not SOURCE.is_file() or not TRADE.is_file():
        print(f"skipped: {SOURCE} or {TRADE} not found (needs ../shared beside the clone)")
        return 0
    if args.first:
        first_figures(args.app or [REPO / "app.py"], args.runs)
        return 0
    if args.large or args.load:
        with tempfile.TemporaryDirectory() as folder:
            if args.large:
                large(args.runs, folder)
            if args.load:
                load(args.requests, args.clients, args.sessions, folder)
        return 0
    one = json.loads(SOURCE.read_text())
    repeated = {f"{copy}:{d}": turns for copy in range(REPEAT) for d, turns in one.items()}
    with tempfile.TemporaryDirectory() as folder:
        big = Path(folder) / "restaurant_x6.json"
        big.write_text(json.dumps(repeated))
        for path in (SOURCE, big):
            entry = SetInput("", "", str(path), path.name)
            result = explore([entry])
            turns = result.results[0].corpus.num_turns
            seconds = median_seconds(lambda entry=entry: explore([entry]), args.runs)
            print(f"{path.name}: {turns} turns, upload to every figure and view {seconds:.2f} s")
        pair = explore([SetInput("", "", str(SOURCE), SOURCE.name), SetInput("B", "", str(SOURCE), SOURCE.name)])
        seconds = median_seconds(lambda: compare_sets(pair), args.runs)
        print(f"{SOURCE.name} A vs B: comparison (1000 resamples) {seconds:.2f} s")
        if args.browser:
            browser_seconds([SOURCE, big], args.runs)
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
