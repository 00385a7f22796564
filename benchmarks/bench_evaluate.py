"""Speed of the evaluate modules against the core alone, on 100k turns (not a test).

The restaurant T5 zero-shot file of ../shared/reference is repeated, with distinct dialogue ids,
to 100k turns. For each input shape (turn records, as a Trainer loop gives them, and dialogue-
level lists) it times, over several repetitions:

- core: ``Corpus.from_turn_records`` / ``Corpus.from_dialogues`` + ``score`` on the same data;
- each evaluate module (``gca_metric``, ``jga_fga_metrics``, ``dst_metrics_all``): ``evaluate.load``
  + ``add_batch`` over 100 batches + ``compute``;
- ``evaluate.combine`` of gca_metric and jga_fga_metrics, the same way (each module does its own
  work: the figures of dst_metrics_all at about twice its cost);

and prints the medians in µs per turn, the ratio to the core, and the peak memory of one
untimed run (Python heap by tracemalloc plus Arrow's memory pool).

With ``--add N`` it also times ``add()`` of one dialogue at a time (the first N dialogues) against
``add()`` of one example of a plain evaluate metric (two ``Value("int64")`` features, as evaluate's
``accuracy`` declares), and prints µs per call and the ratio.

With ``--cpu`` every time is the process's CPU time (``time.process_time``), which a machine shared
with other work disturbs less than the wall clock.

With ``--source FILE`` another file in the reference layout is repeated (e.g. the TRADE file of
../shared/reference/trade).

    python benchmarks/bench_evaluate.py [--turns 100000] [--repeats 5] [--batches 100] [--add 0] [--cpu]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DST_METRICS_SHARED", REPO.parent / "shared"))
SOURCE = SHARED / "reference" / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json"


def build_data(turns: int, source: Path = SOURCE) -> tuple[list, list, list, list]:
    """(pred dialogues, gold dialogues, pred records, gold records) of at least `turns` turns of
    `source` (a file in the reference layout)."""
    import msgspec

    data = msgspec.json.decode(source.read_bytes())
    dialogues = [
        (dialogue_id, sorted(((int(k), t) for k, t in turn_map.items()), key=lambda kt: kt[0]))
        for dialogue_id, turn_map in data.items()
    ]
    pred_dialogues, gold_dialogues, pred_records, gold_records = [], [], [], []
    count, copy = 0, 0
    while count < turns:
        for dialogue_id, items in dialogues:
            name = f"{dialogue_id}#{copy}"
            pred_dialogues.append([t["pr"] for _, t in items])
            gold_dialogues.append([t["gt"] for _, t in items])
            for turn_id, t in items:
                pred_records.append({"dialogue_id": name, "turn_id": turn_id, "state": t["pr"]})
                gold_records.append({"dialogue_id": name, "turn_id": turn_id, "state": t["gt"]})
            count += len(items)
            if count >= turns:
                break
        copy += 1
    return pred_dialogues, gold_dialogues, pred_records, gold_records


def run_core(shape: str, preds: list, golds: list) -> dict:
    from dst_metrics import Corpus, score

    if shape == "records":
        corpus = Corpus.from_turn_records(preds, golds)
    else:
        corpus = Corpus.from_dialogues(preds, golds)
    return score(corpus).scores.as_dict()


def run_module(name: str, shape: str, preds: list, golds: list, batches: int, cache_dir: str) -> dict:
    import evaluate

    from dst_metrics import module_path

    module = evaluate.load(module_path(name), cache_dir=cache_dir)
    size = -(-len(preds) // batches)
    for start in range(0, len(preds), size):
        module.add_batch(predictions=preds[start : start + size], references=golds[start : start + size])
    return module.compute()


def run_combined(shape: str, preds: list, golds: list, batches: int, cache_dir: str) -> dict:
    import evaluate

    from dst_metrics import module_path

    combined = evaluate.combine([evaluate.load(module_path(n), cache_dir=cache_dir) for n in ("gca", "jga_fga")])
    size = -(-len(preds) // batches)
    for start in range(0, len(preds), size):
        combined.add_batch(predictions=preds[start : start + size], references=golds[start : start + size])
    return combined.compute()


def plain_metric(cache_dir: str):
    """A plain evaluate metric: two int64 features, the mean of equal pairs (what ``accuracy`` does)."""
    import datasets
    import evaluate

    class Plain(evaluate.Metric):
        def _info(self) -> evaluate.MetricInfo:
            features = datasets.Features(
                {"predictions": datasets.Value("int64"), "references": datasets.Value("int64")}
            )
            return evaluate.MetricInfo(description="plain", citation="", features=features)

        def _compute(self, predictions, references):
            return {"accuracy": sum(p == r for p, r in zip(predictions, references)) / len(references)}

    return Plain(cache_dir=cache_dir)


def time_adds(module, examples: list[tuple], repeats: int) -> float:
    """Median µs per ``add()`` call of `examples` ((prediction, reference) pairs), the module's
    compute() after each repetition untimed."""
    times = []
    for _ in range(repeats):
        gc.collect()
        start = CLOCK()
        for prediction, reference in examples:
            module.add(prediction=prediction, reference=reference)
        times.append((CLOCK() - start) / len(examples) * 1e6)
        module.compute()
    return statistics.median(times)


def bench_add(pred_d: list, gold_d: list, count: int, repeats: int, cache_dir: str) -> None:
    """Prints the per-call cost of add(): one dialogue to gca_metric, one int pair to a plain metric."""
    import evaluate

    from dst_metrics import module_path

    dialogues = list(zip(pred_d[:count], gold_d[:count]))
    ints = [(i % 2, 1) for i in range(count)]
    module = evaluate.load(module_path("gca"), cache_dir=cache_dir)
    plain = plain_metric(cache_dir)
    ours, theirs = [], []
    for _ in range(repeats):  # interleaved
        ours.append(time_adds(module, dialogues, 1))
        theirs.append(time_adds(plain, ints, 1))
    turns = sum(len(gold) for _, gold in dialogues) / len(dialogues)
    ours_median, theirs_median = statistics.median(ours), statistics.median(theirs)
    print(f"\nadd(), {count} calls, {repeats} repetitions (medians):")
    print(f"  gca_metric.add(one dialogue, {turns:.1f} turns on average)   {ours_median:8.1f} µs per call")
    print(f"  plain metric add(one int pair)                      {theirs_median:8.1f} µs per call")
    print(f"  ratio                                               x{ours_median / theirs_median:5.2f}")


CLOCK = time.perf_counter
"""The clock of every timing: the wall clock, or with ``--cpu`` the process's CPU time."""
_POOLS: list = []
MODULES = ("gca", "jga_fga", "all")


