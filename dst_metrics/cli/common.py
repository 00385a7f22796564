"""The registry of commands defined outside `dst_metrics.command_line`, and what running one needs.

``dst-metrics NAME …`` for a NAME of `EXTRA_COMMANDS` is parsed and run from here (`run_extra`)
without importing `dst_metrics.command_line` (its readers, profiles and figures): the command's
module imports what it needs. This module imports only the standard library at the top.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

EXTRA_COMMANDS: dict[str, str] = {
    "report": "dst_metrics.report.cli",
    "compare": "dst_metrics.stats.compare_command",
    "analyze": "dst_metrics.stats.analyze_command",
    "calibration": "dst_metrics.calibration.cli",
    "dstc2": "dst_metrics.dstc2.cli",
    "dstc2-compare": "dst_metrics.dstc2.compare",
}
"""Commands defined in other modules: name -> module with ``HELP`` (one line), ``add_arguments(parser)``
and ``run(args) -> int`` (exit status). Such a module imports only what parsing needs at the top, the
rest inside `run`; `run` may raise InputError/OptionError, which is printed as one line (status 2)."""


class CommandParser(argparse.ArgumentParser):
    """argparse, with every usage error as one line (``dst-metrics: error: …``) and status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"dst-metrics: error: {message} (see {self.prog} --help)\n")


def whole_number(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    value = int(text) if text.strip().isdigit() else 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number at least 1; got {text!r}")
    return value


def dumps(obj: object) -> str:
    """`obj` as compact JSON text (msgspec when installed)."""
    try:
        import msgspec
    except ImportError:  # pragma: no cover
        import json

        return json.dumps(obj, ensure_ascii=False)
    return msgspec.json.encode(obj).decode()


def run_parsed(args: argparse.Namespace, run: object) -> int:
    """`run(args)` as every command runs: progress bars per ``--quiet``, the collector paused, an
    InputError or OptionError printed as one line with status 2."""
    from ._gc import gc_paused
    from .progress import set_quiet

    set_quiet(getattr(args, "quiet", False))
    if hasattr(args, "value_matching"):
        args.value_matching_given = args.value_matching is not None  # --compat sgd: fuzzy unless exact is asked
        args.value_matching = args.value_matching or "exact"
    try:
        with gc_paused():  # a short run that allocates millions of small objects and no cycles
            return run(args)  # type: ignore[operator]
    except Exception as error:
        from .errors import InputError
        from .options import OptionError

        if not isinstance(error, (InputError, OptionError)):
            raise
        print(f"dst-metrics: error: {error}", file=sys.stderr)
        return 2


def run_extra(name: str, argv: Sequence[str]) -> int:
    """``dst-metrics NAME ARGV…`` for a command of `EXTRA_COMMANDS`."""
    module = importlib.import_module(EXTRA_COMMANDS[name])
    parser = CommandParser(prog=f"dst-metrics {name}")
    module.add_arguments(parser)
    args = parser.parse_args(list(argv))
    args.command = name
    return run_parsed(args, module.run)
