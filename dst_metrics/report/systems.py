"""The table of N systems (`dst_metrics.stats.table.SystemsTable`) for papers and pages: Markdown,
LaTeX (booktabs, the best value per column in bold, the marks explained in a footnote) and HTML;
the pairwise matrix of one figure; and each system's JGA under every compatibility profile.

Figures are in percent with two decimals; a cell is ``59.75* [58.12, 61.40]``: the value, its mark
(``*``: differs from the baseline; with every pair tested, the letters of the systems it is
significantly better than) and its interval. Under every table: what the marks mean, the family
the one correction ran over (its size m) and the warnings (few dialogues, p floor).
"""

from __future__ import annotations

import math

from ..stats.table import SystemsTable
from .draw import esc, pct, signed_pct
from .draw import table as html_box
from .tables import booktabs, latex_escape, markdown_escape, markdown_grid


def _pct(value: float | None) -> str:
    return pct(value, "n/a")


def _points(value: float) -> str:
    return signed_pct(value, "n/a")


def _interval(table: SystemsTable, name: str, key: str) -> str:
    bounds = table.intervals.get(name, {}).get(key)
    return "" if bounds is None else f"[{_pct(bounds[0])}, {_pct(bounds[1])}]"


def _names_note(table: SystemsTable) -> str:
    """With every pair tested: which letter is which system."""
    if table.baseline is not None:
        return ""
    return "systems' letters: " + "; ".join(f"{letter} = {name}" for name, letter in table.letters().items())


def notes(table: SystemsTable, bold: bool = True) -> list[str]:
    """The lines under the table: marks and family, letters, intervals, warnings (`bold`: and that
    the best value of each column is in bold)."""
    out = [*table.notes()]
    for extra in (_names_note(table), table.interval_note()):
        if extra:
            out.insert(1, extra)
    out.append("scores in percent; the best value of each column in bold" if bold else "scores in percent")
    return out


# --------------------------------------------------------------------------------------------
# Markdown


def markdown(table: SystemsTable) -> str:
    """The table in GitHub-flavoured Markdown, the notes and the signature under it."""
    best = {key: table.best(key) for key in table.keys}
    rows = []
    for name in table.names:
        cells = [markdown_escape(name)]
        for key in table.keys:
            value = _pct(table.values[name][key])
            value = f"**{value}**" if name in best[key] else value
            mark = table.marks(name, key)
            mark = f"<sup>{mark.replace('*', '&#42;')}</sup>" if mark else ""
            cells.append(" ".join(filter(None, (value + mark, _interval(table, name, key)))))
        rows.append(cells)
    lines = markdown_grid(["System", *(markdown_escape(table.label(key)) for key in table.keys)], rows)
    lines += ["", *(_markdown_note(note) + "  " for note in notes(table)), f"Signature: `{table.signature}`"]
    return "\n".join(lines) + "\n"


def _markdown_note(note: str) -> str:
    """A note as Markdown text; a leading ``* `` escaped, so that it is no list item."""
    text = markdown_escape(note)
    return "\\" + text if text.startswith("* ") else text


def matrix_markdown(table: SystemsTable, key: str) -> str:
    """The pairwise matrix of `key`: row minus column in points, marked where significant."""
    header = [f"{markdown_escape(table.label(key))}: row − column", *table.names]
    rows = [
        [markdown_escape(row)] + ["—" if row == c else _matrix_cell(table, c, row, key, "\\*") for c in table.names]
        for row in table.names
    ]
    return "\n".join(markdown_grid(header, rows)) + f"\n\n{markdown_escape(matrix_note(table, key))}\n"


def _matrix_cell(table: SystemsTable, a: str, b: str, key: str, star: str) -> str:
    """b - a in points, with `star` when the pair was tested on `key` and differs; ``(n.t.)`` untested."""
    text = _points(table.diff(a, b, key))
    found = table.test(a, b)
    if found is None or key not in found[0].figures:
        return text + " (n.t.)"
    return text + (star if found[0].figures[key].significant else "")


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


# --------------------------------------------------------------------------------------------
# Profiles


def profile_rows(table: SystemsTable) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the profiles table: each system's JGA (rank) ours and under each profile,
    and each profile's headline figure."""
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
    from ..figures import figure_labels

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


# --------------------------------------------------------------------------------------------
# LaTeX


def _latex_mark(mark: str) -> str:
    return "" if not mark else (r"$^{*}$" if mark == "*" else rf"$^{{\mathrm{{{mark}}}}}$")


