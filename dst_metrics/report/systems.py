r"""The table of N systems (`stats.table.SystemsTable`) as Markdown, LaTeX (booktabs) and HTML, with the
pairwise matrix of one figure and each system's JGA under every compatibility profile. A cell is the value
in percent (a system with runs: their mean), its mark (``*``: differs from the baseline; with every pair
tested, the letters of the systems it beats) and, with `intervals`, its bootstrap interval or the sd over
runs. The LaTeX table fits one column of a two-column article (``wide``: ``table*``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..stats.table import SystemsTable
from .draw import esc, pct, signed_pct
from .draw import table as html_box
from .tables import LATEX_PACKAGES, booktabs, latex_escape, markdown_escape, markdown_grid

INTERVALS: tuple[str, ...] = ("ci", "sd")
"""A cell's spread: the bootstrap interval, or the sample sd over a system's runs."""


def _pct(value: float | None) -> str:
    return pct(value, "n/a")


def spread_kind(table: SystemsTable, intervals: str | bool | None) -> str:
    """The cells' spread: ``ci``, ``sd`` or '' (none); True: ``sd`` when some system has runs, else ``ci``."""
    if intervals is True:
        return "sd" if table.has_runs else "ci"
    if intervals and intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {', '.join(INTERVALS)}; got {intervals!r}")
    return intervals or ""


def _spread(table: SystemsTable, name: str, key: str, kind: str, bounds_form: bool) -> str:
    """A cell's spread in points: ``±sd``, the interval's bounds (`bounds_form`) or ``±`` half its width; ''
    when there is none."""
    if kind == "sd":
        sd = table.spread.get(name, {}).get(key)
        return "" if sd is None else f"±{_pct(sd)}"
    bounds = table.intervals.get(name, {}).get(key) if kind == "ci" else None
    if bounds is None:
        return ""
    return f"[{_pct(bounds[0])}, {_pct(bounds[1])}]" if bounds_form else f"±{_pct((bounds[1] - bounds[0]) / 2)}"


def _names_note(table: SystemsTable) -> str:
    """With every pair tested: which letter is which system."""
    if table.baseline is not None:
        return ""
    return "systems' letters: " + "; ".join(f"{letter} = {name}" for name, letter in table.letters().items())


def spread_note(table: SystemsTable, kind: str, bounds_form: bool) -> str:
    """What the cells' spread is (empty without one)."""
    if kind == "sd":
        single = [name for name in table.names if table.run_count(name) == 1]
        return "± the sample standard deviation over a system's runs" + (
            f" (none for a single run: {', '.join(single)})" if single else ""
        )
    if kind == "ci":
        return table.interval_note("in brackets the" if bounds_form else "± half the width of the")
    return ""


def notes(table: SystemsTable, bold: bool = True, kind: str = "ci", bounds_form: bool = True) -> list[str]:
    """The lines under the table: marks and family, letters, runs, the spread `kind`, warnings, and (`bold`)
    that the best value of each column is in bold."""
    first, *warnings = table.notes()
    extras = [_names_note(table), table.runs_note(), spread_note(table, kind, bounds_form)]
    out = [first, *(extra for extra in extras if extra), *warnings]
    out.append("scores in percent; the best value of each column in bold" if bold else "scores in percent")
    return out


def caption(table: SystemsTable) -> str:
    """A short caption: how many systems, dialogues and turns, and whether values are means over runs."""
    turns = f" ({table.turns:,} turns)" if table.turns else ""
    runs = ", each the mean over the system's runs" if table.has_runs else ""
    return f"Scores in percent of {len(table.names)} systems on {table.dialogues:,} dialogues{turns}{runs}."


def _cells(table: SystemsTable, bold: str, mark: Callable[[str], str]) -> list[list[str]]:
    """Each system's cells: its value in percent (`bold` where it is the column's best) and its `mark`."""
    best = {key: table.best(key) for key in table.keys}
    rows = []
    for name in table.names:
        row = []
        for key in table.keys:
            value = _pct(table.values[name][key])
            value = bold.format(value) if name in best[key] else value
            row.append(value + mark(table.marks(name, key)))
        rows.append(row)
    return rows


