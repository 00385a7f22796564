"""``dst-metrics install-modules [--folder DIR]``: the evaluate modules written where `evaluate.load` finds
a module it downloaded before (`dst_metrics.modules.install_modules`), so that ``evaluate.load("gca")``,
``evaluate.load("jga_fga")`` and ``evaluate.load("dst_metrics_all")`` load them, online and offline."""

from __future__ import annotations

import argparse

HELP = 'make evaluate.load("gca"), ("jga_fga") and ("dst_metrics_all") load this package\'s evaluate modules'
EXTRA = "evaluate"
"""The modules are written where evaluate's settings say (HF_MODULES_CACHE, HF_HOME)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--folder: evaluate's modules folder, when it is not the one evaluate's settings name."""
    parser.add_argument(
        "--folder",
        metavar="DIR",
        help="evaluate's modules folder (default: $HF_MODULES_CACHE/evaluate_modules, $HF_HOME/modules/... "
        "as evaluate reads them)",
    )


def run(args: argparse.Namespace) -> int:
    """Write the three modules and print one line per name: the name and the file written."""
    from pathlib import Path

    from ..modules import install_modules

    for name, path in install_modules(Path(args.folder) if args.folder else None).items():
        print(f'evaluate.load("{name}"): {path}')
    return 0
