"""The column-wise DSTC2 scorer: the official rows from one pass over the turns and a few numpy operations.

A component's ``add`` calls are the items of its columns (`dst_metrics.dstc2.items`), masked by the
schedule, in row-major (turn, column) order, which is the official call order: sums run in that
order (``cumsum``), as the official ``+=`` does. Tested against the literal procedure,
tests/fixtures/dstc2/reference_scorer.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .components import Row, evaluations, rows_of
from .items import FIELDS, NONE_ID, Columns, TablePart
from .prepare import PreparedSession
from .stats import NEGLOGP_FLOOR, roc_rows


class _Table:
    """All items of the corpus (its `TablePart`s joined in order): per scheme, a (turns, columns) array
    of item records; the schedule-2 mask, session numbers and the turns each component sees."""

    def __init__(self, parts: list[TablePart], columns: Columns) -> None:
        self.turns = sum(part.turns for part in parts)
        shape = (self.turns, columns.width)
        table_a = _joined([part.items_a for part in parts], np.float64).reshape(*shape, len(FIELDS))
        table_b = table_a
        offsets = np.cumsum([0] + [part.turns for part in parts[:-1]], dtype=np.int64)
        rows = np.concatenate([np.frombuffer(p.change_rows, np.int64) + o for p, o in zip(parts, offsets)] or [[]])
        if rows.size:  # scheme b is scheme a with the changed items replaced
            table_b = table_a.copy()
            changed_columns = _joined([part.change_columns for part in parts], np.int64)
            table_b[rows.astype(np.int64), changed_columns] = _joined(
                [part.changed_items for part in parts], np.float64
            ).reshape(-1, len(FIELDS))
        self.items = {"a": _as_records(table_a), "b": _as_records(table_b)}
        """Per scheme: the (turns, columns) array of items, each item its `FIELDS` as one 64-byte record."""
        self.schedule2 = _joined([part.schedule2 for part in parts], np.int8).astype(bool).reshape(shape)
        self.session = _joined([part.session for part in parts], np.int64)
        flags = _joined([part.flags for part in parts], np.int8).astype(bool).reshape(self.turns, 3)
        self.complete = flags[:, 0]
        """Turns every component sees."""
        self.partial = flags[:, 0] | flags[:, 1]
        """... and the turn where the official scorer stops at the independent joint (goal slots see it)."""
        self.partial_joint = flags[:, 0] | flags[:, 2]
        """... and that turn for goal.joint when the tracker gave a joint distribution."""


def _joined(buffers: list[Any], dtype: type) -> np.ndarray:
    """The `array.array` buffers of the parts as one numpy array."""
    return np.concatenate([np.frombuffer(buffer, dtype=dtype) for buffer in buffers] or [np.empty(0, dtype)])


def _as_records(table: np.ndarray) -> np.ndarray:
    """A (turns, columns, FIELDS) float array as (turns, columns) records: masking whole records at once
    is about three times faster than masking the float array (benchmarks/bench_dstc2.py)."""
    record = np.dtype((np.void, table.itemsize * len(FIELDS)))
    return np.ascontiguousarray(table).view(record).reshape(table.shape[0], table.shape[1])


def _sequential_sum(values: np.ndarray) -> float:
    return 0.0 + float(np.cumsum(values)[-1]) if values.size else 0.0  # 0.0 + : the official sum starts at 0.0


def _component_mask(table: _Table, columns: slice, schedule: int, first_pass: bool, component: str) -> np.ndarray:
    turns = table.complete
    if first_pass and component.startswith("goal.") and component != "goal.joint_independent":
        turns = table.partial_joint if component == "goal.joint" else table.partial
    if schedule == 2:
        return table.schedule2[:, columns] & turns[:, None]
    return np.broadcast_to(turns[:, None], (table.turns, columns.stop - columns.start))


def _picked(table: _Table, evaluation: tuple[int, str, str], columns: Columns) -> dict[str, np.ndarray]:
    schedule, scheme, component = evaluation
    cols = columns.of(component)
    mask = _component_mask(table, cols, schedule, (schedule, scheme) == (1, "a"), component)
    chosen = table.items[scheme][:, cols][mask].view(np.float64).reshape(-1, len(FIELDS))  # row-major: call order
    picked = {name: chosen[:, index] for index, name in enumerate(FIELDS)}
    picked["correct"] = picked["correct"].astype(bool)
    picked["top"] = picked["top"].astype(np.int64)  # ids are small integers: exact in float64
    picked["label"] = picked["label"].astype(np.int64)
    picked["session"] = np.broadcast_to(table.session[:, None], mask.shape)[mask]
    return picked


def _component_results(table: _Table, evaluation: tuple[int, str, str], columns: Columns) -> list[Row]:
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
    """`roc_results` with numpy: the same points, the same rows."""
    n = correct.size
    if n <= 2:
        return roc_rows([], [])
    order = np.argsort(-scores, kind="stable")
    sorted_scores = scores[order]
    cumulative = np.cumsum(correct[order])
    changes = np.nonzero(sorted_scores[1 : n - 1] != sorted_scores[: n - 2])[0] + 1
    points = np.concatenate(([0], changes, [n - 1]))[::-1]
    ta = cumulative[points]
    return roc_rows(ta.tolist(), (points + 1 - ta).tolist())


def score_parts(parts: list[TablePart], informable: list[str], requestable: list[str]) -> tuple[list[Row], int]:
    """The metric rows (official order) of the parts' sessions, the parts in session order (built with the
    same columns), and the number of scored turns."""
    columns = Columns(informable, requestable)
    table = _Table(parts, columns)
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
    columns = Columns(informable, requestable)
    table = _Table([TablePart(sessions, columns)], columns)
    return {evaluation: _picked(table, evaluation, columns) for evaluation in evaluations}