def _markdown_mark(mark: str) -> str:
    """A mark as plain Markdown: ``\\*``, or the letters in parentheses."""
    if not mark:
        return ""
    return "\\*" if mark == "*" else f" ({mark})"


def markdown(table: SystemsTable, intervals: str | bool | None = None) -> str:
    """The table in GitHub-flavoured Markdown without HTML: plain marks, the spread `intervals` asks for (``ci``:
    the bounds in brackets, ``sd``: ``± sd``), the notes and the signature."""
    kind = spread_kind(table, intervals)
    cells = _cells(table, "**{}**", _markdown_mark)
    rows = []
    for name, found in zip(table.names, cells):
        spreads = [_spread(table, name, key, kind, True) for key in table.keys]
        rows.append([markdown_escape(name), *(c + (f" {s}" if s else "") for c, s in zip(found, spreads))])
    lines = markdown_grid(["System", *(markdown_escape(table.label(key)) for key in table.keys)], rows)
    lines += ["", *(_markdown_note(note) + "  " for note in notes(table, True, kind, True))]
    lines.append(f"Signature: `{table.signature}`")
    return "\n".join(lines) + "\n"


def _markdown_note(note: str) -> str:
    """A note as Markdown text; a leading ``*`` escaped (no list item, no emphasis)."""
    text = markdown_escape(note)
    return "\\" + text if text.startswith("*") else text


def matrix_markdown(table: SystemsTable, key: str) -> str:
    """The pairwise matrix of `key`: row minus column in points, marked where significant."""
    header = [f"{markdown_escape(table.label(key))}: row − column", *table.names]
    cells = matrix_cells(table, key, "—", lambda cell: cell.replace("*", "\\*"))
    rows = [[markdown_escape(row), *found] for row, found in zip(table.names, cells)]
    return "\n".join(markdown_grid(header, rows)) + f"\n\n{markdown_escape(matrix_note(table, key))}\n"


def matrix_cells(table: SystemsTable, key: str, diagonal: str, write: Callable[[str], str]) -> list[list[str]]:
    """The matrix's cells, row minus column in points (`write` writes them), ``*`` where significant,
    ``(n.t.)`` untested; `diagonal` on the diagonal."""
    return [
        [diagonal if row == column else write(_matrix_cell(table, column, row, key)) for column in table.names]
        for row in table.names
    ]


def _matrix_cell(table: SystemsTable, a: str, b: str, key: str) -> str:
    text = signed_pct(table.diff(a, b, key), "n/a")
    found = table.test(a, b)
    if found is None or key not in found[0].figures:
        return text + " (n.t.)"
    return text + ("*" if found[0].figures[key].significant else "")


def matrix_note(table: SystemsTable, key: str) -> str:
    """What the matrix's marks mean."""
    untested = any(
        table.test(a, b) is None or key not in table.test(a, b)[0].figures
        for a in table.names
        for b in table.names
        if a != b
    )
    text = (
        f"{table.label(key)} of each row minus each column, in points; * significant at level {table.level:g} after "
        f"{table.correction} over the table's family of m = {table.family_size} tests"
    )
    return text + ("; n.t.: pair or figure not tested" if untested else "")


def profiles_markdown(table: SystemsTable) -> str:
    """Each system's JGA (ours, then under each profile, its rank in parentheses) and each profile's headline figure."""
    header, rows = profile_rows(table)
    lines = markdown_grid([markdown_escape(h) for h in header], ([markdown_escape(c) for c in row] for row in rows))
    return "\n".join(lines) + f"\n\n{markdown_escape(profiles_note(table))}\n"


