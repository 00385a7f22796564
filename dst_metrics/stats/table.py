"""The comparison table of N systems on one gold: a paper's main table, with its tests corrected once.

Each system is a row: the chosen figures with bootstrap intervals over dialogues (one set of
resamples for every system). Each system is tested against a baseline, or every pair
(``pairs="all"``), by paired approximate randomization (`paired.randomization_p_pairs`), and one
correction (`paired.adjust`) runs over every test of the table: pairs × figures tested. A system
with several runs has the mean of its runs' figures (docs/statistics.md). ``profiles`` adds each
system's JGA under every compatibility profile. Below `SMALL_SAMPLE` dialogues the table says that
its intervals and tests are unreliable.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..corpus import Corpus
from ..errors import InputError, counted
from ..figures.registry import figure_labels, figure_of
from ..options import OptionError, Options
from ..scoring.scores import corpus_options
from .bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, check_settings, intervals_of, resampled_figures, system_matrices
from .matrix import TallyMatrix, exact_figures
from .paired import (
    DEFAULT_LEVEL,
    FigureDiff,
    adjust,
    check_figures,
    check_same_gold,
    check_tests,
    floor_warning,
    options_dict,
    pair_diffs,
    pair_p_values,
    randomization_rounds,
    smallest_adjusted_p,
)

DEFAULT_FIGURES: tuple[str, ...] = ("gca", "jga", "fga", "sa", "slot_f1")
"""The columns unless others are asked for."""
PAIRS: tuple[str, ...] = ("baseline", "all")
"""Which pairs are tested: each system against the baseline, or every pair."""
SMALL_SAMPLE = 20
"""Below this many dialogues the table says its intervals and tests are unreliable."""
PROFILE_HEADLINES: dict[str, str] = {
    "fga": "fga",
    "convlab": "slot_f1",
    "trade": "slot_f1",
    "mwzeval": "slot_f1",
    "fnctod": "average_jga",
    "dstc10": "slot_f1",
    "simmc": "slot_f1",
}
"""The figure each profile is known for, shown beside its JGA (``--profiles all``)."""
OURS = "ours"
"""The name of the first profile columns of a table with profiles: our definitions' JGA."""


@dataclass(frozen=True)
class PairTest:
    """The tests of one pair: system `b` against system `a` (diff = b - a), per figure tested, with
    p adjusted over the whole table's family (`FigureDiff.family_size` is that family's size)."""

    a: str
    b: str
    figures: dict[str, FigureDiff]

    def as_dict(self) -> dict[str, object]:
        """{"a", "b", "figures": {key: FigureDiff.as_dict()}}."""
        return {"a": self.a, "b": self.b, "figures": {key: f.as_dict() for key, f in self.figures.items()}}


