"""Reading states out of generated text (`dst_metrics.generation.parsing`): a table of generations of each
style, well-formed and malformed, with the state each must give; and properties (hypothesis)."""

from __future__ import annotations

import doctest
import json
import keyword
from collections import Counter
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dst_metrics.generation import parsing as generation
from dst_metrics.generation.parsing import (
    STYLES,
    UNPARSED,
    ParsedState,
    malformed_counts,
    normalize_slot_name,
    outcome_counts,
    parse_generation,
)
from dst_metrics.states import says_absent


def parse_generations(texts, style="auto", schema=None):
    """`parse_generation` over `texts` with what `dst_metrics.trainer.score_generations` reports of them:
    the share unparsed, the count of each style, of each style's outcomes and malformed items, and the
    slots the schema dropped."""
    states = [parse_generation(text, style, None if schema is None else frozenset(schema)) for text in texts]
    return SimpleNamespace(
        states=states,
        unparsed=sum(not state.parsed for state in states) / len(states) if states else 0.0,
        styles=dict(Counter(state.style for state in states)),
        dropped=sum(len(state.dropped) for state in states),
        outcomes=outcome_counts(states),
        malformed=malformed_counts(states),
    )


TABLE = [
    # json
    ('{"hotel-area": "north", "hotel-stars": 4}', "json", {"hotel-area": "north", "hotel-stars": "4"}),
    ('{"hotel": {"area": "north", "book_people": 2}}', "json", {"hotel-area": "north", "hotel-book people": "2"}),
    (
        'Sure:\n```json\n{"restaurant": {"food": "thai", "price_range": "cheap"}}\n```',
        "json",
        {"restaurant-food": "thai", "restaurant-pricerange": "cheap"},
    ),
    ("{'hotel-area': 'north', 'hotel-parking': True}", "json", {"hotel-area": "north", "hotel-parking": "yes"}),
    ('{"state": {"taxi-leave_at": "09:00"}}', "json", {"taxi-leaveat": "09:00"}),
    ('{"hotel": {"area": "north", "stars": "4"', "json", {"hotel-area": "north", "hotel-stars": "4"}),  # cut short
    ('{"hotel-area": null, "hotel-name": ["acorn", "a and b"]}', "json", {"hotel-name": "acorn"}),
    ("{}", "json", {}),
    # sql (IC-DST)
    ("SELECT * FROM hotel WHERE area = 'north' AND stars = 4", "sql", {"hotel-area": "north", "hotel-stars": "4"}),
    (" hotel WHERE area = 'north' AND book_people = '2'", "sql", {"hotel-area": "north", "hotel-book people": "2"}),
    (
        "SELECT * FROM hotel, restaurant WHERE hotel.area = 'north' AND restaurant.food = 'thai'",
        "sql",
        {"hotel-area": "north", "restaurant-food": "thai"},
    ),
    (
        "SELECT * FROM hotel AS T1, taxi AS T2 WHERE T1.name = 'acorn' AND T2.arrive_by = '17:00';",
        "sql",
        {"hotel-name": "acorn", "taxi-arriveby": "17:00"},
    ),
    (
        "select * from hotel where name = 'b and b' and price_range LIKE 'cheap'",
        "sql",
        {"hotel-name": "b and b", "hotel-pricerange": "cheap"},
    ),
    ("SELECT * FROM attraction WHERE name = 'king''s college'", "sql", {"attraction-name": "king's college"}),
    (
        "SELECT * FROM attraction WHERE name = 'king's college' AND area = 'centre'",  # IC-DST: unescaped
        "sql",
        {"attraction-name": "king's college", "attraction-area": "centre"},
    ),
    (" * FROM  WHERE ", "sql", {}),  # IC-DST's empty state
    # python (RefPyDST)
    (
        'hotel = find_hotel(area="north", price_range="cheap")',
        "python",
        {"hotel-area": "north", "hotel-pricerange": "cheap"},
    ),
    (
        'state.hotel = agent.find_hotel(name="acorn", book_number_of_days=3)\n'
        'taxi = agent.find_taxi(depart_time="04:15", destination=agent.state.hotel.name, leave_from="x")',
        "python",
        {
            "hotel-name": "acorn",
            "hotel-book stay": "3",
            "taxi-leaveat": "04:15",
            "taxi-destination": "acorn",
            "taxi-departure": "x",
        },
    ),
    (
        'agent.state.train = Train(arrive_by_time="10:15", day="monday")',
        "python",
        {"train-arriveby": "10:15", "train-day": "monday"},
    ),
    ('del agent.state.hotel.type\nhotel.area = "east"', "python", {"hotel-area": "east"}),  # a whole state: no type
    ('hotel = find_hotel(area="north", stars=4', "python", {"hotel-area": "north", "hotel-stars": "4"}),  # cut short
    # lines
    ("hotel-area=north; hotel-stars=4", "lines", {"hotel-area": "north", "hotel-stars": "4"}),
    ("hotel-area: north\nhotel-book_people: 2\n", "lines", {"hotel-area": "north", "hotel-book people": "2"}),
    (
        "hotel-area=north, restaurant-food=thai, indian",
        "lines",
        {"hotel-area": "north", "restaurant-food": "thai, indian"},
    ),
    ("taxi.leaveat = 09:00; taxi-arriveby='10:15'", "lines", {"taxi-leaveat": "09:00", "taxi-arriveby": "10:15"}),
]

