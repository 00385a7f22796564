"""Hostile mutants of every reader's fixture through the command line: how each run ends.

    python benchmarks/fuzz_inputs.py [--seeds 5] [--through cli|door] [--subprocess]

prints a table reader x hostile kind -> counts of exit 0 / exit 2 / other (a traceback, another exit
status, a message of several lines) and the slowest run. The mutants are those of tests/fuzz.py
(truncated, bytes flipped, 100,000 ``[`` inside a value, UTF-16, NUL bytes, values swapped for
1e400/NaN/null/arrays, keys given twice), seeded: the same table on every machine. ``--through door``
reads through `dst_metrics.readers.resolve_input` instead; ``--subprocess`` runs each mutant as
``python -m dst_metrics score`` (slow: one process each). Any ``other`` is listed below the table.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fuzz import KINDS, _paths, fixtures, mutants, outcome  # noqa: E402


def _subprocess_outcome(reader: str, path: Path) -> str:
    predictions, gold = _paths(reader, path)
    argv = [sys.executable, "-m", "dst_metrics", "score", str(predictions), "--quiet"]
    argv += ["--gold", str(gold)] if gold else []
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=REPO)
    if done.returncode == 0:
        return "ok"
    if done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr:
        return "input-error"
    return f"other: exit {done.returncode}: {done.stderr[-200:]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="mutants per reader and kind (5)")
    parser.add_argument("--through", choices=("cli", "door"), default="cli")
    parser.add_argument("--subprocess", action="store_true", help="one `python -m dst_metrics` per mutant")
    args = parser.parse_args()
    table: Counter = Counter()
    others, slowest = [], (0.0, "")
    with tempfile.TemporaryDirectory() as tmp:
        for index, (reader, kind, name, data) in enumerate(mutants(range(args.seeds))):
            folder = Path(tmp) / str(index)
            folder.mkdir()
            path = folder / name
            path.write_bytes(data)
            start = time.perf_counter()
            found = _subprocess_outcome(reader, path) if args.subprocess else outcome(reader, path, args.through)
            took = time.perf_counter() - start
            slowest = max(slowest, (took, f"{reader} {kind}"))
            table[reader, kind, found.split(":")[0]] += 1
            if found.startswith("other"):
                others.append(f"{reader} {kind} #{index}: {found}")
    header = ["reader", *KINDS, "all"]
    rows = []
    for reader in fixtures():
        cells = []
        for kinds in [*((kind,) for kind in KINDS), KINDS]:
            counts = [sum(table[reader, kind, ended] for kind in kinds) for ended in ("ok", "input-error", "other")]
            cells.append("/".join(map(str, counts)))
        rows.append([reader, *cells])
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    print(f"exit 0 / exit 2 / other, through {'subprocesses' if args.subprocess else args.through}, seeds {args.seeds}")
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
    total = Counter(found for (_, _, found), n in table.items() for _ in range(n))
    print(f"\n{sum(total.values())} mutants: {total['ok']} exit 0, {total['input-error']} exit 2, "
          f"{total['other']} other; slowest {slowest[0]:.2f} s ({slowest[1]})")  # fmt: skip
    for line in others:
        print(line)


if __name__ == "__main__":
    main()
