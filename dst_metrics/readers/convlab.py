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
from collections.abc import Mapping

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
    decode_json,
    decode_object,
    decoded_on_change,
    typed_decode,
)

UNSET_VALUE = ""
"""What the unified format writes for an unset slot; the readers drop such slots (see the module)."""
SAMPLE = '{"utt_idx", "state", "predictions": {"state"}}'
SAMPLES = f"[{SAMPLE}, …]"
DIALOGUES = '[{"dialogue_id", "turns": [{"speaker", "utt_idx", "state"}, …]}, …]'


def nested_state(raw: object, field: str) -> dict[str, dict[str, str]]:
    """A unified-format state ``{domain: {slot: value}}`` checked (values strings); else InputError."""
    if not isinstance(raw, Mapping):
        raise InputError(f"a state must be an object {{domain: {{slot: value}}}}, got {describe(raw)}", field=field)
    for domain, slots in raw.items():
        if not isinstance(slots, Mapping):
            raise InputError(f"a domain must map slots to values, got {describe(slots)}", field=f"{field}.{domain}")
        for slot, value in slots.items():
            if not isinstance(value, str):
                raise InputError(f"a value must be a string, got {describe(value)}", field=f"{field}.{domain}.{slot}")
    return raw


def _utt_idx(item: Mapping, field: str) -> int:
    if "utt_idx" not in item:
        raise InputError("it has no utt_idx", field=field)
    return ids.turn_id(item["utt_idx"], field=f"{field}.utt_idx")


def _sample(sample: object, index: int) -> tuple[int, dict, dict]:
    """(utt_idx, gold state, predicted state) of one prediction sample."""
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
    gold = nested_state(sample["state"], f"{field}.state")
    return _utt_idx(sample, field), gold, nested_state(predictions["state"], f"{field}.predictions.state")


def _grouped_samples(data: list) -> dict[str, list[tuple[int, int, dict, dict]]]:
    """{dialogue id: [(utt_idx, index, gold, pred), …]}: by dialogue_id, or by utt_idx restarts."""
    named = isinstance(data[0], Mapping) and "dialogue_id" in data[0]
    groups: dict[str, list] = {}
    previous = None
    for index, sample in enumerate(data):
        utt_idx, gold, pred = _sample(sample, index)
        if named:
            if "dialogue_id" not in sample:
                raise InputError(
                    "the first sample has a dialogue_id but this one has none", field=f"[{index}].dialogue_id"
                )
            dialogue_id = ids.dialogue_id(sample["dialogue_id"], field=f"[{index}].dialogue_id")
        else:
            if previous is None or utt_idx <= previous:
                groups[str(len(groups))] = []
            dialogue_id, previous = str(len(groups) - 1), utt_idx
        groups.setdefault(dialogue_id, []).append((utt_idx, index, gold, pred))
    return groups


_UNSET = msgspec.UNSET
_STATE = msgspec.json.Decoder(dict[str, dict[str, str]])
_DOMAINS = msgspec.json.Decoder(dict[str, msgspec.Raw])
_SLOTS = msgspec.json.Decoder(dict[str, str])


class _Predictions(msgspec.Struct):
    state: msgspec.Raw  # a sample's predictions: only the state is read


class _Sample(msgspec.Struct):
    utt_idx: int
    state: msgspec.Raw  # a prediction sample's states are checked by `_states`
    predictions: _Predictions
    dialogue_id: str | msgspec.UnsetType = _UNSET


_SAMPLES = msgspec.json.Decoder(list[_Sample])


class _Turn(msgspec.Struct):
    speaker: str | None = None
    utt_idx: int | msgspec.UnsetType = _UNSET
    state: msgspec.Raw = msgspec.Raw(b"")  # empty: the turn has no state (checked by `_fast_user_states`)


class _Dialogue(msgspec.Struct):
    turns: list[_Turn]
    dialogue_id: str | msgspec.UnsetType = _UNSET
    original_id: str | msgspec.UnsetType = _UNSET


_DIALOGUES = msgspec.json.Decoder(list[_Dialogue])


def _decoded(raw: object, decoder: object = None) -> dict:
    """A raw state decoded and checked ({domain: {slot: string}}, or what `decoder` takes); another shape
    raises NotCommon."""
    try:
        return (decoder or _STATE).decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError):
        raise NotCommon from None


def _states(raws: list, flat: _Flattener | None = None) -> list:
    """Raw states decoded and checked ({domain: {slot: string}}), or flattened by `flat`
    (`decoded_on_change`). A state of another shape raises NotCommon."""
    return decoded_on_change(raws, _decoded if flat is None else flat.state)


