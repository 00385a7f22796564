"""Profile ``fga``: the official FGA code's JGA, SA, AGA and FGA (shared/COMPAT.md, `fga`)."""

import json
import math

import pytest

from dst_metrics import Corpus
from dst_metrics.cli import main
from dst_metrics.compat import PROFILES
from dst_metrics.errors import InputError
from dst_metrics.options import Options
from dst_metrics.readers import read
from dst_metrics.scoring.scores import score
from tests.conftest import REFERENCE, requires_shared

FGA_KEYS = ("jga", "sa", "aga", "fga", "fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0")


def fga(gold, pred, **options):
    """The profile's figures of one dialogue given as lists of flat states (turn ids 0, 1, …)."""
    scores = score(Corpus.from_dialogues([pred], [gold]), Options(compat="fga", **options)).scores
    return {key: scores[key] for key in FGA_KEYS}


def test_registered_with_signature():
    assert "fga" in PROFILES
    report = score(Corpus.from_dialogues([[{"a-b": "x"}]], [[{"a-b": "x"}]]), compat="fga")
    assert report.signature.endswith("|match:exact|compat:fga")


def test_predicted_none_is_a_wrong_extra_item():
    # Gold {hotel-area-north}, predicted {hotel-area-north, hotel-stars-none}: the sets differ, so
    # JGA 0; SA: missed 0, wrong 1 (hotel-stars is no missed slot) -> 29/30; AGA 1/1; FGA: the
    # first turn is wrong, a type-1 error -> 0. Our official mode drops none: JGA 1.
    gold, pred = [{"hotel-area": "north"}], [{"hotel-area": "north", "hotel-stars": "none"}]
    assert fga(gold, pred) == pytest.approx({"jga": 0, "sa": 29 / 30, "aga": 1, **dict.fromkeys(FGA_KEYS[3:], 0)})
    assert score(Corpus.from_dialogues([pred], [gold])).scores.jga == 1


def test_gold_none_is_an_item_to_recall():
    # Gold {hotel-area-none}, nothing predicted: JGA 0, AGA 0/1 = 0, SA (30 - 1) / 30.
    # Our official mode has no gold item at all here: AGA over no turn is 0, JGA 1.
    figures = fga([{"hotel-area": "none"}], [{}])
    assert (figures["jga"], figures["aga"], figures["sa"]) == (0, 0, pytest.approx(29 / 30))
    ours = score(Corpus.from_dialogues([[{}]], [[{"hotel-area": "none"}]])).scores
    assert (ours.jga, ours.aga) == (1, 0)


def test_fga_distance_is_the_turn_key_minus_the_last_type_1_error():
    # Turns 0, 2, 5 (keys with gaps). Turn 0: a wrong, first turn -> type 1, last error = 0.
    # Turn 2: b added on both sides, a still wrong -> type 2, d = 2 - 0 = 2 -> 1 - exp(-2λ).
    # Turn 5: unchanged -> type 2, d = 5 -> 1 - exp(-5λ). FGA = that sum / 3 turns.
    wrong = {"gt": {"a-x": "1"}, "pr": {"a-x": "2"}}
    later = {"gt": {"a-x": "1", "b-y": "1"}, "pr": {"a-x": "2", "b-y": "1"}}
    corpus = Corpus.from_reference_layout({"d": {"0": wrong, "2": later, "5": later}})
    scores = score(corpus, compat="fga").scores
    for lam in (0.25, 0.5, 0.75, 1.0):
        assert scores[f"fga@{lam}"] == pytest.approx((2 - math.exp(-2 * lam) - math.exp(-5 * lam)) / 3)
    assert scores.fga == scores["fga@0.5"] and scores.jga == 0


def test_type_1_errors():
    # Turn 1 adds b, which the prediction gets wrong: its own change is not predicted -> type 1 (0),
    # although the previous turn was wrong too. Turn 2 was right, turn 3 wrong -> type 1 (the
    # previous turn was right). Turn 4 unchanged after turn 3's error -> type 2, d = 4 - 3 = 1.
    gold = [{"a-x": "1"}, {"a-x": "1", "b-y": "1"}, {"c-z": "1"}, {"c-z": "1", "d-w": "1"}, {"c-z": "1", "d-w": "1"}]
    pred = [{"a-x": "2"}, {"a-x": "2", "b-y": "2"}, {"c-z": "1"}, {"c-z": "1", "d-w": "2"}, {"c-z": "1", "d-w": "2"}]
    figures = fga(gold, pred)
    assert figures["jga"] == pytest.approx(1 / 5)
    assert figures["fga@1.0"] == pytest.approx((1 + 1 - math.exp(-1)) / 5)


