"""Cost of the torchmetrics metrics against the core alone, on the TRADE file of ../shared/reference (not a test).

The file is read once (``dst_metrics.read``) into lists of dialogues (each a list of states), the input of
``update()``. Over several repetitions, alternating, it times:

- core: ``Corpus.from_dialogues`` + ``dst_metrics.score`` of every dialogue at once;
- torchmetrics: ``DSTMetrics()``, ``update()`` of each batch of ``--batch`` dialogues, then ``compute()``
  (the update part and the compute part timed apart too);

and prints the medians in µs per turn and the ratio to the core. Both give the same figures (checked first).

With ``--cpu`` every time is the process's CPU time (``time.process_time``).

    python benchmarks/bench_torchmetrics.py [--repeats 7] [--batch 32] [--mode official] [--cpu]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DST_METRICS_SHARED", REPO.parent / "shared"))
SOURCE = SHARED / "reference" / "trade" / "MLCSG_TRADE_reference_layout.json"
CLOCK = time.perf_counter
"""The clock of every timing: the wall clock, or with ``--cpu`` the process's CPU time."""


def run_core(preds: list, golds: list, mode: str) -> dict:
    """The core's figures of all the dialogues (read into a Corpus, then scored), and no time apart."""
    from dst_metrics import Corpus, score

    return dict(score(Corpus.from_dialogues(preds, golds), mode=mode).scores)


def run_metric(preds: list, golds: list, mode: str, batch: int) -> tuple[dict, float]:
    """The metric's figures over batches of `batch` dialogues, and the time its compute() took."""
    from dst_metrics.torchmetrics import DSTMetrics

    metric = DSTMetrics(mode=mode)
    for start in range(0, len(preds), batch):
        metric.update(preds[start : start + batch], golds[start : start + batch])
    start = CLOCK()
    figures = metric.compute()
    return {key: value.item() for key, value in figures.items()}, CLOCK() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--batch", type=int, default=32, help="dialogues per update()")
    parser.add_argument("--mode", default="official", choices=("official", "corrected"))
    parser.add_argument("--cpu", action="store_true", help="time CPU (time.process_time), not the wall clock")
    parser.add_argument("--source", type=Path, default=SOURCE, help="a file in the reference layout")
    args = parser.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    if not args.source.is_file():
        print(
            f"skipped: {args.source} is missing (the shared/ folder belongs beside the clone; "
            "set DST_METRICS_SHARED to point elsewhere)"
        )
        return 0
    sys.path.insert(0, str(REPO))
    import dst_metrics.torchmetrics  # noqa: F401  (torch and torchmetrics imported once, outside the timings)
    from dst_metrics import read

    corpus = read(args.source, "reference")
    preds, golds = [list(d.pred) for d in corpus], [list(d.gold) for d in corpus]
    turns = corpus.num_turns
    assert run_metric(preds, golds, args.mode, args.batch)[0] == run_core(preds, golds, args.mode)
    times: dict[str, list[float]] = {"core": [], "metric": [], "update": [], "compute": []}
    for _ in range(args.repeats):  # alternating, so that load on the machine hits both alike
        gc.collect()
        start = CLOCK()
        run_core(preds, golds, args.mode)
        times["core"].append((CLOCK() - start) / turns * 1e6)
        gc.collect()
        start = CLOCK()
        _, computing = run_metric(preds, golds, args.mode, args.batch)
        whole = CLOCK() - start
        times["metric"].append(whole / turns * 1e6)
        times["update"].append((whole - computing) / turns * 1e6)
        times["compute"].append(computing / turns * 1e6)
    batches = -(-len(preds) // args.batch)
    print(
        f"{args.source.name}: {turns} turns in {len(preds)} dialogues, {batches} batches of {args.batch}, mode "
        f"{args.mode}, {args.repeats} alternating repetitions; medians in µs per turn "
        f"({'CPU' if args.cpu else 'wall clock'})"
    )
    core = statistics.median(times["core"])
    labels = {
        "core": "core: Corpus.from_dialogues + score",
        "metric": "DSTMetrics: update of each batch + compute",
        "update": "  of which update()",
        "compute": "  of which compute()",
    }
    for key, label in labels.items():
        median = statistics.median(times[key])
        print(f"  {label:44s} {median:7.2f} µs/turn (min {min(times[key]):7.2f})  x{median / core:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
