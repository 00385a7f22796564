"""Scoring generated text as LLM trackers print it (`dst_metrics.trainer.score_generations` and
``dst-metrics generations``): outcomes counted per style, the unparsed shown with dialogue and turn,
gold ``a|b`` read as alternatives on request (with one warning otherwise), deletions in both modes.
Expected figures are counted by hand from the few turns of each test."""

from __future__ import annotations

import json
import warnings

import pytest

from dst_metrics.cli import main
from dst_metrics.trainer import score_generations

# turn updates as IC-DST / RefPyDST / a chat model print them; the gold is cumulative
RUN = [
    ("d1", 0, " hotel WHERE area = north", {"hotel-area": "north"}),  # right
    ("d1", 1, "SQL: SELECT * FROM", {"hotel-area": "north"}),  # no change: right
    ("d1", 2, "update({})  # no change", {"hotel-area": "north"}),  # no change: right
    ("d1", 3, " hotel WHERE stars = 4 AND", {"hotel-area": "north", "hotel-stars": "4"}),  # cut short: right
    ("d2", 0, "I cannot tell.", {"taxi-leaveat": "09:00"}),  # unparsed: wrong
]


def _score(rows=RUN, **settings):
    dialogues, turns, texts, gold = zip(*[(d, t, text, g) for d, t, text, g in rows])
    return score_generations(list(texts), dialogues, turns, gold, prediction_states="updates", **settings)


def test_a_run_as_trackers_print_it_scores_what_they_said():
    figures = _score()
    assert figures["jga"] == 4 / 5
    assert (figures["unparsed"], figures["truncated"], figures["empty"]) == (1 / 5, 1 / 5, 0.0)
    assert figures["outcomes"] == {
        "sql": {"parsed": 2, "truncated": 1},
        "python": {"parsed": 1},
        "none": {"unparsed": 1},
    }


def test_malformed_items_are_counted_per_style():
    rows = [
        ("d1", 0, "UPDATE taxi SET depart_time = ? WHERE destination = 'ely'", {"taxi-destination": "ely"}),
        (
            "d1",
            1,
            'hotel = find_hotel(area="north", stars=hotel.name)',
            {"taxi-destination": "ely", "hotel-area": "north"},
        ),
        ("d2", 0, '{"hotel": {"semi": {"area": []}, "book": {"people": {}}}}', {"hotel-area": "north"}),  # unparsed
    ]
    figures = _score(rows)
    assert figures["malformed"] == {"sql": 1, "python": 1, "json": 2}
    assert figures["outcomes"] == {"sql": {"parsed": 1}, "python": {"parsed": 1}, "json": {"unparsed": 1}}
    assert figures["jga"] == 2 / 3 and figures["unparsed"] == 1 / 3


def test_show_unparsed_prints_each_with_its_dialogue_and_turn(capsys):
    _score(show_unparsed=3)
    err = capsys.readouterr().err.splitlines()
    assert err == ["unparsed generations: 1 of 5:", '  dialogue "d2", turn 0: "I cannot tell."']


def test_the_unparsed_share_of_a_run_of_no_change_statements_is_zero():
    no_change = ["update({})", "agent.state.update({})  # no change", "SELECT * FROM", " * FROM  WHERE ", "{}", ""]
    rows = [("d1", 0, " hotel WHERE area = north", {"hotel-area": "north"})]
    rows += [("d1", turn, text, {"hotel-area": "north"}) for turn, text in enumerate(no_change * 20, start=1)]
    figures = _score(rows)
    assert figures["unparsed"] == 0.0 and figures["jga"] == 1.0
    assert figures["empty"] == 20 / len(rows)


GOLD_JOINED = [
    ("d1", 0, '{"hotel-area": "centre"}', {"hotel": {"area": "centre|north"}}),  # right only as alternatives
    ("d1", 1, '{"hotel-area": "centre"}', {"hotel": {"area": "centre|north"}}),
    ("d2", 0, '{"taxi-leaveat": "09:00"}', {"taxi": {"leaveat": "09:00"}}),
]


def _score_cumulative(rows, **settings):
    dialogues, turns, texts, gold = zip(*rows)
    return score_generations(list(texts), dialogues, turns, gold, **settings)


