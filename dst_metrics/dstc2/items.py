"""The official scorer's ``add`` calls as items, in plain Python, for the column-wise scorer
(`dst_metrics.dstc2.fast`) and the calibration figures (`dst_metrics.calibration.metrics`).

Every turn yields one item per column (each informable and requestable slot, the method, the joint,
the independent joint) and label scheme, its quantities in `FIELDS`. A `TablePart` holds the items of
consecutive sessions in `array` buffers, so a worker process never imports numpy and parts pickle as bytes.
"""

from __future__ import annotations

from array import array
from itertools import chain
from typing import Any

from .prepare import (
    ABSENT_GOAL,
    ABSENT_REQUESTED,
    STOP_AT_INDEPENDENT,
    STOP_BEFORE_ADDS,
    PreparedSession,
    Turn,
    joint_label,
)
from .stats import Dist

FIELDS = ("correct", "score", "p", "l2", "l2b", "rr", "top", "label")
"""The per-item quantities, in the order `plain_item` returns them."""
NONE_ID = 0
"""The interned id of the None hypothesis (the previous top at the start of a session)."""


def _intern(ids: dict[Any, int], hyp: Any) -> int:
    """`hyp` as a small integer: equal ids exactly when the hypotheses are equal (``==``)."""
    key = frozenset(hyp.items()) if type(hyp) is dict else hyp
    found = ids.get(key)
    if found is None:
        found = ids[key] = len(ids)
    return found


def new_ids() -> dict[Any, int]:
    """The interned ids before any item: None, False and True."""
    return {None: NONE_ID, False: 1, True: 2}


def plain_item(dist: Dist, label: Any, ids: dict[Any, int], *, joint: bool = False) -> tuple:
    """The item (`FIELDS`) of one official ``add(dist, label)`` call on a plain distribution:
    docs/dstc2.md, rule 6 (``p`` is the last match's score, ``rr`` the first match's rank); with `joint`, the
    tracker's joint list, whose dict hypotheses compare as dicts and are interned as frozensets of their
    items."""
    top, top_score = dist[0]
    p = 0.0
    rr = 0.0
    others = others_sq = 0
    for index, (hyp, score) in enumerate(dist):
        if hyp == label:
            p = score
            if not rr:
                rr = 1.0 / (1.0 + index)
        else:
            others += score
            others_sq += score**2
    miss = (1 - p) ** 2
    if joint:
        top = None if top is None else frozenset(top.items())
        label = None if label is None else frozenset(label.items())
    top_id = ids.get(top)
    if top_id is None:
        top_id = ids[top] = len(ids)
    label_id = ids.get(label)
    if label_id is None:
        label_id = ids[label] = len(ids)
    return top == label, top_score, p, miss + others_sq, miss + others**2, rr, top_id, label_id


def independent_item(dists: dict[str, Dist], label: Any, ids: dict[Any, int]) -> tuple:
    """The item of one call on the independent joint ``{slot: plain distribution}``: its top is the dict
    of the slots' non-None tops (None if none) scored the product of the tops; a slot the label lacks
    must be None; ``rr`` is 1/Π(1 + each slot's rank), 0 if a slot misses; one pass over the slots."""
    top: dict[str, Any] | None = None
    top_score = p = squares_product = rank = 1.0
    ranked = True
    for slot, dist in dists.items():
        wanted = None if label is None else label.get(slot)  # a slot the label lacks must be None
        if dist is ABSENT_GOAL:  # [(None, 1.0)]: top None, score 1; right only when None is wanted
            if wanted is not None:
                p *= 0.0
                ranked = False
            continue
        first_hyp, first_score = dist[0]
        if first_hyp is not None:
            if top is None:
                top = {}
            top[slot] = first_hyp
        top_score *= first_score
        p_slot = 0.0
        squares = 0
        position = -1
        for index, (hyp, score) in enumerate(dist):
            if hyp == wanted:
                p_slot = score
                if position < 0:
                    position = index
            squares += score**2
        p *= p_slot
        squares_product *= squares
        if position < 0:
            ranked = False
        else:
            rank *= 1 + position
    miss = (1 - p) ** 2
    rr = 1.0 / rank if ranked else 0.0
    return (
        top == label,
        top_score,
        p,
        miss + (squares_product - p**2),
        miss + miss,
        rr,
        _intern(ids, top),
        _intern(ids, label),
    )


_EMPTY_ITEM = (False, 0.0, 0.0, 0.0, 0.0, 0.0, NONE_ID, NONE_ID)


class Columns:
    """The column layout: informable slots, requestable slots, method, joint, independent joint; so
    every component's columns are one contiguous range, in call order within a turn."""

    def __init__(self, informable: list[str], requestable: list[str]) -> None:
        self.informable = informable
        self.requestable = requestable
        self.first_requested = len(informable)
        self.method = self.first_requested + len(requestable)
        self.joint = self.method + 1
        self.independent = self.joint + 1
        self.width = self.independent + 1

    def of(self, component: str) -> slice:
        """The columns a component's calls come from, in call order within a turn."""
        head, _, tail = component.partition(".")
        if head == "goal":
            if tail in ("all", "joint", "joint_independent"):
                return {"all": slice(0, self.first_requested), "joint": self._one(self.joint)}.get(
                    tail, self._one(self.independent)
                )
            return self._one(self.informable.index(tail))
        if head == "requested":
            if tail == "all":
                return slice(self.first_requested, self.method)
            return self._one(self.first_requested + self.requestable.index(tail))
        if head == "method":
            return self._one(self.method)
        return slice(0, self.method + 1)  # all: goals, requested slots, method

    @staticmethod
    def _one(column: int) -> slice:
        return slice(column, column + 1)


