"""Null simulation of the table of N systems (issue 36): how often does a table mark something when
every system comes from one process? Long: tests/test_table.py runs a small version of it.

    python benchmarks/sim_table.py [--tables 1000] [--systems 5] [--dialogues 200] [--seed 36] [--runs 3,3,1]

Each table: --systems trackers drawn from one process on the same dialogues (tests/simulation.py
`simulate_systems`: turns of a dialogue strongly dependent, a difficulty per dialogue shared by the
systems), the default columns, 100 bootstrap resamples (the intervals do not enter the marks), the
randomization rounds from the family size. Every mark is false. Prints, for the baseline table and
for every pair (``pairs="all"``), with Holm over the whole table at level 0.05, the share of tables
with any mark (the family-wise error rate, to be at most 5%), with its 95% Wilson interval; and, for
contrast, the share with any mark if Holm ran within each comparison only (what `report` did before)
and with no correction at all.

``--runs 3,3,1``: systems with several runs (issue 46; `simulate_runs`: a run's own effect beside its
system's), as many systems as numbers given; each table's cells are means over runs and its tests run on
each dialogue's tallies averaged over a system's runs.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
import numpy as np  # noqa: E402

from dst_metrics.options import Options  # noqa: E402
from dst_metrics.stats.paired import adjust  # noqa: E402
from dst_metrics.stats.table import table_of_matrices  # noqa: E402
from tests.simulation import simulate_runs, simulate_systems  # noqa: E402

LEVEL = 0.05


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    share = successes / trials
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return centre - half, centre + half


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--dialogues", type=int, default=200)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--runs", help="comma-separated runs of each system (then --systems is their number)")
    args = parser.parse_args()
    runs = tuple(int(count) for count in args.runs.split(",")) if args.runs else None
    if runs:
        args.systems = len(runs)
    options = Options()
    rng = np.random.default_rng(args.seed)
    counts = {pairs: {"table": 0, "per comparison": 0, "none": 0} for pairs in ("baseline", "all")}
    family = {}
    start = time.perf_counter()
    for repetition in range(args.tables):
        matrices = (
            simulate_runs(rng, runs, args.dialogues) if runs else simulate_systems(rng, args.systems, args.dialogues)
        )
        for pairs in ("baseline", "all"):
            table = table_of_matrices(matrices, options, resamples=100, seed=repetition, pairs=pairs)
            family[pairs] = (table.family_size, table.rounds)
            found = counts[pairs]
            found["table"] += any(f.significant for t in table.tests for f in t.figures.values())
            per_comparison = [q for t in table.tests for q in adjust([f.p for f in t.figures.values()], "holm")]
            found["per comparison"] += any(q <= LEVEL for q in per_comparison)
            found["none"] += any(f.p <= LEVEL for t in table.tests for f in t.figures.values())
    took = time.perf_counter() - start
    print(
        f"null: {args.tables} tables of {args.systems} systems from one process on {args.dialogues} dialogues"
        f"{f' (runs {args.runs})' if runs else ''}, "
        f"seed {args.seed} ({took:.0f} s)"
    )
    for pairs, found in counts.items():
        size, rounds = family[pairs]
        print(f"  pairs {pairs} (family m = {size}, {rounds} rounds): share of tables with any mark at level {LEVEL}")
        for label, key in (
            ("Holm over the whole table", "table"),
            ("Holm within each comparison", "per comparison"),
            ("no correction", "none"),
        ):
            low, high = wilson(found[key], args.tables)
            share = 100 * found[key] / args.tables
            print(f"    {label:30s} {share:5.1f}%  [{100 * low:.1f}, {100 * high:.1f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
