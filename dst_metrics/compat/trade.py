"""Profile ``trade``: JGA, slot accuracy and F1 as TRADE's ``evaluate_metrics`` computes them (Wu et
al., 2019; github jasonwu0731/trade-dst, ``models/TRADE.py``). Its conventions: ``docs/compat.md``. Its
SA and F1 are float sums in file order, repeated here turn by turn, so the profile scores in one process.
"""

from __future__ import annotations

from ..core.tally import hyphenated, turn_figures
from ..corpus import Corpus
from ..options import Options
from .base import Profile, precision_recall_f1, turn_results

NAME = "trade"


def turn_f1(hits: int, n_gold: int, extra: int) -> float:
    """TRADE's F1 of one turn from |G ∩ P|, |G| and |P \\ G| (see the module)."""
    if not n_gold:
        return 0.0 if extra else 1.0
    return precision_recall_f1(hits, hits + extra, n_gold)[2]


def trade_turn(gold: dict, pred: dict) -> tuple[bool, int, float]:
    """(sets equal, SA misses + wrongs, F1) of one turn under TRADE's conventions."""
    strings = hyphenated(gold) or hyphenated(pred)  # else the strings' counts are the slots' (`hyphenated`)
    equal, slot_errors, hits, n_gold, _, _, extra, _ = turn_figures(gold, pred, string_quirk=strings)
    return equal, slot_errors, turn_f1(hits, n_gold, extra)


def trade_figures(corpus: Corpus, options: Options) -> dict[str, object]:
    """{jga, sa, slot_f1} as TRADE's evaluate_metrics computes them (fractions, unrounded)."""
    turns = joint = 0
    sa = f1 = 0.0
    k = options.num_slots
    for dialogue in corpus.dialogues:
        for equal, slot_errors, turn_f1_value in turn_results(dialogue, trade_turn):
            turns += 1
            joint += equal
            sa += (k - slot_errors) / k
            f1 += turn_f1_value
    return {"jga": joint / turns, "sa": sa / turns, "slot_f1": f1 / turns}


PROFILE = Profile(NAME, "TRADE's evaluate_metrics: string sets with none, SA with K slots, F1 per turn", trade_figures)
