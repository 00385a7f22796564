"""Turn preparation shared by both scorers: the tracker's distributions and the turn's labels (sections 2-4).

`prepare_session` zips a session with its tracker output by position (the official scorer never
compares session ids) and returns one `Turn` per scored turn, the labels of both schemes, the
schedule-2 state, and where and why the official scorer would stop scoring the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .data import Ontology, Session
from .labels import Schedule2, SessionSkip, labels_b, schedule2
from .stats import Dist, normalise_dist

ABSENT_REQUESTED: Dist = [(False, 1.0), (True, 0.0)]
"""The distribution of a requestable slot the tracker leaves out (no None entry)."""
ABSENT_GOAL: Dist = [(None, 1.0)]
"""The distribution of an informable slot the tracker leaves out."""

STOP_BEFORE_ADDS = "prepare"
"""`Turn.stop`: the official scorer fails while preparing this turn (no stat sees it)."""
STOP_AT_INDEPENDENT = "independent"
"""`Turn.stop`: it fails at the first independent-joint call (schedule 1, scheme a)."""


@dataclass
class Turn:
    """One scored turn: the tracker's prepared distributions, the labels and the schedule-2 state."""

    goal: dict[str, Dist]
    """Informable slot -> distribution, in the independent joint's order (tracker key order, then the rest)."""
    joint: Dist | None
    """The tracker's joint distribution, or None: the joint of this turn is the independent product."""
    requested: dict[str, Dist]
    method: Dist
    goal_a: dict[str, Any]
    goal_b: dict[str, Any]
    requested_a: frozenset[Any]
    method_a: Any
    method_b: Any
    schedule2: Schedule2
    stop: str | None = None
    """None, or where the official scorer raises in this turn (`STOP_BEFORE_ADDS`, `STOP_AT_INDEPENDENT`)."""


@dataclass
class PreparedSession:
    """The scored turns of one session and, if the official scorer stops early, why."""

    session_id: str
    turns: list[Turn]
    skip_reason: str | None = None
    skip_turn: int | None = None


def _tracker_parts(tracker_turn: dict[str, Any], ontology: Ontology) -> tuple[Any, str | None]:
    missing = [key for key in ("goal-labels", "requested-slots", "method-label") if key not in tracker_turn]
    if missing:
        return None, f"no {missing[0]!r} key"
    goal_labels, informable = tracker_turn["goal-labels"], ontology.informable
    goal = {slot: normalise_dist(list(scores.items())) for slot, scores in goal_labels.items() if slot in informable}
    for slot in informable:
        goal.setdefault(slot, ABSENT_GOAL)
    joint = None
    if "goal-labels-joint" in tracker_turn:
        joint = normalise_dist([(hyp["slots"], hyp["score"]) for hyp in tracker_turn["goal-labels-joint"]])
    requested = {r: normalise_dist([(True, p), (False, 1.0 - p)]) for r, p in tracker_turn["requested-slots"].items()}
    method = normalise_dist(list(tracker_turn["method-label"].items()))
    unknown = next((slot for slot in goal_labels if slot not in informable), None)
    problem = None if unknown is None else f"goal-labels slot {unknown!r} is not informable"
    return (goal, joint, requested, method), problem


def prepare_session(session: Session, tracker_turns: list[Any], ontology: Ontology) -> PreparedSession:
    """The turns the official scorer scores in this session, with their labels and distributions."""
    prepared = PreparedSession(session.session_id, [])
    try:
        goals_b, methods_b = labels_b(session, ontology)
    except SessionSkip as skip:
        prepared.skip_reason, prepared.skip_turn = str(skip), 0
        return prepared
    states, schedule_failure = schedule2(session, ontology)
    for number, (_, label_turn, tracker_turn) in enumerate(zip(session.log_turns, session.label_turns, tracker_turns)):
        if number >= len(states):  # the log data fails here: the turn is counted, nothing scored
            turn, stop = _empty_turn(states[-1] if states else None), schedule_failure
        else:
            parts, problem = _tracker_parts(tracker_turn, ontology)
            stop = None if problem is None else f"turn {number}: {problem}"
            if parts is None:
                turn = _empty_turn(states[number])
            else:
                labels = (dict(label_turn.goal_labels), goals_b[number], frozenset(label_turn.requested_slots))
                turn = Turn(*parts, *labels, label_turn.method_label, methods_b[number], states[number])
                turn.stop = None if problem is None else STOP_AT_INDEPENDENT
        prepared.turns.append(turn)
        if stop is not None:
            prepared.skip_reason, prepared.skip_turn = stop, number
            break
    return prepared


def _empty_turn(state: Schedule2 | None) -> Turn:
    empty = state or Schedule2(frozenset(), frozenset(), False)
    return Turn({}, None, {}, [], {}, {}, frozenset(), None, None, empty, stop=STOP_BEFORE_ADDS)


def joint_label(goal: dict[str, Any]) -> dict[str, Any] | None:
    """The true joint: the goal labels as a dict, or None when there are none."""
    return dict(goal) if goal else None
