"""The reference scorer: the official call order, one `stats` object per (component, stat family).

Slow and literal (DSTC2.md section 5): every turn, every stat object of every (schedule, scheme,
component) receives its ``add`` calls in the official order. `dst_metrics.dstc2.scorer` computes the
same rows column-wise and is tested against this one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .components import Row, evaluations, rows_of
from .prepare import ABSENT_REQUESTED, STOP_AT_INDEPENDENT, STOP_BEFORE_ADDS, PreparedSession, Turn, joint_label
from .stats import Stat, new_stats

Call = tuple[Any, Any, bool]
"""(distribution, true label, independent)."""


class _IndependentStop(Exception):
    pass


def _goal_calls(turn: Turn, slots: list[str], schedule: int, scheme: str) -> Iterator[Call]:
    labels = turn.goal_a if scheme == "a" else turn.goal_b
    for slot in slots:
        if schedule == 2 and slot not in turn.schedule2.goal_slots:
            continue
        yield turn.goal[slot], labels.get(slot), False


def _requested_calls(turn: Turn, slots: list[str], schedule: int) -> Iterator[Call]:
    for slot in slots:
        if schedule == 2 and slot not in turn.schedule2.requested:
            continue
        yield turn.requested.get(slot, ABSENT_REQUESTED), slot in turn.requested_a, False


def _method_calls(turn: Turn, schedule: int, scheme: str) -> Iterator[Call]:
    if schedule == 1 or turn.schedule2.method:
        yield turn.method, (turn.method_a if scheme == "a" else turn.method_b), False


def _joint_calls(turn: Turn, kind: str, schedule: int, scheme: str, first_pass: bool) -> Iterator[Call]:
    if schedule == 2 and not turn.schedule2.goal_slots:
        return
    label = joint_label(turn.goal_a if scheme == "a" else turn.goal_b)
    if turn.joint is not None and kind == "joint":
        yield turn.joint, label, False
        return
    if turn.stop == STOP_AT_INDEPENDENT and first_pass:
        raise _IndependentStop
    yield turn.goal, label, True


def calls(turn: Turn, evaluation: tuple[int, str, str], slots: tuple[list[str], list[str]]) -> Iterator[Call]:
    """The ``add`` calls one component's stat objects receive for this turn, in order."""
    schedule, scheme, component = evaluation
    informable, requestable = slots
    head, _, tail = component.partition(".")
    first_pass = schedule == 1 and scheme == "a"
    if head == "goal" and tail in ("joint", "joint_independent"):
        yield from _joint_calls(turn, tail, schedule, scheme, first_pass)
    elif head == "goal":
        yield from _goal_calls(turn, informable if tail == "all" else [tail], schedule, scheme)
    elif head == "requested":
        yield from _requested_calls(turn, requestable if tail == "all" else [tail], schedule)
    elif head == "method":
        yield from _method_calls(turn, schedule, scheme)
    else:
        yield from _goal_calls(turn, informable, schedule, scheme)
        yield from _requested_calls(turn, requestable, schedule)
        yield from _method_calls(turn, schedule, scheme)


def score_reference(
    sessions: list[PreparedSession], informable: list[str], requestable: list[str]
) -> tuple[list[Row], int]:
    """The metric rows and the number of scored turns, by the official procedure."""
    plan = [(evaluation, new_stats()) for evaluation in evaluations(informable, requestable)]
    turns = 0
    for session in sessions:
        for _, stats in plan:
            for stat in stats:
                stat.new_dialog()
        for turn in session.turns:
            turns += 1
            if turn.stop == STOP_BEFORE_ADDS:
                break
            if not _score_turn(turn, plan, (informable, requestable)):
                break
    rows: list[Row] = []
    for evaluation, stats in plan:
        results: dict[str, float | None] = {}
        for stat in stats:
            results.update(stat.results())
        rows += rows_of(evaluation, stats[0].n, results)
    return rows, turns


def _score_turn(turn: Turn, plan: list[tuple[tuple[int, str, str], list[Stat]]], slots: Any) -> bool:
    for evaluation, stats in plan:
        for stat in stats:
            try:
                for dist, label, independent in calls(turn, evaluation, slots):
                    stat.add(dist, label, independent=independent)
            except _IndependentStop:
                return False
    return True