def peak_memory(fn) -> tuple[float, float]:
    """(Python heap peak, Arrow pool peak) in MiB of one run of `fn`."""
    import pyarrow as pa

    gc.collect()
    previous = pa.default_memory_pool()
    pool = pa.proxy_memory_pool(previous)  # a pool of its own, so its peak is this run's
    _POOLS.append(pool)  # kept to the end: buffers of the run (cached tables) may outlive it, and freeing
    # them through a proxy pool already collected crashed the interpreter at exit
    pa.set_memory_pool(pool)
    tracemalloc.start()
    try:
        fn()
        _, python_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        pa.set_memory_pool(previous)
    return python_peak / 2**20, pool.max_memory() / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--batches", type=int, default=100)
    parser.add_argument("--shapes", default="records,dialogues")
    parser.add_argument("--add", type=int, default=0, help="also time add() of this many dialogues")
    parser.add_argument("--modules", default=",".join(MODULES), help="of gca, jga_fga, all (default: all three)")
    parser.add_argument("--no-combine", action="store_true", help="leave evaluate.combine out")
    parser.add_argument("--cpu", action="store_true", help="time CPU (time.process_time), not the wall clock")
    parser.add_argument("--no-memory", action="store_true", help="leave the peak-memory runs out")
    parser.add_argument("--source", type=Path, default=SOURCE, help="a file in the reference layout to repeat")
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
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
    import evaluate  # noqa: F401  (imported once, outside the timings)

    import dst_metrics.hf_evaluate.metric  # noqa: F401

    pred_d, gold_d, pred_r, gold_r = build_data(args.turns, args.source)
    turns = len(pred_r)
    print(
        f"{turns} turns in {len(pred_d)} dialogues, {args.batches} batches, {args.repeats} repetitions; "
        f"medians in µs per turn ({'CPU' if args.cpu else 'wall clock'})"
    )
    inputs = {"records": (pred_r, gold_r), "dialogues": (pred_d, gold_d)}
    with tempfile.TemporaryDirectory() as cache_dir:
        if args.add:
            bench_add(pred_d, gold_d, args.add, args.repeats, cache_dir)
        for shape in [shape for shape in args.shapes.split(",") if shape]:
            preds, golds = inputs[shape]
            runs = {"core": partial(run_core, shape, preds, golds)}
            for name in args.modules.split(","):
                runs[name] = partial(run_module, name, shape, preds, golds, args.batches, cache_dir)
            if not args.no_combine:
                runs["combine"] = partial(run_combined, shape, preds, golds, args.batches, cache_dir)
            expected = runs["core"]()
            for name in [label for label in runs if label != "core"]:  # the modules give the core's figures
                found = {k: v for k, v in runs[name]().items() if not k.endswith("signature")}
                assert all(value == expected[key] for key, value in found.items()), name
            times: dict[str, list[float]] = {label: [] for label in runs}
            for _ in range(args.repeats):  # interleaved, so that load on the machine hits all alike
                for label, fn in runs.items():
                    gc.collect()
                    start = CLOCK()
                    fn()
                    times[label].append((CLOCK() - start) / turns * 1e6)
            print(f"\n{shape}:")
            core_median = statistics.median(times["core"])
            for label, fn in runs.items():
                median = statistics.median(times[label])
                python_mib, arrow_mib = (0.0, 0.0) if args.no_memory else peak_memory(fn)
                path = "core alone" if label == "core" else f"evaluate {label} (load + add_batch + compute)"
                if label == "combine":
                    path = "evaluate.combine of both (load + add_batch + compute)"
                print(
                    f"  {path:48s} median {median:6.2f} µs/turn (min {min(times[label]):6.2f})  "
                    f"x{median / core_median:4.2f}  peak {python_mib:5.1f} MiB Python + {arrow_mib:5.1f} MiB Arrow"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
