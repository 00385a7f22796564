"""Linearized lines: one turn a line, four TAB-separated fields
``dialogue_id<TAB>turn_id<TAB>gold state<TAB>predicted state``, each state written as a generative
tracker writes it, ``hotel-area=north; hotel-stars=4`` (an empty field is an empty state; in the
gold field ``centre|north`` lists acceptable values). Blank lines and ``#`` lines are skipped.
"""

from __future__ import annotations

from .. import ids
from ..build import GOLD_FIELD, PRED_FIELD
from ..corpus import Corpus
from ..errors import InputError
from ..states import parse_linearized
from .base import Fit, Reader, ReadRequest
from .lines import TurnLines

FIELDS = ("dialogue_id", "turn_id", "gold", "pred")
GOLD_ALTERNATIVES = "|"


def _data_lines(text: str):
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def read_linearized(request: ReadRequest) -> Corpus:
    """Read every data line as one turn."""
    turns = TurnLines(request)
    for number, line in _data_lines(request.text()):
        where = turns.where(number)
        fields = line.rstrip("\r\n").split("\t")
        if len(fields) != len(FIELDS):
            raise InputError(
                f"expected 4 TAB-separated fields (dialogue_id, turn_id, gold state, predicted state), "
                f"found {len(fields)}",
                source=where,
            )
        dialogue_text, turn_text, gold_text, pred_text = (field.strip() for field in fields)
        dialogue_id = ids.dialogue_id(dialogue_text, source=where)
        turn_id = ids.turn_id(turn_text, dialogue=dialogue_id, source=where)
        states = []
        for field, text, alternatives in ((GOLD_FIELD, gold_text, GOLD_ALTERNATIVES), (PRED_FIELD, pred_text, None)):
            try:
                states.append(parse_linearized(text, alternatives_separator=alternatives))
            except InputError as error:
                raise error.located(dialogue=dialogue_id, turn=turn_id, field=field, source=where) from None
        turns.add(number, dialogue_id, turn_id, *states)
    return turns.corpus()


def sniff(head: str) -> Fit:
    """The first data line has four TAB-separated fields."""
    for _, line in _data_lines(head):
        if line.lstrip()[:1] in ("{", "["):
            return Fit(0)
        count = len(line.split("\t"))
        if count == len(FIELDS):
            return Fit(2)
        return Fit(1, f"its first data line has {count} TAB-separated field{'s' * (count != 1)}, not 4")
    return Fit(0)


READER = Reader(
    "linearized", "linearized lines (dialogue_id, turn_id, gold, pred separated by TABs)", sniff, read_linearized
)
