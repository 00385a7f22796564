"""``dst-metrics explain FILE [--dialogue ID] [--all-slots]``: per turn and slot, how GCA counted one
dialogue, then its counts and GCA, and each domain's."""

from __future__ import annotations

import argparse
import difflib

from ..corpus import Corpus, Dialogue
from ..errors import InputError, json_text
from ..scoring.scores import score
from .common import add_input_options, format_table, options_from_args
from .inputs import read_input

HELP = "per turn and slot: how GCA counted a dialogue"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``dst-metrics explain``: FILE, --dialogue, --all-slots and the input options."""
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--dialogue", help="dialogue id (default: the first)")
    parser.add_argument("--all-slots", action="store_true", help="also slots carried over unchanged")
    add_input_options(parser)


def _find_dialogue(corpus: Corpus, wanted: str | None, path: str) -> Dialogue:
    if wanted is None:
        return corpus.dialogues[0]
    try:
        return corpus.dialogue(wanted)
    except KeyError:
        known = [d.dialogue_id for d in corpus.dialogues]
        near = difflib.get_close_matches(wanted, known, n=5, cutoff=0.5) or known[:5]
        listed = ", ".join(json_text(d) for d in near)
        raise InputError(f"there is no dialogue {json_text(wanted)}; the nearest ids: {listed}", source=path) from None


def run(args: argparse.Namespace) -> int:
    """Read FILE, print the dialogue's table of counted slots, its counts and GCA, and each domain's."""
    from ..analysis.explain import domain_gca, explain_dialogue

    options = options_from_args(args)
    corpus = read_input(args.file, args)[0]
    dialogue = _find_dialogue(corpus, args.dialogue, args.file)
    rows = [r for r in explain_dialogue(dialogue, options.mode) if args.all_slots or r.count_types]
    shown = "every slot" if args.all_slots else "changed slots only; --all-slots shows every slot"
    print(f"dialogue {json_text(dialogue.dialogue_id)} ({options.mode} mode, {shown})")
    table = [[str(r.turn_id), r.slot, _value(r.gold), _value(r.pred), r.label] for r in rows]
    print(format_table(["turn", "slot", "gold", "pred", "count"], table, "rllll") if table else "(no slot changed)")
    report = score(Corpus((dialogue,), corpus.value_matching), options)
    s = report.scores
    print(f"\ncorrect {s.correct}  wrong {s.wrong}  missed {s.missed}  overshot {s.overshot}  GCA {100 * s.gca:.2f}")
    for domain, figures in domain_gca([dialogue], options.mode, options.alpha).items():
        counts = "  ".join(f"{k} {figures[k]}" for k in ("correct", "wrong", "missed", "overshot"))
        print(f"  {domain}: {counts}  GCA {100 * figures['gca']:.2f}")
    print(f"signature: {report.signature}")
    return 0


def _value(value: str | None) -> str:
    return "-" if value is None else value
