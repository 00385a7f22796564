"""``dst-metrics schema COMMAND``: the JSON Schema (draft 2020-12) of COMMAND's ``--json`` output
(`json_output.SCHEMAS`), to validate the output with any JSON Schema validator."""

from __future__ import annotations

import argparse

from .json_output import SCHEMAS

HELP = "print the JSON Schema of a command's --json output"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """COMMAND: one of the commands that have --json."""
    parser.add_argument("command_name", metavar="COMMAND", choices=list(SCHEMAS), help=", ".join(SCHEMAS))


def run(args: argparse.Namespace) -> int:
    """Print the schema, indented."""
    import json

    from .json_output import schema_of

    print(json.dumps(schema_of(args.command_name), indent=2, ensure_ascii=False))
    return 0
