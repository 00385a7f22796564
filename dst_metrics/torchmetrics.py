"""torchmetrics ``Metric`` classes of the dst-metrics figures, for PyTorch Lightning and plain DDP.

`DSTMetrics` returns every figure, `GCAMetric` and `JGAFGAMetrics` the families of the `evaluate` modules of the
same names (``gca_metric``, ``jga_fga_metrics``). Each ``update()`` tallies its batch with the core at once
(`Corpus.from_dialogues` or `Corpus.from_turn_records`, then `scoring.scores.tally_dialogues`, as
`dst_metrics.score` does) and adds the `Tally` to the metric's states. ``compute()`` turns the states back into
a `Tally` and scores it with `scoring.scores.score_tallies`, the path of `dst_metrics.score`: the same figures.

The states are `Tally`'s declared sums, one state per field, made from the declaration (`core.tally.MERGE`):

- a field merged by ``operator.add`` (an int) is an int64 scalar tensor with ``dist_reduce_fx="sum"``;
- a field merged by ``add_keys`` (a histogram {int: int}) is a list state of int64 ``[key, count]`` rows with
  ``dist_reduce_fx="cat"``: syncing concatenates every process's rows, and ``compute()`` sums them by key with
  ``add_keys``. A summed dense tensor would need one length on every process, known in advance, and these keys
  (a turn's number of slots, FGA's distance in turns) have no such bound. Each ``update()`` folds the rows into
  one tensor, so a process holds one small tensor per histogram, and the list is never empty (a process that
  saw no batch still syncs int64 rows).

A new `Tally` field needs no change here; a field with another merge is refused when this module is imported.
As the states of a batch added to the states before it are the states after it, ``full_state_update`` is False:
``forward`` calls ``update`` once, computes the batch's figures from the batch's states, then adds them.

Each batch must hold whole dialogues: a turn is diffed against the turn before it, so a dialogue split over two
batches (turn records) would be tallied as two. Options that need the whole corpus rather than sums (``compat``,
the bootstrap's ``bootstrap``, ``seed`` and ``ci_method``) are refused by the constructor.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Mapping, Sequence
from typing import Any

from .modules import needs_extra

try:
    import torch
    import torchmetrics
except ImportError as error:  # the one line naming the extra, with the CPU build of torch pinned
    line = needs_extra("dst_metrics.torchmetrics", "torchmetrics", ["torch", "torchmetrics"])
    raise ImportError(line.replace("pip install ", 'pip install "torch==2.13.0" ', 1)) from error

from .core.tally import MERGE, Tally, add_keys
from .corpus import Corpus
from .errors import InputError, describe
from .figures.registry import figure_keys, figure_of
from .options import OptionError, Options
from .reading import READING_SETTINGS, Reading
from .scoring.scores import score_tallies, tally_dialogues
from .states import LinearizedFormat

__all__ = ["DSTMetrics", "GCAMetric", "JGAFGAMetrics"]

SUM_STATES = tuple(f.name for f in dataclasses.fields(Tally) if f.metadata[MERGE] is operator.add)
"""The `Tally` fields kept as int64 scalars, summed across processes."""
ROW_STATES = tuple(f.name for f in dataclasses.fields(Tally) if f.metadata[MERGE] is add_keys)
"""The `Tally` histograms kept as lists of int64 [key, count] rows, concatenated across processes."""
_other = [f.name for f in dataclasses.fields(Tally) if f.name not in SUM_STATES + ROW_STATES]
if _other:
    raise TypeError(f"Tally fields {_other} merge in a way dst_metrics.torchmetrics has no torch state for")

WHOLE_CORPUS_OPTIONS = {
    "compat": "a compatibility profile scores the whole corpus, not sums",
    "bootstrap": "bootstrap intervals resample the whole corpus, not sums",
    "seed": "the seed is the bootstrap's, which resamples the whole corpus, not sums",
    "ci_method": "the interval method is the bootstrap's, which resamples the whole corpus, not sums",
}
"""Options of ``dst_metrics.score`` or of the evaluate modules' ``compute()`` that these metrics refuse, and why."""
READING_OPTIONS = ("linearized", *(setting.name for setting in READING_SETTINGS if setting.evaluate))
"""The reading settings the constructor takes, as the evaluate modules take them (besides ``value_matching``)."""


def _rows(histogram: Mapping[int, int], device: torch.device) -> torch.Tensor:
    """A histogram as an int64 tensor of [key, count] rows (shape (n, 2))."""
    return torch.tensor(list(histogram.items()), dtype=torch.int64, device=device).reshape(-1, 2)


def _histogram(rows: torch.Tensor | Sequence[torch.Tensor]) -> dict[int, int]:
    """The histogram of [key, count] rows (a list of tensors, or one once synced), a key's counts summed with
    the declared merge, `add_keys`."""
    pairs = rows if isinstance(rows, torch.Tensor) else torch.cat(list(rows))
    return add_keys(*({key: count} for key, count in pairs.tolist()))


