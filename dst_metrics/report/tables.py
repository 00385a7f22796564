"""The figures as a table for papers, LaTeX (booktabs) or Markdown: a row per system, the headline figures in
percent with their bootstrap interval in brackets, ``59.75 [58.12, 61.40]``, and ``*`` where a later system
differs significantly from the first (after one correction over every test of `ReportData.table`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .data import ReportData, SystemData
from .draw import pct

PERCENT = 100.0
LATEX_SPECIALS: dict[str, str] = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}  # fmt: skip


def latex_escape(text: str) -> str:
    """`text` with LaTeX's special characters written as text."""
    return "".join(LATEX_SPECIALS.get(c, c) for c in text)


def markdown_escape(text: str) -> str:
    """`text` safe in a Markdown table cell (pipes and backslashes escaped, no line breaks)."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def table_keys(data: ReportData) -> list[str]:
    """The columns: the headline figures, then the number of turns."""
    return [*data.main_keys(), "turns"]


def _value(system: SystemData, key: str) -> str:
    value = system.scores[key]
    if key == "turns" or isinstance(value, int):
        return str(value)
    return pct(value, "n/a")


def _interval(system: SystemData, key: str) -> str:
    bounds = system.intervals.get(key) if system.intervals else None
    return "" if bounds is None else f"[{pct(bounds[0])}, {pct(bounds[1])}]"


def _significant(data: ReportData, system: SystemData, key: str) -> bool:
    """Whether a later `system` differs significantly from the first on `key` (by the table's tests if any)."""
    if data.table is not None:
        return key in data.table.tested and data.table.differs(system.name, key)
    for comparison in data.comparisons:
        if comparison.name_b == system.name and comparison.error is None:
            return bool((comparison.figures.get(key) or {}).get("significant"))
    return False


def _marks(data: ReportData) -> str:
    if data.table is not None:
        table = data.table
        return (
            f"; * differs from {table.baseline} at level {table.level:g} (paired randomization test, "
            f"{table.correction} over every test of the table: m = {table.family_size})"
        )
    compared = [c for c in data.comparisons if c.error is None]
    if not compared:
        return ""
    first = compared[0]
    return (
        f"; * differs from {first.name_a} at level {first.level:g} "
        f"(paired randomization test, {first.correction}-corrected)"
    )


def _caption(data: ReportData, latex: bool) -> str:
    ci = data.ci
    interval = _marks(data)
    if ci:
        level = f"{PERCENT * float(ci['level']):g}%"
        interval = (
            f"; in brackets the {level} {ci['method']} bootstrap interval over dialogues "
            f"({ci['resamples']} resamples, seed {ci['seed']})"
        ) + interval
    if latex:  # the signature goes above the table as a comment (`latex_table`): a \texttt line never wraps
        return latex_escape(f"Scores in percent{interval}.")
    return f"Scores in percent{interval}. Signature: `{data.signature}`"


LATEX_PACKAGES = r"\usepackage{booktabs,tabularx}"
"""What a table written with a `width` needs in the preamble."""
NARROW_COLUMNS = 6
"""Up to this many columns a table of a column's width is in footnote type, beyond in script type."""


def booktabs(
    header: Sequence[str],
    rows: Iterable[Sequence[str]],
    caption: str,
    under: Sequence[str] = (),
    *,
    width: str = "",
    wide: bool = False,
    comments: Sequence[str] = (),
) -> str:
    r"""A booktabs ``table`` (``table*`` when `wide`) of escaped cells: a left column, then right-aligned ones;
    `under` below the rules, then the caption; `comments` as ``%`` lines above. With a `width`
    (``\columnwidth``) a tabularx of that width whose first column wraps, with half an em after the last
    column for marks written without width."""
    header = list(header)
    environment = "table*" if wide else "table"
    if width:
        spec = r"@{}>{\raggedright\arraybackslash}X" + "r" * (len(header) - 1) + r"@{\hspace{0.5em}}"
        size, space = (r"\small", "4pt") if wide or len(header) <= NARROW_COLUMNS else (r"\scriptsize", "3pt")
        size = r"\footnotesize" if size == r"\small" and not wide else size
        begin = [size, rf"\setlength{{\tabcolsep}}{{{space}}}", rf"\begin{{tabularx}}{{{width}}}{{{spec}}}"]
        end = r"\end{tabularx}"
    else:
        begin, end = [r"\small", r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}"], r"\end{tabular}"
    return "\n".join([
        *(f"% {line}" for line in comments), rf"\begin{{{environment}}}[t]", r"\centering", *begin,
        r"\toprule", " & ".join(header) + r" \\", r"\midrule", *(" & ".join(row) + r" \\" for row in rows),
        r"\bottomrule", end, *under, rf"\caption{{{caption}}}", rf"\end{{{environment}}}",
    ]) + "\n"  # fmt: skip


def markdown_grid(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table of escaped cells: a left column, then right-aligned ones."""
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _rows(data: ReportData, escape: Callable[[str], str], star: str, interval: str) -> list[list[str]]:
    """Each system's row: its name, then per column its value, `star` where it differs significantly from the
    first system, and its interval formatted by `interval`."""
    rows = []
    for system in data.systems:
        cells = [escape(system.name)]
        for key in table_keys(data):
            bounds = _interval(system, key)
            mark = star if _significant(data, system, key) else ""
            cells.append(_value(system, key) + mark + (interval.format(bounds) if bounds else ""))
        rows.append(cells)
    return rows


def latex_table(data: ReportData) -> str:
    """A booktabs ``table`` with a caption holding the interval method, the signature as a ``%`` comment above."""
    header = ["System", *(latex_escape(data.labels[key]) for key in table_keys(data))]
    rows = _rows(data, latex_escape, "*", " {{\\scriptsize {}}}")
    return booktabs(header, rows, _caption(data, True), comments=[data.signature])


def markdown_table(data: ReportData) -> str:
    """A GitHub-flavoured Markdown table, then the caption line."""
    header = ["System", *(markdown_escape(data.labels[key]) for key in table_keys(data))]
    lines = markdown_grid(header, _rows(data, markdown_escape, "\\*", " {}"))
    return "\n".join(lines) + f"\n\n{_caption(data, False)}\n"
