"""Labels and schedules of the official DSTC2 scorer: scheme B (docs/dstc2.md, rule 3) and schedule 2 (rule 4).

Both are computed from the session alone (system acts, live SLU hypotheses, label.json), never from
the tracker. A session on which the official ``LabelsB`` raises (a ``canthelp`` act on a slot that is
not informable, an act of the transcription with more than one slot) raises `SessionSkip`: the
official scorer skips such a session whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .data import Act, Ontology, Session

NO_METHOD = "none"
"""The method label when no act informs the method."""
CONFIRM_MARK = "conf"
"""A system act whose name contains this (expl-conf, impl-conf) mentions its slots for schedule 2."""


class SessionSkip(Exception):
    """The official scorer would raise here and skip the rest of the session; the message says why."""


def method_label(user_acts: Iterable[Act]) -> str:
    """The turn-local method of a list of user acts: byalternatives, finished, byconstraints, byname or none."""
    names = [act.act for act in user_acts]
    if "reqalts" in names:
        return "byalternatives"
    if "bye" in names:
        return "finished"
    if "inform" not in names:
        return NO_METHOD
    for act in user_acts:
        if act.act == "inform" and any(slot == "name" for slot, _ in act.slots):
            return "byname"
    return "byconstraints"


def labels_b(session: Session, ontology: Ontology) -> tuple[list[dict[str, Any]], list[str]]:
    """Scheme-B goal labels (one dict per turn) and methods (turn-local, from ``semantics.json``)."""
    informable = list(ontology.informable)
    canthelped: dict[str, list[Any]] = {slot: [] for slot in informable}
    goals: list[dict[str, Any]] = []
    methods: list[str] = []
    for number, (log_turn, label_turn) in enumerate(zip(session.log_turns, session.label_turns)):
        for act in label_turn.semantics.json:
            if len(act.slots) > 1:
                raise SessionSkip(f"turn {number}: a transcription act with {len(act.slots)} slots (scheme B)")
        methods.append(method_label(label_turn.semantics.json))
        for act in log_turn.system_acts:
            if act.act == "canthelp":
                for slot, value in act.slots:
                    if slot not in canthelped:
                        raise SessionSkip(f"turn {number}: the system says canthelp on slot {slot!r}, not informable")
                    canthelped[slot].append(value)
        goal: dict[str, Any] = {}
        for slot in informable:
            if slot in label_turn.goal_labels and label_turn.goal_labels[slot] not in canthelped[slot]:
                value = goal[slot] = label_turn.goal_labels[slot]
                for earlier in goals:
                    earlier.setdefault(slot, value)
        goals.append(goal)
    ordered = [{slot: goal[slot] for slot in informable if slot in goal} for goal in goals]
    return ordered, methods


@dataclass
class Schedule2:
    """The schedule-2 state of one turn: which parts of the tracker output count (section 4)."""

    goal_slots: frozenset[str]
    """Informable slots mentioned so far (their S set is non-empty)."""
    requested: frozenset[str]
    """The slots R hypothesised requested and not yet informed by the system."""
    method: bool
    """Whether some live SLU hypothesis so far informs the method."""


def _this_slot(system_acts: list[Act]) -> Any:
    this = None
    for act in system_acts:
        if act.act in ("request", "expl-conf", "select"):
            if not act.slots:
                raise SessionSkip(f"a system {act.act!r} act without slots")
            this = act.slots[0][1] if act.act == "request" else act.slots[0][0]
    return this


def _mentioned(log_turn: Any, informable: dict[str, Any]) -> set[str]:
    mentioned: set[str] = set()
    for act in log_turn.system_acts:
        if CONFIRM_MARK in act.act:
            mentioned.update(slot for slot, _ in act.slots if slot in informable)
    this = _this_slot(log_turn.system_acts)
    for hyp in log_turn.slu_hyps:
        for act in hyp:
            for slot, _ in act.slots:
                if slot == "this":
                    slot = this
                if slot in informable:
                    mentioned.add(slot)
    return mentioned


def schedule2(session: Session, ontology: Ontology) -> tuple[list[Schedule2], str | None]:
    """The schedule-2 state of each turn, up to a turn the official scorer fails on (and then why)."""
    states: list[Schedule2] = []
    slots: set[str] = set()
    requested: set[str] = set()
    method = False
    try:
        for log_turn in session.log_turns[: len(session.label_turns)]:
            slots |= _mentioned(log_turn, ontology.informable)
            informed = {slot for act in log_turn.system_acts if act.act in ("inform", "offer") for slot, _ in act.slots}
            requested -= informed
            for hyp in log_turn.slu_hyps:
                requested.update(
                    value for act in hyp if act.act == "request" for slot, value in act.slots if slot == "slot"
                )
            if not method:
                method = any(method_label(hyp) != NO_METHOD for hyp in log_turn.slu_hyps)
            states.append(Schedule2(frozenset(slots), frozenset(requested), method))
    except SessionSkip as skip:
        return states, f"turn {len(states)}: {skip}"
    return states, None
