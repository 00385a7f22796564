"""JGA, FGA, SA, AGA, RSA and slot F1 as a Hugging Face `evaluate` metric: a thin adapter over the
`dst_metrics` package (inputs, Arrow rows and options live in `dst_metrics.hf_evaluate`)."""

import evaluate

from dst_metrics import citations
from dst_metrics.hf_evaluate.docs import INPUT_ARGS, returns_text
from dst_metrics.hf_evaluate.metric import DSTMetric, metric_info

_CITATION = citations.DSTC2 + citations.FGA + citations.RSA + citations.GCA

_DESCRIPTION = """\
The turn-level metrics of dialogue state tracking, computed as the code behind the GCA paper's
published figures computes them: joint goal accuracy (JGA, DSTC2), flexible goal accuracy (FGA),
slot accuracy (SA, over K slots), average goal accuracy (AGA), relative slot accuracy (RSA) and
micro slot F1. "official" mode reproduces the official implementation, quirks included;
"corrected" removes them.
"""

_KWARGS_DESCRIPTION = (
    """
Args:
"""
    + INPUT_ARGS
    + "Returns:\n"
    + returns_text("jga_fga_metrics")
    + """Examples:
    >>> from dst_metrics import module_path
    >>> metrics = evaluate.load(module_path("jga_fga"))  # or evaluate.load("./jga_fga_metrics")
    >>> gold = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}]]
    >>> pred = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "5"}}]]
    >>> results = metrics.compute(predictions=pred, references=gold)
    >>> results["jga"], round(results["fga"], 4)
    (0.5, 0.5)
"""
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class JgaFgaMetrics(DSTMetric):
    """JGA, FGA, SA, AGA, RSA and slot F1 (see the module docstring and README.md)."""

    module = "jga_fga_metrics"

    def _info(self) -> evaluate.MetricInfo:
        return metric_info(description=_DESCRIPTION, citation=_CITATION, inputs_description=_KWARGS_DESCRIPTION)
