"""``dst-metrics dstc2-compare A.json B.json``: the tests of `dst_metrics.stats.dstc2` on two DSTC2
track files scored on the same data, as a table or JSON."""

from __future__ import annotations

import argparse

from ..stats.dstc2 import DEFAULT_LEVEL, Test
from .dstc2 import add_data_arguments

HELP = "compare two DSTC2 trackers: McNemar (accuracy) and paired t-test (L2), Bonferroni-corrected"
EXTRA = "dstc2"
"""The tests read the scored calls column-wise, with numpy (the dstc2 extra)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``dst-metrics dstc2-compare``."""
    parser.add_argument("track_a", metavar="A.json", help="tracker output A (the reference)")
    parser.add_argument("track_b", metavar="B.json", help="tracker output B")
    add_data_arguments(parser)
    parser.add_argument("--level", type=float, default=DEFAULT_LEVEL, help="significance level (default 0.01)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def _fmt(value: float | None, digits: int = 7) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _p_text(p: float | None) -> str:
    return "-" if p is None else f"{p:.3g}"


def _table(tests: list[Test], names: tuple[str, str], level: float) -> str:
    from .common import format_table

    header = ["component", "stat", "A", "B", "test", "p", "p (Bonferroni)", f"< {level:g}"]
    rows = [
        [t.component, t.stat, _fmt(t.a), _fmt(t.b), t.test or "-", _p_text(t.p), _p_text(t.p_adjusted)]
        + ["-" if t.significant is None else ("yes" if t.significant else "no")]
        for t in tests
    ]
    return format_table(header, rows, "llrrlrrl")


def run(args: argparse.Namespace) -> int:
    """Score both track files and print the tests."""
    from dataclasses import asdict

    from ..dstc2.prepare import prepare_session
    from ..dstc2.scorer import score
    from ..options import OptionError
    from ..stats.dstc2 import compare_tracks, featured_items, require_complete
    from .dstc2 import data_inputs, load_data, load_track
    from .json_output import json_output

    if not 0.0 < args.level < 1.0:
        raise OptionError(f"--level must be in (0, 1), not {args.level!r}")
    sessions, ontology = load_data(args)
    items, scores = [], []
    for path in (args.track_a, args.track_b):
        track, _ = load_track(path, sessions, ontology, args)
        turns = [s.get("turns", []) for s in track["sessions"]]
        prepared = [prepare_session(session, t, ontology) for session, t in zip(sessions, turns)]
        require_complete(prepared, sessions, path)
        items.append(featured_items(prepared, ontology))
        scores.append(score(sessions, track, ontology))
    tests = compare_tracks(items[0], items[1], scores[0], scores[1], args.level)
    names = (args.track_a, args.track_b)
    if args.json:
        record = {"names": list(names), "level": args.level, "correction": "bonferroni"}
        inputs = [("a", args.track_a), ("b", args.track_b), *data_inputs(args)]
        print(json_output("dstc2-compare", inputs, {**record, "tests": [asdict(t) for t in tests]}))
    else:
        print(f"A: {names[0]}\nB: {names[1]}\n")
        print(_table(tests, names, args.level))
        print(f"\nschedule 2, scheme A; Bonferroni over {sum(t.p is not None for t in tests)} tests")
    return 0
