"""SLT 2024 confidence-estimation results (github jennycs0830/Confidence_Score_DST), predictions only.

CSV rows ``id, gt_domain, turn_state, total_state, ..., pair_confidence, ...``, states as JSON
text, ``id`` as ``<dialogue>-<turn>`` with turns from 1. A turn's prediction is ``total_state``
with each ``<slot>_<value>`` of ``pair_confidence`` put in as ``{"value": value, "confidence":
score}``. Gold comes from ``--gold``: dialogues match case-insensitively, turns by position.
"""

from __future__ import annotations

import json

from .. import ids
from ..errors import InputError, describe
from .base import Reader, ReaderFit, ReadRequest, Side

COLUMNS = ("id", "gt_domain", "total_state", "pair_confidence")
"""The columns read (the header must name them; the others are ignored)."""
PAIRS = "pair_confidence"
CONVENTION = f"pred:slt2024-{PAIRS}"
"""The signature part of predictions read from these tables: their pairs are the ``pair_confidence`` column's."""


def _json(text: str, field: str, where: dict) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON ({error.msg})", field=field, **where) from None


def _state(row: dict[str, str], where: dict) -> dict:
    """The row's predicted state: total_state with the pairs of gt_domain as scored values."""
    state = _json(row["total_state"], "total_state", where)
    pairs = _json(row[PAIRS], PAIRS, where)
    domain = row["gt_domain"]
    if not isinstance(state, dict) or not all(isinstance(slots, dict) for slots in state.values()):
        raise InputError(f"expected {{domain: {{slot: value}}}}, got {describe(state)}", field="total_state", **where)
    if not isinstance(pairs, dict):
        raise InputError(f'expected {{"<slot>_<value>": score}}, got {describe(pairs)}', field=PAIRS, **where)
    if pairs and not domain:
        raise InputError("the turn has scored pairs but no domain", field="gt_domain", **where)
    state = {name: dict(slots) for name, slots in state.items()}
    for key, score in pairs.items():
        slot, underscore, value = key.partition("_")
        if not underscore:
            raise InputError(f"a pair's key must be <slot>_<value>, got {key!r}", field=f"{PAIRS}.{key}", **where)
        state.setdefault(domain, {})[slot] = {"value": value, "confidence": score}
    return state


def _add_row(states: dict[str, dict[int, object]], row: dict, source: str) -> None:
    """Put one row's turn in `states` ({dialogue: {position: state}})."""
    if None in row or any(value is None for value in row.values()):
        raise InputError("the row's cells do not match the header", source=source)
    name, dash, number = row["id"].rpartition("-")
    if not name or not dash or not number.isdigit() or int(number) < 1:
        raise InputError(f"id must be <dialogue>-<turn from 1>, got {row['id']!r}", field="id", source=source)
    dialogue_id = ids.dialogue_id(name, field="id", source=source)
    turns = states.setdefault(dialogue_id, {})
    if int(number) - 1 in turns:
        raise InputError("this turn is given twice", dialogue=dialogue_id, turn=int(number), source=source)
    turns[int(number) - 1] = _state(row, {"dialogue": dialogue_id, "turn": int(number), "source": source})


def read_slt2024_side(request: ReadRequest, side: str) -> Side:
    """The predicted side of a results CSV (see the module); asking for gold is an InputError."""
    import csv  # this rare format only: not at every start

    if side != "pred":
        raise InputError("SLT 2024's results hold predictions only: give the gold with --gold", source=request.source)
    reader = csv.DictReader(request.text().splitlines())
    states: dict[str, dict[int, object]] = {}
    try:
        missing = [column for column in COLUMNS if column not in (reader.fieldnames or ())]
        if missing:
            raise InputError(f"the header lacks the columns {', '.join(missing)}", source=request.source)
        for row in reader:
            where = f"line {reader.line_num}"
            _add_row(states, row, f"{request.source}, {where}" if request.source else where)
    except csv.Error as error:
        raise InputError(f"not a CSV table (line {reader.line_num}: {error})", source=request.source) from None
    if not states:
        raise InputError("the table has no row", source=request.source)
    for dialogue_id, turns in states.items():
        gap = next((turn for turn in range(len(turns)) if turn not in turns), None)
        if gap is not None:  # turns pair with gold by position: a gap would shift them
            raise InputError(
                "the turns must run from 1 without a gap", dialogue=dialogue_id, turn=gap + 1, source=request.source
            )
    return Side(states, request.source, ids="loose", turns="position", convention=CONVENTION)


def sniff(head: str) -> ReaderFit:
    """A CSV whose header names id, gt_domain and the pair columns."""
    first = head.lstrip("\ufeff").split("\n", 1)[0].replace('"', "")
    names = first.strip().split(",")
    if names[:2] != ["id", "gt_domain"]:
        return ReaderFit(0)
    if all(column in names for column in COLUMNS):
        return ReaderFit(2)
    return ReaderFit(1, f"its header lacks {', '.join(c for c in COLUMNS if c not in names)}")


READER = Reader(
    "slt2024",
    "SLT 2024 confidence results CSV (id, gt_domain, total_state, pair_confidence)",
    sniff,
    read_side=read_slt2024_side,
    holds="predictions",
    suffixes=(".csv",),
    layout=(
        "SLT 2024 confidence-estimation result tables (CSV: `id` `<dialogue>-<turn from 1>`, `gt_domain`, "
        "`total_state`, `pair_confidence` as JSON text; the pairs become values with confidences under "
        "`gt_domain`; turns by position)"
    ),
)
