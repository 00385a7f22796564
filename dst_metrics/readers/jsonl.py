"""JSON Lines of turns: one object a line, ``{"dialogue_id": "MUL0003", "turn_id": 0, "gt": state,
"pr": state}``, in any order; blank lines are skipped. Errors name the line.

`turn_record` decodes a line. Reading whole groups the turns by dialogue (`lines.TurnLines`);
streaming (`record_dialogues`) builds each run of consecutive lines of one dialogue.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import msgspec

from .. import ids
from ..corpus import GOLD_FIELD, PRED_FIELD, Corpus
from ..errors import InputError, describe
from .base import Reader, ReaderFit, ReadRequest, decode_json, typed_decode
from .lines import TurnLines
from .reference import RawDialogue, RawTurn

FIELDS = ("dialogue_id", "turn_id", GOLD_FIELD, PRED_FIELD)


class _Record(RawTurn):
    dialogue_id: str | int
    turn_id: str | int


_RECORD = msgspec.json.Decoder(_Record)


class NotConsecutive(Exception):
    """The lines of a dialogue are not one after another: the file is read whole (its lines grouped by dialogue)."""


def turn_record(line: bytes, where: str | None) -> tuple[str, int, object, object]:
    """(dialogue id, turn id, gold state, predicted state) of one line, else InputError naming `where`."""
    record = typed_decode(_RECORD, line)
    if record is not None:
        dialogue_id, turn_id, gold, pred = record.dialogue_id, record.turn_id, record.gt, record.pr
    else:
        decoded = decode_json(line, where, one_line=True)
        if not isinstance(decoded, dict):
            expected = ", ".join(FIELDS)
            raise InputError(f"a line must be a JSON object with {expected}, got {describe(decoded)}", source=where)
        for field in FIELDS:
            if field not in decoded:
                raise InputError(f"the line has no {field}", field=field, source=where)
        dialogue_id, turn_id, gold, pred = (decoded[field] for field in FIELDS)
    dialogue_id = ids.dialogue_id(dialogue_id, source=where)
    return dialogue_id, ids.turn_id(turn_id, dialogue=dialogue_id, source=where), gold, pred


def read_jsonl(request: ReadRequest) -> Corpus:
    """Read every non-blank line as one turn."""
    turns = TurnLines(request)
    for number, line in enumerate(request.data.split(b"\n"), start=1):
        if line.strip():
            turns.add(number, *turn_record(line, turns.where(number)))
    return turns.corpus()


def record_dialogues(lines: Iterable[bytes], source: str | None) -> Iterator[RawDialogue]:
    """The dialogues of consecutive lines; a dialogue whose lines come back later raises NotConsecutive."""
    seen: set[str] = set()
    current, turns, golds, preds = None, [], [], []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        dialogue_id, turn_id, gold, pred = turn_record(line, f"{source}, line {number}" if source else f"line {number}")
        if dialogue_id != current:
            if current is not None:
                yield current, turns, golds, preds
            if dialogue_id in seen:
                raise NotConsecutive
            seen.add(dialogue_id)
            current, turns, golds, preds = dialogue_id, [], [], []
        turns.append(turn_id)
        golds.append(gold)
        preds.append(pred)
    if current is not None:
        yield current, turns, golds, preds


def sniff(head: str) -> ReaderFit:
    """The first non-blank line alone is a JSON object with a dialogue_id."""
    stripped = head.lstrip()
    if stripped[:1] != "{":
        return ReaderFit(0)
    first, newline, _ = stripped.partition("\n")
    if not newline and '"dialogue_id"' not in first:
        return ReaderFit(0)  # one line (or a head cut inside its first line) without the key: not decoded
    try:
        value = decode_json(first.encode("utf-8"))
    except InputError:
        return ReaderFit(0)
    if isinstance(value, dict) and "dialogue_id" in value:
        return ReaderFit(2)
    if isinstance(value, dict) and newline:
        return ReaderFit(1, "its first line has no dialogue_id")
    return ReaderFit(0)


READER = Reader(
    "jsonl",
    'JSON Lines of turns {"dialogue_id", "turn_id", "gt", "pr"}',
    sniff,
    read_jsonl,
    holds="both sides",
    suffixes=(".jsonl",),
    layout=(
        'one turn per line: `{"dialogue_id": "MUL0003", "turn_id": 0, "gt": state, "pr": state}`, lines in any order'
    ),
)