class _TallyMetric(torchmetrics.Metric):
    """A torchmetrics Metric whose states are a `Tally`'s sums; `families` picks the figures ``compute()`` gives."""

    families: tuple[str, ...] = ("gca", "turn")
    full_state_update = False  # the states of a batch added to the global ones are the global states after it
    is_differentiable = False
    higher_is_better = True

    def __init__(self, **options: Any) -> None:
        """`options`: `dst_metrics.Options` fields (``mode="corrected"``, ``num_slots=30``, ...), the reading
        settings ``prediction_states`` and ``gold_alternatives``, and ``linearized`` (a `LinearizedFormat` or a
        mapping of its fields), as the evaluate modules' ``compute()`` takes them; the rest go to
        ``torchmetrics.Metric`` (``dist_sync_on_step``, ``process_group``, ...)."""
        refused = [name for name in WHOLE_CORPUS_OPTIONS if options.pop(name, None) not in (None, 0, False)]
        if refused:
            raise OptionError(f"{refused[0]}: {WHOLE_CORPUS_OPTIONS[refused[0]]}; use dst_metrics.score on the corpus")
        reading = {name: options.pop(name) for name in READING_OPTIONS if name in options}
        if isinstance(reading.get("linearized"), Mapping):
            reading["linearized"] = LinearizedFormat(**reading["linearized"])
        option_values = {name: options.pop(name) for name in Options.__dataclass_fields__ if name in options}
        if "reading" in option_values:
            raise TypeError("reading is set from the reading settings (prediction_states, ...), not given")
        metric_kwargs = options  # torchmetrics.Metric's own (an unknown one is its ValueError)
        super().__init__(**metric_kwargs)
        self.reading = Reading(value_matching=option_values.get("value_matching", "exact"), **reading)
        self.options = Options.from_kwargs(option_values).replace(reading=self.reading.parts)
        for name in SUM_STATES:
            self.add_state(name, torch.tensor(0, dtype=torch.int64), dist_reduce_fx="sum")
        for name in ROW_STATES:
            self.add_state(name, [], dist_reduce_fx="cat")
        self._start_rows()

    @property
    def signature(self) -> str:
        """The signature of the figures ``compute()`` gives (the options and the reading settings)."""
        return self.options.signature()

    def _start_rows(self) -> None:
        """One empty int64 tensor in each row state: a process that saw no batch syncs int64 rows of width 2."""
        for name in ROW_STATES:
            getattr(self, name).append(torch.zeros((0, 2), dtype=torch.int64, device=self.device))

    def reset(self) -> None:
        """Forget every batch: states back to zero."""
        super().reset()
        self._start_rows()

    def update(
        self, predictions: Sequence[Any], references: Sequence[Any], dialogue_ids: Sequence[str] | None = None
    ) -> None:
        """Tally a batch and add it to the states. `predictions` and `references`: lists of dialogues (each a
        list of states, turn 0, 1, ...; `dialogue_ids` optional, for error messages) or of turn records
        ``{"dialogue_id", "turn_id", "state"}``; every turn of a dialogue in the same batch."""
        corpus = self._corpus(predictions, references, dialogue_ids)
        if corpus is None:
            return
        tally, _ = tally_dialogues(corpus, self.options.mode, False)
        for name in SUM_STATES:
            getattr(self, name).add_(getattr(tally, name))
        for name in ROW_STATES:
            added = add_keys(_histogram(getattr(self, name)), getattr(tally, name))
            setattr(self, name, [_rows(added, self.device)])

    def _corpus(self, predictions: Any, references: Any, dialogue_ids: Sequence[str] | None) -> Corpus | None:
        """The batch as a Corpus read with the metric's reading settings (None when it is empty)."""
        for name, side in (("predictions", predictions), ("references", references)):
            if isinstance(side, (str, bytes, Mapping)) or not isinstance(side, Sequence):
                raise InputError(f"{name} must be a list of dialogues or of turn records, got {describe(side)}")
        if len(predictions) != len(references):
            raise InputError(f"{len(predictions)} predictions but {len(references)} references")
        if not references:
            return None
        reading = {name: getattr(self.reading, name) for name in ("value_matching", *READING_OPTIONS)}
        if isinstance(references[0], Mapping):
            if dialogue_ids is not None:
                raise InputError("dialogue_ids is for lists of dialogues; turn records carry their own")
            return Corpus.from_turn_records(predictions, references, **reading)
        return Corpus.from_dialogues(predictions, references, dialogue_ids=dialogue_ids, **reading)

    def tally(self) -> Tally:
        """The states as a `Tally` (this process's, or every process's once synced)."""
        sums = {name: int(getattr(self, name)) for name in SUM_STATES}
        return Tally(**sums, **{name: _histogram(getattr(self, name)) for name in ROW_STATES})

    def compute(self) -> dict[str, torch.Tensor]:
        """The figures of the metric's families over every batch since the last ``reset()`` (and every process):
        rates as float64 tensors, counts as int64, equal to `dst_metrics.score`'s."""
        tally = self.tally()
        if not tally.turns:
            raise InputError("no turn was added since the last reset(): there is nothing to score")
        scores = score_tallies((tally, {}), self.options).scores
        return {
            key: torch.tensor(scores[key], dtype=torch.int64 if figure_of(key).is_count else torch.float64)
            for key in figure_keys(self.options, self.families)
        }


class DSTMetrics(_TallyMetric):
    """Every figure (GCA, JGA, FGA, SA, AGA, RSA, slot F1, ...), as the ``dst_metrics_all`` module gives them."""

    families = ("gca", "turn")


class GCAMetric(_TallyMetric):
    """GCA, its four counts and four rates, as the ``gca_metric`` module gives them."""

    families = ("gca",)


class JGAFGAMetrics(_TallyMetric):
    """The turn-level figures (JGA, FGA, SA, AGA, RSA, slot P/R/F1, ...), as the ``jga_fga_metrics`` module."""

    families = ("turn",)
