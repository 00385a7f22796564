"""Dialogue states: the input shapes accepted and the normalized form every metric reads.

A normalized state is a ``dict`` from ``"domain-slot"`` to a ``str`` value, or, for a gold value
with several acceptable values, an `Alternatives` (a frozenset that remembers the order given).
Explicit ``"none"`` and ``""`` values are kept; the mode decides whether they count as inactive.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import cast

import msgspec

from ._alternatives import Alternatives  # defined apart: never compiled (see that module)
from .errors import InputError, describe, json_text

Value = str | Alternatives
State = dict  # dict[str, Value]; kept a plain dict: it is read in the hot loop

NONE_VALUE = "none"
INACTIVE_VALUES = frozenset({"", NONE_VALUE})
NOT_MENTIONED = "not mentioned"
UNSET_VALUES = frozenset({"", NOT_MENTIONED})
"""What MultiWOZ's data.json writes for a slot that is not set: its reader leaves such slots out."""
ABSENT_VALUES = UNSET_VALUES | INACTIVE_VALUES
"""A generated value that says its slot has no value (`says_absent`): what a reader leaves out as unset,
and ``none``, which every mode but official counts as no value (official treats gold's explicit ``none``
specially, so readers keep it)."""
BOOKING_PART = "book"
"""The part of a MultiWOZ domain that holds its booking slots (``{"hotel": {"semi": …, "book": …}}``)."""


def says_absent(value: str) -> bool:
    """Whether a generated value means no value (`ABSENT_VALUES` in any case and spacing)."""
    return " ".join(value.lower().split()) in ABSENT_VALUES


def slot_service(slot: str) -> str:
    """A slot's service: its name before the first hyphen (SGD's ``Restaurants_1``, MultiWOZ's ``hotel``)."""
    return slot.split("-", 1)[0]


def slot_domain(slot: str) -> str:
    """A slot's domain: its service without an SGD version suffix (``Restaurants``; MultiWOZ's ``hotel``, the
    service itself). The one vocabulary of ``--by domain``, ``--domain`` and `explain`'s rows."""
    service = slot_service(slot)
    name, underscore, version = service.rpartition("_")
    return name if underscore and name and version.isdigit() else service


def booking_slot(slot: str) -> str:
    """A slot of a domain's ``book`` part as MultiWOZ names it: ``people`` -> ``book people``."""
    return f"{BOOKING_PART} {slot}"


VALUE_KEY = "value"
SCORE_KEYS = ("confidence", "score")
"""A predicted value with a confidence is an object ``{"value": ..., "confidence" | "score": ...}``
(`dst_metrics.confidences`); under a flat key it is such a value, not a domain."""


def is_scored_mapping(raw: Mapping) -> bool:
    """Whether a mapping is a value with a confidence (`SCORE_KEYS`), not a domain of slots."""
    return VALUE_KEY in raw and (SCORE_KEYS[0] in raw or SCORE_KEYS[1] in raw)


DELETE_MARKER = "[DELETE]"
"""The value that removes a slot in a turn update (IC-DST's and RefPyDST's; matched case-insensitively),
as JSON null does (`dst_metrics.generation.updates`)."""


def is_deletion(value: object) -> bool:
    """Whether an update's value removes its slot: None or the `DELETE_MARKER` (any case)."""
    return value is None or (isinstance(value, str) and value.upper() == DELETE_MARKER)


def values_match(gold: Value | None, pred: Value | None) -> bool:
    """True when the predicted value is the gold value or one of its acceptable values."""
    return gold == pred or (gold.__class__ is Alternatives and pred in gold)


def _canonical_text(text: str, matching: str) -> str:
    return " ".join(text.lower().split()) if matching == "normalized" else text


