"""Paired comparison of two systems (dst_metrics.stats.compare): a system against itself, p-values
under the null, McNemar's exact test, Holm and Bonferroni, input checks, and the T5 files against a
copy with 10% of the dialogues given the gold state."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dst_metrics import Corpus, InputError, read
from dst_metrics.core.tally import Tally
from dst_metrics.options import OptionError, Options
from dst_metrics.stats import compare
from dst_metrics.stats.matrix import Layout, TallyMatrix
from dst_metrics.stats.paired import (
    FloorWarning,
    adjust,
    clustered_mcnemar,
    compare_matrices,
    family_keys,
    floor_warning,
    mcnemar_exact,
    randomization_rounds,
    smallest_adjusted_p,
    smallest_p,
)
from tests.conftest import REFERENCE, requires_shared, scipy_stats
from tests.samples import GOLD, PRED
from tests.simulation import null_outcomes

T5 = REFERENCE / "t5_zeroshot" / "predictions"


def sample_corpus() -> Corpus:
    return Corpus.from_dialogues(PRED, GOLD)


def compare_samples(a: Corpus, b: Corpus, **settings):
    """`compare` of two systems on the samples' 2 dialogues, which warns that no difference can be
    significant at 0.05 (asserted: 2 dialogues give 4 patterns of swaps, p >= 1/2)."""
    with pytest.warns(FloorWarning, match="with 2 dialogues only 4 patterns of swaps exist"):
        return compare(a, b, **settings)


def test_a_system_compared_with_itself_differs_by_0_with_p_1():
    corpus = sample_corpus()
    result = compare_samples(corpus, corpus, resamples=200)
    for key, figure in result.figures.items():
        assert figure.diff == 0 and figure.a == figure.b, key
        assert figure.p == 1.0 and figure.p_adjusted == 1.0 and not figure.significant, key
        assert figure.ci == (0.0, 0.0), key
    assert (result.mcnemar.a_only, result.mcnemar.b_only, result.mcnemar.p) == (0, 0, 1.0)
    assert (result.mcnemar_turns.a_only, result.mcnemar_turns.b_only, result.mcnemar_turns.p) == (0, 0, 1.0)
    assert result.summary() == "no significant difference at level 0.05"
    data = result.as_dict()
    assert set(data["figures"]["jga"]) == {"a", "b", "diff", "ci", "p", "p_adjusted", "family_size", "significant"}
    assert data["family_size"] == 16 and data["figures"]["jga"]["family_size"] == 16
    assert data["mcnemar_turns"]["assumes_independent_turns"] is True
    assert data["signature"].startswith("dst-metrics:0.1.0|mode:official")
    json.dumps(data)  # JSON-ready


def gold_as_prediction() -> Corpus:
    """B: the samples' gold, an acceptable value chosen where gold lists several."""
    pred = [[{slot: value for slot, value in state.items()} for state in dialogue] for dialogue in GOLD]
    for state in pred[1][1:]:
        state["taxi-leave at"] = "17:00"
    return Corpus.from_dialogues(pred, GOLD)


def test_per_dialogue_differences_and_mcnemar_counts_by_hand():
    # A = the samples' predictions, B = gold. By hand, A is right at 3 of the 6 turns: dialogue 0
    # turn 0 (area north; turns 1-2 predict stars 5) and dialogue 1 turns 1-2 (5 pm is acceptable,
    # museum right; turn 0 overshoots taxi-dest). B is right everywhere.
    a = sample_corpus()
    b = gold_as_prediction()
    result = compare_samples(a, b, resamples=100)
    assert result.mcnemar.a_only == result.mcnemar_turns.a_only == 0
    assert result.mcnemar.b_only == result.mcnemar_turns.b_only == 6 - 3  # 6 turns, 3 of them right in A
    assert result.mcnemar_turns.p == pytest.approx(scipy_stats.binomtest(0, 3, 0.5).pvalue)
    # clustered: dialogue 0 has 2 turns only B gets right of 3, dialogue 1 has 1 of 3: d = -2/3, -1/3;
    # X² = (-1)² / (4/9 + 1/9) = 9/5, p = P(χ²₁ >= 1.8)
    assert result.mcnemar.statistic == pytest.approx(9 / 5, rel=1e-15)
    assert result.mcnemar.p == pytest.approx(scipy_stats.chi2.sf(1.8, 1), rel=1e-12)
    assert result.mcnemar.dialogues == 2
    assert [dialogue_id for dialogue_id, _ in result.dialogues] == sorted(
        ["0", "1"], key=lambda d: -abs(dict(result.dialogues)[d]["gca"][2])
    )
    for _, figures in result.dialogues:
        assert figures["jga"][1] == 1.0 and figures["jga"][2] == pytest.approx(1.0 - figures["jga"][0])
    assert result.figures["jga"].diff == pytest.approx(0.5)


