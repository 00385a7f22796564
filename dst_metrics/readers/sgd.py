"""SGD and MultiWOZ 2.2 dialogue files: a JSON array of dialogues, one side (gold or predictions) each.

A dialogue is ``{"dialogue_id", "services", "turns": [{"speaker", "utterance", "frames": [{"service",
"state": {"active_intent", "requested_slots", "slot_values": {slot: [values]}}}]}]}``. The input is
one such file or a folder of ``dialogues_*.json`` files (``schema.json`` and the SGD evaluator's
``dialogues_and_metrics.json`` beside them are not read).

Conventions:
- only USER turns are scored; their ids are their positions among the dialogue's USER turns (0, 1,
  2 …) on both sides, whatever the file says (SGD has no turn ids; MultiWOZ 2.2's count SYSTEM
  turns too), so gold and predictions from either dataset pair turn by turn;
- a frame's ``slot_values`` is the whole state of its service so far; a turn's state is the last
  frame of every service seen up to that turn (SGD gives frames for the turn's services only);
- slots are ``"service-slot"`` (``"Restaurants_1-city"``); a slot already named ``service-…``
  (MultiWOZ 2.2's ``restaurant-area`` in service ``restaurant``) is kept as it is;
- gold keeps every value of a slot's list, in order, as acceptable values (a list of one value is
  read as that value); predictions keep the first value only, as the SGD evaluator reads them.

`load_dialogues` gives the frames themselves (intents, requested slots, spans), which the ``sgd``
compatibility profile scores.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Annotated

import msgspec

from .. import ids
from .._gc import gc_paused
from ..errors import InputError, describe
from .base import Reader, ReaderFit, ReadRequest, Side, decode_json, read_file

FILE_PATTERN = "dialogues_*.json"
METRICS_OUTPUT = "dialogues_and_metrics.json"  # what the SGD evaluator writes into the prediction folder
LAYOUT = '[{"dialogue_id", "turns": [{"speaker", "frames": [{"service", "state": {"slot_values"}}]}]}]'


class Frame(msgspec.Struct, frozen=True):
    """One service's frame of a USER turn, as given (`active_intent` and `requested_slots` are None
    when the file has none; `spans` are the frame's ``slots`` (slot, start, end), None when absent)."""

    service: str
    slot_values: dict[str, list[str]]
    active_intent: str | None
    requested_slots: list[str] | None
    spans: list[tuple[str, int, int]] | None


class Turn(msgspec.Struct, frozen=True):
    """One turn: the speaker, the utterance (None when absent) and, for a USER turn, its frames by service."""

    speaker: str
    utterance: str | None
    frames: dict[str, Frame]


class SgdDialogue(msgspec.Struct, frozen=True):
    """One dialogue of a dialogue file: its services (None when not listed) and every turn."""

    dialogue_id: str
    services: tuple[str, ...] | None
    turns: tuple[Turn, ...]
    source: str | None


def slot_name(service: str, slot: str) -> str:
    """Our ``domain-slot`` name: the slot as given when it starts with ``service-``, else prefixed."""
    return slot if slot.startswith(service + "-") else f"{service}-{slot}"


def dialogue_files(path: Path, source: str | None = None) -> list[Path]:
    """The files of a path: itself, or a folder's ``dialogues_*.json`` in name order."""
    if not path.is_dir():
        return [path]
    files = [file for file in sorted(path.glob(FILE_PATTERN)) if file.name != METRICS_OUTPUT]
    if not files:
        raise InputError(f"the folder holds no {FILE_PATTERN} file", source=source or str(path))
    return files


_KINDS = {"str": "a string", "int": "a whole number", "array": "an array", "object": "an object"}
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]|(\[\.\.\.\])")


def _convert(raw: object, kind: type, field: str, **place: object) -> object:
    """`raw` (JSON as python) as `kind`; what msgspec rejects raises an InputError at its place
    (`place`: dialogue, turn and source; `field`: where `raw` is) naming the value found there."""
    try:
        return msgspec.convert(raw, kind)
    except msgspec.ValidationError as error:
        message, _, path = str(error).partition(" - at `$")
    for name, index, any_key in _STEP.findall(path):
        if any_key:  # a value of slot_values (msgspec names no key): the first invalid one
            name = next(key for key, values in raw.items() if not _valid_values(values))
        raw = raw[int(index)] if index else raw[name]
        field += f"[{index}]" if index else f".{name}" if field else name
    missing = re.fullmatch(r"Object missing required field `(\w+)`", message)
    expected = re.match(r"Expected `(\w+)`( of length >= 1)?", message)
    if missing:
        field, message = f"{field}.{missing[1]}" if field else missing[1], f"there is no {missing[1]}"
    elif expected and (expected[2] or path.endswith("[...]`")):
        message = f"expected a non-empty array of strings, got {describe(raw)}"
    elif expected:
        message = f"expected {_KINDS.get(expected[1], expected[1])}, got {describe(raw)}"
    raise InputError(message, field=field, **place)


