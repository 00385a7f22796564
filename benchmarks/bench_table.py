"""Speed and memory of the table of N systems (`dst-metrics table`, `dst_metrics.stats.systems_table`).

    python benchmarks/bench_table.py [--systems 10] [--runs 3] [--resamples 1000]

Systems: the TRADE prediction file of ../shared/reference/trade (999 MultiWOZ test dialogues, 7,368
turns) and --systems - 1 seeded variants of it (tests/simulation.py `trade_variant`: turns given
the gold, items dropped, values swapped), all on its gold. Prints the median of --runs of:
  - table, baseline: `systems_table(corpora)` from the corpora in memory: per-dialogue tallies,
    each system's bootstrap intervals (--resamples), each system against the first on the five
    default figures (paired bootstrap and randomization, rounds from the family), one Holm over all;
  - table, every pair: the same with ``pairs="all"`` (45 pairs × 5 figures for 10 systems);
  - CLI end to end: ``dst-metrics table FILE…`` in a fresh process (reading the files included),
    baseline pairs and every pair;
and the peak memory (tracemalloc peak of one in-memory run; max RSS of the CLI process).
Target (issue 36): 10 systems × 1,000 dialogues, intervals and all tests, within 30 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_core import fresh_process, median_seconds, peak_mb  # noqa: E402  (the benchmarks' one timing function)

from dst_metrics.readers import read  # noqa: E402
from dst_metrics.stats import systems_table  # noqa: E402
from tests.simulation import trade_variant  # noqa: E402

SOURCE = Path(os.environ.get("DST_METRICS_SHARED", REPO.parent / "shared")) / (
    "reference/trade/MLCSG_all_prediction_TRADE.json"
)
TARGET_S = 30.0


def write_systems(folder: Path, systems: int) -> list[Path]:
    """The TRADE file and `systems` - 1 seeded variants of it, written to `folder`."""
    data = json.loads(SOURCE.read_text(encoding="utf-8"))
    paths = [SOURCE]
    for index in range(1, systems):
        changes = {"drop": 0.02 * (index % 4), "fix": 0.01 * (index % 3), "swap": 0.01 * (index % 5)}
        path = folder / f"variant{index}.json"
        path.write_text(json.dumps(trade_variant(data, seed=index, **changes)), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    if not SOURCE.is_file():
        print(f"needs {SOURCE}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        paths = write_systems(Path(folder), args.systems)
        corpora = [(f"S{i + 1}", read(str(path))) for i, path in enumerate(paths)]
        dialogues = len(corpora[0][1].dialogues)
        print(f"{args.systems} systems × {dialogues} dialogues, {args.resamples} resamples, {os.cpu_count()} cores")
        for pairs in ("baseline", "all"):
            table = systems_table(corpora, resamples=args.resamples, pairs=pairs)

            def run(pairs: str = pairs) -> None:
                systems_table(corpora, resamples=args.resamples, pairs=pairs)

            seconds = median_seconds(run, args.runs)
            peak = peak_mb(run)
            print(
                f"  table, {pairs:8s} pairs: {seconds:6.2f} s (median of {args.runs}); family m = "
                f"{table.family_size}, {table.rounds} rounds; peak {peak:.0f} MB (tracemalloc); target {TARGET_S:g} s"
            )
        for pairs in ("baseline", "all"):
            argv = [sys.executable, "-m", "dst_metrics", "table", *map(str, paths), "--quiet", "--json"]
            argv += ["--bootstrap", str(args.resamples), "--pairs", pairs]
            runs = [fresh_process(argv, cwd=str(REPO)) for _ in range(args.runs)]
            seconds = sorted(s for s, _ in runs)[len(runs) // 2]
            rss = max(r for _, r in runs)
            print(f"  CLI end to end, {pairs:8s} pairs: {seconds:6.2f} s (median of {args.runs}); max RSS {rss:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