def profile_rows(table: SystemsTable) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the profiles table (`profiles_markdown`)."""
    header = ["System"]
    columns = []
    for profile in table.profiles:
        if not profile.values:
            continue
        for key in profile.keys:
            header.append(f"{_key_label(key)} ({profile.name})")
            columns.append((profile, key))
    rows = []
    for name in table.names:
        row = [name]
        for profile, key in columns:
            value = profile.values.get(name, {}).get(key, math.nan)
            rank = f" ({profile.ranking().index(name) + 1})" if key == "jga" else ""
            row.append(_pct(value) + rank)
        rows.append(row)
    return header, rows


def _key_label(key: str) -> str:
    from ..figures.registry import figure_labels

    return {"average_jga": "average JGA"}.get(key, figure_labels().get(key, key))


def profiles_note(table: SystemsTable) -> str:
    """Which rankings move, and the profiles left out."""
    changed = table.rankings_differ()
    left = [f"{p.name} ({p.error})" for p in table.profiles if not p.values]
    text = "JGA in percent, rank by JGA in parentheses; each profile computes its figures the other evaluator's way"
    if changed:
        text += f"; the ranking by JGA changes under {', '.join(changed)}"
    else:
        text += "; the ranking by JGA is the same under every profile"
    return text + (f"; left out: {', '.join(left)}" if left else "")


def _latex_mark(mark: str) -> str:
    """A mark as a superscript; ``*`` without width (``\\rlap``), so that a narrow column is no wider for it."""
    return "" if not mark else (r"\rlap{$^{*}$}" if mark == "*" else rf"$^{{\mathrm{{{mark}}}}}$")


def latex(table: SystemsTable, intervals: str | bool | None = None, wide: bool = False) -> str:
    """A booktabs table for one column of a two-column article (`wide`: ``table*``): the best of each column in
    bold, marks as superscripts, with `intervals` each spread on a second line in small type (``±`` half the
    interval in one column, its bounds when wide); the notes and a caption below, the signature as a comment."""
    kind = spread_kind(table, intervals)
    cells = _cells(table, r"\textbf{{{}}}", _latex_mark)
    rows = []
    for name, found in zip(table.names, cells):
        spreads = [_spread(table, name, key, kind, wide) for key in table.keys]
        rows.append([_latex_name(name), *(_latex_cell(c, s) for c, s in zip(found, spreads))])
    footnote = " ".join(latex_escape(note[0].upper() + note[1:]) + "." for note in notes(table, True, kind, wide))
    footnote = footnote.replace("* differs", r"$^{*}$ differs", 1).replace("± ", r"$\pm$ ", 1)
    footnote = footnote.replace("Letters:", "Superscript letters:", 1)
    header = ["System", *(latex_escape(table.label(key)) for key in table.keys)]
    under = [r"\par\smallskip", r"\parbox{\linewidth}{\scriptsize " + footnote + "}"]
    width = r"\textwidth" if wide else r"\columnwidth"
    comments = [table.signature, f"needs {LATEX_PACKAGES}"]
    return booktabs(header, rows, latex_escape(caption(table)), under, width=width, wide=wide, comments=comments)


def _latex_name(name: str) -> str:
    """A system's name, escaped, with line breaks allowed after ``+`` and ``/`` (TeX allows one after ``-``)."""
    return latex_escape(name).replace("+", r"+\allowbreak{}").replace("/", r"/\allowbreak{}")


def _latex_cell(value: str, spread: str) -> str:
    """A cell: the value alone, or above its spread in script type (a tabular aligned on its first line)."""
    if not spread:
        return value
    spread = r"$\pm$" + spread[1:] if spread.startswith("±") else spread
    return rf"\begin{{tabular}}[t]{{@{{}}r@{{}}}}{value}\\{{\scriptsize {spread}}}\end{{tabular}}"


def matrix_latex(table: SystemsTable, key: str) -> str:
    """The pairwise matrix of `key` as a booktabs table."""
    cells = matrix_cells(table, key, "---", lambda cell: latex_escape(cell).replace("*", "$^{*}$"))
    rows = [[latex_escape(row), *found] for row, found in zip(table.names, cells)]
    header = [latex_escape(table.label(key)), *(latex_escape(n) for n in table.names)]
    return booktabs(header, rows, latex_escape(matrix_note(table, key)))


def profiles_latex(table: SystemsTable) -> str:
    """The profiles table as a booktabs table."""
    header, rows = profile_rows(table)
    cells = ([latex_escape(c) for c in row] for row in rows)
    return booktabs([latex_escape(h) for h in header], cells, latex_escape(profiles_note(table)))


