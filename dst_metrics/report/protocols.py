"""The protocols' figures in the report (`protocols.extras.Extras` of each system): a table per family
(CheckDST, SGD-X, calibration) from the registries, a column per system, and the family's signature; as an
HTML section and as LaTeX / Markdown tables. Rates in percent, the rest as fractions with four decimals.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..protocols.extras import Extras, figure_entries
from .draw import data_attributes, esc, num, pct, table
from .tables import booktabs, latex_escape, markdown_escape, markdown_grid

TITLES = {"checkdst": "CheckDST", "sgdx": "SGD-X", "calibration": "Calibration"}
NamedExtras = Sequence[tuple[str, Extras]]


@dataclass(frozen=True)
class Row:
    """One figure of a family's table."""

    key: str
    label: str
    description: str
    percent: bool


def _values(extras: Extras, family: str) -> dict:
    if family == "calibration":
        return extras.calibration or {}
    return {key: value for key, value in extras.figures.items() if key.startswith(family + ".")}


def family_rows(named: NamedExtras, family: str) -> list[Row]:
    """The figures of `family` from its registry, in its order; SGD-X's labelled for the first system's variants."""
    if family == "calibration":
        from ..figures.calibration import CALIBRATION_FIGURES

        level = lambda key: key.split("_", 1)[0] + " " if key.startswith(("slot_", "joint_")) else ""  # noqa: E731
        return [Row(f.key, level(f.key) + f.label, f.description, f.higher_is_better) for f in CALIBRATION_FIGURES]
    variants = next((extras.variants for _, extras in named if extras.variants), None)
    entries = figure_entries(variants).values()
    return [Row(e.key, e.label, e.description, e.percent) for e in entries if e.family == family]


def families(named: NamedExtras) -> list[str]:
    """The families some system has, in `TITLES`' order."""
    return [family for family in TITLES if any(_values(extras, family) for _, extras in named)]


def _shown(row: Row, value: float | None) -> str:
    return pct(value) if row.percent else num(value, 4)


def _part(named: NamedExtras, family: str) -> str:
    """The family's signature part (the first system's that has the family)."""
    return next((extras.families[family] for _, extras in named if family in extras.families), "")


def _counts(named: NamedExtras, family: str) -> str:
    """What each system's figures were computed over: ``name: checkdst.pairs 5162``."""
    found = []
    for name, extras in named:
        values = _values(extras, family)
        keys = [key for key in values if key.endswith((".pairs", ".frames"))] if family != "calibration" else []
        keys += ["slots", "turns"] if family == "calibration" and values else []
        if keys:
            found.append(f"{name}: " + ", ".join(f"{key} {values[key]}" for key in keys))
    return "; ".join(found)


def _cell(name: str, row: Row, values: dict) -> str:
    value = values.get(row.key)
    data = {"system": name, "figure": row.key, "value": repr(value)}
    return f"<td{data_attributes(data)}>{_shown(row, value)}</td>"


def protocols_section(named: NamedExtras, signature: str) -> str:
    """The HTML section: per family what it was computed over, the table and its signature (the report's,
    without the intervals' part, with the family's); empty when no system has any."""
    signature = re.sub(r"\|ci:[^|]*", "", signature)
    found = families(named)
    if not found:
        return ""
    parts = ['<section id="protocols"><h2>Protocols</h2>']
    for family in found:
        rows = family_rows(named, family)
        values = [(name, _values(extras, family)) for name, extras in named]
        head = "<th>figure</th>" + "".join(f"<th>{esc(name)}</th>" for name, _ in named) + "<th>what</th>"
        body = (
            f'<tr data-figure="{esc(row.key)}"><th scope="row">{esc(row.label)}</th>'
            + "".join(_cell(name, row, found_values) for name, found_values in values)
            + f'<td class="what">{esc(row.description)}</td></tr>\n'
            for row in rows
        )
        parts.append(
            f"<h3>{esc(TITLES[family])}</h3>"
            f'<p class="note">Rates in percent, the rest as fractions; — undefined. {esc(_counts(named, family))}</p>'
            + table(head, body, f' id="protocol-{family}"')
            + f'<p class="note">Signature: <code data-family="{family}">{esc(f"{signature}|{_part(named, family)}")}'
            "</code></p>"
        )
    return "".join(parts) + "</section>"


def _grid(named: NamedExtras, family: str, escape) -> tuple[list[str], list[list[str]]]:
    """A paper's table: a row per system, a column per figure some system has."""
    rows = [
        row
        for row in family_rows(named, family)
        if any(_values(extras, family).get(row.key) is not None for _, extras in named)
    ]
    header = ["System", *(escape(row.label) for row in rows)]
    body = [
        [escape(name), *(_shown(row, _values(extras, family).get(row.key)) for row in rows)] for name, extras in named
    ]
    return header, body


def protocols_latex(named: NamedExtras, signature: str) -> str:
    """One booktabs table per family, its signature in the caption; empty when no system has any."""
    out = []
    for family in families(named):
        header, body = _grid(named, family, latex_escape)
        caption = latex_escape(f"{TITLES[family]}. Rates in percent, the rest as fractions. Signature: ")
        caption += rf"\texttt{{{latex_escape(f'{signature}|{_part(named, family)}')}}}"
        out.append(booktabs(header, body, caption))
    return "".join(out)


def protocols_markdown(named: NamedExtras, signature: str) -> str:
    """One Markdown table per family, each under its heading and above its signature line."""
    out = []
    for family in families(named):
        header, body = _grid(named, family, markdown_escape)
        lines = [f"**{TITLES[family]}**", "", *markdown_grid(header, body), ""]
        lines.append(f"Rates in percent, the rest as fractions. Signature: `{signature}|{_part(named, family)}`")
        out.append("\n" + "\n".join(lines) + "\n")
    return "".join(out)
