"""Input formats: one module per format behind one registry, with detection by content.

>>> from dst_metrics.readers import read
>>> corpus = read('{"d1": {"0": {"gt": {"hotel-area": "north"}, "pr": {}}}}')
>>> corpus.num_turns
1

Everything is read through one front door, `open_input` (`door`): a path, a folder (one corpus
whose shards are its files), bytes, text or Python objects; ``auto`` asks each registered reader
whether the content looks like its format and uses the first that says yes, once per file. `read`,
`read_with_format`, `read_side`, `read_pair` and `load_reference_file` are thin wrappers of it. A
new format is a module that defines a `Reader` and one line in `door.READERS`. Every reader applies
the same id rules (`dst_metrics.ids`) and raises `InputError` naming the file (or line), dialogue,
turn and field; every decoding failure becomes such an InputError at the door.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..corpus import Corpus
from ..states import LinearizedFormat
from .base import Fit, Reader, ReadRequest, Side
from .inputs import (
    FORMATS,
    READERS,
    InputSpec,
    Opened,
    Shard,
    detect,
    open_input,
    open_spec,
    read_sides,
    resolve,
)
from .pairing import pair

Source = str | os.PathLike | bytes


def read_with_format(source: Source, format: str = "auto", **options: Any) -> tuple[Corpus, str]:
    """Read `source` as `read` does (the same keyword options); returns the Corpus and the name of the format used."""
    opened = open_input(source, format, **options)
    return opened.corpus, opened.format


def read(
    source: Source,
    format: str = "auto",
    *,
    value_matching: str = "exact",
    linearized: LinearizedFormat | None = None,
    name: str | None = None,
    gold: Source | None = None,
    gold_format: str = "auto",
    prediction_states: str = "cumulative",
    gold_alternatives: str = "any",
    only_predicted: bool = False,
) -> Corpus:
    """Read a corpus from a path, a folder, bytes or text in `format` (one of `FORMATS`; ``auto``
    detects it); a format holding predictions only is paired with `gold`.

    Reading conventions: ``prediction_states="updates"`` accumulates turn updates into states (null
    or ``[DELETE]`` removes a slot), ``gold_alternatives="first"`` keeps a gold slot's first acceptable
    value, ``only_predicted=True`` scores only the gold dialogues the predictions cover; the
    signature names each (`Corpus.reading`).

    A UTF-8 byte order mark is skipped; empty input, undecodable input or a bad turn raises
    InputError naming the file (or `name`), line, dialogue, turn and field.
    """
    return read_with_format(
        source,
        format,
        value_matching=value_matching,
        linearized=linearized,
        name=name,
        gold=gold,
        gold_format=gold_format,
        prediction_states=prediction_states,
        gold_alternatives=gold_alternatives,
        only_predicted=only_predicted,
    )[0]


def read_side(source: Source, side: str, format: str = "auto", *, name: str | None = None) -> Side:
    """One side (``"gold"`` or ``"pred"``) of a one-sided format (a file or a folder)."""
    return read_sides(resolve(source, format, name), side)


def read_pair(predictions: Source, gold: Source, *, format: str = "auto", **options: Any) -> Corpus:
    """Predictions and gold from two inputs (files or folders) of one-sided formats, matched by
    dialogue and turn (see `pairing`); ``gold_format``, ``value_matching``, ``linearized`` and the
    reading conventions as `read` takes them."""
    return read(predictions, format, gold=gold, **options)


def load_reference_file(
    path: str | os.PathLike, *, value_matching: str = "exact", linearized: LinearizedFormat | None = None
) -> Corpus:
    """Read a file in the reference layout ``{dialogue_id: {turn_id: {"gt": …, "pr": …}}}``."""
    return read(Path(path), "reference", value_matching=value_matching, linearized=linearized)


__all__ = [
    "FORMATS",
    "READERS",
    "Fit",
    "InputSpec",
    "Opened",
    "ReadRequest",
    "Reader",
    "Shard",
    "Side",
    "detect",
    "load_reference_file",
    "open_input",
    "open_spec",
    "pair",
    "read",
    "read_pair",
    "read_side",
    "read_with_format",
]
