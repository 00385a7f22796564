"""Seq2SeqTrainer.evaluate with predict_with_generate on a tiny randomly initialized T5 (built from
a config, byte-level tokenizer, nothing downloaded) over a few dialogues, with the README's
compute_metrics recipe: decode, parse, map eval rows back to dialogue ids, call both modules.

The figures must equal the core's own on the same decoded predictions.
"""

from __future__ import annotations

import numpy as np
import pytest

from dst_metrics import Corpus, InputError, LinearizedFormat, score
from dst_metrics.evaluate_support import GCA_FIGURES, TURN_FIGURES
from dst_metrics.examples import EXAMPLES
from dst_metrics.states import linearize_state

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
datasets = pytest.importorskip("datasets")
evaluate = pytest.importorskip("evaluate")


def eval_rows() -> dict[str, list]:
    """One row per turn: dialogue id, turn id, the model input and the linearized gold state."""
    rows: dict[str, list] = {"dialogue_id": [], "turn_id": [], "text": [], "target": []}
    for example in EXAMPLES.values():
        for turn_id, state in enumerate(example.gold):
            rows["dialogue_id"].append(example.dialogue_id)
            rows["turn_id"].append(turn_id)
            rows["text"].append(f"{example.title} | turn {turn_id}")
            rows["target"].append(linearize_state(state))
    return rows


def nudge(model, tokenizer, texts: list[str], target: str, steps: int = 80) -> None:
    """A few steps of plain training towards one linearized state, so that the random model's
    generations parse now and then (untrained, it generates empty strings)."""
    inputs = tokenizer(texts, return_tensors="pt", padding=True)
    labels = tokenizer(text_target=[target] * len(texts), return_tensors="pt").input_ids
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-2)
    for _ in range(steps):
        model(**inputs, labels=labels).loss.backward()
        optimizer.step()
        optimizer.zero_grad()


@pytest.mark.slow
def test_seq2seq_trainer_evaluate_with_both_modules(tmp_path):
    from transformers import (
        ByT5Tokenizer,
        DataCollatorForSeq2Seq,
        Seq2SeqTrainer,
        Seq2SeqTrainingArguments,
        T5Config,
        T5ForConditionalGeneration,
    )

    from dst_metrics import module_path

    torch.manual_seed(0)
    tokenizer = ByT5Tokenizer()
    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=32,
        d_ff=64,
        d_kv=8,
        num_layers=1,
        num_decoder_layers=1,
        num_heads=2,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id,
    )
    model = T5ForConditionalGeneration(config)
    eval_dataset = datasets.Dataset.from_dict(eval_rows())
    nudge(model, tokenizer, list(eval_dataset["text"]), "hotel-internet=yes")
    features = eval_dataset.map(
        lambda row: {
            "input_ids": tokenizer(row["text"])["input_ids"],
            "labels": tokenizer(text_target=row["target"])["input_ids"],
        },
        remove_columns=["text"],
    )

    # --- the README recipe -------------------------------------------------------------------
    metrics = evaluate.combine(
        [
            evaluate.load(module_path("gca"), cache_dir=str(tmp_path / "cache")),
            evaluate.load(module_path("jga_fga"), cache_dir=str(tmp_path / "cache")),
        ]
    )
    linearized = LinearizedFormat()  # "slot=value; slot=value"

    def parse(text: str) -> dict:
        try:
            return linearized.parse(text)
        except InputError:  # a malformed generation scores as an empty prediction
            return {}

    seen: dict[str, list] = {}

    def compute_metrics(eval_pred) -> dict:
        ids = np.where(eval_pred.predictions != -100, eval_pred.predictions, tokenizer.pad_token_id)
        texts = tokenizer.batch_decode(ids, skip_special_tokens=True)
        labels = np.where(eval_pred.label_ids != -100, eval_pred.label_ids, tokenizer.pad_token_id)
        # eval rows come back in eval_dataset order: row i is (dialogue_id[i], turn_id[i])
        keys = list(zip(eval_dataset["dialogue_id"], eval_dataset["turn_id"]))
        predictions = [{"dialogue_id": d, "turn_id": t, "state": parse(x)} for (d, t), x in zip(keys, texts)]
        references = [{"dialogue_id": d, "turn_id": t, "state": s} for (d, t), s in zip(keys, eval_dataset["target"])]
        seen.update(texts=texts, labels=tokenizer.batch_decode(labels, skip_special_tokens=True))
        return metrics.compute(predictions=predictions, references=references)

    # ------------------------------------------------------------------------------------------
    args = Seq2SeqTrainingArguments(
        output_dir=str(tmp_path / "out"),
        per_device_eval_batch_size=4,
        predict_with_generate=True,
        generation_max_length=24,
        report_to=[],
        use_cpu=True,
        disable_tqdm=True,
    )
    trainer = Seq2SeqTrainer(
        model=model,
        args=args,
        eval_dataset=features,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
        processing_class=tokenizer,
        compute_metrics=compute_metrics,
    )
    result = trainer.evaluate()

    assert seen["labels"] == list(eval_dataset["target"])  # rows map back in order
    assert len(seen["texts"]) == len(eval_dataset)
    assert any(seen["texts"])  # the nudged model writes something
    predictions = [
        {"dialogue_id": d, "turn_id": t, "state": parse(x)}
        for d, t, x in zip(eval_dataset["dialogue_id"], eval_dataset["turn_id"], seen["texts"])
    ]
    references = [
        {"dialogue_id": d, "turn_id": t, "state": s}
        for d, t, s in zip(eval_dataset["dialogue_id"], eval_dataset["turn_id"], eval_dataset["target"])
    ]
    report = score(Corpus.from_turn_records(predictions, references))
    for name in (*GCA_FIGURES, *TURN_FIGURES):
        assert result[f"eval_{name}"] == getattr(report.scores, name), name
    assert result["eval_gca_metric_signature"] == report.signature
    assert result["eval_jga_fga_metrics_signature"] == report.signature
