"""``dst-metrics sgdx ORIG V1 … V5 --gold GOLD [--schema S] [--train-schema T] [--json]``: SGD-X schema
sensitivity (`dst_metrics.protocols.sgdx`) of SGD predictions on the original schema and on each variant,
scored against the same gold: a table per split (all, seen, unseen), or with ``--json`` every figure of
`protocols.sgdx.FIGURES` (fractions, null where a split has no frame) with ``signature``.
"""

from __future__ import annotations

import argparse

HELP = "SGD-X schema sensitivity: JGA/AGA on the original schema and over variants v1-v5, SS_JGA, SS_AGA"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """ORIG, the variants, --gold, --schema, --train-schema, --value-matching and --json."""
    parser.add_argument("original", metavar="ORIG", help="predictions on the original schema (SGD file or folder)")
    parser.add_argument("variants", metavar="V", nargs="+", help="predictions on each schema variant (at least 2)")
    parser.add_argument("--gold", metavar="PATH", required=True, help="the gold SGD dialogue file or folder")
    parser.add_argument("--schema", metavar="PATH", help="the test schema.json (default GOLD/schema.json)")
    parser.add_argument(
        "--train-schema", metavar="PATH", help="the train schema (seen services; GOLD/../train/schema.json)"
    )
    matching = "fuzzy (default): the SGD evaluator's fuzzy non-categorical values; exact: equality"
    parser.add_argument("--value-matching", choices=("fuzzy", "exact"), default="fuzzy", help=matching)
    parser.add_argument("--json", action="store_true", help="one JSON object (fractions, not percent)")


def _print_table(found: dict, args: argparse.Namespace, signed: str) -> None:
    from ..protocols.sgdx import table
    from .common import figure_cell, format_table

    header, splits = table(len(args.variants))
    rows = [
        [split, str(found[f"sgdx.{split}.frames"]), *(figure_cell(found[e.key], e.percent) for e in entries)]
        for split, entries in splits
    ]
    print(f"{args.original} and {len(args.variants)} schema variants: SGD-X")
    print(format_table(header, rows))
    print("\nJGA, AGA in percent; SS as a fraction (lower: less sensitive); - no frame")
    print(f"signature: {signed}")


def run(args: argparse.Namespace) -> int:
    """Score the original and every variant against --gold and print the SGD-X figures."""
    from ..compat.sgd import default_schemas
    from ..options import OptionError
    from ..protocols.sgdx import sgdx_figures, signature
    from .json_output import json_output

    schema, train = default_schemas(args.gold, args.schema, args.train_schema)
    if schema is None:
        raise OptionError("sgdx needs the test schema: give it with --schema")
    fuzzy = args.value_matching == "fuzzy"
    found = sgdx_figures(args.original, args.variants, args.gold, schema, train, fuzzy=fuzzy)
    signed = signature(len(args.variants), fuzzy)
    if args.json:
        record = {"original": args.original, "variants": args.variants, **found, "signature": signed}
        variants = [("variant", path) for path in args.variants]
        inputs = [
            ("original", args.original),
            *variants,
            ("gold", args.gold),
            ("schema", schema),
            ("train_schema", train),
        ]
        print(json_output("sgdx", inputs, record))
    else:
        _print_table(found, args, signed)
    return 0
