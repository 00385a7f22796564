"""What the line-based readers share: collecting turns by line, with duplicate checks."""

from __future__ import annotations

from ..corpus import Corpus, CorpusBuilder
from ..errors import InputError
from .base import ReadRequest


class TurnLines:
    """Turns read one per line; `corpus()` groups them by dialogue (sorted by id) and turn."""

    def __init__(self, request: ReadRequest) -> None:
        self.request = request
        self.dialogues: dict[str, dict[int, tuple[int, object, object]]] = {}  # {dialogue: {turn: (line, gold, pred)}}

    def where(self, number: int) -> str:
        """How a message names line `number` (with the file name when there is one)."""
        return f"{self.request.source}, line {number}" if self.request.source else f"line {number}"

    def add(self, number: int, dialogue_id: str, turn_id: int, gold: object, pred: object) -> None:
        """Add the turn of line `number`; a (dialogue_id, turn_id) given twice raises InputError."""
        turns = self.dialogues.get(dialogue_id)
        if turns is None:
            turns = self.dialogues[dialogue_id] = {}
        elif turn_id in turns:
            raise InputError(
                f"this (dialogue_id, turn_id) is already given on line {turns[turn_id][0]}",
                dialogue=dialogue_id,
                turn=turn_id,
                source=self.where(number),
            )
        turns[turn_id] = (number, gold, pred)

    def corpus(self) -> Corpus:
        """The Corpus of every turn added; errors name the line of the turn."""
        if not self.dialogues:
            raise InputError("there is no turn in the data (only blank or comment lines)", source=self.request.source)
        builder = CorpusBuilder(self.request.reading)
        for dialogue_id in sorted(self.dialogues):
            turns = self.dialogues[dialogue_id]
            order = sorted(turns)
            rows = list(turns.values()) if order == list(turns) else [turns[turn] for turn in order]
            try:
                builder.add(dialogue_id, order, [row[1] for row in rows], [row[2] for row in rows])
            except InputError as error:
                line = turns.get(error.turn, (None,))[0]
                raise (error.within(self.where(line)) if line else error) from None
        return builder.corpus()
