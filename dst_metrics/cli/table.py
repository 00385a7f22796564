"""``dst-metrics table FILE FILE…``: the comparison table of N systems on one gold, for a paper.

Each file is a system, or a run of one (files given the same ``--name``). The chosen figures with
their intervals, each system tested against the baseline or every pair, every test corrected at
once; output as a terminal table, Markdown, LaTeX, HTML or JSON (docs/statistics.md).
"""

from __future__ import annotations

import argparse

HELP = "the table of N systems (or their runs) on one gold: tests corrected over the whole table, LaTeX/Markdown/HTML"
EXTRA = "stats"
"""The tests and intervals need numpy (the stats extra)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments: the files, input options, the table's choices, the output."""
    from ..report.systems import INTERVALS
    from ..stats.table import DEFAULT_FIGURES, PAIRS
    from . import common as cli
    from .compare import _keys, _level

    parser.add_argument("files", nargs="+", metavar="FILE", help="prediction files on one gold: systems or their runs")
    parser.add_argument(
        "--name", action="append", metavar="NAME", help="a system's name, once per file; a name repeated: runs (files)"
    )
    cli.add_input_options(parser)
    cli.add_figure_options(parser)
    default = ",".join(DEFAULT_FIGURES)
    parser.add_argument("--figures", type=_keys, metavar="KEYS", help=f"comma-separated columns ({default})")
    parser.add_argument("--baseline", metavar="NAME", help="the system the others are tested against (the first)")
    parser.add_argument(
        "--pairs", choices=PAIRS, help="test each system against the baseline (default) or every pair (all)"
    )
    parser.add_argument("--primary", metavar="KEY", help="test this figure alone (e.g. jga), as a paper declares one")
    parser.add_argument(
        "--correction", choices=("holm", "bonferroni"), default="holm", help="over every test of the table (holm)"
    )
    parser.add_argument("--level", type=_level, default=0.05, help="significance level after correction (0.05)")
    parser.add_argument("--bootstrap", type=cli.whole_number, default=1000, metavar="N", help="resamples (1000)")
    parser.add_argument("--ci-method", choices=("percentile", "bca"), default="percentile", help="percentile or bca")
    rounds_help = "randomization rounds (default: ceil(10 m / level) - 1 for a family of m tests)"
    parser.add_argument("--rounds", type=cli.whole_number, metavar="R", help=rounds_help)
    parser.add_argument("--seed", type=cli.seed_number, default=0, help="seed of the resamples and rounds (0)")
    parser.add_argument("--matrix", metavar="KEY", help="also the pairwise matrix of one figure (every pair tested)")
    parser.add_argument(
        "--profiles", metavar="NAMES", help="all, or comma-separated profiles: each system's JGA under each"
    )
    parser.add_argument(
        "--intervals",
        action="store_true",
        help="show each cell's spread: the sd over runs where there are runs, else ci",
    )
    parser.add_argument(
        "--interval-kind",
        choices=INTERVALS,
        help="with --intervals: ci (the bootstrap interval) or sd (over runs) instead of the default",
    )
    parser.add_argument("--wide", action="store_true", help="LaTeX: a table* across both columns")
    outputs = parser.add_mutually_exclusive_group()
    for flag in ("markdown", "latex", "html", "json"):
        outputs.add_argument(f"--{flag}", action="store_true", help=f"write the table as {flag.capitalize()}")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the output here instead of stdout")


def _baseline(args: argparse.Namespace, names: list[str]) -> str | None:
    """The baseline's system name: --baseline as a name or as one of the file paths given."""
    from ..options import OptionError

    if args.baseline is None:
        return None
    if args.baseline in names:
        return args.baseline
    if args.baseline in args.files:
        return names[args.files.index(args.baseline)]
    raise OptionError(f"--baseline must name one of the systems ({', '.join(names)}); got {args.baseline!r}")


def _profiles(text: str | None) -> list[str]:
    from ..compat import PROFILES
    from ..options import OptionError

    if not text:
        return []
    names = [name.strip() for name in text.split(",") if name.strip()]
    if names == ["all"]:
        return ["all"]
    unknown = [name for name in names if name not in PROFILES]
    if unknown or not names:
        raise OptionError(f"--profiles must be all or some of {', '.join(PROFILES)}; got {text!r}")
    return names


