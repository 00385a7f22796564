"""Fuzzy value matching, as mwzeval matches values: fuzzywuzzy's ``partial_ratio`` above 95.

Used by ``value_matching="fuzzy"`` (`dst_metrics.corpus`) and by the ``mwzeval`` profile, so both
agree with the evaluator researchers published with.
"""

from __future__ import annotations

from functools import cache


@cache
def _rapidfuzz() -> tuple:
    """(Levenshtein.editops, fuzz.ratio), imported on first use: exact scoring never needs them."""
    from rapidfuzz import fuzz
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.editops, fuzz.ratio


FUZZY_THRESHOLD = 95
"""Two values match when `partial_ratio` is strictly above this (mwzeval's rule)."""


def partial_ratio(hyp: str, ref: str) -> int:
    """fuzzywuzzy's ``fuzz.partial_ratio`` (the one mwzeval calls, with python-Levenshtein), from
    rapidfuzz's parts: the shorter string is scored (indel ratio) against the window of the longer
    one that each matching block of their Levenshtein alignment points to, not against every
    window as ``rapidfuzz.fuzz.partial_ratio`` does (``architectural`` / ``architecture``: 92, not
    95.65); equal strings 100, an empty one 0; the best score rounded to a whole number."""
    if hyp == ref:
        return 100
    if not hyp or not ref:
        return 0
    editops, ratio = _rapidfuzz()
    shorter, longer = (hyp, ref) if len(hyp) <= len(ref) else (ref, hyp)
    best = 0.0
    for block in editops(shorter, longer).as_matching_blocks():
        start = max(block.b - block.a, 0)
        score = ratio(shorter, longer[start : start + len(shorter)]) / 100
        if score > 0.995:
            return 100
        best = max(best, score)
    return round(100 * best)


def fuzzy_match(gold: str, pred: str) -> bool:
    """mwzeval's rule: ``partial_ratio(gold, pred) > 95`` (a substring scores 100)."""
    return partial_ratio(pred, gold) > FUZZY_THRESHOLD
