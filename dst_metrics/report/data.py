"""What a report shows, as plain data: a `SystemData` per prediction file and a `ComparisonData` per later
file against the first, gathered by `collect` from `dst_metrics.stats` and `analysis.breakdown`. The
renderers (`plots`, `html`, `tables`) read only these dataclasses.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..core.tally import COUNT_TYPES
from ..corpus import Corpus
from ..errors import InputError
from ..figures.registry import FIGURES, figure_labels
from ..options import Options
from ..stats.analysis import DialogueAnalysis as DialoguePoint
from ..stats.paired import FloorWarning
from ..stats.positions import PositionRow
from ..stats.table import SystemsTable

MISTAKE_TYPES: tuple[str, ...] = tuple(kind for kind in COUNT_TYPES if kind != "correct")
BREAKDOWNS: tuple[str, ...] = ("domain", "slot")
"""The groupings of the mistakes heat maps."""
POSITION_FIELDS: tuple[str, ...] = ("turns", "jga", "rsa", *COUNT_TYPES, "first_failures")
"""The figures of a `by_position` row besides its index."""
DEFAULT_RESAMPLES = 1000


@dataclass(frozen=True)
class SystemData:
    """Everything the report shows of one prediction file."""

    name: str
    scores: Mapping[str, float | int]
    intervals: Mapping[str, tuple[float, float]] | None = None
    positions: Sequence[PositionRow] = ()
    dialogues: Sequence[DialoguePoint] = ()
    correlations: Mapping[str, float] = field(default_factory=dict)  # "gca~to", "fga~to", "gca~nu", "fga~nu"
    zou: Mapping[str, Mapping[str, float]] = field(default_factory=dict)  # "to"/"nu" -> r1, r2, low, high
    mistakes: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)  # by -> group -> type -> n


@dataclass(frozen=True)
class ComparisonData:
    """System `name_b` against `name_a` (the first file): per figure a, b, diff (b - a), ci, p, p_adjusted,
    significant; McNemar's test of JGA clustered by dialogue; or `error` when they cannot be compared."""

    name_a: str
    name_b: str
    figures: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    mcnemar: Mapping[str, float] | None = None
    summary: str = ""
    error: str | None = None
    level: float = 0.05  # significance level of `significant`
    correction: str = "holm"  # how p was adjusted across the figures
    family_size: int = 0  # the number of figures p was adjusted over (0: as many as `figures`)
    rounds: int = 0  # randomization rounds behind p (0: unknown)
    dialogues: int = 0  # dialogues compared (0: unknown); with few, they bound the smallest p


@dataclass(frozen=True)
class ReportData:
    """The whole report: systems in input order, comparisons with the first, the options, and how the
    intervals were computed (None: no intervals)."""

    systems: Sequence[SystemData]
    options: Options
    comparisons: Sequence[ComparisonData] = ()
    ci: Mapping[str, object] | None = None  # method, resamples, seed, level
    signature: str = ""
    table: SystemsTable | None = None  # every system, tests corrected over the whole table (`systems_table`)

    @property
    def labels(self) -> dict[str, str]:
        return figure_labels(self.options)

    def main_keys(self) -> list[str]:
        """The headline figures (registry group ``main``)."""
        return [key for f in FIGURES if f.group == "main" for key in f.keys(self.options)]


def _field(row: object, name: str) -> object:
    return row[name] if isinstance(row, Mapping) else getattr(row, name)


def _rows(profile: object) -> list:
    """The rows of a PositionProfile, of its ``as_dict()`` or of a list."""
    if isinstance(profile, Mapping):
        return list(profile["rows"])
    if isinstance(profile, Sequence):
        return list(profile)
    return list(profile.rows)


def position_rows(profile: object) -> list[PositionRow]:
    """`PositionRow`s of a `by_position` result (object, ``as_dict()`` or list of rows); a row without a
    position is at its index in the list."""
    out = []
    for index, row in enumerate(_rows(profile)):
        position = next((_field(row, k) for k in ("position", "index", "t") if _has(row, k)), index)
        out.append(PositionRow(int(position), *(_field(row, name) for name in POSITION_FIELDS)))
    return out


def _has(row: object, name: str) -> bool:
    return name in row if isinstance(row, Mapping) else hasattr(row, name)


def dialogue_points(analysis: object) -> list[DialoguePoint]:
    """`DialoguePoint`s of an `analyze` result (object or ``as_dict()``)."""
    rows = _field(analysis, "dialogues")
    names = ("gca", "fga", "to", "nu")
    return [DialoguePoint(str(_field(row, "dialogue_id")), *(_number(_field(row, n)) for n in names)) for row in rows]


def _number(value: object) -> float:
    """A float; None (how ``as_dict()`` writes NaN for JSON) as NaN."""
    return math.nan if value is None else float(value)