def test_predicted_none_change_must_be_in_gold():
    # Turn 0 wrong (type 1). Turn 1: the prediction adds hotel-stars-none, which gold lacks: its own
    # new item is not in gold -> type 1, FGA 0, whereas our official mode (none dropped) sees
    # turn 1's state unchanged and scores a type-2 error with d = 1.
    gold = [{"a-x": "1"}, {"a-x": "1"}]
    pred = [{"a-x": "2"}, {"a-x": "2", "hotel-stars": "none"}]
    assert fga(gold, pred)["fga@1.0"] == 0
    assert score(Corpus.from_dialogues([pred], [gold])).scores["fga@1.0"] == pytest.approx((1 - math.exp(-1)) / 2)


def test_sa_uses_num_slots_and_the_last_hyphen():
    # Gold "hotel-type-guest-house" is read as slot "hotel-type-guest" (last hyphen) value "house";
    # the prediction "hotel-type-hotel" as slot "hotel-type". Missed 1 (its slot hotel-type-guest),
    # wrong 1 (hotel-type is no missed slot): SA = (K - 2) / K. Pairs (slot, value) would give K - 1.
    gold, pred = [{"hotel-type": "guest-house"}], [{"hotel-type": "hotel"}]
    assert fga(gold, pred)["sa"] == pytest.approx(28 / 30)
    assert fga(gold, pred, num_slots=10)["sa"] == pytest.approx(8 / 10)


def test_acceptable_values_and_numbers():
    # Beyond the code (strings only): a gold list holds the predicted value when it is one of them,
    # and a number is read as its text.
    assert fga([{"a-x": ["north", "centre"], "a-n": 2}], [{"a-x": "centre", "a-n": "2"}])["jga"] == 1


def test_turns_out_of_order_in_the_file_are_walked_by_id():
    # Turn 0: a wrong, type 1. Turn 1: b added on both sides, a still wrong: type 2, d = 1 - 0,
    # so FGA = (1 - exp(-λ)) / 2 (the FGA code prints 31.606027941427882 at λ = 1 for this file).
    # Listed 1, 0 in the file, the FGA code takes turn 1 as the first turn and turn 0 as a type-2
    # error with d = 0 - 1 = -1: it prints FGA -85.91409142295225 at λ = 1 (measured). A Corpus
    # holds turns by id, so the profile gives the ordered figures for both files.
    t0 = {"gt": {"a-x": "1"}, "pr": {"a-x": "2"}}
    t1 = {"gt": {"a-x": "1", "b-y": "1"}, "pr": {"a-x": "2", "b-y": "1"}}
    ordered = score(Corpus.from_reference_layout({"d": {"0": t0, "1": t1}}), compat="fga").scores
    shuffled = score(Corpus.from_reference_layout({"d": {"1": t1, "0": t0}}), compat="fga").scores
    assert dict(ordered) == dict(shuffled)
    assert 100 * ordered["fga@1.0"] == pytest.approx(31.606027941427882, abs=1e-9)
    assert ordered["fga@0.25"] == pytest.approx((1 - math.exp(-0.25)) / 2)
    assert (ordered.jga, ordered.aga) == (0, pytest.approx(1 / 4))  # AGA: (0/1 + 1/2) / 2


def test_no_gold_item_is_an_input_error():
    corpus = Corpus.from_dialogues([[{"a-x": "1"}, {}]], [[{}, {}]])
    with pytest.raises(InputError, match="fga profile needs at least one gold item"):
        score(corpus, compat="fga")


def test_gca_and_other_figures_keep_our_definitions():
    gold, pred = [[{"hotel-area": "north"}]], [[{"hotel-area": "north", "hotel-stars": "none"}]]
    corpus = Corpus.from_dialogues(pred, gold)
    ours, theirs = score(corpus).scores, score(corpus, compat="fga").scores
    assert ours.jga != theirs.jga
    assert {k: ours[k] for k in ours if k not in FGA_KEYS} == {k: theirs[k] for k in theirs if k not in FGA_KEYS}


