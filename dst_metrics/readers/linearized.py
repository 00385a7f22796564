"""Linearized lines: ``dialogue_id<TAB>turn_id<TAB>gold state<TAB>predicted state``, one turn a line.

States are written as ``hotel-area=north; hotel-stars=4``; gold ``centre|north`` lists acceptable
values. Blank lines and ``#`` lines are skipped.
"""

from __future__ import annotations

from .. import ids
from ..corpus import GOLD_FIELD, PRED_FIELD, Corpus
from ..errors import InputError, counted
from ..states import parse_linearized
from .base import Reader, ReaderFit, ReadRequest
from .lines import TurnLines

FIELDS = ("dialogue_id", "turn_id", "gold", "pred")
GOLD_ALTERNATIVES = "|"


def _data_lines(text: str):
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def read_linearized(request: ReadRequest) -> Corpus:
    """Read every data line as one turn (a state text seen before is parsed once)."""
    turns = TurnLines(request)
    parsed: tuple[dict, dict] = ({}, {})  # gold, predicted: {state text: parsed state}
    for number, line in _data_lines(request.text()):
        fields = line.split("\t")
        if len(fields) != len(FIELDS):
            raise InputError(
                f"expected 4 TAB-separated fields (dialogue_id, turn_id, gold state, predicted state), "
                f"found {len(fields)}",
                source=turns.where(number),
            )
        dialogue_id, turn_text, gold_text, pred_text = fields
        dialogue_id, turn_text = dialogue_id.strip(), turn_text.strip()
        if not dialogue_id:
            ids.dialogue_id(dialogue_id, source=turns.where(number))  # raises: an empty id
        if turn_text.isdigit() and turn_text.isascii():
            turn_id = int(turn_text)
        else:
            turn_id = ids.turn_id(turn_text, dialogue=dialogue_id, source=turns.where(number))
        gold = parsed[0].get(gold_text)
        if gold is None:
            gold = _parsed(parsed[0], gold_text, GOLD_FIELD, dialogue_id, turn_id, turns.where(number))
        pred = parsed[1].get(pred_text)
        if pred is None:
            pred = _parsed(parsed[1], pred_text, PRED_FIELD, dialogue_id, turn_id, turns.where(number))
        turns.add(number, dialogue_id, turn_id, gold, pred)
    return turns.corpus()


def _parsed(cache: dict, text: str, field: str, dialogue_id: str, turn_id: int, where: str) -> dict:
    """The state of one field's text, parsed and kept in `cache`; a bad one raises InputError naming it."""
    try:
        alternatives = GOLD_ALTERNATIVES if field == GOLD_FIELD else None
        state = parse_linearized(text.strip(), alternatives_separator=alternatives)
    except InputError as error:
        raise error.located(dialogue=dialogue_id, turn=turn_id, field=field, source=where) from None
    cache[text] = state
    return state


def sniff(head: str) -> ReaderFit:
    """The first data line has four TAB-separated fields."""
    for _, line in _data_lines(head):
        if line.lstrip()[:1] in ("{", "["):
            return ReaderFit(0)
        count = len(line.split("\t"))
        if count == len(FIELDS):
            return ReaderFit(2)
        return ReaderFit(1, f"its first data line has {counted(count, 'TAB-separated field')}, not 4")
    return ReaderFit(0)


READER = Reader(
    "linearized",
    "linearized lines (dialogue_id, turn_id, gold, pred separated by TABs)",
    sniff,
    read_linearized,
    holds="both sides",
    suffixes=(".tsv", ".txt"),
    layout=(
        "one turn per line, four TAB-separated fields `dialogue_id⇥turn_id⇥gold⇥prediction`, each state "
        "written `hotel-area=north; hotel-stars=4`; an empty field is an empty state; `centre|north` in the "
        "gold field lists acceptable values; blank lines and `#` lines are skipped"
    ),
)
