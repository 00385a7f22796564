"""The worked examples of the GCA paper, encoded by hand, with the figures the paper prints.

Each is one dialogue: gold states and prediction sets, as turn updates of a flat state. They back
the README quickstart (``examples/*.json``), the tests and the Space.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate

from ..corpus import Corpus


def _accumulate(*updates: dict) -> tuple[dict, ...]:
    """States of consecutive turns from each turn's updates (the state carries over)."""
    return tuple(accumulate(updates, lambda state, update: {**state, **update}))


@dataclass(frozen=True)
class Example:
    """One dialogue of the paper with its prediction sets and the figures the paper prints."""

    name: str
    title: str
    description: str
    dialogue_id: str
    gold: tuple[dict, ...]
    predictions: dict[str, tuple[dict, ...]]
    published: dict[str, dict[str, float]] = field(default_factory=dict)  # prediction -> {metric: %}

    def reference_layout(self, prediction: str) -> dict:
        """``{dialogue_id: {turn_id: {"gt": state, "pr": state}}}`` for one prediction set."""
        turns = zip(self.gold, self.predictions[prediction])
        return {self.dialogue_id: {str(i): {"gt": g, "pr": p} for i, (g, p) in enumerate(turns)}}

    def corpus(self, prediction: str) -> Corpus:
        """The example as a Corpus, ready to score."""
        return Corpus.from_reference_layout(self.reference_layout(prediction))


_BOOKING = {  # turn 2 of Figure 1's gold, which P1 predicts exactly
    "hotel-book day": "sunday",
    "hotel-book people": "6",
    "hotel-book stay": "4",
    "hotel-pricerange": "cheap",
    "hotel-type": "guest house",
}

FIRST_EXAMPLE = Example(
    name="first_example",
    title="Figure 1: P1 gets 5 of 7 slots right, P2 only 1",
    description=(
        "A hotel booking over three turns. P1 says 'no' to internet and parking but gets the five "
        "booking slots of turn 2 right; P2 gets internet right and every other slot wrong. JGA, FGA, "
        "AGA and RSA prefer P2; GCA prefers P1 (73.33 vs 15.49)."
    ),
    dialogue_id="MUL0003",
    gold=_accumulate({"hotel-internet": "yes"}, {"hotel-parking": "yes"}, _BOOKING),
    predictions={
        "P1": _accumulate({"hotel-internet": "no"}, {"hotel-parking": "no"}, _BOOKING),
        "P2": _accumulate(
            {"hotel-internet": "yes"},
            {"hotel-parking": "no"},
            {
                "hotel-book day": "Monday",
                "hotel-book people": "3",
                "hotel-book stay": "2",
                "hotel-pricerange": "expensive",
                "hotel-type": "hotel",
            },
        ),
    },
    published={"P1": {"gca": 73.33, "jga": 0.0}, "P2": {"gca": 15.49, "jga": 33.33}},
)

_QUIET_TURNS = ({},) * 4  # four turns that change nothing

HYPOTHETICAL = Example(
    name="hypothetical",
    title="Section 5.4: one slot in the first turn, one in the last",
    description=(
        "A zero-shot-like dialogue: internet in turn 0, nothing for four turns, parking in turn 5. "
        "P1 gets the first slot right and the last wrong, P2 the reverse. JGA (83.33 vs 0), RSA and "
        "FGA tell them far apart; GCA scores both 52.38."
    ),
    dialogue_id="SNG0779",
    gold=_accumulate({"hotel-internet": "yes"}, *_QUIET_TURNS, {"hotel-parking": "yes"}),
    predictions={
        "P1": _accumulate({"hotel-internet": "yes"}, *_QUIET_TURNS, {"hotel-parking": "no"}),
        "P2": _accumulate({"hotel-internet": "no"}, *_QUIET_TURNS, {"hotel-parking": "yes"}),
    },
    published={
        "P1": {"jga": 83.33, "rsa": 91.67, "fga": 83.33, "gca": 52.38},
        "P2": {"jga": 0.0, "rsa": 8.33, "fga": 59.75, "gca": 52.38},
    },
)

MUL1110 = Example(
    name="mul1110",
    title="Figure 6: MultiWOZ 2.1 dialogue MUL1110",
    description=(
        "FGA overestimates this prediction (48.84): it gets only the hotel name right, early, and "
        "its mistakes come late in the dialogue. GCA gives 31.43."
    ),
    dialogue_id="MUL1110",
    gold=_accumulate(
        {"hotel-name": "el shaddia guesthouse"},
        {},
        {"attraction-type": "museum"},
        {},
        {"attraction-name": "dontcare", "attraction-area": "dontcare"},
        {},
        {},
    ),
    predictions={
        "prediction": _accumulate(
            {"hotel-name": "el shaddia guesthouse"},
            {},
            {},
            {},
            {"attraction-name": "cambridge artworks"},
            {},
            {},
        )
    },
    published={"prediction": {"gca": 31.43, "fga": 48.84}},
)

EXAMPLES: dict[str, Example] = {e.name: e for e in (FIRST_EXAMPLE, HYPOTHETICAL, MUL1110)}
