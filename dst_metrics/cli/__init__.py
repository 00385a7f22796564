"""Entry point of ``dst-metrics`` and ``python -m dst_metrics``.

It imports nothing but the version at first, so ``dst-metrics --version`` answers at once; a command
of `dst_metrics.commands.EXTRA_COMMANDS` is parsed and run by its own module; every other command,
and every other name of this module (``add_input_options``, ``read_input``, ``format_table``, … used
by commands defined in other modules), is `dst_metrics.command_line`'s.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ._version import __version__


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on `argv` (default: ``sys.argv[1:]``); returns the exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        print(f"dst-metrics {__version__}")
        return 0
    from .commands import EXTRA_COMMANDS, run_extra

    if args and args[0] in EXTRA_COMMANDS:  # parsed by the command's module alone
        return run_extra(args[0], args[1:])
    from .command_line import main as run

    return run(args)


def __getattr__(name: str) -> object:
    if name.startswith("__"):  # e.g. __path__, which ``from .cli import main`` looks up
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import command_line

    try:
        return getattr(command_line, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
