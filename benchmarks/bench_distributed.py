"""``--engine dask`` at scale: a corpus of JSON Lines shards scored on a local Dask cluster.

    python benchmarks/bench_distributed.py [--turns 10077000] [--shards 20] [--workers 2] [--runs 1] [--keep DIR]

The corpus is the T5 restaurant file of ../shared (3,359 turns) repeated under new dialogue ids (as in
bench_core.py and bench_scale.py), written as `--shards` JSON Lines files of turn records (a folder).
Rows, each a fresh ``dst-metrics score`` process:
  - dask:      ``score FOLDER --engine dask --jobs W``: a local cluster of W single-threaded worker
               processes, each shard one task (streamed), tallies reduced by ``+``;
  - 1 process: ``score FILE --jobs 1`` on the same turns in one JSON Lines file (streamed).
Prints wall time, µs per turn and peak RSS: of the command's process, and of its largest child (a
Dask worker; ``RUSAGE_CHILDREN``). The figures of both rows must be equal (checked).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import SOURCE  # noqa: E402  (the same corpus as the core's benchmark)

TURNS_PER_COPY = 3359
RUNNER = (
    "import json, resource, sys, time\n"
    "from dst_metrics.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
    "children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
    "print(json.dumps({'own_mb': own, 'child_mb': children}), file=sys.stderr)\n"
    "sys.exit(status)\n"
)


def write_shards(folder: Path, copies: int, shards: int) -> tuple[Path, Path, int]:
    """The restaurant file repeated `copies` times as `shards` JSON Lines files, and as one file."""
    one = json.loads(SOURCE.read_text())
    records = [  # each turn's record after its dialogue id, encoded once
        [(turn_id, json.dumps({"gt": turn["gt"], "pr": turn["pr"]})[1:]) for turn_id, turn in turns.items()]
        for turns in one.values()
    ]
    names = list(one)
    shard_folder = folder / "shards"
    shard_folder.mkdir(parents=True, exist_ok=True)
    whole = folder / "all.jsonl"
    bounds = [copies * k // shards for k in range(shards + 1)]
    with whole.open("w") as everything:
        for index in range(shards):
            with (shard_folder / f"part-{index:04d}.jsonl").open("w") as shard:
                for copy in range(bounds[index], bounds[index + 1]):
                    lines = []
                    for name, turns in zip(names, records):
                        head = '{"dialogue_id": ' + json.dumps(f"{copy}:{name}") + ', "turn_id": '
                        lines += [f"{head}{turn_id}, {rest}\n" for turn_id, rest in turns]
                    text = "".join(lines)
                    shard.write(text)
                    everything.write(text)
    return shard_folder, whole, copies * TURNS_PER_COPY


def run(arguments: list[str]) -> tuple[float, dict, dict]:
    """(seconds, the JSON output, RSS figures) of one fresh ``dst-metrics`` process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUNNER, *arguments], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"failed: {' '.join(arguments)}: {done.stderr}")
    return seconds, json.loads(done.stdout), json.loads(done.stderr.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=10_077_000, help="corpus size (a multiple of 3,359 is exact)")
    parser.add_argument("--shards", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster")
    parser.add_argument("--runs", type=int, default=1, help="runs per row (the median time is printed)")
    parser.add_argument("--keep", metavar="DIR", help="write the corpus here and keep it (default: a temporary folder)")
    args = parser.parse_args()
    if not SOURCE.is_file():
        print(f"skipped: {SOURCE} not found (needs ../shared beside the clone)")
        return 0
    folder = Path(args.keep or tempfile.mkdtemp(prefix="bench_distributed_"))
    copies = max(1, round(args.turns / TURNS_PER_COPY))
    start = time.perf_counter()
    shards, whole, turns = write_shards(folder, copies, args.shards)
    print(f"{turns:,} turns in {args.shards} shards, {whole.stat().st_size / 1e9:.2f} GB "
          f"(written in {time.perf_counter() - start:.0f} s)")  # fmt: skip
    rows = {
        f"dask, {args.workers} workers": ["score", str(shards), "--engine", "dask", "--jobs", str(args.workers)],
        "1 process, streamed": ["score", str(whole), "--jobs", "1"],
    }
    figures = {}
    print(f"{'how':<24} {'seconds':>8} {'µs/turn':>8} {'RSS MB':>8} {'largest child MB':>17}")
    for name, arguments in rows.items():
        results = [run([*arguments, "--json", "--quiet"]) for _ in range(args.runs)]
        results.sort(key=lambda r: r[0])
        seconds, out, rss = results[len(results) // 2]
        figures[name] = {k: v for k, v in out.items() if k not in ("file", "format")}
        print(f"{name:<24} {seconds:8.1f} {seconds * 1e6 / turns:8.2f} {rss['own_mb']:8.0f} {rss['child_mb']:17.0f}")
    first, second = figures.values()
    print("figures equal:", first == second)
    if not args.keep:
        shutil.rmtree(folder)
    return 0 if first == second else 1


if __name__ == "__main__":
    sys.exit(main())
