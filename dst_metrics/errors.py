"""The error type for bad input, with where it was found.

A message reads ``FILE, dialogue "MUL0003", turn 2, field gt.hotel.area: problem``, values named
as JSON names them (``null``, an object, an array).
"""

from __future__ import annotations

import json

_JSON_KINDS = {
    type(None): "null",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    dict: "an object",
    list: "an array",
    tuple: "an array",
}


def json_text(value: object, limit: int = 60) -> str:
    """`value` as JSON text (cut at `limit` characters); Python-only objects by their repr."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):  # e.g. a dict with tuple keys
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and `noun` in the number's form: ``counted(2, "dialogue")`` is ``"2 dialogues"``."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def describe(value: object) -> str:
    """What a value is, in JSON words: ``null``, ``a boolean (true)``, ``an object ({"x": 1})``."""
    if value is None:
        return "null"
    kind = _JSON_KINDS.get(type(value))
    if kind is None:
        kind = "an object" if isinstance(value, dict) else f"a {type(value).__name__}"
    return f"{kind} ({json_text(value)})"


def _turn_text(turn: object) -> str:
    if isinstance(turn, int) and not isinstance(turn, bool):
        return str(turn)
    if isinstance(turn, str) and turn.isascii() and turn.isdigit():
        return str(int(turn))
    return json_text(turn)


UNDECODABLE = "undecodable"
"""`InputError.kind` of bytes that do not decode (not UTF-8, not valid JSON, nested too deeply): maybe another
format's data, which `readers.inputs` then names."""


class InputError(ValueError):
    """Bad input, raised before any figure is computed, naming the file, dialogue, turn and field known; `kind`
    says what failed: ``"invalid"`` content, or `UNDECODABLE` bytes."""

    def __init__(
        self,
        problem: str,
        *,
        dialogue: object = None,
        turn: object = None,
        field: str | None = None,
        source: str | None = None,
        kind: str = "invalid",
    ) -> None:
        self.problem = problem
        self.dialogue = dialogue
        self.turn = turn
        self.field = field
        self.source = source
        self.kind = kind
        super().__init__(self._message())

    def _message(self) -> str:
        place = []
        if self.source is not None:
            place.append(self.source)
        if self.dialogue is not None:
            place.append(f"dialogue {json_text(str(self.dialogue), 120)}")
        if self.turn is not None:
            place.append(f"turn {_turn_text(self.turn)}")
        if self.field is not None:
            place.append(f"field {self.field}")
        return f"{', '.join(place)}: {self.problem}" if place else self.problem

    def within(self, source: str) -> InputError:
        """The same error, located inside `source` (a file name or a batch position)."""
        where = source if self.source is None else f"{source}, {self.source}"
        return self.located(source=where)

    def located(self, **place: object) -> InputError:
        """The same problem with some of its place (dialogue, turn, field, source) set or replaced."""
        current = {"dialogue": self.dialogue, "turn": self.turn, "field": self.field, "source": self.source}
        return InputError(self.problem, kind=self.kind, **{**current, **place})
