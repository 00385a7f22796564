"""Scoring without holding the corpus: each dialogue is built, tallied and dropped.

`stream_tally(path, …)` works on two formats:
- JSON Lines turn records, read line by line: the turns of one dialogue on consecutive lines make a
  dialogue, so the peak memory is that of the largest dialogue (plus one id per dialogue, to catch an
  id that comes back later);
- the reference layout (one JSON object): the file's bytes are split into one undecoded slice per
  dialogue (msgspec.Raw views of the bytes, no copy), each decoded only when its turn comes, so the
  peak is about the file's size, not the whole corpus's normalized states.
The figures are those of reading the file whole (tallies add up in any order), and per-dialogue
tallies come in the order reading whole gives. Where streaming cannot give the same result — lines of
a dialogue apart, or any problem with the input — it returns None and the caller reads the file whole,
which accepts lines in any order and names the problem.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Annotated

import msgspec

from . import ids
from ._gc import gc_paused
from .core import Tally, tally_corpus, tally_each
from .corpus import CorpusBuilder, Dialogue
from .errors import InputError
from .readers import detect

HEAD_BYTES = 4096
"""Bytes read to detect the format (JSON Lines turn records stream; other formats do not)."""


class _Record(msgspec.Struct):
    dialogue_id: str | int
    turn_id: str | int
    gt: msgspec.Raw
    pr: msgspec.Raw


_DECODER = msgspec.json.Decoder(_Record)


class _Turn(msgspec.Struct):
    gt: msgspec.Raw
    pr: msgspec.Raw


_LAYOUT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_DIALOGUE = msgspec.json.Decoder(dict[str, _Turn])
_NUMBERED_DIALOGUE = msgspec.json.Decoder(dict[Annotated[int, msgspec.Meta(ge=0)], _Turn])
"""A dialogue whose turn ids are all plain digit strings ("0", "12": no sign, leading zero or space),
decoded with the ids as ints; any other id fails it and the dialogue goes through `_DIALOGUE`."""
BOM = b"\xef\xbb\xbf"


class _NotStreamable(Exception):
    """The file must be read whole (see the module)."""


STREAMED_FORMATS = ("jsonl", "reference")
"""The formats `stream_tally` reads."""


def streamable(path: str, format: str = "auto") -> str | None:
    """The format `path` is streamed as (`STREAMED_FORMATS`: given, or detected), or None."""
    if format not in ("auto", *STREAMED_FORMATS) or not os.path.isfile(path):
        return None
    if format != "auto":
        return format
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
    try:
        found = detect(head)
    except InputError:
        return None
    return found if found in STREAMED_FORMATS else None


def _dialogues(path: str) -> Iterator[tuple[str, list[int], list, list]]:
    """(dialogue id, turn ids, gold raws, predicted raws) per run of consecutive lines of one dialogue."""
    seen: set[str] = set()
    current, turns, golds, preds = None, [], [], []
    with open(path, "rb") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                record = _DECODER.decode(line)
            except msgspec.DecodeError:
                raise _NotStreamable from None
            dialogue_id = ids.dialogue_id(record.dialogue_id, field=None)
            if dialogue_id != current:
                if current is not None:
                    yield current, turns, golds, preds
                if dialogue_id in seen:
                    raise _NotStreamable  # its lines are not consecutive
                seen.add(dialogue_id)
                current, turns, golds, preds = dialogue_id, [], [], []
            turns.append(ids.turn_id(record.turn_id, dialogue=dialogue_id))
            golds.append(record.gt)
            preds.append(record.pr)
    if current is not None:
        yield current, turns, golds, preds


def _layout_dialogues(path: str, share: tuple[int, int] | None = None) -> Iterator[tuple[str, list[int], list, list]]:
    """(dialogue id, turn ids, gold raws, predicted raws) of each dialogue of a reference-layout file;
    with `share` (k, n), only of those at positions k modulo n (the others are never decoded)."""
    with open(path, "rb") as handle:
        data = handle.read()
    if data.startswith(BOM):
        raise _NotStreamable
    try:
        dialogues = _LAYOUT.decode(data)
    except msgspec.DecodeError:
        raise _NotStreamable from None
    for position, (dialogue_id, raw) in enumerate(dialogues.items()):
        if not dialogue_id:
            raise _NotStreamable
        if share is not None and position % share[1] != share[0]:
            continue
        try:
            turns = _NUMBERED_DIALOGUE.decode(raw)
            turn_ids = list(turns)
        except msgspec.DecodeError:
            try:
                turns = _DIALOGUE.decode(raw)
            except msgspec.DecodeError:
                raise _NotStreamable from None
            turn_ids = ids.turn_ids(turns, dialogue_id)
        values = turns.values()
        yield dialogue_id, turn_ids, [t.gt for t in values], [t.pr for t in values]


def _built(
    builder: CorpusBuilder, dialogues: Iterator[tuple[str, list[int], list, list]], ids_seen: list[str] | None = None
) -> Iterator[Dialogue]:
    """Each dialogue built (validated, normalized) as its turn comes, then dropped by the builder."""
    for dialogue_id, turns, golds, preds in dialogues:
        builder.add(dialogue_id, turns, golds, preds)
        if ids_seen is not None:
            ids_seen.append(dialogue_id)
        yield builder.dialogues.pop()


def stream_tally(
    path: str,
    *,
    value_matching: str,
    mode: str,
    per_dialogue: bool = False,
    format: str = "jsonl",
    dialogue_ids: list[str] | None = None,
    share: tuple[int, int] | None = None,
) -> tuple[Tally, dict[str, Tally]] | None:
    """(corpus tally, each dialogue's tally in the order reading whole gives: by id for JSON Lines, as
    in the file for the reference layout) of `path` in `format` (`STREAMED_FORMATS`), streamed; None
    when it must be read whole (see the module). `dialogue_ids`, if given, receives the dialogues' ids
    in file order (emptied again when None is returned). With `share` (k, n; reference layout only),
    only the dialogues at positions k modulo n are built and tallied (`dst_metrics.parallel`)."""
    if share is not None and format != "reference":
        raise ValueError("a share of the dialogues is streamed from the reference layout only")
    dialogues = _layout_dialogues(path, share) if format == "reference" else _dialogues(path)
    built = _built(CorpusBuilder(value_matching), dialogues, dialogue_ids)
    try:
        with gc_paused():
            total, by_dialogue = tally_each(built, mode) if per_dialogue else (tally_corpus(built, mode), {})
    except (_NotStreamable, InputError):
        total = None
    if total is None or total.turns == 0:
        if dialogue_ids is not None:
            dialogue_ids.clear()
        return None
    if per_dialogue and format == "jsonl":
        by_dialogue = dict(sorted(by_dialogue.items()))
    return total, by_dialogue
