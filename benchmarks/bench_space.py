"""The Space's answer time: an uploaded file to every figure and view (`space.explore.explore`), and
the A/B comparison (`compare_sets`, 1000 paired bootstrap resamples), on the T5 restaurant file
(3,359 turns) and on that file repeated 6 times under new dialogue ids (20,154 turns).

    python benchmarks/bench_space.py [--runs 3] [--browser]

Prints seconds (median of the runs) and the peak resident memory of the process. `--browser` also
starts `app.py` and measures, in headless Chromium (/usr/bin/chromium), the time from choosing the
file in the upload button to the figures on the page. Targets (issue 11): T5 restaurant upload to
figures <= 1 s, a 20,000-turn upload <= 5 s. Needs ../shared.
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


def browser_seconds(paths: list[Path], runs: int) -> None:
    """Upload each file into set A of a served page; print the median time until its figures show."""
    from playwright.sync_api import sync_playwright

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, GRADIO_SERVER_PORT=str(port), GRADIO_SERVER_NAME="127.0.0.1", NO_PROXY="127.0.0.1")
    server = subprocess.Popen([sys.executable, str(REPO / "app.py")], cwd=REPO, env=env, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        for _ in range(200):
            try:
                opener.open(url, timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            for path in paths:
                times = []
                for _ in range(runs):
                    page = browser.new_page(viewport={"width": 1400, "height": 900})
                    page.goto(url)
                    page.wait_for_selector('#metrics td[data-set="P1"]', timeout=60000)
                    start = time.perf_counter()
                    page.locator("#upload-a").locator("xpath=..").locator("input[type=file]").set_input_files(str(path))
                    page.wait_for_selector(f'#metrics td[data-set="{path.stem}"]', timeout=120000)
                    times.append(time.perf_counter() - start)
                    page.close()
                print(f"{path.name} in Chromium: upload to figures on the page {statistics.median(times):.2f} s")
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement; the median is printed")
    parser.add_argument("--browser", action="store_true", help="also time uploads in headless Chromium")
    args = parser.parse_args()
    if not SOURCE.is_file():
        print(f"skipped: {SOURCE} not found (needs ../shared beside the clone)")
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
