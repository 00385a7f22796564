"""The modules' shared documentation, written from the figure registry: ``compute()``'s arguments and the
figures each module returns (in its docstring and its metric card)."""

from __future__ import annotations

import textwrap

import pyarrow as pa

from ..figures.registry import FIGURES
from ..options import Options
from ..reading import READING_SETTINGS
from .arrow import EXAMPLE_TYPES

MODULE_FAMILIES = {"gca_metric": ("gca",), "jga_fga_metrics": ("turn",), "dst_metrics_all": ("gca", "turn")}
"""The families of figures each module returns."""


def _type_text(kind: pa.DataType) -> str:
    if pa.types.is_struct(kind):
        return "{" + ", ".join(f'"{field.name}": {_type_text(field.type)}' for field in kind) + "}"
    if pa.types.is_list(kind):
        return f"[{_type_text(kind.value_type)}]"
    return "float64" if kind == pa.float64() else str(kind)


def features_text(indent: str = "    ") -> str:
    """The modules' ``features`` (`arrow.EXAMPLE_TYPES`), a line per side; ``[x]``: a list of x."""
    return "".join(f"{indent}{side}: {_type_text(kind)}\n" for side, kind in EXAMPLE_TYPES.items())


FEATURES_NOTE = """\
What evaluate stores (the module's `features`): one example per dialogue (and batch), its turn ids and
the state after each turn, a list of {slot, values} ("values": the value, or a gold slot's acceptable
values); predictions also each turn's values given with confidences ("hypotheses", empty when the
dialogue had none). add_batch() writes any input shape above in this layout (`[x]`: a list of x):
"""


def _features_block(indent: str) -> str:
    return "".join(f"{indent}{line}\n" for line in FEATURES_NOTE.splitlines()) + features_text(indent + "    ")


INPUT_ARGS = (
    """\
    predictions: predicted states, as `references`.
    references: gold states, either
        - a list of dialogues, each a list of states (turn 0, 1, ...), or
        - a list of turn records {"dialogue_id": str, "turn_id": int, "state": state}, in any order;
          the records of one batch must cover the same turns on both sides, or
        - a list of linearized states, one string per turn: `dialogue_ids` (one per string) groups them
          into dialogues, turns in the order given; without it each string is a dialogue of one turn.
        A state is nested {domain: {slot: value}}, flat {"domain-slot": value}, a list of
        (domain, slot, value) or "domain-slot-value" items, or a linearized string
        "hotel-area=north; hotel-stars=4". A gold value may be a list of acceptable values.
    mode: "official" (default) or "corrected".
    alpha: GCA's weight of the value rates against the label rates (default 10/11).
    fga_lambda: FGA's decay λ for `fga` (default 0.5), or a list of λ (the grid, first one for `fga`).
    fga_lambdas: the λ of the `fga@λ` figures (default 0.25, 0.5, 0.75, 1.0).
    num_slots: K of slot accuracy (default 30, MultiWOZ).
    value_matching: "exact" (default), "normalized" (case and white space folded) or "fuzzy" (folded,
        and a prediction matching the gold value with fuzzywuzzy's partial_ratio > 95 counts as it).
    compat: None, or a compatibility profile (fga, trade, mwzeval, convlab, fnctod) whose figures replace ours.
"""
    + "".join(
        textwrap.fill(f"{s.name}: {s.help}", 110, initial_indent="    ", subsequent_indent="        ") + "\n"
        for s in READING_SETTINGS
        if s.evaluate
    )
    + """\
    teacher_forced: True when the predictions were made from the gold previous state (joint turn accuracy is
        then taken against it; every signature ends in "prev:gold").
    figures: names of the figures to return (default: all of the module's).
    dialogue_ids, linearized: how to read the inputs (see the metric card).
Features:
"""
    + _features_block("    ")
)
"""The arguments every module documents, and the features."""


def _figure_lines(module: str, quote: str = "") -> list[str]:
    """A line per figure `module` returns, in registry order, then the signature's: its keys, what it is, its
    range and direction."""
    lines = []
    for figure in (figure for figure in FIGURES if figure.family in MODULE_FAMILIES[module]):
        kind = "an integer" if figure.is_count else "in [0, 1]"
        better = {True: ", higher is better", False: ", lower is better", None: ""}[figure.higher_is_better]
        keys = ", ".join(f"{quote}{key}{quote}" for key in figure.keys(Options()))
        lines.append(f"{keys}: {figure.description} ({kind}{better})")
    return [*lines, f"{quote}signature{quote}: every option that produced the figures"]


def returns_text(module: str, indent: str = "    ") -> str:
    """The ``Returns:`` lines of `module`'s docstring."""
    return "".join(f"{indent}{line}\n" for line in _figure_lines(module))


CARD_START = "<!-- figures: generated from dst_metrics.figures.registry; do not edit by hand -->"
CARD_END = "<!-- end of figures -->"
FEATURES_START = "<!-- features: generated from dst_metrics.hf_evaluate.arrow; do not edit by hand -->"
FEATURES_END = "<!-- end of features -->"


def card_features() -> str:
    """The metric card's block of the modules' features."""
    return f"{FEATURES_START}\n```text\n{features_text('')}```\n{FEATURES_END}"


def card_figures(module: str) -> str:
    """The metric card's list of output figures."""
    items = "".join(f"- {line}\n" for line in _figure_lines(module, "`"))
    return f"{CARD_START}\n{items}{CARD_END}"


def write_cards(root: str | None = None) -> list[str]:
    """Rewrite the figure lists of the metric cards from the registry, and their features block;
    returns the cards changed.

    Run after adding a figure (CONTRIBUTING.md, "Adding a figure or a reader"):
    ``python -c "from dst_metrics.hf_evaluate.docs import write_cards; print(write_cards())"``.
    """
    from pathlib import Path

    base = Path(root) if root else Path(__file__).resolve().parents[2]
    changed = []
    for module in MODULE_FAMILIES:
        card = base / module / "README.md"
        text = card.read_text(encoding="utf-8")
        new = text
        for first, last, block in (
            (CARD_START, CARD_END, card_figures(module)),
            (FEATURES_START, FEATURES_END, card_features()),
        ):
            start, end = new.index(first), new.index(last) + len(last)
            new = new[:start] + block + new[end:]
        if new != text:
            card.write_text(new, encoding="utf-8")
            changed.append(str(card))
    return changed
