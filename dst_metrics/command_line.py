"""The command line's commands: ``dst-metrics score FILE …``, ``dst-metrics explain FILE --dialogue ID``
and those of `EXTRA_COMMANDS` (`dst_metrics.cli` is the entry point, and re-exports these names).

Files may be in any registered input format (`dst_metrics.readers`; detected from the content
unless ``--format`` names one). Every file is read and checked before any figure is printed; a
bad option or bad input exits with status 2 and one line naming the option, or the file,
dialogue, turn and field.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
import unicodedata
from collections.abc import Sequence

from . import options as opts
from ._gc import gc_paused
from ._version import __version__
from .breakdown import BY, breakdown
from .commands import EXTRA_COMMANDS, CommandParser, dumps, run_parsed, whole_number
from .compat import PROFILES
from .corpus import Corpus, Dialogue
from .distributed import ENGINES
from .errors import InputError, json_text
from .figures import FIGURES, figure_computer, figure_labels
from .options import OptionError, Options
from .progress import progress
from .readers import FORMATS, READERS, pair, read_side, read_with_format
from .scoring import Report, Scores, score, score_tallies

# --------------------------------------------------------------------------------------------
# Arguments

_Parser = CommandParser
_whole_number = whole_number
_dumps = dumps


def _typed(parse):
    """An argparse `type` from one of the options' parsers: its message, not argparse's."""

    def convert(text: str):
        try:
            return parse(text)
        except OptionError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = parse.__name__.removeprefix("parse_")
    return convert


def add_input_options(sub: argparse.ArgumentParser) -> None:
    """The input options every command that reads prediction files shares (format, gold, matching, mode, α)."""
    names = ", ".join(f"{name} ({reader.description})" for name, reader in READERS.items())
    sub.add_argument("--format", choices=FORMATS, default="auto", help=f"input format: auto (default), {names}")
    sub.add_argument("--gold", metavar="PATH", help="gold file or folder, for inputs that hold predictions only")
    sub.add_argument("--gold-format", choices=FORMATS, default="auto", help="the format of --gold (auto)")
    matching_help = "exact (default); normalized: case and white space folded; fuzzy: folded, then partial_ratio > 95"
    sub.add_argument("--value-matching", choices=opts.VALUE_MATCHINGS, help=matching_help)
    sub.add_argument("--mode", choices=opts.MODES, default="official", help="official (default) or corrected")
    alpha_help = "GCA's value weight: 10/11 (default) or any number in [0, 1]"
    sub.add_argument("--alpha", type=_typed(opts.parse_alpha), default=opts.OFFICIAL_ALPHA, help=alpha_help)
    sub.add_argument("--quiet", action="store_true", help="no progress bar (shown on a terminal after 2 s)")


def _seed(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number at least 0; got {text!r}")
    return int(text)


def add_interval_options(sub: argparse.ArgumentParser, *, flag: bool = True) -> None:
    """Bootstrap options (``--bootstrap N``, ``--seed S``; with `flag` also ``--ci`` and ``--ci-method``)."""
    if flag:
        sub.add_argument("--ci", action="store_true", help="95%% bootstrap intervals over dialogues (JSON: ci)")
        sub.add_argument("--ci-method", choices=("percentile", "bca"), default="percentile", help="percentile or bca")
    sub.add_argument("--bootstrap", type=_whole_number, default=1000, metavar="N", help="resamples (1000)")
    sub.add_argument("--seed", type=_seed, default=0, help="seed of the resamples (0)")


OWN_COMMANDS = ("score", "explain")
"""The commands parsed and run here (the others: `EXTRA_COMMANDS`)."""


def _parser(extra_commands: bool = True) -> argparse.ArgumentParser:
    """The command line's parser; without `extra_commands`, only `OWN_COMMANDS` (their modules are
    not imported: ``dst-metrics score`` needs none of them)."""
    parser = _Parser(
        prog="dst-metrics", description="Score dialogue state tracking predictions (GCA, JGA, FGA, SA, AGA, RSA)."
    )
    parser.add_argument("--version", action="version", version=f"dst-metrics {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    score_cmd = commands.add_parser("score", help="score one or more prediction files")
    score_cmd.add_argument("files", nargs="+", metavar="FILE")
    add_input_options(score_cmd)
    lambda_help = "FGA's decay λ for the FGA column (0.5); JSON also has fga@0.25 … fga@1.0"
    score_cmd.add_argument(
        "--fga-lambda", type=_typed(opts.parse_lambda), default=opts.DEFAULT_FGA_LAMBDA, help=lambda_help
    )
    score_cmd.add_argument(
        "--num-slots", type=_typed(opts.parse_num_slots), default=opts.MULTIWOZ_NUM_SLOTS, help="K for SA (30)"
    )
    profiles = ", ".join(f"{name} ({profile.description})" for name, profile in PROFILES.items())
    score_cmd.add_argument(
        "--compat", choices=list(PROFILES), help=f"figures as another evaluator computes them: {profiles}"
    )
    score_cmd.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    score_cmd.add_argument("--per-dialogue", action="store_true", help="also each dialogue's figures")
    score_cmd.add_argument("--schema", metavar="PATH", help="--compat sgd: schema.json (default GOLD/schema.json)")
    score_cmd.add_argument("--train-schema", metavar="PATH", help="--compat sgd: the train schema (seen services)")
    score_cmd.add_argument("--by", choices=BY, help="also every figure per domain, service or slot (JSON: by)")
    jobs_help = "processes per file (default: all cores from about 50,000 turns up, else 1; figures are the same)"
    score_cmd.add_argument("--jobs", type=_whole_number, metavar="N", help=jobs_help)
    engine_help = "local (default) or dask: each FILE (a folder: its files) is the shards of one corpus, on Dask"
    score_cmd.add_argument("--engine", choices=ENGINES, default=ENGINES[0], help=engine_help)
    scheduler_help = "--engine dask: a running scheduler (tcp://host:8786); default a local cluster of --jobs processes"
    score_cmd.add_argument("--scheduler", metavar="ADDRESS", help=scheduler_help)
    add_interval_options(score_cmd)

    explain_cmd = commands.add_parser("explain", help="per turn and slot: how GCA counted a dialogue")
    explain_cmd.add_argument("file", metavar="FILE")
    explain_cmd.add_argument("--dialogue", help="dialogue id (default: the first)")
    explain_cmd.add_argument("--all-slots", action="store_true", help="also slots carried over unchanged")
    add_input_options(explain_cmd)
    for name, module_name in EXTRA_COMMANDS.items() if extra_commands else ():
        module = importlib.import_module(module_name)
        module.add_arguments(commands.add_parser(name, help=module.HELP))
    return parser


def options_from_args(args: argparse.Namespace) -> Options:
    """The `Options` of parsed arguments (fields a command does not offer keep their defaults)."""
    values = {"mode": args.mode, "alpha": args.alpha, "value_matching": args.value_matching}
    for name in ("fga_lambda", "num_slots", "compat"):
        if getattr(args, name, None) is not None:
            values[name] = getattr(args, name)
    return Options(**values)


# --------------------------------------------------------------------------------------------
# Tables


def display_width(text: str) -> int:
    """Columns `text` takes in a terminal: wide (CJK) characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _left(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


def _right(text: str, width: int) -> str:
    return " " * (width - display_width(text)) + text


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """Columns aligned by display width; `align` has an ``l`` or ``r`` per column (default: the
    first left, the others right)."""
    align = align or "l" + "r" * (len(header) - 1)
    widths = [max(display_width(row[i]) for row in (header, *rows)) for i in range(len(header))]
    pads = [_left if a == "l" else _right for a in align]
    return "\n".join("  ".join(pad(c, w) for pad, c, w in zip(pads, row, widths)).rstrip() for row in (header, *rows))


def _cell(scores: Scores, key: str) -> str:
    value = scores[key]
    return str(value) if isinstance(value, int) else f"{100 * value:.2f}"


def _columns(options: Options, per_dialogue: bool) -> list[str]:
    keys = [key for f in FIGURES if (f.per_dialogue if per_dialogue else f.group == "main") for key in f.keys(options)]
    return [*keys, "turns"]


def dialogue_figures(report: Report) -> dict[str, Scores]:
    """Each dialogue's per-dialogue figures and turns only (what `--per-dialogue` lists), from its tally."""
    signature = report.signature
    figures = figure_computer(report.options, per_dialogue=True)
    out = {}
    for dialogue_id, tally in report.dialogue_tallies.items():
        values = figures(tally)
        values["turns"] = tally.turns
        out[dialogue_id] = Scores(values, signature)
    return out


def _figure_table(
    first: str, rows: list[tuple[str, Scores]], options: Options, per_dialogue: bool, intervals: dict | None = None
) -> str:
    """One row per file or dialogue; with `intervals` ({name: Intervals}), a ``low-high`` row under each."""
    keys = _columns(options, per_dialogue)
    labels = figure_labels(options)
    header = [first, *(labels[key] for key in keys)]
    table = []
    for name, s in rows:
        table.append([name, *(_cell(s, key) for key in keys)])
        if intervals and name in intervals:
            bounds = intervals[name]
            level = f"  {100 * bounds.level:g}% CI"
            table.append([level, *(_interval_cell(bounds.get(key)) for key in keys)])
    return format_table(header, table)


def _interval_cell(bounds: tuple[float, float] | None) -> str:
    return "" if bounds is None else f"{100 * bounds[0]:.2f}-{100 * bounds[1]:.2f}"


def _score_intervals(corpora: list[tuple[str, Corpus]], options: Options, args: argparse.Namespace) -> dict | None:
    """{path: Intervals} with --ci (bootstrap over dialogues, `dst_metrics.stats`), else None."""
    if not args.ci:
        return None
    if options.compat is not None:
        raise OptionError("--ci gives intervals of dst-metrics' own figures; it cannot be combined with --compat")
    from .stats import bootstrap_intervals

    return {
        path: bootstrap_intervals(corpus, options, resamples=args.bootstrap, seed=args.seed, method=args.ci_method)
        for path, corpus in corpora
    }


def _breakdown_table(by: str, groups: dict[str, Scores], options: Options) -> str:
    """One row per group: the headline figures, then the four GCA counts."""
    keys = [*_columns(options, False)[:-1], "correct", "wrong", "missed", "overshot", "turns"]
    labels = figure_labels(options)
    rows = [[group, *(_cell(s, key) for key in keys)] for group, s in groups.items()]
    return format_table([by, *(labels[key] for key in keys)], rows)


def _print_score_tables(
    reports: list[tuple[str, Report]],
    options: Options,
    per_dialogue: bool,
    by: str | None,
    groups: list,
    read_as: dict[str, str],
    intervals: dict | None = None,
) -> None:
    print(_figure_table("file", [(path, report.scores) for path, report in reports], options, False, intervals))
    if per_dialogue:
        for path, report in reports:
            print(f"\n{path}: each dialogue")
            print(_figure_table("dialogue", list(dialogue_figures(report).items()), options, True))
    for (path, _), file_groups in zip(reports, groups):
        print(f"\n{path}: by {by}")
        print(_breakdown_table(str(by), file_groups, options))
    formats = sorted(set(read_as.values()))
    read_text = formats[0] if len(formats) == 1 else "; ".join(f"{path}: {read_as[path]}" for path, _ in reports)
    print(f"\nscores in percent; FGA at lambda={opts.format_number(options.fga_lambda)}; read as {read_text}")
    suffix = ""
    if intervals:
        first = next(iter(intervals.values()))
        print(f"CI: {first.method} bootstrap over dialogues, {first.resamples} resamples, seed {first.seed}")
        suffix = first.signature_suffix
    print(f"signature: {options.signature()}{suffix}")


# --------------------------------------------------------------------------------------------
# Commands


def read_input(path: str, args: argparse.Namespace) -> tuple[Corpus, str]:
    """The corpus of `path` (with --gold: paired with it) and the format(s) it was read in."""
    if args.gold:
        pred = read_side(path, "pred", args.format, name=path)
        gold = read_side(args.gold, "gold", args.gold_format, name=args.gold)
        with gc_paused():
            corpus = pair(gold, pred, value_matching=args.value_matching)
        return corpus, f"{pred.format}, gold {gold.format}"
    return read_with_format(path, args.format, value_matching=args.value_matching, name=path)


def _read(path: str, args: argparse.Namespace) -> Corpus:
    return read_input(path, args)[0]


def _score_file(path: str, corpus: Corpus, options: Options, args: argparse.Namespace) -> Report:
    """Score one file; a profile that reads more than the corpus (sgd) gets its files meanwhile."""
    profile = PROFILES.get(options.compat)
    inputs = profile.cli_inputs(path, args) if profile and profile.cli_inputs else None
    return score(corpus, options, per_dialogue=args.per_dialogue, compat_inputs=inputs)


def _jobs(args: argparse.Namespace) -> int:
    """Processes per file: --jobs, else all cores for large inputs (`parallel.default_jobs`); 1
    wherever figures need the whole corpus in this process (--compat, --by, --ci)."""
    if args.compat or args.by or args.ci:
        return 1
    from .parallel import default_jobs

    return args.jobs if args.jobs is not None else default_jobs(args.files)


def _tallies_without_corpus(path: str, args: argparse.Namespace, options: Options, jobs: int) -> tuple | None:
    """(tallies, format) of one file streamed (JSON Lines turn records, `streaming`) or read in `jobs`
    processes (`parallel`); None where it must be read whole in this process."""
    from .streaming import stream_tally, streamable

    streamed = None if args.gold else streamable(path, args.format)
    if streamed == "jsonl" or (streamed == "reference" and jobs == 1):  # the layout: processes, when several
        tallies = stream_tally(path, value_matching=options.value_matching, mode=options.mode,
                               per_dialogue=args.per_dialogue, format=streamed)  # fmt: skip
        if tallies is not None:
            return tallies, streamed
    if jobs > 1:
        from .parallel import tally_in_processes

        return tally_in_processes(path, args, options.mode, jobs, args.per_dialogue)
    return None


def _score_in_processes(args: argparse.Namespace, options: Options, jobs: int) -> tuple | None:
    """(read_as, reports) of every file streamed or scored in `jobs` processes; None if one of them
    must be read whole here (then every file is, so that every file is checked before any figure)."""
    read_as, reports = {}, []
    for path in progress(args.files, unit="files", desc="scoring"):
        found = _tallies_without_corpus(path, args, options, jobs)
        if found is None:
            return None
        tallies, how = found
        read_as[path] = (None, how)
        reports.append((path, score_tallies(tallies, options)))
    return read_as, reports


def _score_on_dask(args: argparse.Namespace, options: Options) -> tuple[dict, list]:
    """(read_as, reports) of every FILE scored as the shards of one corpus on Dask (`distributed`)."""
    from .distributed import dask_client, score_shards, shard_paths

    for flag, given in (("--gold", args.gold), ("--per-dialogue", args.per_dialogue), ("--by", args.by),
                        ("--ci", args.ci), ("--compat", args.compat)):  # fmt: skip
        if given:
            raise OptionError(f"{flag} needs the whole corpus in one process; it cannot run on --engine dask")
    shards = {path: shard_paths(path) for path in args.files}  # every argument checked first
    read_as, reports = {}, []
    with dask_client(args.scheduler, args.jobs) as client:
        for path, paths in shards.items():
            reports.append((path, score_shards(paths, options, format=args.format, client=client)))
            read_as[path] = (None, f"{len(paths)} shard{'s' * (len(paths) != 1)} on dask")
    return read_as, reports


def _score(args: argparse.Namespace) -> int:
    options = options_from_args(args)
    if args.scheduler and args.engine != "dask":
        raise OptionError("--scheduler is the address of a Dask scheduler: use it with --engine dask")
    jobs = _jobs(args)
    if args.engine == "dask":
        scored = _score_on_dask(args, options)
    else:
        scored = None if args.compat or args.by or args.ci else _score_in_processes(args, options, jobs)
    if scored is not None:
        read_as, reports = scored
        corpora: list = []
    else:
        files = progress(args.files, unit="files", desc="reading")
        read_as = {path: read_input(path, args) for path in files}  # every file checked first
        corpora = [(path, corpus) for path, (corpus, _) in read_as.items()]
        scoring = progress(corpora, unit="files", desc="scoring")
        reports = [(path, _score_file(path, corpus, options, args)) for path, corpus in scoring]
    groups = [breakdown(corpus, options, args.by) for _, corpus in corpora] if args.by else []
    intervals = _score_intervals(corpora, options, args)
    if not args.json:
        formats = {path: how for path, (_, how) in read_as.items()}
        _print_score_tables(reports, options, args.per_dialogue, args.by, groups, formats, intervals)
        return 0
    dialogue_figures_of = figure_computer(options, per_dialogue=True)  # the keys of _columns(options, True)[:-1]
    for index, (path, report) in enumerate(reports):
        record = {"file": path, "format": read_as[path][1], **report.scores.as_dict()}
        if intervals:
            record["ci"] = intervals[path].as_dict()
            record["signature"] += intervals[path].signature_suffix
        if args.by:
            record["by"] = {group: dict(s) for group, s in groups[index].items()}
        if args.per_dialogue:
            tallies = report.dialogue_tallies
            record["dialogues"] = {dialogue_id: dialogue_figures_of(tally) for dialogue_id, tally in tallies.items()}
        sys.stdout.write(_dumps(record) + "\n")
    return 0


def _find_dialogue(corpus: Corpus, wanted: str | None, path: str) -> Dialogue:
    if wanted is None:
        return corpus.dialogues[0]
    try:
        return corpus.dialogue(wanted)
    except KeyError:
        known = [d.dialogue_id for d in corpus.dialogues]
        near = difflib.get_close_matches(wanted, known, n=5, cutoff=0.5) or known[:5]
        listed = ", ".join(json_text(d) for d in near)
        raise InputError(f"there is no dialogue {json_text(wanted)}; the nearest ids: {listed}", source=path) from None


def _explain(args: argparse.Namespace) -> int:
    from .explain import domain_gca, explain_dialogue

    options = options_from_args(args)
    corpus = _read(args.file, args)
    dialogue = _find_dialogue(corpus, args.dialogue, args.file)
    rows = [r for r in explain_dialogue(dialogue, options.mode) if args.all_slots or r.count_types]
    shown = "every slot" if args.all_slots else "changed slots only; --all-slots shows every slot"
    print(f"dialogue {json_text(dialogue.dialogue_id)} ({options.mode} mode, {shown})")
    table = [[str(r.turn_id), r.slot, _value(r.gold), _value(r.pred), r.label] for r in rows]
    print(format_table(["turn", "slot", "gold", "pred", "count"], table, "rllll") if table else "(no slot changed)")
    report = score(Corpus((dialogue,), corpus.value_matching), options)
    s = report.scores
    print(f"\ncorrect {s.correct}  wrong {s.wrong}  missed {s.missed}  overshot {s.overshot}  GCA {100 * s.gca:.2f}")
    for domain, figures in domain_gca([dialogue], options.mode, options.alpha).items():
        counts = "  ".join(f"{k} {figures[k]}" for k in ("correct", "wrong", "missed", "overshot"))
        print(f"  {domain}: {counts}  GCA {100 * figures['gca']:.2f}")
    print(f"signature: {report.signature}")
    return 0


def _value(value: str | None) -> str:
    return "-" if value is None else value


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dst-metrics`` and ``python -m dst_metrics``; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser(extra_commands=not argv or argv[0] not in OWN_COMMANDS).parse_args(argv)
    if args.command in EXTRA_COMMANDS:
        return run_parsed(args, importlib.import_module(EXTRA_COMMANDS[args.command]).run)
    return run_parsed(args, _score if args.command == "score" else _explain)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