def _valid_values(values: object) -> bool:
    return isinstance(values, list) and bool(values) and all(type(value) is str for value in values)


def _dialogue(raw: object, index: int, source: str | None) -> SgdDialogue:
    """One dialogue of a file decoded generically, checked by msgspec a turn at a time (`_convert`)."""
    if not isinstance(raw, dict):
        message = f"a dialogue must be an object with dialogue_id and turns, got {describe(raw)}"
        raise InputError(message, field=f"[{index}]", source=source)
    if "dialogue_id" not in raw:
        raise InputError("the dialogue has no dialogue_id", field=f"[{index}].dialogue_id", source=source)
    place = {"dialogue": ids.dialogue_id(raw["dialogue_id"], source=source), "source": source}
    head = _convert(raw, _Head, "", **place)
    turns: list[Turn] = []
    users = 0  # USER turns before this one
    for position, raw_turn in enumerate(head.turns):
        field = f"turns[{position}]"
        turn = _convert(raw_turn, _AnyTurn, field, **place)
        frames: dict[str, Frame] = {}
        if turn.speaker == "USER":
            user = _convert(raw_turn, _UserTurn, field, turn=users, **place)
            frames = _typed_frames(user)
            if isinstance(frames, int):
                message = f"a second frame of service {user.frames[frames].service!r}"
                raise InputError(message, turn=users, field=f"{field}.frames[{frames}]", **place)
            users += 1
        turns.append(Turn(turn.speaker, turn.utterance, frames))
    services = None if head.services is None else tuple(head.services)
    return SgdDialogue(place["dialogue"], services, tuple(turns), source)


def _files(path: Path | None, source: str | None, data: bytes | None = None) -> Iterator[tuple[bytes, str | None]]:
    """(bytes, how messages name it) of `data`, else of each file of `path` (`dialogue_files`) as it is read."""
    if data is not None:
        yield data, source
        return
    for file in dialogue_files(path, source):
        where = source if file == path else str(file)
        yield read_file(file, where), where


def _checked_dialogues(files: Iterable[tuple[bytes, str | None]]) -> dict[str, SgdDialogue]:
    """The dialogues of the files the checking way: each value checked and located (errors name their place)."""
    dialogues: dict[str, SgdDialogue] = {}
    for data, where in files:
        parsed = decode_json(data, where)
        if not isinstance(parsed, list):
            raise InputError(f"expected a JSON array of dialogues {LAYOUT}, got {describe(parsed)}", source=where)
        for dialogue in (_dialogue(raw, index, where) for index, raw in enumerate(parsed)):
            if dialogue.dialogue_id in dialogues:
                raise InputError("the dialogue id is used twice", dialogue=dialogue.dialogue_id, source=where)
            dialogues[dialogue.dialogue_id] = dialogue
    return dialogues


def load_dialogues(path: str | Path, source: str | None = None) -> dict[str, SgdDialogue]:
    """Every dialogue of a dialogue file or folder, by id; bad input raises a located InputError."""
    path = Path(path)
    source = source or str(path)
    with gc_paused():
        typed = _typed_files(_files(path, source), _DECODER)  # a problem: the files read again, and checked
        found = (None if typed is None else _typed_dialogues(typed)) or _checked_dialogues(_files(path, source))
    if not found:
        raise InputError("there is no dialogue", source=source)
    return found


def user_states(dialogue: SgdDialogue, side: str) -> dict[int, dict[str, object]]:
    """{USER turn position: flat state} (see the module for the conventions)."""
    current: dict[str, dict[str, list[str]]] = {}
    states = {}
    for turn in dialogue.turns:
        if turn.speaker != "USER":
            continue
        for frame in turn.frames.values():
            current[frame.service] = frame.slot_values
        state: dict[str, object] = {}
        for service, slots in current.items():
            for slot, values in slots.items():
                state[slot_name(service, slot)] = values if side == "gold" and len(values) > 1 else values[0]
        states[len(states)] = state
    return states


