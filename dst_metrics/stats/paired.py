"""Paired comparison of two systems on the same gold: is B's figure really different from A's?

For every figure: A, B, diff = B - A, a paired bootstrap interval of the difference, a p-value from
paired approximate randomization (each dialogue's two outputs swapped with probability 1/2), with
enough rounds for the family size and level, and Holm's (default) or Bonferroni's correction across
the family. JGA also gets McNemar's test clustered by dialogue (Durkalski et al. 2003) and, for
DSTC2-style reports only, McNemar's exact test on turns taken as independent (it never decides).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields

import numpy as np

from ..corpus import Corpus
from ..errors import InputError, counted
from ..figures.registry import figure_labels, lambda_key
from ..options import OptionError, Options
from .bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    RESAMPLE_BATCH_CELLS,
    check_settings,
    corpus_options,
    intervals_of,
    resampled_figures,
    system_matrices,
)
from .exact import chi2_1_sf, mcnemar_exact
from .matrix import TallyMatrix, exact_figures, figure_arrays, interval_figures
from .positions import joint_hits

CORRECTIONS: tuple[str, ...] = ("holm", "bonferroni")
DEFAULT_LEVEL = 0.05
"""Significance level of `compare` (family-wise, after the correction)."""
RANDOMIZATION_STREAM = 1
"""The randomization test draws from the seed's second stream, the bootstrap from its first."""
TIE_TOLERANCE = 1e-12
"""|diff*| >= |diff| - this counts as a tie (float noise of equal figures)."""
PER_DIALOGUE_KEYS: tuple[str, ...] = ("gca", "jga", "fga")
RESOLUTION = 10
"""Randomization rounds R are chosen so that the smallest p, 1/(R+1), is at most level / (RESOLUTION · m):
a tenth of the smallest threshold Holm or Bonferroni compares a raw p with."""
FLOAT32_EXACT = 2.0**24
"""Whole numbers below this are exact in float32: products of swaps and tallies bounded by it are
computed in float32 (twice as fast, the same values)."""
MAX_AUTO_ROUNDS = 1_000_000
"""The most rounds chosen unasked (16 figures at level 0.00016); `rounds=` may ask for more."""


@dataclass(frozen=True)
class FigureDiff:
    """One figure of the comparison: A, B, diff = B - A, its interval, p and corrected p."""

    a: float
    b: float
    diff: float
    ci: tuple[float, float]
    p: float
    p_adjusted: float
    significant: bool
    family_size: int = 1  # the number of figures p was adjusted over

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        return {**asdict(self), "ci": list(self.ci)}


@dataclass(frozen=True)
class McNemar:
    """McNemar's exact test on turns taken as independent: turns only A gets right, only B, and the
    two-sided p. Optimistic (the turns of a dialogue are not independent): reported for comparison
    with DSTC2-style work, never used to decide significance."""

    a_only: int
    b_only: int
    p: float

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields (``assumes_independent_turns``: true)."""
        return {"a_only": self.a_only, "b_only": self.b_only, "p": self.p, "assumes_independent_turns": True}


@dataclass(frozen=True)
class ClusteredMcNemar:
    """McNemar's test of JGA on turns, clustered by dialogue (Durkalski et al. 2003): with b_k, c_k the
    turns of dialogue k only A, only B gets right and n_k its turns, d_k = (b_k - c_k) / n_k and
    X² = (Σ d_k)² / Σ d_k², against a chi-square with one degree of freedom (p = 1 when no turn differs)."""

    a_only: int
    b_only: int
    dialogues: int  # dialogues with a turn only one system gets right
    statistic: float
    p: float

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields (``test``: ``clustered-durkalski``)."""
        return {"test": "clustered-durkalski", **asdict(self)}


