"""The command line: ``dst-metrics COMMAND …`` and ``python -m dst_metrics``.

`COMMANDS` names each command's module, imported only when that command runs. A command module has
``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int`` (the exit status), and may have
``requirements(args)`` or ``EXTRA`` (the optional dependencies it needs).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .._gc import gc_paused
from .._version import __version__

_NAMES = (
    "score generations explain report compare table analyze calibration dstc2 dstc2-compare check sgdx checkdst "
    "model-index schema install-modules"
)
COMMANDS: dict[str, str] = {name: f"dst_metrics.cli.{name.replace('-', '_')}" for name in _NAMES.split()}
"""Every command, in the order ``--help`` lists them: name -> its module (its name, ``-`` as ``_``)."""


BROKEN_PIPE_STATUS = 0
"""The exit status when the reader of stdout stops early (``dst-metrics score FILE --json | head -1``):
it took what it wanted, so the rest of the output is dropped quietly, as ``git log | head`` ends."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on `argv` (default: ``sys.argv[1:]``); returns the exit status. The cyclic
    collector is paused throughout (`dst_metrics._gc`): the command's imports and its run allocate much
    and leave no cycles worth collecting (collections over the imports cost a start about 3 ms)."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        with gc_paused():
            status = _dispatch(args)
        sys.stdout.flush()  # a broken pipe shows here, not when the interpreter exits
    except BrokenPipeError:
        _drop_stdout()
        return BROKEN_PIPE_STATUS
    return status


def _dispatch(args: list[str]) -> int:
    if args == ["--version"]:
        print(f"dst-metrics {__version__}")
        return 0
    if args and args[0] in COMMANDS:
        return run_command(args[0], args[1:])
    command_list_parser().parse_args(args)  # --help, or a usage error: argparse exits
    return 2  # pragma: no cover - parse_args exits without a command


def _drop_stdout() -> None:
    """Point stdout at the null device, so that what is still buffered is dropped without an error
    (the recipe of Python's documentation, section "Note on SIGPIPE")."""
    try:
        fileno = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # stdout replaced by an object without a descriptor
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fileno)
    os.close(devnull)


def run_command(name: str, argv: Sequence[str]) -> int:
    """``dst-metrics NAME ARGV…``: parse `argv` with the command's own parser, check the options that
    need another (`common.OPTION_NEEDS`) and the optional dependencies the run needs (the module's
    ``requirements(args)`` or ``EXTRA``, if any), then run it."""
    from .common import CommandParser, check_option_needs, check_requirements, given_options, requires, run_parsed

    module = importlib.import_module(COMMANDS[name])
    parser = CommandParser(prog=f"dst-metrics {name}", description=module.HELP)
    module.add_arguments(parser)
    args = parser.parse_args(list(argv))
    args.command = name
    given = given_options(parser, argv)
    requirements = getattr(module, "requirements", None)
    extra = getattr(module, "EXTRA", None)

    def checked_run(args: argparse.Namespace) -> int:
        check_option_needs(name, args, given)
        check_requirements(name, requirements(args) if requirements else [requires(extra)] if extra else ())
        return module.run(args)

    return run_parsed(args, checked_run)


def command_list_parser() -> argparse.ArgumentParser:
    """The parser of ``dst-metrics`` itself: --version and the list of commands with their help."""
    from .common import CommandParser

    parser = CommandParser(
        prog="dst-metrics", description="Score dialogue state tracking predictions (GCA, JGA, FGA, SA, AGA, RSA)."
    )
    parser.add_argument("--version", action="version", version=f"dst-metrics {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    for name, module_name in COMMANDS.items():
        commands.add_parser(name, help=importlib.import_module(module_name).HELP)
    return parser
