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

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated

import msgspec

from .. import ids
from .._gc import gc_paused
from ..errors import InputError, describe
from .base import Fit, Reader, ReadRequest, Side, decode_json, read_file

FILE_PATTERN = "dialogues_*.json"
METRICS_OUTPUT = "dialogues_and_metrics.json"  # what the SGD evaluator writes into the prediction folder
LAYOUT = '[{"dialogue_id", "turns": [{"speaker", "frames": [{"service", "state": {"slot_values"}}]}]}]'


@dataclass(frozen=True)
class Frame:
    """One service's frame of a USER turn, as given (`active_intent` and `requested_slots` are None
    when the file has none; `spans` are the frame's ``slots`` (slot, start, end), None when absent)."""

    service: str
    slot_values: dict[str, list[str]]
    active_intent: str | None
    requested_slots: list[str] | None
    spans: list[tuple[str, int, int]] | None


@dataclass(frozen=True)
class Turn:
    """One turn: the speaker, the utterance (None when absent) and, for a USER turn, its frames by service."""

    speaker: str
    utterance: str | None
    frames: dict[str, Frame]


@dataclass(frozen=True)
class SgdDialogue:
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


class _Place:
    """Where in a dialogue file a value is, for InputError: file, dialogue, USER turn, field path."""

    def __init__(self, source: str | None, dialogue: str | None = None) -> None:
        self.source, self.dialogue, self.turn = source, dialogue, None

    def error(self, problem: str, field: str) -> InputError:
        return InputError(problem, dialogue=self.dialogue, turn=self.turn, field=field, source=self.source)

    def get(self, container: dict, key: str, kind: type, field: str, required: bool = True) -> object:
        """`container[key]`, checked to be of `kind` (None when absent and not `required`)."""
        if key not in container:
            if required:
                raise self.error(f"there is no {key}", field=f"{field}.{key}" if field else key)
            return None
        value = container[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            names = {str: "a string", list: "an array", dict: "an object", int: "a number"}
            raise self.error(f"expected {names[kind]}, got {describe(value)}", field=f"{field}.{key}" if field else key)
        return value


def _strings(place: _Place, values: object, field: str, empty: bool) -> list[str]:
    if not isinstance(values, list) or (not values and not empty):
        what = "an array of strings" if empty else "a non-empty array of strings"
        raise place.error(f"expected {what}, got {describe(values)}", field)
    for index, value in enumerate(values):
        if type(value) is not str:
            raise place.error(f"expected a string, got {describe(value)}", f"{field}[{index}]")
    return values


def _spans(place: _Place, frame: dict, field: str) -> list[tuple[str, int, int]] | None:
    spans = place.get(frame, "slots", list, field, required=False)
    if spans is None:
        return None
    found = []
    for index, span in enumerate(spans):
        where = f"{field}.slots[{index}]"
        if not isinstance(span, dict):
            raise place.error(f"expected an object, got {describe(span)}", where)
        found.append(tuple(place.get(span, key, kind, where) for key, kind in _SPAN_FIELDS))
    return found


_SPAN_FIELDS = (("slot", str), ("start", int), ("exclusive_end", int))


def _frame(place: _Place, frame: object, field: str) -> Frame:
    if not isinstance(frame, dict):
        raise place.error(f"a frame must be an object, got {describe(frame)}", field)
    service = place.get(frame, "service", str, field)
    state = place.get(frame, "state", dict, field)
    where = f"{field}.state"
    values = place.get(state, "slot_values", dict, where)
    slot_values = {slot: _strings(place, v, f"{where}.slot_values.{slot}", False) for slot, v in values.items()}
    requested = place.get(state, "requested_slots", list, where, required=False)
    if requested is not None:
        _strings(place, requested, f"{where}.requested_slots", True)
    intent = place.get(state, "active_intent", str, where, required=False)
    return Frame(service, slot_values, intent, requested, _spans(place, frame, field))


def _turn(place: _Place, turn: object, field: str, user_turns: int) -> Turn:
    if not isinstance(turn, dict):
        raise place.error(f"a turn must be an object, got {describe(turn)}", field)
    speaker = place.get(turn, "speaker", str, field)
    utterance = place.get(turn, "utterance", str, field, required=False)
    frames: dict[str, Frame] = {}
    if speaker == "USER":
        place.turn = user_turns
        for index, raw in enumerate(place.get(turn, "frames", list, field)):
            frame = _frame(place, raw, f"{field}.frames[{index}]")
            if frame.service in frames:
                raise place.error(f"a second frame of service {frame.service!r}", f"{field}.frames[{index}]")
            frames[frame.service] = frame
        place.turn = None
    return Turn(speaker, utterance, frames)


def _dialogue(raw: object, index: int, source: str | None) -> SgdDialogue:
    place = _Place(source)
    if not isinstance(raw, dict):
        raise place.error(f"a dialogue must be an object with dialogue_id and turns, got {describe(raw)}", f"[{index}]")
    if "dialogue_id" not in raw:
        raise place.error("the dialogue has no dialogue_id", f"[{index}].dialogue_id")
    place.dialogue = dialogue_id = ids.dialogue_id(raw["dialogue_id"], source=source)
    services = place.get(raw, "services", list, "", required=False)
    if services is not None:
        services = tuple(_strings(place, services, "services", True))
    turns, users = [], 0
    for position, turn in enumerate(place.get(raw, "turns", list, "")):
        turns.append(_turn(place, turn, f"turns[{position}]", users))
        users += turns[-1].speaker == "USER"
    return SgdDialogue(dialogue_id, services, tuple(turns), source)


def _file_dialogues(data: bytes, source: str | None) -> list[SgdDialogue]:
    parsed = decode_json(data, source)
    if not isinstance(parsed, list):
        raise InputError(f"expected a JSON array of dialogues {LAYOUT}, got {describe(parsed)}", source=source)
    return [_dialogue(raw, index, source) for index, raw in enumerate(parsed)]


def _files(path: Path | None, source: str | None, data: bytes | None = None) -> Iterator[tuple[bytes, str | None]]:
    """(bytes, how messages name it) of `data`, else of each file of `path` (`dialogue_files`) as it is read."""
    if data is not None:
        yield data, source
        return
    for file in dialogue_files(path, source):
        where = source if file == path else str(file)
        yield read_file(file, where), where


def _checked_dialogues(files: Iterable[tuple[bytes, str | None]]) -> dict[str, SgdDialogue]:
    """The dialogues of the files the checking way: each value walked and located (errors name their place)."""
    dialogues: dict[str, SgdDialogue] = {}
    for data, where in files:
        for dialogue in _file_dialogues(data, where):
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


def _typed_frames(turn: _UserTurn) -> dict[str, Frame] | None:
    frames = {}
    for frame in turn.frames:
        if frame.service in frames:
            return None
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
                if frames is None:
                    return None
                turns.append(Turn("USER" if type(turn) is _UserTurn else "SYSTEM", turn.utterance, frames))
            services = None if dialogue.services is None else tuple(dialogue.services)
            dialogues[dialogue_id] = SgdDialogue(dialogue_id, services, tuple(turns), source)
    return dialogues


def sniff(head: str) -> Fit:
    """A JSON array whose first dialogue has a dialogue_id and turns with frames (not ConvLab's utt_idx)."""
    stripped = head.lstrip()
    if stripped[:1] != "[" or stripped[1:].lstrip()[:1] != "{" or '"dialogue_id"' not in head or '"utt_idx"' in head:
        return Fit(0)
    if '"turns"' not in head or '"frames"' not in head:
        return Fit(1, "its dialogues have no turns with frames")
    return Fit(2)


READER = Reader(
    "sgd",
    "SGD / MultiWOZ 2.2 dialogue files (an array of dialogues with turns and frames; a file or a folder)",
    sniff,
    read_side=read_sgd_side,
)