@dataclass(frozen=True)
class ProfileColumns:
    """One compatibility profile's figures of every system: {system: {key: value}} for `keys`
    (JGA and the profile's headline), and the systems ranked by the profile's JGA."""

    name: str
    keys: tuple[str, ...]
    values: dict[str, dict[str, float]]
    error: str = ""  # why the profile could not be computed (then `values` is empty)

    def ranking(self) -> list[str]:
        """The systems by this profile's JGA, best first (ties in input order)."""
        names = list(self.values)
        return sorted(names, key=lambda name: (-self.values[name].get("jga", -math.inf), names.index(name)))

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields, with the ranking."""
        return {**dataclasses.asdict(self), "keys": list(self.keys), "ranking": self.ranking()}


@dataclass(frozen=True)
class SystemsTable:
    """The result of `systems_table` (see the module docstring). Values and intervals are fractions."""

    names: tuple[str, ...]
    keys: tuple[str, ...]  # the columns
    tested: tuple[str, ...]  # the figures tested (all columns, or the primary figure alone)
    values: dict[str, dict[str, float]]  # system -> key -> value
    intervals: dict[str, dict[str, tuple[float, float]]]  # system -> key -> (low, high); {} without intervals
    tests: tuple[PairTest, ...]
    baseline: str | None  # None when every pair is tested
    options: Options
    signature: str
    dialogues: int
    turns: int
    correction: str = "holm"
    level: float = DEFAULT_LEVEL
    rounds: int = 0
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    method: str = "percentile"
    interval_level: float = 0.95
    primary: str | None = None
    profiles: tuple[ProfileColumns, ...] = ()  # with profiles: `OURS` first, then each profile's
    labels: dict[str, str] = field(default_factory=dict)
    runs: dict[str, list[dict[str, float]]] = field(default_factory=dict)  # system -> each run's {key: value}
    spread: dict[str, dict[str, float]] = field(default_factory=dict)  # system -> key -> sample sd over runs (2+ runs)

    def run_count(self, name: str) -> int:
        """How many runs `name`'s values are the mean of."""
        return len(self.runs.get(name, ())) or 1

    @property
    def has_runs(self) -> bool:
        """Whether some system has several runs."""
        return any(self.run_count(name) > 1 for name in self.names)

    @property
    def pairs(self) -> str:
        """``baseline`` or ``all``."""
        return "baseline" if self.baseline is not None else "all"

    @property
    def family_size(self) -> int:
        """The number of tests the correction ran over: pairs × figures tested."""
        return sum(len(test.figures) for test in self.tests)

    @property
    def p_floor(self) -> float:
        """The smallest adjusted p the rounds, the family and the dialogues allow."""
        return smallest_adjusted_p(self.rounds, self.family_size, self.dialogues) if self.family_size else 1.0

    @property
    def small_sample(self) -> bool:
        """Fewer than `SMALL_SAMPLE` dialogues: intervals and tests unreliable."""
        return self.dialogues < SMALL_SAMPLE

    def label(self, key: str) -> str:
        """The figure's label (``GCA``, ``Slot F1``)."""
        return self.labels.get(key, key)

    def best(self, key: str) -> list[str]:
        """The systems with the best value of `key` (higher or lower by the registry), ties included."""
        higher = figure_of(key).higher_is_better is not False
        found = [self.values[name][key] for name in self.names if not math.isnan(self.values[name][key])]
        if not found:
            return []
        target = max(found) if higher else min(found)
        return [name for name in self.names if self.values[name][key] == target]

    def test(self, a: str, b: str) -> tuple[PairTest, int] | None:
        """The test of the pair {a, b} and the sign that turns its diff into `b` - `a` (or None)."""
        for found in self.tests:
            if (found.a, found.b) == (a, b):
                return found, 1
            if (found.a, found.b) == (b, a):
                return found, -1
        return None

    def beaten(self, name: str, key: str) -> list[str]:
        """The systems `name` is significantly better than on `key` (after the table's correction)."""
        higher = figure_of(key).higher_is_better is not False
        out = []
        for other in self.names:
            found = self.test(other, name) if other != name else None
            if found is None or key not in found[0].figures:
                continue
            diff = found[0].figures[key]
            if diff.significant and (found[1] * diff.diff > 0) == higher and diff.diff != 0:
                out.append(other)
        return out

    def differs(self, name: str, key: str) -> bool:
        """Whether `name` differs significantly from the baseline on `key` (baseline pairs)."""
        found = self.test(self.baseline, name) if self.baseline is not None and name != self.baseline else None
        return bool(found and key in found[0].figures and found[0].figures[key].significant)

    def letters(self) -> dict[str, str]:
        """With every pair tested: each system's letter (a, b, ...), which marks cite."""
        return {name: _letter(index) for index, name in enumerate(self.names)}

    def marks(self, name: str, key: str) -> str:
        """The mark of a cell: ``*`` when it differs from the baseline; with every pair tested, the
        letters of the systems it is significantly better than."""
        if self.baseline is not None:
            return "*" if self.differs(name, key) else ""
        letters = self.letters()
        return "".join(letters[other] for other in self.beaten(name, key))

    def diff(self, a: str, b: str, key: str) -> float:
        """b - a on `key`."""
        return self.values[b][key] - self.values[a][key]

    def notes(self) -> list[str]:
        """What a reader must know under the table: the marks, the family, and the warnings."""
        out = [self.family_note()]
        if self.small_sample:
            out.append(
                f"only {counted(self.dialogues, 'dialogue')} (fewer than {SMALL_SAMPLE}): "
                "the intervals and the tests are unreliable"
            )
        warning = floor_warning(self.rounds, self.family_size, self.level, self.correction, self.dialogues)
        if self.family_size and warning:
            out.append(warning)
        return out

    def family_note(self) -> str:
        """What a mark means and the family it was corrected over, in one sentence."""
        figures = ", ".join(self.label(key) for key in self.tested)
        pairs = len(self.tests)
        what = (
            f"* differs from {self.baseline}"
            if self.baseline is not None
            else "letters: significantly better than the systems of those letters"
        )
        return (
            f"{what} at level {self.level:g} (paired approximate randomization over dialogues, "
            f"{self.rounds} rounds); {self.correction} over the whole table: family of m = {self.family_size} tests "
            f"({counted(pairs, 'pair')} × {counted(len(self.tested), 'figure')}: {figures}); "
            f"smallest adjusted p possible {self.p_floor:.3g}"
        )

    def interval_note(self, form: str = "in brackets the") -> str:
        """How the intervals were made, after `form` (empty without intervals)."""
        if not self.intervals:
            return ""
        return (
            f"{form} {100 * self.interval_level:g}% {self.method} bootstrap interval over dialogues "
            f"({self.resamples} resamples, seed {self.seed})"
        )

    def runs_note(self) -> str:
        """Which systems are means over runs and how they were tested (empty with one run per system)."""
        if not self.has_runs:
            return ""
        counts = ", ".join(f"{name} {self.run_count(name)}" for name in self.names)
        return (
            f"each value the mean over a system's runs ({counts}); the tests on each dialogue's tallies averaged "
            "over a system's runs"
        )

    def rankings_differ(self) -> list[str]:
        """The profiles whose JGA ranking differs from ours (the first of `profiles`, ``ours``)."""
        if not self.profiles:
            return []
        ours = self.profiles[0].ranking()
        return [p.name for p in self.profiles[1:] if p.values and p.ranking() != ours]

    def as_dict(self) -> dict[str, object]:
        """Every field, JSON-ready (``dst-metrics table --json``), with the marks and the family size."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out.update(
            names=list(self.names),
            keys=list(self.keys),
            tested=list(self.tested),
            intervals={name: {k: list(v) for k, v in found.items()} for name, found in self.intervals.items()},
            tests=[test.as_dict() for test in self.tests],
            options=options_dict(self.options),
            profiles=[p.as_dict() for p in self.profiles],
            pairs=self.pairs,
            family_size=self.family_size,
            p_floor=self.p_floor,
            small_sample=self.small_sample,
            marks={name: {key: self.marks(name, key) for key in self.keys} for name in self.names},
        )
        return out


def _letter(index: int) -> str:
    """a, b, ..., z, aa, ab, ..."""
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(ord("a") + rest) + out
    return out


# --------------------------------------------------------------------------------------------
# Building


def _check(
    names: Sequence[str],
    figures: Sequence[str],
    pairs: str,
    primary: str | None,
    correction: str,
    level: float,
    rounds: int | None,
) -> None:
    if len(names) < 2:
        raise OptionError(f"a table compares at least two systems; got {len(names)}")
    if len(set(names)) != len(names):
        raise OptionError(f"every system needs its own name; got {list(names)!r}")
    if pairs not in PAIRS:
        raise OptionError(f"pairs must be one of {', '.join(PAIRS)}; got {pairs!r}")
    check_tests(correction, level, rounds)
    if not figures:
        raise OptionError("a table needs at least one figure")
    if primary is not None and primary not in figures:
        raise OptionError(
            f"the primary figure must be one of the table's figures ({', '.join(figures)}); got {primary!r}"
        )


def _figures_of_runs(
    runs: Mapping[str, Sequence[TallyMatrix]], figures: Sequence[str], options: Options
) -> tuple[dict[str, list[dict[str, float]]], dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Each run's exact figures, each system's mean over its runs, and the sample sd over its runs (systems
    with several runs only)."""
    run_values = {
        name: [{key: exact_figures(m.total, m.layout, options)[key] for key in figures} for m in found]
        for name, found in runs.items()
    }
    values = {name: _mean_of(found, figures) for name, found in run_values.items()}
    spread = {
        name: {key: float(np.std([run[key] for run in found], ddof=1)) for key in figures}
        for name, found in run_values.items()
        if len(found) > 1
    }
    return run_values, values, spread


