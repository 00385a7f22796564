"""JSON Lines of turns: one object a line, ``{"dialogue_id": "MUL0003", "turn_id": 0, "gt": state,
"pr": state}``, lines in any order; blank lines are skipped. Errors name the line.
"""

from __future__ import annotations

from .. import ids
from ..corpus import GOLD_FIELD, PRED_FIELD, Corpus
from ..errors import InputError, describe
from .base import Reader, ReaderFit, ReadRequest, decode_json
from .lines import TurnLines

FIELDS = ("dialogue_id", "turn_id", GOLD_FIELD, PRED_FIELD)


def read_jsonl(request: ReadRequest) -> Corpus:
    """Read every non-blank line as one turn."""
    turns = TurnLines(request)
    for number, line in enumerate(request.data.split(b"\n"), start=1):
        if not line.strip():
            continue
        where = turns.where(number)
        record = decode_json(line, where, one_line=True)
        if not isinstance(record, dict):
            expected = ", ".join(FIELDS)
            raise InputError(f"a line must be a JSON object with {expected}, got {describe(record)}", source=where)
        for field in FIELDS:
            if field not in record:
                raise InputError(f"the line has no {field}", field=field, source=where)
        dialogue_id = ids.dialogue_id(record["dialogue_id"], source=where)
        turn_id = ids.turn_id(record["turn_id"], dialogue=dialogue_id, source=where)
        turns.add(number, dialogue_id, turn_id, record[GOLD_FIELD], record[PRED_FIELD])
    return turns.corpus()


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


READER = Reader("jsonl", 'JSON Lines of turns {"dialogue_id", "turn_id", "gt", "pr"}', sniff, read_jsonl)
