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

Each file is decoded once, by msgspec into typed structs (a USER turn's frames when they are read); what
msgspec rejects becomes an InputError naming the file, dialogue, USER turn and field (found by
`shape.first_mismatch`, not read from msgspec's message).

`load_dialogues` gives the frames themselves (intents, requested slots, spans), which the ``sgd``
compatibility profile scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated

import msgspec

from .. import ids
from .._gc import gc_paused
from ..errors import InputError, describe
from .base import Reader, ReaderFit, ReadRequest, Side, decode_error, decode_json, read_file
from .shape import first_mismatch, mismatch_error

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


_Values = Annotated[list[str], msgspec.Meta(min_length=1)]


class _Span(msgspec.Struct, gc=False):
    slot: str
    start: int
    exclusive_end: int


class _State(msgspec.Struct, gc=False):
    slot_values: msgspec.Raw  # decoded (`_SLOT_VALUES`) only when its bytes differ from the service's last ones
    requested_slots: list[str] = None
    active_intent: str = None


class _Frame(msgspec.Struct, gc=False):
    service: str
    state: _State
    slots: list[_Span] = None


class _Turn(msgspec.Struct, gc=False):
    speaker: str
    utterance: str = None
    frames: msgspec.Raw = None  # decoded (`_FRAMES`) for USER turns only


class _Dialogue(msgspec.Struct, gc=False):
    dialogue_id: str | int
    turns: list[_Turn]
    services: list[str] = None


class _DecodedState(_State, gc=False):
    slot_values: dict[str, _Values]


class _DecodedFrame(_Frame, gc=False):  # a frame with its slot values decoded (`load_dialogues`)
    state: _DecodedState


_DIALOGUES = msgspec.json.Decoder(list[_Dialogue])
_FRAMES = msgspec.json.Decoder(list[_Frame])
_DECODED_FRAMES = msgspec.json.Decoder(list[_DecodedFrame])
_SLOT_VALUES = msgspec.json.Decoder(dict[str, _Values])


def _decode(decoder: msgspec.json.Decoder, data: msgspec.Raw, field: str, **place: object) -> object:
    """Part of a dialogue (frames or slot values) decoded; what msgspec rejects raises a located InputError."""
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as error:
        found = first_mismatch(decoder, msgspec.json.decode(data))
        if found is None:
            raise decode_error(error, field=field, **place) from None
        raise mismatch_error(found, field, **place) from None


def _file_problem(error: Exception, data: bytes, where: str | None) -> InputError:
    """What msgspec rejected in a dialogue file, located: the file, dialogue and field."""
    parsed = decode_json(data, where)  # invalid or too deeply nested JSON raises here
    if not isinstance(parsed, list):
        return InputError(f"expected a JSON array of dialogues {LAYOUT}, got {describe(parsed)}", source=where)
    found = first_mismatch(_DIALOGUES, parsed)
    if found is None:
        return decode_error(error, source=where)
    index = found.path[0]
    raw = parsed[index]
    if not isinstance(raw, dict):
        message = f"a dialogue must be an object with dialogue_id and turns, got {describe(raw)}"
        return InputError(message, field=f"[{index}]", source=where)
    if "dialogue_id" not in raw:
        return InputError("the dialogue has no dialogue_id", field=f"[{index}].dialogue_id", source=where)
    dialogue = ids.dialogue_id(raw["dialogue_id"], source=where)
    return mismatch_error(found._replace(path=found.path[1:]), dialogue=dialogue, source=where)


def _files(path: Path | None, source: str | None, data: bytes | None = None) -> Iterator[tuple[bytes, str | None]]:
    """(bytes, how messages name it) of `data`, else of each file of `path` (`dialogue_files`) as it is read."""
    if data is not None:
        yield data, source
        return
    for file in dialogue_files(path, source):
        where = source if file == path else str(file)
        yield read_file(file, where), where


def _dialogues(files: Iterable[tuple[bytes, str | None]]) -> Iterator[tuple[str, _Dialogue, str | None]]:
    """(id, dialogue, source) of every dialogue of the files, each file decoded once; bad input raises
    a located InputError."""
    seen: set[str] = set()
    for data, where in files:
        try:
            dialogues = _DIALOGUES.decode(data)
        except (msgspec.DecodeError, RecursionError) as error:  # ValidationError is a DecodeError
            raise _file_problem(error, data, where) from None
        for dialogue in dialogues:
            dialogue_id = dialogue.dialogue_id
            if type(dialogue_id) is not str or not dialogue_id:
                dialogue_id = ids.dialogue_id(dialogue_id, source=where)
            if dialogue_id in seen:
                raise InputError("the dialogue id is used twice", dialogue=dialogue_id, source=where)
            seen.add(dialogue_id)
            yield dialogue_id, dialogue, where


def _frames(turn: _Turn, field: str, place: dict, decoder: msgspec.json.Decoder = _FRAMES) -> list:
    """A USER turn's frames (`field`: the turn's), decoded; a missing one or a service's second frame raises."""
    if turn.frames is None:
        raise InputError("there is no frames", field=f"{field}.frames", **place)
    frames = _decode(decoder, turn.frames, f"{field}.frames", **place)
    if len(frames) > 1:
        services: set[str] = set()
        for position, frame in enumerate(frames):
            if frame.service in services:
                message = f"a second frame of service {frame.service!r}"
                raise InputError(message, field=f"{field}.frames[{position}]", **place)
            services.add(frame.service)
    return frames


def load_dialogues(path: str | Path, source: str | None = None) -> dict[str, SgdDialogue]:
    """Every dialogue of a dialogue file or folder, by id; bad input raises a located InputError."""
    path = Path(path)
    source = source or str(path)
    found: dict[str, SgdDialogue] = {}
    with gc_paused():
        for dialogue_id, dialogue, where in _dialogues(_files(path, source)):
            turns = []
            users = 0  # USER turns before this one
            for position, turn in enumerate(dialogue.turns):
                by_service: dict[str, Frame] = {}
                if turn.speaker == "USER":
                    place = {"dialogue": dialogue_id, "turn": users, "source": where}
                    users += 1
                    for frame in _frames(turn, f"turns[{position}]", place, _DECODED_FRAMES):
                        state, spans = frame.state, frame.slots
                        spans = (
                            None if spans is None else [(span.slot, span.start, span.exclusive_end) for span in spans]
                        )
                        by_service[frame.service] = Frame(
                            frame.service, state.slot_values, state.active_intent, state.requested_slots, spans
                        )
                turns.append(Turn(turn.speaker, turn.utterance, by_service))
            services = None if dialogue.services is None else tuple(dialogue.services)
            found[dialogue_id] = SgdDialogue(dialogue_id, services, tuple(turns), where)
    if not found:
        raise InputError("there is no dialogue", source=source)
    return found


def _flat(service: str, slot_values: dict, names: dict, gold: bool) -> dict:
    """A frame's slot values under our slot names (`names`: {service: {slot: name}}, kept across frames);
    gold keeps a list of several values, a list of one value is that value, predictions keep the first."""
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


def _user_states(dialogue_id: str, dialogue: _Dialogue, where: str | None, names: dict, gold: bool) -> dict[int, dict]:
    """{USER turn position: flat state}: the last frame of every service so far. Only frames and slot
    values whose bytes changed are decoded; a turn whose frames repeat the previous turn's shares its state."""
    raws: dict[str, bytes] = {}  # each service's last slot values, undecoded
    current: dict[str, dict] = {}  # each service's last flat state
    states: dict[int, dict] = {}
    state: dict = {}
    previous = None
    for position, turn in enumerate(dialogue.turns):
        if turn.speaker != "USER":
            continue
        if turn.frames != previous or not states:
            previous, changed = turn.frames, not states
            place = {"dialogue": dialogue_id, "turn": len(states), "source": where}
            for index, frame in enumerate(_frames(turn, f"turns[{position}]", place)):
                raw = frame.state.slot_values
                if raws.get(frame.service) != raw:
                    field = f"turns[{position}].frames[{index}].state.slot_values"
                    slot_values = _decode(_SLOT_VALUES, raw, field, **place)
                    raws[frame.service], changed = raw, True
                    current[frame.service] = _flat(frame.service, slot_values, names, gold)
            if changed and len(current) == 1:
                (state,) = current.values()  # one service: its flat state (replaced, never changed, later)
            elif changed:
                state = {key: value for flat in current.values() for key, value in flat.items()}
        states[len(states)] = state
    if not states:
        raise InputError("the dialogue has no USER turn", dialogue=dialogue_id, source=where)
    return states


def read_sgd_side(request: ReadRequest, side: str) -> Side:
    """One side from a dialogue file (the request's bytes) or folder (its path)."""
    folder = request.path is not None and request.path.is_dir()
    names: dict[str, dict[str, str]] = {}
    with gc_paused():
        files = _files(request.path, request.source, None if folder else request.data)
        states = {
            dialogue_id: _user_states(dialogue_id, dialogue, where, names, side == "gold")
            for dialogue_id, dialogue, where in _dialogues(files)
        }
    if folder and not states:
        raise InputError("there is no dialogue", source=request.source)
    return Side(states, request.source, flat=True)


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
    holds="either",
    suffixes=(".json",),
    layout=(
        "SGD / MultiWOZ 2.2 dialogue files, a file or a folder of `dialogues_*.json` (USER turns; "
        "`service-slot`; gold lists are acceptable values, a prediction's first value counts)"
    ),
)
