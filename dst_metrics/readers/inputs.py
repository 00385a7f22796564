"""Reading an input: its files, each file's format and the pairing with gold.

>>> from dst_metrics.readers import read
>>> read('{"d1": {"0": {"gt": {"hotel-area": "north"}, "pr": {}}}}').num_turns
1

A source is a path, a folder, bytes, text, or Python objects; `resolve` turns it into `InputFile`s
with their formats. `read` reads every file whole into one Corpus; `read_stream` gives a function
one dialogue at a time where the format streams (JSON Lines, the reference layout). Every decoding
failure becomes one `InputError` naming the file (and line, dialogue, turn where known).
"""

from __future__ import annotations

import dataclasses
import io
import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from .._gc import gc_paused
from ..corpus import Corpus, CorpusBuilder, Dialogue, corpus_from_layout, only_share
from ..errors import UNDECODABLE, InputError
from ..options import OptionError
from ..reading import Reading
from ..states import Alternatives
from . import (
    compression,
    convlab,
    dstc10,
    jsonl,
    linearized,
    multiwoz21,
    mwzeval,
    reference,
    sgd,
    simmc,
    slt2024,
    trade,
)
from .base import (
    DECODE_ERRORS,
    Reader,
    ReadRequest,
    Side,
    check_json,
    decode_error,
    read_file,
    read_start,
)
from .pairing import pair

BOM = b"\xef\xbb\xbf"
HEAD_BYTES = 1 << 16
"""How much of a file detection looks at."""

READERS: dict[str, Reader] = {
    reader.name: reader
    for reader in (  # detection asks them in this order
        jsonl.READER,
        dstc10.READER,
        simmc.READER,
        trade.READER,
        mwzeval.READER,
        multiwoz21.READER,
        convlab.READER,
        convlab.UNIFIED_READER,
        sgd.READER,
        reference.READER,
        slt2024.READER,
        linearized.READER,
    )
}
"""Every input format, by name."""
FORMATS: tuple[str, ...] = ("auto", *READERS)
"""The values of ``format``: ``auto`` or a reader's name."""
SUFFIXES: tuple[str, ...] = tuple(dict.fromkeys(suffix for reader in READERS.values() for suffix in reader.suffixes))
"""How the names of the readers' files end (`Reader.suffixes`), each once: the Space's upload buttons take them."""
STREAMED_FORMATS = ("jsonl", "reference")
"""The formats whose files `ResolvedInput.read_stream` streams one dialogue at a time."""


@contextmanager
def guarded(where: str | None) -> Iterator[None]:
    """Within the block, an InputError is located in `where` and a decoding failure becomes one."""
    try:
        yield
    except InputError as error:
        raise _located(error, where) from None
    except DECODE_ERRORS as error:
        raise decode_error(error, source=where) from None


def _located(error: InputError, where: str | None) -> InputError:
    return error if where is None or (error.source or "").startswith(where) else error.within(where)


