"""Statistics of DST figures: bootstrap intervals over dialogues, paired comparison of two systems,
the table of N systems with one correction over its tests (`systems_table`), the GCA paper's section
5.2 analyses and figures by turn position (docs/statistics.md).

numpy is needed here (the ``stats`` extra). The names below are imported on first use, so that the
command line can import this package's command modules without loading numpy.
"""

from __future__ import annotations

import importlib

_EXPORTS: dict[str, str] = {
    "Analysis": "analysis",
    "DialogueAnalysis": "analysis",
    "ZouInterval": "analysis",
    "analyze": "analysis",
    "zou_interval": "analysis",
    "Intervals": "bootstrap",
    "bootstrap_intervals": "bootstrap",
    "ClusteredMcNemar": "paired",
    "Comparison": "paired",
    "FigureDiff": "paired",
    "McNemar": "paired",
    "compare": "paired",
    "SystemsTable": "table",
    "systems_table": "table",
    "PositionProfile": "positions",
    "PositionRow": "positions",
    "by_position": "positions",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
