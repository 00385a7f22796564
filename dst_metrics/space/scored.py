"""Scored prediction sets and the rows of figures the page shows, in the registry's order."""

from __future__ import annotations

from dataclasses import dataclass

from dst_metrics import Corpus, Options, Report, score
from dst_metrics.figures.registry import FIGURES, figure_labels, figure_of
from dst_metrics.report.draw import pct

from .inputs import PredictionSet

DIALOGUES_ROW = ("dialogues", "Dialogues", "number of dialogues scored")
"""The page's own row, beside the registry's `turns`."""


@dataclass(frozen=True)
class ScoredSet:
    """A prediction set with its report (per dialogue too)."""

    name: str
    corpus: Corpus
    layout: str
    source: str
    report: Report


def score_sets(sets: list[PredictionSet], options: Options) -> list[ScoredSet]:
    """Score every set under `options`, corpus and per dialogue."""
    return [ScoredSet(s.name, s.corpus, s.layout, s.source, score(s.corpus, options, per_dialogue=True)) for s in sets]


def calibrated(results: list[ScoredSet]) -> list[tuple[int, ScoredSet, object]]:
    """(index, set, `dst_metrics.calibration` figures) of the sets whose predictions carry confidences."""
    from dst_metrics.calibration.metrics import calibration

    return [(i, r, calibration(r.corpus)) for i, r in enumerate(results) if getattr(r.corpus, "scores", None)]


def metric_label(key: str, label: str, options: Options) -> str:
    """A figure's row label with the option it depends on ('FGA (λ=0.5)', 'SA (K=30)')."""
    if key == "fga":
        return f"{label} (λ={options.fga_lambda:g})"
    if key == "sa":
        return f"{label} (K={options.num_slots})"
    return label


@dataclass(frozen=True)
class MetricRow:
    """One row of the figure tables."""

    key: str
    label: str
    group: str
    description: str
    is_count: bool


def metric_rows(options: Options) -> list[MetricRow]:
    """Every key of every registered figure under `options`, with the page's Dialogues row before `turns`."""
    labels = figure_labels(options)
    rows = [
        MetricRow(key, metric_label(key, labels[key], options), figure.group, figure.description, figure.is_count)
        for figure in FIGURES
        for key in figure.keys(options)
    ]
    key, label, description = DIALOGUES_ROW
    at = next(i for i, row in enumerate(rows) if row.key == "turns")
    rows.insert(at, MetricRow(key, label, rows[at].group, description, True))
    return rows


def main_rows(options: Options) -> list[MetricRow]:
    """The main figures that are scores (the bar chart's and the comparison's rows)."""
    return [row for row in metric_rows(options) if row.group == "main" and not row.is_count]


def figure_text(result: ScoredSet, key: str) -> str:
    """One figure of a set as shown: percent with 2 decimals, counts as integers."""
    if key == DIALOGUES_ROW[0]:
        return str(len(result.corpus))
    value = result.report.scores[key]
    return str(value) if figure_of(key).is_count else pct(value)