def terminal(table, matrix: str | None = None) -> str:
    """The table for a terminal: aligned columns, marks and intervals (with runs, and the sd over them), the
    notes under it."""
    from ..report.systems import notes, profile_rows, spread_note
    from .common import format_table

    header = ["system", *(table.label(key) for key in table.keys)]
    rows = []
    for name in table.names:
        row = [name]
        for key in table.keys:
            value = f"{100 * table.values[name][key]:.2f}{table.marks(name, key)}"
            sd = table.spread.get(name, {}).get(key)
            value += "" if sd is None else f" ±{100 * sd:.2f}"
            bounds = table.intervals.get(name, {}).get(key)
            row.append(value if bounds is None else f"{value} [{100 * bounds[0]:.2f}, {100 * bounds[1]:.2f}]")
        rows.append(row)
    lines = notes(table, bold=False)
    lines[-1:-1] = [spread_note(table, "sd", True)] if table.has_runs else []
    parts = [format_table(header, rows), "", *lines]
    if matrix:
        parts += ["", _matrix_text(table, matrix)]
    if table.profiles:
        from ..report.systems import profiles_note

        parts += ["", format_table(*profile_rows(table)), profiles_note(table)]
    parts.append(f"signature: {table.signature}")
    return "\n".join(parts) + "\n"


def _matrix_text(table, key: str) -> str:
    from ..report.systems import matrix_cells, matrix_note
    from .common import format_table

    rows = [[row, *cells] for row, cells in zip(table.names, matrix_cells(table, key, "—", str))]
    return format_table([f"{table.label(key)}: row − column", *table.names], rows) + "\n" + matrix_note(table, key)


def render(table, args: argparse.Namespace) -> str:
    """The output the flags ask for (`report.html.systems_output`, else the terminal's)."""
    from ..report.html import systems_output

    kind = next((kind for kind in ("json", "markdown", "latex", "html") if getattr(args, kind)), None)
    return (
        systems_output(table, kind, args.matrix, args.interval_kind or args.intervals, args.wide)
        if kind
        else terminal(table, args.matrix)
    )


def run(args: argparse.Namespace) -> int:
    """Read every file (all checked first), build the table, write it."""
    import sys

    from ..options import OptionError
    from ..stats.table import DEFAULT_FIGURES, systems_table
    from .common import check_output_folder, options_from_args, write_text
    from .inputs import read_input
    from .json_output import json_output
    from .report import system_names

    if len(args.files) < 2:
        raise OptionError(f"a table compares at least two systems; got {len(args.files)} file")
    check_output_folder(args.output, "the table")
    options = options_from_args(args)
    names = system_names(args.files, args.name, runs=True)
    if len(set(names)) < 2:
        raise OptionError(f"a table compares at least two systems; got the runs of one ({names[0]})")
    baseline = _baseline(args, names)
    if args.pairs == "all" and baseline is not None:
        raise OptionError("--baseline is for --pairs baseline; with --pairs all every pair is tested")
    pairs = args.pairs or ("all" if args.matrix and baseline is None else "baseline")
    figures = args.figures or None
    profiles = _profiles(args.profiles)
    settings = {"figures": figures} if figures else {}
    columns = figures or list(DEFAULT_FIGURES)
    for option, key in (("--matrix", args.matrix), ("--primary", args.primary)):
        if key and key not in columns:
            raise OptionError(f"{option} must be one of the table's figures ({', '.join(columns)}); got {key!r}")
    named = [(name, read_input(path, args)[0]) for name, path in zip(names, args.files)]
    table = systems_table(
        named,
        options,
        baseline=baseline,
        pairs=pairs,
        primary=args.primary,
        correction=args.correction,
        level=args.level,
        resamples=args.bootstrap,
        rounds=args.rounds,
        seed=args.seed,
        method=args.ci_method,
        profiles=profiles,
        **settings,
    )
    if args.json:  # the header of every command's JSON (`json_output`), then the table's keys
        inputs = [*(("predictions", path) for path in args.files), ("gold", args.gold)]
        text = json_output("table", inputs, table.as_dict()) + "\n"
    else:
        text = render(table, args)
    if args.output:
        write_text(args.output, text, "the table")
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
