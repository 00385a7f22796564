"""``dst-metrics report FILE... -o report.html``: one self-contained HTML page of one or more prediction
files (figures with bootstrap intervals, each later file compared with the first, the plots), or
``--latex`` / ``--markdown`` tables; ``--perturbed`` and ``--schema-variants`` add the protocols' figures.
numpy and matplotlib are imported when the command runs (docs/report.md).
"""

from __future__ import annotations

import argparse

HELP = "an HTML report with intervals, comparisons and plots; LaTeX/Markdown tables for papers"
DEFAULT_RESAMPLES = 1000
"""Bootstrap resamples unless --bootstrap says otherwise (the randomization rounds of the comparisons
follow from the family size and the level: `dst_metrics.stats.paired.randomization_rounds`)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The report command's arguments (the usual input options included)."""
    from .common import add_figure_options, add_input_options, seed_number

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
    add_protocol_options(parser)


def add_protocol_options(parser: argparse.ArgumentParser) -> None:
    """The report's --perturbed and --schema-variants (`protocols.extras`): each given once per FILE, in FILE
    order; with --schema and --train-schema."""
    description = (
        "Papers' protocols beside the figures, in the page's Protocols section and --latex/--markdown. With "
        "several FILEs, give --perturbed once per FILE and --schema-variants V1 … V5 once per FILE, the k-th for "
        "the k-th FILE (as --name). Predictions that carry confidences also get their calibration figures, as "
        "dst-metrics calibration --json computes them."
    )
    protocols = parser.add_argument_group("protocols (CheckDST, SGD-X, calibration)", description)
    perturbed_help = "CheckDST: the predictions on FILE's perturbed dialogues (dst-metrics checkdst's figures)"
    protocols.add_argument("--perturbed", action="append", metavar="PERTURBED", help=perturbed_help)
    variants_help = "SGD-X: FILE's predictions on schema variants v1 … v5 (SGD, --gold; dst-metrics sgdx's figures)"
    protocols.add_argument("--schema-variants", action="append", nargs="+", metavar="V", help=variants_help)
    protocols.add_argument("--schema", metavar="PATH", help="--schema-variants: schema.json (GOLD/schema.json)")
    train_help = "--schema-variants: the train schema (seen services; GOLD/../train/schema.json)"
    protocols.add_argument("--train-schema", metavar="PATH", help=train_help)


def per_file(flag: str, given: list | None, files: list[str]) -> list:
    """A per-FILE option's values in FILE order (None for each file when not given); OptionError naming
    `flag` when it is not given once per FILE."""
    from ..errors import counted
    from ..options import OptionError

    if not given:
        return [None] * len(files)
    if len(given) != len(files):
        times = counted(len(given), "time")
        raise OptionError(f"{flag} is given {times} for {counted(len(files), 'file')}; give it once per FILE")
    return list(given)


def check_sgd_input(path: str, read_as: str, variants: object) -> None:
    """--schema-variants given for a FILE not read as SGD dialogues: an OptionError naming both."""
    from ..options import OptionError

    if variants is not None and not read_as.startswith("sgd"):
        raise OptionError(f"--schema-variants: SGD-X scores SGD predictions, but {path} was read as {read_as}")


def file_extras(files: list[tuple], args: argparse.Namespace, options) -> list:
    """`protocols.extras.Extras` of each (name, corpus, format) of the FILEs: CheckDST with its --perturbed
    (read and checked with the input options, as ``dst-metrics checkdst`` reads it), SGD-X with its
    --schema-variants (as ``dst-metrics sgdx``), the calibration block of predictions with confidences."""
    from ..protocols.extras import extra_figures, schema_variants
    from .inputs import read_input, sgd_fuzzy

    perturbed = per_file("--perturbed", args.perturbed, args.files)
    variants = per_file("--schema-variants", args.schema_variants, args.files)
    fuzzy = sgd_fuzzy(args)
    found = [schema_variants(v, args.gold, args.schema, args.train_schema, fuzzy) if v else None for v in variants]
    pairs = [(path, read_input(path, args)[0]) if path else None for path in perturbed]
    out = []
    for (name, corpus, read_as), paired, schemas in zip(files, pairs, found):
        check_sgd_input(name, read_as, schemas)
        out.append(extra_figures(name, corpus, options, perturbed=paired, variants=schemas, calibration=True))
    return out


def system_names(files: list[str], given: list[str] | None, runs: bool = False) -> list[str]:
    """The names of the systems: those given (one per file; with `runs` a name may repeat: runs of one
    system), else the file names, else the paths when two file names are equal."""
    from pathlib import Path

    from ..errors import counted
    from ..options import OptionError

    if given:
        if len(given) != len(files):
            times, for_files = counted(len(given), "time"), counted(len(files), "file")
            raise OptionError(f"--name is given {times} for {for_files}; give it once per file")
        if len(set(given)) != len(given) and not runs:
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
    from .inputs import read_input

    if not (args.output or args.plots or args.latex or args.markdown):
        raise OptionError("nothing to write: give -o report.html, --plots DIR, --latex or --markdown")
    check_output_folder(args.output, "the report")
    options = options_from_args(args)
    names = system_names(args.files, args.name)
    read = [read_input(path, args) for path in args.files]
    corpora = [corpus for corpus, _ in read]
    files = [(path, corpus, read_as) for path, (corpus, read_as) in zip(args.files, read)]
    protocols = list(zip(names, file_extras(files, args, options)))
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

    from ..errors import InputError, counted
    from ..report.html import build_report
    from ..report.plots import reliability_plots, render_plots, write_plots
    from .common import write_text

    plots = render_plots(data) + reliability_plots(named_corpora)
    if args.plots:
        try:
            written = write_plots(plots, args.plots)
        except OSError as error:
            raise InputError(f"cannot write the plots: {error.strerror or error}", source=args.plots) from None
        print(f"wrote {counted(len(written), 'plot file')} to {args.plots}", file=sys.stderr)
    if args.output:
        write_text(args.output, build_report(data, plots, protocols=protocols), "the report")
        print(f"wrote {args.output}", file=sys.stderr)
