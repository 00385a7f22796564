"""Generations as GPT and Llama trackers print them (`tests/generations_table.py`: IC-DST's bare SQL,
labelled and fenced SQL, RefPyDST's python, dicts of updates; malformed and cut short), each read
to the state written by hand for it and counted as it should be; deletions in both readings; the
share unparsed of a run of no-change statements."""

from __future__ import annotations

import json

import pytest

from dst_metrics.generation.parsing import OUTCOMES, STYLES, parse_generation
from dst_metrics.generation.updates import DELETE_MARKER

from .generations_table import ROWS
from .test_generation import parse_generations


def test_the_table_covers_every_outcome_and_style():
    assert len(ROWS) >= 60
    assert {row[4] for row in ROWS} == set(OUTCOMES)
    assert {row[2] for row in ROWS} == {"sql", "python", "json", "lines", "none"}


@pytest.mark.parametrize("system, text, style, state, outcome", ROWS, ids=[f"{i}-{r[0]}" for i, r in enumerate(ROWS)])
def test_generations_as_systems_print_them(system, text, style, state, outcome):
    read = parse_generation(text, deletions=True)  # the systems print turn updates
    assert (read.state, read.outcome, read.style) == (state, outcome, style)
    assert read.parsed == (outcome != "unparsed")
    whole = parse_generation(text)  # read as a whole state, a deletion leaves its slot out
    assert whole.state == {slot: value for slot, value in state.items() if value != DELETE_MARKER}


@pytest.mark.parametrize(
    "text, ignored",
    [
        (" restaurant WHERE food = italian LIMIT 1", 1),
        ("SELECT * FROM hotel WHERE area = 'centre' AND type != 'guest house' AND stars <> 2", 2),
        ("SELECT * FROM hotel WHERE area = 'north' OR area = 'centre'", 1),
        ("SELECT * FROM taxi WHERE arrive_by = '17:00' AND destination IS NOT NULL", 1),
        ("SELECT * FROM hotel WHERE area = 'north' which is in the north", 1),  # prose after the closing quote
        ("SELECT * FROM hotel WHERE name NOT LIKE '%lodge%' AND area NOT IN ('east')", 2),
        ("SELECT * FROM hotel WHERE area = 'north'", 0),
        ("SELECT * FROM hotel ORDER BY stars", 1),  # no condition: no change
    ],
)
def test_sql_constraints_that_are_no_value_are_ignored_and_counted(text, ignored):
    read = parse_generation(text)
    assert read.ignored == ignored and read.malformed == 0 and read.outcome == "parsed"


def test_a_column_as_the_last_value_is_malformed_not_cut_short():
    read = parse_generation("SELECT * FROM hotel AS T1, taxi AS T2 WHERE T1.area = 'x' AND T2.destination = T1.name")
    assert (read.state, read.outcome, read.malformed) == ({"hotel-area": "x"}, "parsed", 1)


def test_a_reference_to_a_slot_set_nowhere_drops_that_argument_only():
    text = 'taxi = agent.find_taxi(depart_time="04:15", destination=agent.state.hotel.name, leave_from="ely")'
    alone = parse_generation(text)
    assert alone.state == {"taxi-leaveat": "04:15", "taxi-departure": "ely"} and alone.malformed == 1
    with_state = parse_generation(text, context={"hotel-name": "acorn guest house"})
    assert with_state.state["taxi-destination"] == "acorn guest house" and with_state.malformed == 0


@pytest.mark.parametrize(
    "text",
    [
        'hotel = agent.find_hotel(area="north")\ndel agent.state.hotel.area',
        '{"hotel": {"area": null}}',
        "SELECT * FROM hotel WHERE area = '[DELETE]'",
    ],
)
def test_a_deletion_removes_the_slot_of_a_whole_state_and_marks_an_update(text):
    assert "hotel-area" not in parse_generation(text).state
    assert parse_generation(text, deletions=True).state == {"hotel-area": DELETE_MARKER}


NO_CHANGE = [
    "update({})",
    "update({})  # no change",
    "agent.state.update({})",
    "```python\nupdate({})\n```",
    "pass",
    "{}",
    "State: {}",
    "SELECT * FROM",
    "SQL: SELECT * FROM",
    " * FROM  WHERE ",
    "",
    "  ",
]


@pytest.mark.parametrize("style", ["auto", "python", "json", "sql"])
def test_a_run_of_no_change_statements_has_no_unparsed(style):
    texts = [text for text in NO_CHANGE if style == "auto" or _written_in(text, style)] * 50
    report = parse_generations(texts, style=style)
    assert report.unparsed == 0.0
    assert all(state.state == {} for state in report.states)
    assert sum(report.outcomes.get(s, {}).get("empty", 0) for s in report.outcomes) == 50 * sum(
        not text.strip() for text in set(texts)
    )


def _written_in(text: str, style: str) -> bool:
    if not text.strip() or text.endswith("{}") and "(" not in text:  # {} is no change in every style
        return True
    return {"python": "update" in text or "pass" in text, "json": "{}" in text, "sql": "FROM" in text}[style]