def _encoding_problem(head: bytes) -> str | None:
    """What makes `head` no UTF-8 text at all: a UTF-16/32 byte order mark or NUL bytes."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "the data is UTF-16 or UTF-32 text (it starts with its byte order mark); save it as UTF-8"
    nul = head.find(b"\x00")
    if nul < 0:
        return None
    kind = _binary_kind(head)
    if kind is not None:
        return f"the data is {kind}, not text"
    utf16 = head[1::2].count(b"\x00") > len(head) // 4 or head[0::2].count(b"\x00") > len(head) // 4
    guess = " (every other byte is NUL: UTF-16 without a byte order mark? save it as UTF-8)" if utf16 else ""
    return f"the data holds a NUL byte (byte {nul}): it is not UTF-8 text{guess}"


_MAGIC = {
    b"\x7fELF": "a program (an ELF binary)",
    **{
        magic: f"{name}-compressed inside its compression (one layer is read: decompress the other first)"
        for magic, name in compression.MAGIC.items()
    },
    b"%PDF": "a PDF document",
    b"\x89PNG": "a PNG image",
    b"PAR1": "a Parquet file (read it with pandas or datasets and pass the records)",
    b"ARROW1": "an Arrow file (read it with pyarrow or datasets and pass the records)",
    b"\x93NUMPY": "a NumPy array file",
    b"\x80": "a Python pickle",
}
"""The first bytes of common binary files -> what they are, for a message better than "not UTF-8"."""


def _binary_kind(head: bytes) -> str | None:
    """What binary file `head` begins, by its magic number, or None."""
    return next((kind for magic, kind in _MAGIC.items() if head.startswith(magic)), None)


def _json_scalar(data: bytes) -> str | None:
    """The description of `data` when it is one JSON scalar (``1e400``, ``"text"``, ``true``), else None."""
    text = data.strip()
    if len(text) > 1000 or not text or text[:1] in b"{[":
        return None
    try:
        value = json.loads(text, parse_constant=float)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, bool) or value is None:
        return f"the JSON literal {text.decode()}"
    if isinstance(value, (int, float)):
        large = " (too large for a float)" if isinstance(value, float) and math.isinf(value) else ""
        return f"a JSON number{large}"
    return "a JSON string" if isinstance(value, str) else None


def detect(data: bytes) -> str:
    """The format whose reader recognizes the start of `data`; else InputError naming the closest format."""
    head_bytes = data[:HEAD_BYTES]
    problem = _encoding_problem(head_bytes)
    if problem:
        raise InputError(problem)
    head = head_bytes.decode("utf-8", errors="replace")
    with guarded(None):
        fits = {name: reader.sniff(head) for name, reader in READERS.items()}
    for name, fit in fits.items():
        if fit.level == 2:
            return name
    scalar = _json_scalar(data)
    if scalar is not None:  # valid JSON, but one number, string or literal: say so, not "closest to lines"
        raise InputError(f"the data is {scalar}, not DST data (an object of dialogues, or turn records)")
    close = [(name, fit) for name, fit in fits.items() if fit.level == 1]
    if close:
        name, fit = close[0]
        raise InputError(f"the data looks closest to {READERS[name].description}, but {fit.missing}")
    known = "; ".join(f"{reader.description}" for reader in READERS.values())
    raise InputError(f"the data is in none of the known formats ({known})")


class InputSpec(msgspec.Struct, frozen=True):
    """What to read: a source in `format`, with `gold` for a predictions-only format, read with `reading`'s
    settings (`reading.Reading`)."""

    source: Any
    format: str = "auto"
    gold: Any = None
    gold_format: str = "auto"
    name: str | None = None  # how messages name the source (default: its path)
    gold_name: str | None = None
    reading: Reading = msgspec.field(default_factory=Reading)

    def __post_init__(self) -> None:
        for value in (self.format, self.gold_format):
            if value not in FORMATS:
                raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {value!r}")
        if self.reading.only_predicted and self.gold is None:
            raise OptionError(
                "only_predicted (--only-predicted) restricts a gold input given apart (--gold) to the dialogues "
                "predicted; this input holds gold and predictions together"
            )


@dataclasses.dataclass(frozen=True)
class InputFile:
    """One part of a source read by one reader: a file or folder (`path`) or data in memory (`data`), named
    `name` in messages. A file read ahead has both, and a reference layout its `slices` too."""

    format: str
    name: str | None
    path: Path | None = None
    data: bytes | None = None
    slices: dict[str, msgspec.Raw] | None = dataclasses.field(default=None, repr=False, compare=False)
    compression: str | None = None  # how the file or data was compressed (`compression.MAGIC`), read decompressed
    unpacked: object = dataclasses.field(default=None, repr=False, compare=False)  # a zip's folder, kept while used

    @property
    def label(self) -> str:
        """The format as messages name it: ``jsonl``, or ``jsonl (gzip)`` for a compressed file."""
        return f"{self.format} ({self.compression})" if self.compression else self.format

    def request(self, reading: Reading | str = "exact") -> ReadRequest:
        """The reader's request: the bytes (a file read now, BOM removed; a folder: none)."""
        data = self.data
        if data is None:
            data = b"" if self.path.is_dir() else read_file(self.path, self.name)
        return ReadRequest(data.removeprefix(BOM), self.name, reading, path=self.path)