def html_table(table: SystemsTable, matrix: str | None = None) -> str:
    """The table as HTML (cells carry ``data-value``, ``data-low``, ``data-high``, ``data-mark``), its notes,
    the pairwise matrix of figure `matrix` and the profiles."""
    head = "".join(f"<th>{esc(h)}</th>" for h in ["System", *(table.label(key) for key in table.keys)])
    cells = _cells(table, "<strong>{}</strong>", lambda mark: f"<sup>{esc(mark)}</sup>" if mark else "")
    for name, found in zip(table.names, cells):
        for index, key in enumerate(table.keys):
            interval, sd = _spread(table, name, key, "ci", True), _spread(table, name, key, "sd", True)
            found[index] += f' <span class="sd">{esc(sd)}</span>' if sd else ""
            found[index] += f'<span class="ci">{esc(interval)}</span>' if interval else ""
    rows = []
    for name, found in zip(table.names, cells):
        tds = "".join(f"<td{_data(table, name, key)}>{cell}</td>" for key, cell in zip(table.keys, found))
        rows.append(f'<tr data-system="{esc(name)}"><th scope="row">{esc(name)}</th>{tds}</tr>')
    parts = [
        html_box(head, rows, f' id="systems-table" data-family-size="{table.family_size}"'),
        *(f'<p class="{"warning" if _is_warning(note) else "note"}">{esc(note)}</p>' for note in _html_notes(table)),
    ]
    if matrix:
        parts.append(matrix_html(table, matrix))
    if table.profiles:
        parts.append(profiles_html(table))
    return "".join(parts)


def _html_notes(table: SystemsTable) -> list[str]:
    """The notes under the HTML table: the intervals and, with runs, the sd over them."""
    found = notes(table)
    return [*found[:-1], spread_note(table, "sd", True), found[-1]] if table.has_runs else found


def _data(table: SystemsTable, name: str, key: str) -> str:
    """A cell's ``data-*`` attributes: key, value, mark, interval bounds, runs and sd."""
    value, bounds = table.values[name][key], table.intervals.get(name, {}).get(key)
    attributes = f' data-key="{esc(key)}" data-value="{value!r}" data-mark="{esc(table.marks(name, key))}"'
    attributes += "" if bounds is None else f' data-low="{bounds[0]!r}" data-high="{bounds[1]!r}"'
    sd = table.spread.get(name, {}).get(key)
    return (
        attributes
        + ("" if not table.has_runs else f' data-runs="{table.run_count(name)}"')
        + ("" if sd is None else f' data-sd="{sd!r}"')
    )


def _is_warning(note: str) -> bool:
    return note.startswith(("only ", "with "))


def matrix_html(table: SystemsTable, key: str) -> str:
    """The pairwise matrix of `key` as an HTML fragment."""
    head = "".join(f"<th>{esc(h)}</th>" for h in [f"{table.label(key)}: row − column", *table.names])
    cells = matrix_cells(table, key, "—", esc)
    rows = [
        f'<tr><th scope="row">{esc(row)}</th>{"".join(f"<td>{c}</td>" for c in found)}</tr>'
        for row, found in zip(table.names, cells)
    ]
    return html_box(head, rows, f' id="systems-matrix" data-key="{esc(key)}"') + (
        f'<p class="note">{esc(matrix_note(table, key))}</p>'
    )


def profiles_html(table: SystemsTable) -> str:
    """The profiles table as an HTML fragment."""
    header, rows = profile_rows(table)
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    cells = ("".join(f"<td>{esc(c)}</td>" for c in row[1:]) for row in rows)
    body = (f'<tr><th scope="row">{esc(row[0])}</th>{c}</tr>' for row, c in zip(rows, cells))
    return html_box(head, body, ' id="systems-profiles"') + f'<p class="note">{esc(profiles_note(table))}</p>'


def html_section(table: SystemsTable) -> str:
    """The report's section: the table of every system, tests corrected over the whole table."""
    return f'<section id="systems"><h2>Table of {len(table.names)} systems</h2>{html_table(table)}</section>'