def _replicates_of_runs(
    runs: Mapping[str, Sequence[TallyMatrix]],
    options: Options,
    figures: Sequence[str],
    resamples: int,
    seed: int,
    method: str,
) -> tuple[dict, dict]:
    """Each system's bootstrap replicates (and, for ``bca``, jackknife values): the means over its runs' own,
    every run resampled with the same draws of dialogues."""
    flat = {(name, index): m for name, found in runs.items() for index, m in enumerate(found)}
    flat_replicates, flat_jackknife = resampled_figures(
        flat, options, figures, resamples, np.random.default_rng(seed), method
    )
    replicates = {name: _mean_arrays([flat_replicates[(name, i)] for i in range(len(runs[name]))]) for name in runs}
    jackknife = {
        name: _mean_arrays([flat_jackknife[(name, i)] for i in range(len(runs[name]))]) if method == "bca" else None
        for name in runs
    }
    return replicates, jackknife


def _table_signature(
    pairs: str,
    baseline: str | None,
    counts: list[int],
    method: str,
    resamples: int,
    seed: int,
    level: float,
    tests: str,
) -> str:
    """The table's part of the signature: its pairs, systems and runs, its intervals, then `tests`."""
    runs = f",runs:{'+'.join(map(str, counts))}" if max(counts) > 1 else ""
    paired = f"{pairs}:{baseline}" if pairs == "baseline" else pairs
    return f"|table:{paired},{len(counts)} systems{runs}|ci:{method},{resamples},seed:{seed},level:{level:g}{tests}"


