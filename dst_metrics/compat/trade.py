"""Profile ``trade``: JGA, slot accuracy and F1 as TRADE's ``evaluate_metrics`` computes them (Wu et
al., 2019; github jasonwu0731/trade-dst, ``models/TRADE.py``: ``evaluate_metrics``, ``compute_acc``,
``compute_prf``; copied by many trackers; ``shared/COMPAT.md``).

Its conventions, read from that code:

- each turn's gold and prediction are sets of ``domain-slot-value`` strings, **the value ``none``
  included** (and ``""``, written ``hotel-area-``);
- JGA: the share of turns whose two sets are equal;
- SA (TRADE's "turn accuracy", key ``sa``): (K - missed - wrong) / K with K = `Options.num_slots`
  (TRADE's 30 slots), missed = gold strings not predicted, wrong = predicted strings not in gold
  whose slot, the string up to its **last** hyphen, is not a missed string's; mean over turns;
- F1 (key ``slot_f1``): per turn, F1 of the two sets when gold is not empty (0 when precision +
  recall is 0); with empty gold, 1 when the prediction is empty too, else 0; **mean over turns**.
  TRADE computes per-turn precision and recall but does not report them: ``slot_precision`` and
  ``slot_recall`` keep our definitions.

Its SA and F1 are float sums in file order, which this profile repeats turn by turn to reproduce the
printed digits; so it is not a sum of integers over dialogues (`base.DialogueSums`) and scores in one process.

Beyond the code (which sees strings only): a gold list of acceptable values is written with the
predicted value when that is one of them (as in our official mode).
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
