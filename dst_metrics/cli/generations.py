"""``dst-metrics generations FILE``: score a run log of generated text (an LLM tracker's completions)
against its gold states, every figure plus how each generation was read.

FILE is a JSON list or JSON Lines of turn records, each with a dialogue id, a turn id, the generated
text and the gold state under the first of `FIELDS`' names it has (IC-DST's and RefPyDST's running
logs read as they are). The text is read with `dst_metrics.generation.parsing.parse_generation` and
scored with `dst_metrics.trainer.score_generations`.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from .. import options as opts
from ..errors import InputError, counted, describe
from ..figures.registry import figure_labels
from ..generation.parsing import OUTCOMES, STYLES
from ..readers.base import decode_json
from ..readers.inputs import guarded, text_file
from ..reading import READING_SETTINGS
from .common import (
    add_reading_options,
    figure_cell,
    format_table,
    option_type,
    options_from_args,
    warn_of_updates,
    whole_number,
)
from .json_output import json_output

HELP = "score a run log of generated text (LLM trackers' completions) against its gold states"

FIELDS = {
    "dialogue": ("dialogue_id", "ID", "dial_id", "dialogue"),
    "turn": ("turn_id", "turn", "turn_idx"),
    "generation": ("generation", "completion", "output", "prediction", "response", "text"),
    "gold": ("gold", "reference", "slot_values", "gt", "target", "belief_state"),
}
"""Each column's field names, tried in order."""
MAIN_FIGURES = ("gca", "jga", "fga", "sa", "aga", "rsa", "slot_f1")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """FILE, the reading of the text (style, fields, separator, examples) and the input options."""
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--style", choices=("auto", *STYLES), default="auto", help="the text's style (auto)")
    for column in FIELDS:
        names = "/".join(FIELDS[column])
        parser.add_argument(f"--{column}-field", metavar="NAME", help=f"the field of the {column} (first of {names})")
    separator_help = "read a gold value written a|b (this separator) as a or b: '|' for IC-DST's and RefPyDST's data"
    parser.add_argument(
        "--gold-alternatives-separator",
        type=option_type(opts.parse_gold_alternatives_separator),
        metavar="SEP",
        help=separator_help,
    )
    parser.add_argument("--show-unparsed", type=whole_number, default=0, metavar="N", help="print N unparsed texts")
    readings_help = "print how the first N generations were read: outcome, style, state and text"
    parser.add_argument("--show-readings", type=whole_number, default=0, metavar="N", help=readings_help)
    parser.add_argument("--json", action="store_true", help="one JSON object: figures, outcomes, signature")
    add_reading_options(parser, skip=("only_predicted",))  # the gold is in FILE
    parser.add_argument("--mode", choices=opts.MODES, default="official", help="official (default) or corrected")
    alpha_help = "GCA's value weight: 10/11 (default) or any number in [0, 1]"
    parser.add_argument("--alpha", type=option_type(opts.parse_alpha), default=opts.OFFICIAL_ALPHA, help=alpha_help)


def _records(path: str) -> list:
    """The turn records of FILE: one JSON document (a list of records, or one record) or JSON Lines; a file
    that is not UTF-8 JSON text, or nested too deeply, is one InputError naming the file and the place."""
    data = text_file(path)
    with guarded(path):
        try:
            decoded = decode_json(data, path)
        except InputError:
            if data.lstrip()[:1] == b"[" or b"\n" not in data.strip():
                raise  # one JSON document: its own error
            decoded = [
                decode_json(line, f"{path}:{number}", one_line=True)
                for number, line in enumerate(data.splitlines(), start=1)
                if line.strip()
            ]
    records = [decoded] if isinstance(decoded, dict) else decoded
    if not isinstance(records, list) or not records:
        raise InputError("expected a JSON list of turn records or JSON Lines of them", source=path)
    return records


def _columns(records: list[dict], args: argparse.Namespace, path: str) -> dict[str, list[object]]:
    """Each column's values, from each record's field for it."""
    columns: dict[str, list[object]] = {column: [] for column in FIELDS}
    for position, record in enumerate(records):
        where = f"{path}: record {position}"
        if not isinstance(record, dict):
            raise InputError(f"a turn record must be a JSON object, got {describe(record)}", source=where)
        for column, names in FIELDS.items():
            given = getattr(args, f"{column}_field")
            name = given or next((name for name in names if name in record), None)
            if name is None or name not in record:
                wanted = given or " or ".join(names)
                problem = f"the record has no {column} field ({wanted}; --{column}-field names it)"
                raise InputError(problem, source=where)
            columns[column].append(record[name])
    return columns


def run(args: argparse.Namespace) -> int:
    """Read FILE, score its generations, print the figures, the outcomes per style and the signature."""
    from ..trainer import score_generations

    options = options_from_args(args)
    columns = _columns(_records(args.file), args, args.file)
    with warnings.catch_warnings(record=True) as caught, guarded(args.file):
        warnings.simplefilter("always")
        figures = score_generations(
            columns["generation"],
            columns["dialogue"],
            columns["turn"],
            columns["gold"],
            style=args.style,
            gold_alternatives_separator=args.gold_alternatives_separator,
            show_unparsed=args.show_unparsed,
            show_readings=args.show_readings,
            on_updates=lambda: warn_of_updates(args.file),
            mode=options.mode,
            alpha=options.alpha,
            value_matching=options.value_matching,
            **{setting.name: getattr(args, setting.name) for setting in READING_SETTINGS if setting.evaluate},
        )
    for warning in caught:
        print(f"warning: {args.file}: {warning.message}", file=sys.stderr)
    if args.json:
        print(json_output("generations", [("generations", args.file)], {"file": args.file, **figures}))
        return 0
    labels = figure_labels(options)
    cells = [figure_cell(figures[key]) for key in MAIN_FIGURES]
    print(format_table(["file", *(labels[k] for k in MAIN_FIGURES)], [[args.file, *cells]]))
    rows = [
        [style, *(str(found.get(o, 0)) for o in OUTCOMES), str(figures["malformed"].get(style, 0))]
        for style, found in figures["outcomes"].items()
    ]
    print(f"\n{counted(len(columns['generation']), 'generation')} read, by style:")
    print(format_table(["style", *OUTCOMES, "malformed"], rows, "l" + "r" * (len(OUTCOMES) + 1)))
    print(f"\nscores in percent; signature: {figures['signature']}")
    return 0