MALFORMED = [
    "I think the user wants a hotel in the north.",
    '{"hotel-area": "north",, }',
    "None",
    "print(state)",  # a call, but of no domain
]


@pytest.mark.parametrize("text, style, state", TABLE)
def test_each_style(text, style, state):
    result = parse_generation(text)
    assert (result.style, result.parsed, result.state) == (style, True, state)
    assert parse_generation(text, style=style).state == state


@pytest.mark.parametrize("text", MALFORMED)
def test_unparseable_is_an_empty_unparsed_state(text):
    assert parse_generation(text) == ParsedState({}, UNPARSED, "unparsed")


def test_python_references_read_the_text_then_the_state_before_the_turn():
    text = "taxi = agent.find_taxi(leave_from=agent.state.attraction.name,\n destination = state.hotel.name)"
    before = {"attraction-name": "kettle's yard", "hotel-name": "old", "hotel-area": "west"}
    assert parse_generation(text, context=before).state == {
        "taxi-departure": "kettle's yard",
        "taxi-destination": "old",
    }
    result = parse_generation(
        'hotel = find_hotel(name="new")\ntaxi = find_taxi(destination=hotel.name)', context=before
    )
    assert result.state == {"hotel-name": "new", "taxi-destination": "new"}
    unresolved = parse_generation(text)  # every argument malformed: nothing was read
    assert (unresolved.outcome, unresolved.state, unresolved.malformed) == ("unparsed", {}, 2)


def test_malformed_items_are_counted_and_skipped():
    result = parse_generation("hotel-area=north; just words; hotel-stars=; hotel-=4")
    assert result.state == {"hotel-area": "north"} and result.malformed == 2  # an empty value is no slot, not malformed
    sql = parse_generation("SELECT * FROM hotel AS T1, taxi AS T2 WHERE T2.destination = T1.name AND T1.area = 'x'")
    assert sql.state == {"hotel-area": "x"} and sql.malformed == 1  # a column reference is no value


def test_a_forced_style_reads_only_that_style():
    assert parse_generation("hotel-area=north", style="json") == ParsedState({}, "json", "unparsed")
    with pytest.raises(ValueError, match="unknown generation style"):
        parse_generation("{}", style="yaml")


