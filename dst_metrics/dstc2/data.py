"""Reading DSTC2 sessions (flist, ``log.json``, ``label.json``), the ontology and tracker output files.
Only the fields the official scorer reads are decoded (docs/dstc2.md, rule 1); a session is the
position-wise zip of its log and label turns. Malformed data files raise `InputError` naming the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import msgspec

from .._gc import without_gc
from ..errors import InputError
from ..json_problems import find_json_problem
from ..readers.base import DECODE_ERRORS, decode_error, line_and_column
from ..readers.shape import first_mismatch, mismatch_error


class Act(msgspec.Struct):
    """One dialog act: ``{"act": name, "slots": [[slot, value], ...]}``."""

    act: str
    slots: list[tuple[Any, Any]] = []


class _SluHyp(msgspec.Struct):
    slu_hyp: list[Act] = msgspec.field(name="slu-hyp")


class _Live(msgspec.Struct):
    slu_hyps: list[_SluHyp] = msgspec.field(name="slu-hyps")


class _Input(msgspec.Struct):
    live: _Live


class _Output(msgspec.Struct):
    dialog_acts: list[Act] = msgspec.field(name="dialog-acts")


class _LogTurn(msgspec.Struct):
    output: _Output
    input: _Input


class _Log(msgspec.Struct):
    session_id: str = msgspec.field(name="session-id")
    turns: list[_LogTurn] = []


class _Semantics(msgspec.Struct):
    json: list[Act]


class LabelTurn(msgspec.Struct):
    """One turn of ``label.json``: the scheme-A labels and the transcription's semantics."""

    goal_labels: dict[str, str] = msgspec.field(name="goal-labels")
    method_label: str = msgspec.field(name="method-label")
    requested_slots: list[str] = msgspec.field(name="requested-slots")
    semantics: _Semantics


class _Label(msgspec.Struct):
    turns: list[LabelTurn] = []


@dataclass(frozen=True)
class LogTurn:
    """What the scorer reads of a log turn: the system acts and the acts of every live SLU hypothesis."""

    system_acts: list[Act]
    slu_hyps: list[list[Act]]


@dataclass(frozen=True)
class Session:
    """One DSTC2 session: its id, and its log and label turns zipped by position."""

    session_id: str
    path: str
    log_turns: list[LogTurn]
    label_turns: list[LabelTurn]

    def __len__(self) -> int:
        """The number of turns: log and label turns are zipped, the shorter list decides."""
        return min(len(self.log_turns), len(self.label_turns))


@dataclass(frozen=True)
class Ontology:
    """``informable`` slot -> values (ontology key order), ``requestable`` slots, ``method`` labels."""

    informable: dict[str, list[Any]]
    requestable: list[str]
    methods: list[str]


_LOG_DECODER = msgspec.json.Decoder(_Log)
_LABEL_DECODER = msgspec.json.Decoder(_Label)
_JSON_DECODER = msgspec.json.Decoder()


def _decode(
    decoder: msgspec.json.Decoder,
    path: str,
    *,
    what: str = "the file",
    malformed: str = "not a DSTC2 file",
    missing: str | None = None,
) -> Any:
    """The file at `path` decoded; InputError if unreadable or malformed, and with `missing` (a
    session folder) "there is no <file>" if it does not exist."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        if missing is not None and isinstance(error, FileNotFoundError):
            raise InputError(f"cannot score: there is no {os.path.basename(path)}", source=missing) from None
        raise InputError(f"cannot read {what}: {error.strerror or error}", source=path) from None
    try:
        return decoder.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):
        raise _malformed(decoder, data, path, malformed) from None
    except DECODE_ERRORS as error:  # nested too deeply
        raise decode_error(error, source=path) from None


def _malformed(decoder: msgspec.json.Decoder, data: bytes, path: str, malformed: str) -> InputError:
    """What msgspec refused in `data`, found by our own means (its message is not read, issue 56): the first
    fault of the JSON text at its line and column, else the first value not of the decoder's type, by field."""
    found = find_json_problem(data)
    if found.problem:
        place = "" if found.offset is None else f" at {line_and_column(data, found.offset)}"
        return InputError(f"{malformed}{place}: {found.problem}", source=path)
    mismatch = first_mismatch(decoder, msgspec.json.decode(data))
    if mismatch is None:  # JSON of the decoder's shape that msgspec still refused: a limit of the decoder
        return InputError(f"{malformed}: msgspec cannot decode it", source=path)
    return mismatch_error(mismatch, prefix=f"{malformed}: ", source=path)


def read_flist(path: str) -> list[str]:
    """The session paths of an flist (non-empty lines, stripped); a session listed twice is an error."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = [line.strip() for line in handle]
    except OSError as error:
        raise InputError(f"cannot read the flist: {error.strerror or error}", source=path) from None
    sessions = [line for line in lines if line]
    seen: set[str] = set()
    for number, line in enumerate(sessions, 1):
        if line in seen:
            raise InputError(f"session {line!r} is listed twice (line {number})", source=path)
        seen.add(line)
    return sessions


def read_session(dataroot: str, relative: str) -> Session:
    """One session: ``<dataroot>/<relative>/log.json`` and ``label.json`` (both required)."""
    folder = os.path.join(dataroot, *relative.split("/"))
    log = _decode(_LOG_DECODER, os.path.join(folder, "log.json"))
    label = _decode(_LABEL_DECODER, os.path.join(folder, "label.json"), missing=folder)
    log_turns = [LogTurn(t.output.dialog_acts, [h.slu_hyp for h in t.input.live.slu_hyps]) for t in log.turns]
    return Session(log.session_id, relative, log_turns, label.turns)


@without_gc
def read_sessions(dataroot: str, flist: str) -> list[Session]:
    """Every session the flist names, in its order (a progress bar on a terminal after 2 s)."""
    from ..progress import progress

    relatives = read_flist(flist)
    return [read_session(dataroot, relative) for relative in progress(relatives, unit="sessions", desc="reading")]


def read_ontology(path: str) -> Ontology:
    """The ontology: ``informable`` (an object of value lists), ``requestable`` and ``method`` (lists)."""
    raw = _json_object(path, "the ontology", "the ontology is not a JSON object")
    informable = raw.get("informable")
    if not isinstance(informable, dict) or not all(isinstance(v, list) for v in informable.values()):
        raise InputError("the ontology needs 'informable': an object of value lists", source=path, field="informable")
    requestable = raw.get("requestable", [])
    methods = raw.get("method", [])
    for name, value in (("requestable", requestable), ("method", methods)):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"the ontology's '{name}' must be a list of strings", source=path, field=name)
    return Ontology(informable, requestable, methods)


def read_track(path: str) -> dict[str, Any]:
    """A tracker output file as JSON (objects keep their key order; checked by `dst_metrics.dstc2.check`)."""
    return _json_object(path, "the track file", "a track file is a JSON object with 'sessions'")


def _json_object(path: str, what: str, not_object: str) -> dict[str, Any]:
    """The JSON object in the file at `path`; unreadable, not JSON or not an object: InputError."""
    raw = _decode(_JSON_DECODER, path, what=what, malformed="not JSON")
    if not isinstance(raw, dict):
        raise InputError(not_object, source=path)
    return raw
