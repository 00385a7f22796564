"""The input handling every command that reads prediction files shares: what a path is read as, from the
reading options (`input_spec`), and its corpus (`read_input`). Imported when a command runs, as the commands
are: its imports (the readers, the engines) are what reading costs."""

from __future__ import annotations

import argparse

from ..corpus import Corpus
from ..readers import InputSpec
from ..reading import READING_SETTINGS, Reading
from ..scoring.engines import read_whole
from .common import warn_of_updates


def reading_of(args: argparse.Namespace) -> Reading:
    """The `reading.Reading` of the reading flags parsed into `args` (`common.add_reading_options`)."""
    return Reading(**{s.name: getattr(args, s.name) for s in READING_SETTINGS if hasattr(args, s.name)})


def input_spec(path: str, args: argparse.Namespace) -> InputSpec:
    """What `path` is read as: the input options (--format, --gold, --gold-format) and the reading flags."""
    return InputSpec(
        path, args.format, args.gold, args.gold_format, name=path, gold_name=args.gold, reading=reading_of(args)
    )


def read_input(path: str, args: argparse.Namespace) -> tuple[Corpus, str]:
    """The corpus of `path` (with --gold: paired with it) and the format(s) it was read in."""
    resolved = read_whole(input_spec(path, args), warn_of_updates)
    return resolved.corpus, resolved.format


def sgd_fuzzy(args: argparse.Namespace) -> bool:
    """Whether SGD's non-categorical values match fuzzily: unless ``--value-matching exact`` is given."""
    return not (args.value_matching == "exact" and getattr(args, "value_matching_given", False))
