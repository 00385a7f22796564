"""ConvLab-3's unified format: its dialogues (one side) and its DST prediction samples (both sides).

- ``convlab``: the ``predictions.json`` ConvLab-3's DST evaluation
  (``convlab/dst/evaluate_unified_datasets.py``) reads: an array of samples, one per user turn,
  ``{"speaker": "user", "utterance", "utt_idx", "state": gold, "predictions": {"state": predicted},
  "context": […]}`` (``dialogue_id`` too in ConvLab-3 after 3.0.1, where it is the original id such
  as ``MUL0003.json``). Samples with a ``dialogue_id`` are grouped by it; samples without one
  (ConvLab-3 3.0.1) are in dialogue order, and a new dialogue starts wherever ``utt_idx`` does
  not increase: those dialogues are named by position, ``0``, ``1``, … (with ConvLab-3's default
  order, dialogue i of the test split is ``multiwoz21-test-i``).
- ``convlab-unified``: unified-format dialogues (``dialogues.json``, an array, or an object of
  dialogues): ``{"dialogue_id", "original_id", "turns": [{"speaker", "utt_idx", "state"}, …]}``;
  the states of the user turns, read for either side. A dialogue is named by its ``original_id``
  when it has one (``MUL0003.json``: the id MultiWOZ predictions and ConvLab-3's own samples use),
  else by its ``dialogue_id`` (``multiwoz21-test-0``), else by its key in an object.

Both: states ``{domain: {slot: value}}``. The unified format lists every slot of its domains with
``""`` when unset: such slots are dropped (they are unset, not a value ``""``; kept, the official
mode would count ``""`` as a value and SA's K would need to cover every listed slot), and the gold
slots listed are kept in `Corpus.listed_gold_slots` for the ``convlab`` profile. ``|`` separates
alternatives; other values are kept as they are (``none`` included), and turn ids count the user
turns of a dialogue (0, 1, …) in ``utt_idx`` order. The ``convlab`` compatibility profile applies
ConvLab-3's conventions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from .. import ids
from .._gc import without_gc
from ..corpus import Corpus, CorpusBuilder
from ..errors import InputError, describe
from ..states import is_scored_mapping
from .base import (
    NotCommon,
    Reader,
    ReaderFit,
    ReadRequest,
    Side,
    check_unique_keys,
    decode_error,
    decode_json,
    decoded_on_change,
)

UNSET_VALUE = ""
"""What the unified format writes for an unset slot; the readers drop such slots (see the module)."""
SAMPLE = '{"utt_idx", "state", "predictions": {"state"}}'
SAMPLES = f"[{SAMPLE}, …]"
DIALOGUES = '[{"dialogue_id", "turns": [{"speaker", "utt_idx", "state"}, …]}, …]'
_UNSET = msgspec.UNSET
_NO_STATE = msgspec.Raw(b"")


def _check_state(raw: object, field: str) -> None:
    """Raise InputError where a unified-format state is not ``{domain: {slot: value}}`` of strings."""
    if not isinstance(raw, Mapping):
        raise InputError(f"a state must be an object {{domain: {{slot: value}}}}, got {describe(raw)}", field=field)
    for domain, slots in raw.items():
        if not isinstance(slots, Mapping):
            raise InputError(f"a domain must map slots to values, got {describe(slots)}", field=f"{field}.{domain}")
        for slot, value in slots.items():
            if not isinstance(value, str):
                raise InputError(f"a value must be a string, got {describe(value)}", field=f"{field}.{domain}.{slot}")


class _Predictions(msgspec.Struct):
    state: msgspec.Raw  # a sample's predictions: only the state is read


class _Sample(msgspec.Struct):
    state: msgspec.Raw  # states stay raw until `_states` decodes and checks them
    predictions: _Predictions
    utt_idx: Any = _UNSET  # ids and turn numbers are checked by `_sample_groups`
    dialogue_id: Any = _UNSET


class _Turn(msgspec.Struct):
    speaker: Any = None
    utt_idx: Any = _UNSET  # checked on user turns only
    state: msgspec.Raw = _NO_STATE


class _Dialogue(msgspec.Struct):
    turns: list[_Turn]
    dialogue_id: Any = _UNSET
    original_id: Any = _UNSET


_SAMPLES = msgspec.json.Decoder(list[_Sample])
_DIALOGUES = msgspec.json.Decoder(list[_Dialogue] | dict[str, _Dialogue])
_STATE = msgspec.json.Decoder(dict[str, dict[str, str]])
_DOMAINS = msgspec.json.Decoder(dict[str, msgspec.Raw])
_SLOTS = msgspec.json.Decoder(dict[str, str])


def _decode(decoder: msgspec.json.Decoder, request: ReadRequest, check: Callable[[object], None]) -> Any:
    """The file decoded once by a typed decoder. JSON of another shape is decoded again, plainly, for
    `check` to raise the InputError naming the first part of the wrong shape."""
    try:
        return decoder.decode(request.data)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:  # ValidationError is a DecodeError
        check(decode_json(request.data, request.source))  # invalid JSON: decode_json names its line and column
        raise decode_error(error, source=request.source) from None


def _states(raws: list, flat: _Flattener | None, fields: Callable[[], list[str]]) -> list:
    """Raw states decoded and checked ({domain: {slot: string}}), or flattened by `flat`; equal
    consecutive ones are one object. A state of another shape raises InputError at its field (`fields()`)."""
    try:
        return decoded_on_change(raws, _STATE.decode if flat is None else flat.state)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        for raw, field in zip(raws, fields()):
            _check_state(decode_json(raw), field)
        raise decode_error(error) from None


class _Flattener:
    """Raw unified states as flat states ``{"domain-slot": value}`` without their unset slots, for exact
    matching (what `CorpusBuilder` makes of them, in one pass). Each domain is kept raw until needed: one
    whose bytes equal an all-unset domain met before, or the same domain of the state before, is not
    decoded again, so the verbose format's many unset slots cost one comparison per domain. `names` holds
    every slot met. A state of another shape raises msgspec's DecodeError; two slots of one name or a
    domain that looks like a scored value raise NotCommon (`CorpusBuilder` then reads the nested states)."""

    def __init__(self, owners: dict[str, tuple[str, str]]) -> None:
        self.names: dict[str, dict[str, str]] = {}  # {domain: {slot: "domain-slot"}}
        self.unset: dict[str, object] = {}  # {domain: the bytes of an all-unset domain met before}
        self.last: dict[str, tuple[object, list]] = {}  # {domain: (bytes, flat items) of the last state}
        self.owners = owners  # {name: (domain, slot)} of both sides, which must not collide

    def state(self, raw: msgspec.Raw) -> dict:
        flat: dict[str, str] = {}
        unset, last = self.unset, self.last
        for domain, inner in _DOMAINS.decode(raw).items():
            if unset.get(domain) == inner:
                continue
            before = last.get(domain)
            if before is None or before[0] != inner:
                before = last[domain] = (inner, self._items(domain, inner))
            flat.update(before[1])
        return flat

    def _items(self, domain: str, raw: msgspec.Raw) -> list[tuple[str, str]]:
        """The set slots of one raw domain as (name, value); an all-unset domain is remembered."""
        inner = _SLOTS.decode(raw)
        names = self.names.get(domain)
        if names is None:
            if is_scored_mapping(inner):
                raise NotCommon
            names = self.names[domain] = {}
        items = []
        for slot, value in inner.items():
            name = names.get(slot)
            if name is None:
                name = names[slot] = f"{domain}-{slot}"
                if self.owners.setdefault(name, (domain, slot)) != (domain, slot):
                    raise NotCommon  # "a-b" + "c" and "a" + "b-c"
            if value != UNSET_VALUE:
                items.append((name, value))
        if not items:
            self.unset[domain] = raw
        return items


def _check_samples(data: object) -> None:
    """Raise the InputError of the first sample the typed decoder refused."""
    if not isinstance(data, list):
        raise InputError(f"expected a non-empty array of samples {SAMPLES}, got {describe(data)}")
    for index, sample in enumerate(data):
        field = f"[{index}]"
        if not isinstance(sample, Mapping):
            raise InputError(f"a sample must be an object {SAMPLE}, got {describe(sample)}", field=field)
        for key in ("state", "predictions"):
            if key not in sample:
                raise InputError(f"the sample has no {key}", field=f"{field}.{key}")
        predictions = sample["predictions"]
        if not isinstance(predictions, Mapping) or "state" not in predictions:
            raise InputError(
                f"predictions must be an object with a state, got {describe(predictions)}", field=f"{field}.predictions"
            )


def _turn(utt_idx: object, field: str) -> int:
    """A utt_idx other than an int >= 0 checked (`ids.turn_id`); `field` locates the sample or turn."""
    if utt_idx is _UNSET:
        raise InputError("it has no utt_idx", field=field)
    return ids.turn_id(utt_idx, field=f"{field}.utt_idx")


def _sample_groups(samples: list[_Sample]) -> dict[str, list[_Sample]]:
    """{dialogue id: samples in utt_idx order}: by dialogue_id, or split where utt_idx does
    not increase; each sample's utt_idx is checked and made an int."""
    if any(sample.utt_idx.__class__ is not int or sample.utt_idx < 0 for sample in samples):
        for index, sample in enumerate(samples):
            sample.utt_idx = _turn(sample.utt_idx, f"[{index}]")
    groups: dict = {}
    if samples[0].dialogue_id is _UNSET:
        previous = group = None
        for sample in samples:
            if previous is None or sample.utt_idx <= previous:
                group = groups[str(len(groups))] = []
            previous = sample.utt_idx
            group.append(sample)
        return groups
    for sample in samples:
        groups.setdefault(sample.dialogue_id, []).append(sample)
    if any(name.__class__ is not str or not name for name in groups):
        groups = {}
        for index, sample in enumerate(samples):
            field = f"[{index}].dialogue_id"
            if sample.dialogue_id is _UNSET:
                raise InputError("the first sample has a dialogue_id but this one has none", field=field)
            groups.setdefault(ids.dialogue_id(sample.dialogue_id, field=field), []).append(sample)
    for dialogue_id, group in groups.items():
        steps = [sample.utt_idx for sample in group]
        if any(after <= before for before, after in zip(steps, steps[1:])):
            group.sort(key=lambda sample: sample.utt_idx)
            for before, after in zip(group, group[1:]):
                if before.utt_idx == after.utt_idx:
                    first, second = _positions(samples, [before, after])
                    raise InputError(
                        f"utt_idx {after.utt_idx} is given twice in the dialogue (samples {first} and {second})",
                        dialogue=dialogue_id,
                        field=f"[{second}].utt_idx",
                    )
    return groups


