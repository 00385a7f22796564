"""``dst-metrics score FILE …``: every figure of one or more prediction files, as a table or JSON lines.

Files may be in any registered input format. Every file is read and checked before any figure is
printed; a bad option or bad input exits with status 2 and one line naming it.
"""

from __future__ import annotations

import argparse
import sys

from .. import options as opts
from ..analysis.breakdown import BY, breakdown
from ..analysis.zeroshot import DOMAINS, PROTOCOLS, read_dialogue_domains, score_domains, score_held_out
from ..core.tally import COUNT_TYPES
from ..corpus import Corpus
from ..figures.registry import FIGURES, figure_labels
from ..options import OptionError, Options
from ..readers.pairing import SUBSET_PART
from ..scoring.distributed import ENGINES
from ..scoring.engines import Request, Scored, score_inputs
from ..scoring.scores import Report, Scores
from .common import (
    add_compat_option,
    add_figure_options,
    add_input_options,
    add_interval_options,
    format_table,
    options_from_args,
    requires,
    warn_of_updates,
    whole_number,
)
from .inputs import input_spec, sgd_fuzzy
from .json_output import json_output

HELP = "score one or more prediction files"


def add_arguments(score_cmd: argparse.ArgumentParser) -> None:
    """The arguments of ``dst-metrics score``: FILEs, the input options, the figures' options, the engines."""
    score_cmd.add_argument("files", nargs="+", metavar="FILE")
    add_input_options(score_cmd)
    add_figure_options(score_cmd, "FGA's decay λ for the FGA column (0.5); JSON also has fga@0.25 … fga@1.0")
    add_compat_option(score_cmd)
    tf_help = "the predictions were made from the gold previous state: said in the signature (prev:gold)"
    score_cmd.add_argument("--teacher-forced", action="store_true", help=tf_help)
    score_cmd.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    score_cmd.add_argument("--per-dialogue", action="store_true", help="also each dialogue's figures")
    schema_help = "--compat sgd: schema.json (default GOLD/schema.json)"
    score_cmd.add_argument("--schema", metavar="PATH", help=schema_help)
    train_help = "--compat sgd: the train schema (seen services; GOLD/../train/schema.json)"
    score_cmd.add_argument("--train-schema", metavar="PATH", help=train_help)
    score_cmd.add_argument("--by", choices=BY, help="also every figure per domain, service or slot (JSON: by)")
    jobs_help = "processes per file (default: all cores from about 50,000 turns up, else 1; figures are the same)"
    score_cmd.add_argument("--jobs", type=whole_number, metavar="N", help=jobs_help)
    engine_help = "local (default) or dask: each FILE (a folder: its files) is the shards of one corpus, on Dask"
    score_cmd.add_argument("--engine", choices=ENGINES, default=ENGINES[0], help=engine_help)
    scheduler_help = "--engine dask: a running scheduler (tcp://host:8786); default a local cluster of --jobs processes"
    score_cmd.add_argument("--scheduler", metavar="ADDRESS", help=scheduler_help)
    add_interval_options(score_cmd)
    calibration_help = (
        "also the calibration figures of predictions with confidences, as dst-metrics calibration computes them "
        "(JSON: calibration); each FILE is read whole, in one process, for them"
    )
    score_cmd.add_argument("--calibration", action="store_true", help=calibration_help)
    held_out = score_cmd.add_argument_group("zero-shot, leave-one-domain-out (MultiWOZ)")
    domain_help = (
        "score one held-out domain (its dialogues or turns, its slots), or all: each of the five and the average"
    )
    held_out.add_argument("--domain", metavar="DOMAIN", help=domain_help)
    protocol_help = "--domain: trade (dialogues containing it, as TRADE's -exceptd) or active-turns (D3ST)"
    held_out.add_argument("--protocol", choices=PROTOCOLS, default=PROTOCOLS[0], help=protocol_help)
    domains_help = "--protocol trade: each dialogue's domains (TRADE's test_dials.json, MultiWOZ's data.json)"
    held_out.add_argument("--dialogue-domains", metavar="PATH", help=domains_help)


def requirements(args: argparse.Namespace) -> list[tuple[str, tuple[str, ...], str]]:
    """--ci needs numpy (the stats extra), --engine dask needs Dask (the distributed extra)."""
    ci = [requires("stats", flag="--ci")] * args.ci
    return ci + [requires("distributed", flag="--engine dask")] * (args.engine == "dask")


