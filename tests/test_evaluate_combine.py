"""``evaluate.combine`` of gca_metric and jga_fga_metrics, and dst_metrics_all: the same figures.

Under combine each module validates, stores and scores its batches on its own (no work is shared
behind evaluate's back); dst_metrics_all returns the union of the two modules' results in one pass.
"""

from __future__ import annotations

import random

import evaluate
import pytest

from dst_metrics import Corpus, InputError, module_path
from dst_metrics.hf_evaluate import arrow, batches

from .test_evaluate_modules import core_figures, records


def _dialogues(seed: int, n: int) -> tuple[list, list]:
    rng = random.Random(seed)
    slots = ["hotel-area", "hotel-name", "train-day", "taxi-leaveat"]
    values = ["north", "south", "a", "b", "dontcare", "North ", "sou th"]
    preds, golds = [], []
    for _ in range(n):
        gold: dict[str, object] = {}
        pred_d, gold_d = [], []
        for _ in range(rng.randint(1, 5)):
            gold.update({s: rng.choice(values) for s in slots if rng.random() < 0.4})
            if gold and rng.random() < 0.2:  # now and then acceptable values
                slot = rng.choice(sorted(gold))
                gold[slot] = ["b", "B "] if rng.random() < 0.5 else ["a", "north"]
            pred = {
                k: (v if isinstance(v, str) and rng.random() < 0.8 else rng.choice(values))
                for k, v in gold.items()
                if rng.random() < 0.9
            }
            gold_d.append(dict(gold))
            pred_d.append(pred)
        preds.append(pred_d)
        golds.append(gold_d)
    return preds, golds


def _load(tmp_path, name: str) -> evaluate.EvaluationModule:
    return evaluate.load(module_path(name), cache_dir=str(tmp_path / "cache"))


def _combined(tmp_path) -> evaluate.CombinedEvaluations:
    return evaluate.combine([_load(tmp_path, n) for n in ("gca", "jga_fga")])


def _union(gca: dict, turn: dict) -> dict:
    """One result of the two modules' results on the same inputs and options (one signature, one ci)."""
    assert gca["signature"] == turn["signature"]
    union = {**gca, **turn}
    if "ci" in gca:
        union["ci"] = {**gca["ci"], **turn["ci"]}
    return union


@pytest.fixture
def counted(monkeypatch):
    """Counts of batches encoded and of corpora decoded from the stored rows."""
    counts = {"encode": 0, "corpus": 0}
    encode, corpus_from_arrow = batches.TurnEncoder.encode, arrow.corpus_from_arrow

    def counting_encode(self, *args, **kwargs):
        counts["encode"] += 1
        return encode(self, *args, **kwargs)

    def counting_corpus(*args, **kwargs):
        counts["corpus"] += 1
        return corpus_from_arrow(*args, **kwargs)

    monkeypatch.setattr(batches.TurnEncoder, "encode", counting_encode)
    monkeypatch.setattr("dst_metrics.hf_evaluate.metric.corpus_from_arrow", counting_corpus)
    return counts


@pytest.mark.parametrize("shape", ["dialogues", "records"])
def test_combine_and_the_all_module_give_the_cores_figures(tmp_path, counted, shape):
    preds, golds = _dialogues(0, 60)
    expected = core_figures(Corpus.from_dialogues(preds, golds), ("gca", "turn"))
    combined, every = _combined(tmp_path), _load(tmp_path, "all")
    for start in range(0, 60, 20):
        p, g = preds[start : start + 20], golds[start : start + 20]
        if shape == "records":
            ids = [str(i) for i in range(start, start + 20)]
            p, g = records(p, ids), records(g, ids)
        combined.add_batch(predictions=p, references=g)
        every.add_batch(predictions=p, references=g)
    assert counted["encode"] == 9  # 3 batches: each module of combine, and the all module
    result = combined.compute()
    assert counted["corpus"] == 2  # each module of combine builds its own corpus
    assert every.compute() == expected
    assert counted["corpus"] == 3  # the all module: one
    signature = expected.pop("signature")
    assert result == {**expected, "gca_metric_signature": signature, "jga_fga_metrics_signature": signature}