def test_schema_drops_unknown_slots_and_finds_booking_slots():
    schema = ["hotel-area", "hotel-book people", "train-day"]
    result = parse_generation(
        '{"hotel": {"area": "north", "people": 2, "colour": "red"}, "train": {"day": "monday"}}', schema=schema
    )
    assert result.state == {"hotel-area": "north", "hotel-book people": "2", "train-day": "monday"}
    assert result.dropped == ("hotel-colour",)


def test_slot_names():
    assert normalize_slot_name("Hotel", "price_range") == "hotel-pricerange"
    assert normalize_slot_name("restaurant", "book_time") == "restaurant-book time"
    assert normalize_slot_name("taxi", "arrive_by") == "taxi-arriveby"
    assert normalize_slot_name("train", "leave_at") == "train-leaveat"
    assert normalize_slot_name("hotel", "bookstay") == "hotel-book stay"


def test_many_generations_report_the_share_unparsed():
    texts = [row[0] for row in TABLE[:3]] + ["", MALFORMED[0], '{"hotel-colour": "red"}']
    report = parse_generations(texts, schema=["hotel-area", "hotel-stars", "hotel-book people"])
    assert report.unparsed == 1 / 6  # the empty text says no change: it is not unparsed
    assert report.styles == {"json": 4, UNPARSED: 2}
    assert report.outcomes == {"json": {"parsed": 4}, UNPARSED: {"empty": 1, "unparsed": 1}}
    assert report.dropped == 3  # restaurant-food, restaurant-pricerange, hotel-colour
    assert parse_generations([]).unparsed == 0.0


def test_docstring_example():
    assert doctest.testmod(generation).failed == 0


@settings(max_examples=500, deadline=None)
@given(st.text(), st.sampled_from(("auto", *STYLES)))
def test_any_text_gives_a_parsed_state(text, style):
    result = parse_generation(text, style=style)
    assert isinstance(result, ParsedState) and isinstance(result.state, dict)
    assert result.parsed or result.state == {}
    assert all(isinstance(key, str) and isinstance(value, str) for key, value in result.state.items())


code_like = st.text(alphabet=st.sampled_from(list("{}[]()'\"=:;,.-_ \nabcFROMWHERESELECTANDdel*0129")), max_size=80)


@settings(max_examples=500, deadline=None)
@given(code_like)
def test_code_like_text_never_raises(text):
    assert isinstance(parse_generation(text), ParsedState)


RESERVED = {"and", "as", "from", "like", "select", "where"}  # SQL words; python keywords below
names = st.from_regex(r"[a-z]{1,8}", fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name) and name not in RESERVED
)
words = st.from_regex(r"[a-z0-9]{1,6}( [a-z0-9]{1,6}){0,2}", fullmatch=True)
states = st.dictionaries(st.tuples(st.sampled_from(["hotel", "taxi", "train"]), names), words, max_size=6)


def _expected(state: dict) -> dict:
    return {normalize_slot_name(d, s): value for (d, s), value in state.items() if not says_absent(value)}


@settings(max_examples=200, deadline=None)
@given(states)
def test_rendered_states_read_back_in_every_style(state):
    expected = _expected(state)
    flat_json = json.dumps({f"{d}-{s}": v for (d, s), v in state.items()})
    nested = {}
    for (domain, slot), value in state.items():
        nested.setdefault(domain, {})[slot] = value
    lines = "; ".join(f"{d}-{s}={v}" for (d, s), v in state.items())
    sql = "SELECT * FROM hotel, taxi, train WHERE " + " AND ".join(f"{d}.{s} = '{v}'" for (d, s), v in state.items())
    python = "\n".join(
        f"{domain} = find_{domain}(" + ", ".join(f'{s}="{v}"' for s, v in slots.items()) + ")"
        for domain, slots in nested.items()
    )
    assert parse_generation(flat_json).state == expected
    assert parse_generation(json.dumps(nested)).state == expected
    if state:
        assert parse_generation(lines).state == expected
        assert parse_generation(sql).state == expected
        assert parse_generation(python, style="python").state == expected
