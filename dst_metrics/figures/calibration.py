"""The registry of the ``calibration`` family: what `metrics.calibration` reports, in this order.

Each figure has a key (``<level>_<name>``, level ``slot`` or ``joint``), a label, a description and
whether higher is better. Values are fractions, None where undefined. After them come SLT 2024's
``slt2024_ece`` and ``slt2024_auroc`` (`dst_metrics.calibration.slt2024`, `SLT2024_BINS` bins whatever
``--bins`` is), whose ``signature`` is the protocol's part of the signature. Definitions: ``docs/calibration.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

FAMILY = "calibration"
"""The family name of these figures (next to ``gca`` and ``turn`` of `dst_metrics.figures.registry`)."""


@dataclass(frozen=True)
class CalibrationFigure:
    """One figure of the calibration family."""

    key: str
    label: str
    description: str
    higher_is_better: bool
    family: str = FAMILY
    signature: str = ""
    """The part of the signature a peer's convention adds (``slt2024|bins:10``); empty for ours."""


_MEASURES: tuple[tuple[str, str, str, bool], ...] = (
    ("acc", "Acc", "DSTC2 accuracy: the share whose top hypothesis is the label (None when inactive)", True),
    ("l2", "L2", "DSTC2 L2: mean squared distance between the distribution and the one-hot label", False),
    ("mrr", "MRR", "DSTC2 mean reciprocal rank of the label, the None hypothesis counting as one", True),
    ("roc_v2_ca05", "CA05", "DSTC2 ROC v2: right-acceptance rate at a 5% false-acceptance rate", True),
    ("ece", "ECE", "expected calibration error of 'the top is right', equal-width bins", False),
    ("ece_mass", "ECE(mass)", "expected calibration error of 'the top is right', equal-mass bins", False),
    ("brier", "Brier", "Brier score of 'the top is right' against the top's confidence", False),
    ("auroc", "AUROC", "area under the ROC curve of the top's confidence separating right from wrong", True),
)
_LEVELS = (
    ("slot", "every (turn, slot) named by gold or prediction"),
    ("joint", "each turn's joint state, the product of its slots' marginals (DSTC2's independent joint)"),
)

SLT2024_BINS = 10
"""SLT 2024's ``n_bins`` (their ``run.py`` calls ``plot_distribution(..., n_bins=10)``)."""


def slt2024_signature(bins: int = SLT2024_BINS) -> str:
    """The slt2024 protocol's part of the signature: ``slt2024|bins:10``."""
    return f"slt2024|bins:{bins}"


_PAIRS = "over the predicted (slot, value) pairs that carry a confidence (calibration.slt2024)"
_SLT2024: tuple[CalibrationFigure, ...] = (
    CalibrationFigure(
        "slt2024_ece",
        "ECE (SLT 2024)",
        f"SLT 2024's ECE: {SLT2024_BINS} equal-width bins, each bin's accuracy against its centre; {_PAIRS}",
        False,
        signature=slt2024_signature(),
    ),
    CalibrationFigure(
        "slt2024_auroc",
        "AUROC (SLT 2024)",
        f"SLT 2024's AUROC (scikit-learn's roc_curve and auc) of the confidence separating right from wrong; {_PAIRS}",
        True,
        signature=slt2024_signature(),
    ),
)

CALIBRATION_FIGURES: tuple[CalibrationFigure, ...] = (
    *(
        CalibrationFigure(f"{level}_{name}", label, f"{description}; over {over}", higher)
        for level, over in _LEVELS
        for name, label, description, higher in _MEASURES
    ),
    *_SLT2024,
)
"""Every figure of the family, slot level first, in the order of `_MEASURES`; then SLT 2024's."""


def signature_parts() -> str:
    """The distinct signature parts of the registry's figures, joined by ``|`` (``slt2024|bins:10``)."""
    return "|".join(dict.fromkeys(entry.signature for entry in CALIBRATION_FIGURES if entry.signature))
