"""The column-wise scorer: the official rows from one pass over the turns and a few numpy operations.

Every turn yields one item per *column* (each informable slot, the joint, the independent joint, each
requestable slot, the method) and label scheme: whether the top hypothesis is right, its score, the
score of the right hypothesis, the L2 terms, the reciprocal rank, and the top and label as interned
ids. A component is a set of columns; its ``add`` calls are the items of those columns, masked by the
schedule, in row-major (turn, column) order, which is the official call order. Sums run sequentially
in that order (``cumsum``), as the official ``+=`` does; Updates compare each item with the previous
item of the same session; ROC sorts stably by score. `dst_metrics.dstc2.reference` is the literal
procedure this is tested against.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from .components import Row, evaluations, rows_of
from .prepare import (
    ABSENT_GOAL,
    ABSENT_REQUESTED,
    STOP_AT_INDEPENDENT,
    STOP_BEFORE_ADDS,
    PreparedSession,
    Turn,
    joint_label,
)
from .stats import (
    CA_THRESHOLDS,
    NEGLOGP_FLOOR,
    Dist,
)

FIELDS = ("correct", "score", "p", "l2", "l2b", "rr", "top", "label")
"""The per-item quantities, in the order `_plain` returns them."""
NONE_ID = 0
"""The interned id of the None hypothesis (the previous top at the start of a session)."""


def _intern(ids: dict[Any, int], hyp: Any) -> int:
    """`hyp` as a small integer: equal ids exactly when the hypotheses are equal (``==``)."""
    key = frozenset(hyp.items()) if type(hyp) is dict else hyp
    found = ids.get(key)
    if found is None:
        found = ids[key] = len(ids)
    return found


def _new_ids() -> dict[Any, int]:
    return {None: NONE_ID, False: 1, True: 2}


def _plain(dist: Dist, label: Any, ids: dict[Any, int], *, joint: bool = False) -> tuple:
    """The item of a plain distribution; with `joint`, the tracker's joint list, whose dict hypotheses
    compare as dicts (equal items) and are interned as frozensets of their items."""
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


def _plain_joint(dist: Dist, label: Any, ids: dict[Any, int]) -> tuple:
    """`_plain` of the tracker's joint list: its dict hypotheses compared as dicts (equal items)."""
    return _plain(dist, label, ids, joint=True)


def _independent(dists: dict[str, Dist], label: Any, ids: dict[Any, int]) -> tuple:
    """The item of the independent joint, in one pass (same float operations, same order as `stats`)."""
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


class _Columns:
    """The column layout: informable slots, joint, independent joint, requestable slots, method."""

    def __init__(self, informable: list[str], requestable: list[str]) -> None:
        self.informable = informable
        self.requestable = requestable
        self.joint = len(informable)
        self.independent = self.joint + 1
        self.first_requested = self.joint + 2
        self.method = self.first_requested + len(requestable)
        self.width = self.method + 1

    def of(self, component: str) -> list[int]:
        """The columns a component's calls come from, in call order within a turn."""
        head, _, tail = component.partition(".")
        goals = list(range(len(self.informable)))
        requested = list(range(self.first_requested, self.method))
        if head == "goal":
            named = {"all": goals, "joint": [self.joint], "joint_independent": [self.independent]}
            return named.get(tail) or [self.informable.index(tail)]
        if head == "requested":
            return requested if tail == "all" else [self.first_requested + self.requestable.index(tail)]
        if head == "method":
            return [self.method]
        return goals + requested + [self.method]


def _joint_item(turn: Turn, label: Any, ids: dict[Any, int]) -> tuple[tuple, tuple]:
    """(goal.joint item, goal.joint_independent item) of a turn under a joint label."""
    independent = _EMPTY_ITEM if turn.stop == STOP_AT_INDEPENDENT else _independent(turn.goal, label, ids)
    return (independent if turn.joint is None else _plain_joint(turn.joint, label, ids)), independent


def _turn_items(turn: Turn, columns: _Columns, ids: dict[Any, int], cache: dict) -> tuple[list[tuple], list]:
    """The items of one turn under scheme a, and the (column, item) pairs that differ under scheme b."""
    if turn.stop == STOP_BEFORE_ADDS:
        return [_EMPTY_ITEM] * columns.width, []
    goal_a, goal_b, goals = turn.goal_a, turn.goal_b, turn.goal
    items = [_goal(goals[slot], goal_a.get(slot), ids, cache) for slot in columns.informable]
    items += _joint_item(turn, joint_label(goal_a), ids)
    if turn.requested:
        items += [_requested(turn, slot, ids, cache) for slot in columns.requestable]
    else:  # nothing tracked: the items depend on the labels alone
        block = cache.get(turn.requested_a)
        if block is None:
            block = cache[turn.requested_a] = [_requested(turn, slot, ids, cache) for slot in columns.requestable]
        items += block
    items.append(_plain(turn.method, turn.method_a, ids))
    changed: list[tuple[int, tuple]] = []
    if goal_b != goal_a:
        for index, slot in enumerate(columns.informable):
            if goal_b.get(slot) != goal_a.get(slot):
                changed.append((index, _goal(goals[slot], goal_b.get(slot), ids, cache)))
        joint, independent = _joint_item(turn, joint_label(goal_b), ids)
        changed += [(columns.joint, joint), (columns.independent, independent)]
    if turn.method_b != turn.method_a:
        changed.append((columns.method, _plain(turn.method, turn.method_b, ids)))
    return items, changed


