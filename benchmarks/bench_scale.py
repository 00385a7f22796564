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
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import SOURCE, fresh_processes, write_repeated_layout  # noqa: E402  (the core's corpus)

TURNS_PER_COPY = 3359  # turns of the restaurant file


def write_corpus(folder: Path, copies: int) -> tuple[Path, Path]:
    """The restaurant file repeated `copies` times, as the reference layout and as JSON Lines."""
    layout, lines = folder / f"layout_{copies}.json", folder / f"turns_{copies}.jsonl"
    write_repeated_layout(layout, copies)
    one = json.loads(SOURCE.read_text())
    with lines.open("w") as stream:
        for copy in range(copies):
            for dialogue_id, turns in one.items():
                name = f"{copy}:{dialogue_id}"
                for turn_id, turn in turns.items():
                    record = {"dialogue_id": name, "turn_id": int(turn_id), "gt": turn["gt"], "pr": turn["pr"]}
                    stream.write(json.dumps(record) + "\n")
    return layout, lines


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
            ((seconds, rss),) = fresh_processes([argv], args.runs)
            size = path.stat().st_size / 1e6
            print(f"{total:>10,}  {how:<28} {seconds:>8.2f} {1e6 * seconds / total:>8.2f} {rss:>12.0f}  {size:.0f}")
        if not args.keep:
            layout.unlink()
            lines.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
