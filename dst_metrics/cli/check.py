"""``dst-metrics check GOLD``: gold scored against itself under our definitions (both modes) and every
compatibility profile; each figure 100, or one line with the convention that keeps it below
(`dst_metrics.analysis.selfcheck`)."""

from __future__ import annotations

import argparse

from ..analysis.selfcheck import check_gold, read_gold
from ..compat import PROFILES
from ..errors import counted

HELP = "gold scored against itself under every profile: 100, or the convention that keeps a figure below"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``dst-metrics check``: GOLD, --format, and the SGD profile's schemas."""
    from ..readers import FORMATS

    parser.add_argument("gold", metavar="GOLD", help="a gold file or folder (any format; its predictions are ignored)")
    parser.add_argument("--format", choices=FORMATS, default="auto", help="the format of GOLD (auto)")
    parser.add_argument("--schema", metavar="PATH", help="sgd profile: schema.json (default GOLD/schema.json)")
    parser.add_argument("--train-schema", metavar="PATH", help="sgd profile: the train schema (seen services)")


def run(args: argparse.Namespace) -> int:
    """Print one line per scorer whose figures are all 100, and one per figure that is not."""
    corpus = read_gold(args.gold, args.format)

    def inputs(name: str) -> object:
        return PROFILES[name].cli_inputs(args.gold, gold=args.gold, schema=args.schema, train_schema=args.train_schema)

    counts = f"{counted(corpus.num_turns, 'turn')}, {counted(len(corpus), 'dialogue')}"
    print(f"{args.gold}: gold scored against itself ({counts})")
    for line in check_gold(corpus, compat_inputs=inputs):
        print(line)
    return 0
