"""Time and peak memory of ``dst-metrics score`` refusing 50 MB of JSON that is not DST data, beside a valid file.

    python benchmarks/bench_junk.py [--runs 3] [--megabytes 50] [--valid-copies 16]

Writes to a temporary folder (seeded: the same files on every machine):

  - junk-object: one JSON object of random keys (unique) with random nested values (objects, arrays,
    numbers, strings, literals up to five levels): the reference layout by its first byte, its first
    dialogue wrong;
  - junk-duplicate-keys: the same with keys drawn from a small set, so many are given twice;
  - junk-list: one JSON array of such values (no format reads it);
  - valid: ../shared/reference/trade's reference layout repeated --valid-copies times under new dialogue
    ids (about 35 MB with 16).

and runs ``python -m dst_metrics score FILE --quiet`` on each, the files alternating, --runs times. Prints per
file the median wall time, CPU time and peak resident memory of the process and its children (``wait4``), the
exit status and the first line of stderr (``--repo`` runs another checkout: before / after a change).
Target (issue 44): junk refused within 2 s and 200 MB, the valid
file as fast as before (about 0.7 s and 60 MB on an idle core).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TRADE = REPO.parent / "shared" / "reference" / "trade" / "MLCSG_TRADE_reference_layout.json"


def _value(rng: random.Random, depth: int = 0) -> object:
    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice([rng.random() * 1000, rng.randint(-9, 9999), _word(rng), None, True])
    if roll < 0.65:
        return {_word(rng): _value(rng, depth + 1) for _ in range(rng.randint(1, 6))}
    return [_value(rng, depth + 1) for _ in range(rng.randint(1, 6))]


def _word(rng: random.Random) -> str:
    return "".join(rng.choices(string.ascii_letters, k=rng.randint(3, 12)))


def write_junk(path: Path, size: int, kind: str) -> None:
    """`size` bytes of random JSON: an object (unique or duplicate keys) or a list."""
    rng = random.Random(0)
    with path.open("w", encoding="utf-8") as out:
        out.write("[" if kind == "list" else "{")
        written = 0
        while written < size:
            key = "" if kind == "list" else _word(rng) + (str(written) if kind == "object" else "")
            item = (json.dumps(key) + ": " if key else "") + json.dumps(_value(rng))
            out.write((", " if written else "") + item)
            written += len(item) + 2
        out.write("]" if kind == "list" else "}")


def write_valid(path: Path, copies: int) -> None:
    layout = json.loads(TRADE.read_text(encoding="utf-8"))
    with path.open("w", encoding="utf-8") as out:
        out.write("{")
        for copy in range(copies):
            for index, (name, turns) in enumerate(layout.items()):
                out.write(
                    ("" if copy == index == 0 else ", ") + json.dumps(f"{copy}-{name}") + ": " + json.dumps(turns)
                )
        out.write("}")


def run_once(path: Path, repo: Path = REPO) -> tuple[float, float, float, int, str]:
    """(seconds, CPU seconds and peak resident MB of the process and the children it waited for, exit status,
    stderr's first line) of ``score`` in the checkout `repo`."""
    env = {**os.environ, "PYTHONPATH": str(repo), "HF_HUB_OFFLINE": "1"}
    argv = [sys.executable, "-m", "dst_metrics", "score", str(path), "--quiet"]
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=repo)
    stderr = process.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, usage.ru_maxrss / 1024, process.returncode, (stderr.splitlines() or [""])[0][:100]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--megabytes", type=float, default=50.0, help="size of each junk file (50)")
    parser.add_argument("--valid-copies", type=int, default=16, help="copies of the TRADE layout in the valid file")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to run (default: this one)")
    only_help = "only these files (junk-object, junk-duplicate-keys, junk-list, valid)"
    parser.add_argument("--only", nargs="+", help=only_help)
    args = parser.parse_args()
    size = int(args.megabytes * 1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = {}
        for kind, label in (("object", "junk-object"), ("duplicates", "junk-duplicate-keys"), ("list", "junk-list")):
            if not args.only or label in args.only:
                files[label] = folder / f"{label}.json"
                write_junk(files[label], size, kind)
        if TRADE.is_file() and (not args.only or "valid" in args.only):
            files["valid"] = folder / "valid.json"
            write_valid(files["valid"], args.valid_copies)
        found: dict[str, list] = {label: [] for label in files}
        for _ in range(args.runs):
            for label, path in files.items():
                found[label].append(run_once(path, args.repo))
        print(f"{'file':20} {'MB':>6} {'seconds':>8} {'CPU s':>6} {'peak MB':>8} exit  stderr (first line)")
        for label, runs in found.items():
            seconds, cpu, peak = (statistics.median(run[i] for run in runs) for i in range(3))
            megabytes = files[label].stat().st_size / 1e6
            print(f"{label:20} {megabytes:6.1f} {seconds:8.2f} {cpu:6.2f} {peak:8.0f} {runs[-1][3]:>4}  {runs[-1][4]}")


if __name__ == "__main__":
    main()
