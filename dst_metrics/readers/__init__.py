"""Input formats: one module per format behind one registry, with detection by content.

>>> from dst_metrics.readers import read
>>> corpus = read('{"d1": {"0": {"gt": {"hotel-area": "north"}, "pr": {}}}}')
>>> corpus.num_turns
1

`read` reads a path, a folder (one corpus whose input files are its files), bytes, text or Python
objects whole; `read_stream` gives its dialogues to a function one at a time (`inputs`). With
``auto``, each registered reader is asked whether the content looks like its format and the first
that says yes reads it, once per file. A new format is a module that defines a `Reader` and one line
in `inputs.READERS`. Every reader applies the same id rules (`dst_metrics.ids`) and raises
`InputError` naming the file (or line), dialogue, turn and field; every decoding failure becomes
such an InputError in `inputs`.
"""

from __future__ import annotations

from .base import Reader, ReaderFit, ReadRequest, Side
from .inputs import (
    FORMATS,
    READERS,
    FileResult,
    InputFile,
    InputSpec,
    ResolvedInput,
    detect,
    read,
    read_stream,
)
from .pairing import pair

__all__ = [
    "FORMATS",
    "READERS",
    "FileResult",
    "InputFile",
    "InputSpec",
    "ReadRequest",
    "Reader",
    "ReaderFit",
    "ResolvedInput",
    "Side",
    "detect",
    "pair",
    "read",
    "read_stream",
]