def test_cli(tmp_path, capsys):
    path = tmp_path / "ref.json"
    path.write_text(json.dumps({"d": {"0": {"gt": {"hotel": {"area": "none"}}, "pr": {}}}}))
    assert main(["score", str(path), "--compat", "fga", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["jga"], record["aga"]) == (0, 0) and record["signature"].endswith("|compat:fga")


# Printed by the official code (SuvodipDey/FGA, compute_accuracy_trade_somdst.py, run unchanged in
# /tmp with each file as its input and a data.json of empty logs; `round` replaced by the identity
# to print unrounded values): JGA, SA, AGA, FGA at λ = 0.25, 0.5, 0.75, 1.0, in percent.
# fmt: off
MEASURED = {
    "t5_zeroshot/predictions/T5_result_zeroshot_attraction.json": (
        33.47266881028939, 96.54019292604701, 24.5739033249511,
        55.629944678910626, 64.98795549012402, 69.84847341861753, 72.72544015281987,
    ),
    "t5_zeroshot/predictions/T5_result_zeroshot_rest.json": (
        24.888359630842512, 94.8298104594646, 63.171759658102474,
        42.43862587817767, 51.17479155485655, 56.209302072571234, 59.402946042533195,
    ),
    "trade/MLCSG_TRADE_reference_layout.json": (
        51.940825190010855, 97.24710459644857, 90.41885529052887,
        59.5659894235988, 64.03117680012966, 66.88431621002124, 68.8119733127283,
    ),
}
# fmt: on


@requires_shared
@pytest.mark.parametrize("name", sorted(MEASURED))
def test_reproduces_the_official_fga_code(name):
    scores = score(read(REFERENCE / name), compat="fga").scores
    keys = ("jga", "sa", "aga", "fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0")
    assert [100 * scores[key] for key in keys] == pytest.approx(MEASURED[name], abs=1e-6)
    # the printed (2-decimal) figures: for the T5 files, also the published JGA/SA/AGA/FGA
    published = json.loads((REFERENCE / name.replace("predictions", "published")).read_text())
    if "t5" in name:
        assert [round(100 * scores[key], 2) for key in keys] == [
            published[k] for k in ("JGA", "SA", "AGA", "FGA_0.25", "FGA_0.5", "FGA_0.75", "FGA_1.0")
        ]


@requires_shared
def test_trade_file_none_items_move_jga_by_one_turn():
    # The TRADE file holds 11 gold "none" items: the official GCA code's JGA (none dropped) is
    # 3,828 turns, the FGA code's 3,827 (printed 51.94).
    corpus = read(REFERENCE / "trade/MLCSG_TRADE_reference_layout.json")
    assert round(score(corpus).scores.jga * 7368) == 3828
    assert round(score(corpus, compat="fga").scores.jga * 7368) == 3827


# the profile as sums over dialogues: streamed, in processes ---------------------------------------


def _profile_figures(record: dict) -> dict:
    return {key: record[key] for key in FGA_KEYS}


@pytest.mark.parametrize("seed", range(3))
def test_the_command_line_sums_the_profile_while_streaming_in_any_number_of_processes(seed, tmp_path, capsys):
    from tests.test_parallel import random_layout, run_json

    path = tmp_path / "layout.json"
    path.write_text(json.dumps(random_layout(seed, dialogues=7 + 9 * seed)))
    whole = score(read(path), compat="fga").scores
    expected = {key: whole[key] for key in FGA_KEYS}
    for jobs in ("1", "2", "3"):
        (record,) = run_json(capsys, str(path), "--compat", "fga", "--jobs", jobs)
        assert _profile_figures(record) == expected, jobs  # equal, not close: integer sums
        assert record["gca"] == whole.gca and record["signature"] == whole.signature


def test_a_stream_that_stops_part_way_sums_no_dialogue_twice(tmp_path, capsys):
    # JSON Lines whose first dialogue comes back after two others: streaming tallies three dialogues,
    # then stops, and the file is read whole; the profile's sums of the stopped stream are dropped.
    from tests.test_parallel import random_layout, run_json

    layout = random_layout(8, dialogues=3)
    records = [
        {"dialogue_id": d, "turn_id": int(t), "gt": turn["gt"], "pr": turn["pr"]}
        for d, turns in layout.items()
        for t, turn in turns.items()
    ]
    first = [r for r in records if r["dialogue_id"] == records[0]["dialogue_id"]]
    if len(first) < 2:
        first.append({**first[0], "turn_id": first[0]["turn_id"] + 1})
    rest = [r for r in records if r["dialogue_id"] != records[0]["dialogue_id"]]
    path = tmp_path / "apart.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [first[0], *rest, *first[1:]]))
    whole = score(read(path), compat="fga").scores
    (record,) = run_json(capsys, str(path), "--compat", "fga")
    assert _profile_figures(record) == {key: whole[key] for key in FGA_KEYS}
    assert record["turns"] == len(first) + len(rest)


@requires_shared
@pytest.mark.parametrize("name", sorted(MEASURED))
def test_the_official_figures_in_two_processes(name, capsys):
    from tests.test_parallel import run_json

    (record,) = run_json(capsys, str(REFERENCE / name), "--compat", "fga", "--jobs", "2")
    keys = ("jga", "sa", "aga", "fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0")
    assert [100 * record[key] for key in keys] == pytest.approx(MEASURED[name], abs=1e-6)
    assert record == {**record, **_profile_figures(score(read(REFERENCE / name), compat="fga").scores)}


def test_a_profiles_sums_are_tallied_on_the_way_pickle_and_add_up():
    import pickle

    from dst_metrics.scoring.streaming import Tallying, add_up

    corpus = Corpus.from_dialogues([[{"hotel-area": "north"}, {"hotel-area": "none"}]], [[{"hotel-area": "north"}] * 2])
    sums, options = PROFILES["fga"].sums, Options(compat="fga")
    once = Tallying(profile=sums, options=options)(iter(corpus.dialogues))
    assert once.total.turns == once.sums.turns == 2
    copy = pickle.loads(pickle.dumps(once))  # as a worker process sends it back
    assert copy == once
    twice = add_up([once, copy])
    assert (
        twice.sums.turns == 4
        and sums.figures(twice.sums, options)["jga"] == sums.figures(once.sums, options)["jga"] == 0.5
    )
