"""The ``evaluate.Metric`` base class of the dst-metrics modules (``gca_metric``, ``jga_fga_metrics``
and ``dst_metrics_all``), on evaluate's public API only.

``add_batch()`` checks each batch with the core and encodes its turns as Arrow rows
(`arrow.corpus_table`). The first batch goes at once, later ones are kept until `FLUSH_TURNS`
turns (or ``compute()``): they reach evaluate's own ``add_batch`` as one example, each side's
turns as one Arrow IPC stream (`FEATURES`: two binary values). evaluate writes, gathers across
processes and reads back these examples as for any metric; ``_compute`` decodes the streams of
every batch and process into one Corpus, once, and returns the figures of the module's families
from the figure registry.
"""

from __future__ import annotations

import abc
import warnings
from collections.abc import Mapping

import datasets
import evaluate
import pyarrow as pa
from packaging.specifiers import SpecifierSet

from ..calibration.metrics import calibration
from ..compat import PROFILES
from ..figures import compute_figures, figure_keys
from ..options import OptionError, Options, reading_parts
from ..scoring import check_num_slots, tally_dialogues
from ..stats import bootstrap_intervals
from ..stats.bootstrap import check_settings
from .arrow import corpus_from_arrow, side_stream, streams_column
from .batches import INPUT_OPTIONS, TurnEncoder
from .docs import MODULE_FAMILIES

FEATURES = datasets.Features(
    {"predictions": datasets.Value("large_binary"), "references": datasets.Value("large_binary")}
)
"""What evaluate stores per example: the turns of one or more batches, each side as an Arrow IPC
stream of `arrow.TURN_TYPE` rows (`arrow.side_stream`)."""
FLUSH_TURNS = 8192
"""Turns kept in memory before they are handed to evaluate as one example: few examples, few streams."""
CALIBRATION_FAMILY = "turn"
"""The modules of this family add the calibration figures when predicted values carry confidences."""
CALIBRATION_PROCESSES_WARNING = (
    "predicted values carry confidences, but calibration figures are computed only with num_process=1: "
    "this run reports the other figures, from the top values"
)
EVALUATE_TESTED = ">=0.4.6,<0.5"
"""evaluate versions the modules were tested with (pip's specifier, as in pyproject.toml)."""


def check_evaluate_version(version: str = evaluate.__version__) -> None:
    """Raise ImportError unless `version` is in the tested range `EVALUATE_TESTED`
    (pre-releases of the upper bound, such as 0.5.0rc1, are outside it)."""
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
    intervals = bootstrap_intervals(corpus, options, **settings)
    ci = {key: bounds for key, bounds in intervals.as_dict().items() if key in figures}
    return {**figures, "ci": ci, "signature": options.signature() + intervals.signature_suffix}


READING_OPTIONS = ("prediction_states", "gold_alternatives")
"""``compute()`` keyword arguments about how the turns are read (`dst_metrics.corpus`): predictions as
``cumulative`` states or turn ``updates`` (null or ``[DELETE]`` removes a slot), gold alternatives
matched by ``any`` or the ``first``."""


def reading_options(kwargs: Mapping[str, object]) -> tuple[str, str]:
    """(prediction_states, gold_alternatives) of ``compute()`` keyword arguments, checked."""
    chosen = (kwargs.get("prediction_states", "cumulative"), kwargs.get("gold_alternatives", "any"))
    reading_parts(*chosen)
    return chosen


def split_options(kwargs: Mapping[str, object]) -> tuple[Options, tuple[str, ...] | None]:
    """``compute()`` keyword arguments -> (Options, the figure names asked for or None).

    An unknown argument is a TypeError; a bad value an OptionError; an unknown figure a ValueError.
    The interval arguments (`BOOTSTRAP_OPTIONS`) are checked by `bootstrap_settings`.
    """
    values = {name: value for name, value in kwargs.items() if name not in BOOTSTRAP_OPTIONS}
    bootstrap_settings(kwargs)
    figures = values.pop("figures", None)
    unknown = sorted(set(values) - set(Options.__dataclass_fields__) | ({"reading"} & set(values)))
    if unknown:
        known = {*Options.__dataclass_fields__, "figures", *INPUT_OPTIONS, *BOOTSTRAP_OPTIONS, *READING_OPTIONS}
        accepted = sorted(known - {"reading"})
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
    """The MetricInfo of a dst-metrics module: `FEATURES`, read back as Arrow (``format="arrow"``,
    which MetricInfo admits for flat features: the streams are read without a copy)."""
    return evaluate.MetricInfo(
        description=description,
        citation=citation,
        inputs_description=inputs_description,
        features=FEATURES,
        format="arrow",
        codebase_urls=["https://github.com/cuthalionn/Granular_Change_Accuracy"],
        reference_urls=["https://arxiv.org/abs/2403.11123"],
    )


