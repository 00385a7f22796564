"""Calibration of predictions that carry confidences: DSTC2's figures and calibration error.

`extract` splits confidence-bearing predictions into plain predictions and scored hypotheses
(`ScoredPredictions`, kept on `Corpus.scores`); `metrics.calibration(corpus)` computes the figures of
`figures.CALIBRATION_FIGURES` (accuracy, L2, MRR, ROC v2 CA05 per slot and joint, from the DSTC2
scorer's items, `dst_metrics.dstc2.items`; ECE, Brier score and AUROC of "the slot is right");
`dst_metrics.report.draw.reliability_svg` draws the reliability diagram. Conventions: ``docs/calibration.md``.
"""

from .extract import ScoredPredictions

__all__ = ["ScoredPredictions"]
