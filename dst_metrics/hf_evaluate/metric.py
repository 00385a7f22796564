"""The ``evaluate.Metric`` base class of the dst-metrics modules, on evaluate's public API only.
``add_batch()`` checks each batch with the core and keeps it as examples of `FEATURES` (one per dialogue),
handed to evaluate's own ``add_batch`` every `FLUSH_TURNS` turns. evaluate writes and gathers them across
processes as for any metric and gives them back as Arrow; ``_compute`` reads them into one Corpus and
returns the figures of the module's families.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Mapping

import datasets
import evaluate
import pyarrow as pa
from packaging.specifiers import SpecifierSet

from .._gc import gc_paused
from ..calibration.metrics import calibration
from ..figures.registry import figure_keys
from ..options import OptionError, Options
from ..reading import READING_SETTINGS, Reading, split_reading
from ..scoring.scores import score
from ..stats import bootstrap_intervals
from ..stats.bootstrap import check_settings
from .arrow import (
    EXAMPLE_TYPES,
    Examples,
    StateEntries,
    corpus_from_arrow,
    dialogue_examples,
    encoded_examples,
    hypotheses_of_examples,
    turns_of_examples,
)
from .batches import INPUT_OPTIONS, TurnEncoder
from .docs import MODULE_FAMILIES


class DialogueFeatures(datasets.Features):
    """`datasets.Features` of examples `DSTMetric.add_batch` has already normalised: ``encode_batch`` checks the
    columns and returns the examples as given, or the Arrow array of `arrow.Examples`. Every leaf of `FEATURES`
    is a ``Value``, which encodes a str, int or float as itself, so datasets' own ``encode_batch`` would return
    equal examples (tests check both)."""

    def encode_batch(self, batch: dict) -> dict:
        if set(batch) != set(self):
            raise ValueError(f"Column mismatch between batch {set(batch)} and features {set(self)}")
        # examples that carry their Arrow array: the array, which datasets' writer takes as it is
        return {key: column.arrow if isinstance(column, Examples) else list(column) for key, column in batch.items()}


FEATURES = DialogueFeatures.from_arrow_schema(pa.schema(EXAMPLE_TYPES.items()))
"""What evaluate stores per example: `arrow.EXAMPLE_TYPES` as datasets' features."""
FLUSH_TURNS = 8192
"""Turns kept in memory before they are handed to evaluate's ``add_batch``."""
CALIBRATION_FAMILY = "turn"
"""The modules of this family add the calibration figures when predicted values carry confidences."""
EVALUATE_TESTED = ">=0.4.6,<0.5"


def check_evaluate_version(version: str = evaluate.__version__) -> None:
    """Raise ImportError unless `version` is in the tested range (0.5.0rc1 is outside it)."""
    if not SpecifierSet(EVALUATE_TESTED).contains(version, prereleases=True):
        raise ImportError(
            f"dst-metrics' evaluate modules were tested with evaluate{EVALUATE_TESTED}; this is evaluate "
            f'{version}. Install a tested version: pip install "evaluate{EVALUATE_TESTED}"'
        )


BOOTSTRAP_OPTIONS = ("bootstrap", "seed", "ci_method")
"""``compute()`` arguments of the intervals: resamples (None or 0: none), seed, percentile or bca."""


def bootstrap_settings(kwargs: Mapping[str, object]) -> dict[str, object] | None:
    """The `bootstrap_intervals` settings of ``compute()`` arguments (None without ``bootstrap``)."""
    if not kwargs.get("bootstrap"):
        return None
    seed = kwargs.get("seed", 0)
    settings = {"resamples": kwargs["bootstrap"], "seed": seed, "method": kwargs.get("ci_method") or "percentile"}
    check_settings(settings["resamples"], 0.95, settings["method"], seed)
    return settings


def with_intervals(figures: dict, corpus, options: Options, kwargs: Mapping[str, object]) -> dict:
    """`figures` and the signature; with ``bootstrap=N`` also ``ci``: {figure: [low, high]}."""
    settings = bootstrap_settings(kwargs)
    if settings is None:
        return {**figures, "signature": options.signature()}
    if options.compat is not None:
        raise OptionError("bootstrap gives intervals of dst-metrics' own figures; it cannot be combined with compat")
    intervals = bootstrap_intervals(corpus, options, **settings)
    ci = {key: bounds for key, bounds in intervals.as_dict().items() if key in figures}
    return {**figures, "ci": ci, "signature": options.signature() + intervals.signature_suffix}


COMPUTE_SETTINGS = tuple(setting.name for setting in READING_SETTINGS if setting.evaluate)
"""The reading settings ``compute()`` takes as keyword arguments."""


def split_options(kwargs: Mapping[str, object]) -> tuple[Options, tuple[str, ...] | None, dict[str, object]]:
    """``compute()`` keyword arguments -> (Options, the figures asked for or None, the reading settings
    ``compute()`` takes (`reading.READING_SETTINGS`)). An unknown argument is a TypeError, a bad value an
    OptionError, an unknown figure a ValueError."""
    reading, values = split_reading(kwargs, evaluate=True)
    Reading(**reading)  # checked
    values = {name: value for name, value in values.items() if name not in BOOTSTRAP_OPTIONS}
    bootstrap_settings(kwargs)
    figures = values.pop("figures", None)
    unknown = sorted(set(values) - set(Options.__dataclass_fields__) | ({"reading"} & set(values)))
    if unknown:
        known = {*Options.__dataclass_fields__, "figures", *INPUT_OPTIONS, *BOOTSTRAP_OPTIONS, *COMPUTE_SETTINGS}
        accepted = sorted(known - {"reading"})
        raise TypeError(f"unknown compute() arguments {unknown}; accepted: {accepted}")
    options = Options.from_kwargs(values)
    if figures is None:
        return options, None, reading
    names = (figures,) if isinstance(figures, str) else tuple(figures)
    known = figure_keys(options)
    wrong = [name for name in names if name not in known and name != "signature"]
    if wrong:
        raise ValueError(f"unknown figures {wrong}; known: {known}")
    return options, names, reading