def _checked_head(data: bytes, where: str | None) -> bytes:
    """`data` without a BOM; empty or white space only raises InputError."""
    data = data.removeprefix(BOM)
    if not data or data.isspace():
        raise InputError("the input is empty" if not data else "the input holds only white space", source=where)
    return data


def text_file(path: str | os.PathLike, where: str | None = None) -> bytes:
    """The bytes of a text file without BOM; InputError if unreadable, empty, UTF-16, NUL bytes or binary."""
    where = str(path) if where is None else where
    data = _checked_head(read_file(Path(path), where), where)
    problem = _encoding_problem(data[:HEAD_BYTES])
    if problem:
        raise InputError(problem, source=where)
    return data


def _input_file(
    head: bytes, format: str, where: str | None, path: Path | None = None, compressed: str | None = None
) -> InputFile:
    """The `InputFile` of a file (`path`, starting with `head`, decompressed) or of data in memory, its format
    detected; data meant as JSON that no format recognizes raises its JSON decoding error."""
    head = _checked_head(head, where)
    if format == "auto":
        try:
            with guarded(where):
                format = detect(head)
        except InputError:
            suffix = compression.name_inside(path).suffix.lower() if path else ""
            meant_as_json = suffix in (".json", ".jsonl") or head.lstrip()[:1] in (b"{", b"[")
            if meant_as_json and _encoding_problem(head[:HEAD_BYTES]) is None:
                _raise_json_problem(path or head, where, lines=suffix == ".jsonl")
            raise
    return InputFile(format, where, path=path, data=None if path else head, compression=compressed)


def _raise_json_problem(source: Path | bytes, where: str | None, lines: bool = False) -> None:
    """Raise the JSON decoding error ("not valid JSON at line 3") of data no format recognizes, if any."""
    data = (source if isinstance(source, bytes) else read_file(source, where)).removeprefix(BOM)
    if lines:
        data = data.lstrip().partition(b"\n")[0]
    with guarded(where):
        check_json(data, where, one_line=lines)


def _looks_like_data(source: str) -> bool:
    """A str is text (not a path) when it starts with ``{`` or ``[`` or holds a newline or TAB."""
    return source.lstrip("\ufeff \t\r\n")[:1] in ("{", "[") or "\n" in source or "\t" in source


