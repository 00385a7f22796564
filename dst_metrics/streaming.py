"""Scoring JSON Lines turn records as a stream: memory bounded by one dialogue, not by the file.

`stream_tally(path, …)` reads the file line by line; the turns of one dialogue on consecutive lines
are built into a dialogue, tallied and dropped, so the peak memory is that of the largest dialogue
(plus one id per dialogue, to catch an id that comes back later). The figures are those of reading the
file whole (tallies add up in any order). Where streaming cannot give the same result as reading the
whole file — a dialogue whose lines are not consecutive, or any problem with the input — it returns
None and the caller reads the file whole, which accepts lines in any order and names the problem.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import msgspec

from . import ids
from .build import CorpusBuilder
from .core import Tally, tally_each
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


class _NotStreamable(Exception):
    """The file must be read whole (see the module)."""


def streamable(path: str, format: str = "auto") -> bool:
    """Whether `path` is a file of JSON Lines turn records (``format`` jsonl, or detected as such)."""
    if format not in ("auto", "jsonl") or not os.path.isfile(path):
        return False
    if format == "jsonl":
        return True
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
    try:
        return detect(head) == "jsonl"
    except InputError:
        return False


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


def stream_tally(
    path: str, *, value_matching: str, mode: str, per_dialogue: bool = False
) -> tuple[Tally, dict[str, Tally]] | None:
    """(corpus tally, each dialogue's tally by id in sorted id order, as reading whole gives them)
    of a JSON Lines file of turn records, streamed; None when it must be read whole (see the module)."""
    builder = CorpusBuilder(value_matching)
    total, by_dialogue = Tally(), {}
    try:
        for dialogue_id, turns, golds, preds in _dialogues(path):
            builder.add(dialogue_id, turns, golds, preds)
            tally, each = tally_each(builder.dialogues, mode)
            builder.dialogues.clear()
            total = total + tally
            if per_dialogue:
                by_dialogue.update(each)
    except (_NotStreamable, InputError):
        return None
    if total.turns == 0:
        return None
    return total, dict(sorted(by_dialogue.items())) if per_dialogue else {}
