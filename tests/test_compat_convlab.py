"""Profile ``convlab``: ConvLab-3's DST evaluation (JGA, slot P/R/F1), one convention a test.

Each case is a small corpus in the reference layout with (TP, FP, FN, jointly right turns,
turns) derived by hand in its comment. The same cases, turned into ConvLab-3 samples (gold filled
as the profile fills it, gold lists joined with ``|``), were run through ConvLab-3 3.0.1's
``evaluate_unified_datasets.evaluate`` outside the project and gave these figures.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics import Corpus, score
from dst_metrics.compat import PROFILES
from dst_metrics.compat.convlab import KEYS, SUMS, Sums, figures, pred_options, squeeze
from dst_metrics.corpus import only_share
from dst_metrics.options import Options
from dst_metrics.readers import read
from dst_metrics.readers.base import ReadRequest
from dst_metrics.readers.convlab import read_samples
from dst_metrics.scoring.streaming import Tallying, add_up
from tests.conftest import REFERENCE, requires_shared


def counts(corpus: Corpus) -> tuple[int, int, int, int, int]:
    """(TP, FP, FN, jointly correct turns, turns) under ConvLab-3's conventions (the profile's sums)."""
    sums = Sums()
    SUMS.add_corpus(sums, corpus, Options())
    return sums.counts()


def turn(gold: dict, pred: dict) -> dict:
    return {"gt": gold, "pr": pred}


CASES = {
    # area: gold "" (unset), prediction "none" (a value) -> FP; internet: gold "none" (a value),
    # not predicted -> FN. The gold holds "": complete, so only area and internet are visited.
    "none_is_a_value_only_empty_is_unset": (
        {"d": {"0": turn({"hotel": {"area": "", "internet": "none"}}, {"hotel": {"area": "none"}})}},
        (0, 1, 1, 0, 1),
    ),
    # "GuestHouse" = "guest house", "a and b guesthouse" = "A and B Guest House": case and every
    # white space removed -> 2 TP; a prediction of white space only is unset (stars not in gold: not visited).
    "case_and_white_space": (
        {
            "d": {
                "0": turn(
                    {"hotel": {"type": "guest house", "name": "A and B Guest House"}},
                    {"hotel": {"type": "GuestHouse", "name": "a and b guesthouse", "stars": "  "}},
                )
            }
        },
        (2, 0, 0, 1, 1),
    ),
    # leaveat "17:15" is one of "after 17:00|17:15"; "london|Cambridge Station" overlaps
    # "cambridge|cambridge station"; book time "18.45" is in the gold list ["18:45", "18.45"] -> 3 TP;
    # day "monday|tuesday" has nothing in common with "wednesday" -> 1 FP, 1 FN.
    "alternatives_on_both_sides": (
        {
            "d": {
                "0": turn(
                    {
                        "train": {
                            "leaveat": "after 17:00|17:15",
                            "destination": "cambridge|cambridge station",
                            "day": "wednesday",
                        },
                        "restaurant": {"book time": ["18:45", "18.45"]},
                    },
                    {
                        "train": {
                            "leaveat": "17:15",
                            "destination": "london|Cambridge Station",
                            "day": "monday|tuesday",
                        },
                        "restaurant": {"book time": "18.45"},
                    },
                )
            }
        },
        (3, 1, 1, 0, 1),
    ),
    # complete gold (it holds ""): hotel area and stars are visited; the predicted hotel parking
    # and taxi destination are not in the gold state, so they never count -> 1 TP, turn right.
    "only_gold_slots_visited_when_gold_is_complete": (
        {
            "d": {
                "0": turn(
                    {"hotel": {"area": "north", "stars": ""}},
                    {
                        "hotel": {"area": "north", "parking": "yes"},
                        "taxi": {"destination": "cambridge & county folk museum"},
                    },
                )
            }
        },
        (1, 0, 0, 1, 1),
    ),
    # no "" in gold (the GCA layout): every turn is filled with the gold slots of the corpus,
    # hotel-area and hotel-stars. Turn 0: area TP, stars predicted "4" where gold has none -> FP;
    # taxi-destination is no gold slot anywhere: not visited. Turn 1: 2 TP.
    "gold_filled_with_the_corpus_gold_slots": (
        {
            "d": {
                "0": turn(
                    {"hotel": {"area": "north"}},
                    {"hotel": {"area": "north", "stars": "4"}, "taxi": {"leaveat": "17:30"}},
                ),
                "1": turn({"hotel": {"area": "north", "stars": "4"}}, {"hotel": {"area": "north", "stars": "4"}}),
            }
        },
        (3, 1, 0, 1, 2),
    ),
    # area "south" for "north": one FP and one FN; stars right: P = R = F1 = 1/2, JGA 0.
    "a_wrong_value_is_one_fp_and_one_fn": (
        {"d": {"0": turn({"hotel": {"area": "north", "stars": "4"}}, {"hotel": {"area": "south", "stars": "4"}})}},
        (1, 1, 1, 0, 1),
    ),
    # JGA needs every visited slot: turn 0 misses dontcare (FN), turn 1 is all right -> JGA 1/2.
    "jga_needs_every_visited_slot": (
        {
            "d": {
                "0": turn(
                    {"restaurant": {"food": "chinese", "pricerange": "dontcare"}}, {"restaurant": {"food": "chinese"}}
                ),
                "1": turn(
                    {"restaurant": {"food": "chinese", "pricerange": "dontcare"}},
                    {"restaurant": {"food": "chinese", "pricerange": "dontcare"}},
                ),
            }
        },
        (3, 0, 1, 1, 2),
    ),
    # nothing set on either side: TP + FP = TP + FN = 0 -> precision, recall and F1 are 0; JGA 1.
    "zero_denominators_are_zero": ({"d": {"0": turn({"hotel": {"area": ""}}, {})}}, (0, 0, 0, 1, 1)),
    # gold " " is set for ConvLab-3 (it tests the length of the raw value): a prediction "x" is
    # one FP and one FN.
    "gold_white_space_is_set": (
        {"d": {"0": turn({"hotel": {"area": " ", "stars": ""}}, {"hotel": {"area": "x"}})}},
        (0, 1, 1, 0, 1),
    ),
}
"""name: (reference layout, (TP, FP, FN, right turns, turns))."""


@pytest.mark.parametrize("name", CASES)
def test_each_convention(name):
    layout, expected = CASES[name]
    corpus = Corpus.from_reference_layout(layout)
    assert counts(corpus) == expected
    tp, fp, fn, right, turns = expected
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    assert figures(corpus, Options()) == pytest.approx(
        {"jga": right / turns, "slot_precision": precision, "slot_recall": recall, "slot_f1": f1}
    )


def test_figures_of_a_wrong_value_and_of_nothing_set():
    wrong = Corpus.from_reference_layout(CASES["a_wrong_value_is_one_fp_and_one_fn"][0])
    assert figures(wrong, Options()) == {"jga": 0.0, "slot_precision": 0.5, "slot_recall": 0.5, "slot_f1": 0.5}
    nothing = Corpus.from_reference_layout(CASES["zero_denominators_are_zero"][0])
    assert figures(nothing, Options()) == {"jga": 1.0, "slot_precision": 0.0, "slot_recall": 0.0, "slot_f1": 0.0}


def test_value_helpers():
    assert squeeze(" Cambridge &  County\tFolk Museum ") == "cambridge&countyfolkmuseum"
    assert pred_options(" \t") is None and pred_options("North | Centre") == frozenset({"north", "centre"})


def test_the_profile_replaces_its_figures_and_names_itself_in_the_signature():
    assert "convlab" in PROFILES
    corpus = Corpus.from_reference_layout(CASES["jga_needs_every_visited_slot"][0])
    plain = score(corpus).scores
    compat = score(corpus, compat="convlab").scores
    assert compat.signature == plain.signature + "|compat:convlab"
    assert (compat["jga"], compat["slot_precision"], compat["slot_recall"]) == (0.5, 1.0, 0.75)
    assert compat["gca"] == plain["gca"] and compat["sa"] == plain["sa"]  # not ConvLab-3's figures: ours


# Measured by running ConvLab-3 3.0.1's evaluate() on each file turned into samples (gold filled
# with the file's gold slots, "" where unset): accuracy, slot_precision, slot_recall, slot_f1.
MEASURED = {
    "t5_zeroshot/predictions/T5_result_zeroshot_attraction.json": (
        0.3347266881028939,
        0.813780260707635,
        0.2210419828022256,
        0.34765314240254575,
    ),
    "t5_zeroshot/predictions/T5_result_zeroshot_rest.json": (
        0.24888359630842513,
        0.8182165605095542,
        0.6108997527106715,
        0.6995208015682858,
    ),
    "trade/MLCSG_TRADE_reference_layout.json": (
        0.5194082519001085,
        0.9175229926908866,
        0.887899984339928,
        0.9024684644055657,
    ),
}


@requires_shared
@pytest.mark.parametrize("path", MEASURED)
def test_reference_files_give_what_convlab_3_prints(path):
    scores = score(read(REFERENCE / path), compat="convlab").scores
    got = tuple(scores[key] for key in ("jga", "slot_precision", "slot_recall", "slot_f1"))
    assert got == pytest.approx(MEASURED[path], abs=1e-12)


@requires_shared
@pytest.mark.parametrize("path", MEASURED)
def test_reference_files_give_what_convlab_3_prints_in_two_processes(path, capsys):
    from tests.test_parallel import run_json

    (record,) = run_json(capsys, str(REFERENCE / path), "--compat", "convlab", "--jobs", "2")
    got = tuple(record[key] for key in ("jga", "slot_precision", "slot_recall", "slot_f1"))
    assert got == pytest.approx(MEASURED[path], abs=1e-12)


# the profile as sums over dialogues: in processes ------------------------------------------------

UNSET_ONLY = "hotel-parking"
"""A slot the samples below list in every gold state and never set: visited only because it is listed."""


def convlab_samples(layout: dict) -> list[dict]:
    """A reference layout as ConvLab-3 samples, every slot of the corpus listed (``""`` when unset) in
    both states, `UNSET_ONLY` too; predictions set `UNSET_ONLY` on every third turn."""
    slots = sorted({s for turns in layout.values() for t in turns.values() for s in (*t["gt"], *t["pr"])})
    slots.append(UNSET_ONLY)

    def nested(state: dict) -> dict:
        out: dict = {}
        for slot in slots:
            domain, name = slot.split("-", 1)
            out.setdefault(domain, {})[name] = state.get(slot, "")
        return out

    samples = []
    for dialogue_id, turns in layout.items():
        for turn_id, turn in turns.items():
            pred = {**turn["pr"], UNSET_ONLY: "yes"} if len(samples) % 3 == 0 else turn["pr"]
            samples.append(
                {
                    "dialogue_id": dialogue_id,
                    "utt_idx": 2 * int(turn_id),
                    "state": nested(turn["gt"]),
                    "predictions": {"state": nested(pred)},
                }
            )
    return samples


@pytest.mark.parametrize("seed", range(3))
def test_the_command_line_sums_the_profile_in_any_number_of_processes(seed, tmp_path, capsys):
    from tests.test_parallel import random_layout, run_json

    path = tmp_path / "predictions.json"
    path.write_text(json.dumps(convlab_samples(random_layout(seed, dialogues=7 + 9 * seed))))
    corpus = read(path)
    assert UNSET_ONLY in corpus.listed_gold_slots and UNSET_ONLY not in {s for d in corpus for g in d.gold for s in g}
    whole = score(corpus, compat="convlab").scores
    expected = {key: whole[key] for key in KEYS}
    for jobs in ("1", "2", "3"):
        (record,) = run_json(capsys, str(path), "--compat", "convlab", "--jobs", jobs)
        assert {key: record[key] for key in KEYS} == expected, jobs  # equal, not close: integer sums
        assert record["gca"] == whole.gca and record["signature"] == whole.signature
    # the listed slot counts: the same states without the list (the reference layout) give other figures
    unlisted = Corpus.from_dialogues([d.pred for d in corpus], [d.gold for d in corpus])
    assert counts(unlisted)[1] < counts(corpus)[1]  # fewer FP


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**6), st.integers(1, 4))
def test_the_sums_of_every_share_add_up_to_the_whole(seed, n):
    # each share of the samples read as a worker reads it (`only_share`), summed as it is tallied, listed
    # gold slots included, then added up: the counts of the whole corpus
    from tests.test_parallel import random_layout

    data = json.dumps(convlab_samples(random_layout(seed, dialogues=1 + seed % 6))).encode()
    whole = counts(read_samples(ReadRequest(data, "predictions.json")))
    tallying = Tallying(profile=SUMS, options=Options(compat="convlab"))
    parts = []
    for k in range(n):
        with only_share(k, n):
            share = read_samples(ReadRequest(data, "predictions.json"))
        parts.append(tallying(share))
        assert parts[-1].total.turns == share.num_turns  # every dialogue passed on to the tally
    assert add_up(parts).sums.counts() == whole
