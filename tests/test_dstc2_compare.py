"""``dst-metrics dstc2-compare``: McNemar's exact test, the paired t-test, Bonferroni, and the command."""

from __future__ import annotations

import json
import random

import pytest

from dst_metrics.cli import main
from dst_metrics.stats.dstc2 import mcnemar_exact, paired_t, regularized_beta
from tests.conftest import needs
from tests.fixtures.dstc2.builders import act, track, tracker_turn, turn, write_dataset


def test_mcnemar_exact_by_hand():
    # 0 vs 5 discordant pairs: 2 * C(5,0) / 2^5 = 2/32
    assert mcnemar_exact(0, 5) == 0.0625
    # 1 vs 4: 2 * (C(5,0) + C(5,1)) / 32 = 12/32
    assert mcnemar_exact(4, 1) == 0.375
    # 3 vs 3: the doubled tail exceeds 1 -> 1
    assert mcnemar_exact(3, 3) == 1.0
    assert mcnemar_exact(0, 0) == 1.0


def test_mcnemar_matches_scipy_binomtest():
    stats = pytest.importorskip("scipy.stats", reason=needs("dev", "scipy"))
    for a_only, b_only in [(10, 25), (120, 95), (0, 1), (400, 460)]:
        expected = stats.binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue
        assert mcnemar_exact(a_only, b_only) == pytest.approx(expected, rel=1e-9)


def test_regularized_beta_by_hand():
    # I_x(1, 1) = x; I_x(2, 1) = x^2; I_0.5(a, a) = 0.5 by symmetry
    assert regularized_beta(1.0, 1.0, 0.3) == pytest.approx(0.3)
    assert regularized_beta(2.0, 1.0, 0.6) == pytest.approx(0.36)
    assert regularized_beta(7.5, 7.5, 0.5) == pytest.approx(0.5)


def test_paired_t_matches_scipy():
    stats = pytest.importorskip("scipy.stats", reason=needs("dev", "scipy"))
    rng = random.Random(3)
    for n in (2, 5, 40, 700):
        a = [rng.random() for _ in range(n)]
        b = [x + rng.gauss(0.05, 0.3) for x in a]
        t, df, p = paired_t(a, b)
        expected = stats.ttest_rel(b, a)
        assert df == n - 1
        assert t == pytest.approx(expected.statistic, rel=1e-9)
        assert p == pytest.approx(expected.pvalue, rel=1e-7, abs=1e-15)


def test_paired_t_degenerate_cases():
    assert paired_t([0.5, 0.5], [0.5, 0.5]) == (None, 1, 1.0)  # no difference at all
    assert paired_t([0.0, 0.25], [0.5, 0.75]) == (None, 1, 0.0)  # the same non-zero difference everywhere
    assert paired_t([0.1], [0.3]) == (None, 0, 1.0)  # one pair: no test


TURNS = [
    turn({"food": "chinese"}, "byconstraints", ("phone",), (), ((act("inform", ("food", "chinese")),),)),
    turn({"food": "chinese"}, "byconstraints", (), (), ((act("request", ("slot", "phone")),),)),
]


@pytest.fixture
def dataset(tmp_path):
    return write_dataset(tmp_path / "data", [(f"s{i}", TURNS) for i in range(30)])


def _write(dataset, name, tracked_turns):
    path = dataset.parent / name
    path.write_text(json.dumps(track([(f"s{i}", tracked_turns) for i in range(30)])))
    return str(path)


def _compare(dataset, a, b, *extra):
    argv = ["dstc2-compare", a, b, "--dataset", "mini", "--dataroot", str(dataset)]
    return main([*argv, "--ontology", str(dataset / "ontology.json"), *extra])


def test_compare_finds_the_better_joint_tracker(dataset, capsys):
    right = tracker_turn({"food": {"chinese": 0.9}}, {"byconstraints": 0.9}, {"phone": 0.8})
    wrong = tracker_turn({"food": {"indian": 0.9}}, {"byconstraints": 0.9}, {"phone": 0.8})
    a = _write(dataset, "a.json", [wrong, wrong])
    b = _write(dataset, "b.json", [right, right])
    assert _compare(dataset, a, b, "--json") == 0
    tests = {(t["component"], t["stat"]): t for t in json.loads(capsys.readouterr().out)["tests"]}
    joint = tests[("goal.joint", "acc")]
    # 60 joint calls (both turns mention food), A always wrong, B always right: 60 discordant pairs, all B's:
    # p = 2 / 2^60; times 6 tests
    assert (joint["a"], joint["b"], joint["detail"]["b_only"]) == (0.0, 1.0, 60)
    assert joint["p"] == pytest.approx(2 / 2**60) and joint["p_adjusted"] == pytest.approx(12 / 2**60)
    assert joint["significant"] is True
    # the same method output: no discordant pair, p = 1; identical L2: p = 1
    assert tests[("method", "acc")]["p"] == 1.0 and tests[("method", "l2")]["p"] == 1.0
    assert tests[("method", "acc")]["significant"] is False


def test_compare_table_and_errors(dataset, capsys):
    same = tracker_turn({"food": {"chinese": 0.9}})
    a = _write(dataset, "a.json", [same, same])
    assert _compare(dataset, a, a) == 0
    out = capsys.readouterr().out
    assert "Bonferroni over 6 tests" in out and "mcnemar" in out and "paired t" in out
    short = _write(dataset, "short.json", [same])
    assert _compare(dataset, a, short) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("dst-metrics: error: ") and "1 turns of 2 scored" in err[-1]
    assert _compare(dataset, a, a, "--level", "2") == 2
    assert "--level must be in (0, 1)" in capsys.readouterr().err
