"""Scoring a DSTC2 tracker output: every (schedule, scheme, component, stat) row of the official ``score.csv``.

`score(sessions, track, ontology)` zips the tracker's sessions and turns with the data by position,
prepares each turn (`prepare`), then computes the rows column-wise (`fast`, with numpy: the ``dstc2``
extra). Sessions on which the official scorer raises are scored up to that point, as it does, and
listed in `Scores.skipped` with the reason.
"""

from __future__ import annotations

from typing import Any

from .._gc import without_gc
from .components import Scores
from .data import Ontology, Session
from .items import Columns, TablePart
from .prepare import PreparedSession, prepare_session


def prepare_all(sessions: list[Session], track: dict[str, Any], ontology: Ontology) -> list[PreparedSession]:
    """Each session zipped with the tracker's session at the same position (the shorter list decides)."""
    tracker_sessions = track.get("sessions", [])
    return [
        prepare_session(session, tracker_session.get("turns", []), ontology)
        for session, tracker_session in zip(sessions, tracker_sessions)
    ]


def tabulate(prepared: list[PreparedSession], ontology: Ontology, first: int = 0) -> tuple[TablePart, list]:
    """The `items.TablePart` of prepared consecutive sessions (the first at position `first` of the
    corpus), and the (session id, turn, reason) of each the official scorer stops early."""
    skipped = [(p.session_id, p.skip_turn or 0, p.skip_reason) for p in prepared if p.skip_reason is not None]
    return TablePart(prepared, Columns(list(ontology.informable), list(ontology.requestable)), first), skipped


@without_gc
def score(sessions: list[Session], track: dict[str, Any], ontology: Ontology) -> Scores:
    """Every metric row of `track` on `sessions` (run `dst_metrics.dstc2.check.check_track` first)."""
    part, skipped = tabulate(prepare_all(sessions, track, ontology), ontology)
    return scores_of([part], skipped, len(sessions), track, ontology)


def scores_of(
    parts: list[TablePart], skipped: list, sessions: int, track: dict[str, Any], ontology: Ontology
) -> Scores:
    """The `Scores` of the parts of `sessions` sessions (in session order) and of `track`'s basic fields."""
    from .fast import score_parts

    rows, turns = score_parts(parts, list(ontology.informable), list(ontology.requestable))
    return Scores(rows, sessions, turns, track.get("wall-time"), track.get("dataset"), skipped)
