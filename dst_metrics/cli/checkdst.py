"""``dst-metrics checkdst ORIG PERTURBED [input options] [--json]``: CheckDST's figures
(`dst_metrics.protocols.checkdst`) of each turn of PERTURBED paired with the same turn of ORIG, both read
as ``dst-metrics score`` reads them: in percent, or with ``--json`` every figure of
`protocols.checkdst.FIGURES` (fractions, null where undefined) with ``checkdst.pairs`` and ``signature``.
"""

from __future__ import annotations

import argparse

HELP = "CheckDST: JGA of original and perturbed predictions, cJGA, conditional JGA and flip rates"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """ORIG, PERTURBED, the shared input options and --json."""
    from .common import add_input_options

    parser.add_argument("original", metavar="ORIG", help="predictions on the original dialogues")
    parser.add_argument("perturbed", metavar="PERTURBED", help="predictions on the perturbed dialogues")
    add_input_options(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object (fractions, not percent)")


def run(args: argparse.Namespace) -> int:
    """Read both files, pair their turns and print the CheckDST figures."""
    from ..errors import counted
    from ..protocols.checkdst import FIGURES, checkdst_json
    from .common import figure_cell, format_table, options_from_args
    from .inputs import read_input
    from .json_output import json_output

    options = options_from_args(args)
    original, _ = read_input(args.original, args)
    perturbed, _ = read_input(args.perturbed, args)
    found = checkdst_json(original, perturbed, options, (args.original, args.perturbed), args.perturbed)
    if args.json:
        inputs = [("original", args.original), ("perturbed", args.perturbed), ("gold", args.gold)]
        print(json_output("checkdst", inputs, found))
        return 0
    rows = [[entry.label, figure_cell(found[entry.key]), entry.description] for entry in FIGURES]
    print(f"{args.perturbed} against {args.original}: CheckDST, {counted(found['checkdst.pairs'], 'pair')}")
    print(format_table(["figure", "%", "what"], rows, "lrl"))
    print(f"signature: {found['signature']}")
    return 0
