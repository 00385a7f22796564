"""Calibration of predictions that carry confidences: DSTC2's figures and calibration error
(`dst_metrics.confidences` reads the confidences, `metrics.calibration` computes `figures.CALIBRATION_FIGURES`).
Conventions: ``docs/calibration.md``.
"""

from ..confidences import ScoredPredictions

__all__ = ["ScoredPredictions"]
