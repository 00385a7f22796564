"""SIMMC 2.x multimodal DST (DSTC10 track 3, DSTC11 track 1): one line per user turn, or the dials JSON.

A line is a turn's context, its belief state and the response, as the simmc2 models print them:
``User : Do you have jeans? => Belief State : REQUEST:GET [ type = jeans ] () < 29 > <EOB> Here. <EOS>``
(SIMMC 2.1 adds ``| disambiguation candidates |`` after the objects). A predictions file and a target file
pair line by line (``--gold``: the target lines, or the dials JSON ``{"dialogue_data": [...]}``, whose user
turns in order are the lines; predictions in that JSON pair the same way). A target file's dialogues start
at the lines whose context holds no ``System :`` turn (the signature says ``dialogues:by-context``).

The belief state is parsed as simmc2's ``parse_flattened_result`` parses it (docs/compat.md): each frame
``ACT [ slot = value, ... ] ( request slots ) < object ids >``; a line without ``=> Belief State :`` and
one ``<EOB>`` after it has no frame (a prediction of nothing; in a target file, an error). A frame is one
flat state: ``(act)``, each slot, ``(requested)`` and ``(objects)`` (the distinct values,
`states.encode_values`); the frames after the first are prefixed ``frame 2 ``. ``availableSizes`` is read
as the scorer compares it, its list of sizes sorted. Disambiguation candidates are not read: no figure of
the scorer's seven reads them.
"""

from __future__ import annotations

import ast
import re

from .._gc import without_gc
from ..errors import InputError, describe
from ..states import encode_values
from .base import Reader, ReaderFit, ReadRequest, Side, decode_json

NAME = "simmc"
BELIEF_START = "=> Belief State :"
BELIEF_END = "<EOB>"
ACT, REQUESTED, OBJECTS = "(act)", "(requested)", "(objects)"
"""The keys of a frame's act, requested slots and objects (no slot name holds a parenthesis)."""
BY_CONTEXT = "dialogues:by-context"
"""The signature part saying a target file's dialogues were found from its lines' contexts."""
LIST_SLOTS = frozenset({"availableSizes"})
"""The slots whose value is a list of sizes, compared sorted."""

# The scorer's grammar of a frame, of a slot, of a request slot and of an object id.
_FRAME = re.compile(r"([\w:?.?]*)  *\[(.*)\] *\(([^\]]*)\) *\<([^\]]*)\>")
_SLOT = re.compile(r"([A-Za-z0-9_.-:]*)  *= (\[(.*)\]|[^,]*)")
_NAME = re.compile(r"([A-Za-z0-9_.-:]+)")
_OBJECT = re.compile(r"([A-Za-z0-9]+)")


def frame_key(index: int, key: str) -> str:
    """The state key of `key` in frame `index` (0: the key itself; 1: ``frame 2 key``)."""
    return f"frame {index + 1} {key}" if index else key


def list_value(value: object) -> str:
    """A list slot's value as the scorer compares it: the text of its items sorted. A text is the items of the
    Python literal it holds (``'XL'``: the letters, as the scorer's ``list(eval(value))``), else one item."""
    if isinstance(value, str):
        try:
            items = list(ast.literal_eval(value))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            items = [value]
    elif isinstance(value, (list, tuple, set)):
        items = list(value)
    else:
        return str(value)
    try:
        items.sort()
    except TypeError:
        pass
    return str(items)


def _slot_value(slot: str, value: object) -> str:
    """A slot's value as the scorer writes it into ``slot=value``."""
    return list_value(value) if slot in LIST_SLOTS else str(value)


def _frame_state(
    state: dict[str, str], index: int, act: str, slots: list[tuple[str, str]], requested: list[str], objects: list[int]
) -> None:
    """Write frame `index` into `state`."""
    state[frame_key(index, ACT)] = act
    values: dict[str, list[str]] = {}
    for slot, value in slots:
        values.setdefault(slot, []).append(_slot_value(slot, value))
    for slot, slot_values in values.items():
        state[frame_key(index, slot)] = encode_values(slot_values)
    if requested:
        state[frame_key(index, REQUESTED)] = encode_values(requested)
    if objects:
        state[frame_key(index, OBJECTS)] = encode_values([str(number) for number in objects])


def belief_state(line: str) -> dict[str, str] | None:
    """The flat state of a line's belief state (`frame_key`), or None where the line has no frame."""
    parts = line.strip().split(BELIEF_START)
    if len(parts) != 2:
        return None
    parts = parts[1].strip().split(BELIEF_END)
    if len(parts) != 2:
        return None
    state: dict[str, str] = {}
    for index, frame in enumerate(_FRAME.finditer(parts[0].strip())):
        slots = [(slot[1].strip(), slot[2].strip()) for slot in _SLOT.finditer(frame[2])]
        requested = [name[1].strip() for name in _NAME.finditer(frame[3])]
        objects = [int(found[1]) for found in _OBJECT.finditer(frame[4]) if found[1].isdigit()]
        _frame_state(state, index, frame[1], slots, requested, objects)
    return state or None


def _starts_dialogue(line: str) -> bool:
    """Whether a target line is a dialogue's first turn: its context holds no system turn."""
    return "System :" not in line.split(BELIEF_START, 1)[0]