@pytest.mark.parametrize("style", ["auto", *STYLES])
@pytest.mark.parametrize("text", ["{}", "State: {}", "```json\n{ }\n```"])
def test_an_empty_object_is_no_change_in_every_style(text, style):
    read = parse_generation(text, style=style)
    assert (read.state, read.outcome, read.malformed) == ({}, "parsed", 0)
    assert read.style == ("json" if style == "auto" else style)


@pytest.mark.parametrize(
    "text, state, malformed",
    [
        ("UPDATE taxi SET depart_time = ? WHERE destination = 'ely'", {"taxi-destination": "ely"}, 1),
        ("UPDATE taxi SET depart_time = NULL, leave_from = 'ely'", {"taxi-departure": "ely"}, 1),
        ("INSERT INTO taxi (depart_time, destination) VALUES ('?', 'ely')", {"taxi-destination": "ely"}, 1),
        ("UPDATE hotel SET area = 'north' WHERE name = ?", {"hotel-area": "north"}, 1),
        ("INSERT INTO hotel (area, stars) VALUES ('north')", {}, 2),  # values and columns do not pair up
        ("UPDATE taxi SET depart_time = ?, destination = NULL", {}, 2),
    ],
)
def test_a_placeholder_or_null_is_no_value_and_counted_malformed(text, state, malformed):
    read = parse_generation(text)
    assert (read.state, read.malformed) == (state, malformed)
    assert read.outcome == ("parsed" if state else "unparsed")  # every slot malformed: nothing was read


def test_every_slot_malformed_is_unparsed_in_each_style_and_keeps_its_count():
    for text, style, malformed in [
        ('{"hotel": {"semi": [], "stars": {}}}', "json", 2),
        ("SELECT * FROM hotel AS T1, taxi AS T2 WHERE T2.destination = T1.name", "sql", 1),
        ("taxi = find_taxi(destination=state.hotel.name)", "python", 1),
    ]:
        read = parse_generation(text)
        assert (read.state, read.outcome, read.style, read.malformed) == ({}, "unparsed", style, malformed)
    assert parse_generation('{"hotel": {"stars": {}, "area": "dontcare"}}').outcome == "parsed"


@pytest.mark.parametrize(
    "text, state, extra",
    [
        ('Updated state: {"hotel-area": "north"}\nNote: the previous state was {"hotel-area": "south"}', "north", 1),
        ('Previous: {"hotel-area": "south"}\nBelief state: {"hotel-area": "north"}', "north", 1),
        (
            '{"hotel-area": "north"} or, if the user meant it, {"hotel-area": "south"} or {"hotel-area": "east"}',
            "north",
            2,
        ),
        ('The new state is {"hotel-area": "north"} (was {"hotel-area": "west"}).', "north", 1),
    ],
)
def test_the_state_an_answer_presents_is_taken_and_the_other_objects_counted(text, state, extra):
    read = parse_generation(text)
    assert (read.state, read.outcome, read.ignored) == ({"hotel-area": state}, "parsed", extra)


@pytest.mark.parametrize("absent", ["not mentioned", "none", "", "None", "NOT MENTIONED"])
def test_a_generated_value_saying_the_slot_is_unset_leaves_it_out_in_every_style(absent):
    texts = {
        "json": f'{{"hotel": {{"area": "{absent}", "stars": "4"}}}}',
        "sql": f"SELECT * FROM hotel WHERE area = '{absent}' AND stars = 4",
        "python": f'hotel = find_hotel(area="{absent}", stars=4)',
        "lines": f"hotel-area={absent}; hotel-stars=4",
    }
    for style, text in texts.items():
        for deletions in (False, True):  # a turn update does not remove the slot either: it leaves it as it was
            read = parse_generation(text, deletions=deletions)
            assert (read.state, read.style, read.malformed) == ({"hotel-stars": "4"}, style, 0)
    assert parse_generation('{"hotel-area": "dontcare"}').state == {"hotel-area": "dontcare"}


def test_generated_values_are_left_out_by_the_rule_the_multiwoz_reader_drops_gold_by():
    from dst_metrics.readers.multiwoz21 import metadata_state
    from dst_metrics.states import UNSET_VALUES

    metadata = {"hotel": {"semi": {value or "empty": value for value in UNSET_VALUES} | {"area": "north"}, "book": {}}}
    assert metadata_state(metadata) == {"hotel-area": "north"}  # the reader drops them
    assert parse_generation(json.dumps(metadata)).state == {"hotel-area": "north"}  # so does generation
    booking = {"hotel": {"book": {"booked": [{"name": "x"}], "people": "2"}, "semi": {"area": "north"}}}
    assert parse_generation(json.dumps(booking)).state == metadata_state(booking)


def test_many_generations_count_malformed_items_per_style():
    report = parse_generations(
        ["UPDATE taxi SET depart_time = ? WHERE destination = 'ely'", '{"hotel": {"x": []}}', "{}"]
    )
    assert report.malformed == {"sql": 1, "json": 1}
    assert report.outcomes == {"sql": {"parsed": 1}, "json": {"parsed": 1, "unparsed": 1}}
    assert report.unparsed == 1 / 3