def _object_data(source: dict | list | tuple) -> bytes:
    """Python objects as JSON: a list of turn records as JSON Lines, anything else as one document."""
    try:
        if (
            isinstance(source, (list, tuple))
            and source
            and all(isinstance(r, dict) and "dialogue_id" in r for r in source)
        ):
            return "".join(json.dumps(record, allow_nan=False) + "\n" for record in source).encode("utf-8")
        return json.dumps(source, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as error:
        raise InputError(f"the objects are not JSON data: {error}") from None


def resolve(source: Any, format: str = "auto", name: str | None = None) -> tuple[InputFile, ...]:
    """The files of `source` (see the module), each with its format (detected once with ``auto``)."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}; got {format!r}")
    if isinstance(source, str) and source == "-":  # standard input, as in every Unix tool
        source, name = sys.stdin.buffer.read(), name or "<stdin>"
    if isinstance(source, (dict, list, tuple)):
        source = _object_data(source)
    elif isinstance(source, str) and _looks_like_data(source):
        try:
            source = source.encode("utf-8")
        except UnicodeEncodeError as error:  # a lone surrogate: no UTF-8 text holds it
            raise InputError(f"the text is not valid Unicode (character {error.start})", source=name) from None
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        try:
            plain, compressed = compression.decompress(data, name)
        except compression.SeveralFiles:
            return _unpacked_files(data, format, name)
        return (_input_file(plain, format, name, compressed=compressed),)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"a source is a path, bytes, text or JSON-like objects, got {type(source).__name__}")
    path = Path(source)
    where = name or str(source)
    if path.is_dir():
        return _folder_files(path, format, where)
    try:
        head, compressed = read_start(path, where, HEAD_BYTES)
    except compression.SeveralFiles:
        return _unpacked_files(path, format, where)
    return (_input_file(head, format, where, path, compressed),)


def _unpacked_files(archive: Path | bytes, format: str, where: str | None) -> tuple[InputFile, ...]:
    """The files of a zip archive of several files, read as a folder's (a folder format's folder, if inside)."""
    unpacked = compression.unpacked_zip(archive, where)
    files = _folder_files(compression.folder_inside(Path(unpacked.name)), format, where or "<zip>")
    return tuple(dataclasses.replace(file, compression="zip", unpacked=unpacked) for file in files)


def _folder_files(folder: Path, format: str, where: str) -> tuple[InputFile, ...]:
    """A folder a format reads whole (SGD / MultiWOZ 2.2, MultiWOZ 2.1), else one `InputFile` per file."""
    heads: dict[Path, tuple[bytes, str | None]] = {}  # each file's first bytes and compression

    def head(path: Path) -> bytes:
        if path not in heads:
            heads[path] = read_start(path, str(path), HEAD_BYTES)
        return heads[path][0]

    def is_format(path: Path, wanted: str) -> bool:
        if format != "auto":
            return format == wanted
        found = _detected_quietly(head(path))
        detections[path] = found
        return found == wanted

    detections: dict[Path, str | None] = {}
    dialogue_files = [f for f in sorted(folder.glob(sgd.FILE_PATTERN)) if f.name != sgd.METRICS_OUTPUT]
    if format in ("sgd", "mwzeval") or (dialogue_files and is_format(dialogue_files[0], "sgd")):
        return (InputFile(format if format != "auto" else "sgd", where, path=folder),)
    data_json = folder / "data.json"
    if format == "multiwoz21" or (data_json.is_file() and is_format(data_json, "multiwoz21")):
        return (InputFile("multiwoz21", where, path=folder),)
    files = sorted(f for f in folder.iterdir() if not f.name.startswith(".") and f.is_file())
    if not files:
        raise InputError("the folder holds no path", source=where)
    found = []
    for path in files:
        name = os.path.join(where, path.name)
        start, compressed = heads[path] if path in heads else read_start(path, name, HEAD_BYTES)
        found.append(_input_file(start, detections.get(path) or format, name, path, compressed))  # detected once
    return tuple(found)


def _detected_quietly(head: bytes) -> str | None:
    try:
        return detect(_checked_head(head, None))
    except InputError:
        return None


# Reading whole


def read_file_corpus(file: InputFile, reading: Reading | str = "exact") -> Corpus:
    """The Corpus of one file of a format holding gold and predictions, read as `reading` says."""
    reader = READERS[file.format]
    if reader.read is None:
        raise InputError(
            f"this is {reader.description}, which holds one side only: give the other side with --gold "
            "(read(predictions, gold=gold) in Python)",
            source=file.name,
        )
    try:
        with guarded(file.name), gc_paused():
            return reader.read(file.request(reading))
    except InputError as error:
        raise _in_another_format(file, error) from None


def _in_another_format(file: InputFile, error: InputError) -> InputError:
    """`error`, or, where ``--format NAME`` was given for another format's data, an error saying so."""
    if error.kind != UNDECODABLE:
        return error
    head = file.data[:HEAD_BYTES] if file.data is not None else read_file(file.path, file.name, HEAD_BYTES)
    found = _detected_quietly(head)
    if found is None or found == file.format:
        return error
    return InputError(
        f"the data does not look like {READERS[file.format].description}: it looks like "
        f"{READERS[found].description}; use --format {found} or leave --format auto",
        source=file.name,
    )


def read_file_side(file: InputFile, side: str) -> Side:
    """One side (``"gold"`` or ``"pred"``) of one file of a one-sided format or of a two-sided one."""
    reader = READERS[file.format]
    if reader.read_side is None:
        return side_of_pair(file, side)
    with guarded(file.name):
        return msgspec.structs.replace(reader.read_side(file.request(), side), format=reader.name)


def side_of_pair(file: InputFile, side: str) -> Side:
    """One side of a two-sided file, paired with another file's other side (``--gold``), as the signature says."""
    corpus = read_file_corpus(file)
    states = {
        dialogue.dialogue_id: dict(zip(dialogue.turn_ids, map(_plain_state, getattr(dialogue, side))))
        for dialogue in corpus.dialogues
    }
    return Side(states, file.name, format=file.format, convention=f"{side}:{side}-side-of-{file.format}")


