"""A model card's ``model-index``: a report's figures as Hugging Face Hub evaluation results.

`model_index` turns a `Report` into huggingface_hub's `ModelCardData`, one `EvalResult` per figure: the
registry's headline figures (the table ``dst-metrics score`` prints) and, with ``compat``, the profile's own
figures. Each result's value is the figure as a fraction, as ``dst-metrics score --json`` gives it, and its
``metric_config`` holds the report's signature. `update_card` merges the results into a card's text.
huggingface_hub (the ``model-card`` extra) is imported here only, so importing dst_metrics never loads it.
"""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from .errors import InputError
from .figures.registry import FIGURES, figure_labels
from .scoring.scores import Report

if TYPE_CHECKING:
    from huggingface_hub import EvalResult, ModelCardData

TASK_TYPE = "dialogue-state-tracking"
"""The ``task.type`` of every result."""
TASK_NAME = "Dialogue State Tracking"
SIGNATURE_PREFIX = "dst-metrics:"
"""How a signature starts: a result whose ``metric_config`` starts so is one of ours (`update_card` replaces it)."""


def result_keys(report: Report) -> list[str]:
    """The figures a model-index reports, in the registry's order: its headline figures (group ``main``, as
    ``dst-metrics score`` prints them), then the other numbers a compatibility profile gave."""
    headline = [figure for figure in FIGURES if figure.group == "main" and not figure.is_count]
    main = [key for figure in headline for key in figure.keys(report.options)]
    scores = report.scores
    profile = [
        key
        for key, value in scores.items()
        if key not in main and scores.replaced(key) and isinstance(value, (int, float)) and not isinstance(value, bool)
    ]
    return [*main, *profile]


def metric_type(report: Report, key: str) -> str:
    """A result's ``metric.type``: the figure's key (``gca``), or for a figure a profile computed its evaluator's
    way, the profile's name and the key (``trade_jga``), so that it never replaces our own figure of that name."""
    return f"{report.options.compat}_{key}" if report.scores.replaced(key) else key


def eval_results(
    report: Report, *, dataset_name: str, dataset_type: str, split: str, dataset_config: str | None = None
) -> list[EvalResult]:
    """One `EvalResult` per figure of `result_keys` (an undefined figure left out): its value as a fraction,
    its label as ``metric.name`` and the report's signature as ``metric.config``."""
    from huggingface_hub import EvalResult

    labels = figure_labels(report.options)
    results = []
    for key in result_keys(report):
        value = report.scores[key]
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        name = labels.get(key, key)
        if report.scores.replaced(key):
            name = f"{name} ({report.options.compat} profile)"
        results.append(
            EvalResult(
                task_type=TASK_TYPE,
                task_name=TASK_NAME,
                dataset_type=dataset_type,
                dataset_name=dataset_name,
                dataset_config=dataset_config,
                dataset_split=split,
                metric_type=metric_type(report, key),
                metric_name=name,
                metric_value=value,
                metric_config=report.signature,
            )
        )
    return results


def model_index(
    report: Report,
    *,
    model_name: str,
    dataset_name: str,
    dataset_type: str,
    split: str,
    dataset_config: str | None = None,
) -> ModelCardData:
    """The card metadata of `report`: ``model-index`` naming `model_name`, one result per figure on the dataset's
    `split` (`eval_results`). ``model_index(...).to_yaml()`` is the YAML of a README's metadata block."""
    from huggingface_hub import ModelCardData

    results = eval_results(
        report, dataset_name=dataset_name, dataset_type=dataset_type, split=split, dataset_config=dataset_config
    )
    return ModelCardData(model_name=model_name, eval_results=results)


def is_ours(result: EvalResult) -> bool:
    """Whether dst-metrics wrote `result`: its ``metric.config`` is a signature."""
    return isinstance(result.metric_config, str) and result.metric_config.startswith(SIGNATURE_PREFIX)


def _place(result: EvalResult) -> tuple:
    return result.dataset_type, result.dataset_config, result.dataset_split, result.metric_type


def update_card(text: str, card_data: ModelCardData, source: str = "README.md") -> str:
    """`text`, a model card (a README.md), with the results of `card_data` merged into its metadata: an earlier
    dst-metrics result for the same dataset, config, split and metric is replaced, every other result, the other
    metadata and the card's text are kept; a card without metadata gets a block. `source` names the card in the
    InputError of metadata that cannot be read."""
    import yaml  # huggingface_hub's dependency: the YAML it reads cards with
    from huggingface_hub import ModelCard

    quiet = logging.getLogger("huggingface_hub.repocard")  # "metadata block was not found": it gets one here
    level, quiet.level = quiet.level, logging.ERROR
    try:
        card = ModelCard(text)
    except yaml.YAMLError as error:  # the metadata block is not YAML
        problem, mark = getattr(error, "problem", None) or "not YAML", getattr(error, "problem_mark", None)
        where = f" (the metadata's line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise InputError(f"the card's metadata cannot be read: {problem}{where}", source=source) from None
    except ValueError as error:  # not a mapping, or a model-index huggingface_hub cannot read
        raise InputError(f"the card's metadata cannot be read: {' '.join(str(error).split())}", source=source) from None
    finally:
        quiet.level = level
    new = card_data.eval_results or []
    places = {_place(result) for result in new}
    kept = [result for result in card.data.eval_results or [] if not (is_ours(result) and _place(result) in places)]
    card.data.eval_results = [*kept, *new]
    card.data.model_name = card_data.model_name
    return card.content


def model_index_yaml(cards: list[ModelCardData]) -> str:
    """The metadata of each card as YAML (`ModelCardData.to_yaml`), one YAML document per card (separated by
    ``---``, as a README's metadata block is fenced)."""
    return "\n---\n".join(card.to_yaml() for card in cards) + "\n"