@dataclass(frozen=True)
class Comparison:
    """The result of `compare` (see the module docstring)."""

    names: tuple[str, str]
    figures: dict[str, FigureDiff]
    mcnemar: ClusteredMcNemar
    dialogues: list[tuple[str, dict[str, tuple[float, float, float]]]]
    options: Options
    signature: str
    level: float
    correction: str
    rounds: int = 0  # randomization rounds
    mcnemar_turns: McNemar | None = None  # turns taken as independent (optimistic; never decides)
    interval_level: float = 0.95  # the confidence of the intervals of B - A

    @property
    def family_size(self) -> int:
        """The number of figures the p-values are adjusted over."""
        return len(self.figures)

    @property
    def p_floor(self) -> float:
        """The smallest adjusted p the rounds and the dialogues allow: min(1, m · max(1/(rounds + 1), 2/2^D))."""
        return smallest_adjusted_p(self.rounds, self.family_size, len(self.dialogues))

    def summary(self) -> str:
        """One line per significant difference, or 'no significant difference at level L'."""
        labels = figure_labels(self.options)
        a_name, b_name = self.names
        lines = []
        for key, f in self.figures.items():
            if f.significant:
                better = b_name if f.diff > 0 else a_name
                lines.append(
                    f"{labels.get(key, key)}: {b_name} - {a_name} = {100 * f.diff:+.2f} points "
                    f"[{100 * f.ci[0]:+.2f}, {100 * f.ci[1]:+.2f}], p_adjusted = {f.p_adjusted:.4g} "
                    f"({self.correction} over {self.family_size} figures): {better} is higher, "
                    f"significant at level {self.level:g}"
                )
        return "\n".join(lines) or f"no significant difference at level {self.level:g}"

    def verdict(self) -> str:
        """One sentence: the figures that differ significantly, grouped by the system that is higher on them
        (A and B as named), or that none does; the table of figures holds the numbers."""
        labels = figure_labels(self.options)
        where = f"at level {self.level:g} ({self.correction} over {self.family_size} figures)"
        higher: dict[str, list[str]] = {self.names[1]: [], self.names[0]: []}
        for key, f in self.figures.items():
            if f.significant:
                higher[self.names[1] if f.diff > 0 else self.names[0]].append(labels.get(key, key))
        parts = [f"{name} higher on {', '.join(keys)}" for name, keys in higher.items() if keys]
        return f"significant {where}: " + "; ".join(parts) if parts else f"no significant difference {where}"

    def as_dict(self) -> dict[str, object]:
        """{"names", "figures", "mcnemar", "mcnemar_turns", "options", "signature", "level", "correction",
        "family_size", "rounds", "p_floor"}."""
        return {
            "names": list(self.names),
            "figures": {key: f.as_dict() for key, f in self.figures.items()},
            "mcnemar": self.mcnemar.as_dict(),
            "mcnemar_turns": None if self.mcnemar_turns is None else self.mcnemar_turns.as_dict(),
            "options": options_dict(self.options),
            "signature": self.signature,
            "level": self.level,
            "correction": self.correction,
            "family_size": self.family_size,
            "rounds": self.rounds,
            "p_floor": self.p_floor,
        }