def table_of_matrices(
    matrices: Mapping[str, TallyMatrix | Sequence[TallyMatrix]],
    options: Options,
    *,
    figures: Sequence[str] = DEFAULT_FIGURES,
    baseline: str | None = None,
    pairs: str = "baseline",
    primary: str | None = None,
    correction: str = "holm",
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    rounds: int | None = None,
    seed: int = DEFAULT_SEED,
    method: str = "percentile",
    interval_level: float = 0.95,
    turns: int = 0,
    signature: str = "",
) -> SystemsTable:
    """`systems_table` of the systems' tally matrices ({name: matrix}, or {name: [matrix of each run]}; one
    layout, rows the same dialogues, one order). One set of `resamples` bootstrap resamples (``default_rng(seed)``)
    gives every interval; the randomization tests of every pair share their rounds (`paired.randomization_p_pairs`,
    as `compare` draws them). A system with several runs: its values and replicates are the means of its runs',
    and its rows in the test each dialogue's tallies averaged over its runs."""
    runs = {name: [found] if isinstance(found, TallyMatrix) else list(found) for name, found in matrices.items()}
    if not all(runs.values()):
        raise OptionError("every system of a table needs at least one run")
    names, figures = list(runs), list(figures)
    _check(names, figures, pairs, primary, correction, level, rounds)
    check_settings(resamples, interval_level, method, seed)
    check_figures(figures, options)
    pair_list, baseline = _pairs_of(names, pairs, baseline)
    tested = [primary] if primary else figures
    family = len(pair_list) * len(tested)
    rounds = randomization_rounds(family, level) if rounds is None else int(rounds)
    run_values, values, spread = _figures_of_runs(runs, figures, options)
    replicates, jackknife = _replicates_of_runs(runs, options, figures, resamples, seed, method)
    bounds = {
        name: intervals_of(values[name], replicates[name], jackknife[name], method, interval_level) for name in names
    }
    averaged = {name: _averaged(found) for name, found in runs.items()}
    p_values = pair_p_values(averaged, pair_list, tested, options, rounds, seed)
    adjusted = iter(adjust([found[key] for found in p_values for key in tested], correction))
    settings = (method, interval_level, level, family)
    tests = [
        PairTest(a, b, pair_diffs((a, b), found, adjusted, values, (replicates, jackknife), settings))
        for (a, b), found in zip(pair_list, p_values)
    ]
    signed = _table_signature(pairs, baseline, [len(runs[name]) for name in names], method, resamples, seed,
                              interval_level, f"|randomization:{rounds}|{correction}:{level:g},m:{family}")  # fmt: skip
    return SystemsTable(
        names=tuple(names), keys=tuple(figures), tested=tuple(tested), values=values, intervals=bounds,
        tests=tuple(tests), baseline=baseline, options=options, signature=(signature or options.signature()) + signed,
        dialogues=len(runs[names[0]][0].dialogue_ids), turns=turns, correction=correction, level=level,
        rounds=rounds, resamples=resamples, seed=seed, method=method, interval_level=interval_level, primary=primary,
        labels={key: figure_labels(options).get(key, key) for key in figures},
        runs=run_values if spread else {}, spread=spread,
    )  # fmt: skip


