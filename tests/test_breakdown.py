"""Figures per domain and per slot (dst_metrics.analysis.breakdown, ``dst-metrics score --by``)."""

import json

import pytest

from dst_metrics import Corpus
from dst_metrics.analysis.breakdown import breakdown, breakdown_reports, group_of
from dst_metrics.analysis.explain import domain_gca
from dst_metrics.cli import main
from dst_metrics.core.tally import COUNT_TYPES
from dst_metrics.options import Options
from dst_metrics.readers import read
from dst_metrics.scoring.scores import score
from tests.conftest import REFERENCE, requires_shared
from tests.samples import GOLD, PRED

MODES = ("official", "corrected")
A = 10 / 11

# Two domains. d1: hotel right in turns 0-1, wrong (south) in turn 2; taxi wrong (park) in turn 1,
# right in turn 2. d2: taxi only, right in both turns.
TWO_DOMAINS_GOLD = [
    [
        {"hotel-area": "north"},
        {"hotel-area": "north", "taxi-dest": "museum"},
        {"hotel-area": "north", "taxi-dest": "museum"},
    ],
    [{"taxi-dest": "x"}, {"taxi-dest": "x"}],
]
TWO_DOMAINS_PRED = [
    [
        {"hotel-area": "north"},
        {"hotel-area": "north", "taxi-dest": "park"},
        {"hotel-area": "south", "taxi-dest": "museum"},
    ],
    [{"taxi-dest": "x"}, {"taxi-dest": "x"}],
]


def two_domains() -> Corpus:
    return Corpus.from_dialogues(TWO_DOMAINS_PRED, TWO_DOMAINS_GOLD, dialogue_ids=["d1", "d2"])


def counts(scores) -> tuple[int, ...]:
    return tuple(scores[kind] for kind in COUNT_TYPES)


def test_group_of():
    assert group_of("hotel-book day", "domain") == "hotel"
    assert group_of("Restaurants_1-city", "service") == "Restaurants_1"  # SGD: the service, and its domain:
    assert group_of("Restaurants_1-city", "domain") == "Restaurants"
    assert group_of("hotel-book day", "slot") == "hotel-book day"
    assert group_of("price", "domain") == "price"


def test_two_domains_by_hand():
    # hotel: d1 only (d2 has no hotel slot), turns right, right, wrong -> JGA 2/3 over 3 turns.
    # taxi: d1 restricted to taxi is right ({} = {}), wrong (park), right; d2 right twice ->
    # JGA 4/5 over 5 turns. The whole corpus: 3/5.
    # GCA (official): hotel C 1 (turn 0), W 1 (turn 2: the prediction changes to south);
    # taxi C 2 (d1 turn 2, d2 turn 0), W 1 (d1 turn 1). With P = G = C + W:
    # hotel GCA = 4 / (4α·2 + 4(1-α)) = 1 / (1 + α) = 11/21; taxi 6 / (9α + 6(1-α)) = 2 / (2 + α) = 11/16.
    by_domain = breakdown(two_domains())
    assert list(by_domain) == ["hotel", "taxi"]
    hotel, taxi = by_domain["hotel"], by_domain["taxi"]
    assert (hotel.jga, hotel.turns, taxi.jga, taxi.turns) == (pytest.approx(2 / 3), 3, pytest.approx(4 / 5), 5)
    assert score(two_domains()).scores.jga == pytest.approx(3 / 5)
    assert counts(hotel) == (1, 1, 0, 0) and counts(taxi) == (2, 1, 0, 0)
    assert hotel.gca == pytest.approx(11 / 21) and taxi.gca == pytest.approx(11 / 16)
    assert hotel.gca == pytest.approx(1 / (1 + A))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("by", ["domain", "slot"])
@pytest.mark.parametrize("corpus", [two_domains(), Corpus.from_dialogues(PRED, GOLD)], ids=["two_domains", "samples"])
def test_group_counts_add_up_to_the_corpus_counts(corpus, by, mode):
    groups = breakdown(corpus, Options(mode=mode), by)
    total = score(corpus, mode=mode).scores
    assert tuple(map(sum, zip(*(counts(s) for s in groups.values())))) == counts(total)


def test_slots_most_often_missed_or_overshot_come_first():
    # a-x missed in turns 0 and 1 (gold changes, nothing predicted), b-y overshot once, c-z right.
    gold = [[{"a-x": "1", "c-z": "1"}, {"a-x": "2", "c-z": "1"}]]
    pred = [[{"b-y": "1", "c-z": "1"}, {"b-y": "1", "c-z": "1"}]]
    by_slot = breakdown_reports(Corpus.from_dialogues(pred, gold), by="slot")
    assert list(by_slot) == ["a-x", "b-y", "c-z"]
    assert [(r.tally.missed, r.tally.overshot) for r in by_slot.values()] == [(2, 0), (0, 1), (0, 0)]


