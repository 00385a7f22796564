"""The id rules every reader, the evaluate modules and the Space share.

- A **dialogue id** is a non-empty string, or an integer named by its digits.
- A **turn id** is a whole number ≥ 0: an integer or a string of ASCII digits (``"3"``, not
  ``" 3"``). Turns are ordered by it; it need not start at 0 or be consecutive.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

from .errors import InputError, describe


def dialogue_id(raw: object, *, source: str | None = None, field: str | None = "dialogue_id") -> str:
    """A dialogue id as a string; anything else raises InputError."""
    if type(raw) is str and raw:
        return raw
    if isinstance(raw, numbers.Integral) and not isinstance(raw, bool):
        return str(int(raw))
    raise InputError(
        f"a dialogue id must be a non-empty string or an integer, got {describe(raw)}", field=field, source=source
    )


def turn_id(raw: object, *, dialogue: object = None, source: str | None = None, field: str | None = "turn_id") -> int:
    """A turn id as an int; anything else raises InputError."""
    if type(raw) is int and raw >= 0:
        return raw
    if isinstance(raw, numbers.Integral) and not isinstance(raw, bool) and raw >= 0:
        return int(raw)
    if isinstance(raw, str) and raw.isascii() and raw.isdigit():
        return int(raw)
    raise InputError(
        f"a turn id must be a whole number >= 0 or a string of digits, got {describe(raw)}",
        dialogue=dialogue,
        field=field,
        source=source,
    )


def turn_ids(keys: Iterable[object], dialogue: object) -> list[int]:
    """The turn ids of a dialogue's keys, digit strings converted in bulk (the common case)."""
    keys = list(keys)
    if all(type(key) is str and key.isdigit() and key.isascii() for key in keys):
        return list(map(int, keys))
    return [turn_id(key, dialogue=dialogue, field=None) for key in keys]
