"""Validating and normalizing the turns of a corpus, once, before any figure is computed.

`CorpusBuilder` turns raw states (any shape `normalize_state` accepts, or raw JSON bytes that
readers keep undecoded) into normalized ones, dialogue after dialogue. Consecutive turns whose
input state is unchanged share one state object, and so does a prediction equal to its gold
state, so the scorer can tell an unchanged turn by identity.

Value matching ``fuzzy`` folds case and white space as ``normalized`` does and then *snaps*
predictions: once both sides of a dialogue are normalized, a predicted value that matches the gold
value of the same slot in the same turn fuzzily (`fuzzy.fuzzy_match`: fuzzywuzzy's ``partial_ratio`` above
95, mwzeval's rule, so a substring matches: "chinese food" and "chinese") is replaced by that gold
value, or by the acceptable value it matches. Every figure then sees an exact match, GCA included,
and the hot loop is unchanged. Inactive values (``none``, ``""``) never snap or get snapped to.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .corpus import Corpus, Dialogue
from .errors import InputError
from .fuzzy import fuzzy_match
from .options import parse_value_matching
from .states import (
    INACTIVE_VALUES,
    Alternatives,
    LinearizedFormat,
    State,
    Value,
    normalize_state,
    plain_state,
    values_match,
)

try:  # msgspec parses JSON fast and can keep each state as raw bytes until it is needed
    import msgspec as _msgspec
except ImportError:  # pragma: no cover - exercised only where msgspec is missing
    _msgspec = None

_RAW = None if _msgspec is None else _msgspec.Raw
_DECODE = None if _msgspec is None else _msgspec.json.decode
GOLD_FIELD = "gt"
PRED_FIELD = "pr"


def text_matching(matching: str) -> str:
    """How each value's text is folded under a value matching: ``fuzzy`` folds as ``normalized``."""
    return "normalized" if matching == "fuzzy" else matching


def _snapped_value(gold: Value, pred: str) -> str | None:
    """The gold value (or the first acceptable value) `pred` matches fuzzily; None if none does."""
    if pred in INACTIVE_VALUES:
        return None
    for option in gold.order if gold.__class__ is Alternatives else (gold,):
        if option not in INACTIVE_VALUES and fuzzy_match(option, pred):
            return option
    return None


def snap_prediction(gold: State, pred: State) -> State:
    """`pred` with each value that fuzzily matches the gold value of its slot replaced by that gold
    value; `pred` itself when nothing changes."""
    snapped = None
    for slot, value in pred.items():
        gold_value = gold.get(slot)
        if gold_value is None or values_match(gold_value, value):
            continue
        option = _snapped_value(gold_value, value)
        if option is not None:
            if snapped is None:
                snapped = dict(pred)
            snapped[slot] = option
    return pred if snapped is None else snapped


def snap_dialogue(golds: list, preds: list) -> list:
    """`snap_prediction` for each turn of a dialogue; turns that are unchanged on both sides, or
    whose snapped state equals the previous one, share one state object (as built states do)."""
    out: list = []
    previous_gold = previous_pred = previous = None
    for gold, pred in zip(golds, preds):
        if not (gold is previous_gold and pred is previous_pred):
            snapped = snap_prediction(gold, pred)
            previous = previous if snapped is not previous and snapped == previous else snapped
            previous_gold, previous_pred = gold, pred
        out.append(previous)
    return out


def snap_dialogues(dialogues: tuple[Dialogue, ...]) -> tuple[Dialogue, ...]:
    """Dialogues whose predictions are snapped to gold (`snap_dialogue`), for corpora built without
    `CorpusBuilder` (the `evaluate` modules' rows)."""
    return tuple(Dialogue(d.dialogue_id, d.turn_ids, d.gold, tuple(snap_dialogue(d.gold, d.pred))) for d in dialogues)


def decode_raw(raw: object) -> object:
    """A state kept as raw JSON (msgspec.Raw), decoded; anything else as it is."""
    if _msgspec is None or type(raw) is not _msgspec.Raw:
        return raw
    try:
        return _msgspec.json.decode(raw)
    except UnicodeDecodeError:
        raise InputError("the state is not UTF-8 text") from None
    except _msgspec.DecodeError as error:  # e.g. 1e400: valid JSON, but no float holds it
        problem = "a number too large for a float" if "out of range" in str(error) else str(error)
        raise InputError(f"the state holds {problem}") from None


