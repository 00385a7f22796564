"""MultiWOZ 2.1 ``data.json``, gold only: ``{dialogue_id: {"goal": …, "log": [turn, …]}}``.

Turn t is the user turn at log index 2t; its state is the ``metadata`` at 2t + 1. Named as in the
TRADE / GCA reference files (the signature says so, `CONVENTION`): ``domain-slot`` lower-cased for
``semi``, ``domain-book slot`` for ``book`` (``booked`` ignored); ``not mentioned`` and ``""``
dropped, other values kept; ids keep ``.json``. MultiWOZ 2.4 reads the same way. Given the folder,
the reader keeps the dialogues of ``testListFile.txt`` when there is one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from .. import ids
from .._gc import without_gc
from ..errors import InputError, describe
from ..states import BOOKING_PART, UNSET_VALUES, booking_slot
from .base import (
    NotCommon,
    Reader,
    ReaderFit,
    ReadRequest,
    Side,
    check_unique_keys,
    decode_object,
    decoded_on_change,
    read_file,
)

CONVENTION = "gold:mwz-data(drop=not-mentioned+empty,keep=dontcare+none)"
"""The signature part of gold read here (MultiWOZ 2.1 to 2.4's data.json): ``not mentioned`` and
``""`` dropped as unset; ``dontcare`` and ``none`` kept as values (the mode decides how ``none``
counts)."""
TEST_LIST = "testListFile.txt"
LAYOUT = '{dialogue_id: {"goal": …, "log": [turn, …]}}'
_HEAD = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"(goal|log)"\s*:')


class _Domain(msgspec.Struct):
    semi: dict[str, str] = {}  # a metadata domain's semi values are checked as strings as it is decoded
    book: dict[str, Any] = {}


class _Entry(msgspec.Struct):
    metadata: msgspec.Raw = msgspec.Raw(b"")  # decoded when needed (empty: the entry has none)


class _Dialogue(msgspec.Struct):
    log: list[_Entry]  # only a dialogue's log is read


_LAYOUT = msgspec.json.Decoder(dict[str, _Dialogue])
_METADATA = msgspec.json.Decoder(dict[str, _Domain])


def _common_state(raw: object, names: dict) -> dict[str, str]:
    """`metadata_state` of metadata of the common shape, else NotCommon; `names` caches slot names."""
    try:
        metadata = _METADATA.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError):  # ValidationError is a DecodeError
        raise NotCommon from None
    state = {}
    for domain, parts in metadata.items():
        semi = names.get(domain)
        if semi is None:
            semi = names[domain] = {}
        for slot, value in parts.semi.items():
            if value not in UNSET_VALUES:
                name = semi.get(slot)
                if name is None:
                    name = semi[slot] = f"{domain}-{slot}".lower()
                state[name] = value
        for slot, value in parts.book.items():  # ``booked`` ignored; a value not a string: not the common shape
            if slot != "booked":
                if type(value) is not str:
                    raise NotCommon
                if value not in UNSET_VALUES:
                    state[f"{domain}-{booking_slot(slot)}".lower()] = value
    return state


def _fast_states(data: bytes, listed: frozenset[str] | None, source: str | None) -> dict[str, dict[int, dict]] | None:
    """The states of a data.json of the common shape (equal consecutive states are one object); else None."""
    try:
        layout = _LAYOUT.decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError):  # ValidationError is a DecodeError
        return None
    check_unique_keys(data, b'"log"', len(layout), source, id_levels=1, depth=1)
    states = {}
    names: dict = {}
    try:
        for name, dialogue in layout.items():
            if listed is not None and name not in listed:
                continue
            log = dialogue.log
            if not name or not log or len(log) % 2:
                return None
            raws = [entry.metadata for entry in log[1::2]]
            states[name] = dict(enumerate(decoded_on_change(raws, lambda raw: _common_state(raw, names))))
    except NotCommon:
        return None
    return states


@without_gc
def read_data_json(request: ReadRequest, side: str) -> Side:
    """The gold states of every dialogue of a data.json file (see the module)."""
    if side != "gold":
        raise InputError(
            "MultiWOZ data.json holds the gold annotation only: give it with --gold", source=request.source
        )
    data, listed = _folder(request) if request.path is not None and request.path.is_dir() else (request.data, None)
    states = _fast_states(data, listed, request.source)
    if states:
        return Side(states, request.source, flat=True, convention=CONVENTION)
    data = decode_object(data, request.source, LAYOUT, id_levels=1, depth=1)
    states = {}
    for name, dialogue in data.items():
        if listed is not None and name not in listed:
            continue
        dialogue_id = ids.dialogue_id(name, field=None)
        states[dialogue_id] = _dialogue_states(dialogue_id, dialogue)
    if not states:
        held = "no dialogue" if listed is None else f"none of the dialogues {TEST_LIST} lists"
        raise InputError(f"data.json holds {held}", source=request.source)
    return Side(states, request.source, convention=CONVENTION)


def _folder(request: ReadRequest) -> tuple[bytes, frozenset[str] | None]:
    """The data.json of a MultiWOZ 2.1 folder, and the ids its testListFile.txt lists (if it has one)."""
    data_file, test_list = request.path / "data.json", request.path / TEST_LIST
    try:
        listed = frozenset(test_list.read_text(encoding="utf-8").split()) if test_list.is_file() else None
        return read_file(data_file, str(data_file)), listed  # decompressed where compressed
    except OSError as error:
        raise InputError(f"cannot read the folder's files: {error}", source=request.source) from None


def _dialogue_states(dialogue_id: str, dialogue: object) -> dict[int, dict[str, str]]:
    """{turn: {"domain-slot": value}} of one dialogue's log."""
    if not isinstance(dialogue, Mapping) or "log" not in dialogue:
        raise InputError(f'a dialogue must be an object with a "log", got {describe(dialogue)}', dialogue=dialogue_id)
    log = dialogue["log"]
    if not isinstance(log, list) or not log:
        raise InputError(f"the log must be a non-empty array of turns, got {describe(log)}", dialogue=dialogue_id)
    if len(log) % 2:
        raise InputError(
            f"the log has {len(log)} entries: its last user turn has no system turn after it, so its state is unknown",
            dialogue=dialogue_id,
            turn=len(log) // 2,
            field=f"log[{len(log) - 1}]",
        )
    states = {}
    for turn in range(len(log) // 2):
        field = f"log[{2 * turn + 1}].metadata"
        entry = log[2 * turn + 1]
        metadata = entry.get("metadata") if isinstance(entry, dict) else None
        if not isinstance(metadata, dict):
            raise InputError(
                f"a system turn must be an object with a metadata object, got {describe(entry)}",
                dialogue=dialogue_id,
                turn=turn,
                field=field,
            )
        try:
            states[turn] = metadata_state(metadata, field)
        except InputError as error:
            raise error.located(dialogue=dialogue_id, turn=turn) from None
    return states


def metadata_state(metadata: dict, field: str = "metadata") -> dict[str, str]:
    """The active slots of one system turn's metadata, named as MultiWOZ's evaluations name them.

    >>> metadata_state({"hotel": {"book": {"booked": [], "stay": "2"}, "semi": {"area": "not mentioned"}}})
    {'hotel-book stay': '2'}
    """
    state = {}
    for domain, parts in metadata.items():
        if not isinstance(parts, dict):
            raise InputError(
                f'a domain must be an object with "book" and "semi", got {describe(parts)}', field=f"{field}.{domain}"
            )
        for part in ("semi", BOOKING_PART):
            slots = parts.get(part, {})
            if not isinstance(slots, dict):
                raise InputError(f"expected an object, got {describe(slots)}", field=f"{field}.{domain}.{part}")
            for slot, value in slots.items():
                if part == BOOKING_PART and slot == "booked":
                    continue
                if type(value) is not str:
                    raise InputError(
                        f"a value must be a string, got {describe(value)}", field=f"{field}.{domain}.{part}.{slot}"
                    )
                if value not in UNSET_VALUES:
                    state[f"{domain}-{booking_slot(slot) if part == BOOKING_PART else slot}".lower()] = value
    return state


def sniff(head: str) -> ReaderFit:
    """An object whose first value is an object starting with "goal" or "log"."""
    return ReaderFit(2) if _HEAD.match(head) else ReaderFit(0)


READER = Reader(
    "multiwoz21",
    f"MultiWOZ 2.1 data.json gold {LAYOUT}",
    sniff,
    read_side=read_data_json,
    holds="gold",
    suffixes=(".json",),
    layout=(
        "MultiWOZ 2.1 `data.json` (`metadata` `book`/`semi` of the system turns; `booked` ignored, `not "
        'mentioned` and `""` unset); a MultiWOZ folder gives the dialogues of `testListFile.txt`'
    ),
)
