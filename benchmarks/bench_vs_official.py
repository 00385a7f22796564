"""``dst-metrics score`` side by side with the official GCA code, in fresh processes, on the same files.

    python benchmarks/bench_vs_official.py --official DIR [--turns 33590 201540 2015400] [--runs 3]

DIR is a clone of the official code (github.com/cuthalionn/Granular_Change_Accuracy: it runs
``python src/compute_accuracies.py NAME`` on every file of ``data/NAME/`` under the working folder);
it is run outside this project, never imported. The corpus is the T5 restaurant file of ../shared
(3,359 turns) repeated under new dialogue ids (as bench_core.py), one file per size. Rows, the
commands taking turns run after run (medians; max RSS of each process by ``wait4``):
  - official:              ``compute_accuracies.py`` (every figure, per-dialogue figures included);
  - ours, all cores:       ``dst-metrics score FILE --json`` (default ``--jobs``: all cores from 8 MB);
  - ours, 1 core:          the same with ``--jobs 1`` (streamed dialogue by dialogue);
  - ours, --per-dialogue:  all cores, each dialogue's figures too (what the official code always computes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import SOURCE  # noqa: E402

TURNS_PER_COPY = 3359


def write_copies(path: Path, copies: int) -> int:
    one = json.loads(SOURCE.read_text())
    with path.open("w") as out:
        out.write("{")
        for copy in range(copies):
            for index, (dialogue_id, turns) in enumerate(one.items()):
                out.write(
                    ("," if copy or index else "") + json.dumps(f"{copy}:{dialogue_id}") + ":" + json.dumps(turns)
                )
        out.write("}")
    return copies * TURNS_PER_COPY


def timed(argv: list[str], cwd: str, official: str) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": official}  # the official script imports `src.gca` from its clone
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"failed: {' '.join(argv)}: {process.stderr.read().decode()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--official", required=True, metavar="DIR", help="a clone of the official GCA code")
    parser.add_argument("--turns", type=int, nargs="+", default=[33590, 201540, 2015400])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not SOURCE.is_file():
        print(f"skipped: {SOURCE} not found (needs ../shared beside the clone)")
        return 0
    script = str(Path(args.official).resolve() / "src" / "compute_accuracies.py")
    cli = [sys.executable, "-m", "dst_metrics", "score"]
    print(f"{'turns':>10}  {'how':<22} {'seconds':>8} {'µs/turn':>8} {'RSS MB':>7} {'vs official':>12}")
    for wanted in args.turns:
        with tempfile.TemporaryDirectory() as work:
            folder = Path(work) / "data" / "bench"
            folder.mkdir(parents=True)
            path = folder / "corpus.json"
            turns = write_copies(path, max(1, round(wanted / TURNS_PER_COPY)))
            rows = {
                "official": ["python3", script, "bench"],
                "ours, all cores": [*cli, str(path), "--json"],
                "ours, 1 core": [*cli, str(path), "--json", "--jobs", "1"],
                "ours, --per-dialogue": [*cli, str(path), "--json", "--per-dialogue"],
            }
            times: dict[str, list[float]] = {name: [] for name in rows}
            rss = dict.fromkeys(rows, 0.0)
            for _ in range(args.runs):
                for name, argv in rows.items():
                    seconds, peak = timed(argv, work, str(Path(args.official).resolve()))
                    times[name].append(seconds)
                    rss[name] = max(rss[name], peak)
            official = statistics.median(times["official"])
            for name in rows:
                median = statistics.median(times[name])
                print(f"{turns:>10,}  {name:<22} {median:8.2f} {median * 1e6 / turns:8.2f} {rss[name]:7.0f} "
                      f"{official / median:11.1f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