def latex(table: SystemsTable) -> str:
    """A booktabs ``table``: the best value per column in \\textbf, marks as superscripts explained
    in a footnote under the rules, the signature in the caption."""
    best = {key: table.best(key) for key in table.keys}
    rows = []
    for name in table.names:
        cells = [latex_escape(name)]
        for key in table.keys:
            value = _pct(table.values[name][key])
            value = rf"\textbf{{{value}}}" if name in best[key] else value
            interval = _interval(table, name, key)
            cell = value + _latex_mark(table.marks(name, key))
            cells.append(cell + (rf" {{\scriptsize {interval}}}" if interval else ""))
        rows.append(cells)
    footnote = " ".join(latex_escape(note[0].upper() + note[1:]) + "." for note in notes(table))
    footnote = footnote.replace("* differs", r"$^{*}$ differs", 1)
    footnote = footnote.replace("Letters:", "Superscript letters:", 1)
    header = ["System", *(latex_escape(table.label(key)) for key in table.keys)]
    under = [r"\par\smallskip", r"\parbox{\linewidth}{\footnotesize " + footnote + "}"]
    return booktabs(header, rows, rf"Signature: \texttt{{{latex_escape(table.signature)}}}", under)


def matrix_latex(table: SystemsTable, key: str) -> str:
    """The pairwise matrix of `key` as a booktabs table."""
    rows = [
        [latex_escape(row)]
        + [
            "---" if row == column else latex_escape(_matrix_cell(table, column, row, key, "*")).replace("*", "$^{*}$")
            for column in table.names
        ]
        for row in table.names
    ]
    header = [latex_escape(table.label(key)), *(latex_escape(n) for n in table.names)]
    return booktabs(header, rows, latex_escape(matrix_note(table, key)))


def profiles_latex(table: SystemsTable) -> str:
    """The profiles table as a booktabs table."""
    header, rows = profile_rows(table)
    cells = ([latex_escape(c) for c in row] for row in rows)
    return booktabs([latex_escape(h) for h in header], cells, latex_escape(profiles_note(table)))


# --------------------------------------------------------------------------------------------
# HTML


def html_table(table: SystemsTable, matrix: str | None = None) -> str:
    """The table as an HTML fragment (cells carry ``data-value``, ``data-low``, ``data-high`` and
    ``data-mark``), its notes, and with `matrix` the pairwise matrix of that figure, and the profiles."""
    best = {key: table.best(key) for key in table.keys}
    head = "".join(f"<th>{esc(h)}</th>" for h in ["System", *(table.label(key) for key in table.keys)])
    rows = []
    for name in table.names:
        cells = []
        for key in table.keys:
            value = table.values[name][key]
            text = esc(_pct(value))
            text = f"<strong>{text}</strong>" if name in best[key] else text
            mark = table.marks(name, key)
            bounds = table.intervals.get(name, {}).get(key)
            attributes = f' data-key="{esc(key)}" data-value="{value!r}" data-mark="{esc(mark)}"'
            interval = ""
            if bounds is not None:
                attributes += f' data-low="{bounds[0]!r}" data-high="{bounds[1]!r}"'
                interval = f'<span class="ci">{esc(_interval(table, name, key))}</span>'
            cells.append(f"<td{attributes}>{text}{f'<sup>{esc(mark)}</sup>' if mark else ''}{interval}</td>")
        rows.append(f'<tr data-system="{esc(name)}"><th scope="row">{esc(name)}</th>{"".join(cells)}</tr>')
    parts = [
        html_box(head, rows, f' id="systems-table" data-family-size="{table.family_size}"'),
        *(f'<p class="{"warning" if _is_warning(note) else "note"}">{esc(note)}</p>' for note in notes(table)),
    ]
    if matrix:
        parts.append(matrix_html(table, matrix))
    if table.profiles:
        parts.append(profiles_html(table))
    return "".join(parts)


def _is_warning(note: str) -> bool:
    return note.startswith(("only ", "with "))


def matrix_html(table: SystemsTable, key: str) -> str:
    """The pairwise matrix of `key` as an HTML fragment."""
    head = "".join(f"<th>{esc(h)}</th>" for h in [f"{table.label(key)}: row − column", *table.names])
    rows = []
    for row in table.names:
        cells = "".join(
            "<td>—</td>" if row == column else f"<td>{esc(_matrix_cell(table, column, row, key, '*'))}</td>"
            for column in table.names
        )
        rows.append(f'<tr><th scope="row">{esc(row)}</th>{cells}</tr>')
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
