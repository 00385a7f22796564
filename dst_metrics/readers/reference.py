"""The GCA reference layout: one JSON object ``{dialogue_id: {turn_id: {"gt": state, "pr": state}}}``.

This is what the official GCA code reads and what ``shared/reference`` holds. The fast path keeps
every state as raw JSON and decodes only the states that differ from the previous turn's; any
other shape goes through `corpus_from_layout`, whose errors name the dialogue, turn and field.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import ids
from ..build import GOLD_FIELD, PRED_FIELD, CorpusBuilder
from ..corpus import Corpus
from ..errors import InputError, describe
from ..states import LinearizedFormat
from .base import Fit, Reader, ReadRequest, check_unique_keys, decode_json, first_json_line

try:
    import msgspec as _msgspec
except ImportError:  # pragma: no cover - exercised only where msgspec is missing
    _msgspec = None

LAYOUT = '{dialogue_id: {turn_id: {"gt": state, "pr": state}}}'


def corpus_from_layout(
    data: object, *, value_matching: str = "exact", linearized: LinearizedFormat | None = None
) -> Corpus:
    """A Corpus from the parsed layout (turn ids are integers or digit strings, ordered by value)."""
    builder = CorpusBuilder(value_matching, linearized)
    if not isinstance(data, Mapping):
        raise InputError(f"expected an object {LAYOUT}, got {describe(data)}")
    for name, turns in data.items():
        dialogue_id = ids.dialogue_id(name, field=None)
        builder.add(dialogue_id, *_layout_turns(dialogue_id, turns))
    return builder.corpus()


def _layout_turns(dialogue_id: str, turns: object) -> tuple[list[int], list, list]:
    """Turn ids, gold states and predicted states of one dialogue of the layout."""
    if not isinstance(turns, Mapping):
        raise InputError(f"a dialogue must map turn ids to turns, got {describe(turns)}", dialogue=dialogue_id)
    turn_ids = ids.turn_ids(turns, dialogue_id)
    values = turns.values()
    try:  # the common case, checked in bulk; any problem is found and named below
        return turn_ids, [t[GOLD_FIELD] for t in values], [t[PRED_FIELD] for t in values]
    except (TypeError, KeyError):
        pass
    for turn_id, turn in zip(turn_ids, values):
        if not isinstance(turn, Mapping):
            raise InputError(
                f'a turn must be an object with "gt" and "pr", got {describe(turn)}', dialogue=dialogue_id, turn=turn_id
            )
        for side in (GOLD_FIELD, PRED_FIELD):
            if side not in turn:
                raise InputError(f"the turn has no {side} state", dialogue=dialogue_id, turn=turn_id, field=side)
    raise AssertionError("unreachable: a turn without gt or pr was not found")  # pragma: no cover


if _msgspec is not None:

    class _RawTurn(_msgspec.Struct):
        """A turn of the layout whose states stay undecoded JSON until needed."""

        gt: _msgspec.Raw
        pr: _msgspec.Raw

    _RAW_LAYOUT = _msgspec.json.Decoder(dict[str, dict[str, _RawTurn]])


def read_reference(request: ReadRequest) -> Corpus:
    """Read the layout from bytes: raw states decoded only where they change (see the module)."""
    options = {"value_matching": request.value_matching, "linearized": request.linearized}
    if _msgspec is not None:
        try:
            layout = _RAW_LAYOUT.decode(request.data)
        except _msgspec.ValidationError:
            pass  # valid JSON of another shape (or a bad number): the general path names the problem
        except (_msgspec.DecodeError, UnicodeDecodeError):
            pass  # invalid JSON: decoded again below to name the place
        else:
            kept = sum(map(len, layout.values()))
            check_unique_keys(request.data, b'"gt"', kept, request.source)
            return _corpus_from_raw_layout(layout, **options)
    try:
        data = decode_json(request.data, request.source)
    except InputError:
        if first_json_line(request.data) is not None:
            raise InputError(
                "this is not one JSON document but JSON Lines (one object per line): read it with format "
                '"jsonl" (or "auto")',
                source=request.source,
            ) from None
        raise
    if isinstance(data, dict):
        check_unique_keys(request.data, b"", None, request.source)
    return corpus_from_layout(data, **options)


def _corpus_from_raw_layout(layout: dict, value_matching: str, linearized: LinearizedFormat | None) -> Corpus:
    builder = CorpusBuilder(value_matching, linearized)
    for dialogue_id, turns in layout.items():
        if not dialogue_id:
            ids.dialogue_id(dialogue_id, field=None)  # raises: an empty id
        values = turns.values()
        builder.add(dialogue_id, ids.turn_ids(turns, dialogue_id), [t.gt for t in values], [t.pr for t in values])
    return builder.corpus()


def sniff(head: str) -> Fit:
    """One JSON object whose first line is not a turn record of JSON Lines."""
    start = head.lstrip()[:1]
    if start == "[":
        return Fit(1, "it is a JSON array, not an object")
    if start != "{":
        return Fit(0)
    return Fit(2)


READER = Reader("reference", "the reference layout JSON " + LAYOUT, sniff, read_reference)
