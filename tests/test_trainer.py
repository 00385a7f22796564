"""Seq2SeqTrainer.evaluate with predict_with_generate on a tiny T5 (built from a config, byte-level
tokenizer, nothing downloaded) over a few dialogues, with `dst_metrics.trainer.make_compute_metrics`:
decode, parse, map eval rows back to their turns, score. The model and data are those of
examples/trainer_compute_metrics.py, which this test runs once as a script (one training, one evaluation).

The figures must equal the core's own on the same decoded and parsed predictions, and the generation
loop's function (`score_generations`) must give them from the rows in any order.
"""

from __future__ import annotations

import ast
import contextlib
import io
import runpy

import numpy as np
import pytest

import dst_metrics.trainer as trainer_module
from dst_metrics import Corpus, InputError, score
from dst_metrics.generation.parsing import parse_generation
from dst_metrics.trainer import make_compute_metrics, score_generations

from .conftest import REPO

INSTALL = 'pip install "torch==2.13.0" -e ".[trainer]"'
torch = pytest.importorskip("torch", reason=f"the Trainer test needs torch: {INSTALL}")
transformers = pytest.importorskip("transformers", reason=f"the Trainer test needs transformers: {INSTALL}")
datasets = pytest.importorskip("datasets", reason=f"the Trainer test needs datasets: {INSTALL}")
evaluate = pytest.importorskip("evaluate", reason=f"the Trainer test needs evaluate: {INSTALL}")

EXAMPLE = REPO / "examples" / "trainer_compute_metrics.py"
GCA_FIGURES = ("gca", "correct", "wrong", "missed", "overshot")
GCA_FIGURES += ("value_precision", "value_recall", "label_precision", "label_recall")  # gca_metric's figures
TURN_FIGURES = ("jga", "fga", "sa", "aga", "rsa", "slot_f1")  # and jga_fga_metrics', all from dst_metrics_all
pytestmark = pytest.mark.slow


def parsed_value(text: str):
    """A figure as the example prints it (`str` of the value: exact for floats), or the text (the signature)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


@pytest.fixture(scope="module")
def script_run(tmp_path_factory) -> dict:
    """`python examples/trainer_compute_metrics.py` run once as a script (its one training and evaluation, for
    both tests below): what it printed, the Trainer's figures read back from it, and what the Trainer handed
    `compute_metrics` (decoded), recorded by wrapping `make_compute_metrics`."""
    seen: dict = {}
    make = trainer_module.make_compute_metrics

    def recording_make(tokenizer, eval_dataset):
        recipe = make(tokenizer, eval_dataset)
        seen["eval_dataset"] = eval_dataset

        def recording(eval_pred):  # what the Trainer hands compute_metrics, decoded for the checks below
            for name, ids in (("texts", eval_pred.predictions), ("labels", eval_pred.label_ids)):
                ids = np.where(ids != -100, ids, tokenizer.pad_token_id)
                seen[name] = tokenizer.batch_decode(ids, skip_special_tokens=True)
            return recipe(eval_pred)

        return recording

    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(trainer_module, "make_compute_metrics", recording_make)
        patch.chdir(tmp_path_factory.mktemp("trainer"))
        runpy.run_path(str(EXAMPLE), run_name="__main__")
    seen["lines"] = dict(line.split(maxsplit=1) for line in printed.getvalue().splitlines())
    seen["result"] = {name: parsed_value(text) for name, text in seen["lines"].items()}
    return seen


def test_seq2seq_trainer_evaluate_with_every_figure(script_run):
    seen, result, eval_dataset = script_run, script_run["result"], script_run["eval_dataset"]
    assert seen["labels"] == list(eval_dataset["target"])  # rows map back in order
    assert len(seen["texts"]) == len(eval_dataset)
    assert any(seen["texts"])  # the briefly trained model writes something
    parsed = [parse_generation(text) for text in seen["texts"]]
    keys = list(zip(eval_dataset["dialogue_id"], eval_dataset["turn_id"]))
    predictions = [{"dialogue_id": d, "turn_id": t, "state": p.state} for (d, t), p in zip(keys, parsed)]
    references = [{"dialogue_id": d, "turn_id": t, "state": s} for (d, t), s in zip(keys, eval_dataset["target"])]
    report = score(Corpus.from_turn_records(predictions, references))
    for name in (*GCA_FIGURES, *TURN_FIGURES):
        assert result[f"eval_{name}"] == getattr(report.scores, name), name
    for fga_lambda, fga in report.scores.fga_grid.items():
        assert result[f"eval_fga@{fga_lambda}"] == fga, fga_lambda
    assert result["eval_signature"] == report.signature
    assert result["eval_unparsed"] == sum(not p.parsed for p in parsed) / len(parsed)
    assert report.tally.turns == len(eval_dataset)
    assert 0 < report.scores.gca < 1  # partly right: the figures are not a trivial 0 or 1
    order = [5, 2, 7, 0, 3, 1, 6, 4]  # a generation loop's rows, in another order
    loop = score_generations(
        [seen["texts"][i] for i in order],
        [keys[i][0] for i in order],
        [keys[i][1] for i in order],
        [eval_dataset["target"][i] for i in order],
    )
    assert {f"eval_{key}": value for key, value in loop.items()} == {
        key: value for key, value in result.items() if key.removeprefix("eval_") in loop
    }


def test_compute_metrics_names_a_dataset_of_other_rows_and_logits():
    compute_metrics = make_compute_metrics(Tokenizer(), {"dialogue_id": ["a"], "turn_id": [0], "target": [""]})
    with pytest.raises(InputError, match="evaluated 2 rows but the eval dataset has 1"):
        compute_metrics(Prediction(np.zeros((2, 3), dtype=int)))
    with pytest.raises(InputError, match="set predict_with_generate=True"):
        compute_metrics(Prediction(np.zeros((1, 3, 5))))
    with pytest.raises(InputError, match="no column 'target'"):
        make_compute_metrics(Tokenizer(), {"dialogue_id": ["a"], "turn_id": [0]})


class Tokenizer:
    pad_token_id = 0

    def batch_decode(self, rows, skip_special_tokens=True):
        return ["" for _ in rows]


class Prediction:
    def __init__(self, predictions):
        self.predictions = predictions


def test_example_runs_as_a_script(script_run):
    """`python examples/trainer_compute_metrics.py` prints every figure, one per line."""
    lines = script_run["lines"]
    for name in ("eval_gca", "eval_jga", "eval_fga", "eval_sa", "eval_aga", "eval_rsa", "eval_slot_f1"):
        assert 0 <= float(lines[name]) <= 1, name
    assert lines["eval_signature"].startswith("dst-metrics:")
