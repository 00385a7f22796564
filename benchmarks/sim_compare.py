"""Null and power simulation of `dst_metrics.stats.compare` (issue 19), with turns of a dialogue
strongly dependent (tests/simulation.py). Long: the test suite runs a small version of it.

    python benchmarks/sim_compare.py [--pairs 1000] [--dialogues 200] [--delta 0.3] [--seed 19]

Under the null (both systems from one process) it prints, per test reported, the share of pairs
with p <= 0.05: the randomization p of JGA and GCA (the default rounds, 3,199), McNemar clustered by
dialogue (Durkalski et al. 2003) and, for contrast, McNemar on turns taken as independent; and the
coverage of the 95% paired bootstrap intervals (1,000 resamples) of the JGA and GCA differences.
Under the alternative (B's skill shifted by --delta on the logit scale) it prints the power of
"JGA significant after Holm over the family" at levels 0.05 and 0.01, before issue 19 (1,000
rounds, 17 figures: fga@0.5 counted beside fga) and after (16 figures, rounds from the level), and
the power of the clustered McNemar test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
import numpy as np  # noqa: E402

from dst_metrics.options import Options  # noqa: E402
from dst_metrics.stats.paired import adjust, compare_matrices, family_keys, mcnemar_tests  # noqa: E402
from tests.simulation import null_outcomes, simulate_pair  # noqa: E402

LEVELS = (0.05, 0.01)


def before_significant(pair, options: Options, seed: int) -> dict[float, bool]:
    """JGA significant as the code before issue 19 decided: 1,000 rounds, Holm over 17 figures
    (fga@0.5 a second copy of fga's p)."""
    keys = family_keys(options)
    found = compare_matrices(pair.a, pair.b, options, resamples=1, rounds=1000, seed=seed, figures=keys)
    raw = [found[key].p for key in keys] + [found["fga"].p]
    adjusted = dict(zip(keys, adjust(raw, "holm")))
    return {level: adjusted["jga"] <= level for level in LEVELS}


def after_significant(pair, options: Options, seed: int) -> dict[float, bool]:
    """JGA significant now: 16 figures, rounds from the level."""
    return {
        level: compare_matrices(pair.a, pair.b, options, resamples=1, level=level, seed=seed)["jga"].significant
        for level in LEVELS
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--dialogues", type=int, default=200)
    parser.add_argument("--delta", type=float, default=0.3, help="B's shift on the logit scale (0.3)")
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    options = Options()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    null = null_outcomes(rng, args.pairs, args.dialogues, resamples=1000)
    took = time.perf_counter() - start
    print(f"null: {args.pairs} pairs of {args.dialogues} dialogues, seed {args.seed} ({took:.0f} s)")
    for key, label in (
        ("jga", "randomization, JGA"),
        ("gca", "randomization, GCA"),
        ("clustered", "McNemar clustered by dialogue"),
        ("turns", "McNemar on turns as independent (not a headline)"),
    ):
        print(f"  p <= 0.05 in {100 * np.mean(np.array(null[key]) <= 0.05):5.1f}% of pairs: {label}")
    for key in ("jga", "gca"):
        print(f"  95% interval of the {key.upper()} difference covers 0 in {100 * np.mean(null[f'{key}_ci']):5.1f}%")
    start = time.perf_counter()
    power: dict[str, list] = {"before": [], "after": [], "clustered": []}
    for repetition in range(args.pairs):
        pair = simulate_pair(rng, args.dialogues, mu_b=-0.4 + args.delta)
        power["before"].append(before_significant(pair, options, repetition))
        power["after"].append(after_significant(pair, options, repetition))
        power["clustered"].append({level: mcnemar_tests(*pair.discordant())[0].p <= level for level in LEVELS})
    print(f"alternative: B's logit shifted by {args.delta} ({time.perf_counter() - start:.0f} s)")
    for level in LEVELS:
        before = np.mean([found[level] for found in power["before"]])
        after = np.mean([found[level] for found in power["after"]])
        clustered = np.mean([found[level] for found in power["clustered"]])
        print(
            f"  level {level:g}: JGA significant (Holm) in {100 * before:5.1f}% before (1000 rounds, m = 17), "
            f"{100 * after:5.1f}% after (m = 16, rounds from the level); clustered McNemar {100 * clustered:5.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
