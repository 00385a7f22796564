"""Turn-level state updates: accumulating them into cumulative states, and telling the two apart.

In an update a slot is removed by JSON ``null`` or ``"[DELETE]"`` (any case), the marker of IC-DST
(github Yushi-Hu/IC-DST) and RefPyDST (github jlab-nlp/RefPyDST). LDST's output, a value or
``NONE`` for every slot, is cumulative.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from .. import ids
from ..corpus import Corpus, Dialogue
from ..errors import InputError, describe
from ..states import DELETE_MARKER, is_deletion, is_scored_mapping

__all__ = [
    "DELETE_MARKER",
    "accumulate",
    "apply_update",
    "flat_update",
    "is_deletion",
    "looks_like_updates",
    "vanishing_share",
    "sample_looks_like_updates",
    "votes_say_updates",
    "watch",
]

FlatState = dict[str, object]


def flat_update(update: object, *, dialogue: object = None, turn: object = None) -> FlatState:
    """An update as ``{"domain-slot": value}``, deletions kept; InputError when it is not a mapping."""
    if not isinstance(update, Mapping):
        raise InputError(f"a state update must be an object, got {describe(update)}", dialogue=dialogue, turn=turn)
    flat: FlatState = {}
    for key, inner in update.items():
        if isinstance(inner, Mapping) and not is_scored_mapping(inner):
            for slot, value in inner.items():
                flat[f"{key}-{slot}"] = value
        else:
            flat[str(key)] = inner
    return flat


def apply_update(
    state: Mapping[str, object], update: object, *, dialogue: object = None, turn: object = None
) -> FlatState:
    """The state after one turn's update; an update that is not a mapping raises InputError."""
    new = dict(state)
    for slot, value in flat_update(update, dialogue=dialogue, turn=turn).items():
        if is_deletion(value):
            new.pop(slot, None)
        else:
            new[slot] = value
    return new


def _turn_order(dialogue_id: object, turns: Mapping) -> list:
    """The keys of {turn id: …} ordered by turn id."""
    return sorted(turns, key=lambda key: ids.turn_id(key, dialogue=dialogue_id, field=None))


def _accumulate_dialogue(dialogue_id: object, turns: object) -> list[FlatState] | dict[object, FlatState]:
    if isinstance(turns, Mapping):
        order = _turn_order(dialogue_id, turns)
    elif isinstance(turns, Sequence) and not isinstance(turns, str):
        order = range(len(turns))
    else:
        problem = f"a dialogue must be a list of updates or map turn ids to updates, got {describe(turns)}"
        raise InputError(problem, dialogue=dialogue_id)
    out: dict[object, FlatState] = {}
    state: FlatState = {}
    for key in order:
        state = out[key] = apply_update(state, turns[key], dialogue=dialogue_id, turn=key)
    return {key: out[key] for key in turns} if isinstance(turns, Mapping) else list(out.values())  # as given


def accumulate(updates_by_turn: Mapping[object, object]) -> dict[object, list[FlatState] | dict[object, FlatState]]:
    """Cumulative states from turn updates, applied per dialogue in turn order from the empty state.

    `updates_by_turn`: ``{dialogue_id: {turn_id: update}}`` or ``{dialogue_id: [update, ...]}``; the
    result has the same shape with flat states.

    >>> accumulate({"d": [{"hotel": {"area": "north"}}, {"hotel-stars": "4"}, {"hotel-area": None}]})
    {'d': [{'hotel-area': 'north'}, {'hotel-area': 'north', 'hotel-stars': '4'}, {'hotel-stars': '4'}]}
    """
    if not isinstance(updates_by_turn, Mapping):
        raise InputError(f"expected an object of dialogues, got {describe(updates_by_turn)}")
    return {name: _accumulate_dialogue(name, turns) for name, turns in updates_by_turn.items()}


MAJORITY = 0.5


def _dialogue_vanishes(gold: Sequence[Mapping] | None, pred: Sequence[Mapping]) -> bool | None:
    """Whether most predicted slots that gold keeps vanish at the next turn; None without any chance."""
    chances = vanished = 0
    for index in range(1, len(pred)):
        before, now = pred[index - 1], pred[index]
        for slot in before:
            if gold is not None and not (slot in gold[index - 1] and slot in gold[index]):
                continue
            chances += 1
            vanished += slot not in now
    return None if not chances else vanished > MAJORITY * chances


def vanishing_share(data: Corpus | Mapping[object, object]) -> float:
    """The share of dialogues whose predicted slots mostly vanish at the next turn (near 1 for updates)."""
    if isinstance(data, Corpus):
        sides = [(dialogue.gold, dialogue.pred) for dialogue in data.dialogues]
    else:
        sides = []
        for name, turns in data.items():
            if isinstance(turns, Mapping):
                turns = [turns[key] for key in _turn_order(name, turns)]
            sides.append((None, [flat_update(state, dialogue=name) for state in turns]))
    votes = [vote for gold, pred in sides if (vote := _dialogue_vanishes(gold, pred)) is not None]
    return sum(votes) / len(votes) if votes else 0.0


SAMPLE_DIALOGUES = 200
"""How many dialogues `watch` looks at: enough for a clear majority, cheap beside scoring."""


def watch(dialogues: Iterable[Dialogue], votes: list[bool], limit: int = SAMPLE_DIALOGUES) -> Iterator[Dialogue]:
    """The dialogues, unchanged, the first `limit` adding their vote to `votes`."""
    seen = 0
    for dialogue in dialogues:
        if seen < limit:
            seen += 1
            vote = _dialogue_vanishes(dialogue.gold, dialogue.pred)
            if vote is not None:
                votes.append(vote)
        yield dialogue


def votes_say_updates(votes: Sequence[bool]) -> bool:
    """Whether most dialogues' votes say their predictions look like updates."""
    return bool(votes) and sum(votes) > MAJORITY * len(votes)


def sample_looks_like_updates(dialogues: Iterable[Dialogue]) -> bool:
    """Whether the `watch` votes say the predictions look like turn updates."""
    votes: list[bool] = []
    for seen, _ in enumerate(watch(dialogues, votes), start=1):
        if seen == SAMPLE_DIALOGUES:
            break
    return votes_say_updates(votes)


UPDATES_WARNING = (
    "predicted slots that gold keeps vanish from one turn to the next in most dialogues: if these "
    "predictions are turn updates, score them with --prediction-states updates"
)
"""The one-line warning printed when cumulative predictions look like updates."""


def looks_like_updates(data: Corpus | Mapping[object, object]) -> bool:
    """Whether predictions look like turn updates: `vanishing_share` above one half."""
    return vanishing_share(data) > MAJORITY
