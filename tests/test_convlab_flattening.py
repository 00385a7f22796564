"""The ConvLab-3 predictions.json reader's flat states (issue 22) and the profile's per-turn counts.

For exact matching the reader flattens each state itself, keeping each domain raw and decoding only the
domains that differ from an all-unset domain or from the same domain of the state before; it must build
exactly the corpus `CorpusBuilder` builds from the nested states (written out below), listed gold slots
included, in any order of the samples. The profile's counts look only at the slots of a turn's two states
and count an unchanged turn as the one before: they must equal ConvLab-3's definition, a walk over every
visited slot of every turn (written out below).
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics import InputError
from dst_metrics.compat.convlab import UNSET, gold_options, pred_options
from dst_metrics.corpus import CorpusBuilder
from dst_metrics.readers.base import ReadRequest
from dst_metrics.readers.convlab import read_samples
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


def outcome(read, data: bytes, matching: str):
    try:
        corpus = read(data, matching)
    except InputError as error:
        return ("error", str(error))
    return corpus, corpus.listed_gold_slots


def read_nested(data: bytes, matching: str):
    """The samples grouped by dialogue_id, in utt_idx order, their nested states given to `CorpusBuilder`."""
    groups: dict[str, list] = {}
    for sample in json.loads(data):
        groups.setdefault(sample["dialogue_id"], []).append(sample)
    builder = CorpusBuilder(matching, unset=("", ""))
    for dialogue_id, group in groups.items():
        group.sort(key=lambda sample: sample["utt_idx"])
        golds, preds = [s["state"] for s in group], [s["predictions"]["state"] for s in group]
        builder.add(dialogue_id, list(range(len(group))), golds, preds)
    return builder.corpus()


def read_file(data: bytes, matching: str):
    return read_samples(ReadRequest(data, "predictions.json", matching))


@settings(max_examples=300, deadline=None)
@given(samples(), st.sampled_from(["exact", "normalized"]), st.booleans(), st.booleans())
def test_the_reader_builds_what_the_builder_builds_from_nested_states(data, matching, spaced, reverse):
    text = json.dumps(data[::-1] if reverse else data, indent=1 if spaced else None).encode()
    assert outcome(read_file, text, matching) == outcome(read_nested, text, matching)


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
