"""The evaluate modules' intervals: ``compute(..., bootstrap=N, seed=S)`` adds ``ci``."""

from __future__ import annotations

import evaluate
import pytest

from dst_metrics import Corpus, OptionError, module_path
from dst_metrics.stats import bootstrap_intervals
from tests.samples import GOLD, PRED


@pytest.fixture(scope="module")
def modules() -> dict[str, evaluate.EvaluationModule]:
    return {name: evaluate.load(module_path(name)) for name in ("gca", "jga_fga")}


@pytest.mark.parametrize("name", ["gca", "jga_fga"])
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_compute_with_bootstrap_gives_the_libraries_intervals(modules, name, method):
    results = modules[name].compute(predictions=PRED, references=GOLD, bootstrap=200, seed=4, ci_method=method)
    expected = bootstrap_intervals(Corpus.from_dialogues(PRED, GOLD), resamples=200, seed=4, method=method)
    figures = {key for key in results if key not in ("ci", "signature") and key in expected}
    assert results["ci"] == {key: expected.as_dict()[key] for key in expected if key in figures}
    assert set(results["ci"]) == figures and figures  # every non-count figure the module returns
    assert results["signature"].endswith(f"|ci:{method},200,seed:4,level:0.95")


def test_compute_without_bootstrap_has_no_ci(modules):
    results = modules["gca"].compute(predictions=PRED, references=GOLD)
    assert "ci" not in results and "|ci:" not in results["signature"]


def test_intervals_of_the_figures_asked_for(modules):
    results = modules["jga_fga"].compute(predictions=PRED, references=GOLD, bootstrap=50, figures=["jga"])
    assert list(results["ci"]) == ["jga"]


@pytest.mark.parametrize(
    "kwargs", [{"bootstrap": -3}, {"bootstrap": 10, "seed": -1}, {"bootstrap": 10, "ci_method": "x"}]
)
def test_bad_bootstrap_arguments_raise_option_error(modules, kwargs):
    with pytest.raises(OptionError):
        modules["gca"].compute(predictions=PRED, references=GOLD, **kwargs)