def _goal(dist: Dist, label: Any, ids: dict[Any, int], cache: dict) -> tuple:
    if dist is not ABSENT_GOAL:
        return _plain(dist, label, ids)
    found = cache.get(("goal", label))
    if found is None:
        found = cache[("goal", label)] = _plain(dist, label, ids)
    return found


def _requested(turn: Turn, slot: str, ids: dict[Any, int], cache: dict) -> tuple:
    label = slot in turn.requested_a
    dist = turn.requested.get(slot)
    if dist is None:
        found = cache.get(("requested", label))
        if found is None:
            found = cache[("requested", label)] = _plain(ABSENT_REQUESTED, label, ids)
        return found
    return _plain(dist, label, ids)


def _schedule2_mask(turn: Turn, columns: _Columns, cache: dict) -> list[bool]:
    state = turn.schedule2
    key = (state.goal_slots, state.requested, state.method)
    found = cache.get(key)
    if found is None:
        found = cache[key] = _new_schedule2_mask(state, columns)
    return found


def _new_schedule2_mask(state: Any, columns: _Columns) -> list[bool]:
    goals = [slot in state.goal_slots for slot in columns.informable]
    any_goal = bool(state.goal_slots)
    requested = [slot in state.requested for slot in columns.requestable]
    return goals + [any_goal, any_goal] + requested + [state.method]


class _Table:
    """All items of the corpus: per scheme, one (turns, columns) array per field; masks and session ids."""

    def __init__(self, sessions: list[PreparedSession], columns: _Columns) -> None:
        ids = _new_ids()
        cache: dict = {}
        mask_cache: dict = {}
        flat: list = []
        changes: list[tuple[int, int, tuple]] = []
        masks: list[bool] = []
        session_of: list[int] = []
        stops: list[bool] = []
        for number, session in enumerate(sessions):
            for turn in session.turns:
                items, changed = _turn_items(turn, columns, ids, cache)
                row = len(session_of)
                flat.extend(chain.from_iterable(items))
                changes += [(row, column, item) for column, item in changed]
                masks += _schedule2_mask(turn, columns, mask_cache)
                session_of.append(number)
                partial = turn.stop == STOP_AT_INDEPENDENT
                stops += (turn.stop is None, partial, partial and turn.joint is not None)
                if turn.stop is not None:
                    break
        self.turns = len(session_of)
        shape = (self.turns, columns.width)
        self.fields = _field_arrays(flat, changes, shape)
        self.schedule2 = np.array(masks, dtype=bool).reshape(shape)
        self.session = np.array(session_of, dtype=np.int64)
        flags = np.array(stops, dtype=bool).reshape(self.turns, 3)
        self.complete = flags[:, 0]
        """Turns every component sees."""
        self.partial = flags[:, 0] | flags[:, 1]
        """... and the turn where the official scorer stops at the independent joint (goal slots see it)."""
        self.partial_joint = flags[:, 0] | flags[:, 2]
        """... and that turn for goal.joint when the tracker gave a joint distribution."""


def _split_fields(table: np.ndarray) -> dict[str, np.ndarray]:
    out = {name: np.ascontiguousarray(table[:, :, index]) for index, name in enumerate(FIELDS)}
    out["correct"] = out["correct"].astype(bool)
    out["top"] = out["top"].astype(np.int64)  # ids are small integers: exact in float64
    out["label"] = out["label"].astype(np.int64)
    return out


def _field_arrays(flat: list, changes: list[tuple[int, int, tuple]], shape: tuple[int, int]) -> dict:
    """{"a": fields, "b": fields}: scheme b is scheme a with the changed items replaced."""
    table_a = np.array(flat, dtype=np.float64).reshape(shape[0], shape[1], len(FIELDS))
    table_b = table_a
    if changes:
        table_b = table_a.copy()
        rows, columns, items = zip(*changes)
        table_b[np.array(rows), np.array(columns)] = np.array(items, dtype=np.float64)
    return {"a": _split_fields(table_a), "b": _split_fields(table_b)}


def _sequential_sum(values: np.ndarray) -> float:
    return 0.0 + float(np.cumsum(values)[-1]) if values.size else 0.0  # 0.0 + : the official sum starts at 0.0


def _component_mask(table: _Table, columns: list[int], schedule: int, first_pass: bool, component: str) -> np.ndarray:
    turns = table.complete
    if first_pass and component.startswith("goal.") and component != "goal.joint_independent":
        turns = table.partial_joint if component == "goal.joint" else table.partial
    if schedule == 2:
        return table.schedule2[:, columns] & turns[:, None]
    return np.broadcast_to(turns[:, None], (table.turns, len(columns)))


