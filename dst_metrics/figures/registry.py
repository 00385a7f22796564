"""The registry of figures: what every output lists, in this order.

Scores, the command line, the `evaluate` modules, the Space and the metric cards read `FIGURES`; a
new figure is one entry (or one `register` call). Keys: ``gca``, ``jga``, ``fga``, one ``fga@λ`` per
λ of `Options.fga_lambdas`, counts such as ``correct``, and ``turns``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from ..core.tally import Tally
from ..options import Options
from . import metrics

FAMILIES: dict[str, str] = {
    "gca": "Granular Change Accuracy, its four counts and four rates (module gca_metric)",
    "turn": "turn-level figures: JGA, FGA, SA, AGA, RSA, slot P/R/F1, joint turn accuracy, final-turn JGA"
    " (module jga_fga_metrics)",
}
"""Families of the figures computed from a `Tally` (this module's `FIGURES`); each `evaluate` module
returns the figures of one family."""
GROUPS: dict[str, str] = {
    "main": "the headline figures (the command line's table, the Space's chart)",
    "counts": "counts of changed slots",
    "detail": "rates and variants behind the headline figures",
}
"""How tables group figures."""


class Figure(msgspec.Struct, frozen=True):
    """One registered figure. `uses`: the options that change it besides ``mode`` and ``value_matching``.
    `vectorised`: `compute` also takes a `metrics.Columns` of B summed tallies (for the bootstrap).
    `grid`, for a per-λ figure: its values at every λ of `Options.fga_lambdas` at once."""

    key: str
    label: str
    family: str
    group: str
    description: str
    compute: Callable[[Any, Options], Any]  # of a Tally; of a metrics.Columns too when `vectorised`
    higher_is_better: bool | None = True  # None: neither (a count of turns)
    is_count: bool = False  # an integer count, not a fraction in [0, 1]
    per_dialogue: bool = False  # listed per dialogue by `dst-metrics score --per-dialogue`
    per_lambda: bool = False  # one figure per λ of Options.fga_lambdas, keys "<key>@<λ>"
    uses: tuple[str, ...] = ()  # Options fields, besides mode and value_matching, that change it
    vectorised: bool = False  # `compute` also computes B summed tallies at once (metrics.Columns)
    grid: Callable[[Tally, Options], tuple[float, ...]] | None = None  # per_lambda: all λ at once, as compute
    compared: bool = True  # in a comparison's default family; False: asked by name, so a new figure never moves old p

    def keys(self, options: Options) -> list[str]:
        """The output keys of this figure under `options`."""
        if self.per_lambda:
            return [lambda_key(self.key, lam) for lam in options.fga_lambdas]
        return [self.key]

    def values(self, tally: Tally, options: Options) -> dict[str, float | int]:
        """{key: value} of this figure under `options`."""
        if self.per_lambda and self.grid is not None:
            return dict(zip(self.keys(options), self.grid(tally, options)))
        if self.per_lambda:
            return {lambda_key(self.key, lam): self.compute(tally, at_lambda) for lam, at_lambda in options.per_lambda}
        return {self.key: self.compute(tally, options)}

    def signature(self, options: Options) -> str:
        """The signature naming only the options that change this figure (a per-λ figure: `options` at that λ)."""
        return options.signature(self.uses)


def lambda_key(key: str, lam: float) -> str:
    """The key of a per-λ figure: ``fga@0.25``, ``fga@1.0``."""
    return f"{key}@{float(lam)!r}"


def _formula(key: str, label: str, family: str, group: str, description: str, compute: Callable, **kw: Any) -> Figure:
    """A built-in figure: `compute` is a formula of `metrics.py`, written over `metrics.Columns`."""
    return Figure(key, label, family, group, description, compute, vectorised=True, **kw)


def _rate(key: str, label: str, description: str, index: int) -> Figure:
    """One of GCA's four rates (VP, VR, LP, LR: `metrics.gca_rates`)."""
    return _formula(key, label, "gca", "detail", description, lambda t, o: metrics.gca_rates(t, o.mode)[index])


def _slot_prf(key: str, label: str, group: str, description: str, index: int) -> Figure:
    """Slot precision, recall or F1 (`metrics.slot_prf`)."""
    return _formula(key, label, "turn", group, description, lambda t, o: metrics.slot_prf(t)[index])


def _count(name: str) -> Callable[[Tally, Options], int]:
    return lambda t, o: getattr(t, name)


def _count_figure(name: str, label: str, description: str, higher_is_better: bool) -> Figure:
    return Figure(name, label, "gca", "counts", description, _count(name), higher_is_better, is_count=True)


_FGA = "flexible goal accuracy: JGA forgiving errors carried over from earlier turns"
FIGURES: list[Figure] = [
    _formula(
        "gca",
        "GCA",
        "gca",
        "main",
        "Granular Change Accuracy: each change of the state judged once",
        lambda t, o: metrics.gca(t, o.alpha, o.mode),
        per_dialogue=True,
        uses=("alpha",),
    ),
    _formula(
        "jga",
        "JGA",
        "turn",
        "main",
        "joint goal accuracy: share of turns whose whole state is right",
        lambda t, o: metrics.jga(t),
        per_dialogue=True,
    ),
    _formula("fga", "FGA", "turn", "main", _FGA, lambda t, o: metrics.fga(t, o.fga_lambda), uses=("fga_lambda",)),
    _formula(
        "sa",
        "SA",
        "turn",
        "main",
        "slot accuracy over K slots per turn",
        lambda t, o: metrics.slot_accuracy(t, o.num_slots),
        uses=("num_slots",),
    ),
    _formula(
        "aga",
        "AGA",
        "turn",
        "main",
        "average goal accuracy: recall of the gold state, turns with a gold state",
        lambda t, o: metrics.aga(t, o.mode),
    ),
    _formula(
        "rsa",
        "RSA",
        "turn",
        "main",
        "relative slot accuracy: over the slots of the turn",
        lambda t, o: metrics.rsa(t, o.mode),
    ),
    _slot_prf("slot_f1", "Slot F1", "main", "F1 of predicted against gold (slot, value) pairs over turns", 2),
    _count_figure("correct", "Correct (C)", "changed slots whose predicted value is the gold value", True),
    _count_figure("wrong", "Wrong (W)", "changed slots both sides have, with different values", False),
    _count_figure("missed", "Missed (M)", "changed gold slots the prediction does not have", False),
    _count_figure("overshot", "Overshot (O)", "changed predicted slots gold does not have", False),
    _rate("value_precision", "GCA value precision", "VP = C / (C+W+O)", 0),
    _rate("value_recall", "GCA value recall", "VR = C / (C+W+M)", 1),
    _rate("label_precision", "GCA label precision", "LP = (C+W) / (C+W+O)", 2),
    _rate("label_recall", "GCA label recall", "LR = (C+W) / (C+W+M)", 3),
    _formula(
        "fga",
        "FGA λ=",
        "turn",
        "detail",
        "FGA at each λ of the grid (the official code reports 0.25, 0.5, 0.75, 1)",
        lambda t, o: metrics.fga(t, o.fga_lambda),
        per_dialogue=True,
        per_lambda=True,
        uses=("fga_lambda",),
        grid=lambda t, o: metrics.fga_grid(t, o.fga_lambdas),
    ),
    _slot_prf("slot_precision", "Slot precision", "detail", "precision of predicted (slot, value) pairs", 0),
    _slot_prf("slot_recall", "Slot recall", "detail", "recall of gold (slot, value) pairs", 1),
    _formula(
        "joint_turn_accuracy",
        "JTA",
        "turn",
        "detail",
        "joint turn accuracy (DST-STAR): share of turns whose predicted changes are gold's turn label",
        lambda t, o: metrics.joint_turn_accuracy(t, o.teacher_forced),
        uses=("teacher_forced",),
        compared=False,
    ),
    _formula(
        "final_jga",
        "Final JGA",
        "turn",
        "detail",
        "final-turn JGA (DST-STAR): share of dialogues whose last turn's state is right",
        lambda t, o: metrics.final_jga(t),
        compared=False,
    ),
    Figure("turns", "Turns", "turn", "detail", "number of turns scored", lambda t, o: t.turns, None, is_count=True),
]
"""Every figure, in output order. Extend it with `register`."""


def register(figure: Figure) -> Figure:
    """Add a figure to the registry, after the others; its key must be new and `uses` name `Options` fields."""
    if figure.family not in FAMILIES or figure.group not in GROUPS:
        raise ValueError(f"unknown family {figure.family!r} or group {figure.group!r}")
    unknown = set(figure.uses) - {field.name for field in dataclasses.fields(Options)}
    if unknown:
        raise ValueError(f"uses names no option: {sorted(unknown)}")
    if any(f.key == figure.key and f.per_lambda == figure.per_lambda for f in FIGURES):
        raise ValueError(f"a figure with key {figure.key!r} is registered already")
    FIGURES.append(figure)
    return figure


def figure_keys(options: Options | None = None, families: Iterable[str] | None = None) -> list[str]:
    """The output keys of every figure (of `families`, default all) under `options`."""
    options = options or Options()
    wanted = FAMILIES if families is None else set(families)
    return [key for figure in FIGURES if figure.family in wanted for key in figure.keys(options)]


def figure_labels(options: Options | None = None) -> dict[str, str]:
    """{output key: label}; a per-λ figure's label names its λ (``FGA λ=0.25``)."""
    options = options or Options()
    labels = {}
    for figure in FIGURES:
        for key in figure.keys(options):
            labels[key] = figure.label + key.split("@", 1)[1] if figure.per_lambda else figure.label
    return labels


def figure_of(key: str) -> Figure:
    """The registered figure an output key belongs to (``fga@0.25`` -> the per-λ FGA entry)."""
    base, at, _ = key.partition("@")
    for figure in FIGURES:
        if figure.key == base and figure.per_lambda == bool(at):
            return figure
    raise KeyError(key)


def compute_figures(
    tally: Tally, options: Options, families: Iterable[str] | None = None, *, per_dialogue: bool = False
) -> dict[str, float | int]:
    """{key: value} of every figure (of `families`; with `per_dialogue`, the per-dialogue ones)."""
    return figure_computer(options, families, per_dialogue=per_dialogue)(tally)


def figure_computer(
    options: Options, families: Iterable[str] | None = None, *, per_dialogue: bool = False
) -> Callable[[Tally], dict[str, float | int]]:
    """`compute_figures` as a function of the tally alone, the registry read once."""
    wanted = FAMILIES if families is None else set(families)
    steps: list[tuple[Any, Callable[[Tally, Options], Any], Options, bool]] = []  # (key(s), function, at, grid)
    for figure in FIGURES:
        if figure.family in wanted and (figure.per_dialogue or not per_dialogue):
            if figure.per_lambda and figure.grid is not None:
                steps.append((tuple(figure.keys(options)), figure.grid, options, True))
            elif figure.per_lambda:
                steps += [(lambda_key(figure.key, lam), figure.compute, at, False) for lam, at in options.per_lambda]
            else:
                steps.append((figure.key, figure.compute, options, False))

    def compute(tally: Tally) -> dict[str, float | int]:
        out: dict[str, float | int] = {}
        for key, value, at, grid in steps:
            if grid:
                out.update(zip(key, value(tally, at)))
            else:
                out[key] = value(tally, at)
        return out

    return compute


class DialogueFigures:
    """The figures ``--per-dialogue`` lists, as a picklable function of one dialogue's tally."""

    __slots__ = ("_compute", "options")

    def __init__(self, options: Options) -> None:
        self.options = options
        self._compute = figure_computer(options, per_dialogue=True)

    def __call__(self, tally: Tally) -> dict[str, float | int]:
        return self._compute(tally)

    def __reduce__(self) -> tuple:
        return DialogueFigures, (self.options,)
