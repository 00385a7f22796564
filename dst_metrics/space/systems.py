"""The page's table of N systems (``dst-metrics table``): `stats.systems_table`, drawn by
`report.systems.html_table` and exported as the command line writes it and as CSV. No gradio here.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from dst_metrics import InputError, Options
from dst_metrics.errors import counted
from dst_metrics.options import OptionError
from dst_metrics.report.html import systems_output

from .exports import option_arguments, shell_line, write_files
from .inputs import AUTO, PredictionSet, SetInput, pasted_gold, read_prediction_set, read_settings

TABLE_RESAMPLES, TABLE_SEED = 1000, 0
"""``dst-metrics table``'s defaults."""
PAIRS_CHOICES: list[tuple[str, str]] = [("each against the baseline", "baseline"), ("every pair", "all")]
CORRECTIONS: tuple[str, ...] = ("holm", "bonferroni")
EVERY_FIGURE = ""
"""The primary-figure choice that tests every figure."""
EXPORTS: dict[str, str] = {"markdown": "md", "latex": "tex", "json": "json", "html": "html"}
"""The command line's outputs written for download: flag -> file extension."""
TABLE_FILE = "table"


def figure_choices() -> list[tuple[str, str]]:
    """(label, key) of every figure a table may show, in registry order."""
    from dst_metrics.figures.registry import figure_labels
    from dst_metrics.stats.matrix import interval_figures

    labels = figure_labels(Options())
    return [(labels.get(key, key), key) for _, key, _ in interval_figures(Options())]


@dataclass
class TableView:
    """A table as the page shows it, or the problem in `status` (ok False)."""

    ok: bool
    status: str
    table: object = None  # dst_metrics.stats.table.SystemsTable
    html: str = ""
    command: str = ""


def read_systems(
    entries: list[SetInput], fmt: str = AUTO, value_matching: str = "exact", gold: SetInput | None = None,
    labels: list[str] | None = None, runs: bool = False,
) -> list[PredictionSet]:  # fmt: skip
    """Read every non-empty entry as a system (any formats); `labels` name the entries in errors and unnamed
    systems (default 1, 2, …). With `runs`, a name typed for several entries makes them runs of one system;
    a name repeated otherwise gets its label."""
    systems: list[PredictionSet] = []
    for index, entry in enumerate(entries):
        label = labels[index] if labels else str(index + 1)
        if entry.empty:
            continue
        found = read_prediction_set(label, entry, fmt, value_matching, gold)
        typed = runs and bool((entry.name or "").strip())
        if not typed and any(s.name == found.name for s in systems):
            found = PredictionSet(f"{found.name} ({label})", found.corpus, found.layout, found.source)
        systems.append(found)
    if len({s.name for s in systems}) < 2:
        given = f"{len(systems) or 'no'} prediction set given"
        given = f"{len(systems)} prediction sets given, all runs of {systems[0].name}" if len(systems) > 1 else given
        raise InputError(f"a table compares at least two systems; {given}")
    return systems


@dataclass(frozen=True)
class TableChoices:
    """What the table shows and tests, as `dst-metrics table` takes it."""

    figures: tuple[str, ...] = ("gca", "jga", "fga", "sa", "slot_f1")
    pairs: str = "baseline"
    baseline: str | None = None  # None: the first system
    primary: str | None = None  # None: every figure tested
    correction: str = "holm"
    resamples: int = TABLE_RESAMPLES
    seed: int = TABLE_SEED

    def arguments(self) -> list[str]:
        """The command line's options for these choices."""
        words = ["--figures", ",".join(self.figures)]
        words += ["--pairs", "all"] if self.pairs == "all" else []
        words += ["--baseline", self.baseline] if self.baseline and self.pairs == "baseline" else []
        words += ["--primary", self.primary] if self.primary else []
        words += ["--correction", self.correction] if self.correction != "holm" else []
        words += ["--bootstrap", str(self.resamples)] if self.resamples != TABLE_RESAMPLES else []
        return words + (["--seed", str(self.seed)] if self.seed != TABLE_SEED else [])


def build_table(systems: list[PredictionSet], options: Options, choices: TableChoices):
    """`systems_table` of the systems read (a baseline naming none of them falls back to the first)."""
    from dst_metrics.stats.table import systems_table

    names = [s.name for s in systems]
    baseline = choices.baseline if choices.pairs == "baseline" and choices.baseline in names else None
    return systems_table(
        [(s.name, s.corpus) for s in systems], options, figures=list(choices.figures), baseline=baseline,
        pairs=choices.pairs, primary=choices.primary or None, correction=choices.correction,
        resamples=int(choices.resamples), seed=int(choices.seed),
    )  # fmt: skip


