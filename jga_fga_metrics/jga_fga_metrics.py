"""JGA, FGA, SA, AGA, RSA and slot F1 as a Hugging Face `evaluate` metric: a thin adapter over the
`dst_metrics` package (inputs, Arrow rows and options live in `dst_metrics.evaluate_support`)."""

import evaluate

from dst_metrics import citations
from dst_metrics.evaluate_support import INPUT_ARGS, TURN_FIGURES, DSTMetric, metric_info

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
    + """    fga_lambda: FGA's decay, one number (default 0.5; figure "fga") or several (figures "fga@λ").
    num_slots: K of slot accuracy (default 30, MultiWOZ).
    value_matching: "exact" (default) or "normalized" (case and white space ignored).
    figures: names of the figures to return (default: all of them).
    alpha: accepted (for evaluate.combine) and recorded in the signature.
    dialogue_ids, linearized: how to read the inputs (see the metric card).
Returns:
    jga, fga, sa, aga, rsa, slot_f1: fractions in [0, 1].
    signature: every option that produced the figures.
Examples:
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

    figures = TURN_FIGURES

    def _info(self) -> evaluate.MetricInfo:
        return metric_info(description=_DESCRIPTION, citation=_CITATION, inputs_description=_KWARGS_DESCRIPTION)
