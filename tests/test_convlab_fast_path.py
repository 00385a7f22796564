"""The ConvLab-3 predictions.json reader's fast path (issue 22) and the profile's per-turn counts.

The fast path keeps each domain of a state raw and decodes only the domains that differ from an all-unset
domain or from the same domain of the state before; it must build exactly the corpus of the general path
(`_read_samples`), listed gold slots included, or leave the input to it. The profile's counts look only at
the slots of a turn's two states and count an unchanged turn as the one before: they must equal ConvLab-3's
definition, a walk over every visited slot of every turn (written out below).
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics import InputError
from dst_metrics.compat.convlab import UNSET, gold_options, pred_options
from dst_metrics.readers.base import ReadRequest
from dst_metrics.readers.convlab import _read_samples, read_samples
from tests.test_compat_convlab import counts as profile_counts

# "a-b" + "c" and "a" + "b-c" make the same slot name; a domain of "value" and "score" looks like a scored value
DOMAINS = ["hotel", "a", "a-b"]
SLOTS = ["area", "b-c", "c", "value", "score"]
VALUES = ["", "", "", "north", "North ", " ", "none", "x|y", "guest house"]

states = st.dictionaries(
    st.sampled_from(DOMAINS),
    st.dictionaries(st.sampled_from(SLOTS), st.sampled_from(VALUES), max_size=4),
    max_size=3,
)


@st.composite
def samples(draw) -> list[dict]:
    """Samples of 1-3 dialogues; states often repeat the one before (as unchanged turns do)."""
    out = []
    for dialogue in range(draw(st.integers(1, 3))):
        gold = pred = {}
        for turn in range(draw(st.integers(1, 4))):
            if turn == 0 or draw(st.booleans()):
                gold = draw(states)
            if turn == 0 or draw(st.booleans()):
                pred = gold if draw(st.booleans()) else draw(states)
            sample = {"dialogue_id": f"d{dialogue}", "utt_idx": 2 * turn, "state": gold}
            out.append({**sample, "predictions": {"state": pred}})
    return out


def outcome(reader, data: bytes, matching: str):
    try:
        corpus = reader(ReadRequest(data, "predictions.json", matching))
    except InputError as error:
        return ("error", str(error))
    return corpus, corpus.listed_gold_slots


@settings(max_examples=300, deadline=None)
@given(samples(), st.sampled_from(["exact", "normalized"]), st.booleans())
def test_the_fast_path_builds_what_the_general_path_builds(data, matching, spaced):
    text = json.dumps(data, indent=1 if spaced else None).encode()
    assert outcome(read_samples, text, matching) == outcome(_read_samples, text, matching)


def visited_slots(corpus) -> frozenset[str] | None:
    """The slots ConvLab-3 visits in every turn (the profile module's docstring): the listed gold slots and
    every slot set in some gold state; without a list every gold slot, or None (each gold state's own
    slots) when some gold state holds ``""``."""
    gold = {slot for dialogue in corpus for state in dialogue.gold for slot in state}
    if corpus.listed_gold_slots is not None:
        return corpus.listed_gold_slots | gold
    return None if any(UNSET in state.values() for d in corpus for state in d.gold) else frozenset(gold)


def definition_counts(corpus) -> tuple[int, int, int, int, int]:
    """ConvLab-3's loop: every visited slot of every turn."""
    filled = visited_slots(corpus)
    tp = fp = fn = correct = turns = 0
    for dialogue in corpus:
        for gold, pred in zip(dialogue.gold, dialogue.pred):
            turns += 1
            right = True
            for slot in gold if filled is None else filled:
                wanted, given = gold_options(gold.get(slot, UNSET)), pred_options(pred.get(slot, UNSET))
                if wanted is None and given is None:
                    continue
                if wanted is not None and given is not None and not wanted.isdisjoint(given):
                    tp += 1
                    continue
                right = False
                fp += given is not None
                fn += wanted is not None
            correct += right
    return tp, fp, fn, correct, turns


@settings(max_examples=300, deadline=None)
@given(samples())
def test_the_profile_counts_are_convlab_3s_walk_over_every_visited_slot(data):
    try:
        corpus = read_samples(ReadRequest(json.dumps(data).encode(), "predictions.json"))
    except InputError:
        return  # a slot name given twice: nothing to count
    assert profile_counts(corpus) == definition_counts(corpus)