@dataclasses.dataclass
class DSTMetricInfo(evaluate.MetricInfo):
    """The MetricInfo of the modules: the stored examples come back as Arrow (``format="arrow"``), nested ones
    included. MetricInfo refuses a format unless every feature is a flat ``Value``; this subclass keeps that
    check for every format but Arrow."""

    def __post_init__(self) -> None:
        if self.format != "arrow":
            super().__post_init__()


def metric_info(*, description: str, citation: str, inputs_description: str) -> evaluate.MetricInfo:
    """The MetricInfo of a dst-metrics module: `FEATURES`, read back as Arrow (`DSTMetricInfo`)."""
    return DSTMetricInfo(
        description=description, citation=citation, inputs_description=inputs_description, features=FEATURES,
        format="arrow", codebase_urls=["https://github.com/cuthalionn/Granular_Change_Accuracy"],
        reference_urls=["https://arxiv.org/abs/2403.11123"],
    )  # fmt: skip


class DSTMetric(evaluate.Metric, metaclass=abc.ABCMeta):
    """Base of the dst-metrics modules. A subclass sets `module` (its folder name, which picks its families of
    figures) and implements ``_info`` with `metric_info`. ``linearized``: the `LinearizedFormat` of strings."""

    module: str = ""

    def __init__(self, *args, linearized=None, **kwargs) -> None:
        check_evaluate_version()
        super().__init__(*args, **kwargs)
        prefix = f"{self.process_id}/" if self.num_process > 1 else ""
        self._encoder = TurnEncoder(linearized=linearized, id_prefix=prefix)
        self._entries = StateEntries()
        self._pending: tuple[list[dict], list[dict]] = ([], [])
        self._pending_turns = 0
        self._opened = False  # evaluate's add_batch called since the last compute()

    @property
    def families(self) -> tuple[str, ...]:
        return MODULE_FAMILIES[self.module]

    @abc.abstractmethod
    def _info(self) -> evaluate.MetricInfo:
        """The module's MetricInfo (see `metric_info`)."""

    def add_batch(self, *, predictions=None, references=None, **kwargs) -> None:
        """Add a batch (lists of dialogues, turn records or linearized strings), checked now with the core;
        ``dialogue_ids`` and ``linearized`` as `batches.TurnEncoder.encode` takes them."""
        with gc_paused():  # millions of small dicts and lists, no cycle (dst_metrics._gc)
            corpus = self._encoder.encode(predictions, references, **kwargs)
            if corpus is not None:
                preds, golds = dialogue_examples(corpus, self._entries)
                self._pending[0].extend(preds)
                self._pending[1].extend(golds)
                self._pending_turns += corpus.num_turns
            if self._pending_turns >= FLUSH_TURNS or not self._opened:
                self._flush()  # the first batch at once: evaluate opens its cache file and meets the other processes

    def add(self, *, prediction=None, reference=None, **kwargs) -> None:
        """Add one dialogue, or one turn record, on each side (see ``add_batch``)."""
        self.add_batch(predictions=[prediction], references=[reference], **kwargs)

    def _flush(self) -> None:
        """Hand the pending examples to evaluate's ``add_batch`` (none: an empty batch, which still opens the cache
        file and meets the other processes)."""
        self._opened = True
        predictions, references = self._pending
        self._pending, self._pending_turns = ([], []), 0
        super().add_batch(
            predictions=encoded_examples(predictions, "predictions"),
            references=encoded_examples(references, "references"),
        )

    def compute(self, *, predictions=None, references=None, **kwargs) -> dict | None:
        """Score everything added so far, plus `predictions`/`references` if given, under the `Options` given
        as keywords; ``figures`` picks figures, ``bootstrap=N`` adds 95% intervals (``ci``). The figures on
        process 0, None on the others."""
        inputs = {name: kwargs.pop(name) for name in INPUT_OPTIONS if name in kwargs}
        split_options(kwargs)  # checked before anything is read
        if predictions is not None or references is not None:
            self.add_batch(predictions=predictions, references=references, **inputs)
        self._flush()
        try:
            return super().compute(**kwargs)
        finally:
            self._encoder.reset()
            self._entries.clear()
            self._opened = False

    def _compute(self, *, predictions=None, references=None, **kwargs) -> dict:
        """Score the turns of every example and process (as Arrow) with the core."""
        options, names, reading = split_options(kwargs)
        pred, gold = turns_of_examples(predictions, "predictions"), turns_of_examples(references, "references")
        corpus = corpus_from_arrow(pred, gold, value_matching=options.value_matching, **reading)
        options = options.replace(reading=corpus.reading)
        ours = score(corpus, options).scores  # a compat profile's figures replace ours
        figures = {key: ours[key] for key in figure_keys(options, self.families)}
        if names is not None:
            figures = {key: value for key, value in figures.items() if key in names}
        elif CALIBRATION_FAMILY in self.families:
            scores = hypotheses_of_examples(predictions)  # every batch's and process's confidences
            if scores is not None:
                figures.update(calibration(corpus, scores).figures)  # docs/calibration.md
        return with_intervals(figures, corpus, options, kwargs)
