"""Profile ``convlab``: JGA and slot P/R/F1 as ConvLab-3's DST evaluation computes them
(``convlab/dst/evaluate_unified_datasets.py``, PyPI ``convlab`` 3.0.1; ``shared/COMPAT.md``).

Its conventions, as measured by running that code:

- only ``""`` is inactive; ``none``, ``dontcare`` are ordinary values;
- values are compared after lower-casing and removing **all** white space ("guest house" =
  "GuestHouse"); ``|`` separates alternatives on both sides and any overlap matches (a gold list
  of acceptable values is such a set of alternatives too);
- only the domain/slot pairs of the gold state are visited: a predicted slot outside them never
  counts. Per visited slot: gold and prediction active and matching -> TP; both active and
  different -> one FP and one FN; gold active only -> FN; prediction active only -> FP;
- JGA ("accuracy"): share of turns where no visited slot is an FP or FN; precision or recall
  with a zero denominator is 0, F1 too when P + R = 0.

Which slots are visited: the unified format lists every slot of its domains, ``""`` when unset;
our ConvLab readers drop the unset slots and keep the listed ones in `Corpus.listed_gold_slots`,
which are then the visited slots of every turn (the unified format writes one template of slots
into every state, so a turn's listed slots are the corpus's). Layouts that list only active slots
(the GCA reference layout, TRADE, data.json) have no such list: then every domain-slot seen in the
corpus's gold states is visited, ``""`` where absent, which is what the unified format would hold
(its ontology, as far as the corpus shows it). A gold state that still holds ``""`` values (a
corpus built by hand) has its own keys visited, as ConvLab-3 does.
"""

from __future__ import annotations

import functools

from ..corpus import Corpus
from ..options import Options
from ..states import Alternatives
from .base import Profile, turn_results

NAME = "convlab"
KEYS: tuple[str, ...] = ("jga", "slot_precision", "slot_recall", "slot_f1")
"""The figures this profile replaces."""
UNSET = ""
ALTERNATIVES = "|"


def squeeze(text: str) -> str:
    """A value as ConvLab-3 compares it: lower-cased, without any white space.

    >>> squeeze(" Guest House ")
    'guesthouse'
    """
    return "".join(text.split()).lower()


@functools.lru_cache(maxsize=1 << 16)
def gold_options(value: str | Alternatives) -> frozenset[str] | None:
    """The acceptable values of a gold value as ConvLab-3 compares them; None when it is unset."""
    if isinstance(value, Alternatives):
        return frozenset(squeeze(part) for item in value.order for part in item.split(ALTERNATIVES))
    if len(value) == 0:  # the raw value: "  " is set (and matches nothing but an empty alternative)
        return None
    return frozenset(squeeze(part) for part in value.split(ALTERNATIVES))


@functools.lru_cache(maxsize=1 << 16)
def pred_options(value: str) -> frozenset[str] | None:
    """The alternatives of a predicted value; None when nothing is left after removing white space."""
    squeezed = squeeze(value)
    return frozenset(squeezed.split(ALTERNATIVES)) if squeezed else None


def complete_gold(corpus: Corpus) -> bool:
    """True when the gold states list unset slots as ``""`` (the unified format)."""
    return any(UNSET in state.values() for dialogue in corpus for state in dialogue.gold)


def gold_slots(corpus: Corpus) -> tuple[str, ...]:
    """Every domain-slot of the corpus's gold states, in the order first seen."""
    slots: dict[str, None] = {}
    for dialogue in corpus:
        for state in dialogue.gold:
            slots.update(dict.fromkeys(state))
    return tuple(slots)


def visited_slots(corpus: Corpus) -> tuple[str, ...] | None:
    """The slots visited in every turn; None when each gold state's own keys are (see the module)."""
    if corpus.listed_gold_slots is not None:
        return tuple(sorted(corpus.listed_gold_slots))
    return None if complete_gold(corpus) else gold_slots(corpus)


def counts(corpus: Corpus) -> tuple[int, int, int, int, int]:
    """(TP, FP, FN, jointly correct turns, turns) under ConvLab-3's conventions (see the module)."""
    filled = visited_slots(corpus)
    visited = None if filled is None else frozenset(filled)
    tp = fp = fn = correct = turns = 0
    for dialogue in corpus:
        for turn_tp, turn_fp, turn_fn, right in turn_results(dialogue, lambda g, p: turn_counts(g, p, visited)):
            turns += 1
            tp += turn_tp
            fp += turn_fp
            fn += turn_fn
            correct += right
    return tp, fp, fn, correct, turns


def turn_counts(gold: dict, pred: dict, visited: frozenset[str] | None) -> tuple[int, int, int, bool]:
    """(TP, FP, FN, jointly correct) of one turn; `visited`: the slots visited, None for gold's own keys.
    A visited slot absent from both states is unset on both sides and counts nothing, so only the
    slots of the two states are looked at."""
    slots = gold.keys() if visited is None else (gold.keys() | pred.keys()) & visited
    tp = fp = fn = 0
    for slot in slots:
        wanted, given = gold_options(gold.get(slot, UNSET)), pred_options(pred.get(slot, UNSET))
        if wanted is None and given is None:
            continue
        if wanted is not None and given is not None and not wanted.isdisjoint(given):
            tp += 1
            continue
        fp += given is not None
        fn += wanted is not None
    return tp, fp, fn, not (fp or fn)


def figures(corpus: Corpus, options: Options) -> dict[str, float]:
    """JGA and slot P/R/F1 (fractions) as ConvLab-3 computes them."""
    tp, fp, fn, correct, turns = counts(corpus)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"jga": correct / turns, "slot_precision": precision, "slot_recall": recall, "slot_f1": f1}


PROFILE = Profile(
    NAME,
    'ConvLab-3\'s DST evaluation (JGA, slot P/R/F1; only "" unset, values without white space, | alternatives)',
    figures,
)