def _value(raw: object, *, gold: bool, matching: str, field: str, deletions: bool = False) -> Value:
    """One slot value normalized; with `deletions`, a predicted null is the `DELETE_MARKER`."""
    kind = type(raw)
    if kind is str:
        return _canonical_text(cast(str, raw), matching)
    if raw is None and deletions and not gold:
        return DELETE_MARKER
    if kind is int or kind is float:
        return str(raw)
    if gold and kind in (list, tuple):
        raw = cast("list | tuple", raw)
        if not raw:
            raise InputError("an empty list of acceptable values", field=field)
        options = dict.fromkeys(_value(item, gold=False, matching=matching, field=field) for item in raw)
        if options.keys() & INACTIVE_VALUES and len(options) > 1:
            raise InputError(
                'a list of acceptable values mixes an inactive value ("none" or "") with others: '
                + json_text(list(raw)),
                field=field,
            )
        return next(iter(options)) if len(options) == 1 else Alternatives(options)
    if kind in (list, tuple):
        raise InputError(
            f"a predicted value must be one string, got {describe(list(cast('list | tuple', raw)))}", field=field
        )
    hint = ""
    if raw is None and not gold:
        hint = ' (null removes a slot only in turn updates: --prediction-states updates; prediction_states="updates")'
    raise InputError(f"a value must be a string or a number, got {describe(raw)}{hint}", field=field)


def _name(raw: object, what: str, field: str) -> str:
    if type(raw) is not str:
        raise InputError(f"a {what} name must be a string, got {describe(raw)}", field=field)
    return raw


def split_slot_string(item: str, field: str | None = None) -> tuple[str, str]:
    """("domain-slot", value) of a "domain-slot-value" string split at its first two hyphens, else InputError."""
    parts = item.split("-", 2)
    if len(parts) != 3 or not parts[0] or not parts[1]:
        raise InputError(f'expected a "domain-slot-value" string, got {json_text(item)}', field=field)
    return f"{parts[0]}-{parts[1]}", parts[2]


def _entries(raw: object, field: str):
    """Yield (slot name, raw value, field path) for every entry of a state in any shape."""
    if isinstance(raw, Mapping):
        for key, inner in raw.items():
            if isinstance(inner, Mapping) and not is_scored_mapping(inner):
                domain = _name(key, "domain", f"{field}.{key}")
                for slot, value in inner.items():
                    where = f"{field}.{domain}.{slot}"
                    yield f"{domain}-{_name(slot, 'slot', where)}", value, where
            else:
                where = f"{field}.{key}"
                yield _name(key, "slot", where), inner, where
    elif isinstance(raw, (list, tuple)):
        for index, item in enumerate(raw):
            where = f"{field}[{index}]"
            if type(item) is str:
                yield (*split_slot_string(item, where), where)
            elif isinstance(item, (list, tuple)) and len(item) == 3:
                domain = _name(item[0], "domain", where)
                yield f"{domain}-{_name(item[1], 'slot', where)}", item[2], where
            else:
                raise InputError(
                    'a state array holds [domain, slot, value] triples or "domain-slot-value" strings, got '
                    + describe(item),
                    field=where,
                )
    else:
        raise InputError(
            f"a state must be an object or an array, got {describe(raw)}",
            field=field,
        )


def normalize_state(
    raw: object,
    *,
    gold: bool,
    matching: str = "exact",
    field: str = "state",
    linearized: LinearizedFormat | None = None,
    deletions: bool = False,
) -> State:
    """Normalize one state: a nested or flat mapping, triples, 'domain-slot-value' strings, or a
    linearized string. With `deletions`, a null value is kept as `DELETE_MARKER`.

    >>> normalize_state({"hotel": {"area": "north", "stars": 4}}, gold=True)
    {'hotel-area': 'north', 'hotel-stars': '4'}
    """
    if type(raw) is dict and matching == "exact":
        fast = plain_state(raw)
        if fast is not None:
            return fast
    if isinstance(raw, str):
        try:
            raw = (linearized or LinearizedFormat()).parse(raw)
        except InputError as error:
            raise InputError(error.problem, field=field) from None
    state: State = {}
    for slot, value, where in _entries(raw, field):
        if slot in state:
            raise InputError(f"slot {json_text(slot)} is given twice", field=where)
        state[slot] = _value(value, gold=gold, matching=matching, field=where, deletions=deletions)
    return state