def _checked_side(files: Iterable[tuple[bytes, str | None]], side: str) -> dict[str, dict[int, dict[str, object]]]:
    states = {}
    for dialogue_id, dialogue in _checked_dialogues(files).items():
        states[dialogue_id] = user_states(dialogue, side)
        if not states[dialogue_id]:
            raise InputError("the dialogue has no USER turn", dialogue=dialogue_id, source=dialogue.source)
    return states


def read_sgd_side(request: ReadRequest, side: str) -> Side:
    """One side from a dialogue file (the request's bytes) or folder (its path)."""
    with gc_paused():
        folder = request.path is not None and request.path.is_dir()
        files = partial(_files, request.path, request.source, None if folder else request.data)
        typed = _typed_files(files(), _SIDE_DECODER)
        states = (None if typed is None else _typed_states(typed, side == "gold")) or _checked_side(files(), side)
    if folder and not states:
        raise InputError("there is no dialogue", source=request.source)
    return Side(states, request.source, flat=True)


# --------------------------------------------------------------------------------------------
# The fast path: msgspec decodes into typed structs, validating as it goes. Anything it rejects
# (or any dialogue id, frame or turn problem found after) sends the input to the checking path
# above, which reads it again and names the problem, so both paths accept and give the same.

_Values = Annotated[list[str], msgspec.Meta(min_length=1)]


class _Span(msgspec.Struct, gc=False):
    slot: str
    start: int
    exclusive_end: int


class _State(msgspec.Struct, gc=False):
    slot_values: dict[str, _Values]
    requested_slots: list[str] = None
    active_intent: str = None


class _Frame(msgspec.Struct, gc=False):
    service: str
    state: _State
    slots: list[_Span] = None


class _Turn(msgspec.Struct, tag_field="speaker", kw_only=True, gc=False):
    utterance: str = None


class _UserTurn(_Turn, tag="USER"):
    frames: list[_Frame]


class _OtherTurn(_Turn, tag="SYSTEM"):
    pass


class _AnyTurn(msgspec.Struct, gc=False):
    """A turn of any speaker, as the checking path reads it before a USER turn's frames."""

    speaker: str
    utterance: str = None


class _Head(msgspec.Struct, gc=False):
    turns: list
    services: list[str] = None


class _Dialogue(msgspec.Struct, gc=False):
    dialogue_id: str | int
    turns: list[_UserTurn | _OtherTurn]
    services: list[str] = None


_DECODER = msgspec.json.Decoder(list[_Dialogue])


# One side's states need no frame but its slot values, kept undecoded (msgspec.Raw) so that a
# frame repeated from the previous turn is recognised by its bytes and decoded once.
class _SideState(_State):
    slot_values: msgspec.Raw


class _SideFrame(_Frame):
    state: _SideState


class _SideUserTurn(_Turn, tag="USER"):
    frames: msgspec.Raw  # decoded (`_FRAMES_DECODER`) only when they differ from the previous turn's


class _SideDialogue(_Dialogue):
    turns: list[_SideUserTurn | _OtherTurn]


_SIDE_DECODER = msgspec.json.Decoder(list[_SideDialogue])
_FRAMES_DECODER = msgspec.json.Decoder(list[_SideFrame])
_SLOT_VALUES_DECODER = msgspec.json.Decoder(dict[str, _Values])


def _typed_files(files: Iterable[tuple[bytes, str | None]], decoder: msgspec.json.Decoder) -> list | None:
    """[(dialogues, source)] of each file decoded; None when msgspec rejects any (the checking path
    then names the problem)."""
    try:
        return [(decoder.decode(data), where) for data, where in files]
    except msgspec.DecodeError:  # ValidationError is a DecodeError
        return None


def _typed_id(raw: str | int) -> str | None:
    return raw if type(raw) is str else str(raw)


def _flat(service: str, slot_values: dict, names: dict, gold: bool) -> dict:
    """A frame's slot values under our slot names (`names`: {service: {slot: name}}, kept across frames)."""
    known = names.get(service)
    if known is None:
        known = names[service] = {}
    try:
        if gold:  # one acceptable value: that string (what normalizing the list gives, without the work)
            return {known[slot]: values[0] if len(values) == 1 else values for slot, values in slot_values.items()}
        return {known[slot]: values[0] for slot, values in slot_values.items()}
    except KeyError:
        for slot in slot_values:
            if slot not in known:
                known[slot] = slot_name(service, slot)
        return _flat(service, slot_values, names, gold)


