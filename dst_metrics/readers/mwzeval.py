"""mwzeval's prediction file: ``{dialogue_id: [{"state": {domain: {slot: value}}, ...}, ...]}`` (predictions only).

The input of MultiWOZ_Evaluation (github Tomiinek/MultiWOZ_Evaluation): lower-case ids without
``.json``, each dialogue a list of turns in order; keys other than ``state`` are ignored. Gold comes
from ``--gold``: dialogues match case-insensitively without ``.json``, turns by position.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated

import msgspec

from .. import ids
from .._gc import without_gc
from ..confidences import split_scored_state
from ..errors import InputError, describe
from ..states import normalize_state, plain_state
from .base import Reader, ReaderFit, ReadRequest, Side, check_unique_keys, decode_object, decoded_on_change
from .trade import first_turn_keys

STATE = "state"
LAYOUT = '{dialogue_id: [{"state": {domain: {slot: value}}, "response": ..., ...}, ...]}'


_Domain = Annotated[str, msgspec.Meta(pattern="^[^-]*$")]  # no "-": slot names cannot clash


class _Turn(msgspec.Struct):
    state: msgspec.Raw  # checked by `_fast_states`


_LAYOUT = msgspec.json.Decoder(dict[str, list[_Turn]])
_STATE = msgspec.json.Decoder(dict[_Domain, dict[str, str]])  # nested by domain, strings only


def _fast_states(data: bytes) -> dict[str, dict[int, object]] | None:
    """The states of a file of the common shape (equal consecutive states are one object); else None."""
    try:
        layout = _LAYOUT.decode(data)
        if "" in layout:
            return None
        states = {}
        for name, turns in layout.items():
            states[name] = dict(enumerate(decoded_on_change([turn.state for turn in turns], _STATE.decode)))
    except (msgspec.DecodeError, UnicodeDecodeError):  # ValidationError is a DecodeError
        return None
    return states


@without_gc
def read_mwzeval_side(request: ReadRequest, side: str) -> Side:
    """The predicted side; asking for gold is an InputError (mwzeval reads its own gold)."""
    if side != "pred":
        raise InputError(
            "mwzeval's file holds predictions only (mwzeval takes gold from MultiWOZ 2.2 itself): "
            "give it as the predictions and the gold in another format",
            source=request.source,
        )
    if request.path is not None and request.path.is_dir():
        raise InputError("mwzeval's predictions are one .json file, not a folder", source=request.source)
    states = _fast_states(request.data)
    if states:
        kept = sum(map(len, states.values()))
        check_unique_keys(request.data, b'"state"', kept, request.source, id_levels=1, depth=1)
        return Side(states, request.source, ids="loose", turns="position")
    data = decode_object(request.data, request.source, LAYOUT, id_levels=1, depth=1)
    states = {}
    for name, turns in data.items():
        dialogue_id = ids.dialogue_id(name, field=None)
        states[dialogue_id] = _dialogue(dialogue_id, turns)
    if not states:
        raise InputError("the corpus is empty: there is no dialogue to score", source=request.source)
    return Side(states, request.source, ids="loose", turns="position")


def _dialogue(dialogue_id: str, turns: object) -> dict[int, object]:
    """{position: predicted state} of one dialogue; a bad turn or state raises InputError naming it."""
    if not isinstance(turns, list):
        raise InputError(f"a dialogue must be an array of turns, got {describe(turns)}", dialogue=dialogue_id)
    states = {}
    for position, turn in enumerate(turns):
        if not isinstance(turn, Mapping):
            raise InputError(
                f'a turn must be an object with "state", got {describe(turn)}', dialogue=dialogue_id, turn=position
            )
        if STATE not in turn:
            raise InputError(
                'the turn has no "state" (the predicted state mwzeval scores)',
                dialogue=dialogue_id,
                turn=position,
                field=STATE,
            )
        state = turn[STATE]
        if type(state) is not dict or plain_state(state) is None:
            try:  # names the problem, or accepts another shape the core reads (e.g. numbers)
                normalize_state(state, gold=False, field=STATE)
            except InputError as error:
                if not _carries_confidences(state, dialogue_id, position):
                    raise error.located(dialogue=dialogue_id, turn=position) from None
        states[position] = state
    return states


def _carries_confidences(state: object, dialogue_id: str, position: int) -> bool:
    """Whether a state the core rejects holds values with confidences; bad confidences raise InputError."""
    try:
        return split_scored_state(state, STATE) is not None
    except InputError as error:
        raise error.located(dialogue=dialogue_id, turn=position) from None


_FIRST_TURN = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\[\s*(?=\{)')


def sniff(head: str) -> ReaderFit:
    """An object whose first dialogue is an array of turn objects; 2 when the first turn has a state."""
    keys = first_turn_keys(head, _FIRST_TURN)
    if keys is None:
        return ReaderFit(0)
    if STATE in keys:
        return ReaderFit(2)
    return ReaderFit(1, 'its turns have no "state" (mwzeval predictions need the predicted state)')


READER = Reader(
    "mwzeval",
    "mwzeval's predictions " + LAYOUT,
    sniff,
    read_side=read_mwzeval_side,
    holds="predictions",
    suffixes=(".json",),
    layout=(
        'mwzeval\'s `{dialogue_id: [{"state": {domain: {slot: value}}}, ...]}` (ids lower-case without '
        "`.json`, turns by position)"
    ),
)
