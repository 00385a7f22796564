"""Command line: ``dst-metrics score FILE …`` and ``dst-metrics explain FILE --dialogue ID``.

Files are in the reference layout ``{dialogue_id: {turn_id: {"gt": state, "pr": state}}}``.
Every file is read and validated before any figure is printed; bad input exits with status 2
and a message naming the file, dialogue, turn and field.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence

from . import metrics
from .core import MODES
from .corpus import load_reference_file
from .errors import InputError
from .scoring import Scores, score
from .states import VALUE_MATCHINGS

try:
    import msgspec as _msgspec
except ImportError:  # pragma: no cover
    _msgspec = None

TABLE_COLUMNS = (
    ("GCA", "gca"),
    ("JGA", "jga"),
    ("FGA", "fga"),
    ("SA", "sa"),
    ("AGA", "aga"),
    ("RSA", "rsa"),
    ("SlotF1", "slot_f1"),
)
PER_DIALOGUE_KEYS = ("gca", "fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0")


def _dumps(obj: object) -> str:
    if _msgspec is not None:
        return _msgspec.json.encode(obj).decode()
    import json

    return json.dumps(obj, ensure_ascii=False)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dst-metrics", description="Score dialogue state tracking predictions (GCA, JGA, FGA, SA, AGA, RSA)."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    def add_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--mode", choices=MODES, default="official", help="official (default) or corrected")
        sub.add_argument("--alpha", type=float, default=metrics.OFFICIAL_ALPHA, help="GCA value weight (10/11)")
        sub.add_argument("--fga-lambda", type=float, default=metrics.DEFAULT_FGA_LAMBDA, help="FGA decay (0.5)")
        sub.add_argument("--num-slots", type=int, default=metrics.MULTIWOZ_NUM_SLOTS, help="K for SA (30)")
        sub.add_argument("--value-matching", choices=VALUE_MATCHINGS, default="exact")

    score_cmd = commands.add_parser("score", help="score one or more prediction files")
    score_cmd.add_argument("files", nargs="+", metavar="FILE")
    add_options(score_cmd)
    score_cmd.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    score_cmd.add_argument("--per-dialogue", action="store_true", help="with --json: add per-dialogue figures")

    explain_cmd = commands.add_parser("explain", help="per turn and slot: how GCA counted a dialogue")
    explain_cmd.add_argument("file", metavar="FILE")
    explain_cmd.add_argument("--dialogue", help="dialogue id (default: the first)")
    add_options(explain_cmd)
    return parser


def _record(path: str, scores: Scores, dialogues: dict[str, Scores] | None) -> dict:
    record = {"file": path, **scores.as_dict()}
    if dialogues is not None:
        record["dialogues"] = {
            dialogue_id: {key: value for key, value in s.as_dict().items() if key in PER_DIALOGUE_KEYS}
            for dialogue_id, s in dialogues.items()
        }
    return record


def _table(rows: list[tuple[str, Scores]]) -> str:
    width = max(len("file"), *(len(path) for path, _ in rows))
    header = f"{'file':<{width}}  " + "  ".join(f"{name:>6}" for name, _ in TABLE_COLUMNS) + "   turns"
    lines = [header]
    for path, s in rows:
        cells = "  ".join(f"{100 * getattr(s, key):6.2f}" for _, key in TABLE_COLUMNS)
        lines.append(f"{path:<{width}}  {cells}  {s.turns:6d}")
    lines.append(f"scores in percent; FGA at lambda={rows[0][1].signature.split('lambda:')[1].split('|')[0]}")
    lines.append(f"signature: {rows[0][1].signature}")
    return "\n".join(lines)


def _score(args: argparse.Namespace) -> int:
    corpora = [(path, load_reference_file(path, value_matching=args.value_matching)) for path in args.files]
    options = {"mode": args.mode, "alpha": args.alpha, "fga_lambda": args.fga_lambda, "num_slots": args.num_slots}
    rows = []
    for path, corpus in corpora:
        report = score(corpus, per_dialogue=args.per_dialogue and args.json, **options)
        rows.append((path, report))
    if args.json:
        out = sys.stdout
        for path, report in rows:
            dialogues = report.dialogues if args.per_dialogue else None
            out.write(_dumps(_record(path, report.scores, dialogues)) + "\n")
    else:
        print(_table([(path, report.scores) for path, report in rows]))
    return 0


def _explain(args: argparse.Namespace) -> int:
    from .explain import domain_gca, explain_dialogue

    corpus = load_reference_file(args.file, value_matching=args.value_matching)
    dialogue = corpus.dialogues[0] if args.dialogue is None else corpus.dialogue(args.dialogue)
    rows = explain_dialogue(dialogue, args.mode)
    slot_width = max([4, *(len(r.slot) for r in rows)])
    value_width = max([4, *(len(str(v)) for r in rows for v in (r.gold, r.pred))])
    print(f"dialogue {dialogue.dialogue_id} ({args.mode} mode)")
    print(f"{'turn':>4}  {'slot':<{slot_width}}  {'gold':<{value_width}}  {'pred':<{value_width}}  count")
    for r in rows:
        gold = "-" if r.gold is None else r.gold
        pred = "-" if r.pred is None else r.pred
        print(f"{r.turn_id:>4}  {r.slot:<{slot_width}}  {gold:<{value_width}}  {pred:<{value_width}}  {r.label}")
    print()
    report = score(
        type(corpus)((dialogue,), corpus.value_matching),
        mode=args.mode,
        alpha=args.alpha,
        fga_lambda=args.fga_lambda,
        num_slots=args.num_slots,
    )
    s = report.scores
    print(f"correct {s.correct}  wrong {s.wrong}  missed {s.missed}  overshot {s.overshot}  GCA {100 * s.gca:.2f}")
    for domain, figures in domain_gca([dialogue], args.mode, args.alpha).items():
        counts = "  ".join(f"{k} {figures[k]}" for k in ("correct", "wrong", "missed", "overshot"))
        print(f"  {domain}: {counts}  GCA {100 * figures['gca']:.2f}")
    print(f"signature: {s.signature}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dst-metrics`` and ``python -m dst_metrics``; returns the exit status."""
    args = _parser().parse_args(argv)
    gc.disable()  # a short run that allocates millions of small objects and no cycles
    try:
        return _score(args) if args.command == "score" else _explain(args)
    except InputError as error:
        print(f"dst-metrics: error: {error}", file=sys.stderr)
        return 2
    except (OSError, KeyError) as error:
        print(f"dst-metrics: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