# Tables


def _cell(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{100 * value:.2f}"


def _columns(options: Options, per_dialogue: bool) -> list[str]:
    keys = [key for f in FIGURES if (f.per_dialogue if per_dialogue else f.group == "main") for key in f.keys(options)]
    return [*keys, "turns"]


def _figure_table(
    first: str,
    rows: list[tuple[str, Scores]],
    options: Options,
    keys: list[str],
    intervals: dict | None = None,
    marked: bool = True,
) -> str:
    """One row per file, dialogue or group; `intervals` add a ``low-high`` row; `marked`: a profile's columns."""
    labels = figure_labels(options)
    replaced = _replaced_columns(rows, keys) if marked else set()
    header = [first, *(labels[key] + PROFILE_MARK * (key in replaced) for key in keys)]
    table = []
    for name, s in rows:
        table.append([name, *(_cell(s[key]) for key in keys)])
        if intervals and name in intervals:
            bounds = intervals[name]
            level = f"  {100 * bounds.level:g}% CI"
            table.append([level, *(_interval_cell(bounds.get(key)) for key in keys)])
    return format_table(header, table)


PROFILE_MARK = "†"
"""Marks a column of the figure table that a compatibility profile computed its evaluator's way."""


def _replaced_columns(rows: list[tuple[str, Scores]], keys: list[str]) -> set[str]:
    """The columns (of `keys`) whose figures a compatibility profile gave in some row."""
    return {key for key in keys for _, scores in rows if scores.replaced(key)}


def _interval_cell(bounds: tuple[float, float] | None) -> str:
    return "" if bounds is None else f"{100 * bounds[0]:.2f}-{100 * bounds[1]:.2f}"


def _score_intervals(corpora: list[tuple[str, Corpus]], options: Options, args: argparse.Namespace) -> dict | None:
    """{path: Intervals} with --ci (bootstrap over dialogues, `dst_metrics.stats`), else None."""
    if not args.ci:
        return None
    if options.compat is not None:
        raise OptionError("--ci gives intervals of dst-metrics' own figures; it cannot be combined with --compat")
    from ..stats import bootstrap_intervals

    return {
        path: bootstrap_intervals(corpus, options, resamples=args.bootstrap, seed=args.seed, method=args.ci_method)
        for path, corpus in corpora
    }


def _coverage(signature: str) -> tuple[int, int] | None:
    """(dialogues scored, gold dialogues) of a signature's ``subset:predicted(k/n)``, or None."""
    prefix = f"{SUBSET_PART}("
    for part in signature.split("|"):
        if part.startswith(prefix) and part.endswith(")"):
            scored, _, gold = part[len(prefix) : -1].partition("/")
            return int(scored), int(gold)
    return None


def _print_score_tables(
    reports: list[tuple[str, Report]],
    options: Options,
    per_dialogue: bool,
    by: str | None,
    groups: list,
    read_as: dict[str, str],
    intervals: dict | None = None,
    calibration: list | None = None,
) -> None:
    rows = [(path, report.scores) for path, report in reports]
    print(_figure_table("file", rows, options, _columns(options, False), intervals))
    replaced = _replaced_columns(rows, _columns(options, False))
    if replaced:
        labels = figure_labels(options)
        named = ", ".join(labels[key] for key in _columns(options, False) if key in replaced)
        print(f"{PROFILE_MARK} {named}: computed the {options.compat} profile's way (--compat); the rest are ours")
    if per_dialogue:
        for path, report in reports:
            print(f"\n{path}: each dialogue")
            print(_figure_table("dialogue", list(report.dialogues.items()), options, _columns(options, True)))
    for (path, _), file_groups in zip(reports, groups):
        print(f"\n{path}: by {by}")
        keys = [*_columns(options, False)[:-1], *COUNT_TYPES, "turns"]  # the headline figures, the GCA counts
        print(_figure_table(str(by), list(file_groups.items()), options, keys, marked=False))
    for path, report in reports:
        shown = set(_columns(options, False))
        extra = [key for key in report.scores if key not in shown and _is_profile_figure(report.scores, key)]
        if extra:
            cells = ", ".join(f"{key} {_cell(report.scores[key])}" for key in extra)
            print(f"\n{path}: the {options.compat} profile's other figures: {cells}")
        for key, by_group in report.scores.items():
            if isinstance(by_group, dict):  # a profile's figures by group (sgd: {group: {figure: value}})
                print(f"\n{path}: the {options.compat} profile's own figures by group ({key} in --json)")
                print(_profile_table(by_group))
    for path, report in reports:
        coverage = _coverage(report.signature)
        if coverage:
            scored, gold = coverage
            print(f"\n{path}: only the gold dialogues predicted: {scored} of {gold} ({100 * scored / gold:.1f}%)")
    formats = sorted(set(read_as.values()))
    read_text = formats[0] if len(formats) == 1 else "; ".join(f"{path}: {read_as[path]}" for path, _ in reports)
    print(f"\nscores in percent; FGA at lambda={opts.format_number(options.fga_lambda)}; read as {read_text}")
    suffix = ""
    if intervals:
        first = next(iter(intervals.values()))
        print(f"CI: {first.method} bootstrap over dialogues, {first.resamples} resamples, seed {first.seed}")
        suffix = first.signature_suffix
    signature = f"{reports[0][1].signature}{suffix}"  # as in --json: a profile may add fields
    print(f"signature: {signature}")
    for (path, _), block in zip(reports, calibration or ()):
        _print_calibration(path, block)


PROFILE_LABELS = {
    "joint_goal_accuracy": "JGA",
    "average_goal_accuracy": "AGA",
    "joint_cat_accuracy": "JGA cat",
    "average_cat_accuracy": "AGA cat",
    "joint_noncat_accuracy": "JGA noncat",
    "average_noncat_accuracy": "AGA noncat",
    "active_intent_accuracy": "intent",
    "requested_slots_f1": "req F1",
    "requested_slots_precision": "req P",
    "requested_slots_recall": "req R",
    "slot_tagging_f1": "tag F1",
    "slot_tagging_precision": "tag P",
    "slot_tagging_recall": "tag R",
    "f1": "F1",
    "turns": "turns",
}
"""Column labels of a profile's own figures (the SGD evaluator's names, as in --json), in this order;
any other figure keeps its name and comes after them."""
PROFILE_LEGEND = {
    "JGA": "joint goal accuracy",
    "AGA": "average goal accuracy",
    "cat": "categorical slots only",
    "noncat": "non-categorical slots only",
    "intent": "active intent accuracy",
    "req": "requested slots",
    "tag": "slot tagging",
    "F1": "mean of the turns' F1",
}
"""What each word of a profile's column labels means; a table's legend explains the words its columns use."""


def _is_profile_figure(scores: Scores, key: str) -> bool:
    """Whether a profile gave `key` and it is one number (not a group table, not a setting's name)."""
    value = scores[key]
    return scores.replaced(key) and isinstance(value, (int, float)) and not isinstance(value, bool)


def _profile_table(by_group: dict[str, dict[str, float]]) -> str:
    """One row per group, one column per figure (``-`` where the group lacks it), then the columns' legend."""
    found = {name for figures in by_group.values() for name in figures}
    names = [name for name in PROFILE_LABELS if name in found] + sorted(found - set(PROFILE_LABELS))
    labels = [PROFILE_LABELS.get(name, name) for name in names]
    rows = [
        [group, *(_cell(figures[name]) if name in figures else "-" for name in names)]
        for group, figures in by_group.items()
    ]
    words = {word for label in labels for word in label.split()}
    legend = "; ".join(f"{word}: {meaning}" for word, meaning in PROFILE_LEGEND.items() if word in words)
    return f"{format_table(['group', *labels], rows)}\n{legend}"


# Commands


def request_of(args: argparse.Namespace) -> Request:
    """The `engines.Request` of ``dst-metrics score``'s arguments: what the engine is chosen from."""
    kept = {"--by": args.by, "--ci": args.ci, "--calibration": args.calibration, "--domain": args.domain}
    return Request(
        per_dialogue=args.per_dialogue,
        dialogue_figures=args.json,
        needs_whole_corpus=tuple(flag for flag, given in kept.items() if given),
        engine=args.engine,
        jobs=args.jobs,
        scheduler=args.scheduler,
        compat_files={
            "gold": args.gold,
            "schema": args.schema,
            "train_schema": args.train_schema,
            "by": args.by,
            "fuzzy": sgd_fuzzy(args),
        },
        on_updates=warn_of_updates,
    )


def _print_calibration(path: str, block: dict | None) -> None:
    """--calibration without --json: one file's calibration figures by level, or a line saying it has none."""
    from .common import levels_table

    if block is None:
        print(f"\n{path}: no predicted value carries a confidence: no calibration figures")
        return
    print(f"\n{path}: calibration (Acc, MRR, CA05, AUROC in percent; L2, ECE, Brier as fractions; - undefined)")
    print(levels_table(block, block["slots"], block["turns"]))
    print(f"signature: {block['signature']}")


def _print_held_out(args: argparse.Namespace, options: Options, scored: list[Scored]) -> int:
    """--domain: each file's held-out domain (`zeroshot`), or with ``all`` a row per domain and the average, from
    the corpora the engines read whole (`request_of`: ``--domain`` needs them)."""
    domains = read_dialogue_domains(args.dialogue_domains) if args.dialogue_domains else None
    read = {found.name: found for found in scored}
    if args.domain != "all":
        reports = [
            (path, score_held_out(found.corpus, args.domain, args.protocol, options, domains))
            for path, found in read.items()
        ]
        if not args.json:
            formats = {path: found.format for path, found in read.items()}
            _print_score_tables(reports, reports[0][1].options, False, None, [], formats)
        for path, report in reports if args.json else ():
            record = {"file": path, "format": read[path].format, **report.scores.as_dict()}
            record["signatures"] = report.scores.signatures()
            sys.stdout.write(json_output("score", _inputs(args, path), record) + "\n")
        return 0
    for path, found in read.items():
        rows = score_domains(found.corpus, args.protocol, options, domains)
        if args.json:
            record = {"file": path, "format": found.format, "protocol": args.protocol}
            record.update({name: scores.as_dict() for name, scores in rows.items()})
            sys.stdout.write(json_output("score", _inputs(args, path), record) + "\n")
            continue
        print(f"{path}: each held-out domain (--protocol {args.protocol}), then the mean over the {len(DOMAINS)}")
        print(_figure_table("held out", list(rows.items()), options, _columns(options, False)))
        print(f"scores in percent; SA over each domain's slots (K); signature: {rows['average'].signature}\n")
    return 0


def _inputs(args: argparse.Namespace, path: str) -> list[tuple[str, str | None]]:
    """The inputs of FILE's JSON line: FILE and the files every FILE shares (`json_output.output_header`)."""
    shared = ("gold", "schema", "train_schema", "dialogue_domains")
    return [("predictions", path), *((name, getattr(args, name)) for name in shared)]


def run(args: argparse.Namespace) -> int:
    """Read and check every file, score each, print the table (or one JSON line per file)."""
    options = options_from_args(args)
    specs = [input_spec(path, args) for path in args.files]
    scored = score_inputs(specs, options, request_of(args))
    if args.domain:
        return _print_held_out(args, options, scored)
    reports = [(found.name, found.report) for found in scored]
    corpora = [(found.name, found.corpus) for found in scored if found.corpus is not None]
    dialogue_figures = {found.name: found.dialogue_figures for found in scored if found.dialogue_figures is not None}
    read_as = {found.name: found.format for found in scored}
    groups = [breakdown(corpus, options, args.by) for _, corpus in corpora] if args.by else []
    intervals = _score_intervals(corpora, options, args)
    calibration, calibrated = None, ""
    if args.calibration:  # a pass of its own over the corpus read whole (`request_of`): nothing kept for it
        from ..protocols.extras import calibration_block, calibration_part

        calibration = [calibration_block(corpus, options) for _, corpus in corpora]
        calibrated = f"|{calibration_part()}"  # the calibration family's part ends the file's signature
    if not args.json:
        _print_score_tables(reports, options, args.per_dialogue, args.by, groups, read_as, intervals, calibration)
        return 0
    for index, (path, report) in enumerate(reports):
        record = {"file": path, "format": read_as[path], **report.scores.as_dict()}
        record["signatures"] = report.scores.signatures()  # each figure's: only the options that change it
        if intervals:
            record["ci"] = intervals[path].as_dict()
            suffix = intervals[path].signature_suffix
            record["signature"] += suffix
            record["signatures"] = {key: signature + suffix for key, signature in record["signatures"].items()}
        if args.by:
            record["by"] = {group: dict(s) for group, s in groups[index].items()}
        if args.per_dialogue:
            record["dialogues"] = dialogue_figures[path]
        if calibration and calibration[index] is not None:
            record["calibration"] = calibration[index]
            record["signature"] += calibrated
        sys.stdout.write(json_output("score", _inputs(args, path), record) + "\n")
    return 0