@pytest.mark.parametrize(("a_only", "b_only"), [(0, 0), (3, 0), (5, 15), (12, 30), (40, 41), (100, 60)])
def test_mcnemar_exact_equals_scipy_binomtest(a_only, b_only):
    expected = 1.0 if a_only + b_only == 0 else scipy_stats.binomtest(a_only, a_only + b_only, 0.5).pvalue
    assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_worked_example():
    # 5 turns only A right, 15 only B right: p = 2 · Σ_{k<=5} C(20, k) / 2^20 = 2 · 21700 / 1048576
    # (C(20,0..5) = 1, 20, 190, 1140, 4845, 15504)
    assert mcnemar_exact(5, 15) == pytest.approx(2 * 21700 / 2**20, rel=1e-15)


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.2]
    # Holm: sorted 0.01, 0.03, 0.04, 0.2 times 4, 3, 2, 1 -> 0.04, 0.09, 0.08 -> 0.09 (monotone), 0.2
    assert adjust(p, "holm") == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert adjust(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.8])


def test_gold_must_match():
    a = sample_corpus()
    other_gold = [list(d) for d in GOLD]
    other_gold[1][2] = {"taxi-leave at": "18:00", "taxi-dest": "museum"}
    with pytest.raises(InputError, match=r'dialogue "1", turn 2: the two inputs have different gold states'):
        compare(a, Corpus.from_dialogues(PRED, other_gold))
    with pytest.raises(InputError, match=r'dialogue "1": this dialogue is missing from the second input'):
        compare(a, Corpus.from_dialogues(PRED[:1], GOLD[:1]))
    shorter = Corpus.from_dialogues([PRED[0], PRED[1][:2]], [GOLD[0], GOLD[1][:2]])
    with pytest.raises(InputError, match=r'dialogue "1": 3 turns in the first input but 2 in the second'):
        compare(a, shorter)


@pytest.mark.parametrize(
    "kwargs",
    [{"correction": "sidak"}, {"level": 0}, {"names": ("A",)}, {"figures": ["turns"]}, {"resamples": 0}],
)
def test_bad_settings_raise_option_error(kwargs):
    with pytest.raises(OptionError):
        compare(sample_corpus(), sample_corpus(), **kwargs)


def test_only_the_figures_asked_for_are_reported_and_corrected():
    a, b = sample_corpus(), gold_as_prediction()
    result = compare_samples(a, b, resamples=100, figures=["gca", "jga"])
    assert list(result.figures) == ["gca", "jga"]
    assert result.figures["jga"].p_adjusted == pytest.approx(min(1.0, 2 * min(f.p for f in result.figures.values())))


# --------------------------------------------------------------------------------------------
# Under the null


def null_pair(rng: np.random.Generator, dialogues: int) -> tuple[TallyMatrix, TallyMatrix]:
    """Two systems drawn from one process: per dialogue a shared skill, each system's hits drawn
    independently given it (paired: the dialogue's difficulty is common to both)."""
    sides = ({}, {})
    for index in range(dialogues):
        skill = rng.beta(2, 3)
        turns = int(rng.integers(1, 11))
        changes = 1 + int(rng.poisson(4))
        for side in sides:
            c, w, m = rng.multinomial(changes, [skill, (1 - skill) / 4, 3 * (1 - skill) / 4])
            hits = int(rng.binomial(turns, skill))
            side[f"d{index:04d}"] = Tally(
                turns=turns, joint_hits=hits, correct=int(c), wrong=int(w), missed=int(m), overshot=int(rng.poisson(1))
            )
    layout = Layout.of([*sides[0].values(), *sides[1].values()])
    return TallyMatrix.of(sides[0], layout), TallyMatrix.of(sides[1], layout)