def _typed_user_states(dialogue: _SideDialogue, names: dict, gold: bool) -> dict[int, dict] | None:
    """`user_states` of a typed dialogue; None when a USER turn has two frames of one service or
    slot values msgspec rejects. A turn whose frames all repeat their service's previous bytes
    shares the previous turn's state object."""
    raws: dict[str, bytes] = {}
    current: dict[str, dict] = {}
    states: dict[int, dict] = {}
    state: dict = {}
    previous_frames = None
    for turn in dialogue.turns:
        if type(turn) is not _SideUserTurn:
            continue
        if turn.frames != previous_frames or not states:
            previous_frames = turn.frames
            try:
                changed = _advance(_FRAMES_DECODER.decode(turn.frames), raws, current, names, gold)
            except msgspec.DecodeError:
                return None
            if changed is None:
                return None
            if (changed or not states) and len(current) == 1:
                (state,) = current.values()  # one service: its flat state (replaced, never changed, later)
            elif changed or not states:
                state = {key: value for flat in current.values() for key, value in flat.items()}
        states[len(states)] = state
    return states


def _advance(frames: list, raws: dict, current: dict, names: dict, gold: bool) -> bool | None:
    """Bring `current` ({service: flat state}) to a USER turn's frames, decoding only the slot values
    whose bytes changed; whether any did; None when two frames have one service."""
    changed = False
    for frame in frames:
        raw = frame.state.slot_values
        if raws.get(frame.service) != raw:
            raws[frame.service] = raw
            current[frame.service] = _flat(frame.service, _SLOT_VALUES_DECODER.decode(raw), names, gold)
            changed = True
    if len(frames) > 1 and len({frame.service for frame in frames}) < len(frames):
        return None
    return changed


def _typed_states(files: list, gold: bool) -> dict[str, dict[int, dict]] | None:
    """{dialogue id: {USER turn position: flat state}}; None on any problem (see above)."""
    states: dict[str, dict[int, dict]] = {}
    names: dict[str, dict[str, str]] = {}
    for dialogues, _ in files:
        for dialogue in dialogues:
            dialogue_id = _typed_id(dialogue.dialogue_id)
            if not dialogue_id or dialogue_id in states:
                return None
            turns = states[dialogue_id] = _typed_user_states(dialogue, names, gold)
            if not turns:
                return None
    return states


def _typed_frames(turn: _UserTurn) -> dict[str, Frame] | int:
    """A USER turn's frames by service; the position of a frame whose service an earlier one has."""
    frames = {}
    for position, frame in enumerate(turn.frames):
        if frame.service in frames:
            return position
        state, spans = frame.state, frame.slots
        spans = None if spans is None else [(span.slot, span.start, span.exclusive_end) for span in spans]
        frames[frame.service] = Frame(
            frame.service, state.slot_values, state.active_intent, state.requested_slots, spans
        )
    return frames


def _typed_dialogues(files: list) -> dict[str, SgdDialogue] | None:
    """`load_dialogues` from typed files; None on any problem (see above)."""
    dialogues: dict[str, SgdDialogue] = {}
    for found, source in files:
        for dialogue in found:
            dialogue_id = _typed_id(dialogue.dialogue_id)
            if not dialogue_id or dialogue_id in dialogues:
                return None
            turns = []
            for turn in dialogue.turns:
                frames = _typed_frames(turn) if type(turn) is _UserTurn else {}
                if type(frames) is int:
                    return None
                turns.append(Turn("USER" if type(turn) is _UserTurn else "SYSTEM", turn.utterance, frames))
            services = None if dialogue.services is None else tuple(dialogue.services)
            dialogues[dialogue_id] = SgdDialogue(dialogue_id, services, tuple(turns), source)
    return dialogues


def sniff(head: str) -> ReaderFit:
    """A JSON array whose first dialogue has a dialogue_id and turns with frames (not ConvLab's utt_idx)."""
    stripped = head.lstrip()
    if stripped[:1] != "[" or stripped[1:].lstrip()[:1] != "{" or '"dialogue_id"' not in head or '"utt_idx"' in head:
        return ReaderFit(0)
    if '"turns"' not in head or '"frames"' not in head:
        return ReaderFit(1, "its dialogues have no turns with frames")
    return ReaderFit(2)


READER = Reader(
    "sgd",
    "SGD / MultiWOZ 2.2 dialogue files (an array of dialogues with turns and frames; a file or a folder)",
    sniff,
    read_side=read_sgd_side,
)