OPTION_SETS = [
    {},
    {"mode": "corrected", "alpha": 0.5, "num_slots": 12},
    {"fga_lambda": [1.0, 0.25], "value_matching": "normalized"},
    {"fga_lambdas": [0.3, 0.9], "value_matching": "fuzzy", "mode": "corrected"},
    {"figures": ["gca", "jga", "fga@0.5", "missed"]},
    {"compat": "trade"},
    {"bootstrap": 50, "seed": 3},
    {"bootstrap": 40, "seed": 1, "ci_method": "bca", "mode": "corrected", "figures": ["gca", "rsa"]},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda options: ",".join(options) or "defaults")
def test_the_all_module_is_the_union_of_the_two(tmp_path, options):
    preds, golds = _dialogues(5, 25)
    results = {
        name: _load(tmp_path, name).compute(predictions=preds, references=golds, **options)
        for name in ("gca", "jga_fga", "all")
    }
    assert results["all"] == _union(results["gca"], results["jga_fga"])
    if "figures" in options:
        assert set(results["all"]) - {"ci", "signature"} == set(options["figures"])


def test_the_all_module_over_batches_in_any_order_equals_the_two(tmp_path):
    preds, golds = _dialogues(6, 30)
    pred_records, gold_records = records(preds), records(golds)
    order = list(range(len(pred_records)))
    random.Random(2).shuffle(order)
    modules = {name: _load(tmp_path, name) for name in ("gca", "jga_fga", "all")}
    for name, module in modules.items():
        size = {"gca": 7, "jga_fga": 11, "all": 5}[name]  # each its own batch size
        for start in range(0, len(order), size):
            chunk = order[start : start + size]
            module.add_batch(
                predictions=[pred_records[i] for i in chunk], references=[gold_records[i] for i in chunk[::-1]]
            )
    results = {name: module.compute(mode="corrected") for name, module in modules.items()}
    assert results["all"] == _union(results["gca"], results["jga_fga"])
    assert results["all"] == core_figures(Corpus.from_dialogues(preds, golds), ("gca", "turn"), mode="corrected")


def test_combine_compute_with_inputs_and_options(tmp_path):
    preds, golds = _dialogues(1, 40)
    result = _combined(tmp_path).compute(predictions=preds, references=golds, mode="corrected", alpha=0.5)
    expected = core_figures(Corpus.from_dialogues(preds, golds), ("gca", "turn"), mode="corrected", alpha=0.5)
    signature = expected.pop("signature")
    assert result == {**expected, "gca_metric_signature": signature, "jga_fga_metrics_signature": signature}


def test_a_module_fed_apart_scores_its_own_rows(tmp_path):
    preds, golds = _dialogues(2, 30)
    gca, turn = _load(tmp_path, "gca"), _load(tmp_path, "jga_fga")
    gca.add_batch(predictions=preds[:10], references=golds[:10])  # only gca sees this batch
    combined = evaluate.combine([gca, turn])
    ids = [f"x{i}" for i in range(20)]
    combined.add_batch(predictions=preds[10:], references=golds[10:], dialogue_ids=ids)
    result = combined.compute()
    all_ids = [*map(str, range(10)), *ids]
    gca_only = core_figures(Corpus.from_dialogues(preds, golds, dialogue_ids=all_ids), "gca")
    turn_only = core_figures(Corpus.from_dialogues(preds[10:], golds[10:], dialogue_ids=ids), "turn")
    assert result["gca"] == gca_only["gca"] and result["jga"] == turn_only["jga"]
    assert result["turns"] == sum(map(len, golds[10:]))


def test_lists_changed_in_place_between_calls(tmp_path):
    preds, golds = _dialogues(3, 20)
    combined, every = _combined(tmp_path), _load(tmp_path, "all")
    batch_p, batch_g = preds[:10], golds[:10]
    for module in (combined, every):
        module.add_batch(predictions=batch_p, references=batch_g)
    batch_p[:] = preds[10:]  # the same list objects, new content
    batch_g[:] = golds[10:]
    for module in (combined, every):
        module.add_batch(predictions=batch_p, references=batch_g)
    expected = core_figures(Corpus.from_dialogues(preds, golds), "turn")
    assert combined.compute()["jga"] == every.compute()["jga"] == expected["jga"]


def test_a_bad_batch_is_the_first_modules_error(tmp_path):
    preds, golds = _dialogues(4, 5)
    combined = _combined(tmp_path)
    with pytest.raises(InputError, match="batch 0"):
        combined.add_batch(predictions=preds, references=golds[:4])
