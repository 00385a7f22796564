"""The first place where decoded JSON is not of a reader's msgspec type, found without msgspec's message.

A typed decoder that fails raises a ValidationError whose wording a msgspec release may change. The
reader then decodes the data plainly and walks it beside the type's description (`msgspec.inspect`,
msgspec's documented view of a type), in the order the data is written, as the decoder does.
"""

from __future__ import annotations

from typing import NamedTuple

import msgspec
from msgspec import inspect

from ..errors import InputError, describe

_WORDS = {
    inspect.StrType: "a string",
    inspect.IntType: "a whole number",
    inspect.FloatType: "a number",
    inspect.BoolType: "true or false",
    inspect.NoneType: "null",
    inspect.ListType: "an array",
    inspect.DictType: "an object",
    inspect.StructType: "an object",
}


class Mismatch(NamedTuple):
    """Where (`path`: keys and positions from the top) and what: the field that is missing, or the kind expected."""

    path: tuple[str | int, ...]
    missing: str | None
    expected: str
    found: object = None


def first_mismatch(decoder: msgspec.json.Decoder, value: object) -> Mismatch | None:
    """The first place where `value` (the same data decoded plainly) is not of `decoder`'s type, else None."""
    return _first_mismatch(inspect.type_info(decoder.type), value, ())


def _first_mismatch(kind: inspect.Type, value: object, path: tuple[str | int, ...]) -> Mismatch | None:
    if isinstance(kind, (inspect.AnyType, inspect.RawType)):
        return None
    if isinstance(kind, inspect.UnionType):
        for member in kind.types:
            if _is_kind(member, value):
                return _first_mismatch(member, value, path)
        return Mismatch(path, None, " or ".join(expected(member) for member in kind.types), value)
    if not _is_kind(kind, value):
        return Mismatch(path, None, expected(kind), value)
    if isinstance(kind, inspect.ListType):
        for index, item in enumerate(value):
            found = _first_mismatch(kind.item_type, item, (*path, index))
            if found is not None:
                return found
    elif isinstance(kind, inspect.DictType):
        for key, item in value.items():
            found = _first_mismatch(kind.value_type, item, (*path, key))
            if found is not None:
                return found
    elif isinstance(kind, inspect.StructType):
        fields = {field.encode_name: field for field in kind.fields}
        for key, item in value.items():
            if key in fields:
                found = _first_mismatch(fields[key].type, item, (*path, key))
                if found is not None:
                    return found
        for field in kind.fields:
            if field.required and field.encode_name not in value:
                return Mismatch(path, field.encode_name, "")
    return None


def expected(kind: inspect.Type) -> str:
    """What a value of `kind` is, in words: ``a string``, ``a non-empty array of strings``."""
    if isinstance(kind, inspect.ListType) and isinstance(kind.item_type, inspect.StrType):
        return "a non-empty array of strings" if kind.min_length else "an array of strings"
    return _WORDS.get(type(kind), "a value of another kind")


def _is_kind(kind: inspect.Type, value: object) -> bool:
    """Whether `value` is of `kind`'s JSON kind and within its bounds (its items are not looked at)."""
    if isinstance(kind, (inspect.AnyType, inspect.RawType)):
        return True
    if isinstance(kind, inspect.UnionType):
        return any(_is_kind(member, value) for member in kind.types)
    if isinstance(kind, inspect.StrType):
        return type(value) is str
    if isinstance(kind, inspect.IntType):
        return type(value) is int and (kind.ge is None or value >= kind.ge)
    if isinstance(kind, inspect.FloatType):
        return type(value) in (int, float)
    if isinstance(kind, inspect.BoolType):
        return type(value) is bool
    if isinstance(kind, inspect.NoneType):
        return value is None
    if isinstance(kind, inspect.ListType):
        return type(value) is list and len(value) >= (kind.min_length or 0)
    if isinstance(kind, (inspect.DictType, inspect.StructType)):
        return type(value) is dict
    return True


def mismatch_error(found: Mismatch, field: str = "", prefix: str = "", **place: object) -> InputError:
    """`found` (in a part of the data whose field is `field`) as an InputError at its field and `place`
    (dialogue, turn, source), naming the value found there; `prefix` starts the message."""
    for step in found.path:
        field += f"[{step}]" if type(step) is int else f".{step}" if field else step
    if found.missing is not None:
        field = f"{field}.{found.missing}" if field else found.missing
        return InputError(f"{prefix}there is no {found.missing}", field=field, **place)
    return InputError(f"{prefix}expected {found.expected}, got {describe(found.found)}", field=field or None, **place)