def command(sources: list[str], names: list[str], options: Options, choices: TableChoices, fmt: str = AUTO) -> str:
    """The ``dst-metrics table`` command that prints this table (pasted sets saved as system_1.json, …)."""
    files = [source if source != "pasted" else f"system_{i}.json" for i, source in enumerate(sources, start=1)]
    words = ["dst-metrics", "table", *files, *(w for name in names for w in ("--name", name))]
    words += (["--format", fmt] if fmt != AUTO else []) + option_arguments(options) + choices.arguments()
    return shell_line(words)


def table_view(
    entries: list[SetInput], choices: TableChoices, *, fmt: str = AUTO, gold: SetInput | None = None,
    settings: tuple = ("official", "10/11", 0.5, 30, "exact"), labels: list[str] | None = None, runs: bool = False,
) -> TableView:  # fmt: skip
    """Read the systems, build the table and draw it; bad input or choices give ok=False and the problem in
    `status` (nothing raises). `settings`: mode, α, λ, K and value matching (no compatibility profile)."""
    from dst_metrics.report.systems import html_table

    try:
        options = read_settings(*settings)
        systems = read_systems(entries, fmt, options.value_matching, gold, labels, runs)  # an empty gold: none
        table = build_table(systems, options, choices)
    except (InputError, OptionError) as error:  # our messages; anything else is a bug (issue 56)
        return TableView(False, str(error))
    runs = f" ({len(systems)} runs)" if table.has_runs else ""
    status = (
        f"Table of {len(table.names)} systems{runs} on {counted(table.dialogues, 'dialogue')} "
        f"and {counted(table.turns, 'turn')}."
    )
    shown = TableChoices(table.keys, table.pairs, table.baseline, table.primary, table.correction,
                         table.resamples, table.seed)  # fmt: skip
    sources = [s.source for s in systems]
    names = [s.name for s in systems]  # one per file: a name repeated for a system's runs
    return TableView(True, status, table, html_table(table), command(sources, names, options, shown, fmt))


def table_csv(table) -> str:
    """A row per system: each figure's value, interval bounds (fractions, unrounded) and mark."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["system", *(f"{key}{part}" for key in table.keys for part in ("", "_low", "_high", "_mark"))])
    for name in table.names:
        row: list[object] = [name]
        for key in table.keys:
            low, high = table.intervals.get(name, {}).get(key, ("", ""))
            row += [repr(table.values[name][key]), repr(low) if low != "" else "", repr(high) if high != "" else ""]
            row.append(table.marks(name, key))
        writer.writerow(row)
    return out.getvalue()


def write_exports(table, folder: str | Path) -> list[str]:
    """Write the table's downloads into `folder` (Markdown, LaTeX, JSON, HTML and CSV); their paths."""
    files = {f"{TABLE_FILE}.{extension}": systems_output(table, flag) for flag, extension in EXPORTS.items()}
    return write_files({**files, f"{TABLE_FILE}.csv": table_csv(table)}, folder)


def api_table(
    predictions: list[str], names: list[str] | None = None, gold: str = "", fmt: str = AUTO,
    settings: tuple = ("official", "10/11", 0.5, 30, "exact"), choices: TableChoices = TableChoices(),
) -> dict:  # fmt: skip
    """The `/table` endpoint: N prediction sets (texts, any formats) on one gold -> ``dst-metrics table --json``;
    sets given the same name are runs of one system. Bad input or choices raise ValueError."""
    names = list(names or [])
    if names and len(names) != len(predictions):
        raise OptionError(f"names: give one per prediction set ({len(predictions)}); got {len(names)}")
    entries = [SetInput(names[i] if names else f"system {i + 1}", text) for i, text in enumerate(predictions)]
    options = read_settings(*settings)
    systems = read_systems(entries, fmt, options.value_matching, pasted_gold(gold), runs=bool(names))
    if choices.baseline and choices.baseline not in [s.name for s in systems]:
        raise OptionError(f"baseline must name one of the systems ({', '.join(s.name for s in systems)}); "
                          f"got {choices.baseline!r}")  # fmt: skip
    return build_table(systems, options, choices).as_dict()
