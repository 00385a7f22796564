"""DSTC10 track 2 task 1: a JSON array of states, one per test instance, each slot a list of values.

``[{"hotel": {"semi": {"area": ["Union Square"]}, "book": {"people": ["2"]}}}, ...]`` is both an
entry (the predictions) and the organisers' ``labels.json`` (the gold, ``--gold``): they pair by
position, and a different number of instances is an error. An instance is a dialogue prefix ending in a
user turn. Where ``logs.json`` (the instances' turns) lies beside ``labels.json``, instances whose
turns extend the instance before form one dialogue; otherwise each instance is one dialogue, and the
signature says so (``instances:one-per-dialogue``).

Slots are named ``hotel-area`` (``semi``) and ``hotel-book people`` (``book``). A value list becomes
one value without losing what the official scorer reads (`encode_values`): one value is itself, an
empty list ``""``, and several values (or a value that could be mistaken for the encoding) the JSON
text of the distinct values, sorted; `states.decode_values` gives the list back.
"""

from __future__ import annotations

import re
from pathlib import Path

from .._gc import without_gc
from ..errors import InputError, describe, json_text
from ..states import BOOKING_PART, booking_slot, encode_values
from .base import Reader, ReaderFit, ReadRequest, Side, decode_json, read_file
from .compression import SUFFIXES

NAME = "dstc10"
LAYOUT = '[{domain: {"semi" | "book": {slot: [values]}}}, ...] (one state per instance)'
SEMI_PART = "semi"
LOGS = "logs.json"
ONE_PER_DIALOGUE = "instances:one-per-dialogue"
"""The signature part saying each instance was scored as a dialogue of its own (no ``logs.json``)."""


def slot_name(domain: str, part: str, slot: str) -> str:
    """Our name of a DSTC10 slot: ``hotel-area`` for ``semi``, ``hotel-book people`` for ``book``."""
    return f"{domain}-{booking_slot(slot) if part == BOOKING_PART else slot}"


def _state(raw: object, position: int, source: str | None) -> dict[str, str]:
    """The flat state of one instance; anything but domains of parts of value lists raises InputError."""

    def problem(text: str, field: str | None = None) -> InputError:
        return InputError(text, dialogue=str(position), turn=0, field=field, source=source)

    if type(raw) is not dict:
        raise problem(f"an instance's state must be an object of domains, got {describe(raw)}")
    state = {}
    for domain, parts in raw.items():
        if type(parts) is not dict:
            raise problem(f'a domain must be an object of "semi" and "book", got {describe(parts)}', domain)
        for part, slots in parts.items():
            field = f"{domain}.{part}"
            if part not in (SEMI_PART, BOOKING_PART):
                raise problem(f'a domain holds "semi" and "book" only, got {json_text(part)}', field)
            if type(slots) is not dict:
                raise problem(f"expected an object of slots, got {describe(slots)}", field)
            for slot, values in slots.items():
                where = f"{field}.{slot}"
                if type(values) is not list:
                    raise problem(f"a slot's values must be an array of strings, got {describe(values)}", where)
                for value in values:
                    if type(value) is not str:
                        raise problem(f"a slot's values must be strings, got {describe(value)}", where)
                state[slot_name(domain, part, slot)] = encode_values(values)
    return state


def _logs_path(labels: Path | None) -> Path | None:
    """``logs.json`` (plain or compressed) beside the labels file, where there is one."""
    if labels is None or not labels.is_file():
        return None
    for suffix in ("", *SUFFIXES):
        candidate = labels.parent / (LOGS + suffix)
        if candidate.is_file():
            return candidate
    return None


def dialogue_starts(logs: object, count: int, source: str) -> list[int]:
    """The positions of the instances that start a dialogue: those whose turns do not extend the instance
    before's. Logs that are not one list of turns per instance raise InputError."""
    if type(logs) is not list or not all(type(turns) is list for turns in logs):
        raise InputError(f"expected an array of instances, each an array of turns, got {describe(logs)}", source=source)
    if len(logs) != count:
        raise InputError(f"{len(logs)} instances in the logs but {count} in the labels", source=source)
    starts = []
    for position, turns in enumerate(logs):
        before = logs[position - 1] if position else None
        if before is None or len(turns) <= len(before) or turns[: len(before)] != before:
            starts.append(position)
    return starts


@without_gc
def read_dstc10_side(request: ReadRequest, side: str) -> Side:
    """One side: {first instance's position: {instance in dialogue: state}}, grouped by ``logs.json`` for gold."""
    if request.path is not None and request.path.is_dir():
        raise InputError("a DSTC10 entry or labels file is one .json file, not a folder", source=request.source)
    data = decode_json(request.data, request.source)
    if type(data) is not list:
        raise InputError(f"expected an array of states {LAYOUT}, got {describe(data)}", source=request.source)
    if not data:
        raise InputError("the corpus is empty: there is no instance to score", source=request.source)
    states = [_state(raw, position, request.source) for position, raw in enumerate(data)]
    logs = _logs_path(request.path) if side == "gold" else None
    if logs is None:
        grouped = {str(position): {0: state} for position, state in enumerate(states)}
        return Side(grouped, request.source, ids="position", flat=True, convention=ONE_PER_DIALOGUE)
    starts = dialogue_starts(decode_json(read_file(logs, str(logs)), str(logs)), len(states), str(logs))
    grouped = {}
    for start, end in zip(starts, [*starts[1:], len(states)]):
        grouped[str(start)] = dict(enumerate(states[start:end]))
    return Side(grouped, request.source, ids="position", flat=True)


_START = re.compile(r'\s*\[\s*(?:\{\s*\}\s*,\s*)*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"(semi|book)"\s*:\s*\{')


def sniff(head: str) -> ReaderFit:
    """An array whose first non-empty state is a domain of ``semi`` or ``book`` slots."""
    return ReaderFit(2) if _START.match(head) else ReaderFit(0)


READER = Reader(
    NAME,
    "DSTC10 track 2 states " + LAYOUT,
    sniff,
    read_side=read_dstc10_side,
    holds="either",
    suffixes=(".json",),
    layout=(
        'DSTC10 track 2 task 1: a JSON array of states, one per test instance, `[{"hotel": {"semi": {"area": '
        '["Union Square"]}, "book": {"people": ["2"]}}}, ...]` (an entry, or `labels.json` as `--gold`); '
        "paired by position, the instance counts must be equal; `logs.json` beside `labels.json` groups the "
        "instances into dialogues, else each instance is a dialogue (`|instances:one-per-dialogue`); slots "
        "`hotel-area` and `hotel-book people`; a list of several values is one value, the JSON text of its "
        "distinct values sorted"
    ),
)
