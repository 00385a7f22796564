"""Exact and asymptotic p-values in O(n) (dst_metrics.stats.exact) against scipy, and their speed."""

from __future__ import annotations

import time

import pytest

from dst_metrics.stats.dstc2 import mcnemar_exact as dstc2_mcnemar_exact
from dst_metrics.stats.exact import binomial_tail, chi2_1_sf, mcnemar_exact
from tests.conftest import scipy_stats


@pytest.mark.parametrize(
    ("a_only", "b_only"),
    [(0, 1), (4, 1), (5, 15), (12, 30), (100, 60), (1000, 1100), (4000, 3000), (9646, 9644), (10000, 10400)],
)
def test_mcnemar_exact_equals_scipy_binomtest_up_to_20_000_discordant_turns(a_only, b_only):
    expected = scipy_stats.binomtest(a_only, a_only + b_only, 0.5).pvalue
    assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-12)
    assert dstc2_mcnemar_exact(a_only, b_only) == mcnemar_exact(a_only, b_only)


def test_small_tails_are_exact():
    # 1 vs 4: 2 (C(5,0) + C(5,1)) / 2^5 = 12/32; 5 vs 15: 2 · 21700 / 2^20 (C(20, 0..5) summed)
    assert mcnemar_exact(4, 1) == 0.375
    assert mcnemar_exact(5, 15) == 2 * 21700 / 2**20
    assert mcnemar_exact(0, 243) == pytest.approx(2.0**-242, rel=1e-15)


@pytest.mark.parametrize(("n", "k"), [(1, 0), (7, 3), (7, 4), (50, 10), (3000, 1400), (3000, 1700), (100_000, 49_000)])
def test_binomial_tail_equals_scipy_cdf(n, k):
    assert binomial_tail(n, k) == pytest.approx(scipy_stats.binom.cdf(k, n, 0.5), rel=1e-12)


def test_a_large_tail_in_milliseconds():
    # issue 19: the integer sum took 39 s for (10000, 10400); statsmodels 0.5 ms
    start = time.perf_counter()
    mcnemar_exact(10_000, 10_400)
    assert time.perf_counter() - start < 0.1


@pytest.mark.parametrize("statistic", [0.0, 0.5, 1.8, 3.841458820694124, 37.11, 400.0])
def test_chi2_1_sf_equals_scipy(statistic):
    assert chi2_1_sf(statistic) == pytest.approx(scipy_stats.chi2.sf(statistic, 1), rel=1e-12, abs=1e-300)