@pytest.fixture(scope="module")
def null_p_values() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    p = {"jga": [], "gca": []}
    for repetition in range(400):
        # 200 dialogues: JGA's difference lives on a lattice (a swap moves it by twice a dialogue's
        # difference in hits), so with few dialogues a small odd difference gets p = 1 and the
        # p-values, though valid, are far from uniform; with 200 the lattice is fine enough.
        a, b = null_pair(rng, 200)
        result = compare_matrices(a, b, Options(), resamples=400, seed=repetition, figures=["jga", "gca"])
        for key in p:
            p[key].append(result[key].p)
    return {key: np.array(values) for key, values in p.items()}


@pytest.mark.parametrize("key", ["jga", "gca"])
def test_p_values_under_the_null_are_uniform(null_p_values, key):
    p = null_p_values[key]
    assert scipy_stats.kstest(p, "uniform").pvalue > 0.01
    assert 0.03 <= np.mean(p <= 0.05) <= 0.07


# --------------------------------------------------------------------------------------------
# T5 files against a copy with every 10th dialogue (by sorted id) given the gold state


def gold_for_every_tenth(path) -> Corpus:
    data = json.loads(path.read_text())
    for index, dialogue_id in enumerate(sorted(data)):
        if index % 10 == 0:
            for turn in data[dialogue_id].values():
                turn["pr"] = turn["gt"]
    return read(json.dumps(data))


@requires_shared
@pytest.mark.parametrize("name", ["T5_result_zeroshot_rest.json", "T5_result_zeroshot_attraction.json"])
def test_t5_against_a_copy_with_gold_for_one_dialogue_in_ten(name):
    a = read(T5 / name)
    b = gold_for_every_tenth(T5 / name)
    result = compare(a, b, resamples=1000, seed=0)
    for key in ("jga", "fga", "gca"):
        figure = result.figures[key]
        assert figure.diff > 0 and figure.ci[0] > 0 and figure.significant, key
        assert figure.p == pytest.approx(1 / (result.rounds + 1))  # no swap reaches the observed difference
    assert result.rounds == 3199 and result.family_size == 16
    assert result.mcnemar.a_only == 0 and result.mcnemar.b_only > 0  # gold is never wrong
    assert result.mcnemar_turns.p < 1e-10 and result.mcnemar.p < 1e-6
    assert "GCA: B - A = +" in result.summary()


def test_comparison_does_not_depend_on_dialogue_order():
    a, b = sample_corpus(), gold_as_prediction()
    reversed_b = Corpus(tuple(reversed(b.dialogues)), b.value_matching)
    first = compare_samples(a, b, resamples=300, seed=2).as_dict()
    second = compare_samples(a, reversed_b, resamples=300, seed=2).as_dict()
    assert first == second


def test_per_turn_joint_hits_equal_the_prefix_tallies():
    from dst_metrics.stats.positions import joint_hits, turn_tallies

    corpus = sample_corpus()
    for mode in ("official", "corrected"):
        hits = joint_hits(corpus, mode)
        for dialogue in corpus.dialogues:
            assert hits[dialogue.dialogue_id] == [t.joint_hits == 1 for t in turn_tallies(dialogue, mode)]
    assert joint_hits(corpus) == {"0": [True, False, False], "1": [False, True, True]}  # by hand, see above


# --------------------------------------------------------------------------------------------
# Under the null, turn by turn (tests/simulation.py: turns of a dialogue strongly dependent)


@pytest.fixture(scope="module")
def clustered_null() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(19)
    return null_outcomes(rng, 300, 150, resamples=200, rounds=400, figures=["jga", "gca"])