def test_a_domain_given_only_on_one_side_or_as_none_is_a_group():
    # taxi only predicted (overshot), train only as an explicit "none" in gold.
    corpus = Corpus.from_dialogues([[{"taxi-dest": "x"}]], [[{"train-day": "none"}]])
    groups = breakdown(corpus)
    assert list(groups) == ["taxi", "train"]
    assert (groups["taxi"].overshot, groups["taxi"].jga) == (1, 0)
    assert groups["train"].jga == 1  # none is inactive: {} = {} for the turn-level figures


def test_explain_per_domain_is_the_breakdown():
    corpus = two_domains()
    by_domain = breakdown(corpus)
    expected = {d: {**dict(zip(COUNT_TYPES, counts(s))), "gca": s.gca} for d, s in by_domain.items()}
    assert domain_gca(corpus.dialogues) == expected


def test_cli_json_and_table(tmp_path, capsys):
    layout = {
        f"d{i}": {str(t): {"gt": gold, "pr": pred} for t, (gold, pred) in enumerate(zip(g, p))}
        for i, (g, p) in enumerate(zip(TWO_DOMAINS_GOLD, TWO_DOMAINS_PRED), start=1)
    }
    path = tmp_path / "ref.json"
    path.write_text(json.dumps(layout))
    assert main(["score", str(path), "--by", "domain", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert list(record["by"]) == ["hotel", "taxi"]
    assert record["by"]["hotel"]["jga"] == pytest.approx(2 / 3) and record["by"]["taxi"]["turns"] == 5
    assert main(["score", str(path), "--by", "slot"]) == 0
    table = capsys.readouterr().out
    assert ": by slot" in table and "\nhotel-area " in table and "\ntaxi-dest " in table
    with pytest.raises(SystemExit) as exit_:
        main(["score", str(path), "--by", "nothing"])
    err = capsys.readouterr().err  # argparse's usage error (status 2): its wording is argparse's (issue 56)
    assert exit_.value.code == 2 and "--by" in err and "nothing" in err


@requires_shared
@pytest.mark.parametrize("mode", MODES)
def test_reference_files_group_counts_add_up(mode):
    for name in ("trade/MLCSG_TRADE_reference_layout.json", "t5_zeroshot/predictions/T5_result_zeroshot_rest.json"):
        corpus = read(REFERENCE / name)
        total = counts(score(corpus, mode=mode).scores)
        for by in ("domain", "slot"):
            groups = breakdown(corpus, Options(mode=mode), by)
            assert tuple(map(sum, zip(*(counts(s) for s in groups.values())))) == total


def test_sgd_services_group_into_domains():
    from dst_metrics.analysis.breakdown import group_of

    assert [group_of("Restaurants_1-city", by) for by in ("service", "domain", "slot")] == [
        "Restaurants_1",
        "Restaurants",
        "Restaurants_1-city",
    ]
    assert group_of("hotel-book stay", "domain") == group_of("hotel-book stay", "service") == "hotel"
    assert group_of("my_domain-x", "domain") == "my_domain"  # no version number: the service itself


def test_by_domain_held_out_domains_and_explain_share_one_vocabulary_and_one_restriction():
    """A slot's domain is `states.slot_domain` wherever a domain is named: `--by domain`, a held-out `--domain`
    and `explain`'s rows agree on SGD's versioned services too (the held-out domain matched a ``domain-`` prefix
    before, and explain's rows the service). Each cuts states with `corpus.restricted`, which keeps a state
    that turns share one state."""
    from dst_metrics.analysis.explain import explain_dialogue
    from dst_metrics.analysis.zeroshot import held_out
    from dst_metrics.corpus import Dialogue, restricted

    turn = {"gt": {"Restaurants_1-city": "SF", "Hotels_2-area": "north"}, "pr": {"Restaurants_1-city": "LA"}}
    corpus = read({"d1": {"0": turn, "1": turn}})
    groups = breakdown(corpus, by="domain")
    assert set(groups) == {"Hotels", "Restaurants"}
    assert {row.domain for row in explain_dialogue(corpus.dialogues[0])} == set(groups)
    (held,) = held_out(corpus, "Restaurants").dialogues
    assert {slot for state in (*held.gold, *held.pred) for slot in state} == {"Restaurants_1-city"}
    assert held.gold[0]["Restaurants_1-city"] == "SF" and held.pred[1]["Restaurants_1-city"] == "LA"
    state = {"hotel-area": "north", "taxi-leave at": "9"}
    cut = restricted(Dialogue("d", (0, 1), (state, state), (state, {})), lambda slot: slot.startswith("hotel"))
    assert cut.gold == ({"hotel-area": "north"},) * 2 and cut.gold[0] is cut.gold[1] is cut.pred[0]
