"""Checking a tracker output file against the data, as the official ``check_track.py`` does, with places.

`check_track` raises `InputError` for what cannot be scored at all (a wrong JSON type where the scorer
reads, a score that is not a finite number) and returns a `Problem` for each thing ``check_track.py``
reports but the official scorer still scores (counts or ids that differ from the data, scores outside
[0, 1], unknown slots and values, ...). With ``strict=True`` the first problem is raised.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .._gc import without_gc
from ..errors import InputError, describe
from .data import Ontology, Session

SCORE_TOLERANCE = 1.00000001
"""check_track.py: a single goal or method score above this is 'more than 1'."""
REQUESTED_TOLERANCE = 1.0000001
"""check_track.py: a requested-slot score above this is 'more than 1'."""
TOTAL_TOLERANCE = 1.000001
"""check_track.py: a distribution whose scores sum above this sums to 'more than 1'."""
DONTCARE = "dontcare"
TURN_KEYS = ("goal-labels", "requested-slots", "method-label")


@dataclass(frozen=True)
class Problem:
    """A located warning: the official scorer goes on (or skips the session), ``check_track.py`` complains."""

    problem: str
    session: str | None = None
    turn: int | None = None
    field: str | None = None

    def error(self, source: str | None = None) -> InputError:
        """The same problem as an `InputError` (``--strict``)."""
        return InputError(self.problem, dialogue=self.session, turn=self.turn, field=self.field, source=source)

    def __str__(self) -> str:
        return str(self.error())


def _is_score(value: object) -> bool:
    kind = type(value)
    if kind is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    return kind is int or (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value))


class _Checker:
    def __init__(self, ontology: Ontology | None, source: str | None) -> None:
        self.ontology = ontology
        informable = {} if ontology is None else ontology.informable
        self.known_values = {
            slot: {v for v in values if isinstance(v, str)} | {DONTCARE} for slot, values in informable.items()
        }
        """Informable slot -> its string values and dontcare (hypotheses are strings: one set lookup each)."""
        self.methods = set() if ontology is None else set(ontology.methods)
        self.requestable = set() if ontology is None else set(ontology.requestable)
        self.source = source
        self.problems: list[Problem] = []
        self.session: str | None = None
        self.turn: int | None = None

    def fail(self, problem: str, field: str | None = None) -> InputError:
        return InputError(problem, dialogue=self.session, turn=self.turn, field=field, source=self.source)

    def warn(self, problem: str, field: str | None = None) -> None:
        self.problems.append(Problem(problem, self.session, self.turn, field))

    def object_of(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"expected an object, found {describe(value)}", field)
        return value

    def distribution(self, scores: Any, field: str, known: set[Any] | None, unknown: str) -> None:
        """A {hypothesis: score} object: finite numbers (else error), in [0, 1] summing to <= 1 (else warning)."""
        for key, score in self.object_of(scores, field).items():
            self.score(score, f"{field}.{key}", SCORE_TOLERANCE)
            if known is not None and key not in known:
                self.warn(f"{unknown} {key!r}", f"{field}.{key}")
        total = sum(scores.values())
        if total > TOTAL_TOLERANCE:
            self.warn(f"the scores sum to {total:.6g}, more than 1 (the scorer renormalises them)", field)

    def score(self, score: Any, field: str, tolerance: float) -> None:
        if not _is_score(score):
            raise self.fail(f"a score must be a finite number, found {describe(score)}", field)
        if score < 0.0:
            self.warn(f"the score {score!r} is negative (the scorer keeps it)", field)
        elif score > tolerance:
            self.warn(f"the score {score!r} is more than 1", field)

    def turn_object(self, turn: Any) -> None:
        turn = self.object_of(turn, "turn")
        for key in TURN_KEYS:
            if key not in turn:
                self.warn(f"no {key!r} key: the official scorer skips the rest of this session", key)
        if "method-label" in turn:
            self.distribution(turn["method-label"], "method-label", self.methods, "unknown method")
        if "requested-slots" in turn:
            self.requested(turn["requested-slots"])
        if "goal-labels" in turn:
            self.goal_labels(turn["goal-labels"])
        if "goal-labels-joint" in turn:
            self.joint(turn["goal-labels-joint"])

    def requested(self, requested: Any) -> None:
        for slot, score in self.object_of(requested, "requested-slots").items():
            field = f"requested-slots.{slot}"
            if slot not in self.requestable:
                self.warn(f"unknown requested slot {slot!r}", field)
            self.score(score, field, REQUESTED_TOLERANCE)

    def goal_labels(self, goal_labels: Any) -> None:
        for slot, scores in self.object_of(goal_labels, "goal-labels").items():
            field = f"goal-labels.{slot}"
            known = self.known_values.get(slot)
            if known is None:
                self.object_of(scores, field)
                self.warn(f"slot {slot!r} is not informable: the official scorer skips the rest of this session", field)
                continue
            self.distribution(scores, field, known, f"unknown value of {slot}:")

    def joint(self, hyps: Any) -> None:
        if not isinstance(hyps, list):
            raise self.fail(f"expected an array of hypotheses, found {describe(hyps)}", "goal-labels-joint")
        total = 0.0
        for index, hyp in enumerate(hyps):
            field = f"goal-labels-joint[{index}]"
            hyp = self.object_of(hyp, field)
            if "slots" not in hyp or "score" not in hyp:
                raise self.fail("a joint hypothesis needs 'slots' and 'score'", field)
            self.score(hyp["score"], f"{field}.score", SCORE_TOLERANCE)
            total += hyp["score"]
            for slot, value in self.object_of(hyp["slots"], f"{field}.slots").items():
                self.joint_value(slot, value, f"{field}.slots.{slot}")
        if total > TOTAL_TOLERANCE:
            self.warn(f"the scores sum to {total:.6g}, more than 1 (the scorer renormalises them)", "goal-labels-joint")

    def joint_value(self, slot: str, value: Any, field: str) -> None:
        if not isinstance(value, str):
            raise self.fail(f"a slot value must be a string, found {describe(value)}", field)
        known = self.known_values.get(slot)
        if known is None:
            self.warn(f"slot {slot!r} is not informable", field)
        elif value not in known:
            self.warn(f"unknown value of {slot}: {value!r}", field)


@without_gc
def check_track(
    track: dict[str, Any],
    sessions: list[Session],
    ontology: Ontology,
    dataset: str | None = None,
    *,
    source: str | None = None,
    strict: bool = False,
) -> list[Problem]:
    """Check `track` against the data; the problems found (`InputError` for what cannot be scored)."""
    problems = check_top(track, len(sessions), dataset, source=source)
    problems += check_share(track["sessions"], sessions, ontology, 0, source=source)
    if strict and problems:
        raise problems[0].error(source)
    return problems


def check_top(
    track: dict[str, Any], n_sessions: int, dataset: str | None, *, source: str | None = None
) -> list[Problem]:
    """The file-wide checks of `check_track` (type of ``sessions``, ``dataset``, ``wall-time``, counts)."""
    checker = _Checker(None, source)  # the ontology is not read here
    tracked = track.get("sessions")
    if not isinstance(tracked, list):
        raise checker.fail(f"'sessions' must be an array, found {describe(tracked)}", "sessions")
    if "dataset" not in track:
        checker.warn("the track file does not name its dataset", "dataset")
    elif dataset is not None and track["dataset"] != dataset:
        checker.warn(f"the dataset {track['dataset']!r} is not {dataset!r}", "dataset")
    wall = track.get("wall-time")
    if wall is None:
        checker.warn("no wall-time", "wall-time")
    elif not _is_score(wall):
        raise checker.fail(f"wall-time must be a number, found {describe(wall)}", "wall-time")
    elif wall <= 0:
        checker.warn("wall-time must be positive", "wall-time")
    if len(tracked) != n_sessions:
        checker.warn(f"{len(tracked)} sessions, the data has {n_sessions} (scored by position up to the shorter)")
    return checker.problems


def check_share(
    tracked: list[Any], sessions: list[Session], ontology: Ontology, start: int, *, source: str | None = None
) -> list[Problem]:
    """The per-session checks of `check_track` for ``sessions[i]`` against ``tracked[start + i]``."""
    checker = _Checker(ontology, source)
    for position, session in enumerate(sessions, start):
        if position >= len(tracked):
            break
        checker.session, checker.turn = session.session_id, None
        tracked_session = checker.object_of(tracked[position], f"sessions[{position}]")
        if tracked_session.get("session-id") != session.session_id:
            found = describe(tracked_session.get("session-id"))
            checker.warn(f"session {position} of the track file is {found} (matched by position)", "session-id")
        turns = tracked_session.get("turns")
        if not isinstance(turns, list):
            raise checker.fail(f"'turns' must be an array, found {describe(turns)}", "turns")
        if len(turns) != len(session):
            checker.warn(f"{len(turns)} turns, the data has {len(session)} (scored up to the shorter)")
        for number, turn in enumerate(turns[: len(session)]):
            checker.turn = number
            checker.turn_object(turn)
    return checker.problems
