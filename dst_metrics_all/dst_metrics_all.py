"""Every figure of dst-metrics (GCA and the turn-level JGA, FGA, SA, AGA, RSA, slot F1) as one
Hugging Face `evaluate` metric: the figures of ``gca_metric`` and ``jga_fga_metrics`` in one pass,
at the cost of one module. A thin adapter over the `dst_metrics` package (inputs, Arrow rows and
options live in `dst_metrics.hf_evaluate`)."""

import evaluate

from dst_metrics import citations
from dst_metrics.hf_evaluate.docs import INPUT_ARGS, returns_text
from dst_metrics.hf_evaluate.metric import DSTMetric, metric_info

_CITATION = citations.GCA + citations.DSTC2 + citations.FGA + citations.RSA

_DESCRIPTION = """\
Every figure of dialogue state tracking that dst-metrics computes, in one pass: Granular Change
Accuracy (GCA) with its counts and rates, and the turn-level metrics joint goal accuracy (JGA),
flexible goal accuracy (FGA), slot accuracy (SA), average goal accuracy (AGA), relative slot accuracy
(RSA) and micro slot F1. The same figures as the modules gca_metric and jga_fga_metrics together, for
the cost of one. "official" mode reproduces the official implementations, quirks included;
"corrected" removes them.
"""

_KWARGS_DESCRIPTION = (
    """
Args:
"""
    + INPUT_ARGS
    + "Returns:\n"
    + returns_text("dst_metrics_all")
    + """Examples:
    >>> from dst_metrics import module_path
    >>> dst = evaluate.load(module_path("all"))  # or evaluate.load("./dst_metrics_all")
    >>> gold = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}]]
    >>> pred = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "5"}}]]
    >>> results = dst.compute(predictions=pred, references=gold)
    >>> round(results["gca"], 4), results["jga"], round(results["fga"], 4)
    (0.5238, 0.5, 0.5)
"""
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class DstMetricsAll(DSTMetric):
    """GCA and the turn-level figures in one pass (see the module docstring and README.md)."""

    module = "dst_metrics_all"

    def _info(self) -> evaluate.MetricInfo:
        return metric_info(description=_DESCRIPTION, citation=_CITATION, inputs_description=_KWARGS_DESCRIPTION)
