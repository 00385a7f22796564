"""``dst-metrics analyze FILE``: the GCA paper's section 5.2 analyses and figures by turn position.

Prints the Pearson correlations of per-dialogue GCA and FGA with tail orientation (TO) and
non-uniformity (NU), Zou's (2007) 95% interval of r(FGA, x) - r(GCA, x), and the by-position table
(JGA, RSA, GCA counts per turn index, and where JGA first fails). ``--json``: one object.
"""

from __future__ import annotations

import argparse

HELP = "the GCA paper's analyses (TO, NU, correlations, Zou's intervals) and figures by turn position"
EXTRA = "stats"
"""The analyses need numpy (the stats extra)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments: one input, input options, FGA's λ, --json."""
    from . import common as cli

    parser.add_argument("file", metavar="FILE")
    cli.add_input_options(parser)
    cli.add_figure_options(parser, k=False)
    parser.add_argument("--json", action="store_true", help="one JSON object")


NOT_COMPUTED = "n/a"
"""The cell of a figure that cannot be computed; the lines under the table say why."""


def _cell(value: float, form: str) -> str:
    return NOT_COMPUTED if value != value else format(value, form)


def correlation_table(analysis) -> str:
    """Rows TO and NU: r(GCA, x), r(FGA, x), Zou's interval of their difference, and n; n/a where a
    figure cannot be computed, with one line per reason below."""
    from .common import format_table

    rows = []
    for measure, zou in analysis.zou.items():
        undefined = zou.low != zou.low
        rows.append(
            [
                measure.upper(),
                _cell(analysis.correlations[f"gca~{measure}"], ".3f"),
                _cell(analysis.correlations[f"fga~{measure}"], ".3f"),
                _cell(zou.r1 - zou.r2, "+.3f"),
                NOT_COMPUTED if undefined else f"{zou.low:+.3f} to {zou.high:+.3f}",
                NOT_COMPUTED if undefined else "yes" if zou.significant else "no",
                str(zou.n),
            ]
        )
    header = ["measure", "r(GCA, x)", "r(FGA, x)", "r(FGA) - r(GCA)", "95% CI (Zou 2007)", "significant", "n"]
    table = format_table(header, rows)
    figures: dict[str, list[str]] = {}  # reason -> the figures it leaves undefined
    for key, why in analysis.undefined.items():
        figures.setdefault(why, []).append(_figure_name(key))
    return "\n".join([table, *(f"{NOT_COMPUTED}: {', '.join(names)}: {why}" for why, names in figures.items())])


def _figure_name(key: str) -> str:
    """``gca~to`` -> ``r(GCA, TO)``; ``zou.to`` -> ``Zou's interval for TO``."""
    if key.startswith("zou."):
        return f"Zou's interval for {key[4:].upper()}"
    figure, measure = key.split("~")
    return f"r({figure.upper()}, {measure.upper()})"


def position_table(profile) -> str:
    """One row per turn position: turns, JGA, RSA, the four counts, first JGA failures."""
    from .common import format_table

    header = ["turn", "turns", "JGA", "RSA", "correct", "wrong", "missed", "overshot", "JGA first 0"]
    rows = [
        [str(r.position), str(r.turns), f"{100 * r.jga:.2f}", f"{100 * r.rsa:.2f}", str(r.correct), str(r.wrong)]
        + [str(r.missed), str(r.overshot), str(r.first_failures)]
        for r in profile.rows
    ]
    return format_table(header, rows)


def run(args: argparse.Namespace) -> int:
    """Read the input, analyse it, print the tables (or JSON)."""
    import sys

    from ..errors import counted
    from ..stats.analysis import analyze
    from ..stats.positions import by_position
    from .common import options_from_args
    from .inputs import read_input
    from .json_output import json_output

    options = options_from_args(args)
    corpus, _ = read_input(args.file, args)
    analysis = analyze(corpus, options)
    profile = by_position(corpus, options)
    if args.json:
        record = {"file": args.file, **analysis.as_dict(), "by_position": profile.as_dict()}
        sys.stdout.write(json_output("analyze", [("predictions", args.file), ("gold", args.gold)], record) + "\n")
        return 0
    without = sum(1 for d in analysis.dialogues if d.to != d.to)
    dialogues = counted(len(analysis.dialogues), "dialogue")
    print(f"{args.file}: {dialogues} ({without} without a mistake, left out of the correlations)")
    print(correlation_table(analysis))
    print("\nby turn position (0 = first turn):")
    print(position_table(profile))
    print(f"dialogues whose JGA is never 0: {profile.never_failed}")
    print(f"signature: {options.signature()}")
    for measure, zou in analysis.zou.items():
        if zou.low != zou.low:
            print(f"FGA's and GCA's correlations with {measure.upper()} cannot be compared (see n/a above)")
            continue
        stronger = "significantly" if zou.significant else "not significantly"
        print(f"FGA's correlation with {measure.upper()} is {stronger} different from GCA's (95%, Zou 2007)")
    return 0
