"""``dst-metrics report FILE... -o report.html [--plots DIR] [--bootstrap N] [--seed S] [--latex | --markdown]``.

One self-contained HTML page of one or more prediction files (figures with bootstrap intervals,
each later file compared with the first, the plots); ``--plots DIR`` also writes every plot as PNG,
PDF and SVG; ``--latex`` / ``--markdown`` print the figures as a table for a paper. ``--perturbed P`` and
``--schema-variants V1 … V5`` (each once per FILE) and predictions with confidences add the protocols'
figures (CheckDST, SGD-X, calibration: `report.protocols`). Only argparse is imported here; numpy and
matplotlib are imported when the command runs.
"""

from __future__ import annotations

import argparse

HELP = "an HTML report with intervals, comparisons and plots; LaTeX/Markdown tables for papers"
DEFAULT_RESAMPLES = 1000
"""Bootstrap resamples unless --bootstrap says otherwise (the randomization rounds of the comparisons
follow from the family size and the level: `dst_metrics.stats.paired.randomization_rounds`)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The report command's arguments (the usual input options included)."""
    from .common import add_figure_options, add_input_options, add_protocol_options, seed_number

    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="prediction files; later ones are compared with the first"
    )
    parser.add_argument("-o", "--output", metavar="report.html", help="write the HTML report here")
    parser.add_argument("--plots", metavar="DIR", help="also write every plot as DIR/NAME.png, .pdf and .svg")
    parser.add_argument(
        "--bootstrap",
        type=seed_number,
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help="bootstrap resamples (1000; 0: no intervals or comparisons)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling (0)")
    parser.add_argument("--name", action="append", metavar="NAME", help="a system's name, once per file (file names)")
    tables = parser.add_mutually_exclusive_group()
    tables.add_argument("--latex", action="store_true", help="print the figures as a LaTeX table")
    tables.add_argument("--markdown", action="store_true", help="print the figures as a Markdown table")
    add_input_options(parser)
    add_figure_options(parser)
    add_protocol_options(parser, report=True)


def system_names(files: list[str], given: list[str] | None) -> list[str]:
    """The names of the systems: those given (one per file), else the file names, else the paths
    when two file names are equal."""
    from pathlib import Path

    from ..options import OptionError

    if given:
        if len(given) != len(files):
            raise OptionError(f"--name is given {len(given)} times for {len(files)} files; give it once per file")
        if len(set(given)) != len(given):
            raise OptionError("--name: every system needs its own name")
        return list(given)
    names = [Path(path).name for path in files]
    return names if len(set(names)) == len(names) else list(files)


def requirements(args: argparse.Namespace) -> list[tuple[str, tuple[str, ...], str]]:
    """The report extra: numpy for the figures and tables, matplotlib too for the page and the plots."""
    from .common import requires

    if args.output or args.plots:
        return [requires("report", flag="--output" if args.output else "--plots")]
    return [requires("report", "numpy")]


def run(args: argparse.Namespace) -> int:
    """Read every file (all checked first), then write the page, the plots and/or the table."""
    import sys

    from ..options import OptionError
    from ..report.data import collect
    from .common import check_output_folder, options_from_args
    from .score import file_extras, read_input

    if not (args.output or args.plots or args.latex or args.markdown):
        raise OptionError("nothing to write: give -o report.html, --plots DIR, --latex or --markdown")
    check_output_folder(args.output, "the report")
    options = options_from_args(args)
    names = system_names(args.files, args.name)
    read = [read_input(path, args) for path in args.files]
    corpora = [corpus for corpus, _ in read]
    files = [(path, corpus, read_as) for path, (corpus, read_as) in zip(args.files, read)]
    protocols = list(zip(names, file_extras(files, args, options, calibrate=True)))
    pages = bool(args.output or args.plots)  # else a table only: no analyses, no comparisons
    data = collect(list(zip(names, corpora)), options, resamples=args.bootstrap, seed=args.seed, analyses=pages)
    if args.latex or args.markdown:
        from ..report.protocols import protocols_latex, protocols_markdown
        from ..report.tables import latex_table, markdown_table

        sys.stdout.write(latex_table(data) if args.latex else markdown_table(data))
        sys.stdout.write((protocols_latex if args.latex else protocols_markdown)(protocols, data.signature))
    if pages:
        _write_outputs(data, args, list(zip(names, corpora)), protocols)
    return 0


def _write_outputs(data, args: argparse.Namespace, named_corpora: list, protocols: list) -> None:
    import sys

    from ..errors import InputError
    from ..report.html import build_report
    from ..report.plots import reliability_plots, render_plots, write_plots
    from .common import write_text

    plots = render_plots(data) + reliability_plots(named_corpora)
    if args.plots:
        try:
            written = write_plots(plots, args.plots)
        except OSError as error:
            raise InputError(f"cannot write the plots: {error.strerror or error}", source=args.plots) from None
        print(f"wrote {len(written)} plot files to {args.plots}", file=sys.stderr)
    if args.output:
        write_text(args.output, build_report(data, plots, protocols=protocols), "the report")
        print(f"wrote {args.output}", file=sys.stderr)
