"""Profile ``simmc``: the seven MM-DST figures of SIMMC 2.x's ``evaluate_dst.py`` (github
facebookresearch/simmc2, ``model/mm_dst/utils/evaluate_dst.py``, as the DSTC10 teams ran it): joint
accuracy, act F1, slot precision / recall / F1, request-slot F1 and object F1, from frames read by
`readers.simmc`.

Its rules (docs/compat.md): a turn's gold frames pair with its predicted frames by position (a missing
predicted frame is empty, extra ones are ignored); a frame's slots are the set of its ``slot=value`` pairs,
its request slots and objects sets; each set counts its items, the hits are the items of both; a frame is
jointly right when its act and its three sets are equal. Every count is an integer sum over dialogues
(`Sums`), so the profile scores while reading, in any number of processes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.tally import integer
from ..corpus import Dialogue
from ..options import Options
from ..readers.simmc import ACT, OBJECTS, REQUESTED
from ..states import Alternatives, decode_values
from .base import DialogueSums, Profile, precision_recall_f1, turn_results

NAME = "simmc"
KEYS = ("jga", "act_f1", "slot_precision", "slot_recall", "slot_f1", "request_slot_f1", "object_f1")
"""The seven figures, under our keys."""
REPORT_KEYS = dict(
    zip(KEYS, ("joint_accuracy", "act_f1", "slot_prec", "slot_rec", "slot_f1", "request_slot_f1", "object_f1"))
)
"""Each figure's key in the scorer's report."""

_FRAME_PREFIX = re.compile(r"frame (\d+) (.*)", re.DOTALL)


@dataclass
class Frame:
    """One frame of a turn as the scorer compares it."""

    act: str | None = None
    slots: frozenset[tuple[str, str]] = frozenset()
    requested: frozenset[str] = frozenset()
    objects: frozenset[int] = frozenset()


def _values(value: object) -> list[str]:
    if isinstance(value, Alternatives):
        return list(value.order)
    return decode_values(str(value))


def frames(state: dict) -> list[Frame]:
    """The frames of a flat state (`readers.simmc.frame_key`), in order; a frame is there when its act is."""
    parts: dict[int, dict[str, object]] = {}
    for key, value in state.items():
        found = _FRAME_PREFIX.fullmatch(key)
        index, name = (int(found[1]) - 1, found[2]) if found else (0, key)
        parts.setdefault(index, {})[name] = value
    result = []
    for index in sorted(parts):
        part = parts[index]
        if ACT not in part:
            continue
        slots = frozenset(
            (name, value)
            for name, raw in part.items()
            if name not in (ACT, REQUESTED, OBJECTS)
            for value in _values(raw)
        )
        requested = frozenset(_values(part[REQUESTED])) if REQUESTED in part else frozenset()
        objects = frozenset(int(number) for number in _values(part[OBJECTS])) if OBJECTS in part else frozenset()
        result.append(Frame(str(part[ACT]), slots, requested, objects))
    return result


@dataclass
class Sums:
    """The scorer's counts of some dialogues (`base.DialogueSums`): frames, and for acts, slots, request slots
    and objects the gold items, predicted items and hits."""

    frames: int = integer()
    joint: int = integer()
    gold_acts: int = integer()
    pred_acts: int = integer()
    act_hits: int = integer()
    gold_slots: int = integer()
    pred_slots: int = integer()
    slot_hits: int = integer()
    gold_requested: int = integer()
    pred_requested: int = integer()
    requested_hits: int = integer()
    gold_objects: int = integer()
    pred_objects: int = integer()
    object_hits: int = integer()


def turn_counts(gold: dict, pred: dict) -> tuple[int, ...]:
    """A turn's counts, in the order of `Sums`' fields."""
    counts = [0] * 14
    predicted = frames(pred)
    for index, truth in enumerate(frames(gold)):
        guess = predicted[index] if index < len(predicted) else Frame()
        act_right = truth.act == guess.act
        sets = ((truth.slots, guess.slots), (truth.requested, guess.requested), (truth.objects, guess.objects))
        row = [1, act_right and all(mine == theirs for mine, theirs in sets), 1, guess.act is not None, act_right]
        for mine, theirs in sets:
            row += [len(mine), len(theirs), len(mine & theirs)]
        counts = [total + item for total, item in zip(counts, row)]
    return tuple(counts)


_FIELDS = tuple(Sums.__dataclass_fields__)


def _add(sums: Sums, dialogue: Dialogue, options: Options) -> None:
    """Add one dialogue's turns into `sums`."""
    for counts in turn_results(dialogue, turn_counts):
        for name, count in zip(_FIELDS, counts):
            setattr(sums, name, getattr(sums, name) + count)


def _figures(sums: Sums, options: Options) -> dict[str, object]:
    """The seven figures (fractions) as the scorer computes them."""
    act_f1 = precision_recall_f1(sums.act_hits, sums.pred_acts, sums.gold_acts)[2]
    slot_p, slot_r, slot_f1 = precision_recall_f1(sums.slot_hits, sums.pred_slots, sums.gold_slots)
    request_f1 = precision_recall_f1(sums.requested_hits, sums.pred_requested, sums.gold_requested)[2]
    object_f1 = precision_recall_f1(sums.object_hits, sums.pred_objects, sums.gold_objects)[2]
    jga = sums.joint / sums.frames if sums.frames else 0.0
    return dict(zip(KEYS, (jga, act_f1, slot_p, slot_r, slot_f1, request_f1, object_f1)))


def as_report(figures: dict[str, object]) -> dict[str, object]:
    """The seven figures under the keys of the scorer's report."""
    return {REPORT_KEYS[key]: figures[key] for key in KEYS}


SUMS = DialogueSums(Sums, _add, _figures)
"""The profile as sums over dialogues."""

_NO_FRAME = (
    "the script scores frames (an act with its slots, request slots and objects): a state without an act, as in "
    "gold of another format, holds none, and a part that no gold frame holds scores an F1 of 0"
)
SELF_CHECK = dict.fromkeys(KEYS, _NO_FRAME)
"""Why a figure is below 1 on gold scored against itself (``dst-metrics check``)."""

PROFILE = Profile(
    NAME,
    "SIMMC 2.x's evaluate_dst.py: frames by position; act, slot, request-slot and object sets; joint accuracy",
    SUMS.of_corpus,
    self_check=SELF_CHECK,
    sums=SUMS,
)