def read_samples(request: ReadRequest) -> Corpus:
    """Both sides of a ConvLab-3 predictions.json (see the module). Under a share of the dialogues
    (`corpus.only_share`: ``--jobs``), only the share's states are decoded and checked."""
    samples = _decode(_SAMPLES, request, _check_samples)
    if not samples:
        raise InputError(f"expected a non-empty array of samples {SAMPLES}, got an empty array")
    groups = _sample_groups(samples)
    exact = request.reading.value_matching == "exact"
    try:
        return _samples_corpus(request, samples, groups, exact)
    except NotCommon:  # slot names the flat states cannot hold apart: the builder reads the nested states
        return _samples_corpus(request, samples, groups, False)


def _positions(samples: list[_Sample], some: list[_Sample]) -> list[int]:
    """Where each of `some` is in `samples` (for a message)."""
    positions = {id(sample): index for index, sample in enumerate(samples)}
    return [positions[id(sample)] for sample in some]


def _fields(samples: list[_Sample], group: list[_Sample], template: str) -> Callable[[], list[str]]:
    return lambda: [template.format(position) for position in _positions(samples, group)]


def _samples_corpus(
    request: ReadRequest, samples: list[_Sample], groups: dict[str, list[_Sample]], flatten: bool
) -> Corpus:
    owners: dict[str, tuple[str, str]] = {}
    flat_gold, flat_pred = (_Flattener(owners), _Flattener(owners)) if flatten else (None, None)
    builder = CorpusBuilder(request.reading, unset=(UNSET_VALUE, UNSET_VALUE), flat=(flatten, flatten))
    sides = [  # every state is checked before any is built; a share's only
        (
            _states([s.state for s in group], flat_gold, _fields(samples, group, "[{}].state")),
            _states([s.predictions.state for s in group], flat_pred, _fields(samples, group, "[{}].predictions.state")),
        )
        if builder.keeps(position)
        else None
        for position, group in enumerate(groups.values())
    ]
    for dialogue_id, side in zip(groups, sides):
        if side is None:
            builder.pass_over()
        else:
            builder.add(dialogue_id, list(range(len(side[0]))), *side)
    if flat_gold is not None:
        builder.list_gold_slots(name for names in flat_gold.names.values() for name in names.values())
    return builder.corpus()


