"""The ``evaluate.Metric`` base class of ``gca_metric`` and ``jga_fga_metrics``.

``add_batch()`` checks each batch with the core and writes its Arrow rows straight into
evaluate's cache file (so evaluate's generic per-example encoding is skipped); ``compute()``
reads the rows of every batch and process back as one Corpus and returns the figures of the
module's family from the figure registry. Writing rows directly uses evaluate's private writer
(`Metric._init_writer`, `Metric.writer`): the versions this was tested with are `EVALUATE_TESTED`,
and `check_evaluate_version` refuses others with a readable message.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping

import datasets
import evaluate

from ..figures import compute_figures, figure_keys
from ..options import Options
from ..scoring import check_num_slots, tally_dialogues
from .arrow import SCHEMA, corpus_from_arrow
from .batches import INPUT_OPTIONS, TurnEncoder
from .docs import MODULE_FAMILIES

FEATURES = datasets.Features.from_arrow_schema(SCHEMA)
"""The rows evaluate caches and gathers (`arrow.SCHEMA` as `datasets` features)."""
EVALUATE_TESTED = ">=0.4.6,<0.5"
"""evaluate versions the private writer API was tested with (pip's specifier, as in pyproject.toml)."""


def check_evaluate_version(version: str = evaluate.__version__) -> None:
    """Raise ImportError unless `version` is in the tested range `EVALUATE_TESTED`
    (pre-releases of the upper bound, such as 0.5.0rc1, are outside it)."""
    from packaging.specifiers import SpecifierSet

    if not SpecifierSet(EVALUATE_TESTED).contains(version, prereleases=True):
        raise ImportError(
            f"dst-metrics' evaluate modules were tested with evaluate{EVALUATE_TESTED}; this is evaluate "
            f'{version}. Install a tested version: pip install "evaluate{EVALUATE_TESTED}"'
        )


def split_options(kwargs: Mapping[str, object]) -> tuple[Options, tuple[str, ...] | None]:
    """``compute()`` keyword arguments -> (Options, the figure names asked for or None).

    An unknown argument is a TypeError; a bad value an OptionError; an unknown figure a ValueError.
    """
    values = dict(kwargs)
    figures = values.pop("figures", None)
    unknown = sorted(set(values) - set(Options.__dataclass_fields__))
    if unknown:
        accepted = sorted({*Options.__dataclass_fields__, "figures", *INPUT_OPTIONS})
        raise TypeError(f"unknown compute() arguments {unknown}; accepted: {accepted}")
    options = Options.from_kwargs(values)
    if figures is None:
        return options, None
    names = (figures,) if isinstance(figures, str) else tuple(figures)
    known = figure_keys(options)
    wrong = [name for name in names if name not in known and name != "signature"]
    if wrong:
        raise ValueError(f"unknown figures {wrong}; known: {known}")
    return options, names


def metric_info(*, description: str, citation: str, inputs_description: str) -> evaluate.MetricInfo:
    """The MetricInfo of a dst-metrics module: `FEATURES`, read back as Arrow (``format="arrow"``).

    ``format`` is set after construction: MetricInfo's own check admits only flat features for a
    format, but evaluate hands any format to ``Dataset.set_format``, and "arrow" suits nesting.
    """
    info = evaluate.MetricInfo(
        description=description,
        citation=citation,
        inputs_description=inputs_description,
        features=FEATURES,
        codebase_urls=["https://github.com/cuthalionn/Granular_Change_Accuracy"],
        reference_urls=["https://arxiv.org/abs/2403.11123"],
    )
    info.format = "arrow"
    return info


class DSTMetric(evaluate.Metric, metaclass=abc.ABCMeta):
    """Base of ``gca_metric`` and ``jga_fga_metrics``: inputs, validation, Arrow rows, options.

    A subclass sets `module` (its folder name, which picks its family of figures) and implements
    ``_info`` (with `metric_info`). Init keyword: ``linearized``, the default `LinearizedFormat`
    of string states.
    """

    module: str = ""

    def __init__(self, *args, linearized=None, **kwargs) -> None:
        check_evaluate_version()
        super().__init__(*args, **kwargs)
        prefix = f"{self.process_id}/" if self.num_process > 1 else ""
        self._encoder = TurnEncoder(linearized=linearized, id_prefix=prefix)

    @abc.abstractmethod
    def _info(self) -> evaluate.MetricInfo:
        """The module's MetricInfo (see `metric_info`)."""

    def add_batch(self, *, predictions=None, references=None, **kwargs) -> None:
        """Add a batch: lists of dialogues or of turn records, validated now with the core.

        Keyword arguments: ``dialogue_ids`` (dialogue-level input), ``linearized`` (a
        LinearizedFormat for string states). Bad input raises InputError naming the batch,
        the position in it, the dialogue, the turn and the field.
        """
        table = self._encoder.encode(predictions, references, **kwargs)
        if self.writer is None:  # even for an empty batch: a process with no rows still meets the others
            self.selected_feature_format = self.features
            self._init_writer()
        if table is not None:
            self.writer.write_table(table)

    def add(self, *, prediction=None, reference=None, **kwargs) -> None:
        """Add one dialogue, or one turn record, on each side (see ``add_batch``)."""
        self.add_batch(predictions=[prediction], references=[reference], **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs) -> dict | None:
        """Score everything added so far, plus `predictions`/`references` if given.

        Options (see `dst_metrics.options.Options`): ``mode``, ``alpha``, ``fga_lambda`` (one or
        several), ``fga_lambdas``, ``num_slots``, ``value_matching``; and ``figures``. They are
        checked before the cached rows are read. Returns the figures on process 0 and None on the
        other processes.
        """
        inputs = {name: kwargs.pop(name) for name in INPUT_OPTIONS if name in kwargs}
        split_options(kwargs)
        if predictions is not None or references is not None:
            self.add_batch(predictions=predictions, references=references, **inputs)
        try:
            return super().compute(**kwargs)
        finally:
            self._encoder.reset()

    def _compute(self, *, predictions=None, references=None, **kwargs) -> dict:
        """Score the rows of every batch and process (Arrow columns) with the core."""
        options, names = split_options(kwargs)
        corpus = corpus_from_arrow(predictions, references, options.value_matching)
        tally, _ = tally_dialogues(corpus, options.mode, False)
        check_num_slots(tally, options)
        figures = compute_figures(tally, options, [MODULE_FAMILIES[self.module]])
        if options.compat is not None:  # the profile's figures replace ours, for this module's keys
            from ..compat import PROFILES

            overlay = PROFILES[options.compat].figures(corpus, options)
            figures.update({key: value for key, value in overlay.items() if key in figures})
        if names is not None:
            figures = {key: value for key, value in figures.items() if key in names}
        return {**figures, "signature": options.signature()}