class _Flattener:
    """Raw unified states as flat states ``{"domain-slot": value}`` without their unset slots, for exact
    matching (what `CorpusBuilder` makes of them, in one pass). Each domain is kept raw until needed: one
    whose bytes equal an all-unset domain met before, or the same domain of the state before, is not
    decoded again, so the verbose format's many unset slots cost one comparison per domain. `names` holds
    every slot met; anything `plain_state` would not take (two slots of one name, a domain that looks
    like a scored value) or a state of another shape raises NotCommon."""

    def __init__(self, owners: dict[str, tuple[str, str]]) -> None:
        self.names: dict[str, dict[str, str]] = {}  # {domain: {slot: "domain-slot"}}
        self.unset: dict[str, object] = {}  # {domain: the bytes of an all-unset domain met before}
        self.last: dict[str, tuple[object, list]] = {}  # {domain: (bytes, flat items) of the last state}
        self.owners = owners  # {name: (domain, slot)} of both sides, which must not collide

    def state(self, raw: object) -> dict:
        domains = _decoded(raw, _DOMAINS)
        flat: dict[str, str] = {}
        unset, last = self.unset, self.last
        for domain, inner in domains.items():
            if unset.get(domain) == inner:
                continue
            before = last.get(domain)
            if before is None or before[0] != inner:
                before = last[domain] = (inner, self._items(domain, inner))
            flat.update(before[1])
        return flat

    def _items(self, domain: str, raw: object) -> list[tuple[str, str]]:
        """The set slots of one raw domain as (name, value); an all-unset domain is remembered."""
        inner = _decoded(raw, _SLOTS)
        names = self.names.get(domain)
        if names is None:
            if is_scored_mapping(inner):
                raise NotCommon
            names = self.names[domain] = {}
        items = []
        for slot, value in inner.items():
            name = names.get(slot)
            if name is None:
                name = names[slot] = self._name(domain, slot)
            if value != UNSET_VALUE:
                items.append((name, value))
        if not items:
            self.unset[domain] = raw
        return items

    def listed(self) -> set[str]:
        """Every slot name met."""
        return {name for names in self.names.values() for name in names.values()}

    def _name(self, domain: str, slot: str) -> str:
        name = f"{domain}-{slot}"
        if self.owners.setdefault(name, (domain, slot)) != (domain, slot):
            raise NotCommon  # "a-b" + "c" and "a" + "b-c": the general path names the problem
        return name


def _fast_groups(samples: list) -> dict[str, list] | None:
    """{dialogue id: samples} of decoded samples, in utt_idx order; None when anything needs a closer look."""
    groups: dict[str, list] = {}
    if samples[0].dialogue_id is _UNSET:
        previous = group = None
        for sample in samples:
            if previous is None or sample.utt_idx <= previous:
                group = groups[str(len(groups))] = []
            previous = sample.utt_idx
            group.append(sample)
    else:
        for sample in samples:
            groups.setdefault(sample.dialogue_id, []).append(sample)
        if "" in groups or _UNSET in groups:
            return None
        for group in groups.values():
            steps = [s.utt_idx for s in group]
            if any(after <= before for before, after in zip(steps, steps[1:])):
                return None
    if any(s.utt_idx < 0 for s in samples):
        return None
    return groups


def read_samples(request: ReadRequest) -> Corpus:
    """Both sides of a ConvLab-3 predictions.json (see the module). Under a share of the dialogues
    (`corpus.only_share`: ``--jobs``), only the share's states are decoded and checked."""
    samples = typed_decode(_SAMPLES, request.data)
    groups = _fast_groups(samples) if samples else None
    if groups is None:
        return _read_samples(request)
    exact = request.reading.value_matching == "exact"
    owners: dict[str, tuple[str, str]] = {}
    flat_gold, flat_pred = (_Flattener(owners), _Flattener(owners)) if exact else (None, None)
    builder = CorpusBuilder(request.reading, unset=(UNSET_VALUE, UNSET_VALUE), flat=(exact, exact))
    try:  # every state is checked before any is built, as the general path does; a share's only
        sides = [
            (
                _states([sample.state for sample in group], flat_gold),
                _states([sample.predictions.state for sample in group], flat_pred),
            )
            if builder.keeps(position)
            else None
            for position, group in enumerate(groups.values())
        ]
    except NotCommon:
        return _read_samples(request)
    for dialogue_id, side in zip(groups, sides):
        if side is None:
            builder.pass_over()
        else:
            builder.add(dialogue_id, list(range(len(side[0]))), *side)
    if flat_gold is not None:
        builder.list_gold_slots(flat_gold.listed())
    return builder.corpus()


