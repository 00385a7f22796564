"""The official scorer's components, evaluation schemes and result rows (docs/dstc2.md, rules 5 and 7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .stats import STAT_NAMES

SCHEDULES: tuple[int, ...] = (1, 2)
LABEL_SCHEMES: tuple[str, ...] = ("a", "b")
FEATURED_SCHEME = (2, "a")
"""The featured metrics are read at schedule 2, scheme A."""
FEATURED_COMPONENTS: tuple[tuple[str, str], ...] = (
    ("goal.joint", "Joint Goals"),
    ("requested.all", "Requested"),
    ("method", "Method"),
)
FEATURED_STATS: tuple[tuple[str, str], ...] = (("acc", "Accuracy"), ("l2", "l2"), ("roc.v2_ca05", "roc.v2_ca05"))
"""Featured rows: (stat, label in report.py's featured table)."""


def components(informable: list[str], requestable: list[str], scheme: str) -> list[str]:
    """The component names of one (schedule, scheme), in the official order (requested: scheme a only)."""
    names = [f"goal.{slot}" for slot in informable] + ["goal.all", "goal.joint", "goal.joint_independent"]
    if scheme == "a":
        names += [f"requested.{slot}" for slot in requestable] + ["requested.all"]
    return names + ["method", "all"]


def evaluations(informable: list[str], requestable: list[str]) -> list[tuple[int, str, str]]:
    """Every (schedule, scheme, component) in the official creation order."""
    return [
        (schedule, scheme, name)
        for schedule in SCHEDULES
        for scheme in LABEL_SCHEMES
        for name in components(informable, requestable, scheme)
    ]


@dataclass(frozen=True)
class Row:
    """One metric row of the official CSV."""

    component: str
    stat: str
    schedule: int
    scheme: str
    n: int
    value: float | None


@dataclass
class Scores:
    """Every metric row of a tracker, with the run's basic figures and the sessions the scorer stopped early."""

    rows: list[Row]
    sessions: int
    turns: int
    wall_time: object = None
    dataset: object = None
    skipped: list[tuple[str, int, str]] = field(default_factory=list)
    """(session id, turn, reason) of each session the official scorer stops scoring early."""

    def value(self, component: str, stat: str, schedule: int, scheme: str) -> float | None:
        """One figure (None when undefined); KeyError if there is no such row."""
        return self._index[(component, stat, schedule, scheme)].value

    @cached_property
    def _index(self) -> dict[tuple[str, str, int, str], Row]:
        return {(r.component, r.stat, r.schedule, r.scheme): r for r in self.rows}

    def nested(self) -> dict[str, dict[str, dict[str, float | None]]]:
        """``{component: {stat: {"schedule,scheme": value}}}`` in the CSV's order."""
        out: dict[str, dict[str, dict[str, float | None]]] = {}
        for r in self.rows:
            out.setdefault(r.component, {}).setdefault(r.stat, {})[f"{r.schedule},{r.scheme}"] = r.value
        return out

    def featured(self) -> dict[str, dict[str, float | None]]:
        """``{component: {stat: value}}`` of the featured metrics (schedule 2, scheme A)."""
        schedule, scheme = FEATURED_SCHEME
        return {
            component: {stat: self.value(component, stat, schedule, scheme) for stat, _ in FEATURED_STATS}
            for component, _ in FEATURED_COMPONENTS
        }


def rows_of(evaluation: tuple[int, str, str], n: int, results: dict[str, float | None]) -> list[Row]:
    """The 15 rows of one component, in `STAT_NAMES` order."""
    schedule, scheme, component = evaluation
    return [Row(component, stat, schedule, scheme, n, results[stat]) for stat in STAT_NAMES]