class DSTMetric(evaluate.Metric, metaclass=abc.ABCMeta):
    """Base of the dst-metrics modules: inputs, validation, Arrow rows, options.

    A subclass sets `module` (its folder name, which picks its families of figures in
    `MODULE_FAMILIES`) and implements ``_info`` (with `metric_info`). Init keyword: ``linearized``,
    the default `LinearizedFormat` of string states.
    """

    module: str = ""

    def __init__(self, *args, linearized=None, **kwargs) -> None:
        check_evaluate_version()
        super().__init__(*args, **kwargs)
        prefix = f"{self.process_id}/" if self.num_process > 1 else ""
        self._encoder = TurnEncoder(linearized=linearized, id_prefix=prefix)
        self._pending: list[pa.Table] = []
        self._pending_turns = 0
        self._opened = False  # evaluate's add_batch called since the last compute()

    @property
    def families(self) -> tuple[str, ...]:
        """The families of figures this module returns (`dst_metrics.figures.FAMILIES`)."""
        return MODULE_FAMILIES[self.module]

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
        if self._encoder.scores is not None and self.num_process > 1 and CALIBRATION_FAMILY in self.families:
            warnings.warn(CALIBRATION_PROCESSES_WARNING, stacklevel=2)
        if table is not None:
            self._pending.append(table)
            self._pending_turns += table.num_rows
        if self._pending_turns >= FLUSH_TURNS or not self._opened:
            self._flush()  # the first batch at once: evaluate opens its cache file and meets the other processes

    def add(self, *, prediction=None, reference=None, **kwargs) -> None:
        """Add one dialogue, or one turn record, on each side (see ``add_batch``)."""
        self.add_batch(predictions=[prediction], references=[reference], **kwargs)

    def _flush(self) -> None:
        """Hand the pending turns to evaluate's ``add_batch`` as one example; with none pending, an
        empty batch (it still opens the cache file and, with several processes, meets the others)."""
        self._opened = True
        if self._pending:
            table = pa.concat_tables(self._pending)
            self._pending, self._pending_turns = [], 0
            batch = {side: [side_stream(table[side])] for side in ("predictions", "references")}
        else:
            batch = {"predictions": [], "references": []}
        super().add_batch(**batch)

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
        reading_options(kwargs)  # checked before anything is read
        split_options({name: value for name, value in kwargs.items() if name not in READING_OPTIONS})
        if predictions is not None or references is not None:
            self.add_batch(predictions=predictions, references=references, **inputs)
        self._flush()
        try:
            return super().compute(**kwargs)
        finally:
            self._encoder.reset()
            self._opened = False

    def _compute(self, *, predictions=None, references=None, **kwargs) -> dict:
        """Score the turns of every example and process (Arrow IPC streams) with the core."""
        reading = reading_options(kwargs)
        options, names = split_options({name: value for name, value in kwargs.items() if name not in READING_OPTIONS})
        corpus = corpus_from_arrow(
            streams_column(predictions), streams_column(references), options.value_matching, *reading
        )
        options = options.replace(reading=corpus.reading)
        tally, _ = tally_dialogues(corpus, options.mode, False)
        check_num_slots(tally, options)
        figures = compute_figures(tally, options, self.families)
        if options.compat is not None:  # the profile's figures replace ours, for this module's keys
            overlay = PROFILES[options.compat].figures(corpus, options)
            figures.update({key: value for key, value in overlay.items() if key in figures})
        if names is not None:
            figures = {key: value for key, value in figures.items() if key in names}
        elif CALIBRATION_FAMILY in self.families and self._encoder.scores is not None and self.num_process == 1:
            figures.update(calibration(corpus, self._encoder.scores).figures)  # docs/calibration.md
        return with_intervals(figures, corpus, options, kwargs)