def _joint_item(turn: Turn, label: Any, ids: dict[Any, int]) -> tuple[tuple, tuple]:
    """(goal.joint item, goal.joint_independent item) of a turn under a joint label."""
    independent = _EMPTY_ITEM if turn.stop == STOP_AT_INDEPENDENT else independent_item(turn.goal, label, ids)
    return (independent if turn.joint is None else plain_item(turn.joint, label, ids, joint=True)), independent


def _turn_items(turn: Turn, columns: Columns, ids: dict[Any, int], cache: dict) -> tuple[list[tuple], list]:
    """The items of one turn under scheme a, and the (column, item) pairs that differ under scheme b."""
    if turn.stop == STOP_BEFORE_ADDS:
        return [_EMPTY_ITEM] * columns.width, []
    goal_a, goal_b, goals = turn.goal_a, turn.goal_b, turn.goal
    items = [_goal(goals[slot], goal_a.get(slot), ids, cache) for slot in columns.informable]
    if turn.requested:
        items += [_requested(turn, slot, ids, cache) for slot in columns.requestable]
    else:  # nothing tracked: the items depend on the labels alone
        block = cache.get(turn.requested_a)
        if block is None:
            block = cache[turn.requested_a] = [_requested(turn, slot, ids, cache) for slot in columns.requestable]
        items += block
    items.append(plain_item(turn.method, turn.method_a, ids))
    items += _joint_item(turn, joint_label(goal_a), ids)
    changed: list[tuple[int, tuple]] = []
    if goal_b != goal_a:
        for index, slot in enumerate(columns.informable):
            if goal_b.get(slot) != goal_a.get(slot):
                changed.append((index, _goal(goals[slot], goal_b.get(slot), ids, cache)))
        joint, independent = _joint_item(turn, joint_label(goal_b), ids)
        changed += [(columns.joint, joint), (columns.independent, independent)]
    if turn.method_b != turn.method_a:
        changed.append((columns.method, plain_item(turn.method, turn.method_b, ids)))
    return items, changed


def _goal(dist: Dist, label: Any, ids: dict[Any, int], cache: dict) -> tuple:
    if dist is not ABSENT_GOAL:
        return plain_item(dist, label, ids)
    found = cache.get(("goal", label))
    if found is None:
        found = cache[("goal", label)] = plain_item(dist, label, ids)
    return found


def _requested(turn: Turn, slot: str, ids: dict[Any, int], cache: dict) -> tuple:
    label = slot in turn.requested_a
    dist = turn.requested.get(slot)
    if dist is None:
        found = cache.get(("requested", label))
        if found is None:
            found = cache[("requested", label)] = plain_item(ABSENT_REQUESTED, label, ids)
        return found
    return plain_item(dist, label, ids)


def _schedule2_mask(turn: Turn, columns: Columns, cache: dict) -> list[bool]:
    state = turn.schedule2
    key = (state.goal_slots, state.requested, state.method)
    found = cache.get(key)
    if found is None:
        goals = [slot in state.goal_slots for slot in columns.informable]
        any_goal = bool(state.goal_slots)
        requested = [slot in state.requested for slot in columns.requestable]
        found = cache[key] = goals + requested + [state.method, any_goal, any_goal]
    return found


class TablePart:
    """The items of a run of consecutive sessions: per scheme, the flat (turns x columns x `FIELDS`)
    floats; the schedule-2 mask, each turn's session number and stop flags (complete, stops at the
    independent joint, and with a joint distribution). Top and label ids are interned per part:
    Updates compares them only within a session, so parts join as they are."""

    def __init__(self, sessions: list[PreparedSession], columns: Columns, first_session: int = 0) -> None:
        ids = new_ids()
        cache: dict = {}
        mask_cache: dict = {}
        flat: list = []
        change_rows: list[int] = []
        change_columns: list[int] = []
        changed_items: list = []
        masks: list[bool] = []
        session_of: list[int] = []
        stops: list[bool] = []
        for number, session in enumerate(sessions, first_session):
            for turn in session.turns:
                items, changed = _turn_items(turn, columns, ids, cache)
                row = len(session_of)
                flat.extend(chain.from_iterable(items))
                for column, item in changed:
                    change_rows.append(row)
                    change_columns.append(column)
                    changed_items += item
                masks += _schedule2_mask(turn, columns, mask_cache)
                session_of.append(number)
                partial = turn.stop == STOP_AT_INDEPENDENT
                stops += (turn.stop is None, partial, partial and turn.joint is not None)
                if turn.stop is not None:
                    break
        self.turns = len(session_of)
        self.width = columns.width
        self.items_a = array("d", flat)
        self.change_rows = array("q", change_rows)
        """Where scheme b's item differs from scheme a's: turns (within the part), columns, and items."""
        self.change_columns = array("q", change_columns)
        self.changed_items = array("d", changed_items)
        self.schedule2 = array("b", masks)
        self.session = array("q", session_of)
        self.flags = array("b", stops)
