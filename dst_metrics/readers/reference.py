"""The GCA reference layout: one JSON object ``{dialogue_id: {turn_id: {"gt": state, "pr": state}}}``.

This is what the official GCA code reads. `layout_dialogues` cuts the data into one undecoded
slice per dialogue and decodes each when its turn comes, states kept as raw JSON. A dialogue of
another shape raises InputError naming its dialogue, turn and field.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import msgspec

from .. import ids
from ..corpus import LAYOUT, Corpus, CorpusBuilder, layout_turns
from ..errors import InputError
from .base import Reader, ReaderFit, ReadRequest, check_unique_keys, decode_json, decode_object, first_json_line


class RawTurn(msgspec.Struct):
    """A turn of the layout whose states stay undecoded JSON until needed."""

    gt: msgspec.Raw
    pr: msgspec.Raw


_SLICES = msgspec.json.Decoder(dict[str, msgspec.Raw])
_TURNS = msgspec.json.Decoder(dict[str, RawTurn])
_NUMBERED_TURNS = msgspec.json.Decoder(dict[Annotated[int, msgspec.Meta(ge=0)], RawTurn])
"""A dialogue whose turn ids are all plain digit strings ("0", "12": no sign, leading zero or
space), decoded with the ids as ints; any other id fails it and the dialogue goes through `_TURNS`."""
_FAILED = (msgspec.DecodeError, UnicodeDecodeError)

RawDialogue = tuple[str, list[int], list, list]
"""(dialogue id, turn ids, gold states, predicted states), the states raw JSON or decoded."""


def cut(data: bytes, source: str | None) -> dict[str, msgspec.Raw]:
    """The dialogues of `data` as undecoded slices, by id; data that is no JSON object raises InputError."""
    try:
        return _SLICES.decode(data)
    except _FAILED:
        pass
    try:
        decode_object(data, source, LAYOUT)  # raises: invalid JSON, or JSON other than an object
    except InputError:
        if first_json_line(data) is not None:
            raise InputError(
                "this is not one JSON document but JSON Lines (one object per line): read it with format "
                '"jsonl" (or "auto")',
                source=source,
            ) from None
        raise
    raise AssertionError("unreachable: a JSON object that msgspec does not cut")  # pragma: no cover


def layout_dialogues(
    data: bytes,
    source: str | None,
    slices: dict[str, msgspec.Raw] | None = None,
    share: tuple[int, int] | None = None,
) -> Iterator[RawDialogue]:
    """Each dialogue of the layout in `data`, decoded when it comes; with `share` (k, n), positions k modulo n."""
    if slices is None:
        slices = cut(data, source)
    kept = 0
    for position, (dialogue_id, raw) in enumerate(slices.items()):
        if share is not None and position % share[1] != share[0]:
            kept += bytes(raw).count(b'"gt"')  # not decoded: its turns counted by their key (C speed)
            continue
        try:
            dialogue = _decoded(dialogue_id, raw, data, source)
        except InputError:
            _check_keys_before(dialogue_id, slices, data, source)
            raise
        kept += len(dialogue[1])
        yield dialogue
    check_unique_keys(data, b'"gt"', kept, source)


def _decoded(dialogue_id: str, raw: msgspec.Raw, data: bytes, source: str | None) -> RawDialogue:
    """One dialogue's turn ids and raw states; one of another shape raises InputError naming the problem."""
    if not dialogue_id:
        ids.dialogue_id(dialogue_id, field=None)  # raises: an empty id
    try:
        turns = _NUMBERED_TURNS.decode(raw)
        turn_ids = list(turns)
    except _FAILED:
        try:
            turns = _TURNS.decode(raw)
        except _FAILED:
            try:
                plain = msgspec.json.decode(raw)
            except _FAILED:
                decode_json(data, source)  # raises, naming the line and column
                raise
            return dialogue_id, *layout_turns(dialogue_id, plain)
        turn_ids = ids.turn_ids(turns, dialogue_id)
    values = turns.values()
    return dialogue_id, turn_ids, [t.gt for t in values], [t.pr for t in values]


def _check_keys_before(dialogue_id: str, slices: dict[str, msgspec.Raw], data: bytes, source: str | None) -> None:
    """Raise the InputError of a key given twice before the end of dialogue `dialogue_id`, if any."""
    end = 0
    for name, raw in slices.items():
        text = bytes(raw)
        found = data.find(text, end)
        if found < 0:
            end = len(data)
            break
        end = found + len(text)
        if name == dialogue_id:
            break
    check_unique_keys(data[:end] + b"}" if end < len(data) else data, b"", None, source)


def read_reference(request: ReadRequest) -> Corpus:
    """Read the layout from bytes: every dialogue cut and checked (`layout_dialogues`), then built."""
    builder = CorpusBuilder(request.reading)
    for dialogue in list(layout_dialogues(request.data, request.source)):
        builder.add(*dialogue)
    return builder.corpus()


def sniff(head: str) -> ReaderFit:
    """One JSON object whose first line is not a turn record of JSON Lines."""
    start = head.lstrip()[:1]
    if start == "[":
        return ReaderFit(1, "it is a JSON array, not an object")
    if start != "{":
        return ReaderFit(0)
    return ReaderFit(2)


READER = Reader(
    "reference",
    "the reference layout JSON " + LAYOUT,
    sniff,
    read_reference,
    holds="both sides",
    suffixes=(".json",),
    layout='the GCA reference layout `{dialogue_id: {turn_id: {"gt": state, "pr": state}}}`',
)
