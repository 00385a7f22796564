"""Per-dialogue tallies as one integer matrix, and every figure computed from summed rows at once.

`TallyMatrix` flattens the tallies of D dialogues into a D x F array (a column per scalar field and
per histogram key). A bootstrap resample, a count per dialogue, sums to one row ``counts @ matrix``,
and `figure_arrays` computes every figure of the registry from B such rows. Sums are float64, exact
for integers below 2**53.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.tally import Tally, add_keys, sum_fields
from ..figures.registry import FIGURES, Figure, lambda_key
from ..options import Options

SCALAR_FIELDS: tuple[str, ...] = sum_fields(Tally, operator.add)
HISTOGRAM_FIELDS: tuple[str, ...] = sum_fields(Tally, add_keys)


@dataclass(frozen=True)
class Layout:
    """Which column of a tally matrix holds which sum: scalar fields, then each histogram's keys."""

    scalars: dict[str, int]
    histograms: dict[str, tuple[np.ndarray, np.ndarray]]  # field -> (column indices, keys)
    width: int

    @classmethod
    def of(cls, tallies: Sequence[Tally]) -> Layout:
        """The layout holding every histogram key seen in `tallies`."""
        scalars = {name: index for index, name in enumerate(SCALAR_FIELDS)}
        histograms = {}
        width = len(scalars)
        for name in HISTOGRAM_FIELDS:
            keys = sorted({key for tally in tallies for key in getattr(tally, name)})
            histograms[name] = (np.arange(width, width + len(keys)), np.array(keys, dtype=float))
            width += len(keys)
        return cls(scalars, histograms, width)

    def rows(self, tallies: Sequence[Tally]) -> np.ndarray:
        """The len(tallies) x width matrix of these tallies (float64 holding integers)."""
        matrix = np.zeros((len(tallies), self.width))
        positions = {
            name: {int(key): int(column) for column, key in zip(*self.histograms[name])} for name in HISTOGRAM_FIELDS
        }
        for row, tally in enumerate(tallies):
            for name, column in self.scalars.items():
                matrix[row, column] = getattr(tally, name)
            for name in HISTOGRAM_FIELDS:
                where = positions[name]
                for key, value in getattr(tally, name).items():
                    matrix[row, where[key]] = value
        return matrix

    def tally(self, row: np.ndarray) -> Tally:
        """The Tally of one summed row (the inverse of `rows` for one row)."""
        values: dict[str, object] = {name: int(round(row[column])) for name, column in self.scalars.items()}
        for name, (columns, keys) in self.histograms.items():
            values[name] = {int(k): int(round(row[c])) for c, k in zip(columns, keys) if row[c]}
        return Tally(**values)


@dataclass(frozen=True)
class TallyMatrix:
    """D dialogues' tallies as a D x F matrix (`rows`), in the order of `dialogue_ids`."""

    dialogue_ids: tuple[str, ...]
    layout: Layout
    rows: np.ndarray

    @classmethod
    def of(cls, by_dialogue: dict[str, Tally], layout: Layout | None = None) -> TallyMatrix:
        """The matrix of {dialogue id: tally}, rows sorted by dialogue id (so that a seeded
        resample does not depend on the order the dialogues came in)."""
        ids = tuple(sorted(by_dialogue))
        tallies = [by_dialogue[i] for i in ids]
        layout = layout or Layout.of(tallies)
        return cls(ids, layout, layout.rows(tallies))

    @property
    def total(self) -> np.ndarray:
        """The corpus row: the sum over dialogues."""
        return self.rows.sum(axis=0)


# --------------------------------------------------------------------------------------------
# Figures of many summed rows at once


class _Arrays:
    """`metrics.Operations` on numpy arrays of B values (division by 0 gives the `empty` value)."""

    exp = staticmethod(np.exp)

    @staticmethod
    def ratio(numerator: np.ndarray, denominator: np.ndarray, empty: float) -> np.ndarray:
        safe = np.where(denominator == 0, 1.0, denominator)
        return np.where(denominator == 0, empty, numerator / safe)

    @staticmethod
    def keyed(c: _Columns, name: str, term: Callable) -> np.ndarray:
        columns, keys = c.layout.histograms[name]
        if not len(keys):
            return np.zeros(len(c.sums))
        return term(_Arrays, keys, c.sums[:, columns]).sum(axis=1)

    @staticmethod
    def exact(x: float) -> tuple[float, float]:
        return x, 1.0


class _Columns:
    """B summed rows as `metrics.Columns`: named views of the scalar columns, and numpy's `ops`."""

    ops = _Arrays()

    def __init__(self, sums: np.ndarray, layout: Layout) -> None:
        self.sums = sums
        self.layout = layout

    def __getattr__(self, name: str) -> np.ndarray:
        return self.sums[:, self.layout.scalars[name]]


def interval_figures(options: Options) -> list[tuple[Figure, str, Options]]:
    """(figure, output key, options to compute it with) of every non-count figure, registry order."""
    out = []
    for figure in FIGURES:
        if figure.is_count:
            continue
        if figure.per_lambda:
            for lam, at_lambda in options.per_lambda:
                out.append((figure, lambda_key(figure.key, lam), at_lambda))
        else:
            out.append((figure, figure.key, options))
    return out


def figure_arrays(
    sums: np.ndarray, layout: Layout, options: Options, keys: Collection[str] | None = None
) -> dict[str, np.ndarray]:
    """{key: array of B values} of every non-count figure (or of `keys` alone) for B summed rows (B x F)."""
    sums = np.atleast_2d(sums)
    columns = _Columns(sums, layout)
    out: dict[str, np.ndarray] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for figure, key, at in interval_figures(options):
            if keys is not None and key not in keys:
                continue
            if figure.vectorised:
                out[key] = np.asarray(figure.compute(columns, at), dtype=float)
            else:
                out[key] = np.array([float(figure.compute(layout.tally(row), at)) for row in sums])
    return out


def exact_figures(row: np.ndarray, layout: Layout, options: Options) -> dict[str, float]:
    """{key: value} of every non-count figure of one summed row, by the registry itself (exact)."""
    tally = layout.tally(row)
    return {key: float(figure.compute(tally, at)) for figure, key, at in interval_figures(options)}


__all__ = ["Layout", "TallyMatrix", "exact_figures", "figure_arrays", "interval_figures"]