@pytest.mark.parametrize("test", ["jga", "gca", "clustered"])
def test_every_printed_p_is_below_0_05_in_about_5_percent_of_null_pairs(clustered_null, test):
    # measured (seed 19, 300 pairs of 150 dialogues): 4.7% (JGA), 4.7% (GCA), 4.3% (clustered McNemar)
    assert 0.02 <= np.mean(clustered_null[test] <= 0.05) <= 0.09


def test_turn_level_mcnemar_is_optimistic_under_the_null(clustered_null):
    # why it is never a headline: turns taken as independent, p <= 0.05 in 31% of null pairs
    assert np.mean(clustered_null["turns"] <= 0.05) > 0.2


@pytest.mark.parametrize("key", ["jga", "gca"])
def test_paired_difference_interval_covers_0_under_the_null(clustered_null, key):
    # measured: 94.0% (JGA), 95.0% (GCA) of 300 95% intervals hold the true difference 0
    assert 0.9 <= np.mean(clustered_null[f"{key}_ci"]) <= 0.98


def test_clustered_mcnemar_by_hand():
    # htestClust's example of durkalski.test: b = 51, 67, 44, 58, 47; c = 18, 26, 43, 21, 28;
    # n = a + b + c + d = 70, 98, 88, 83, 81. d_k = (b - c) / n = 33/70, 41/98, 1/88, 37/83, 19/81
    d = [33 / 70, 41 / 98, 1 / 88, 37 / 83, 19 / 81]
    expected = sum(d) ** 2 / sum(x * x for x in d)
    found = clustered_mcnemar([51, 67, 44, 58, 47], [18, 26, 43, 21, 28], [70, 98, 88, 83, 81])
    assert found.statistic == pytest.approx(expected, rel=1e-14)
    assert found.statistic == pytest.approx(3.8412, abs=5e-5)  # by hand: 1.581511² / 0.651149
    assert found.p == pytest.approx(scipy_stats.chi2.sf(expected, 1), rel=1e-12)
    assert (found.a_only, found.b_only, found.dialogues) == (267, 136, 5)
    assert clustered_mcnemar([0, 0], [0, 0], [3, 4]).p == 1.0


def test_randomization_rounds_follow_the_family_size_and_the_level():
    assert randomization_rounds(16, 0.05) == 3199  # 1 / 3200 = 0.05 / (10 · 16)
    assert randomization_rounds(16, 0.01) == 15999
    assert randomization_rounds(2, 0.05) == 399
    assert randomization_rounds(16, 1e-6) == 1_000_000  # capped; the warning then says the level is out of reach
    assert "use 159999999 rounds or more" in floor_warning(1_000_000, 16, 1e-6)
    assert smallest_adjusted_p(1000, 17) == 17 / 1001
    assert floor_warning(3199, 16, 0.05) == ""
    assert "use 15999 rounds or more" in floor_warning(1000, 16, 0.01)


def test_the_family_holds_fga_once():
    options = Options()
    keys = family_keys(options)
    assert len(keys) == 16 and "fga" in keys and "fga@0.5" not in keys and "fga@0.25" in keys
    assert "fga@0.75" not in family_keys(options.replace(fga_lambda=0.75))
    assert family_keys(options, ["jga", "fga", "fga@0.5", "jga"]) == ["jga", "fga"]
    assert family_keys(options, ["fga@0.5"]) == ["fga@0.5"]  # alone it is the figure, not a duplicate


def test_a_warning_when_the_rounds_or_the_dialogues_cannot_reach_the_level():
    # the samples hold 2 dialogues: 4 patterns of swaps, so no p below 2/4 whatever the rounds
    with pytest.warns(UserWarning, match=r"with 2 dialogues only 4 patterns of swaps exist, so the smallest p is 2/4"):
        result = compare(sample_corpus(), gold_as_prediction(), resamples=20, rounds=999, level=0.01)
    assert result.rounds == 999 and result.p_floor == 1.0  # min(1, 16 · 1/2)
    assert smallest_p(999, 2) == 0.5 and smallest_p(3199, 3) == 0.25 and smallest_p(999, 40) == 1 / 1000
    assert smallest_adjusted_p(999, 16, 40) == 16 / 1000
    assert "smallest adjusted p 0.016 > level 0.01" in floor_warning(999, 16, 0.01, "holm", 40)
