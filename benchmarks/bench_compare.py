"""Time of `compare` on two 10,000-dialogue corpora, stage by stage (issue 19).

    python benchmarks/bench_compare.py [--tree PATH] [--dialogues 10000] [--level 0.05]

Corpora: the T5 zero-shot restaurant file of ../shared/reference copied under new dialogue ids and
cut at --dialogues (as `bench_bootstrap.py`). Two pairs: ``gold10``, the corpus against the same
with every 10th dialogue (by id) given the gold state (few discordant turns, all one way); and
``crossed``, the corpus with every 6th dialogue given gold (from the first) against the same with
every 6th from the fourth (about 10,000 turns right only in A and as many only in B: the case where
McNemar's exact sum of binomial coefficients was slow).
--tree runs another checkout's code (e.g. the code before issue 19, from
``git worktree add /tmp/stats-before 7f452a5``): only ``compare(a, b, resamples=1000)`` is called
there. Prints the wall time of one run of `compare` (1,000 bootstrap resamples, the default
randomization rounds) and, for this tree, of its stages.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE = Path(os.environ.get("DST_METRICS_SHARED", REPO.parent / "shared")) / (
    "reference/t5_zeroshot/predictions/T5_result_zeroshot_rest.json"
)


def with_gold(layout: dict, every: int, first: int) -> dict:
    """A copy of `layout` with every `every`-th dialogue (by id) from index `first` given gold."""
    out = json.loads(json.dumps(layout))
    for index, dialogue_id in enumerate(sorted(out)):
        if index % every == first:
            for turn in out[dialogue_id].values():
                turn["pr"] = turn["gt"]
    return out


def pairs(data: dict, dialogues: int) -> dict[str, tuple[dict, dict]]:
    """{name: (A, B)}: ``gold10`` and ``crossed`` (see the module docstring)."""
    copies = -(-dialogues // len(data))
    large = {f"{c}:{d}": turns for c in range(copies) for d, turns in data.items()}
    large = {d: large[d] for d in sorted(large)[:dialogues]}
    return {"gold10": (large, with_gold(large, 10, 0)), "crossed": (with_gold(large, 6, 0), with_gold(large, 6, 3))}


def seconds(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout whose dst_metrics to time (this one)")
    parser.add_argument("--dialogues", type=int, default=10_000, help="dialogues per corpus (10000)")
    parser.add_argument("--level", type=float, default=0.05, help="significance level (0.05)")
    parser.add_argument("--pair", choices=("gold10", "crossed"), action="append", help="the pairs to time (both)")
    args = parser.parse_args()
    if not SOURCE.is_file():
        print(f"skipped: {SOURCE} not found (needs ../shared beside the clone)")
        return 0
    sys.path.insert(0, str(args.tree.resolve()))
    from dst_metrics import Corpus
    from dst_metrics.stats import compare

    kwargs = {"resamples": 1000} if args.level == 0.05 else {"resamples": 1000, "level": args.level}
    for name, (layout_a, layout_b) in pairs(json.loads(SOURCE.read_text()), args.dialogues).items():
        if args.pair and name not in args.pair:
            continue
        a, b = Corpus.from_reference_layout(layout_a), Corpus.from_reference_layout(layout_b)
        found = []
        total = seconds(lambda: found.append(compare(a, b, **kwargs)))  # noqa: B023
        rounds = getattr(found[0], "rounds", 1000)
        m = found[0].mcnemar
        print(f"{args.tree} {name}: {len(a)} dialogues, {a.num_turns} turns each;", end=" ")
        print(f"only A right {m.a_only}, only B {m.b_only}")
        print(f"  compare, level {args.level:g} ({rounds} randomization rounds): {total:.2f} s", flush=True)
        if args.tree.resolve() == REPO:
            stages(a, b, args.level)
    return 0


def stages(a, b, level: float) -> None:
    """The stages of this tree's `compare`, timed apart."""
    from dst_metrics import Options
    from dst_metrics.stats.bootstrap import system_matrices
    from dst_metrics.stats.paired import compare_matrices, discordant_turns, mcnemar_tests

    options = Options()
    matrices = []
    print(f"    tally matrices:            {seconds(lambda: matrices.extend(system_matrices([a, b], options))):.2f} s")
    counts = []
    print(f"    discordant turns:          {seconds(lambda: counts.extend(discordant_turns(a, b, 'official'))):.2f} s")
    print(f"    McNemar (both tests):      {seconds(lambda: mcnemar_tests(*counts)):.4f} s")
    run = lambda: compare_matrices(*matrices, options, resamples=1000, level=level)  # noqa: E731
    print(f"    bootstrap + randomization: {seconds(run):.2f} s")


if __name__ == "__main__":
    sys.exit(main())
