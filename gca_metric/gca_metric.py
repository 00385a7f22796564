"""Granular Change Accuracy (GCA) as a Hugging Face `evaluate` metric: a thin adapter over the
`dst_metrics` package (inputs, Arrow rows and options live in `dst_metrics.hf_evaluate`)."""

import evaluate

from dst_metrics import citations
from dst_metrics.hf_evaluate.docs import INPUT_ARGS, returns_text
from dst_metrics.hf_evaluate.metric import DSTMetric, metric_info

_CITATION = citations.GCA

_DESCRIPTION = """\
Granular Change Accuracy (GCA) scores dialogue state tracking by the changes of the dialogue
state: per turn, every slot whose value changed in the gold or the predicted state is counted
correct, wrong, missed or overshot; GCA is a weighted harmonic mean of the value and label
precision and recall of those counts, summed over the corpus (value to label weight 10:1).
"official" mode reproduces the official implementation, quirks included; "corrected" removes them.
"""

_KWARGS_DESCRIPTION = (
    """
Args:
"""
    + INPUT_ARGS
    + "Returns:\n"
    + returns_text("gca_metric")
    + """Examples:
    >>> from dst_metrics import module_path
    >>> gca = evaluate.load(module_path("gca"))  # or evaluate.load("./gca_metric")
    >>> gold = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}]]
    >>> pred = [[{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "5"}}]]
    >>> results = gca.compute(predictions=pred, references=gold)
    >>> round(results["gca"], 4), results["correct"], results["wrong"]
    (0.5238, 1, 1)
"""
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GcaMetric(DSTMetric):
    """GCA with its counts and rates (see the module docstring and README.md)."""

    module = "gca_metric"

    def _info(self) -> evaluate.MetricInfo:
        return metric_info(description=_DESCRIPTION, citation=_CITATION, inputs_description=_KWARGS_DESCRIPTION)
