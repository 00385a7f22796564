"""Bootstrap intervals over dialogues (dst_metrics.stats.bootstrap): the vectorised figures equal the
registry's, intervals cover a known true value about 95% of the time, and results do not depend on
dialogue order."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dst_metrics import Corpus, read
from dst_metrics.core.tally import Tally
from dst_metrics.figures.registry import FIGURES, Figure
from dst_metrics.options import OptionError, Options
from dst_metrics.stats import bootstrap_intervals
from dst_metrics.stats.bootstrap import dialogue_matrix, matrix_intervals, resample_counts
from dst_metrics.stats.matrix import TallyMatrix, exact_figures, figure_arrays, interval_figures
from tests.conftest import REFERENCE, requires_shared
from tests.samples import GOLD, PRED

T5 = REFERENCE / "t5_zeroshot" / "predictions"
T5_FILES = ("T5_result_zeroshot_rest.json", "T5_result_zeroshot_attraction.json")
ALPHA = 10 / 11


def sample_corpus() -> Corpus:
    return Corpus.from_dialogues(PRED, GOLD)


def assert_vectorised_equals_registry(matrix: TallyMatrix, options: Options, rows: np.ndarray) -> None:
    arrays = figure_arrays(rows, matrix.layout, options)
    for index, row in enumerate(rows):
        exact = exact_figures(row, matrix.layout, options)
        assert list(exact) == list(arrays)
        for key, value in exact.items():
            assert arrays[key][index] == pytest.approx(value, abs=1e-12), (key, index)


@pytest.mark.parametrize("mode", ["official", "corrected"])
def test_vectorised_figures_equal_the_registry_on_samples(mode):
    options = Options(mode=mode)
    matrix = dialogue_matrix(sample_corpus(), options)
    rows = np.vstack([matrix.rows, matrix.total, np.zeros(matrix.layout.width) + matrix.rows[0]])
    assert_vectorised_equals_registry(matrix, options, rows)


@requires_shared
@pytest.mark.parametrize("name", T5_FILES)
@pytest.mark.parametrize("mode", ["official", "corrected"])
def test_vectorised_figures_equal_the_registry_on_t5(name, mode):
    options = Options(mode=mode, alpha=0.7, fga_lambda=0.3)
    matrix = dialogue_matrix(read(T5 / name), options)
    counts = resample_counts(np.random.default_rng(3), len(matrix.rows), 20).astype(float)
    rows = np.vstack([matrix.rows, counts @ matrix.rows])
    assert_vectorised_equals_registry(matrix, options, rows)


def test_every_non_count_figure_gets_an_interval_in_registry_order():
    intervals = bootstrap_intervals(sample_corpus(), resamples=50)
    expected = [f.key for f in FIGURES if not f.is_count and not f.per_lambda]
    expected += [f"fga@{lam!r}" for lam in (0.25, 0.5, 0.75, 1.0)]
    assert sorted(intervals) == sorted(expected)
    assert "turns" not in intervals and "correct" not in intervals
    assert intervals.signature_suffix == "|ci:percentile,50,seed:0,level:0.95"
    assert intervals.as_dict()["gca"] == list(intervals["gca"])


def test_a_figure_the_matrix_does_not_know_is_computed_by_the_registry(monkeypatch):
    squared = Figure("jga_squared", "JGA²", "turn", "detail", "JGA squared", lambda t, o: (t.joint_hits / t.turns) ** 2)
    monkeypatch.setattr("dst_metrics.stats.matrix.FIGURES", [*FIGURES, squared])
    options = Options()
    matrix = dialogue_matrix(sample_corpus(), options)
    arrays = figure_arrays(matrix.rows, matrix.layout, options)
    assert np.allclose(arrays["jga_squared"], arrays["jga"] ** 2)
    assert "jga_squared" in [key for _, key, _ in interval_figures(options)]


def test_intervals_do_not_depend_on_dialogue_order():
    corpus = sample_corpus()
    reordered = Corpus(tuple(reversed(corpus.dialogues)), corpus.value_matching)
    for method in ("percentile", "bca"):
        first = bootstrap_intervals(corpus, resamples=200, seed=5, method=method)
        second = bootstrap_intervals(reordered, resamples=200, seed=5, method=method)
        assert first.bounds == second.bounds


def test_the_seed_decides_the_resamples():
    corpus = sample_corpus()
    assert bootstrap_intervals(corpus, seed=1).bounds == bootstrap_intervals(corpus, seed=1).bounds
    counts = resample_counts(np.random.default_rng(0), 7, 1000)
    assert (counts.sum(axis=1) == 7).all()  # each resample draws D dialogues
    assert counts.mean() == pytest.approx(1.0, abs=0.05)


@pytest.mark.parametrize(
    "kwargs",
    [{"resamples": 0}, {"level": 1.0}, {"level": 0}, {"method": "normal"}, {"resamples": 2.5}, {"seed": -1}],
)
def test_bad_settings_raise_option_error(kwargs):
    with pytest.raises(OptionError):
        bootstrap_intervals(sample_corpus(), **kwargs)


def test_a_bad_seed_is_refused_in_our_words_before_numpy_sees_it():
    # numpy's refusal of a negative seed is a ValueError in numpy's words (issue 56): ours comes first
    from dst_metrics.stats import compare

    corpus = sample_corpus()
    for call in (lambda: bootstrap_intervals(corpus, seed=-1), lambda: compare(corpus, corpus, seed=-1)):
        with pytest.raises(OptionError) as caught:
            call()
        assert str(caught.value) == "seed must be a whole number at least 0; got -1"


# --------------------------------------------------------------------------------------------
# Coverage on simulated corpora with a known true value

MEAN_SKILL = 0.4  # Beta(2, 3) per-dialogue skill: E = 2/5
CHANGE_SHARES = (0.25, 0.75)  # of a dialogue's mistakes on gold changes: wrong, missed
MEAN_CHANGES = 5  # 1 + Poisson(4) gold changes per dialogue
MEAN_OVERSHOT = 1.0


def true_gca() -> float:
    """GCA of the expected counts (GCA is a ratio of sums homogeneous of degree 0, so its
    population value is GCA of the means), from the harmonic-mean definition of the paper."""
    c = MEAN_CHANGES * MEAN_SKILL
    w = MEAN_CHANGES * (1 - MEAN_SKILL) * CHANGE_SHARES[0]
    m = MEAN_CHANGES * (1 - MEAN_SKILL) * CHANGE_SHARES[1]
    o = MEAN_OVERSHOT
    p, g = c + w + o, c + w + m
    vp, vr, lp, lr = c / p, c / g, (c + w) / p, (c + w) / g
    return (p + g) / (ALPHA * p / vp + ALPHA * g / vr + (1 - ALPHA) * p / lp + (1 - ALPHA) * g / lr)


def simulated_matrix(rng: np.random.Generator, dialogues: int) -> TallyMatrix:
    """Dialogues with a per-dialogue skill s ~ Beta(2, 3): JGA hits ~ Binomial(turns, s), gold changes
    correct with probability s; true JGA = E[s] = 0.4 (turns independent of s)."""
    tallies = {}
    for index in range(dialogues):
        skill = rng.beta(2, 3)
        turns = int(rng.integers(1, 11))
        changes = 1 + int(rng.poisson(MEAN_CHANGES - 1))
        c, w, m = rng.multinomial(changes, [skill, (1 - skill) * CHANGE_SHARES[0], (1 - skill) * CHANGE_SHARES[1]])
        tallies[f"d{index:05d}"] = Tally(
            turns=turns,
            joint_hits=int(rng.binomial(turns, skill)),
            correct=int(c),
            wrong=int(w),
            missed=int(m),
            overshot=int(rng.poisson(MEAN_OVERSHOT)),
        )
    return TallyMatrix.of(tallies)


REPETITIONS = 400
SIMULATED_DIALOGUES = 150


@pytest.fixture(scope="module")
def coverage() -> dict[tuple[str, str], float]:
    rng = np.random.default_rng(20240522)
    truth = {"jga": MEAN_SKILL, "gca": true_gca()}
    hits = {(method, key): 0 for method in ("percentile", "bca") for key in truth}
    options = Options()
    for repetition in range(REPETITIONS):
        matrix = simulated_matrix(rng, SIMULATED_DIALOGUES)
        for method in ("percentile", "bca"):
            intervals = matrix_intervals(matrix, options, resamples=1000, seed=repetition, method=method, level=0.95)
            for key, value in truth.items():
                low, high = intervals[key]
                hits[method, key] += low <= value <= high
    return {pair: count / REPETITIONS for pair, count in hits.items()}


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("key", ["jga", "gca"])
def test_95_percent_intervals_cover_the_true_value_about_95_percent_of_the_time(coverage, method, key):
    assert 0.93 <= coverage[method, key] <= 0.97, coverage


def test_true_gca_of_the_simulation():
    # by hand: C = 2, W = 0.75, M = 2.25, O = 1 -> P = 3.75, G = 5, L = 2.75;
    # GCA = (P+G)·C·L / ((P²+G²)(αL + (1-α)C)) = 8.75·2·2.75 / (39.0625 · (27.5+2)/11)
    assert true_gca() == pytest.approx(8.75 * 2 * 2.75 / (39.0625 * 29.5 / 11))


# --------------------------------------------------------------------------------------------
# The T5 zero-shot files


def delta_method_half_width(matrix: TallyMatrix, numerator: str) -> float:
    """1.96 · the linearised standard error of a ratio of sums over dialogues, Σy / Σturns."""
    y = matrix.rows[:, matrix.layout.scalars[numerator]]
    n = matrix.rows[:, matrix.layout.scalars["turns"]]
    ratio = y.sum() / n.sum()
    dialogues = len(y)
    variance = dialogues / (dialogues - 1) * np.sum((y - ratio * n) ** 2) / n.sum() ** 2
    return 1.96 * math.sqrt(variance)


@requires_shared
@pytest.mark.parametrize("name", T5_FILES)
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_t5_intervals_contain_the_estimate_and_match_the_delta_method(name, method):
    corpus = read(T5 / name)
    intervals = bootstrap_intervals(corpus, resamples=1000, seed=0, method=method)
    from dst_metrics import score

    scores = score(corpus).scores
    for key in ("jga", "fga", "gca", "sa", "aga", "rsa", "slot_f1"):
        low, high = intervals[key]
        assert low < scores[key] < high, key
        assert intervals.estimates[key] == pytest.approx(scores[key], abs=1e-15)
    half = delta_method_half_width(dialogue_matrix(corpus, Options()), "joint_hits")
    low, high = intervals["jga"]
    assert (high - low) / 2 == pytest.approx(half, rel=0.15)