def _read_samples(request: ReadRequest) -> Corpus:
    """`read_samples` for any shape: a problem raises InputError naming the sample."""
    data = decode_json(request.data, request.source)
    if not isinstance(data, list) or not data:
        raise InputError(f"expected a non-empty array of samples {SAMPLES}, got {describe(data)}")
    builder = CorpusBuilder(request.reading, unset=(UNSET_VALUE, UNSET_VALUE))
    for dialogue_id, samples in _grouped_samples(data).items():
        samples.sort(key=lambda sample: sample[0])
        for before, after in zip(samples, samples[1:]):
            if before[0] == after[0]:
                raise InputError(
                    f"utt_idx {after[0]} is given twice in the dialogue (samples {before[1]} and {after[1]})",
                    dialogue=dialogue_id,
                    field=f"[{after[1]}].utt_idx",
                )
        golds = [sample[2] for sample in samples]
        builder.add(dialogue_id, list(range(len(samples))), golds, [sample[3] for sample in samples])
    return builder.corpus()


def _dialogue_list(data: object) -> list[tuple[str | None, object]]:
    """(key or None, dialogue) of an array of dialogues or an object of dialogues."""
    if isinstance(data, list):
        return [(None, dialogue) for dialogue in data]
    if isinstance(data, Mapping):
        return list(data.items())
    raise InputError(f"expected an array of dialogues {DIALOGUES}, got {describe(data)}")


def _user_states(dialogue_id: str, turns: object, field: str) -> dict[int, dict]:
    """{turn: state} of a unified dialogue's user turns, in utt_idx order."""
    if not isinstance(turns, list):
        raise InputError(f"turns must be an array, got {describe(turns)}", dialogue=dialogue_id, field=field)
    users = []
    for index, turn in enumerate(turns):
        where = f"{field}[{index}]"
        try:
            if not isinstance(turn, Mapping):
                raise InputError(f"a turn must be an object, got {describe(turn)}", field=where)
            if turn.get("speaker") != "user":
                continue
            if "state" not in turn:
                raise InputError("the user turn has no state", field=f"{where}.state")
            users.append((_utt_idx(turn, where), nested_state(turn["state"], f"{where}.state")))
        except InputError as error:
            raise error.located(dialogue=dialogue_id) from None
    if not users:
        raise InputError("the dialogue has no user turn", dialogue=dialogue_id, field=field)
    users.sort(key=lambda user: user[0])
    return {turn: state for turn, (_, state) in enumerate(users)}


def _fast_dialogues(dialogues: list) -> dict[str, dict[int, dict]]:
    """{dialogue id: {turn: state}} of decoded dialogues; anything needing a closer look raises NotCommon."""
    states: dict[str, dict[int, dict]] = {}
    for dialogue in dialogues:
        name = dialogue.original_id if dialogue.original_id is not _UNSET else dialogue.dialogue_id
        if name is _UNSET or not name or name in states:
            raise NotCommon
        states[name] = _fast_user_states(dialogue.turns)
    return states


def _fast_user_states(turns: list) -> dict[int, dict]:
    """{turn: state} of the user turns (utt_idx increasing, states checked; equal consecutive ones are one object)."""
    users = [turn for turn in turns if turn.speaker == "user"]
    steps = [turn.utt_idx for turn in users]
    if not users or any(step.__class__ is not int for step in steps):
        raise NotCommon
    if any(after <= before for before, after in zip([-1, *steps], steps)):
        raise NotCommon
    return dict(enumerate(_states([turn.state for turn in users])))


@without_gc
def read_dialogues(request: ReadRequest, side: str) -> Side:
    """The user-turn states of unified-format dialogues, for either side (see the module)."""
    dialogues = typed_decode(_DIALOGUES, request.data)
    if dialogues:
        try:
            return Side(_fast_dialogues(dialogues), request.source, unset=UNSET_VALUE)
        except NotCommon:
            pass
    return _read_dialogues(request, side)


def _read_dialogues(request: ReadRequest, side: str) -> Side:
    """`read_dialogues` for any shape: a problem raises InputError naming the dialogue and turn."""
    data = decode_object(request.data, request.source, None, id_levels=1, depth=1)
    states: dict[str, dict[int, dict]] = {}
    for position, (key, dialogue) in enumerate(_dialogue_list(data)):
        where = f"[{position}]" if key is None else f".{key}"
        if not isinstance(dialogue, Mapping) or "turns" not in dialogue:
            raise InputError(f'a dialogue must be an object with "turns", got {describe(dialogue)}', field=where)
        name_key = next((k for k in ("original_id", "dialogue_id") if k in dialogue), None)
        name = key if name_key is None else dialogue[name_key]
        dialogue_id = ids.dialogue_id(name, field=f"{where}.{name_key or 'dialogue_id'}")
        if dialogue_id in states:
            raise InputError("the dialogue id is used twice", dialogue=dialogue_id, field=where)
        states[dialogue_id] = _user_states(dialogue_id, dialogue["turns"], f"{where}.turns")
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


READER = Reader("convlab", f"ConvLab-3 DST predictions.json {SAMPLES}", sniff_samples, read_samples)
UNIFIED_READER = Reader(
    "convlab-unified", f"ConvLab-3 unified-format dialogues {DIALOGUES}", sniff_dialogues, read_side=read_dialogues
)
