"""Bootstrap confidence intervals of every figure, resampling whole dialogues (sorted by id, so a seed
gives the same resample in any input order). A resample is a count per dialogue; B of them times the
tally matrix are B summed tallies, which `matrix.figure_arrays` turns into B values of every figure.
Intervals are percentile or BCa (Efron 1987; the acceleration from the jackknife over dialogues).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from ..corpus import Corpus
from ..options import OptionError, Options
from ..progress import progress
from ..scoring.scores import check_num_slots, corpus_options, tally_dialogues
from .matrix import Layout, TallyMatrix, exact_figures, figure_arrays

METHODS: tuple[str, ...] = ("percentile", "bca")
"""Interval methods: bootstrap percentiles, or BCa."""
DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
DEFAULT_LEVEL = 0.95
RESAMPLE_BATCH_CELLS = 1_000_000
"""Resample counts are drawn in batches of at most this many (resample, dialogue) cells (8 MB)."""


@dataclass(frozen=True)
class Intervals(Mapping):
    """Figure key -> (low, high), for every non-count figure, in registry order; also the point
    estimates (`estimates`) and how the intervals were made."""

    bounds: dict[str, tuple[float, float]]
    method: str
    resamples: int
    seed: int
    level: float
    estimates: dict[str, float] = field(default_factory=dict)

    def __getitem__(self, key: str) -> tuple[float, float]:
        return self.bounds[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.bounds)

    def __len__(self) -> int:
        return len(self.bounds)

    def as_dict(self) -> dict[str, list[float]]:
        """{key: [low, high]}, JSON-ready."""
        return {key: [low, high] for key, (low, high) in self.bounds.items()}

    @property
    def signature_suffix(self) -> str:
        """What to append to a signature: ``|ci:percentile,1000,seed:0,level:0.95``."""
        return f"|ci:{self.method},{self.resamples},seed:{self.seed},level:{self.level:g}"


def check_settings(resamples: int, level: float, method: str = "percentile", seed: int = DEFAULT_SEED) -> None:
    """OptionError unless resamples is a whole number >= 1, level in (0, 1), method known and seed a whole
    number >= 0 (checked here: numpy's own refusal of a seed is in its words, issue 56)."""
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) or resamples < 1:
        raise OptionError(f"the number of bootstrap resamples must be a whole number at least 1; got {resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise OptionError(f"seed must be a whole number at least 0; got {seed!r}")
    if not (isinstance(level, (int, float)) and 0.0 < level < 1.0):
        raise OptionError(f"the confidence level must be a number between 0 and 1, such as 0.95; got {level!r}")
    if method not in METHODS:
        raise OptionError(f"the interval method must be one of {', '.join(METHODS)}; got {method!r}")


def system_matrices(corpora: Sequence[Corpus], options: Options) -> list[TallyMatrix]:
    """Each corpus's tally matrix (rows sorted by dialogue id), all on one layout; K is checked."""
    by_system = []
    for corpus in corpora:
        total, by_dialogue = tally_dialogues(corpus, options.mode, True)
        check_num_slots(total, options)
        by_system.append(by_dialogue)
    layout = Layout.of([tally for found in by_system for tally in found.values()])
    return [TallyMatrix.of(found, layout) for found in by_system]


def dialogue_matrix(corpus: Corpus, options: Options) -> TallyMatrix:
    """The tally matrix of the corpus's dialogues (rows sorted by id); K is checked."""
    return system_matrices([corpus], options)[0]


def resample_counts(rng: np.random.Generator, dialogues: int, resamples: int) -> np.ndarray:
    """resamples x dialogues counts: each row is how often each dialogue is drawn in D draws with
    replacement (a multinomial(D, 1/D) vector), drawn as D uniform indices per row."""
    draws = rng.integers(0, dialogues, size=(resamples, dialogues))
    draws += np.arange(resamples)[:, None] * dialogues
    return np.bincount(draws.ravel(), minlength=resamples * dialogues).reshape(resamples, dialogues)


def resampled_sums(rows: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """resamples x F: the column sums of `resamples` bootstrap resamples of the D rows."""
    dialogues = len(rows)
    batch = max(1, RESAMPLE_BATCH_CELLS // max(dialogues, 1))
    parts = []
    starts = range(0, resamples, batch)
    for start in progress(starts, total=len(starts), unit="batches", desc=f"bootstrap ({batch} resamples a batch)"):
        counts = resample_counts(rng, dialogues, min(batch, resamples - start))
        parts.append(counts.astype(float) @ rows)
    return np.vstack(parts)


def resampled_figures(
    matrices: Mapping[str, TallyMatrix],
    options: Options,
    keys: Sequence[str] | None,
    resamples: int,
    rng: np.random.Generator,
    method: str,
) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, np.ndarray] | None]]:
    """Each system's `keys` (None: every figure) on one set of bootstrap resamples of the dialogues (the same resampled
    dialogues for every system, so differences are paired), and (``bca``) on the jackknife's
    leave-one-out sums. Every matrix has one layout and rows for the same dialogues."""
    layout = next(iter(matrices.values())).layout
    both = resampled_sums(np.hstack([m.rows for m in matrices.values()]), resamples, rng)
    replicates = {
        name: figure_arrays(both[:, i * layout.width : (i + 1) * layout.width], layout, options, keys)
        for i, name in enumerate(matrices)
    }
    jackknife = {  # D x F: the column sums with each dialogue left out in turn
        name: figure_arrays(m.rows.sum(axis=0)[None, :] - m.rows, layout, options, keys) if method == "bca" else None
        for name, m in matrices.items()
    }
    return replicates, jackknife