def _mean_of(runs: Sequence[Mapping[str, float]], keys: Sequence[str]) -> dict[str, float]:
    """{key: mean over runs}; one run's values as they are."""
    if len(runs) == 1:
        return dict(runs[0])
    return {key: math.fsum(run[key] for run in runs) / len(runs) for key in keys}


def _mean_arrays(runs: Sequence[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """{key: elementwise mean over runs}; one run's arrays as they are."""
    if len(runs) == 1:
        return runs[0]
    return {key: np.mean([run[key] for run in runs], axis=0) for key in runs[0]}


def _averaged(runs: Sequence[TallyMatrix]) -> TallyMatrix:
    """One matrix whose rows are each dialogue's tallies averaged over the runs (one run: that run)."""
    if len(runs) == 1:
        return runs[0]
    return dataclasses.replace(runs[0], rows=np.mean([m.rows for m in runs], axis=0))


def _pairs_of(names: list[str], pairs: str, baseline: str | None) -> tuple[list[tuple[str, str]], str | None]:
    """The pairs tested, (a, b) meaning b against a, and the baseline (None with every pair)."""
    if pairs != "baseline":
        if baseline is not None:
            raise OptionError("a baseline is for pairs='baseline'; with every pair tested there is none")
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]], None
    baseline = names[0] if baseline is None else baseline
    if baseline not in names:
        raise OptionError(f"the baseline must be one of the systems ({', '.join(names)}); got {baseline!r}")
    return [(baseline, name) for name in names if name != baseline], baseline


def _same_gold(named: Sequence[tuple[str, Corpus]]) -> None:
    """InputError naming both systems (and runs) and the dialogue (and turn) where a corpus's dialogues or gold
    differ from the first's."""
    labels = _run_labels([name for name, _ in named])
    first_label, first = labels[0], named[0][1]
    for label, (_, corpus) in zip(labels[1:], named[1:]):
        try:
            check_same_gold(first, corpus)
        except InputError as error:
            problem = error.problem.replace("the first input", first_label).replace("the second input", label)
            raise InputError(
                f"{label} and {first_label} are not on one gold: {problem}", dialogue=error.dialogue, turn=error.turn
            ) from None


