"""evaluate's distributed mode with 3 real processes: each adds a third of the turn records (over
several batches, shuffled), process 0 gathers the Arrow rows of all three and computes. The
figures must equal the single-process ones and the core's exactly.

Run as a script, this file is one such process (see `worker`).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
NUM_PROCESS = 3
MODULES = ("gca", "jga_fga", "all")
SLOTS = ("hotel-area", "hotel-stars", "hotel-name", "taxi-leave at", "taxi-destination", "train-day")
VALUES = ("north", "south", "4", "5", "none", "17:00", "museum", "guest-house", "monday")


def synthetic_records(dialogues: int = 60, seed: int = 11) -> tuple[list[dict], list[dict]]:
    """Turn records of random dialogues whose gold state grows and changes, with a noisy prediction
    (gold values given as lists of acceptable values now and then)."""
    rng = random.Random(seed)
    preds, golds = [], []
    for d in range(dialogues):
        gold: dict = {}
        pred: dict = {}
        for turn in range(rng.randint(1, 9)):
            for _ in range(rng.randint(0, 2)):
                gold[rng.choice(SLOTS)] = rng.choice(VALUES)
            if gold and rng.random() < 0.1:
                gold.pop(rng.choice(sorted(gold)))
            pred = {slot: (value if rng.random() < 0.8 else rng.choice(VALUES)) for slot, value in gold.items()}
            if rng.random() < 0.2:
                pred[rng.choice(SLOTS)] = rng.choice(VALUES)
            shown = {s: ([v, v.upper()] if v != "none" and rng.random() < 0.1 else v) for s, v in gold.items()}
            golds.append({"dialogue_id": f"D{d:03d}", "turn_id": turn, "state": shown})
            preds.append({"dialogue_id": f"D{d:03d}", "turn_id": turn, "state": dict(pred)})
    return preds, golds


def scored(preds: list[dict]) -> list[dict]:
    """The predicted records with a confidence on every third turn's first slot (0.9 or 0.4: a 0.4
    value predicts no value, the None hypothesis holding 0.6)."""
    out = []
    for index, record in enumerate(preds):
        state = dict(record["state"])
        if state and index % 3 == 0:
            slot = sorted(state)[0]
            state[slot] = {"value": state[slot], "confidence": 0.9 if index % 2 else 0.4}
        out.append({**record, "state": state})
    return out


def worker(process_id: int, experiment_id: str, cache_dir: str, out: str) -> None:
    """One of the processes: add its third of the records in 4 batches, then compute."""
    import evaluate

    from dst_metrics import module_path

    preds, golds = synthetic_records()
    mine = list(range(process_id, len(preds), NUM_PROCESS))
    random.Random(process_id).shuffle(mine)
    results = {}
    for name in MODULES:
        module = evaluate.load(
            module_path(name),
            num_process=NUM_PROCESS,
            process_id=process_id,
            experiment_id=experiment_id,
            cache_dir=cache_dir,
            timeout=60,
        )
        module.add_batch(predictions=[], references=[])  # an empty batch is fine
        for batch in range(4):
            chunk = mine[batch::4]
            module.add_batch(predictions=[preds[i] for i in chunk], references=[golds[i] for i in chunk])
        results[name] = module.compute(mode="official")
    # predictions with confidences: each process's reach process 0 in the stored examples
    module = evaluate.load(
        module_path("jga_fga"),
        num_process=NUM_PROCESS,
        process_id=process_id,
        experiment_id=experiment_id + "-scored",
        cache_dir=cache_dir,
        timeout=60,
    )
    scored_preds = scored(preds)
    module.add_batch(predictions=[scored_preds[i] for i in mine], references=[golds[i] for i in mine])
    results["scored"] = module.compute()
    Path(out).write_text(json.dumps(results))


@pytest.mark.slow
def test_three_processes_give_the_single_process_figures(tmp_path):
    import evaluate

    from dst_metrics import Corpus, Options, figure_keys, module_path, score
    from dst_metrics.hf_evaluate.docs import MODULE_FAMILIES

    experiment_id = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    outs = [tmp_path / f"out{i}.json" for i in range(NUM_PROCESS)]
    processes = [
        subprocess.Popen(
            [sys.executable, __file__, str(i), experiment_id, str(tmp_path / "cache"), str(outs[i])],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for i in range(NUM_PROCESS)
    ]
    logs = [p.communicate(timeout=300)[0].decode(errors="replace") for p in processes]
    for i, process in enumerate(processes):
        assert process.returncode == 0, f"process {i} failed:\n{logs[i]}"
    gathered = [json.loads(out.read_text()) for out in outs]
    assert all(result[name] is None for result in gathered[1:] for name in MODULES)

    preds, golds = synthetic_records()
    corpus = Corpus.from_turn_records(preds, golds)
    report = score(corpus)
    for name in MODULES:
        single = evaluate.load(module_path(name), cache_dir=str(tmp_path / "single"))
        expected = single.compute(predictions=preds, references=golds)
        assert gathered[0][name] == expected
        assert list(expected) == figure_keys(Options(), MODULE_FAMILIES[single.name]) + ["signature"]
        for key, value in expected.items():
            assert value == (report.signature if key == "signature" else report.scores[key]), key
    assert report.scores.turns == len(preds)
    # the calibration figures, from every process's confidences, are the single process's and the library's
    from dst_metrics.calibration.metrics import calibration

    scored_corpus = Corpus.from_turn_records(scored(preds), golds)
    figures = calibration(scored_corpus, scored_corpus.scores).figures
    single = evaluate.load(module_path("jga_fga"), cache_dir=str(tmp_path / "single"))
    assert gathered[0]["scored"] == single.compute(predictions=scored(preds), references=golds)
    assert {key: gathered[0]["scored"][key] for key in figures} == figures
    assert len(figures) == 18  # docs/calibration.md: the 16 figures and SLT 2024's two


if __name__ == "__main__":
    # evaluate's evaluator imports transformers (and torch) when it can, ~6 s of a 2-core machine
    # per process; the workers never use it, and evaluate takes an ImportError as "not installed".
    sys.modules["transformers"] = None
    import evaluate  # noqa: F401

    del sys.modules["transformers"]
    worker(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4])
