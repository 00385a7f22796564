"""Speed and memory of bootstrap intervals over dialogues (dst_metrics.stats), and of compare.

    python benchmarks/bench_bootstrap.py [--runs 5] [--resamples 1000]

Corpora: the T5 zero-shot restaurant file of ../shared/reference (437 dialogues, 3,359 turns), and
10,000 dialogues made from it (copies under new dialogue ids, cut at 10,000). For each, the median
of --runs of:
  - intervals, percentile: `bootstrap_intervals(corpus, resamples=N)`, every non-count figure, from
    the corpus in memory (per-dialogue tallies, the tally matrix, N resamples, quantiles);
  - of which resampling: the N resamples and every figure of each, from the tally matrix;
  - intervals, BCa: the same with the jackknife over dialogues;
  - compare: `compare(corpus, corpus_with_gold_for_every_10th, resamples=N)` (bootstrap,
    randomization, McNemar, per-dialogue table);
and the peak memory (tracemalloc) of one percentile run. Targets (issue 9): 1,000 resamples of every
figure in < 1 s on the restaurant file and < 10 s on 10,000 dialogues.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
from bench_core import median_seconds, peak_mb  # noqa: E402  (the benchmarks' one timing function)

from dst_metrics import Corpus, Options  # noqa: E402
from dst_metrics.stats import bootstrap_intervals, compare  # noqa: E402
from dst_metrics.stats.bootstrap import dialogue_matrix, resampled_sums  # noqa: E402
from dst_metrics.stats.matrix import figure_arrays  # noqa: E402

SOURCE = Path(os.environ.get("DST_METRICS_SHARED", REPO.parent / "shared")) / (
    "reference/t5_zeroshot/predictions/T5_result_zeroshot_rest.json"
)
LARGE_DIALOGUES = 10_000
TARGETS_S = {"restaurant": 1.0, "10,000 dialogues": 10.0}


def corpora(data: dict) -> dict[str, tuple[dict, dict]]:
    """{name: (reference layout, the same with every 10th dialogue by id given the gold state)}."""
    copies = -(-LARGE_DIALOGUES // len(data))
    large = {f"{c}:{d}": turns for c in range(copies) for d, turns in data.items()}
    large = {d: large[d] for d in sorted(large)[:LARGE_DIALOGUES]}
    out = {}
    for name, layout in (("restaurant", data), ("10,000 dialogues", large)):
        improved = json.loads(json.dumps(layout))
        for index, dialogue_id in enumerate(sorted(improved)):
            if index % 10 == 0:
                for turn in improved[dialogue_id].values():
                    turn["pr"] = turn["gt"]
        out[name] = (layout, improved)
    return out


def measure(name: str, corpus: Corpus, other: Corpus, resamples: int, runs: int) -> None:
    options = Options()
    matrix = dialogue_matrix(corpus, options)

    def resample_only() -> None:
        sums = resampled_sums(matrix.rows, resamples, np.random.default_rng(0))
        figure_arrays(sums, matrix.layout, options)

    percentile = median_seconds(lambda: bootstrap_intervals(corpus, resamples=resamples), runs)
    resampling = median_seconds(resample_only, runs)
    bca = median_seconds(lambda: bootstrap_intervals(corpus, resamples=resamples, method="bca"), runs)
    paired = median_seconds(lambda: compare(corpus, other, resamples=resamples), max(1, runs // 2))
    memory = peak_mb(lambda: bootstrap_intervals(corpus, resamples=resamples))
    target = TARGETS_S[name]
    print(f"{name}: {len(corpus)} dialogues, {corpus.num_turns} turns, {matrix.layout.width} tally columns")
    print(f"  intervals, percentile:  {percentile:7.3f} s  ({1e6 * percentile / resamples:7.1f} µs/resample)")
    print(f"    of which resampling:  {resampling:7.3f} s  ({1e6 * resampling / resamples:7.1f} µs/resample)")
    print(f"  intervals, BCa:         {bca:7.3f} s  ({1e6 * bca / resamples:7.1f} µs/resample)")
    print(f"  compare (+ gold 10%):   {paired:7.3f} s")
    print(f"  peak memory (percentile): {memory:.1f} MB")
    verdict = "met" if max(percentile, bca) < target else "NOT met"
    print(f"  target {resamples} resamples < {target:g} s: {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement; the median is printed")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (1000)")
    args = parser.parse_args()
    if not SOURCE.is_file():
        print(f"skipped: {SOURCE} not found (needs ../shared beside the clone)")
        return 0
    data = json.loads(SOURCE.read_text())
    for name, (layout, improved) in corpora(data).items():
        corpus = Corpus.from_reference_layout(layout)
        other = Corpus.from_reference_layout(improved)
        measure(name, corpus, other, args.resamples, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
