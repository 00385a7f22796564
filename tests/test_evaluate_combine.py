"""``evaluate.combine`` of both modules: each batch encoded once and the rows scored once, same figures."""

from __future__ import annotations

import random

import evaluate
import pytest

from dst_metrics import Corpus, InputError, module_path
from dst_metrics.hf_evaluate import batches, metric

from .test_evaluate_modules import core_figures, records


def _dialogues(seed: int, n: int) -> tuple[list, list]:
    rng = random.Random(seed)
    slots = ["hotel-area", "hotel-name", "train-day", "taxi-leaveat"]
    values = ["north", "south", "a", "b", "dontcare"]
    preds, golds = [], []
    for _ in range(n):
        gold: dict[str, str] = {}
        pred_d, gold_d = [], []
        for _ in range(rng.randint(1, 5)):
            gold.update({s: rng.choice(values) for s in slots if rng.random() < 0.4})
            pred = {k: (v if rng.random() < 0.8 else rng.choice(values)) for k, v in gold.items() if rng.random() < 0.9}
            gold_d.append(dict(gold))
            pred_d.append(pred)
        preds.append(pred_d)
        golds.append(gold_d)
    return preds, golds


def _combined(tmp_path):
    cache = str(tmp_path / "cache")
    return evaluate.combine([evaluate.load(module_path(n), cache_dir=cache) for n in ("gca", "jga_fga")])


@pytest.fixture
def counted(monkeypatch):
    """Counts of batches encoded and of rows read back into a corpus."""
    counts = {"encode": 0, "corpus": 0}
    encode, corpus_from_arrow = batches.TurnEncoder.encode, metric.corpus_from_arrow

    def counting_encode(self, *args, **kwargs):
        counts["encode"] += 1
        return encode(self, *args, **kwargs)

    def counting_corpus(*args, **kwargs):
        counts["corpus"] += 1
        return corpus_from_arrow(*args, **kwargs)

    monkeypatch.setattr(batches.TurnEncoder, "encode", counting_encode)
    monkeypatch.setattr(metric, "corpus_from_arrow", counting_corpus)
    return counts


@pytest.mark.parametrize("shape", ["dialogues", "records"])
def test_combine_encodes_and_scores_once_with_the_modules_figures(tmp_path, counted, shape):
    preds, golds = _dialogues(0, 60)
    expected = {**core_figures(Corpus.from_dialogues(preds, golds), ("gca", "turn"))}
    combined = _combined(tmp_path)
    for start in range(0, 60, 20):
        p, g = preds[start : start + 20], golds[start : start + 20]
        if shape == "records":
            ids = [str(i) for i in range(start, start + 20)]
            p, g = records(p, ids), records(g, ids)
        combined.add_batch(predictions=p, references=g)
    result = combined.compute()
    assert counted == {"encode": 3, "corpus": 1}  # not 6 and 2
    assert {k: v for k, v in result.items() if not k.endswith("signature")} == {
        k: v for k, v in expected.items() if k != "signature"
    }
    assert result["gca_metric_signature"] == result["jga_fga_metrics_signature"] == expected["signature"]


def test_combine_compute_with_inputs_and_options(tmp_path, counted):
    preds, golds = _dialogues(1, 40)
    result = _combined(tmp_path).compute(predictions=preds, references=golds, mode="corrected", alpha=0.5)
    expected = core_figures(Corpus.from_dialogues(preds, golds), ("gca", "turn"), mode="corrected", alpha=0.5)
    assert counted == {"encode": 1, "corpus": 1}
    assert result["gca"] == expected["gca"] and result["jga"] == expected["jga"] and result["fga"] == expected["fga"]


def test_a_module_fed_apart_is_never_given_another_modules_rows(tmp_path, counted):
    preds, golds = _dialogues(2, 30)
    cache = str(tmp_path / "cache")
    gca = evaluate.load(module_path("gca"), cache_dir=cache)
    turn = evaluate.load(module_path("jga_fga"), cache_dir=cache)
    gca.add_batch(predictions=preds[:10], references=golds[:10])  # only gca sees this batch
    combined = evaluate.combine([gca, turn])
    combined.add_batch(predictions=preds[10:], references=golds[10:], dialogue_ids=[f"x{i}" for i in range(20)])
    result = combined.compute()
    assert counted["encode"] == 3 and counted["corpus"] == 2  # the states differ: each module its own
    all_ids = [*map(str, range(10)), *(f"x{i}" for i in range(20))]
    gca_only = core_figures(Corpus.from_dialogues(preds, golds, dialogue_ids=all_ids), "gca")
    turn_only = core_figures(
        Corpus.from_dialogues(preds[10:], golds[10:], dialogue_ids=[f"x{i}" for i in range(20)]), "turn"
    )
    assert result["gca"] == gca_only["gca"] and result["jga"] == turn_only["jga"]


def test_lists_changed_in_place_between_calls_are_encoded_again(tmp_path, counted):
    preds, golds = _dialogues(3, 20)
    combined = _combined(tmp_path)
    batch_p, batch_g = preds[:10], golds[:10]
    combined.add_batch(predictions=batch_p, references=batch_g)
    batch_p[:] = preds[10:]  # the same list objects, new content
    batch_g[:] = golds[10:]
    combined.add_batch(predictions=batch_p, references=batch_g)
    result = combined.compute()
    assert counted["encode"] == 2
    assert result["jga"] == core_figures(Corpus.from_dialogues(preds, golds), "turn")["jga"]


def test_a_bad_batch_is_the_first_modules_error(tmp_path):
    preds, golds = _dialogues(4, 5)
    combined = _combined(tmp_path)
    with pytest.raises(InputError, match="batch 0"):
        combined.add_batch(predictions=preds, references=golds[:4])
