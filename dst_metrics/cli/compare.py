"""``dst-metrics compare A B``: paired comparison of two systems' predictions on the same gold: every
figure's difference with its interval, p and corrected p, McNemar's test of JGA clustered by dialogue,
the dialogues that differ most and a line naming the significant differences (``--json``: one object).
"""

from __future__ import annotations

import argparse
import dataclasses

from ..errors import counted

HELP = "paired comparison of two systems on the same gold: differences, intervals, p-values"
EXTRA = "stats"
"""The paired tests need numpy (the stats extra)."""
TOP_DIALOGUES = 10
"""Dialogues listed in the table of largest GCA differences."""


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be a number between 0 and 1, such as 0.05; got {text!r}")
    return value


def _keys(text: str) -> list[str]:
    keys = [key.strip() for key in text.split(",") if key.strip()]
    if not keys:
        raise argparse.ArgumentTypeError(f"must name at least one figure, such as gca,jga,fga; got {text!r}")
    return keys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments: two inputs, input options, test options."""
    from . import common as cli

    parser.add_argument("file_a", metavar="A", help="predictions of system A")
    parser.add_argument("file_b", metavar="B", help="predictions of system B (same dialogues, turns and gold)")
    cli.add_input_options(parser)
    cli.add_figure_options(parser, "FGA's decay λ for the fga figure (0.5)")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument(
        "--correction", choices=("holm", "bonferroni"), default="holm", help="holm (default) or bonferroni"
    )
    parser.add_argument("--level", type=_level, default=0.05, help="significance level after correction (0.05)")
    ci_help = "confidence of the intervals of B - A (default: 1 - level, 0.95 at level 0.05)"
    parser.add_argument("--ci-level", type=_level, metavar="C", help=ci_help)
    figures_help = "comma-separated figure keys to test and correct for (default: every non-count figure, each once)"
    parser.add_argument("--figures", type=_keys, metavar="KEYS", help=figures_help)
    parser.add_argument(
        "--bootstrap",
        type=cli.whole_number,
        default=1000,
        metavar="N",
        help="bootstrap resamples of the interval of B - A (1000); not the randomization rounds (--rounds)",
    )
    rounds_help = (
        "randomization rounds of the p-values (default: ceil(10 m / level) - 1 for m figures tested, "
        "so that the smallest p is a tenth of level / m: 3199 for 16 figures at 0.05)"
    )
    parser.add_argument("--rounds", type=cli.whole_number, metavar="R", help=rounds_help)
    parser.add_argument("--seed", type=cli.seed_number, default=0, help="seed of the resamples and rounds (0)")


def figure_table(comparison) -> str:
    """One row per figure: A, B, B - A, its interval, p, corrected p, and '*' when significant."""
    from ..figures.registry import figure_labels
    from .common import figure_cell, format_table

    labels = figure_labels(comparison.options)
    adjusted = f"p ({comparison.correction}, m = {comparison.family_size})"
    confidence = f"{100 * comparison.interval_level:.10g}%"
    header = ["figure", "A", "B", "B - A", f"{confidence} CI of B - A", "p", adjusted, ""]
    rows = [
        [
            labels.get(key, key),
            figure_cell(f.a),
            figure_cell(f.b),
            f"{100 * f.diff:+.2f}",
            f"{100 * f.ci[0]:+.2f} to {100 * f.ci[1]:+.2f}",
            f"{f.p:.3g}",
            f"{f.p_adjusted:.3g}",
            "*" if f.significant else "",
        ]
        for key, f in comparison.figures.items()
    ]
    return format_table(header, rows, "lrrrrrrl")


def dialogue_table(comparison, top: int = TOP_DIALOGUES) -> str:
    """The `top` dialogues with the largest |GCA difference|: GCA, JGA and FGA of A and B."""
    from .common import figure_cell, format_table

    header = ["dialogue", "GCA A", "GCA B", "JGA A", "JGA B", "FGA A", "FGA B"]
    rows = [
        [dialogue_id, *(figure_cell(v) for key in ("gca", "jga", "fga") for v in figures[key][:2])]
        for dialogue_id, figures in comparison.dialogues[:top]
    ]
    return format_table(header, rows)


def final_line(comparison) -> str:
    """Which differences are significant, in one line (A and B as in the table)."""
    return dataclasses.replace(comparison, names=("A", "B")).verdict()


def mcnemar_line(comparison) -> str:
    """McNemar's test of JGA on turns, clustered by dialogue (Durkalski et al. 2003)."""
    m = comparison.mcnemar
    return (
        f"McNemar's test of JGA on turns, clustered by dialogue (Durkalski et al. 2003): only A right {m.a_only}, "
        f"only B right {m.b_only} (in {counted(m.dialogues, 'dialogue')}), "
        f"X² = {m.statistic:.4g}, p = {m.p:.4g}"
    )


def run(args: argparse.Namespace) -> int:
    """Read both inputs, compare them, print the tables (or JSON)."""
    import sys
    import warnings

    from ..stats.paired import compare, smallest_p
    from .common import options_from_args
    from .inputs import read_input
    from .json_output import json_output

    options = options_from_args(args)
    corpus_a, _ = read_input(args.file_a, args)
    corpus_b, _ = read_input(args.file_b, args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        comparison = compare(
            corpus_a,
            corpus_b,
            options,
            resamples=args.bootstrap,
            rounds=args.rounds,
            seed=args.seed,
            correction=args.correction,
            level=args.level,
            interval_level=args.ci_level,
            names=(args.file_a, args.file_b),
            figures=args.figures,
        )
    for warning in caught:
        print(f"warning: {warning.message}", file=sys.stderr)
    if args.json:
        inputs = [("a", args.file_a), ("b", args.file_b), ("gold", args.gold)]
        sys.stdout.write(json_output("compare", inputs, comparison.as_dict()) + "\n")
        return 0
    print(f"A = {args.file_a}\nB = {args.file_b}\n")
    print(figure_table(comparison))
    print("\n" + mcnemar_line(comparison))
    print(f"\ndialogues with the largest GCA difference (of {len(comparison.dialogues)}):")
    print(dialogue_table(comparison))
    dialogues = len(comparison.dialogues)
    floor = smallest_p(comparison.rounds, dialogues)
    print(
        f"\nscores in percent; CI: paired bootstrap over dialogues, {args.bootstrap} resamples, seed {args.seed}; "
        f"p: paired approximate randomization over dialogues, {comparison.rounds} rounds (smallest p "
        f"{floor:.3g} with {counted(dialogues, 'dialogue')}), "
        f"adjusted by {comparison.correction} over m = {comparison.family_size} figures"
    )
    print(f"signature: {comparison.signature}")
    print(final_line(comparison))
    return 0