def _dialogue_name(key: str | None, original_id: object, dialogue_id: object, where: str) -> str:
    """A unified dialogue's id: its original_id, else its dialogue_id, else its key in an object."""
    if original_id is not _UNSET:
        return ids.dialogue_id(original_id, field=f"{where}.original_id")
    if dialogue_id is not _UNSET or key is None:
        return ids.dialogue_id(None if dialogue_id is _UNSET else dialogue_id, field=f"{where}.dialogue_id")
    return key


def _entries(data: list | dict) -> list[tuple[str, str | None, Any]]:
    """(field, key or None, dialogue) of an array or an object of dialogues."""
    if isinstance(data, list):
        return [(f"[{position}]", None, dialogue) for position, dialogue in enumerate(data)]
    return [(f".{key}", key, dialogue) for key, dialogue in data.items()]


def _check_dialogues(data: object) -> None:
    """Raise the InputError of the first dialogue or turn the typed decoder refused."""
    if not isinstance(data, (list, dict)):
        raise InputError(f"expected an array of dialogues {DIALOGUES}, got {describe(data)}")
    for where, key, dialogue in _entries(data):
        if not isinstance(dialogue, Mapping) or "turns" not in dialogue:
            raise InputError(f'a dialogue must be an object with "turns", got {describe(dialogue)}', field=where)
        get = dialogue.get
        name = _dialogue_name(key, get("original_id", _UNSET), get("dialogue_id", _UNSET), where)
        turns = dialogue["turns"]
        if not isinstance(turns, list):
            raise InputError(f"turns must be an array, got {describe(turns)}", dialogue=name, field=f"{where}.turns")
        for index, turn in enumerate(turns):
            if not isinstance(turn, Mapping):
                field = f"{where}.turns[{index}]"
                raise InputError(f"a turn must be an object, got {describe(turn)}", dialogue=name, field=field)