def _read_lines(request: ReadRequest, side: str) -> Side:
    lines = request.text().splitlines()
    if not lines:
        raise InputError("the corpus is empty: there is no line to score", source=request.source)
    if side == "pred":
        states = {str(number): {0: belief_state(line) or {}} for number, line in enumerate(lines, start=1)}
        return Side(states, request.source, ids="position", flat=True)
    grouped: dict[str, dict[int, object]] = {}
    turns: dict[int, object] = {}
    for number, line in enumerate(lines, start=1):
        state = belief_state(line)
        if state is None:
            where = f"{request.source}, line {number}" if request.source else f"line {number}"
            message = f"a target line needs a belief state ({BELIEF_START} ACT [ ... ] ( ... ) < ... > {BELIEF_END})"
            raise InputError(message, source=where)
        if not grouped or _starts_dialogue(line):
            turns = grouped[f"line {number}"] = {}
        turns[len(turns)] = state
    return Side(grouped, request.source, ids="position", flat=True, convention=BY_CONTEXT)


def _turn_state(turn: object, dialogue: str, number: int, source: str | None) -> dict[str, str]:
    """The flat state of one user turn of the dials JSON (its ``transcript_annotated``)."""

    def problem(text: str, field: str) -> InputError:
        return InputError(text, dialogue=dialogue, turn=number, field=field, source=source)

    annotated = turn.get("transcript_annotated") if type(turn) is dict else None
    if type(annotated) is not dict:
        raise problem(f"a turn needs an object transcript_annotated, got {describe(annotated)}", "transcript_annotated")
    act, attributes = annotated.get("act"), annotated.get("act_attributes")
    if type(act) is not str:
        raise problem(f"the act must be a string, got {describe(act)}", "transcript_annotated.act")
    if type(attributes) is not dict:
        raise problem(f"expected an object, got {describe(attributes)}", "transcript_annotated.act_attributes")
    slots, requested = attributes.get("slot_values", {}), attributes.get("request_slots", [])
    objects = attributes.get("objects", [])
    field = "transcript_annotated.act_attributes."
    if type(slots) is not dict:
        raise problem(f"expected an object of slots, got {describe(slots)}", field + "slot_values")
    if type(requested) is not list or not all(type(name) is str for name in requested):
        raise problem(f"expected an array of slot names, got {describe(requested)}", field + "request_slots")
    if type(objects) is not list or not all(type(number) is int for number in objects):
        raise problem(f"expected an array of object ids (integers), got {describe(objects)}", field + "objects")
    state: dict[str, str] = {}
    _frame_state(state, 0, act, list(slots.items()), requested, objects)
    return state


def _read_dials(request: ReadRequest) -> Side:
    data = decode_json(request.data, request.source)
    dialogues = data.get("dialogue_data") if type(data) is dict else None
    if type(dialogues) is not list or not dialogues:
        raise InputError(f'expected {{"dialogue_data": [dialogues]}}, got {describe(data)}', source=request.source)
    grouped: dict[str, dict[int, object]] = {}
    for position, dialogue in enumerate(dialogues):
        turns = dialogue.get("dialogue") if type(dialogue) is dict else None
        name = str(dialogue.get("dialogue_idx", position)) if type(dialogue) is dict else str(position)
        if type(turns) is not list:
            raise InputError(f"a dialogue needs an array dialogue, got {describe(turns)}", dialogue=name)
        if name in grouped:
            raise InputError("this dialogue_idx is given twice", dialogue=name, source=request.source)
        grouped[name] = {number: _turn_state(turn, name, number, request.source) for number, turn in enumerate(turns)}
    return Side(grouped, request.source, ids="position", flat=True)


@without_gc
def read_simmc_side(request: ReadRequest, side: str) -> Side:
    """One side: predicted lines (one instance each), target lines grouped by context, or the dials JSON."""
    if request.path is not None and request.path.is_dir():
        raise InputError("a SIMMC file is one .txt or .json file, not a folder", source=request.source)
    if request.data.lstrip()[:1] == b"{":
        return _read_dials(request)
    return _read_lines(request, side)


_DIALS = re.compile(r'\s*\{(?:\s*"(?:split|year|domain|version)"\s*:\s*[^,{}\[\]]*,)*\s*"dialogue_data"\s*:\s*\[')


def sniff(head: str) -> ReaderFit:
    """A first line with ``=> Belief State :``, or a JSON object that starts with ``dialogue_data``."""
    if BELIEF_START in head.split("\n", 1)[0] or _DIALS.match(head):
        return ReaderFit(2)
    return ReaderFit(0)


READER = Reader(
    NAME,
    "SIMMC 2.x lines (context => Belief State : ACT [ slot = value ] ( requested ) < objects > <EOB>) or dials JSON",
    sniff,
    read_side=read_simmc_side,
    holds="either",
    suffixes=(".txt", ".json"),
    layout=(
        "SIMMC 2.x multimodal DST: one line per user turn, `context => Belief State : ACT [ slot = value, ..."
        " ] ( request slots ) < object ids > <EOB> response` (predictions, or the target file as `--gold`), "
        'or the dials JSON `{"dialogue_data": [...]}`; paired by position, the line counts must be equal; a '
        "target file's dialogues start at lines whose context has no `System :` turn "
        "(`|dialogues:by-context`); a frame's keys are its slots, `(act)`, `(requested)` and `(objects)`, "
        "later frames prefixed `frame 2 `; a prediction line without a belief state is an empty prediction, a"
        " target line without one an error"
    ),
)