def _plain_state(state: dict) -> dict:
    """A normalized state as plain data: a gold slot's alternatives as the list of its values, in order."""
    return {slot: list(value.order) if isinstance(value, Alternatives) else value for slot, value in state.items()}


def _claim(owner: dict[str, InputFile], dialogue_ids: Iterable[str], file: InputFile) -> None:
    """Record `file` as where each id is; an id already in another file raises InputError naming both."""
    for dialogue_id in dialogue_ids:
        first = owner.setdefault(dialogue_id, file)
        if first is not file:
            raise InputError(f"the dialogue is also in {first.name}", dialogue=dialogue_id, source=file.name)


def merge_corpora(parts: list[tuple[InputFile, Corpus]]) -> Corpus:
    """One Corpus of the files' corpora, in file order; a dialogue id in two files raises InputError."""
    if len(parts) == 1:
        return parts[0][1]
    owner: dict[str, InputFile] = {}
    for file, corpus in parts:
        _claim(owner, (dialogue.dialogue_id for dialogue in corpus.dialogues), file)
    listed = [corpus.listed_gold_slots for _, corpus in parts if corpus.listed_gold_slots is not None]
    scored = [corpus.scores for _, corpus in parts if corpus.scores is not None]
    scores = None
    if scored:
        scores = type(scored[0])()
        for found in scored:
            scores.update(found)
    return Corpus(
        tuple(dialogue for _, corpus in parts for dialogue in corpus.dialogues),
        parts[0][1].value_matching,
        listed_gold_slots=frozenset().union(*listed) if listed else None,
        scores=scores,
        reading=tuple(dict.fromkeys(part for _, corpus in parts for part in corpus.reading)),
    )


def read_sides(files: Iterable[InputFile], side: str) -> Side:
    """One side (``"gold"`` or ``"pred"``) of `files`, read file by file (`read_file_side`) and merged."""
    return merge_sides([(file, read_file_side(file, side)) for file in files])


def merge_sides(parts: list[tuple[InputFile, Side]]) -> Side:
    """One Side of the files' sides; a dialogue id in two files raises InputError."""
    if len(parts) == 1:
        return parts[0][1]
    owner: dict[str, InputFile] = {}
    for file, side in parts:
        _claim(owner, side.states, file)
    sides = [side for _, side in parts]
    unset = {side.unset for side in sides}
    return Side(
        {dialogue_id: turns for side in sides for dialogue_id, turns in side.states.items()},
        sides[0].source and str(Path(sides[0].source).parent),
        ids="loose" if any(s.ids == "loose" for s in sides) else "exact",
        turns="position" if any(s.turns == "position" for s in sides) else "id",
        format="+".join(sorted({s.format for s in sides})),
        flat=all(s.flat for s in sides),
        unset=unset.pop() if len(unset) == 1 else None,
        convention=",".join(dict.fromkeys(s.convention for s in sides if s.convention)) or None,
    )


def _format_label(files: tuple[InputFile, ...]) -> str:
    return "+".join(sorted({file.label for file in files}))


# Streaming: raw dialogues of a file, one at a time


def _record_dialogues(file: InputFile) -> Iterator[reference.RawDialogue]:
    """`jsonl.record_dialogues` of the file's lines (or of its bytes read ahead: `ResolvedInput.loaded`)."""
    if file.data is not None:
        yield from jsonl.record_dialogues(io.BytesIO(file.data.removeprefix(BOM)), file.name)
        return
    handle, compressed = compression.open_file(file.path, file.name)  # decompressed as it is read
    with handle:  # a byte order mark is skipped, as reading whole does
        if compressed and handle.peek(len(BOM))[: len(BOM)] == BOM:
            handle.read(len(BOM))
        elif not compressed and handle.read(len(BOM)) != BOM:
            handle.seek(0)
        yield from jsonl.record_dialogues(handle, file.name)


def _built(builder: CorpusBuilder, raws: Iterator[reference.RawDialogue], ids_seen: list[str]) -> Iterator[Dialogue]:
    """Each dialogue built (validated, normalized) as its turn comes, then dropped by the builder."""
    for dialogue_id, turns, golds, preds in raws:
        builder.add(dialogue_id, turns, golds, preds)
        ids_seen.append(dialogue_id)
        yield builder.dialogues.pop()