def zou_intervals(analysis: object) -> dict[str, dict[str, float]]:
    """{"to"|"nu": {"r1", "r2", "low", "high"}} of an `analyze` result (object or ``as_dict()``)."""
    zou = _field(analysis, "zou")
    return {key: {name: _number(_field(z, name)) for name in ("r1", "r2", "low", "high")} for key, z in zou.items()}


def correlations(analysis: object) -> dict[str, float]:
    """The Pearson correlations of an `analyze` result (object or ``as_dict()``)."""
    return {key: _number(value) for key, value in _field(analysis, "correlations").items()}


def mistake_counts(groups: Mapping[str, Mapping[str, float | int]]) -> dict[str, dict[str, int]]:
    """{group: {count type: n}} of a `breakdown` result ({group: Scores})."""
    return {group: {kind: int(scores[kind]) for kind in COUNT_TYPES} for group, scores in groups.items()}


def comparison_data(comparison: object) -> ComparisonData:
    """`ComparisonData` of a `compare` result (its ``as_dict()`` and ``summary()``)."""
    found = comparison.as_dict()
    name_a, name_b = found["names"]
    settings = {key: found[key] for key in ("level", "correction", "family_size", "rounds") if key in found}
    settings["dialogues"] = len(getattr(comparison, "dialogues", ()))
    return ComparisonData(name_a, name_b, found["figures"], found.get("mcnemar"), comparison.verdict(), **settings)


def _system(name: str, corpus: Corpus, options: Options, intervals: Mapping | None, analyses: bool) -> SystemData:
    from ..scoring.scores import score

    found = None if intervals is None else {key: (float(lo), float(hi)) for key, (lo, hi) in intervals.items()}
    scores = score(corpus, options).scores
    if not analyses:
        return SystemData(name=name, scores=scores, intervals=found)
    from ..analysis.breakdown import breakdown
    from ..stats import analyze, by_position

    analysis = analyze(corpus, options)
    positions = position_rows(by_position(corpus, options))
    mistakes = {by: mistake_counts(breakdown(corpus, options, by)) for by in BREAKDOWNS}
    return SystemData(
        name, scores, found, positions, dialogue_points(analysis), correlations(analysis), zou_intervals(analysis),
        mistakes,
    )  # fmt: skip


def _comparison(first: tuple[str, Corpus], other: tuple[str, Corpus], options: Options, resamples: int, seed: int):
    from ..stats import compare

    try:
        with warnings.catch_warnings():  # the page shows it beside the comparison (html.p_floor_warning)
            warnings.simplefilter("ignore", FloorWarning)
            found = compare(first[1], other[1], options, resamples=resamples, seed=seed, names=(first[0], other[0]))
    except InputError as error:  # different gold: shown side by side, not compared
        return ComparisonData(first[0], other[0], error=str(error))
    return comparison_data(found)


def collect(
    named_corpora: Sequence[tuple[str, Corpus]],
    options: Options | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    analyses: bool = True,
) -> ReportData:
    """Everything a report shows of one or more systems: figures with bootstrap intervals (`resamples` 0:
    none), turn positions, section 5.2's analyses, mistakes per domain and slot, and each later system
    compared with the first. Without `analyses`, only the figures and their intervals (enough for `tables`)."""
    if not named_corpora:
        raise ValueError("a report needs at least one system")
    from ..stats import bootstrap_intervals

    options = options or Options(value_matching=named_corpora[0][1].value_matching)
    found = [
        bootstrap_intervals(corpus, options, resamples=resamples, seed=seed) if resamples else None
        for _, corpus in named_corpora
    ]
    systems = [_system(name, corpus, options, ci, analyses) for (name, corpus), ci in zip(named_corpora, found)]
    comparisons = []
    if resamples and analyses:
        comparisons = [_comparison(named_corpora[0], other, options, resamples, seed) for other in named_corpora[1:]]
    ci = found[0]  # how the intervals were computed
    settings = None if ci is None else {name: getattr(ci, name) for name in ("method", "resamples", "seed", "level")}
    signature = options.signature() + ("" if ci is None else ci.signature_suffix)
    table = _table(named_corpora, options, resamples, seed)
    return ReportData(systems, options, comparisons, settings, signature, table)


def _table(named_corpora: Sequence[tuple[str, Corpus]], options: Options, resamples: int, seed: int):
    """The table of every system's headline figures, each later system tested against the first, Holm over
    every test; None with one system, without resamples, with a profile or when the gold differs."""
    if len(named_corpora) < 2 or not resamples or options.compat:
        return None
    from ..stats.table import systems_table

    keys = [key for f in FIGURES if f.group == "main" and not f.is_count for key in f.keys(options)]
    try:
        return systems_table(named_corpora, options, figures=keys, resamples=resamples, seed=seed)
    except InputError:  # different gold: the systems are shown side by side, not tested
        return None
