"""Paired comparison of two systems on the same gold: is B's figure really different from A's?

For every non-count figure: A, B, diff = B - A; a paired bootstrap interval of the difference
(the same resampled dialogues for both systems); a p-value from paired approximate randomization
(each dialogue's two outputs swapped with probability 1/2; p = (1 + #{|diff*| >= |diff|}) / (1 + R));
Holm's (default) or Bonferroni's correction across the figures reported. JGA also gets McNemar's
exact test on turns (as DSTC2 did): the turns only one system gets right, tested against a fair coin.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction

import numpy as np

from ..corpus import Corpus
from ..errors import InputError
from ..figures import figure_labels
from ..options import OptionError, Options
from ..scoring import check_num_slots, tally_dialogues
from .bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    RESAMPLE_BATCH_CELLS,
    check_settings,
    corpus_options,
    intervals_of,
    jackknife_sums,
    resampled_sums,
)
from .matrix import Layout, TallyMatrix, exact_figures, figure_arrays, interval_figures

CORRECTIONS: tuple[str, ...] = ("holm", "bonferroni")
DEFAULT_LEVEL = 0.05
"""Significance level of `compare` (family-wise, after the correction)."""
RANDOMIZATION_STREAM = 1
"""The randomization test draws from the seed's second stream, the bootstrap from its first."""
TIE_TOLERANCE = 1e-12
"""|diff*| >= |diff| - this counts as a tie (float noise of equal figures)."""
PER_DIALOGUE_KEYS: tuple[str, ...] = ("gca", "jga", "fga")


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

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        return {
            "a": self.a,
            "b": self.b,
            "diff": self.diff,
            "ci": list(self.ci),
            "p": self.p,
            "p_adjusted": self.p_adjusted,
            "significant": self.significant,
        }


@dataclass(frozen=True)
class McNemar:
    """McNemar's exact test on turns: turns only A gets right, only B, and the two-sided p."""

    a_only: int
    b_only: int
    p: float

    def as_dict(self) -> dict[str, object]:
        """JSON-ready fields."""
        return {"a_only": self.a_only, "b_only": self.b_only, "p": self.p}