T = TypeVar("T")


class FileResult(msgspec.Struct, frozen=True):
    """Per file: what `consume` returned, the dialogue ids it saw, their positions, whether it streamed and how
    it was read, as the signature says it (`Corpus.reading`)."""

    file: InputFile
    result: Any
    dialogue_ids: list[str]
    positions: list[int]
    streamed: bool
    reading: tuple[str, ...] = ()


# Reading an input


class ResolvedInput(msgspec.Struct, frozen=True):
    """A source resolved: its spec, its files (and gold's), the format read and, unless streamed, its Corpus."""

    spec: InputSpec
    files: tuple[InputFile, ...]
    gold_files: tuple[InputFile, ...] = ()
    corpus: Corpus | None = None

    @property
    def format(self) -> str:
        """The format(s) read: ``reference``; ``jsonl+reference`` for a folder of both; ``sgd, gold sgd``."""
        label = _format_label(self.files)
        return f"{label}, gold {_format_label(self.gold_files)}" if self.gold_files else label

    @property
    def streams(self) -> bool:
        """Whether some file can stream (`STREAMED_FORMATS`, a file, no gold)."""
        return not self.gold_files and any(_streams(file) for file in self.files)

    def loaded(self) -> ResolvedInput:
        """This input with each file's bytes read now (a reference layout cut per dialogue), for forked workers."""
        return msgspec.structs.replace(self, files=tuple(map(_loaded, self.files)))

    def read(self) -> Corpus:
        """The Corpus of every file read whole (paired with gold where there is gold)."""
        if self.corpus is not None:
            return self.corpus
        if self.gold_files:
            pred, gold = read_sides(self.files, "pred"), read_sides(self.gold_files, "gold")
            with gc_paused():
                return pair(gold, pred, self.spec.reading)
        return merge_corpora([(s, read_file_corpus(s, self.spec.reading)) for s in self.files])

    def read_stream(
        self, consume: Callable[[Iterable[Dialogue]], T], share: tuple[int, int] | None = None
    ) -> list[FileResult]:
        """`consume` of each file's dialogues, streamed where possible; `share`: only positions k modulo n."""
        if self.gold_files:
            return [_consume_whole(self.files[0], self.read, consume, share)]
        results: list[FileResult] = []
        owner: dict[str, InputFile] = {}
        reading = self.spec.reading
        for file in self.files:
            found = stream_file(file, consume, reading, share)
            if found is None:
                found = _consume_whole(file, partial(read_file_corpus, file, reading), consume, share)
            _claim(owner, found.dialogue_ids, file)
            results.append(found)
        return results


def _loaded(file: InputFile) -> InputFile:
    """`file` with its file's bytes (and a reference layout's slices) read ahead: `ResolvedInput.loaded`."""
    if file.data is not None or file.path is None or not file.path.is_file():
        return file
    try:
        data = file.request().data
        slices = reference.cut(data, file.name) if file.format == "reference" else None
    except (InputError, *DECODE_ERRORS):
        return file
    return dataclasses.replace(file, data=data, slices=slices)


def _consume_whole(
    file: InputFile,
    read: Callable[[], Corpus],
    consume: Callable[[Iterable[Dialogue]], T],
    share: tuple[int, int] | None,
) -> FileResult:
    """`consume` of the Corpus `read` gives, read whole; with `share`, of the share's dialogues (`only_share`)."""
    with only_share(*share) if share else nullcontext() as positions:
        corpus = read()
    dialogue_ids = [dialogue.dialogue_id for dialogue in corpus.dialogues]
    positions = positions or list(range(len(dialogue_ids)))
    return FileResult(file, consume(corpus), dialogue_ids, positions, False, corpus.reading)


