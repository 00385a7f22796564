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
import sys
import warnings
from collections.abc import Mapping

import datasets
import evaluate
import evaluate.module

from ..figures import compute_figures, figure_keys
from ..options import OptionError, Options
from ..scoring import check_num_slots, tally_dialogues
from .arrow import SCHEMA, corpus_from_arrow
from .batches import INPUT_OPTIONS, TurnEncoder
from .docs import MODULE_FAMILIES

FEATURES = datasets.Features.from_arrow_schema(SCHEMA)
"""The rows evaluate caches and gathers (`arrow.SCHEMA` as `datasets` features)."""
CALIBRATION_MODULE = "jga_fga_metrics"
"""The module that adds the calibration figures when predicted values carry confidences."""
CALIBRATION_PROCESSES_WARNING = (
    "predicted values carry confidences, but calibration figures are computed only with num_process=1: "
    "this run reports the other figures, from the top values"
)
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


BOOTSTRAP_OPTIONS = ("bootstrap", "seed", "ci_method")
"""``compute()`` arguments of the intervals: resamples (None or 0: no intervals), seed, percentile|bca."""


def bootstrap_settings(kwargs: Mapping[str, object]) -> dict[str, object] | None:
    """The `bootstrap_intervals` settings of ``compute()`` arguments (None without ``bootstrap``);
    a bad value is an OptionError."""
    if not kwargs.get("bootstrap"):
        return None
    from ..stats.bootstrap import check_settings

    seed = kwargs.get("seed", 0)
    settings = {"resamples": kwargs["bootstrap"], "seed": seed, "method": kwargs.get("ci_method") or "percentile"}
    check_settings(settings["resamples"], 0.95, settings["method"])
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise OptionError(f"seed must be a whole number at least 0; got {seed!r}")
    return settings


def with_intervals(figures: dict, corpus, options: Options, kwargs: Mapping[str, object]) -> dict:
    """`figures` and the signature; with ``bootstrap=N``, also ``ci``: {figure: [low, high]} of the
    figures listed (`dst_metrics.stats.bootstrap_intervals`) and the interval settings in the signature."""
    settings = bootstrap_settings(kwargs)
    if settings is None:
        return {**figures, "signature": options.signature()}
    if options.compat is not None:
        raise OptionError("bootstrap gives intervals of dst-metrics' own figures; it cannot be combined with compat")
    from ..stats import bootstrap_intervals

    intervals = bootstrap_intervals(corpus, options, **settings)
    ci = {key: bounds for key, bounds in intervals.as_dict().items() if key in figures}
    return {**figures, "ci": ci, "signature": options.signature() + intervals.signature_suffix}


def split_options(kwargs: Mapping[str, object]) -> tuple[Options, tuple[str, ...] | None]:
    """``compute()`` keyword arguments -> (Options, the figure names asked for or None).

    An unknown argument is a TypeError; a bad value an OptionError; an unknown figure a ValueError.
    The interval arguments (`BOOTSTRAP_OPTIONS`) are checked by `bootstrap_settings`.
    """
    values = {name: value for name, value in kwargs.items() if name not in BOOTSTRAP_OPTIONS}
    bootstrap_settings(kwargs)
    figures = values.pop("figures", None)
    unknown = sorted(set(values) - set(Options.__dataclass_fields__))
    if unknown:
        accepted = sorted({*Options.__dataclass_fields__, "figures", *INPUT_OPTIONS, *BOOTSTRAP_OPTIONS})
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


_COMBINED_CODES = frozenset(
    getattr(evaluate.module.CombinedEvaluations, name).__code__ for name in ("add", "add_batch", "compute")
)
_SHARED: dict[str, object] = {}
"""What one module of an ``evaluate.combine`` call computed for the next ones: the last encoded batch
(`TurnEncoder.replay`) and the last scored rows, keyed by the combine call and the encoders' history, so
a module takes them only when it has seen exactly the same batches. Holds one batch and one corpus."""


def _combined_call() -> int | None:
    """The id of the ``CombinedEvaluations.add/add_batch/compute`` frame this call runs in, if any
    (evaluate.combine calls each module in turn with the same objects)."""
    frame = sys._getframe(2)
    for _ in range(6):
        if frame is None:
            return None
        if frame.f_code in _COMBINED_CODES:
            return id(frame)
        frame = frame.f_back
    return None


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
        call = _combined_call()
        encoded = _SHARED.get("batch")
        if (
            call is not None
            and encoded is not None
            and _SHARED["batch_key"] == (call, self._encoder.history, self._encoder.settings())
            and _SHARED["inputs"][0] is predictions
            and _SHARED["inputs"][1] is references
            and _SHARED["inputs"][2] == kwargs
        ):  # the same batch another module of this evaluate.combine just encoded, from the same state
            table = self._encoder.replay(encoded)
        else:
            before = self._encoder.history
            table = self._encoder.encode(predictions, references, **kwargs)
            if call is not None and self._encoder.last is not None:
                _SHARED.update(
                    batch=self._encoder.last,
                    batch_key=(call, before, self._encoder.settings()),
                    inputs=(predictions, references, dict(kwargs)),
                )
        if self._encoder.scores is not None and self.num_process > 1 and self.module == CALIBRATION_MODULE:
            warnings.warn(CALIBRATION_PROCESSES_WARNING, stacklevel=2)
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
        several), ``fga_lambdas``, ``num_slots``, ``value_matching``; and ``figures``. With
        ``bootstrap=N`` (and ``seed=0``, ``ci_method="percentile"`` or ``"bca"``) the result also has
        ``ci``: {figure: [low, high]}, 95% bootstrap intervals over dialogues (`dst_metrics.stats`).
        They are checked before the cached rows are read. Returns the figures on process 0 and None
        on the other processes.
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
        call = _combined_call() if self.num_process == 1 else None
        key = (call, self._encoder.history, options.value_matching, options.mode)
        if call is not None and self._encoder.history and _SHARED.get("scored_key") == key:
            corpus, tally = _SHARED["scored"]  # another module of this evaluate.combine, the same rows
        else:
            corpus = corpus_from_arrow(predictions, references, options.value_matching)
            tally, _ = tally_dialogues(corpus, options.mode, False)
            if call is not None:
                _SHARED.update(scored_key=key, scored=(corpus, tally))
        check_num_slots(tally, options)
        figures = compute_figures(tally, options, [MODULE_FAMILIES[self.module]])
        if options.compat is not None:  # the profile's figures replace ours, for this module's keys
            from ..compat import PROFILES

            overlay = PROFILES[options.compat].figures(corpus, options)
            figures.update({key: value for key, value in overlay.items() if key in figures})
        if names is not None:
            figures = {key: value for key, value in figures.items() if key in names}
        elif self.module == CALIBRATION_MODULE and self._encoder.scores is not None and self.num_process == 1:
            from ..calibration.metrics import calibration  # predictions with confidences (docs/calibration.md)

            figures.update(calibration(corpus, self._encoder.scores).figures)
        return with_intervals(figures, corpus, options, kwargs)