def bca_interval(estimate: float, replicates: np.ndarray, jackknife: np.ndarray, level: float) -> tuple[float, float]:
    """BCa: percentile levels moved by the bias z0 = Φ⁻¹(share of replicates below the estimate,
    ties counted half) and the acceleration a = Σ(θ̄-θᵢ)³ / (6 (Σ(θ̄-θᵢ)²)^1.5) of the jackknife
    values θᵢ; level α goes to Φ(z0 + (z0+z_α) / (1 - a(z0+z_α)))."""
    count = len(replicates)
    if np.ptp(replicates) == 0:
        return float(replicates[0]), float(replicates[0])
    below = (np.count_nonzero(replicates < estimate) + 0.5 * np.count_nonzero(replicates == estimate)) / count
    normal = NormalDist()
    bias = normal.inv_cdf(min(max(below, 0.5 / count), 1.0 - 0.5 / count))
    spread = jackknife.mean() - jackknife
    squares = float(np.sum(spread**2))
    acceleration = float(np.sum(spread**3)) / (6.0 * squares**1.5) if squares > 0 else 0.0
    tail = (1.0 - level) / 2.0
    adjusted = []
    for z in (normal.inv_cdf(tail), normal.inv_cdf(1.0 - tail)):
        shifted = bias + (bias + z) / (1.0 - acceleration * (bias + z))
        adjusted.append(normal.cdf(shifted) if np.isfinite(shifted) else 0.5)
    low, high = np.quantile(replicates, adjusted)
    return float(low), float(high)


def intervals_of(
    estimates: dict[str, float],
    replicates: dict[str, np.ndarray],
    jackknife: dict[str, np.ndarray] | None,
    method: str,
    level: float,
) -> dict[str, tuple[float, float]]:
    """{key: (low, high)} from replicates: BCa (with the jackknife values), or their (1-level)/2 and
    (1+level)/2 quantiles."""
    if method == "bca":
        return {key: bca_interval(estimates[key], values, jackknife[key], level) for key, values in replicates.items()}
    tail = (1.0 - level) / 2.0
    return {key: tuple(map(float, np.quantile(values, [tail, 1.0 - tail]))) for key, values in replicates.items()}


def bootstrap_intervals(
    corpus: Corpus,
    options: Options | None = None,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    method: str = "percentile",
    level: float = DEFAULT_LEVEL,
) -> Intervals:
    """Bootstrap intervals of every non-count figure of `corpus`, resampling whole dialogues.

    Dialogues are taken in order of id, so the result depends on the seed, not on their order.
    """
    check_settings(resamples, level, method, seed)
    options = corpus_options(corpus, options)
    matrix = dialogue_matrix(corpus, options)
    return matrix_intervals(matrix, options, resamples=resamples, seed=seed, method=method, level=level)


def matrix_intervals(
    matrix: TallyMatrix, options: Options, *, resamples: int, seed: int, method: str, level: float
) -> Intervals:
    """`bootstrap_intervals` of a tally matrix (e.g. from tallies merged elsewhere)."""
    estimates = exact_figures(matrix.total, matrix.layout, options)
    replicates, jackknife = resampled_figures(
        {"": matrix}, options, None, resamples, np.random.default_rng(seed), method
    )
    bounds = intervals_of(estimates, replicates[""], jackknife[""], method, level)
    return Intervals(bounds, method, resamples, seed, level, estimates)
