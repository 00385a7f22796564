"""The GCA reference layout: one JSON object ``{dialogue_id: {turn_id: {"gt": state, "pr": state}}}``.

This is what the official GCA code reads and what ``shared/reference`` holds. The fast path keeps
every state as raw JSON and decodes only the states that differ from the previous turn's; any
other shape goes through `dst_metrics.corpus.corpus_from_layout`, whose errors name the dialogue, turn and field,
one dialogue decoded at a time (`base.read_object`): the first wrong one ends the reading.
"""

from __future__ import annotations

from functools import partial

import msgspec

from .. import ids
from ..corpus import LAYOUT, Corpus, CorpusBuilder, corpus_from_layout
from ..errors import InputError
from .base import (
    Reader,
    ReaderFit,
    ReadRequest,
    check_unique_keys,
    decode_object,
    first_json_line,
    read_object,
    typed_decode,
)


class RawTurn(msgspec.Struct):
    """A turn of the layout whose states stay undecoded JSON until needed."""

    gt: msgspec.Raw
    pr: msgspec.Raw


_RAW_LAYOUT = msgspec.json.Decoder(dict[str, dict[str, RawTurn]])


def read_reference(request: ReadRequest) -> Corpus:
    """Read the layout from bytes: raw states decoded only where they change (see the module)."""
    layout = typed_decode(_RAW_LAYOUT, request.data)
    if layout is not None:  # else another shape (or a bad number), or invalid JSON: the general path names it
        check_unique_keys(request.data, b'"gt"', sum(map(len, layout.values())), request.source)
        builder = CorpusBuilder(request.reading)
        for dialogue_id, turns in layout.items():
            if not dialogue_id:
                ids.dialogue_id(dialogue_id, field=None)  # raises: an empty id
            values = turns.values()
            builder.add(dialogue_id, ids.turn_ids(turns, dialogue_id), [t.gt for t in values], [t.pr for t in values])
        return builder.corpus()
    corpus = read_object(request.data, request.source, partial(corpus_from_layout, reading=request.reading))
    if corpus is not None:  # dialogue by dialogue: junk is refused at its first dialogue
        return corpus
    try:
        data = decode_object(request.data, request.source, None)
    except InputError:
        if first_json_line(request.data) is not None:
            raise InputError(
                "this is not one JSON document but JSON Lines (one object per line): read it with format "
                '"jsonl" (or "auto")',
                source=request.source,
            ) from None
        raise
    return corpus_from_layout(data, request.reading)


def sniff(head: str) -> ReaderFit:
    """One JSON object whose first line is not a turn record of JSON Lines."""
    start = head.lstrip()[:1]
    if start == "[":
        return ReaderFit(1, "it is a JSON array, not an object")
    if start != "{":
        return ReaderFit(0)
    return ReaderFit(2)


READER = Reader("reference", "the reference layout JSON " + LAYOUT, sniff, read_reference)