_SHARD: tuple[int, int, list[int]] | None = None  # (k, n, positions kept): see `sharded`


@contextmanager
def sharded(k: int, n: int) -> Iterator[list[int]]:
    """Within the block, every `CorpusBuilder` of this process keeps only the dialogues whose
    position (in the order they are added) is k modulo n, skipping the others before any work, and
    the list yielded collects the positions kept (`dst_metrics.parallel` runs one process per share
    of a file and puts the dialogues back in order with them)."""
    global _SHARD
    positions: list[int] = []
    previous, _SHARD = _SHARD, (k, n, positions)
    try:
        yield positions
    finally:
        _SHARD = previous


class CorpusBuilder:
    """Normalizes the turns of one dialogue after another; `corpus()` checks and returns them."""

    def __init__(
        self,
        value_matching: str = "exact",
        linearized: LinearizedFormat | None = None,
        *,
        flat: tuple[bool, bool] = (False, False),
        unset: tuple[str | None, str | None] = (None, None),
    ) -> None:
        """`flat`, for gold and for predictions: whether every input state is a flat dict of the
        caller's own, used as it is when its values are all strings (`readers.base.Side.flat`).
        `unset`, for gold and for predictions: the value the format writes for an unset slot
        (ConvLab-3's ``""``), dropped from the states, or None; the gold slots listed are kept in
        `Corpus.listed_gold_slots`."""
        self.flat = flat
        self.unset = unset
        self.shard = _SHARD
        self.added = 0  # dialogues given to `add`, kept or not (sharded)
        self.listed: set[str] | None = set() if unset[0] is not None else None
        self.matching = parse_value_matching(value_matching)
        self.folding = text_matching(self.matching)
        self.linearized = linearized
        self.slot_names: dict = {}  # see plain_state
        self.dialogues: list[Dialogue] = []
        self.scores = None  # calibration.extract.ScoredPredictions, once a predicted value has a confidence

    def add(self, dialogue_id: str, turn_ids: list[int], golds: list, preds: list) -> None:
        """Validate and normalize one dialogue; turns are put in the order of their ids."""
        if self.shard is not None:
            position, self.added = self.added, self.added + 1
            if position % self.shard[1] != self.shard[0]:
                return
            self.shard[2].append(position)
        if not turn_ids:
            raise InputError("the dialogue has no turns", dialogue=dialogue_id)
        if any(after <= before for before, after in zip(turn_ids, turn_ids[1:])):
            order = sorted(range(len(turn_ids)), key=turn_ids.__getitem__)
            turn_ids = [turn_ids[i] for i in order]
            golds = [golds[i] for i in order]
            preds = [preds[i] for i in order]
            for before, after in zip(turn_ids, turn_ids[1:]):
                if before == after:
                    raise InputError("the turn id is used twice", dialogue=dialogue_id, turn=after)
        gold = pred = gold_plain = None
        if self.matching == "exact" and self.unset == (None, None):
            gold = self._raw_side(golds)
            if gold is not None:
                pred = self._raw_side(preds, golds, gold)
        if gold is None:
            gold, gold_plain = self._side(dialogue_id, turn_ids, golds, GOLD_FIELD, True)
        if pred is None:  # gold_plain is None where `_raw_side` built gold: states of strings only
            twin = (golds, gold, gold_plain or [True] * len(gold))
            pred, _ = self._side(dialogue_id, turn_ids, preds, PRED_FIELD, False, twin)
        if self.matching == "fuzzy":
            pred = snap_dialogue(gold, pred)
        self.dialogues.append(Dialogue(dialogue_id, tuple(turn_ids), tuple(gold), tuple(pred)))

    def corpus(self) -> Corpus:
        """The dialogues added so far; an empty corpus or a repeated dialogue id is an InputError."""
        if not self.dialogues and not (self.shard is not None and self.added):  # a share may be empty
            raise InputError("the corpus is empty: there is no dialogue to score")
        seen = set()
        for dialogue in self.dialogues:
            if dialogue.dialogue_id in seen:
                raise InputError("the dialogue id is used twice", dialogue=dialogue.dialogue_id)
            seen.add(dialogue.dialogue_id)
        listed = None if self.listed is None else frozenset(self.listed)
        return Corpus(tuple(self.dialogues), self.matching, listed_gold_slots=listed, scores=self.scores)

    def _side(
        self,
        dialogue_id: str,
        turn_ids: list[int],
        raws: list,
        field: str,
        gold: bool,
        twin: tuple[list, list, list] | None = None,
    ) -> tuple[list, list]:
        """Normalized states of one side, and for each turn whether its input held only strings.

        An input equal to the previous turn's, or (for predictions) to the gold input of the same
        turn, reuses that state object; `==` on inputs of strings only means equal states. Raw
        JSON (msgspec.Raw) is compared as bytes and decoded only when it differs.
        """
        states: list = []
        plains: list = []
        previous_raw = previous = None
        plain = False
        exact = self.matching == "exact"
        unset = self.unset[0 if gold else 1]
        if self.unset[0] != self.unset[1]:
            twin = None  # a prediction equal to its gold input may still read differently
        twin_raws, twin_states, twin_plains = twin if twin is not None else (None, None, None)
        for index, (turn_id, raw) in enumerate(zip(turn_ids, raws)):
            if plain and (raw is previous_raw or raw == previous_raw):
                states.append(previous)
                plains.append(True)
                continue
            previous_raw = raw
            if twin is not None and twin_plains[index] and raw == twin_raws[index]:
                previous = twin_states[index]
                plain = True
            else:
                previous, plain = self._state(dialogue_id, turn_id, raw, field, gold, exact)
                if unset is not None:
                    previous = self._without_unset(previous, unset, gold)
            states.append(previous)
            plains.append(plain)
        return states, plains

    def _raw_side(self, raws: list, twin_raws: list | None = None, twin_states: list | None = None) -> list | None:
        """`_side` for the common case, in one loop: raw JSON (msgspec.Raw) states of strings in flat or
        nested objects (`plain_state`). None as soon as a state is anything else (`_side` reads it all
        and names any problem); a prediction whose bytes equal its gold state's reuses that state."""
        states: list = []
        previous_raw = previous = None
        decode = _DECODE
        slot_names = self.slot_names
        for index, raw in enumerate(raws):
            if raw == previous_raw:
                states.append(previous)
                continue
            if type(raw) is not _RAW:
                return None
            previous_raw = raw
            if twin_raws is not None and raw == twin_raws[index]:
                previous = twin_states[index]
            else:
                try:
                    nested = decode(raw)
                except Exception:  # noqa: BLE001 - `_side` decodes it again and names the problem
                    return None
                previous = plain_state(nested, slot_names) if type(nested) is dict else None
                if previous is None:
                    return None
            states.append(previous)
        return states

    def _without_unset(self, state: State, unset: str, gold: bool) -> State:
        if gold:
            self.listed.update(state)
        return {slot: value for slot, value in state.items() if value != unset} if unset in state.values() else state

    def _state(self, dialogue_id: str, turn_id: int, raw: object, field: str, gold: bool, exact: bool):
        try:
            if type(raw) is _RAW:
                raw = decode_raw(raw)
            if self.flat[0 if gold else 1] and exact and all(type(value) is str for value in raw.values()):
                return raw, True
            state = plain_state(raw, self.slot_names) if exact and type(raw) is dict else None
            if state is not None:
                return state, True
            state = normalize_state(raw, gold=gold, matching=self.folding, field=field, linearized=self.linearized)
        except InputError as error:
            state = None if gold or type(raw) is _RAW else self._scored_state(dialogue_id, turn_id, raw, field)
            if state is None:
                raise error.located(dialogue=dialogue_id, turn=turn_id, field=error.field or field) from None
        return state, False

    def _scored_state(self, dialogue_id: str, turn_id: int, raw: object, field: str) -> State | None:
        """The plain (top-value) state of a prediction whose values carry confidences, their hypotheses
        kept in `self.scores` (`calibration.extract`); None when no value of `raw` has one."""
        from .calibration.extract import ScoredPredictions, split_scored_state

        try:
            split = split_scored_state(raw, field, self.folding)
            if split is None:
                return None
            folding, linearized = self.folding, self.linearized
            state = normalize_state(split[0], gold=False, matching=folding, field=field, linearized=linearized)
        except InputError as error:
            raise error.located(dialogue=dialogue_id, turn=turn_id, field=error.field or field) from None
        if self.scores is None:
            self.scores = ScoredPredictions()
        self.scores.add_turn(dialogue_id, turn_id, split[1])
        return state
