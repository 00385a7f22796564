"""TRADE's prediction file: ``{dialogue_id: {turn_id: {"turn_belief": [...], "pred_bs_ptr": [...]}}}``.

TRADE (github jasonwu0731/trade-dst) writes gold and predictions as lists of ``"domain-slot-value"``
strings, split at their first two hyphens (``"hotel-type-guest-house"`` is ``hotel-type`` =
``guest-house``). Turn keys are digit strings in any order; other keys are ignored.
"""

from __future__ import annotations

import json
import re

import msgspec

from .. import ids
from ..corpus import Corpus, CorpusBuilder, layout_turns
from ..errors import InputError, describe, json_text
from ..states import split_slot_string
from .base import Reader, ReaderFit, ReadRequest, check_unique_keys, decode_object, typed_decode

GOLD = "turn_belief"
PRED = "pred_bs_ptr"
LAYOUT = '{dialogue_id: {turn_id: {"turn_belief": [strings], "pred_bs_ptr": [strings]}}}'


class _TradeTurn(msgspec.Struct):
    turn_belief: list[str]
    pred_bs_ptr: list[str]


_TYPED = msgspec.json.Decoder(dict[str, dict[str, _TradeTurn]])


class _States:
    """Turns lists of strings into flat states, remembering every string's split (see the module)."""

    def __init__(self) -> None:
        self.splits: dict[str, tuple[str, str]] = {}

    def dialogue(self, dialogue_id: str, turn_ids: list[int], lists: list, field: str) -> list[dict]:
        """The states of one side of a dialogue; a bad list raises InputError naming its turn."""
        states: list[dict] = []
        previous_items = previous = None
        for turn_id, items in zip(turn_ids, lists):
            if items != previous_items:
                previous_items = items
                try:
                    previous = self.state(items, field)
                except InputError as error:
                    raise error.located(dialogue=dialogue_id, turn=turn_id) from None
            states.append(previous)
        return states

    def state(self, items: object, field: str) -> dict:
        """The flat state of one list; anything but a list of distinct-slot strings is an InputError."""
        if type(items) is not list:
            raise InputError(f'expected an array of "domain-slot-value" strings, got {describe(items)}', field=field)
        splits = self.splits
        state = {}
        for index, item in enumerate(items):
            split = splits.get(item) if type(item) is str else None
            if split is None:
                if type(item) is not str:
                    where = f"{field}[{index}]"
                    raise InputError(f'expected a "domain-slot-value" string, got {describe(item)}', field=where)
                split = splits[item] = split_slot_string(item, f"{field}[{index}]")
            slot, value = split
            if slot in state:
                raise InputError(f"slot {json_text(slot)} is given twice", field=f"{field}[{index}]")
            state[slot] = value
        return state


def _add(builder: CorpusBuilder, states: _States, dialogue_id: str, turn_ids: list[int], golds, preds) -> None:
    """Add one dialogue, its turns put in order first (files list them in any order)."""
    order = sorted(range(len(turn_ids)), key=turn_ids.__getitem__)
    turn_ids = [turn_ids[i] for i in order]
    builder.add(
        dialogue_id,
        turn_ids,
        states.dialogue(dialogue_id, turn_ids, [golds[i] for i in order], GOLD),
        states.dialogue(dialogue_id, turn_ids, [preds[i] for i in order], PRED),
    )


def read_trade(request: ReadRequest) -> Corpus:
    """Read the file: typed decoding in one pass, else the general path, which names the problem."""
    layout = typed_decode(_TYPED, request.data)
    if layout is None:  # another shape, or invalid JSON: the general path names the problem
        return _read_general(request)
    check_unique_keys(request.data, b'"turn_belief"', sum(map(len, layout.values())), request.source)
    builder, states = CorpusBuilder(request.reading), _States()
    for name, turns in layout.items():
        dialogue_id = ids.dialogue_id(name, field=None)
        values = turns.values()
        golds, preds = [t.turn_belief for t in values], [t.pred_bs_ptr for t in values]
        _add(builder, states, dialogue_id, ids.turn_ids(turns, dialogue_id), golds, preds)
    return builder.corpus()


def _read_general(request: ReadRequest) -> Corpus:
    data = decode_object(request.data, request.source, LAYOUT)
    builder, states = CorpusBuilder(request.reading), _States()
    for name, turns in data.items():
        dialogue_id = ids.dialogue_id(name, field=None)
        _add(builder, states, dialogue_id, *layout_turns(dialogue_id, turns, (GOLD, PRED)))
    return builder.corpus()


_FIRST_TURN = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*(?=\{)')
_KEY = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')


def first_turn_keys(head: str, prefix: re.Pattern) -> set[str] | None:
    """The keys of the JSON object after `prefix` at the start of `head` (those seen if cut off), else None."""
    found = prefix.match(head)
    if found is None:
        return None
    try:
        turn, _ = json.JSONDecoder().raw_decode(head, found.end())
    except ValueError:  # cut off by the end of the head (or invalid): the keys written so far
        return set(_KEY.findall(head, found.end()))
    return set(turn) if isinstance(turn, dict) else None


def sniff(head: str) -> ReaderFit:
    """An object whose first dialogue's first turn is an object with turn_belief or pred_bs_ptr."""
    keys = first_turn_keys(head, _FIRST_TURN)
    return ReaderFit(2) if keys and (GOLD in keys or PRED in keys) else ReaderFit(0)


READER = Reader(
    "trade",
    "TRADE's prediction file " + LAYOUT,
    sniff,
    read_trade,
    holds="both sides",
    suffixes=(".json",),
    layout=(
        'TRADE\'s prediction file `{dialogue_id: {turn_id: {"turn_belief": [...], "pred_bs_ptr": [...]}}}` of '
        "`domain-slot-value` strings"
    ),
)