def _user_states(turns: list[_Turn], field: str) -> dict[int, dict]:
    """{turn: state} of a unified dialogue's user turns, in utt_idx order (equal consecutive states are one object)."""
    users = [turn for turn in turns if turn.speaker == "user"]
    steps = [turn.utt_idx for turn in users]
    raws = [turn.state for turn in users]
    if not users or _NO_STATE in raws or any(step.__class__ is not int or step < 0 for step in steps):
        if not users:
            raise InputError("the dialogue has no user turn", field=field)
        steps = [_user_turn(turn, f"{field}[{index}]") for index, turn in enumerate(turns) if turn.speaker == "user"]
    if any(after <= before for before, after in zip(steps, steps[1:])):
        users.sort(key=lambda turn: turn.utt_idx)
        raws = [turn.state for turn in users]

    def fields() -> list[str]:
        positions = {id(turn): index for index, turn in enumerate(turns)}
        return [f"{field}[{positions[id(turn)]}].state" for turn in users]

    return dict(enumerate(_states(raws, None, fields)))


def _user_turn(turn: _Turn, field: str) -> int:
    """The utt_idx of a user turn, checked and made an int; a user turn without a state raises InputError."""
    if turn.state is _NO_STATE:
        raise InputError("the user turn has no state", field=f"{field}.state")
    turn.utt_idx = _turn(turn.utt_idx, field)
    return turn.utt_idx


@without_gc
def read_dialogues(request: ReadRequest, side: str) -> Side:
    """The user-turn states of unified-format dialogues, for either side (see the module)."""
    data = _decode(_DIALOGUES, request, _check_dialogues)
    if isinstance(data, dict):
        check_unique_keys(request.data, b"", None, request.source, id_levels=1, depth=1)
    states: dict[str, dict[int, dict]] = {}
    for where, key, dialogue in _entries(data):
        name = dialogue.original_id if dialogue.original_id is not _UNSET else dialogue.dialogue_id
        if name.__class__ is not str or not name:
            name = _dialogue_name(key, dialogue.original_id, dialogue.dialogue_id, where)
        if name in states:
            raise InputError("the dialogue id is used twice", dialogue=name, field=where)
        try:
            states[name] = _user_states(dialogue.turns, f"{where}.turns")
        except InputError as error:
            raise error.located(dialogue=name) from None
    if not states:
        raise InputError("the file holds no dialogue", source=request.source)
    return Side(states, request.source, unset=UNSET_VALUE)


def _has(head: str, key: str) -> bool:
    return f'"{key}"' in head and re.search(rf'"{key}"\s*:', head) is not None  # the substring test is fast


def sniff_samples(head: str) -> ReaderFit:
    """An array whose samples have utt_idx, state and predictions."""
    if head.lstrip()[:1] != "[" or not _has(head, "utt_idx") or _has(head, "turns"):
        return ReaderFit(0)
    if not _has(head, "predictions"):
        return ReaderFit(1, "its samples have no predictions")
    return ReaderFit(2)


def sniff_dialogues(head: str) -> ReaderFit:
    """An array (or object) of dialogues whose turns have speaker and utt_idx."""
    if head.lstrip()[:1] not in ("[", "{") or _has(head, "predictions"):
        return ReaderFit(0)
    return ReaderFit(2) if all(_has(head, key) for key in ("turns", "speaker", "utt_idx")) else ReaderFit(0)


READER = Reader(
    "convlab",
    f"ConvLab-3 DST predictions.json {SAMPLES}",
    sniff_samples,
    read_samples,
    holds="both sides",
    suffixes=(".json",),
    layout="ConvLab-3's DST `predictions.json`: one sample per user turn with `state` and `predictions.state`",
)
UNIFIED_READER = Reader(
    "convlab-unified",
    f"ConvLab-3 unified-format dialogues {DIALOGUES}",
    sniff_dialogues,
    read_side=read_dialogues,
    holds="either",
    suffixes=(".json",),
    layout="ConvLab-3 unified-format dialogues (`turns[].state` of the user turns)",
)
