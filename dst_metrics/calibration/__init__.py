"""Calibration of predictions that carry confidences: DSTC2's figures and calibration error
(`extract` reads the confidences, `metrics.calibration` computes `figures.CALIBRATION_FIGURES`).
Conventions: ``docs/calibration.md``.
"""

from .extract import ScoredPredictions

__all__ = ["ScoredPredictions"]