def test_gold_written_a_or_b_in_one_string_warns_once_with_its_count():
    with pytest.warns(UserWarning) as caught:
        figures = _score_cumulative(GOLD_JOINED)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert ": 2, each read as one value" in message and "gold_alternatives_separator='|'" in message
    assert figures["jga"] == 1 / 3 and "altsep" not in figures["signature"]


def test_the_separator_reads_alternatives_and_is_in_the_signature():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figures = _score_cumulative(GOLD_JOINED, gold_alternatives_separator="|")
        first = _score_cumulative(GOLD_JOINED, gold_alternatives_separator="|", gold_alternatives="first")
    assert figures["jga"] == 1.0 and figures["signature"].endswith("|altsep:pipe")
    assert first["jga"] == 1.0 and "alts:first" in first["signature"]  # centre is the first alternative
    with pytest.raises(ValueError, match="gold_alternatives_separator"):
        _score_cumulative(GOLD_JOINED, gold_alternatives_separator="")


def test_a_deletion_in_a_whole_state_leaves_the_slot_out():
    rows = [
        ("d1", 0, 'hotel = find_hotel(area="north", type="hotel")', {"hotel-area": "north", "hotel-type": "hotel"}),
        ("d1", 1, 'hotel = find_hotel(area="north", type="hotel")\ndel hotel.type', {"hotel-area": "north"}),
    ]
    figures = _score_cumulative(rows)
    assert figures["jga"] == 1.0 and figures["overshot"] == 0


def _write(tmp_path, rows, jsonl=False):
    records = [{"ID": d, "turn_id": t, "completion": text, "slot_values": gold} for d, t, text, gold in rows]
    path = tmp_path / ("run.jsonl" if jsonl else "run.json")
    path.write_text("\n".join(map(json.dumps, records)) if jsonl else json.dumps(records))
    return str(path)


@pytest.mark.parametrize("jsonl", [False, True])
def test_the_command_scores_a_running_log(tmp_path, capsys, jsonl):
    path = _write(tmp_path, RUN, jsonl)
    assert main(["generations", path, "--prediction-states", "updates", "--json", "--show-unparsed", "2"]) == 0
    out, err = capsys.readouterr()
    figures = json.loads(out)
    assert figures["jga"] == 4 / 5 and figures["unparsed"] == 1 / 5
    assert figures["outcomes"]["sql"] == {"parsed": 2, "truncated": 1}
    assert '  dialogue "d2", turn 0: "I cannot tell."' in err.splitlines()


def test_the_command_table_has_a_malformed_column(tmp_path, capsys):
    rows = [*RUN, ("d3", 0, "UPDATE taxi SET depart_time = ?, destination = NULL", {"taxi-leaveat": "09:00"})]
    rows.append(("d3", 1, "SQL: UPDATE taxi SET depart_time = '09:00', leave_from = ?", {"taxi-leaveat": "09:00"}))
    assert main(["generations", _write(tmp_path, rows), "--prediction-states", "updates"]) == 0
    table = capsys.readouterr().out.split("by style:\n", 1)[1].splitlines()
    assert table[0].split() == ["style", "parsed", "empty", "truncated", "unparsed", "malformed"]
    cells = {line.split()[0]: line.split()[1:] for line in table[1:] if line.strip() and not line.startswith("-")}
    assert cells["sql"] == ["3", "0", "1", "1", "3"] and cells["none"] == ["0", "0", "0", "1", "0"]


def test_the_command_warns_of_joined_gold_once_and_reads_it_with_the_option(tmp_path, capsys):
    path = _write(tmp_path, GOLD_JOINED)
    assert main(["generations", path]) == 0
    out, err = capsys.readouterr()
    assert len([line for line in err.splitlines() if line.startswith("warning:")]) == 1
    assert "--gold-alternatives-separator '|'" in err and "JGA" in out and "33.33" in out
    assert main(["generations", path, "--gold-alternatives-separator", "|"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "100.00" in out and "altsep:pipe" in out


def test_the_command_names_a_missing_field(tmp_path, capsys):
    path = _write(tmp_path, RUN)
    assert main(["generations", path, "--gold-field", "belief"]) == 2
    err = capsys.readouterr().err
    assert "record 0" in err and "no gold field (belief" in err
