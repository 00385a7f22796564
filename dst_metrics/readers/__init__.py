"""Input formats: one module per format behind one registry, with detection by content.

>>> from dst_metrics.readers import read
>>> corpus = read('{"d1": {"0": {"gt": {"hotel-area": "north"}, "pr": {}}}}')
>>> corpus.num_turns
1

`read(source, format="auto")` takes a path, raw bytes or the text itself; ``auto`` asks each
registered reader whether the content looks like its format and uses the first that says yes.
A new format is a module that defines a `Reader` and one line in `READERS` below. Every reader
applies the same id rules (`dst_metrics.ids`) and raises `InputError` naming the file (or line),
dialogue, turn and field.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from .._gc import gc_paused
from ..corpus import Corpus
from ..errors import InputError
from ..options import parse_value_matching
from ..states import LinearizedFormat
from .base import Fit, Reader, ReadRequest, Side
from .pairing import pair

BOM = b"\xef\xbb\xbf"
HEAD_BYTES = 1 << 16  # how much of the input detection looks at


def _registry() -> dict[str, Reader]:
    from . import convlab, jsonl, linearized, multiwoz21, mwzeval, reference, sgd, trade

    readers = (  # detection asks them in this order
        jsonl.READER,
        trade.READER,
        mwzeval.READER,
        multiwoz21.READER,
        convlab.READER,
        convlab.UNIFIED_READER,
        sgd.READER,
        reference.READER,
        linearized.READER,
    )
    return {reader.name: reader for reader in readers}


READERS: dict[str, Reader] = _registry()
"""Every input format, by name."""
FORMATS: tuple[str, ...] = ("auto", *READERS)
"""The values of ``format``: ``auto`` or a reader's name."""


def detect(data: bytes) -> str:
    """The name of the format whose reader recognizes the beginning of `data`.

    Nothing fitting raises InputError naming the closest format and what is missing.
    """
    head = data[:HEAD_BYTES].decode("utf-8", errors="replace")
    fits = {name: reader.sniff(head) for name, reader in READERS.items()}
    for name, fit in fits.items():
        if fit.level == 2:
            return name
    close = [(name, fit) for name, fit in fits.items() if fit.level == 1]
    if close:
        name, fit = close[0]
        raise InputError(f"the data looks closest to {READERS[name].description}, but {fit.missing}")
    known = "; ".join(f"{reader.description}" for reader in READERS.values())
    raise InputError(f"the data is in none of the known formats ({known})")


def _input_bytes(source: str | os.PathLike | bytes) -> tuple[bytes, str | None, Path | None]:
    """(bytes, name for messages, path) of a path, of bytes, or of text. A folder gives the bytes
    of its first ``.json`` file (for detection); its reader reads the folder.

    A str is text when it starts with ``{`` or ``[`` or holds a newline or TAB; else a path.
    """
    if isinstance(source, bytes):
        return source, None, None
    looks_like_data = isinstance(source, str) and source.lstrip("\ufeff \t\r\n")[:1] in ("{", "[")
    if looks_like_data or (isinstance(source, str) and ("\n" in source or "\t" in source)):
        return source.encode("utf-8"), None, None
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"read() takes a path, bytes or text, got {type(source).__name__}")
    path = Path(source)
    file = path
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise InputError("the folder holds no .json file", source=str(source))
        file = files[0]
    try:
        return file.read_bytes(), str(source), path
    except OSError as error:
        raise InputError(f"cannot read the file: {error.strerror or error}", source=str(source)) from None


def _request(
    source: str | os.PathLike | bytes, format: str, options: dict, name: str | None
) -> tuple[ReadRequest, Reader]:
    """The request for `source` and the reader of its format (detected with ``auto``)."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    parse_value_matching(options["value_matching"])
    data, where, path = _input_bytes(source)
    where = name or where
    if data.startswith(BOM):
        data = data[len(BOM) :]
    if not data or data.isspace():
        raise InputError("the input is empty" if not data else "the input holds only white space", source=where)
    try:
        used = detect(data) if format == "auto" else format
    except InputError as error:
        raise (error.within(where) if where else error) from None
    return ReadRequest(data, where, path=path, **options), READERS[used]


def _located(error: InputError, where: str | None) -> InputError:
    return error if where is None or (error.source or "").startswith(where) else error.within(where)


def read_with_format(
    source: str | os.PathLike | bytes,
    format: str = "auto",
    *,
    value_matching: str = "exact",
    linearized: LinearizedFormat | None = None,
    name: str | None = None,
) -> tuple[Corpus, str]:
    """Read `source` (see `read`); returns the Corpus and the name of the format used."""
    request, reader = _request(source, format, {"value_matching": value_matching, "linearized": linearized}, name)
    if reader.read is None:
        raise InputError(
            f"this is {reader.description}, which holds one side only: give the other side with --gold "
            "(read_pair(predictions, gold) in Python)",
            source=request.source,
        )
    try:
        with gc_paused():
            return reader.read(request), reader.name
    except InputError as error:
        raise _located(error, request.source) from None


def read(
    source: str | os.PathLike | bytes,
    format: str = "auto",
    *,
    value_matching: str = "exact",
    linearized: LinearizedFormat | None = None,
    name: str | None = None,
) -> Corpus:
    """Read a corpus from a path, bytes or text in `format` (one of `FORMATS`; ``auto`` detects it).

    A UTF-8 byte order mark is skipped; empty input, undecodable input or a bad turn raises
    InputError naming the file (or `name`), line, dialogue, turn and field.
    """
    return read_with_format(source, format, value_matching=value_matching, linearized=linearized, name=name)[0]


def read_side(source: str | os.PathLike | bytes, side: str, format: str = "auto", *, name: str | None = None) -> Side:
    """One side (``"gold"`` or ``"pred"``) of a one-sided format (a file or a folder)."""
    request, reader = _request(source, format, {"value_matching": "exact", "linearized": None}, name)
    if reader.read_side is None:
        raise InputError(
            f"this is {reader.description}, which holds gold and predictions together: score it without --gold",
            source=request.source,
        )
    try:
        return dataclasses.replace(reader.read_side(request, side), format=reader.name)
    except InputError as error:
        raise _located(error, request.source) from None


def read_pair(
    predictions: str | os.PathLike | bytes,
    gold: str | os.PathLike | bytes,
    *,
    format: str = "auto",
    gold_format: str = "auto",
    value_matching: str = "exact",
    linearized: LinearizedFormat | None = None,
) -> Corpus:
    """Predictions and gold from two inputs (files or folders) of one-sided formats, matched by
    dialogue and turn (see `pairing`)."""
    pred_side = read_side(predictions, "pred", format)
    gold_side = read_side(gold, "gold", gold_format)
    with gc_paused():
        return pair(gold_side, pred_side, value_matching=value_matching, linearized=linearized)


def load_reference_file(
    path: str | os.PathLike, *, value_matching: str = "exact", linearized: LinearizedFormat | None = None
) -> Corpus:
    """Read a file in the reference layout ``{dialogue_id: {turn_id: {"gt": …, "pr": …}}}``."""
    return read(Path(path), "reference", value_matching=value_matching, linearized=linearized)


__all__ = [
    "FORMATS",
    "READERS",
    "Fit",
    "ReadRequest",
    "Reader",
    "Side",
    "detect",
    "load_reference_file",
    "read",
    "read_pair",
    "read_side",
    "read_with_format",
]