@dataclass(frozen=True)
class Comparison:
    """The result of `compare` (see the module docstring)."""

    names: tuple[str, str]
    figures: dict[str, FigureDiff]
    mcnemar: McNemar
    dialogues: list[tuple[str, dict[str, tuple[float, float, float]]]]
    options: Options
    signature: str
    level: float
    correction: str

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
                    f"({self.correction}): {better} is higher, significant at level {self.level:g}"
                )
        return "\n".join(lines) or f"no significant difference at level {self.level:g}"

    def as_dict(self) -> dict[str, object]:
        """{"names", "figures", "mcnemar", "options", "signature", "level", "correction"}."""
        return {
            "names": list(self.names),
            "figures": {key: f.as_dict() for key, f in self.figures.items()},
            "mcnemar": self.mcnemar.as_dict(),
            "options": options_dict(self.options),
            "signature": self.signature,
            "level": self.level,
            "correction": self.correction,
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


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p: 2·P(X <= min) for X ~ Binomial(a_only + b_only, 1/2), at most 1
    (computed exactly in integers: Σ_{k <= min} C(n, k) / 2^(n-1))."""
    discordant = a_only + b_only
    if discordant == 0:
        return 1.0
    tail = sum(math.comb(discordant, k) for k in range(min(a_only, b_only) + 1))
    return min(1.0, float(Fraction(tail, 2 ** (discordant - 1))))


def randomization_p(
    diff_of: Callable[[np.ndarray, np.ndarray], dict[str, np.ndarray]],
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    rounds: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Paired approximate randomization: swap A and B in each dialogue with probability 1/2."""
    delta = rows_b - rows_a
    total_a, total_b = rows_a.sum(axis=0), rows_b.sum(axis=0)
    observed = diff_of(total_a[None, :], total_b[None, :])
    exceed = {key: 0 for key in observed}
    batch = max(1, RESAMPLE_BATCH_CELLS // max(len(rows_a), 1))
    for start in range(0, rounds, batch):
        swaps = rng.integers(0, 2, size=(min(batch, rounds - start), len(rows_a))).astype(float)
        moved = swaps @ delta
        diffs = diff_of(total_a + moved, total_b - moved)
        for key, values in diffs.items():
            exceed[key] += int(np.count_nonzero(np.abs(values) >= abs(observed[key][0]) - TIE_TOLERANCE))
    return {key: (1 + count) / (1 + rounds) for key, count in exceed.items()}


# --------------------------------------------------------------------------------------------
# compare


def _matrices(corpus_a: Corpus, corpus_b: Corpus, options: Options) -> tuple[TallyMatrix, TallyMatrix]:
    """The two systems' tally matrices on one layout, rows in the same (sorted id) order."""
    total_a, by_a = tally_dialogues(corpus_a, options.mode, True)
    total_b, by_b = tally_dialogues(corpus_b, options.mode, True)
    check_num_slots(total_a, options)
    check_num_slots(total_b, options)
    layout = Layout.of([*by_a.values(), *by_b.values()])
    return TallyMatrix.of(by_a, layout), TallyMatrix.of(by_b, layout)


def _check_settings(correction: str, level: float, names: Sequence[str]) -> None:
    if correction not in CORRECTIONS:
        raise OptionError(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}")
    if not (isinstance(level, (int, float)) and 0.0 < level < 1.0):
        raise OptionError(f"the significance level must be a number between 0 and 1, such as 0.05; got {level!r}")
    if len(names) != 2:
        raise OptionError(f"names must be two names, one per system; got {names!r}")


def _mcnemar(corpus_a: Corpus, corpus_b: Corpus, mode: str) -> McNemar:
    from .positions import joint_hits

    hits_a, hits_b = joint_hits(corpus_a, mode), joint_hits(corpus_b, mode)
    a_only = b_only = 0
    for dialogue_id, turns_a in hits_a.items():
        for hit_a, hit_b in zip(turns_a, hits_b[dialogue_id]):
            a_only += hit_a and not hit_b
            b_only += hit_b and not hit_a
    return McNemar(a_only, b_only, mcnemar_exact(a_only, b_only))


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


def compare_matrices(
    a: TallyMatrix,
    b: TallyMatrix,
    options: Options,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    correction: str = "holm",
    level: float = DEFAULT_LEVEL,
    method: str = "percentile",
    interval_level: float = 0.95,
    figures: Sequence[str] | None = None,
) -> dict[str, FigureDiff]:
    """{key: FigureDiff} of two systems' tally matrices (same layout, rows the same dialogues).

    The bootstrap draws from the seed's first stream, the randomization test from its second.
    """
    layout = a.layout
    keys = list(exact_figures(a.total, layout, options)) if figures is None else list(figures)
    estimates_a = exact_figures(a.total, layout, options)
    estimates_b = exact_figures(b.total, layout, options)
    diffs = {key: estimates_b[key] - estimates_a[key] for key in keys}

    def diff_of(sums_a: np.ndarray, sums_b: np.ndarray) -> dict[str, np.ndarray]:
        fa, fb = figure_arrays(sums_a, layout, options), figure_arrays(sums_b, layout, options)
        return {key: fb[key] - fa[key] for key in keys}

    streams = np.random.SeedSequence(seed).spawn(RANDOMIZATION_STREAM + 1)
    width = layout.width
    both = resampled_sums(np.hstack([a.rows, b.rows]), resamples, np.random.default_rng(streams[0]))
    replicates = diff_of(both[:, :width], both[:, width:])
    jackknife = diff_of(jackknife_sums(a.rows), jackknife_sums(b.rows)) if method == "bca" else None
    bounds = intervals_of(diffs, replicates, jackknife, method, interval_level)
    rng = np.random.default_rng(streams[RANDOMIZATION_STREAM])
    p_values = randomization_p(diff_of, a.rows, b.rows, resamples, rng)
    adjusted = dict(zip(p_values, adjust(list(p_values.values()), correction)))
    return {
        key: FigureDiff(
            estimates_a[key],
            estimates_b[key],
            diffs[key],
            bounds[key],
            p_values[key],
            adjusted[key],
            adjusted[key] <= level,
        )
        for key in keys
    }


def compare(
    corpus_a: Corpus,
    corpus_b: Corpus,
    options: Options | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    correction: str = "holm",
    level: float = DEFAULT_LEVEL,
    names: Sequence[str] = ("A", "B"),
    method: str = "percentile",
    interval_level: float = 0.95,
    figures: Sequence[str] | None = None,
) -> Comparison:
    """Compare system B with system A on the same gold (see the module docstring).

    `resamples` is both the number of bootstrap resamples and of randomization rounds; `figures`
    (default: every non-count figure) are the keys reported and corrected for.
    """
    check_settings(resamples, interval_level, method)
    _check_settings(correction, level, names)
    options = corpus_options(corpus_a, options)
    corpus_options(corpus_b, options)
    _check_figures(figures, options)
    check_same_gold(corpus_a, corpus_b)
    a, b = _matrices(corpus_a, corpus_b, options)
    settings = {"resamples": resamples, "seed": seed, "correction": correction, "level": level}
    diffs = compare_matrices(a, b, options, **settings, method=method, interval_level=interval_level, figures=figures)
    signature = (
        f"{options.signature()}|paired:{method},{resamples},seed:{seed},level:{interval_level:g}"
        f"|randomization:{resamples}|{correction}:{level:g}"
    )
    return Comparison(
        (str(names[0]), str(names[1])),
        diffs,
        _mcnemar(corpus_a, corpus_b, options.mode),
        _per_dialogue(a, b, options),
        options,
        signature,
        level,
        correction,
    )


def _check_figures(figures: Sequence[str] | None, options: Options) -> None:
    if figures is None:
        return
    known = [key for _, key, _ in interval_figures(options)]
    unknown = [key for key in figures if key not in known]
    if unknown or not figures:
        raise OptionError(f"figures to compare must be some of {', '.join(known)}; got {list(figures)!r}")