def _picked(table: _Table, evaluation: tuple[int, str, str], columns: _Columns) -> dict[str, np.ndarray]:
    schedule, scheme, component = evaluation
    cols = columns.of(component)
    mask = _component_mask(table, cols, schedule, (schedule, scheme) == (1, "a"), component)
    fields = table.fields[scheme]
    picked = {name: fields[name][:, cols][mask] for name in FIELDS}
    picked["session"] = np.broadcast_to(table.session[:, None], mask.shape)[mask]
    return picked


def _component_results(table: _Table, evaluation: tuple[int, str, str], columns: _Columns) -> list[Row]:
    picked = _picked(table, evaluation, columns)
    n = int(picked["correct"].size)
    results = _mean_results(picked, n)
    results.update(_update_results(picked["top"], picked["label"], picked["session"]))
    results.update(_roc_results(picked["correct"], picked["score"]))
    return rows_of(evaluation, n, results)


def _mean_results(picked: dict[str, np.ndarray], n: int) -> dict[str, float | None]:
    if n == 0:
        return dict.fromkeys(("acc", "l2", "l2.binary", "avgp", "neglogp", "mrr"))
    neglogp = -np.log(np.maximum(NEGLOGP_FLOOR, picked["p"]))
    return {
        "acc": int(picked["correct"].sum()) / n,
        "l2": _sequential_sum(picked["l2"]) / n,
        "l2.binary": _sequential_sum(picked["l2b"]) / n,
        "avgp": _sequential_sum(picked["p"]) / n,
        "neglogp": _sequential_sum(neglogp) / n,
        "mrr": _sequential_sum(picked["rr"]) / n,
    }


def _update_results(top: np.ndarray, label: np.ndarray, sessions: np.ndarray) -> dict[str, float | None]:
    previous = np.empty_like(top)
    if top.size:
        previous[0] = NONE_ID
        previous[1:] = top[:-1]
        previous[1:][sessions[1:] != sessions[:-1]] = NONE_ID
    same_as_label = previous == label
    changed = previous != top
    insertions = int((same_as_label & changed).sum())
    deletions = int((~same_as_label & ~changed).sum())
    moved = ~same_as_label & changed
    correct = int((moved & (top == label)).sum())
    substitutions = int(moved.sum()) - correct
    accuracy_total = correct + substitutions + deletions
    precision_total = correct + substitutions + insertions
    return {
        "update.acc": correct / accuracy_total if accuracy_total else None,
        "update.prec": correct / precision_total if precision_total else None,
    }


def _roc_results(correct: np.ndarray, scores: np.ndarray) -> dict[str, float | None]:
    n = correct.size
    out: dict[str, float | None] = dict.fromkeys(
        ["roc.v1_eer"] + [f"roc.v{v}_ca{name}" for v in (1, 2) for name, _ in CA_THRESHOLDS]
    )
    if n <= 2:
        return out
    order = np.argsort(-scores, kind="stable")
    sorted_scores = scores[order]
    cumulative = np.cumsum(correct[order])
    n_true = int(cumulative[-1])
    n_false = n - n_true
    changes = np.nonzero(sorted_scores[1 : n - 1] != sorted_scores[: n - 2])[0] + 1
    points = np.concatenate(([0], changes, [n - 1]))[::-1]
    ta = cumulative[points]
    fa = points + 1 - ta
    fr = n_true - ta
    out["roc.v1_eer"] = _first(fr >= fa, (fr + fa) / n)
    for name, threshold in CA_THRESHOLDS:
        out[f"roc.v1_ca{name}"] = _first(fa / n <= threshold, ta / n)
    if n_true and n_false:
        for name, threshold in CA_THRESHOLDS:
            out[f"roc.v2_ca{name}"] = _first(fa / n_false <= threshold, ta / n_true)
    return out


def _first(condition: np.ndarray, values: np.ndarray) -> float | None:
    hits = np.flatnonzero(condition)
    return float(values[hits[0]]) if hits.size else None


def score_fast(sessions: list[PreparedSession], informable: list[str], requestable: list[str]) -> tuple[list[Row], int]:
    """The metric rows (official order) and the number of scored turns."""
    columns = _Columns(informable, requestable)
    table = _Table(sessions, columns)
    rows: list[Row] = []
    for evaluation in evaluations(informable, requestable):
        rows += _component_results(table, evaluation, columns)
    return rows, table.turns


def component_items(
    sessions: list[PreparedSession],
    informable: list[str],
    requestable: list[str],
    evaluations: list[tuple[int, str, str]],
) -> dict[tuple[int, str, str], dict[str, np.ndarray]]:
    """Per (schedule, scheme, component): each ``add`` call's quantities in call order (`FIELDS`, ``session``)."""
    columns = _Columns(informable, requestable)
    table = _Table(sessions, columns)
    return {evaluation: _picked(table, evaluation, columns) for evaluation in evaluations}