def plain_state(raw: dict, slot_names: dict | None = None) -> State | None:
    """Normalize nested or flat dicts of strings only, else None; `slot_names` caches slot names."""
    if slot_names is None:
        slot_names = {}
    state = {}
    expected = 0
    for domain, inner in raw.items():
        if type(inner) is str:  # a flat entry "domain-slot": value
            if type(domain) is not str:
                return None
            expected += 1
            state[domain] = inner
            continue
        if type(inner) is not dict:
            return None
        names = slot_names.get(domain)
        if names is None:
            if type(domain) is not str or is_scored_mapping(inner):  # checked once per domain name
                return None
            names = slot_names[domain] = {}
        expected += len(inner)
        for slot, value in inner.items():
            name = names.get(slot)
            if name is None:
                if type(slot) is not str:
                    return None
                name = names[slot] = f"{domain}-{slot}"
            if type(value) is not str:
                return None
            state[name] = value
    return state if len(state) == expected else None


class LinearizedFormat(msgspec.Struct, frozen=True):
    """How a generative model writes a state as text (see `parse_linearized`)."""

    slot_separator: str = ";"
    value_separator: str = "="
    alternatives_separator: str | None = None

    def parse(self, text: object) -> dict:
        """Parse `text` into a flat state."""
        return parse_linearized(
            text,
            slot_separator=self.slot_separator,
            value_separator=self.value_separator,
            alternatives_separator=self.alternatives_separator,
        )

    def describe(self) -> str:
        """A short description for signatures, e.g. ``slot=value;...``."""
        alternatives = f" alternatives:{self.alternatives_separator}" if self.alternatives_separator else ""
        return f"slot{self.value_separator}value{self.slot_separator}...{alternatives}"


def parse_linearized(
    text: object,
    *,
    slot_separator: str = ";",
    value_separator: str = "=",
    alternatives_separator: str | None = None,
) -> dict:
    """Parse a linearized state such as ``"hotel-area=north; hotel-stars=4"`` into a flat state.

    Entries are split on `slot_separator`, each at its first `value_separator`, and stripped; empty
    entries are dropped. With `alternatives_separator` (e.g. ``"|"``) a value lists acceptable values.
    A malformed entry raises InputError naming it."""
    if not isinstance(text, str):
        raise InputError(f"a linearized state must be a string, got {describe(text)}")
    state: dict = {}
    for chunk in text.split(slot_separator):
        entry = chunk.strip()
        if not entry:
            continue
        slot, sep, value = entry.partition(value_separator)
        slot, value = slot.strip(), value.strip()
        if not sep or not slot:
            raise InputError(
                f"malformed entry {json_text(entry)} in linearized state {json_text(text)}: expected "
                f"{json_text('slot' + value_separator + 'value')} entries separated by {json_text(slot_separator)}"
            )
        if slot in state:
            raise InputError(f"slot {json_text(slot)} is given twice in linearized state {json_text(text)}")
        if alternatives_separator and alternatives_separator in value:
            state[slot] = [option.strip() for option in value.split(alternatives_separator)]
        else:
            state[slot] = value
    return state


def encode_values(values: list[str]) -> str:
    """One string for a list of values (DSTC10's value lists, SIMMC's object ids) from which
    `decode_values` gives back its distinct values: one value is itself, none ``""``, several (or one that
    starts with ``[``) the JSON text of the distinct values, sorted."""
    distinct = set(values)
    if len(distinct) == 1:
        (value,) = distinct
        if value and not value.startswith("["):
            return value
    elif not distinct:
        return ""
    return json.dumps(sorted(distinct), ensure_ascii=False)


def decode_values(value: str) -> list[str]:
    """The distinct values `encode_values` wrote into `value`."""
    if value.startswith("["):
        return json.loads(value)
    return [value] if value else []
