"""What every reader shares: the `Reader` record, the request it reads, JSON decoding with located errors."""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable, Iterable
from pathlib import Path

import msgspec

from ..corpus import Corpus
from ..errors import UNDECODABLE, InputError, describe
from ..json_problems import find_json_problem
from ..reading import Reading
from .compression import open_file, unreadable


# Frozen msgspec Structs, not dataclasses: a Struct class is made in microseconds, a dataclass in about a millisecond.
class ReaderFit(msgspec.Struct, frozen=True):
    """How well an input's beginning fits a format: 2 fits, 1 close (`missing` says what is off), 0 not."""

    level: int
    missing: str = ""


class ReadRequest(msgspec.Struct, frozen=True):
    """What a reader gets: the bytes (BOM removed, not empty), where they came from, and options."""

    data: bytes
    source: str | None
    reading: Reading | str = "exact"  # how to read it (`reading.Reading`; a str: its value matching)
    path: Path | None = None  # the file or folder read, when there is one (a folder: data is empty)

    def __post_init__(self) -> None:
        if isinstance(self.reading, str):
            msgspec.structs.force_setattr(self, "reading", Reading(value_matching=self.reading))

    def text(self) -> str:
        """The data as text (UTF-8); invalid UTF-8 raises InputError."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(f"not UTF-8 text (byte {error.start})", source=self.source) from None


class Side(msgspec.Struct, frozen=True):
    """The turns of one side (gold or predictions) of a one-sided format.

    - `states`: {dialogue id: {turn id: raw state}};
    - `ids`: ``"exact"``, ``"loose"`` (case-insensitive, without ``.json``: mwzeval's), or ``"position"``
      (instances in order, paired with the other side's turns in order: DSTC10's);
    - `turns`: ``"id"``, or ``"position"`` (matched by position; the ids are the other side's);
    - `flat`: every state is a flat dict the reader built, usable as it is when its values are strings;
    - `unset`: the value the format writes for an unset slot (ConvLab-3's ``""``), or None;
    - `convention`: a signature part naming how the reader turned values into states, or None."""

    states: dict[str, dict[int, object]]
    source: str | None = None
    ids: str = "exact"
    turns: str = "id"
    format: str = ""  # the reader's name, set by `inputs.read_file_side`
    flat: bool = False
    unset: str | None = None
    convention: str | None = None


class NotCommon(Exception):
    """A reader's fast path met something not of the common shape: its checking path reads the input again."""


class Reader(msgspec.Struct, frozen=True):
    """One input format: its name, description, detection, and `read` (both sides) or `read_side` (one side)."""

    name: str
    description: str
    sniff: Callable[[str], ReaderFit]
    read: Callable[[ReadRequest], Corpus] | None = None
    read_side: Callable[[ReadRequest, str], Side] | None = None
    holds: str = "both sides"  # "both sides", "predictions", "gold" or "either" (docs/usage.md's format table)
    suffixes: tuple[str, ...] = (".json",)  # how its files' names end (the Space's upload buttons accept them)
    layout: str = ""  # what its files hold, in Markdown (docs/usage.md's format table)


def read_file(path: Path, where: str | None, size: int = -1) -> bytes:
    """The first `size` bytes of a file (all with -1), decompressed where it is compressed (`compression`); a file
    that cannot be read raises InputError naming `where`."""
    return read_start(path, where, size)[0]


def read_start(path: Path, where: str | None, size: int = -1) -> tuple[bytes, str | None]:
    """`read_file`'s bytes and the file's compression (None for a plain file), the file opened once."""
    try:
        handle, compression = open_file(path, where)
        with handle:
            return handle.read(size), compression
    except OSError as error:
        raise unreadable(error, where) from None


def line_and_column(data: bytes, offset: int, one_line: bool = False) -> str:
    """``line L, column C`` of byte `offset` in `data` (from 1; bytes counted); ``column C`` with `one_line`."""
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    if one_line:
        return f"column {column}"
    line = data.count(b"\n", 0, offset) + 1
    return f"line {line}, column {column}"


DECODE_ERRORS = (RecursionError, UnicodeError, OverflowError, json.JSONDecodeError, msgspec.MsgspecError)
"""What decoding bytes may raise beside InputError (`decode_problem` words each as one line)."""


def decode_problem(error: BaseException) -> str:
    """One line for a decoding failure (one of `DECODE_ERRORS`) no reader turned into an InputError."""
    if isinstance(error, RecursionError):
        return "the data is nested too deeply to be dialogue states (it exceeds Python's recursion limit)"
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text (byte {error.start})"
    if isinstance(error, UnicodeError):
        return f"not UTF-8 text ({error})"
    if isinstance(error, OverflowError):
        return "a number too large for a float"
    return f"not valid JSON: {error}"


def decode_error(error: BaseException, **place: object) -> InputError:
    """The InputError (`UNDECODABLE`) of a decoding failure no reader turned into one, at `place`."""
    return InputError(decode_problem(error), kind=UNDECODABLE, **place)


def decode_json(data: bytes | msgspec.Raw, source: str | None = None, *, one_line: bool = False) -> object:
    """Parse JSON bytes; invalid UTF-8, invalid or too deeply nested JSON raises InputError with its line
    and column (found by `find_json_problem`, not read from msgspec's message)."""
    try:
        return msgspec.json.decode(data)
    except RecursionError as error:
        raise decode_error(error, source=source) from None
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        raise json_input_error(data, error, source, one_line=one_line) from None


def json_input_error(
    data: bytes | msgspec.Raw, error: BaseException, source: str | None, *, one_line: bool = False
) -> InputError:
    """The InputError for `data` (bytes or msgspec.Raw) that msgspec failed to decode (`error`): the problem
    and its place."""
    data = bytes(data)
    found = find_json_problem(data)
    if not found.problem:
        return decode_error(error, source=source)
    where = "" if found.offset is None else f" at {line_and_column(data, found.offset, one_line)}"
    if found.utf8:
        return InputError(f"not UTF-8 text{where}", source=source, kind=UNDECODABLE)
    return InputError(f"not valid JSON{where}: {found.problem}", source=source, kind=UNDECODABLE)


def typed_decode(decoder: msgspec.json.Decoder, data: bytes) -> object | None:
    """`data` decoded by a typed decoder; None when not of that type or not valid JSON."""
    try:
        return decoder.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):  # ValidationError is a DecodeError
        return None


def decoded_on_change(raws: Iterable[object], decode: Callable[[object], object]) -> list:
    """`decode` of each raw value, equal consecutive values giving one object."""
    decoded = []
    previous = value = None
    for raw in raws:
        if raw != previous:
            value, previous = decode(raw), raw
        decoded.append(value)
    return decoded


def decode_object(data: bytes, source: str | None, layout: str | None, id_levels: int = 2, depth: int = 3) -> object:
    """`decode_json` with no key given twice in the top `depth` levels; with `layout`, an object is required."""
    decoded = decode_json(data, source)
    if isinstance(decoded, dict):
        check_unique_keys(data, b"", None, source, id_levels, depth)
    elif layout is not None:
        raise InputError(f"expected an object {layout}, got {describe(decoded)}", source=source)
    return decoded


_SKIPPED = msgspec.json.Decoder(msgspec.Raw)
_CHUNK = 1 << 20


def check_json(data: bytes, source: str | None = None, *, one_line: bool = False) -> None:
    """Raise `decode_json`'s InputError where `data` is not JSON in UTF-8, without building its values.

    Syntax and UTF-8 are checked by skipping over the data (a 50 MB file in about 0.2 s); only data
    that fails is decoded, to name the place. A number too large for a float is left to the reader."""
    try:
        _SKIPPED.decode(data)
        if not data.isascii():
            decoder = codecs.getincrementaldecoder("utf-8")()
            for start in range(0, len(data), _CHUNK):
                decoder.decode(data[start : start + _CHUNK])
            decoder.decode(b"", final=True)
    except (msgspec.DecodeError, UnicodeDecodeError):
        decode_json(data, source, one_line=one_line)


def first_json_line(data: bytes) -> dict | None:
    """The first line of `data` as a JSON object when it is one on its own and more lines follow."""
    stripped = data.lstrip()
    first, newline, rest = stripped.partition(b"\n")
    if not newline or not rest.strip():
        return None
    try:
        value = decode_json(first)
    except InputError:
        return None
    return value if isinstance(value, dict) else None


class _Pairs(list):
    """A JSON object as the (key, value) pairs it was written with (`duplicate_key`)."""


def duplicate_key(data: bytes, depth: int) -> tuple[list, str] | None:
    """(path, key) of the first key given twice in one object in the top `depth` levels of `data`, else None."""
    try:
        tree = json.loads(data, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError):  # invalid JSON or UTF-8 (UnicodeDecodeError is a ValueError)
        return None
    level = [([], tree)]
    for _ in range(depth):
        below = []
        for path, node in level:
            if type(node) is _Pairs:
                seen = set()
                for key, value in node:
                    if key in seen:
                        return path, key
                    seen.add(key)
                    below.append(([*path, key], value))
            elif type(node) is list:
                below.extend(([*path, index], value) for index, value in enumerate(node))
        level = below
    return None


def check_unique_keys(
    data: bytes, marker: bytes, kept: int | None, source: str | None, id_levels: int = 2, depth: int = 3
) -> None:
    """Raise InputError naming a dialogue id, turn id or field written twice in one JSON object.

    When `marker` (a key every kept item has once) occurs `kept` times, no key was repeated; otherwise
    the keys are checked one by one (`duplicate_key`). The first `id_levels` levels map ids."""
    if kept is not None and data.count(marker) == kept:
        return
    found = duplicate_key(data, depth)
    if found is None:
        return
    path, key = found
    names = ("dialogue", "turn")
    place = dict(zip(names, [*path, key][: min(id_levels, len(path) + 1)]))
    if len(path) < id_levels:
        what = "dialogue id" if len(path) == 0 else "turn id"
        problem = f"the {what} is given twice in one object (a JSON object keeps only the last)"
        raise InputError(problem, source=source, **place)
    field = ".".join(str(part) for part in [*path[id_levels:], key])
    raise InputError(
        "this key is given twice in one object (a JSON object keeps only the last)", field=field, source=source, **place
    )