def _run_labels(names: Sequence[str]) -> list[str]:
    """Each corpus's label: its system's name, with ``run k`` where the system has several."""
    total = {name: names.count(name) for name in names}
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if total[name] == 1 else f"{name} (run {seen[name]} of {total[name]})")
    return out


def systems_table(
    named_corpora: Sequence[tuple[str, Corpus]],
    options: Options | None = None,
    *,
    figures: Sequence[str] = DEFAULT_FIGURES,
    baseline: str | None = None,
    pairs: str = "baseline",
    primary: str | None = None,
    correction: str = "holm",
    level: float = DEFAULT_LEVEL,
    resamples: int = DEFAULT_RESAMPLES,
    rounds: int | None = None,
    seed: int = DEFAULT_SEED,
    method: str = "percentile",
    interval_level: float = 0.95,
    profiles: Sequence[str] = (),
) -> SystemsTable:
    """The table of N systems (``[(name, corpus), ...]``, every corpus on one gold; corpora given the same
    name are runs of one system, any number each) with intervals and one correction over every test (see
    the module docstring). `profiles`: names of compatibility profiles (``"all"`` alone: every one) whose
    JGA and headline figure to add (with runs: of each system's first run)."""
    names = list(dict.fromkeys(name for name, _ in named_corpora))
    _check(names, list(figures), pairs, primary, correction, level, rounds)
    options = corpus_options(named_corpora[0][1], options)
    if options.compat:
        raise OptionError("a table scores with our definitions; ask for profiles with profiles=[...], not compat")
    for _, corpus in named_corpora[1:]:
        corpus_options(corpus, options)
    check_figures(figures, options)
    _same_gold(named_corpora)
    every = system_matrices([corpus for _, corpus in named_corpora], options)
    runs: dict[str, list[TallyMatrix]] = {name: [] for name in names}
    for (name, _), matrix in zip(named_corpora, every):
        runs[name].append(matrix)
    table = table_of_matrices(
        runs,
        options,
        figures=figures,
        baseline=baseline,
        pairs=pairs,
        primary=primary,
        correction=correction,
        level=level,
        resamples=resamples,
        rounds=rounds,
        seed=seed,
        method=method,
        interval_level=interval_level,
        turns=sum(len(d) for d in named_corpora[0][1].dialogues),
    )
    if not profiles:
        return table
    firsts = {name: found[0] for name, found in runs.items()}
    first_corpora = [next((n, c) for n, c in named_corpora if n == name) for name in names]
    return _with_profiles(table, firsts, first_corpora, options, profiles)


def _with_profiles(
    table: SystemsTable,
    matrices: dict[str, TallyMatrix],
    named_corpora: Sequence[tuple[str, Corpus]],
    options: Options,
    profiles: Sequence[str],
) -> SystemsTable:
    """`table` with each system's JGA under our definitions, then each profile's JGA and headline figure of
    every system (a profile that needs more than the corpus, such as ``sgd``'s schema, is listed with the
    reason it was left out)."""
    from ..compat import PROFILES

    ours = {name: {"jga": exact_figures(m.total, m.layout, options)["jga"]} for name, m in matrices.items()}
    found = [ProfileColumns(OURS, ("jga",), ours)]
    for name in list(PROFILES) if list(profiles) == ["all"] else profiles:
        profile = PROFILES[name]
        keys = tuple(dict.fromkeys(("jga", PROFILE_HEADLINES.get(name, "jga"))))
        if profile.cli_inputs is not None:
            found.append(ProfileColumns(name, keys, {}, f"the {name} profile needs files beyond the predictions"))
            continue
        values = {}
        for system, corpus in named_corpora:
            computed = profile.compute(corpus, options)
            values[system] = {key: float(computed[key]) for key in keys if key in computed}
        found.append(ProfileColumns(name, keys, values))
    return dataclasses.replace(table, profiles=tuple(found))


__all__ = ["DEFAULT_FIGURES", "PairTest", "ProfileColumns", "SystemsTable", "systems_table", "table_of_matrices"]
