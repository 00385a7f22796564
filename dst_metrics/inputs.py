"""Reading pasted or uploaded text into a Corpus: the three text layouts the Space accepts.

- ``reference``: one JSON document ``{dialogue_id: {turn_id: {"gt": state, "pr": state}}}``.
- ``jsonl``: JSON Lines, one turn per line:
  ``{"dialogue_id": "MUL0003", "turn_id": 0, "gt": state, "pr": state}``
  (``dialogue_id`` a string, ``turn_id`` an integer; lines in any order; blank lines skipped).
- ``linearized``: one turn per line, four fields separated by a TAB:
  ``dialogue_id<TAB>turn_id<TAB>gold state<TAB>predicted state``, each state linearized as
  ``hotel-area=north; hotel-stars=4`` (an empty field is an empty state; in the gold field
  ``a|b`` lists acceptable values). Blank lines and lines starting with ``#`` are skipped.

A state inside the JSON layouts may take any shape `normalize_state` accepts, including a
linearized string. Every problem raises `InputError` naming the line (or JSON position),
dialogue, turn and field.
"""

from __future__ import annotations

import json

from .corpus import GOLD_FIELD, PRED_FIELD, Corpus
from .errors import InputError
from .states import parse_linearized

FORMATS: dict[str, str] = {
    "auto": "auto-detect",
    "reference": "reference layout JSON",
    "jsonl": "JSON Lines of turns",
    "linearized": "linearized lines (TAB-separated)",
}
LINEARIZED_FIELDS = ("dialogue_id", "turn_id", "gold", "pred")
GOLD_ALTERNATIVES = "|"


def loads_json(text: str, *, source: str | None = None) -> object:
    """Parse JSON text; invalid JSON raises InputError with the line and column of the problem."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}", source=source
        ) from None


def detect_format(text: str) -> str:
    """Guess the layout of `text`: 'jsonl' when its first line alone is a JSON object with a
    ``dialogue_id``, 'reference' for any other text starting with ``{`` or ``[``, else
    'linearized'. Empty text raises InputError."""
    stripped = text.strip()
    if not stripped:
        raise InputError("there is no data: paste it or upload a file")
    if stripped[0] not in "{[":
        return "linearized"
    first_line = stripped.split("\n", 1)[0].strip()
    try:
        first = json.loads(first_line)
    except ValueError:
        return "reference"
    return "jsonl" if isinstance(first, dict) and "dialogue_id" in first else "reference"


def _lines(text: str):
    """Yield (line number, line) for the lines that hold data."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def _check_key(dialogue_id: object, turn_id: object, where: str, seen: dict) -> tuple[str, int]:
    if not isinstance(dialogue_id, str) or not dialogue_id:
        raise InputError(
            f"a dialogue id must be a non-empty string, got {dialogue_id!r}",
            field="dialogue_id",
            source=where,
        )
    if isinstance(turn_id, bool) or not isinstance(turn_id, int):
        raise InputError(
            f"a turn id must be an integer, got {turn_id!r}",
            dialogue=dialogue_id,
            field="turn_id",
            source=where,
        )
    key = (dialogue_id, turn_id)
    if key in seen:
        raise InputError(
            f"this (dialogue_id, turn_id) is already given on {seen[key]}",
            dialogue=dialogue_id,
            turn=turn_id,
            source=where,
        )
    seen[key] = where
    return key


def _corpus(records: list[tuple[str, int, object, object]], value_matching: str) -> Corpus:
    if not records:
        raise InputError("there is no turn in the data (only blank or comment lines)")
    gold = [{"dialogue_id": d, "turn_id": t, "state": g} for d, t, g, _ in records]
    pred = [{"dialogue_id": d, "turn_id": t, "state": p} for d, t, _, p in records]
    return Corpus.from_turn_records(pred, gold, value_matching=value_matching)


def corpus_from_reference_json(text: str, *, value_matching: str = "exact") -> Corpus:
    """A Corpus from a reference layout JSON document."""
    return Corpus.from_reference_layout(loads_json(text), value_matching=value_matching)


def corpus_from_jsonl(text: str, *, value_matching: str = "exact") -> Corpus:
    """A Corpus from JSON Lines, one ``{"dialogue_id", "turn_id", "gt", "pr"}`` object a line."""
    records, seen = [], {}
    for number, line in _lines(text):
        where = f"line {number}"
        record = loads_json(line, source=where)
        if not isinstance(record, dict):
            raise InputError(
                f"a line must be a JSON object with 'dialogue_id', 'turn_id', 'gt' and 'pr', "
                f"got {type(record).__name__}",
                source=where,
            )
        for field in ("dialogue_id", "turn_id", GOLD_FIELD, PRED_FIELD):
            if field not in record:
                raise InputError(f"the line has no {field!r}", field=field, source=where)
        key = _check_key(record["dialogue_id"], record["turn_id"], where, seen)
        records.append((*key, record[GOLD_FIELD], record[PRED_FIELD]))
    return _corpus(records, value_matching)


def corpus_from_linearized(text: str, *, value_matching: str = "exact") -> Corpus:
    """A Corpus from TAB-separated lines ``dialogue_id, turn_id, gold, pred`` with linearized
    states ``slot=value; slot=value`` (``|`` separates acceptable gold values)."""
    records, seen = [], {}
    for number, line in _lines(text):
        where = f"line {number}"
        fields = line.rstrip("\r\n").split("\t")
        if len(fields) != len(LINEARIZED_FIELDS):
            raise InputError(
                f"expected 4 TAB-separated fields (dialogue_id, turn_id, gold state, predicted "
                f"state), found {len(fields)}",
                source=where,
            )
        dialogue_id, turn_text, gold_text, pred_text = (field.strip() for field in fields)
        try:
            turn_id = int(turn_text)
        except ValueError:
            raise InputError(
                f"a turn id must be an integer, got {turn_text!r}",
                dialogue=dialogue_id,
                field="turn_id",
                source=where,
            ) from None
        key = _check_key(dialogue_id, turn_id, where, seen)
        states = []
        for field, state_text, alternatives in (
            (GOLD_FIELD, gold_text, GOLD_ALTERNATIVES),
            (PRED_FIELD, pred_text, None),
        ):
            try:
                states.append(parse_linearized(state_text, alternatives_separator=alternatives))
            except InputError as error:
                raise InputError(error.problem, dialogue=key[0], turn=key[1], field=field, source=where) from None
        records.append((*key, *states))
    return _corpus(records, value_matching)


_READERS = {
    "reference": corpus_from_reference_json,
    "jsonl": corpus_from_jsonl,
    "linearized": corpus_from_linearized,
}


def read_corpus(text: str, fmt: str = "auto", *, value_matching: str = "exact") -> tuple[Corpus, str]:
    """Read `text` in layout `fmt` (one of `FORMATS`; 'auto' detects it) and return the Corpus
    with the layout actually used."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {tuple(FORMATS)}, got {fmt!r}")
    if not text.strip():
        raise InputError("there is no data: paste it or upload a file")
    used = detect_format(text) if fmt == "auto" else fmt
    return _READERS[used](text, value_matching=value_matching), used


__all__ = [
    "FORMATS",
    "corpus_from_jsonl",
    "corpus_from_linearized",
    "corpus_from_reference_json",
    "detect_format",
    "loads_json",
    "read_corpus",
]
