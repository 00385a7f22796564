"""Speed and memory of the core on ≥ 200k turns: in memory and end to end through the CLI.

    python benchmarks/bench_core.py [--repeat 60] [--runs 5]

The corpus is the restaurant file of ../shared/reference/t5_zeroshot repeated (each copy under new
dialogue ids). Prints µs per turn (median of --runs) for:
  - score:          every figure (GCA + counts + rates, JGA, FGA at 4 λ, SA, AGA, RSA, slot P/R/F1,
                    joint turn accuracy, final-turn JGA) of a corpus already built in memory;
  - build + score:  the same from the parsed JSON objects (validation and normalization included);
  - read + score:   `dst_metrics.read(path)` (format detection, decoding, validation) + score;
  - CLI end to end: `python -m dst_metrics score FILE --json` in a fresh process (startup, reading,
                    parsing, validating, scoring, printing);
  - json.load:      the standard library reading the same file, for scale (the project's specification: ~12 µs/turn);
and peak memory (tracemalloc peak of read + score in memory; max RSS of the CLI process).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import msgspec  # noqa: E402

from dst_metrics import Corpus, read, score  # noqa: E402

SOURCE = Path(os.environ.get("DST_METRICS_SHARED", REPO.parent / "shared")) / (
    "reference/t5_zeroshot/predictions/T5_result_zeroshot_rest.json"
)


def median_seconds(run, runs: int) -> float:
    """The median wall time of `runs` calls of `run` (the benchmarks' one timing function)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def median_us_per_turn(run, turns: int, runs: int) -> float:
    return median_seconds(run, runs) * 1e6 / turns


def peak_mb(run) -> float:
    """The tracemalloc peak, in MB, of one call of `run`."""
    import gc
    import tracemalloc

    gc.collect()
    tracemalloc.start()
    run()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1e6


def fresh_process(argv: list[str], cwd: str | None = None, env: dict | None = None) -> tuple[float, float]:
    """(seconds, max RSS in MB) of `argv` run once in a fresh process (``wait4``); a failure stops the benchmark."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"failed: {' '.join(argv)}: {process.stderr.read().decode()[-2000:]}")
    return seconds, usage.ru_maxrss / 1024


def fresh_processes(commands: list[list[str]], runs: int, **popen) -> list[tuple[float, float]]:
    """(median seconds, max RSS in MB) of each command in fresh processes, the commands taking turns
    run after run (so that load on the machine hits them alike); `popen`: `fresh_process`'s cwd, env."""
    results: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(runs):
        for index, argv in enumerate(commands):
            results[index].append(fresh_process(argv, **popen))
    return [(statistics.median(s for s, _ in r), max(m for _, m in r)) for r in results]


def write_repeated_layout(path: Path, copies: int) -> int:
    """The restaurant file repeated `copies` times (dialogue ids ``copy:id``) written to `path` in the
    reference layout, without holding the copies in memory; returns the number of turns."""
    one = json.loads(SOURCE.read_text())
    turns = 0
    with path.open("w") as out:
        out.write("{")
        for copy in range(copies):
            for index, (dialogue_id, dialogue) in enumerate(one.items()):
                name = json.dumps(f"{copy}:{dialogue_id}")
                out.write(("," if copy or index else "") + name + ":" + json.dumps(dialogue))
                turns += len(dialogue)
        out.write("}")
    return turns


def repeated_source(repeat: int) -> dict | None:
    """The restaurant file repeated `repeat` times, each copy under new dialogue ids (None, with a
    message, when ../shared is absent)."""
    if not SOURCE.is_file():
        print(f"skipped: {SOURCE} not found (needs ../shared beside the clone)")
        return None
    one = json.loads(SOURCE.read_text())
    return {f"{copy}:{dialogue_id}": turns for copy in range(repeat) for dialogue_id, turns in one.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=60, help="copies of the restaurant file (60: 201,540 turns)")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement; the median is printed")
    parser.add_argument("--mode", default="official", choices=("official", "corrected"))
    args = parser.parse_args()
    data = repeated_source(args.repeat)
    if data is None:
        return 0
    turns = sum(len(t) for t in data.values())
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "corpus.json"
        path.write_text(json.dumps(data))
        parsed = msgspec.json.decode(path.read_bytes())  # the parsed objects, as a caller holds them
        corpus = Corpus.from_reference_layout(parsed)
        size_mb = path.stat().st_size / 1e6
        print(f"corpus: {len(data)} dialogues, {turns} turns, {size_mb:.1f} MB of JSON; mode {args.mode}")

        score_only = median_us_per_turn(lambda: score(corpus, mode=args.mode), turns, args.runs)
        build_score = median_us_per_turn(
            lambda: score(Corpus.from_reference_layout(parsed), mode=args.mode), turns, args.runs
        )
        read_score = median_us_per_turn(lambda: score(read(path), mode=args.mode), turns, args.runs)
        cli = [sys.executable, "-m", "dst_metrics", "score", str(path), "--json", "--mode", args.mode]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        end_to_end = median_us_per_turn(
            lambda: subprocess.run(cli, check=True, capture_output=True, env=env), turns, args.runs
        )
        # Max RSS of one CLI run, measured from a small wrapper process: a child forked from this
        # large process would count this process's pages as its own until it execs.
        wrapper = (
            "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, capture_output=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
        )
        rss_kb = subprocess.run([sys.executable, "-c", wrapper, *cli], check=True, capture_output=True, env=env)
        cli_rss_mb = int(rss_kb.stdout) / 1024
        gc_was = gc.isenabled()
        stdlib = median_us_per_turn(lambda: json.loads(path.read_bytes()), turns, max(1, args.runs // 2))

        gc.collect()
        tracemalloc.start()
        score(read(path), mode=args.mode)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert gc.isenabled() == gc_was

    print(f"score (corpus in memory):      {score_only:6.2f} µs/turn")
    print(f"build + score (parsed JSON):   {build_score:6.2f} µs/turn")
    print(f"read + score (the file):       {read_score:6.2f} µs/turn")
    print(f"CLI end to end (--json):       {end_to_end:6.2f} µs/turn   max RSS {cli_rss_mb:.0f} MB")
    print(f"stdlib json.loads of the file: {stdlib:6.2f} µs/turn   (scale: the specification says ~12 on its machine)")
    print(f"peak traced memory, read + score (the file): {peak / 1e6:.0f} MB")
    print("official code (as specified): ~16 µs/turn in memory + ~12 µs/turn reading = ~28 µs/turn end to end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
