"""What the line-based readers share: collecting turns by line, with duplicate checks."""

from __future__ import annotations

from ..build import CorpusBuilder
from ..corpus import Corpus
from ..errors import InputError
from .base import ReadRequest


class TurnLines:
    """Turns read one per line; `corpus()` groups them by dialogue (sorted by id) and turn."""

    def __init__(self, request: ReadRequest) -> None:
        self.request = request
        self.turns: dict[tuple[str, int], tuple[int, object, object]] = {}

    def where(self, number: int) -> str:
        """How a message names line `number` (with the file name when there is one)."""
        return f"{self.request.source}, line {number}" if self.request.source else f"line {number}"

    def add(self, number: int, dialogue_id: str, turn_id: int, gold: object, pred: object) -> None:
        """Add the turn of line `number`; a (dialogue_id, turn_id) given twice raises InputError."""
        key = (dialogue_id, turn_id)
        if key in self.turns:
            raise InputError(
                f"this (dialogue_id, turn_id) is already given on line {self.turns[key][0]}",
                dialogue=dialogue_id,
                turn=turn_id,
                source=self.where(number),
            )
        self.turns[key] = (number, gold, pred)

    def corpus(self) -> Corpus:
        """The Corpus of every turn added; errors name the line of the turn."""
        if not self.turns:
            raise InputError("there is no turn in the data (only blank or comment lines)", source=self.request.source)
        builder = CorpusBuilder(self.request.value_matching, self.request.linearized)
        grouped: dict[str, list] = {}
        for key in sorted(self.turns):
            grouped.setdefault(key[0], []).append(key)
        for dialogue_id, keys in grouped.items():
            try:
                builder.add(
                    dialogue_id,
                    [turn for _, turn in keys],
                    [self.turns[key][1] for key in keys],
                    [self.turns[key][2] for key in keys],
                )
            except InputError as error:
                line = self.turns.get((dialogue_id, error.turn), (None,))[0]
                raise (error.within(self.where(line)) if line else error) from None
        return builder.corpus()
