"""GCA, JGA, FGA, SA, AGA and RSA as the `compute_metrics` of a `Seq2SeqTrainer` (predict_with_generate).

Runs as it is, offline, on the CPU, in seconds:

    pip install "torch==2.13.0" -e ".[trainer]"
    python examples/trainer_compute_metrics.py

What you would bring yourself is made here in code: a tiny T5 built from a `T5Config` with the byte-level
`ByT5Tokenizer()` (nothing is downloaded), and an eval dataset of a few dialogues, one row per turn with its
`dialogue_id`, `turn_id`, the model input `text` and the linearized gold state `target`. A few steps of
training on those rows stand in for your fine-tuned model (an untrained one generates empty strings), so
that some generations are right and others are not (some do not even parse).
`dst_metrics.trainer.make_compute_metrics` is the whole recipe: it decodes the generations, parses
them (JSON, `slot=value` lines, SQL or python calls, detected), maps each eval row back to its dialogue
and turn, and scores every figure in one pass, with `unparsed` (the share of generations that did not parse).
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is fetched from the Hub
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")

import tempfile

import torch
from datasets import Dataset
from transformers import (
    ByT5Tokenizer,
    DataCollatorForSeq2Seq,
    Seq2SeqTrainer,
    Seq2SeqTrainingArguments,
    T5Config,
    T5ForConditionalGeneration,
)

from dst_metrics.trainer import make_compute_metrics

# One row per turn: (dialogue_id, turn_id, model input, linearized gold state after the turn).
TURNS = [
    ("hotel-1", 0, "i need a hotel in the north", "hotel-area=north"),
    ("hotel-1", 1, "four stars please", "hotel-area=north; hotel-stars=4"),
    ("hotel-1", 2, "does it have free wifi?", "hotel-area=north; hotel-internet=yes; hotel-stars=4"),
    ("train-2", 0, "a train to cambridge", "train-destination=cambridge"),
    ("train-2", 1, "on sunday", "train-day=sunday; train-destination=cambridge"),
    ("mixed-3", 0, "somewhere cheap to eat", "restaurant-pricerange=cheap"),
    ("mixed-3", 1, "and a hotel with parking", "hotel-parking=yes; restaurant-pricerange=cheap"),
    ("mixed-3", 2, "that is all, thanks", "hotel-parking=yes; restaurant-pricerange=cheap"),
]


def make_eval_dataset() -> Dataset:
    """The eval rows, in the order the Trainer will evaluate them."""
    columns = ("dialogue_id", "turn_id", "text", "target")
    return Dataset.from_dict({name: [turn[i] for turn in TURNS] for i, name in enumerate(columns)})


def tiny_model_and_tokenizer(seed: int = 0) -> tuple[T5ForConditionalGeneration, ByT5Tokenizer]:
    """A randomly initialized one-layer T5 over bytes: built from a config, nothing downloaded."""
    torch.manual_seed(seed)
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
    return T5ForConditionalGeneration(config), tokenizer


def fit(model, tokenizer, dataset: Dataset, steps: int = 120, lr: float = 2e-2) -> None:
    """A few steps of plain training on the eval rows themselves, standing in for your fine-tuning:
    enough for generations of which some are right and some are not (some do not parse)."""
    inputs = tokenizer(list(dataset["text"]), return_tensors="pt", padding=True)
    labels = tokenizer(text_target=list(dataset["target"]), return_tensors="pt", padding=True).input_ids
    labels[labels == tokenizer.pad_token_id] = -100  # no loss on padding
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model.train()
    for _ in range(steps):
        model(**inputs, labels=labels).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    model.eval()


def tiny_model_and_data():
    """What a user supplies: model, tokenizer, the eval dataset (one row per turn) and its tokenized copy."""
    model, tokenizer = tiny_model_and_tokenizer()
    eval_dataset = make_eval_dataset()
    fit(model, tokenizer, eval_dataset)
    eval_features = eval_dataset.map(  # .map() keeps the row order; the Trainer drops the unused columns
        lambda row: {
            "input_ids": tokenizer(row["text"])["input_ids"],
            "labels": tokenizer(text_target=row["target"])["input_ids"],
        }
    )
    return model, tokenizer, eval_dataset, eval_features


def training_args(output_dir: str) -> Seq2SeqTrainingArguments:
    """Arguments for evaluation with generation on the CPU (the Trainer creates `output_dir`)."""
    return Seq2SeqTrainingArguments(
        output_dir=output_dir,
        per_device_eval_batch_size=4,
        predict_with_generate=True,
        generation_max_length=64,  # bytes: the longest state here has 51
        report_to="none",
        use_cpu=True,
    )


def build_trainer(output_dir: str) -> Seq2SeqTrainer:
    """A Seq2SeqTrainer over the tiny model and eval dataset with the recipe's compute_metrics."""
    model, tokenizer, eval_dataset, eval_features = tiny_model_and_data()
    return Seq2SeqTrainer(
        model=model,
        args=training_args(output_dir),
        eval_dataset=eval_features,
        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
        processing_class=tokenizer,
        compute_metrics=make_compute_metrics(tokenizer, eval_dataset),  # columns dialogue_id, turn_id, target
    )


def main() -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        metrics = build_trainer(os.path.join(scratch, "out")).evaluate()
    for name, value in metrics.items():
        print(f"{name:32} {value}")
    return metrics


if __name__ == "__main__":
    main()
