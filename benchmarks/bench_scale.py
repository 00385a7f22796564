"""Scale: wall time, µs per turn and peak RSS of ``dst-metrics score`` as the corpus grows.

    python benchmarks/bench_scale.py [--turns 33590 201540 1007700] [--runs 3] [--keep DIR]

The corpus is the T5 restaurant file of ../shared (3,359 turns) repeated under new dialogue ids, as in
bench_core.py, written once per size to a temporary folder in two layouts: the reference layout (one
JSON document: read whole) and JSON Lines turn records (one turn a line, a dialogue's turns on
consecutive lines: streamed with memory bounded by one dialogue). Each run is a fresh
``dst-metrics score FILE --json`` process; the peak RSS is the child's (``wait4``). Rows: the reference
layout in 1 process (streamed dialogue by dialogue) and in all cores (``--jobs``), and JSON Lines streamed.
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
from bench_core import SOURCE  # noqa: E402  (the same corpus as the core's benchmark)

TURNS_PER_COPY = 3359  # turns of the restaurant file


def write_corpus(folder: Path, copies: int) -> tuple[Path, Path]:
    """The restaurant file repeated `copies` times, as the reference layout and as JSON Lines."""
    one = json.loads(SOURCE.read_text())
    layout, lines = folder / f"layout_{copies}.json", folder / f"turns_{copies}.jsonl"
    with layout.open("w") as whole, lines.open("w") as stream:
        whole.write("{")
        for copy in range(copies):
            for index, (dialogue_id, turns) in enumerate(one.items()):
                name = f"{copy}:{dialogue_id}"
                whole.write(("," if copy or index else "") + json.dumps(name) + ":" + json.dumps(turns))
                for turn_id, turn in turns.items():
                    record = {"dialogue_id": name, "turn_id": int(turn_id), "gt": turn["gt"], "pr": turn["pr"]}
                    stream.write(json.dumps(record) + "\n")
        whole.write("}")
    return layout, lines


def run(argv: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one fresh process."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"failed: {' '.join(argv)}: {process.stderr.read().decode()}")
    return seconds, usage.ru_maxrss / 1024


def measure(argv: list[str], runs: int) -> tuple[float, float]:
    results = [run(argv) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, nargs="+", default=[33590, 201540, 1007700], help="corpus sizes")
    parser.add_argument("--runs", type=int, default=3, help="runs per row; the median time is printed")
    parser.add_argument("--keep", metavar="DIR", help="write the corpora here (default: a temporary folder)")
    args = parser.parse_args()
    if not SOURCE.is_file():
        print(f"skipped: {SOURCE} not found (needs ../shared beside the clone)")
        return 0
    folder = Path(args.keep or tempfile.mkdtemp(prefix="bench_scale_"))
    folder.mkdir(parents=True, exist_ok=True)
    cli = [sys.executable, "-m", "dst_metrics", "score"]
    print(f"{'turns':>10}  {'how':<28} {'seconds':>8} {'µs/turn':>8} {'peak RSS MB':>12}  file MB")
    for turns in args.turns:
        copies = max(1, round(turns / TURNS_PER_COPY))
        layout, lines = write_corpus(folder, copies)
        total = copies * TURNS_PER_COPY
        cores = str(os.cpu_count())
        rows = [
            ("reference layout, 1 process, streamed", [*cli, str(layout), "--json", "--jobs", "1"], layout),
            (f"reference layout, {cores} processes", [*cli, str(layout), "--json", "--jobs", cores], layout),
            ("JSON Lines, streamed", [*cli, str(lines), "--json"], lines),
        ]
        for how, argv, path in rows:
            seconds, rss = measure(argv, args.runs)
            size = path.stat().st_size / 1e6
            print(f"{total:>10,}  {how:<28} {seconds:>8.2f} {1e6 * seconds / total:>8.2f} {rss:>12.0f}  {size:.0f}")
        if not args.keep:
            layout.unlink()
            lines.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
