"""The official output formats: ``score.csv`` (score.py) and the report tables (report.py), docs/dstc2.md rule 7."""

from __future__ import annotations

from .components import FEATURED_COMPONENTS, FEATURED_SCHEME, FEATURED_STATS, Scores

CSV_HEADER = "state_component, stat, schedule, label_scheme, N, result"
REPORT_COMPONENTS: tuple[str, ...] = ("goal.joint", "method", "requested.all")
"""The components report.py prints a table for, in its order."""
FIRST_COLUMN_WIDTH = 14
COLUMN_WIDTH = 17
TITLE_WIDTH = 50
FEATURED_TITLE = "                                    featured metrics"
BASIC_TITLE = "                                    basic stats"
BASIC_RULE = "-" * 83
UNDEFINED = "-"


def format_value(value: float | None) -> str:
    """A result as the official CSV prints it: ``%.7f``, or ``-`` when undefined."""
    return UNDEFINED if value is None else f"{value:.7f}"


def _basic_text(value: object) -> str:
    if value is None:
        return UNDEFINED
    return repr(value) if isinstance(value, float) else str(value)


def basic_rows(scores: Scores) -> list[tuple[str, str]]:
    """The five ``basic`` rows: (name, printed value), as score.py prints them under Python 3."""
    wall = scores.wall_time
    per_turn = wall / scores.turns if isinstance(wall, (int, float)) and scores.turns else None
    return [
        ("total_wall_time", _basic_text(wall)),
        ("sessions", str(scores.sessions)),
        ("turns", str(scores.turns)),
        ("wall_time_per_turn", _basic_text(per_turn)),
        ("dataset", _basic_text(scores.dataset)),
    ]


def csv_text(scores: Scores) -> str:
    """The whole ``score.csv``: header, the metric rows, then the basic rows."""
    lines = [CSV_HEADER]
    lines += [f"{r.component}, {r.stat}, {r.schedule}, {r.scheme}, {r.n}, {format_value(r.value)}" for r in scores.rows]
    lines += [f"basic,{name},,,,{value}" for name, value in basic_rows(scores)]
    return "\n".join(lines) + "\n"


def _row(cells: list[str], header: bool = False) -> list[str]:
    padded = [c.ljust(FIRST_COLUMN_WIDTH) if i == 0 else c.center(COLUMN_WIDTH) for i, c in enumerate(cells)]
    line = "|".join(padded)[:-1] + "|"
    return ["-" * len(line), line, "-" * len(line)] if header else [line]


def report_text(scores: Scores) -> str:
    """What report.py prints for this score: three tables, the featured metrics and the basic stats."""
    lines: list[str] = []
    table = scores.nested()
    for component in REPORT_COMPONENTS:
        stats = table.get(component, {})
        schemes = sorted({key for values in stats.values() for key in values})
        lines.append(component.center(TITLE_WIDTH))
        lines += _row([""] + [f"eval_{key.replace(',', '')}" for key in schemes], header=True)
        for stat in sorted(stats):
            lines += _row([stat] + [format_value(stats[stat][key]) for key in schemes])
        lines += ["\n\n"]
    lines.append(FEATURED_TITLE)
    lines += _row([""] + [label for _, label in FEATURED_COMPONENTS], header=True)
    schedule, scheme = FEATURED_SCHEME
    for stat, label in FEATURED_STATS:
        values = [scores.value(component, stat, schedule, scheme) for component, _ in FEATURED_COMPONENTS]
        lines += _row([label] + [format_value(v) for v in values])
    lines += ["\n\n", BASIC_TITLE, BASIC_RULE]
    lines += [f"{name:>20} : {value}" for name, value in sorted(basic_rows(scores))]
    return "\n".join(lines) + "\n"
