"""The GCA paper's section 5.2 analyses (TO, NU, correlations, Zou's interval) and figures by turn
position (dst_metrics.stats.analysis, dst_metrics.stats.positions)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dst_metrics import Corpus, read, score
from dst_metrics.stats import analyze, by_position, zou_interval
from dst_metrics.stats.positions import turn_tallies
from tests.conftest import REFERENCE, requires_shared, scipy_stats
from tests.samples import GOLD, PRED

T5_REST = REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json"


def zou_by_the_covariance_form(r1: float, r2: float, r3: float, n: int) -> tuple[float, float]:
    """Zou's interval written differently: the correlation of the two estimates from the
    Pearson-Filon large-sample covariance cov(r1, r2) = [r3(1 - r1² - r2²) - r1 r2 (1 - r1² - r2² - r3²)/2] / n
    over the product of their standard deviations (1 - r²)/sqrt(n); Fisher limits via scipy."""
    z = scipy_stats.norm.ppf(0.975) / np.sqrt(n - 3)
    low1, high1 = np.tanh(np.arctanh(r1) - z), np.tanh(np.arctanh(r1) + z)
    low2, high2 = np.tanh(np.arctanh(r2) - z), np.tanh(np.arctanh(r2) + z)
    covariance = (r3 * (1 - r1**2 - r2**2) - r1 * r2 * (1 - r1**2 - r2**2 - r3**2) / 2) / n
    c = covariance / ((1 - r1**2) * (1 - r2**2) / n)
    d = r1 - r2
    low = d - np.sqrt((r1 - low1) ** 2 + (high2 - r2) ** 2 - 2 * c * (r1 - low1) * (high2 - r2))
    high = d + np.sqrt((high1 - r1) ** 2 + (r2 - low2) ** 2 - 2 * c * (high1 - r1) * (r2 - low2))
    return float(low), float(high)


def test_zou_interval_worked_example():
    # Zou's (2007) overlapping-correlations example: r12 = .396, r13 = .179, r23 = .088, n = 66.
    # By hand: Fisher 95% limits (.1703, .5822) and (-.0659, .4035); the correlation of r12 and r13
    # c = ((.088 - .396·.179/2)(1 - .396² - .179² - .088²) + .088³) / ((1 - .396²)(1 - .179²)) = .0526;
    # low = .217 - sqrt(.2257² + .2245² - 2c·.2257·.2245) = -.0929,
    # high = .217 + sqrt(.1862² + .2449² - 2c·.1862·.2449) = .5167.
    interval = zou_interval(0.396, 0.179, 0.088, 66)
    assert (round(interval.low, 3), round(interval.high, 3)) == (-0.093, 0.517)
    assert (interval.low, interval.high) == pytest.approx(zou_by_the_covariance_form(0.396, 0.179, 0.088, 66))
    assert not interval.significant


@pytest.mark.parametrize(
    ("r1", "r2", "r3", "n"), [(0.59, 0.40, 0.8, 500), (0.08, -0.05, 0.6, 300), (-0.3, 0.2, 0.1, 40)]
)
def test_zou_interval_equals_the_covariance_form(r1, r2, r3, n):
    interval = zou_interval(r1, r2, r3, n)
    assert (interval.low, interval.high) == pytest.approx(zou_by_the_covariance_form(r1, r2, r3, n), abs=1e-12)
    assert interval.low < r1 - r2 < interval.high


def test_zou_interval_needs_four_pairs():
    interval = zou_interval(0.5, 0.2, 0.1, 3)
    assert math.isnan(interval.low) and math.isnan(interval.high)


def tail_heavy_dialogue() -> Corpus:
    """4 turns; by hand the mistakes per turn are m = [0, 0, 1, 3]: turn 2 misses c; turn 3 gets d
    wrong and misses e and f (c, unchanged in gold, is not counted again)."""
    gold = [
        {"h-a": "1"},
        {"h-a": "1", "h-b": "2"},
        {"h-a": "1", "h-b": "2", "h-c": "3"},
        {"h-a": "1", "h-b": "2", "h-c": "3", "h-d": "4", "h-e": "5", "h-f": "6"},
    ]
    pred = [{"h-a": "1"}, {"h-a": "1", "h-b": "2"}, {"h-a": "1", "h-b": "2"}, {"h-a": "1", "h-b": "2", "h-d": "9"}]
    return Corpus.from_dialogues([pred, [{"h-a": "1"}]], [gold, [{"h-a": "1"}]], dialogue_ids=["tail", "perfect"])


def test_to_and_nu_of_a_hand_example():
    # E_t = (2·1 + 3·3) / 4 = 2.75, TO = (2.75 - 1.5) / 4 = 0.3125;
    # E_m = 4 / 4 = 1, NU = (1 + 1 + 0 + 2) / 1 = 4. The perfect dialogue has no TO or NU.
    analysis = analyze(tail_heavy_dialogue())
    rows = {row.dialogue_id: row for row in analysis.dialogues}
    assert rows["tail"].to == pytest.approx(0.3125)
    assert rows["tail"].nu == pytest.approx(4.0)
    assert math.isnan(rows["perfect"].to) and math.isnan(rows["perfect"].nu)
    assert rows["perfect"].gca == 1.0  # one change, correct
    as_dict = analysis.as_dict()["dialogues"]  # by id: "perfect", "tail"; NaN written as None
    assert [d["dialogue_id"] for d in as_dict] == ["perfect", "tail"]
    assert as_dict[0]["to"] is None and as_dict[1]["nu"] == pytest.approx(4.0)


@requires_shared
def test_t5_correlations_equal_scipy_and_zou_uses_them():
    corpus = read(T5_REST)
    analysis = analyze(corpus)
    per_dialogue = score(corpus, per_dialogue=True).dialogues
    kept = [d for d in analysis.dialogues if not math.isnan(d.nu)]
    assert len(kept) == 407  # 30 of the 437 dialogues have no mistake
    for d in kept[:20]:
        assert d.gca == per_dialogue[d.dialogue_id]["gca"] and d.fga == per_dialogue[d.dialogue_id]["fga"]
    for measure in ("to", "nu"):
        xs = [getattr(d, measure) for d in kept]
        for name in ("gca", "fga"):
            expected = scipy_stats.pearsonr([getattr(d, name) for d in kept], xs).statistic
            assert analysis.correlations[f"{name}~{measure}"] == pytest.approx(expected, abs=1e-12)
        zou = analysis.zou[measure]
        r3 = scipy_stats.pearsonr([d.fga for d in kept], [d.gca for d in kept]).statistic
        expected_interval = zou_by_the_covariance_form(zou.r1, zou.r2, r3, len(kept))
        assert (zou.low, zou.high) == pytest.approx(expected_interval, abs=1e-12)
    # as in the paper (TRADE, SOM-DST: NU 0.59 / 0.40), FGA follows NU more than GCA, significantly
    assert analysis.correlations["fga~nu"] > analysis.correlations["gca~nu"]
    assert analysis.zou["nu"].low > 0


# --------------------------------------------------------------------------------------------
# By turn position


def test_by_position_of_the_samples_by_hand():
    # dialogue 0: turn 0 right, turn 1 wrong (stars 5) -> first fails at 1;
    # dialogue 1: turn 0 overshoots taxi-dest -> first fails at 0; turns 1 and 2 are right.
    profile = by_position(Corpus.from_dialogues(PRED, GOLD))
    assert [row.first_failures for row in profile.rows] == [1, 1, 0]
    assert [row.turns for row in profile.rows] == [2, 2, 2]
    assert [row.jga for row in profile.rows] == [0.5, 0.5, 0.5]
    assert profile.never_failed == 0
    assert profile.as_dict()["rows"][0]["position"] == 0


def test_turn_tallies_add_up_to_the_dialogue_tally():
    corpus = Corpus.from_dialogues(PRED, GOLD)
    for mode in ("official", "corrected"):
        for dialogue in corpus.dialogues:
            tallies = turn_tallies(dialogue, mode)
            total = tallies[0]
            for tally in tallies[1:]:
                total = total + tally
            assert total == score(Corpus((dialogue,)), mode=mode).tally
            assert all(t.turns == 1 for t in tallies)


@requires_shared
def test_t5_by_position_adds_up_to_the_corpus():
    corpus = read(T5_REST)
    profile = by_position(corpus)
    scores = score(corpus).scores
    assert sum(row.turns for row in profile.rows) == scores["turns"] == 3359
    assert sum(row.jga * row.turns for row in profile.rows) / 3359 == pytest.approx(scores["jga"])
    assert sum(row.rsa * row.turns for row in profile.rows) / 3359 == pytest.approx(scores["rsa"])
    for kind in ("correct", "wrong", "missed", "overshot"):
        assert sum(getattr(row, kind) for row in profile.rows) == scores[kind]
    assert sum(row.first_failures for row in profile.rows) + profile.never_failed == 437
    assert profile.rows[0].turns == 437
