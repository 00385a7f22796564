"""``dst-metrics dstc2``: score a DSTC2 tracker output as the official score.py and report.py do:
check the track file, then print report.py's tables (or ``--json``); ``--scorefile`` writes the
official ``score.csv``. Warnings go to stderr; ``--strict`` makes the first one an error (exit 2).
"""

from __future__ import annotations

import argparse
import os

HELP = "score a DSTC2 tracker output (accuracy, L2, MRR, updates, ROC) as the official scorer does"
EXTRA = "dstc2"
"""The scorer computes the rows column-wise, with numpy (the dstc2 extra)."""
MAX_WARNINGS_SHOWN = 20
"""Warnings printed one per line before the rest are counted in one line."""


def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """--dataset, --dataroot, --ontology, --flist (shared with dstc2-compare)."""
    parser.add_argument("--dataset", required=True, metavar="NAME", help="dataset name (e.g. dstc2_data)")
    parser.add_argument("--dataroot", required=True, metavar="DIR", help="folder the flist's session paths are under")
    parser.add_argument("--ontology", required=True, metavar="FILE", help="ontology JSON (e.g. ontology_dstc2.json)")
    parser.add_argument("--flist", metavar="FILE", help="session list (default <dataroot>/<dataset>.flist)")
    parser.add_argument("--strict", action="store_true", help="treat every warning of the check as an error")
    parser.add_argument("--quiet", action="store_true", help="no progress bar (shown on a terminal after 2 s)")
    parser.set_defaults(value_matching=None)  # dst_metrics.cli.common.run_parsed reads it for every command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``dst-metrics dstc2``."""
    add_data_arguments(parser)
    parser.add_argument("--trackfile", required=True, metavar="FILE", help="tracker output JSON")
    parser.add_argument("--scorefile", metavar="OUT.csv", help="write the official score.csv here")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the report tables")
    from .common import whole_number as _whole_number

    jobs_help = "processes (default: all cores from 200 sessions up, else 1; the figures are the same)"
    parser.add_argument("--jobs", type=_whole_number, metavar="N", help=jobs_help)


def flist_path(args: argparse.Namespace) -> str:
    """--flist, or ``<dataroot>/<dataset>.flist``."""
    return args.flist or os.path.join(args.dataroot, f"{args.dataset}.flist")


def data_inputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """The dataset's inputs in a JSON output: the ontology, the session list and the folder of the sessions."""
    return [("ontology", args.ontology), ("flist", flist_path(args)), ("dataroot", args.dataroot)]


def load_data(args: argparse.Namespace) -> tuple[list, object]:
    """The sessions and the ontology the arguments name."""
    from ..dstc2.data import read_ontology, read_sessions

    ontology = read_ontology(args.ontology)
    return read_sessions(args.dataroot, flist_path(args)), ontology


def load_track(path: str, sessions: list, ontology: object, args: argparse.Namespace) -> tuple[dict, list]:
    """A checked track file and its warnings (printed to stderr unless --strict raised the first)."""
    from ..dstc2.check import check_track
    from ..dstc2.data import read_track

    track = read_track(path)
    problems = check_track(track, sessions, ontology, args.dataset, source=path, strict=args.strict)
    print_problems(problems, path)
    return track, problems


def print_problems(problems: list, path: str) -> None:
    """The check's warnings on stderr, one per line, the rest counted after `MAX_WARNINGS_SHOWN`."""
    import sys

    for problem in problems[:MAX_WARNINGS_SHOWN]:
        print(f"dst-metrics: warning: {problem.error(path)}", file=sys.stderr)
    if len(problems) > MAX_WARNINGS_SHOWN:
        print(f"dst-metrics: warning: {path}: {len(problems) - MAX_WARNINGS_SHOWN} more warnings", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Score, print, and write the CSV if asked."""
    import sys

    from ..dstc2.data import read_ontology
    from ..dstc2.output import basic_rows, csv_text, report_text
    from ..dstc2.pipeline import score_files
    from .common import write_text
    from .json_output import json_output

    ontology = read_ontology(args.ontology)
    scores, problems = score_files(
        args.dataroot, flist_path(args), args.trackfile, ontology, args.dataset, strict=args.strict, jobs=args.jobs
    )
    print_problems(problems, args.trackfile)
    for session_id, turn, reason in scores.skipped:
        print(f"dst-metrics: warning: session {session_id!r} not scored from turn {turn}: {reason}", file=sys.stderr)
    if args.scorefile:
        write_text(args.scorefile, csv_text(scores), "the score file")
    if args.json:
        out: dict[str, object] = dict(scores.nested())
        out["featured"] = scores.featured()
        out["basic"] = dict(basic_rows(scores))
        out["skipped"] = [{"session": s, "turn": t, "reason": r} for s, t, r in scores.skipped]
        out["warnings"] = [str(p) for p in problems]
        print(json_output("dstc2", [("tracker", args.trackfile), *data_inputs(args)], out))
    else:
        sys.stdout.write(report_text(scores))
    return 0
