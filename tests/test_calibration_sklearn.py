"""ECE (equal-width and equal-mass bins), Brier score and AUROC of `dst_metrics.calibration.metrics`
equal scikit-learn's on random data (ECE from `calibration_curve`'s bins)."""

from __future__ import annotations

import numpy as np
import pytest

from dst_metrics.calibration.metrics import (
    auroc,
    bin_edges,
    brier_score,
    expected_calibration_error,
    reliability_bins,
)
from tests.conftest import needs

sklearn_calibration = pytest.importorskip("sklearn.calibration", reason=needs("dev", "scikit-learn"))
sklearn_metrics = pytest.importorskip("sklearn.metrics", reason=needs("dev", "scikit-learn"))

SIZES = (1000, 2345)  # (n - 1) * k / bins is never whole: no quantile edge falls on a data point
BIN_COUNTS = (1, 5, 10, 15)
SEEDS = range(5)
STRATEGIES = {"width": "uniform", "mass": "quantile"}


def _random_decisions(seed: int, size: int) -> tuple[list[bool], list[float]]:
    """Confidences skewed toward 1 and rightness drawn with a miscalibrated chance (square of it)."""
    rng = np.random.default_rng(seed)
    confidence = rng.beta(5, 2, size)
    correct = rng.random(size) < confidence**2
    return correct.tolist(), confidence.tolist()


def _sklearn_ece(correct: list[bool], confidence: list[float], bins: int, strategy: str) -> float:
    """ECE from calibration_curve's per-bin accuracy and confidence, weighted by the bins' counts
    (calibration_curve's own edges and bin assignment, restated here to count)."""
    y_true, y_prob = np.array(correct), np.array(confidence)
    prob_true, prob_pred = sklearn_calibration.calibration_curve(y_true, y_prob, n_bins=bins, strategy=strategy)
    if strategy == "quantile":
        edges = np.percentile(y_prob, np.linspace(0, 1, bins + 1) * 100)
    else:
        edges = np.linspace(0.0, 1.0, bins + 1)
    counts = np.bincount(np.searchsorted(edges[1:-1], y_prob), minlength=bins)
    counts = counts[counts != 0]
    return float(np.sum(counts / len(y_prob) * np.abs(prob_true - prob_pred)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES)
def test_brier_and_auroc_equal_sklearn(seed, size):
    correct, confidence = _random_decisions(seed, size)
    assert brier_score(correct, confidence) == pytest.approx(
        sklearn_metrics.brier_score_loss(correct, confidence), abs=1e-12
    )
    assert auroc(correct, confidence) == pytest.approx(sklearn_metrics.roc_auc_score(correct, confidence), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_auroc_with_ties_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    confidence = (rng.integers(0, 6, 500) / 5).tolist()  # six distinct values: many ties
    correct = (rng.random(500) < np.array(confidence)).tolist()
    assert auroc(correct, confidence) == pytest.approx(sklearn_metrics.roc_auc_score(correct, confidence), abs=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("bins", BIN_COUNTS)
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES)
def test_ece_equals_sklearn_calibration_curve(size, seed, bins, strategy):
    correct, confidence = _random_decisions(seed, size)
    ours = expected_calibration_error(correct, confidence, bins, strategy)
    assert ours == pytest.approx(_sklearn_ece(correct, confidence, bins, STRATEGIES[strategy]), abs=1e-12)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_reliability_bins_equal_calibration_curve(strategy):
    correct, confidence = _random_decisions(7, 1000)
    prob_true, prob_pred = sklearn_calibration.calibration_curve(
        np.array(correct), np.array(confidence), n_bins=10, strategy=STRATEGIES[strategy]
    )
    found = reliability_bins(correct, confidence, 10, strategy)
    assert [b.accuracy for b in found] == pytest.approx(prob_true.tolist(), abs=1e-12)
    assert [b.mean_confidence for b in found] == pytest.approx(prob_pred.tolist(), abs=1e-12)
    assert sum(b.count for b in found) == 1000


def test_bin_edges_equal_numpy():
    confidence = _random_decisions(3, 1000)[1]
    assert bin_edges(confidence, 10, "width") == np.linspace(0.0, 1.0, 11).tolist()  # bit for bit
    quantiles = np.percentile(confidence, np.linspace(0, 1, 11) * 100)
    assert bin_edges(confidence, 10, "mass") == pytest.approx(quantiles.tolist(), abs=1e-15)


def test_undefined_figures_are_none():
    assert auroc([True, True], [0.2, 0.9]) is None  # nothing wrong to separate from
    assert auroc([False], [0.3]) is None
    assert brier_score([], []) is None
    assert expected_calibration_error([], []) is None