def options_dict(options: Options) -> dict[str, object]:
    """The options' fields, JSON-ready (tuples as lists)."""
    out = {}
    for f in fields(options):
        value = getattr(options, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


# --------------------------------------------------------------------------------------------
# Checks


def check_same_gold(corpus_a: Corpus, corpus_b: Corpus) -> None:
    """InputError naming the first dialogue or turn where the two corpora differ in turns or gold."""
    by_id_b = {d.dialogue_id: d for d in corpus_b.dialogues}
    ids_a = {d.dialogue_id for d in corpus_a.dialogues}
    for dialogue_id in sorted(ids_a ^ by_id_b.keys()):
        side = "the second input" if dialogue_id in ids_a else "the first input"
        raise InputError(
            f"this dialogue is missing from {side}: both must cover the same dialogues", dialogue=dialogue_id
        )
    for dialogue_a in sorted(corpus_a.dialogues, key=lambda d: d.dialogue_id):
        dialogue_b = by_id_b[dialogue_a.dialogue_id]
        for turn_a, turn_b, gold_a, gold_b in zip(
            dialogue_a.turn_ids, dialogue_b.turn_ids, dialogue_a.gold, dialogue_b.gold
        ):
            if turn_a != turn_b:
                problem = f"turn {turn_a} in the first input is turn {turn_b} in the second: both need the same turns"
                raise InputError(problem, dialogue=dialogue_a.dialogue_id)
            if gold_a != gold_b:
                raise InputError(
                    "the two inputs have different gold states", dialogue=dialogue_a.dialogue_id, turn=turn_a
                )
        if len(dialogue_a) != len(dialogue_b):
            problem = f"{len(dialogue_a)} turns in the first input but {len(dialogue_b)} in the second"
            raise InputError(problem, dialogue=dialogue_a.dialogue_id)


# --------------------------------------------------------------------------------------------
# Tests


def adjust(p_values: Sequence[float], correction: str = "holm") -> list[float]:
    """Family-wise corrected p-values: Holm's step-down (default) or Bonferroni's."""
    count = len(p_values)
    if correction == "bonferroni":
        return [min(1.0, count * p) for p in p_values]
    adjusted = [0.0] * count
    running = 0.0
    for rank, index in enumerate(sorted(range(count), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (count - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def clustered_mcnemar(a_only: Sequence[int], b_only: Sequence[int], turns: Sequence[int]) -> ClusteredMcNemar:
    """Durkalski et al.'s (2003) clustered McNemar test from each dialogue's turns only A gets right,
    only B, and its turns (see `ClusteredMcNemar`)."""
    diffs = [(b - c) / n for b, c, n in zip(a_only, b_only, turns) if n and b != c]
    squares = math.fsum(d * d for d in diffs)
    statistic = math.fsum(diffs) ** 2 / squares if squares else 0.0
    found = sum(1 for b, c in zip(a_only, b_only) if b or c)
    return ClusteredMcNemar(sum(a_only), sum(b_only), found, statistic, chi2_1_sf(statistic) if squares else 1.0)


def randomization_rounds(family_size: int, level: float) -> int:
    """The rounds R whose smallest p, 1/(R+1), is at most level / (RESOLUTION · family_size):
    R = ceil(RESOLUTION · m / level) - 1 (3,199 for 16 figures at 0.05, 15,999 at 0.01), at most
    `MAX_AUTO_ROUNDS` (`floor_warning` says when that cannot reach the level)."""
    return min(MAX_AUTO_ROUNDS, _rounds_for(family_size, level))


def _rounds_for(family_size: int, level: float) -> int:
    return max(1, math.ceil(RESOLUTION * family_size / level * (1 - 1e-12)) - 1)


def smallest_p(rounds: int, dialogues: int | None = None) -> float:
    """The smallest p the randomization test gives: 1/(rounds + 1) from its rounds and, with D
    `dialogues`, 2/2^D: only 2^D patterns of swaps exist and the observed one and its mirror always
    count, so the exact test's p is at least 2/2^D (1/4 with 3 dialogues, whatever the rounds)."""
    floor = 1.0 / (rounds + 1)
    if dialogues is not None:
        floor = max(floor, math.ldexp(1.0, 1 - dialogues) if dialogues > 0 else 1.0)
    return min(1.0, floor)


def smallest_adjusted_p(rounds: int, family_size: int, dialogues: int | None = None) -> float:
    """The smallest p Holm or Bonferroni can give over `family_size` tests: min(1, m · `smallest_p`)."""
    return min(1.0, family_size * smallest_p(rounds, dialogues))


class FloorWarning(UserWarning):
    """`compare` warns with this when no adjusted p can reach the level (`floor_warning`)."""


def floor_warning(
    rounds: int, family_size: int, level: float, correction: str = "holm", dialogues: int | None = None
) -> str:
    """One line when no adjusted p can reach `level`; empty otherwise."""
    floor = smallest_adjusted_p(rounds, family_size, dialogues)
    if floor <= level:
        return ""
    if smallest_p(rounds, dialogues) > 1.0 / (rounds + 1):  # the dialogues, not the rounds, set the floor
        return (
            f"with {counted(dialogues, 'dialogue')} only {2**dialogues} patterns of swaps exist, "
            f"so the smallest p is "
            f"2/{2**dialogues}, and {correction} over {family_size} tests makes the smallest adjusted p {floor:.3g} > "
            f"level {level:g}: no difference can be significant, whatever the rounds (more dialogues are needed)"
        )
    needed = _rounds_for(family_size, level)
    return (
        f"with {rounds} randomization rounds the smallest p is 1/{rounds + 1}, and {correction} over "
        f"{family_size} figures makes the smallest adjusted p {floor:.3g} > level {level:g}: no difference "
        f"can be significant (use {needed} rounds or more)"
    )


def randomization_p_pairs(
    diff_of: Callable[[np.ndarray, np.ndarray], dict[str, np.ndarray]],
    rows: Sequence[np.ndarray],
    pairs: Sequence[tuple[int, int]],
    rounds: int,
    rng: np.random.Generator,
) -> list[dict[str, float]]:
    """Paired approximate randomization of several pairs (i, j) of systems (`rows[i]`, `rows[j]`: the
    same dialogues; each dialogue's two outputs swapped with probability 1/2), each round's swaps drawn
    once for every pair: a swap moves ``swaps @ (rows[j] - rows[i])`` from
    one system to the other, computed as the difference of ``swaps @ rows[k]`` for each system k
    (N products a round for N systems, not one per pair). Only the dialogues and columns where some
    pair differs enter the products (the others move nothing), in float32 where that is exact. Each
    pair's p is the test of that pair alone; the pairs' tests share their rounds (a correction such
    as Holm's holds whatever their dependence)."""
    totals = [r.sum(axis=0) for r in rows]
    observed = [diff_of(totals[i][None, :], totals[j][None, :]) for i, j in pairs]
    exceed = [dict.fromkeys(found, 0) for found in observed]
    dialogues = len(rows[0])
    differ = np.zeros(rows[0].shape, dtype=bool)
    for i, j in pairs:
        differ |= rows[i] != rows[j]
    active_rows, active_columns = np.flatnonzero(differ.any(axis=1)), np.flatnonzero(differ.any(axis=0))
    used = sorted({k for pair in pairs for k in pair})
    part = {k: rows[k][np.ix_(active_rows, active_columns)] for k in used}
    if len(pairs) == 1:
        part = {pairs[0]: part[pairs[0][1]] - part[pairs[0][0]]}
    # a partial sum of a product of whole numbers is a whole number at most Σ|values|: below 2**24, exact in float32
    small = all(
        float(np.abs(values).sum(axis=0).max(initial=0.0)) < FLOAT32_EXACT and np.array_equal(values, np.round(values))
        for values in part.values()
    )  # whole numbers only: rows averaged over runs (the table's) are not
    dtype = np.float32 if small else np.float64
    part = {k: values.astype(dtype) for k, values in part.items()}
    batch = max(1, RESAMPLE_BATCH_CELLS // max(dialogues, 1))
    for start in range(0, rounds, batch):
        swaps = rng.integers(0, 2, size=(min(batch, rounds - start), dialogues)).astype(dtype)[:, active_rows]
        products = {k: swaps @ values for k, values in part.items()}
        for index, (i, j) in enumerate(pairs):
            moved = np.zeros((len(swaps), len(totals[i])))
            moved[:, active_columns] = products[(i, j)] if len(pairs) == 1 else products[j] - products[i]
            diffs = diff_of(totals[i] + moved, totals[j] - moved)
            for key, values in diffs.items():
                limit = abs(observed[index][key][0]) - TIE_TOLERANCE
                exceed[index][key] += int(np.count_nonzero(np.abs(values) >= limit))
    return [{key: (1 + count) / (1 + rounds) for key, count in found.items()} for found in exceed]


def pair_p_values(
    matrices: Mapping[str, TallyMatrix],
    pairs: Sequence[tuple[str, str]],
    keys: Sequence[str],
    options: Options,
    rounds: int,
    seed: int,
) -> list[dict[str, float]]:
    """Each pair's (a, b) randomization p of each of `keys`, the pairs sharing their rounds (drawn
    from the seed's `RANDOMIZATION_STREAM`)."""
    names = list(matrices)
    layout = matrices[names[0]].layout

    def diff_of(sums_a: np.ndarray, sums_b: np.ndarray) -> dict[str, np.ndarray]:
        fa, fb = figure_arrays(sums_a, layout, options, keys), figure_arrays(sums_b, layout, options, keys)
        return {key: fb[key] - fa[key] for key in keys}

    stream = np.random.SeedSequence(seed).spawn(RANDOMIZATION_STREAM + 1)[RANDOMIZATION_STREAM]
    index = {name: position for position, name in enumerate(names)}
    rows = [matrices[name].rows for name in names]
    pairs_at = [(index[a], index[b]) for a, b in pairs]
    return randomization_p_pairs(diff_of, rows, pairs_at, rounds, np.random.default_rng(stream))


def pair_diffs(
    pair: tuple[str, str],
    p_values: dict[str, float],
    adjusted: Iterator[float],
    values: Mapping[str, Mapping[str, float]],
    resampled: tuple[Mapping[str, dict[str, np.ndarray]], Mapping[str, dict[str, np.ndarray] | None]],
    settings: tuple[str, float, float, int],
) -> dict[str, FigureDiff]:
    """B against A (`pair`) on each tested figure (the keys of `p_values`): the difference, its paired
    interval from the `resampled` figures (`resampled_figures`), p and the next adjusted p of the one
    correction; `settings`: (method, interval level, level, family size)."""
    (a, b), (replicates, jackknife), (method, interval_level, level, family) = pair, resampled, settings
    tested = list(p_values)
    diffs = {key: values[b][key] - values[a][key] for key in tested}
    differences = {key: replicates[b][key] - replicates[a][key] for key in tested}
    jack = {key: jackknife[b][key] - jackknife[a][key] for key in tested} if method == "bca" else None
    ci = intervals_of(diffs, differences, jack, method, interval_level)
    out = {}
    for key in tested:
        p_adjusted = next(adjusted)
        out[key] = FigureDiff(
            values[a][key], values[b][key], diffs[key], ci[key], p_values[key], p_adjusted, p_adjusted <= level, family
        )
    return out


# --------------------------------------------------------------------------------------------
# compare


def check_tests(correction: str, level: float, rounds: int | None = None) -> None:
    """OptionError unless the correction is known, the significance level in (0, 1) and `rounds`
    (None: chosen from the family) a whole number at least 1."""
    if correction not in CORRECTIONS:
        raise OptionError(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}")
    if not (isinstance(level, (int, float)) and 0.0 < level < 1.0):
        raise OptionError(f"the significance level must be a number between 0 and 1, such as 0.05; got {level!r}")
    if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1):
        raise OptionError(f"the number of randomization rounds must be a whole number at least 1; got {rounds!r}")


def check_figures(figures: Sequence[str] | None, options: Options) -> None:
    """OptionError unless `figures` (None: every one) are some of the non-count figures' keys."""
    if figures is None:
        return
    known = [key for _, key, _ in interval_figures(options)]
    unknown = [key for key in figures if key not in known]
    if unknown or not figures:
        raise OptionError(f"figures must be some of {', '.join(known)}; got {', '.join(unknown) or 'none'}")


def discordant_turns(corpus_a: Corpus, corpus_b: Corpus, mode: str) -> tuple[list[int], list[int], list[int]]:
    """Per dialogue (sorted by id): the turns only A gets right (JGA), only B, and its turns. Turns
    are scored only in dialogues whose two predictions differ (equal ones have no discordant turn)."""
    by_id_b = {d.dialogue_id: d for d in corpus_b.dialogues}
    pairs = sorted(((d, by_id_b[d.dialogue_id]) for d in corpus_a.dialogues), key=lambda pair: pair[0].dialogue_id)
    differ = [(x, y) for x, y in pairs if x.pred != y.pred]
    hits_a = joint_hits(Corpus(tuple(x for x, _ in differ), corpus_a.value_matching), mode)
    hits_b = joint_hits(Corpus(tuple(y for _, y in differ), corpus_b.value_matching), mode)
    a_only, b_only, turns = [], [], []
    for dialogue_a, _ in pairs:
        dialogue_id = dialogue_a.dialogue_id
        turns_a, turns_b = hits_a.get(dialogue_id, ()), hits_b.get(dialogue_id, ())
        a_only.append(sum(1 for x, y in zip(turns_a, turns_b) if x and not y))
        b_only.append(sum(1 for x, y in zip(turns_a, turns_b) if y and not x))
        turns.append(len(dialogue_a))
    return a_only, b_only, turns


def mcnemar_tests(
    a_only: Sequence[int], b_only: Sequence[int], turns: Sequence[int]
) -> tuple[ClusteredMcNemar, McNemar]:
    """The clustered test (the headline) and the test of turns taken as independent."""
    total_a, total_b = sum(a_only), sum(b_only)
    return clustered_mcnemar(a_only, b_only, turns), McNemar(total_a, total_b, mcnemar_exact(total_a, total_b))


def _per_dialogue(a: TallyMatrix, b: TallyMatrix, options: Options) -> list[tuple[str, dict]]:
    values_a = figure_arrays(a.rows, a.layout, options)
    values_b = figure_arrays(b.rows, b.layout, options)
    rows = []
    for index, dialogue_id in enumerate(a.dialogue_ids):
        figures = {}
        for key in PER_DIALOGUE_KEYS:
            x, y = float(values_a[key][index]), float(values_b[key][index])
            figures[key] = (x, y, y - x)
        rows.append((dialogue_id, figures))
    rows.sort(key=lambda row: (-abs(row[1]["gca"][2]), row[0]))
    return rows


def family_keys(options: Options, figures: Sequence[str] | None = None) -> list[str]:
    """The family tested and corrected for: `figures` (default every non-count figure registered as
    `compared`: the 16 of the GCA paper's family), each once: ``fga@λ`` at the λ of ``fga`` is the same
    figure as ``fga`` and is left out."""
    default = [key for figure, key, _ in interval_figures(options) if figure.compared]
    keys = default if figures is None else list(figures)
    alias = lambda_key("fga", options.fga_lambda)
    out: list[str] = []
    for key in keys:
        if key not in out and not (key == alias and ("fga" in keys)):
            out.append(key)
    return out


def compare_matrices(
    a: TallyMatrix,
    b: TallyMatrix,
    options: Options,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    rounds: int | None = None,
    seed: int = DEFAULT_SEED,
    correction: str = "holm",
    level: float = DEFAULT_LEVEL,
    method: str = "percentile",
    interval_level: float = 0.95,
    figures: Sequence[str] | None = None,
) -> dict[str, FigureDiff]:
    """{key: FigureDiff} of two systems' tally matrices (same layout, rows the same dialogues), over
    `family_keys(options, figures)`; `rounds` randomization rounds (None: `randomization_rounds`).

    The bootstrap draws from the seed's first stream, the randomization test from its second.
    """
    keys = family_keys(options, figures)
    rounds = randomization_rounds(len(keys), level) if rounds is None else rounds
    matrices = {"a": a, "b": b}
    values = {name: exact_figures(m.total, m.layout, options) for name, m in matrices.items()}
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(RANDOMIZATION_STREAM + 1)[0])
    resampled = resampled_figures(matrices, options, keys, resamples, rng, method)
    p_values = pair_p_values(matrices, [("a", "b")], keys, options, rounds, seed)[0]
    adjusted = iter(adjust(list(p_values.values()), correction))
    return pair_diffs(("a", "b"), p_values, adjusted, values, resampled, (method, interval_level, level, len(keys)))


def compare(
    corpus_a: Corpus,
    corpus_b: Corpus,
    options: Options | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    rounds: int | None = None,
    seed: int = DEFAULT_SEED,
    correction: str = "holm",
    level: float = DEFAULT_LEVEL,
    names: Sequence[str] = ("A", "B"),
    method: str = "percentile",
    interval_level: float | None = None,
    figures: Sequence[str] | None = None,
) -> Comparison:
    """Compare system B with system A on the same gold (see the module docstring).

    `resamples` bootstrap resamples give the intervals, at confidence `interval_level` (None: ``1 - level``,
    so that an interval excludes 0 where a test at `level` would reject); `rounds` randomization rounds the p-values
    (None: `randomization_rounds` of the family size and `level`; a `FloorWarning`, a UserWarning, of one line when
    the rounds given cannot reach `level`). `figures` (default: every non-count figure) are the keys
    reported and corrected for, each once (`family_keys`).
    """
    check_tests(correction, level, rounds)
    if len(names) != 2:
        raise OptionError(f"names must be two names, one per system; got {names!r}")
    interval_level = 1.0 - level if interval_level is None else interval_level
    check_settings(resamples, interval_level, method, seed)
    options = corpus_options(corpus_a, options)
    corpus_options(corpus_b, options)
    check_figures(figures, options)
    check_same_gold(corpus_a, corpus_b)
    family = family_keys(options, figures)
    rounds = randomization_rounds(len(family), level) if rounds is None else int(rounds)
    warning = floor_warning(rounds, len(family), level, correction, len(corpus_a.dialogues))
    if warning:
        warnings.warn(warning, FloorWarning, stacklevel=2)
    a, b = system_matrices([corpus_a, corpus_b], options)
    settings = {"resamples": resamples, "rounds": rounds, "seed": seed, "correction": correction, "level": level}
    diffs = compare_matrices(a, b, options, **settings, method=method, interval_level=interval_level, figures=family)
    signature = (
        f"{options.signature()}|paired:{method},{resamples},seed:{seed},level:{interval_level:g}"
        f"|randomization:{rounds}|{correction}:{level:g},m:{len(family)}"
    )
    clustered, turns = mcnemar_tests(*discordant_turns(corpus_a, corpus_b, options.mode))
    return Comparison(
        (str(names[0]), str(names[1])),
        diffs,
        clustered,
        _per_dialogue(a, b, options),
        options,
        signature,
        level,
        correction,
        rounds,
        turns,
        interval_level,
    )