def stream_file(
    file: InputFile,
    consume: Callable[[Iterable[Dialogue]], T],
    reading: Reading | str = "exact",
    share: tuple[int, int] | None = None,
) -> FileResult | None:
    """`consume` of the dialogues of one file streamed, or None when it must be read whole: JSON Lines
    whose dialogues' lines are apart, a share of a format other than the reference layout, any problem."""
    if not _streams(file) or (share is not None and file.format != "reference"):
        return None
    layout = file.format == "reference"
    seen: list[str] = []
    builder = CorpusBuilder(reading)
    try:
        with gc_paused():
            if layout:
                data = file.request().data if file.data is None else file.data  # as reading whole reads it
                raws = reference.layout_dialogues(data, file.name, file.slices, share)
            else:
                raws = _record_dialogues(file)
            result = consume(_built(builder, raws, seen))
    except (jsonl.NotConsecutive, InputError, *DECODE_ERRORS):
        return None  # read whole: it names the problem, or accepts what streaming cannot
    if not seen and share is None:
        return None  # nothing in it: read whole, which says so
    k, n = share or (0, 1)
    positions = [k + n * i for i in range(len(seen))]
    return FileResult(file, result, seen, positions, True, tuple(builder.notes))


def _streams(file: InputFile) -> bool:
    return file.format in STREAMED_FORMATS and file.path is not None and file.path.is_file()


def resolve_input(spec: InputSpec, *, stream: bool = False) -> ResolvedInput:
    """`spec`'s source resolved into its files with their formats and, unless `stream`, read whole."""
    if isinstance(spec.source, dict) and spec.format in ("auto", "reference") and spec.gold is None:
        if spec.source and all(isinstance(turns, dict) for turns in spec.source.values()):
            with guarded(spec.name), gc_paused():  # a reference-layout dict: read as it is, no JSON round trip
                corpus = corpus_from_layout(spec.source, spec.reading)
            return ResolvedInput(spec, (InputFile("reference", spec.name),), (), corpus)
    files = resolve(spec.source, spec.format, spec.name)
    gold_files = () if spec.gold is None else resolve(spec.gold, spec.gold_format, spec.gold_name)
    if not gold_files:
        one_sided = [file for file in files if READERS[file.format].read is None]
        if one_sided:
            read_file_corpus(one_sided[0])  # raises: this format needs --gold
    opened = ResolvedInput(spec, files, gold_files)
    return opened if stream else msgspec.structs.replace(opened, corpus=opened.read())


def read(
    source: Any,
    format: str = "auto",
    *,
    gold: Any = None,
    gold_format: str = "auto",
    name: str | None = None,
    **reading: Any,
) -> Corpus:
    """Read a corpus from a path, a folder, bytes, text or Python objects in `format` (``auto`` detects it).

    A predictions-only format is paired with `gold` by dialogue and turn. `reading` holds the reading settings
    (`reading.Reading`): ``value_matching="fuzzy"``; ``prediction_states="updates"`` accumulates turn updates
    into states, ``gold_alternatives="first"`` keeps a gold slot's first acceptable value, ``only_predicted=True``
    scores only the gold dialogues predicted; the signature names each. Bad input raises InputError naming the
    file (or `name`), line, dialogue, turn and field."""
    spec = InputSpec(source, format, gold, gold_format, name, reading=Reading(**reading))
    return resolve_input(spec).corpus


def read_stream(
    source: Any,
    consume: Callable[[Iterable[Dialogue]], T],
    format: str = "auto",
    *,
    gold: Any = None,
    gold_format: str = "auto",
    name: str | None = None,
    **reading: Any,
) -> list[FileResult]:
    """`consume` of the dialogues of each file of `source`, one at a time where the file streams.

    Other files are read whole and given to `consume` as a Corpus. The other arguments are `read`'s.
    Returns one `FileResult` per file.

    >>> [found.result for found in read_stream('{"d1": {"0": {"gt": {}, "pr": {}}}}', len)]
    [1]
    """
    spec = InputSpec(source, format, gold, gold_format, name, reading=Reading(**reading))
    return resolve_input(spec, stream=True).read_stream(consume)


def formats_table() -> str:
    """The Markdown table of the formats (name, what a file holds, its layout) that docs/usage.md shows."""
    rows = [f"| `{r.name}` | {r.holds} | {r.layout.replace('|', chr(92) + '|')} |" for r in READERS.values()]
    return "\n".join(["| `--format` | holds | layout |", "| --- | --- | --- |", *rows]) + "\n"
