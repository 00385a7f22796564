"""Profile ``convlab``: JGA and slot P/R/F1 as ConvLab-3's DST evaluation computes them
(``convlab/dst/evaluate_unified_datasets.py``, PyPI ``convlab`` 3.0.1). Its conventions, and which
slots are visited: ``docs/compat.md``. The counts are sums over dialogues (`Sums`), so the profile
scores while reading in several processes; the visited slots are applied when the sums are complete.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field

from ..core.tally import MERGE, histogram, integer
from ..corpus import Dialogue
from ..options import Options
from ..states import Alternatives
from .base import DialogueSums, Profile, precision_recall_f1, turn_results

NAME = "convlab"
KEYS: tuple[str, ...] = ("jga", "slot_precision", "slot_recall", "slot_f1")
"""The figures this profile replaces."""
UNSET = ""
ALTERNATIVES = "|"
NOTHING: frozenset[str] = frozenset()


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


def _listed(mine: frozenset[str] | None, theirs: frozenset[str] | None) -> frozenset[str] | None:
    return theirs if mine is None else mine if theirs is None else mine | theirs


@dataclass
class Sums:
    """ConvLab-3's counts of some dialogues, summed as each field declares (`base.DialogueSums`). Which slots a turn
    visits is a fact of the whole corpus (see the module), so a turn's active predicted slots outside its
    gold state wait in `pending` until `visited` is known; every other count is final when the turn is added."""

    tp: int = integer()
    fp: int = integer()  # on the slots of the gold states
    fn: int = integer()
    turns: int = integer()
    right: int = integer()  # turns without an FP or FN on their gold state's slots, nor an active predicted-only slot
    pending: dict[tuple[frozenset[str], bool], int] = histogram()
    """{(a turn's active predicted-only slots, no FP or FN on its gold state's slots): turns}"""
    gold_slots: set[str] = field(default_factory=set, metadata={MERGE: operator.or_})
    listed: frozenset[str] | None = field(default=None, metadata={MERGE: _listed})  # `Corpus.listed_gold_slots`
    unset_in_gold: bool = field(default=False, metadata={MERGE: operator.or_})  # some gold state holds ""

    def visited(self) -> frozenset[str] | None:
        """The slots visited in every turn; None when each gold state's own keys are (see the module)."""
        if self.listed is not None:
            return self.listed | self.gold_slots
        return None if self.unset_in_gold else frozenset(self.gold_slots)

    def counts(self) -> tuple[int, int, int, int, int]:
        """(TP, FP, FN, jointly correct turns, turns), the pending slots counted where visited."""
        visited = self.visited()
        fp, right = self.fp, self.right
        for (slots, gold_right), turns in self.pending.items():
            extra = 0 if visited is None else len(slots & visited)
            fp += extra * turns
            right += turns if gold_right and not extra else 0
        return self.tp, fp, self.fn, right, self.turns


def turn_counts(gold: dict, pred: dict) -> tuple[int, int, int, frozenset[str]]:
    """(TP, FP, FN) on the slots of one turn's gold state, and its active predicted slots outside them.
    A visited slot absent from both states is unset on both sides and counts nothing, and the gold
    state's slots are always visited, so these are all a turn's counts once the visited slots are known."""
    tp = fp = fn = 0
    for slot, value in gold.items():
        wanted, given = gold_options(value), pred_options(pred.get(slot, UNSET))
        if wanted is None and given is None:
            continue
        if wanted is not None and given is not None and not wanted.isdisjoint(given):
            tp += 1
            continue
        fp += given is not None
        fn += wanted is not None
    outside = pred.keys() - gold.keys()
    active = frozenset(slot for slot in outside if pred_options(pred[slot]) is not None) if outside else NOTHING
    return tp, fp, fn, active


def _add(sums: Sums, dialogue: Dialogue, options: Options) -> None:
    """Add one dialogue's turns into `sums`."""
    last = None
    for gold in dialogue.gold:
        if gold is not last:
            sums.gold_slots.update(gold)
            sums.unset_in_gold = sums.unset_in_gold or UNSET in gold.values()
            last = gold
    for tp, fp, fn, active in turn_results(dialogue, turn_counts):
        sums.turns += 1
        sums.tp += tp
        sums.fp += fp
        sums.fn += fn
        if active:
            key = (active, not (fp or fn))
            sums.pending[key] = sums.pending.get(key, 0) + 1
        elif not (fp or fn):
            sums.right += 1


def _list(sums: Sums, slots: frozenset[str]) -> None:
    sums.listed = _listed(sums.listed, slots)


def _figures(sums: Sums, options: Options) -> dict[str, object]:
    """JGA and slot P/R/F1 (fractions) as ConvLab-3 computes them."""
    tp, fp, fn, correct, turns = sums.counts()
    precision, recall, f1 = precision_recall_f1(tp, tp + fp, tp + fn)
    return {"jga": correct / turns, "slot_precision": precision, "slot_recall": recall, "slot_f1": f1}


SUMS = DialogueSums(Sums, _add, _figures, _list)
"""The profile as sums over dialogues (`Sums`), the listed gold slots of each corpus read included."""


figures = SUMS.of_corpus
"""JGA and slot P/R/F1 (fractions) of a corpus under options, as ConvLab-3 computes them."""


PROFILE = Profile(
    NAME,
    'ConvLab-3\'s DST evaluation (JGA, slot P/R/F1; only "" unset, values without white space, | alternatives)',
    figures,
    sums=SUMS,
)
