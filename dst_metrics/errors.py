"""The one error type for bad input, with the place it was found."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input, raised before any figure is computed.

    The message names where the problem is: file, batch position, dialogue, turn and
    field, as far as they are known.
    """

    def __init__(
        self,
        problem: str,
        *,
        dialogue: object = None,
        turn: object = None,
        field: str | None = None,
        source: str | None = None,
    ) -> None:
        self.problem = problem
        self.dialogue = dialogue
        self.turn = turn
        self.field = field
        self.source = source
        super().__init__(self._message())

    def _message(self) -> str:
        place = []
        if self.source is not None:
            place.append(self.source)
        if self.dialogue is not None:
            place.append(f"dialogue {self.dialogue!r}")
        if self.turn is not None:
            place.append(f"turn {self.turn!r}")
        if self.field is not None:
            place.append(f"field {self.field!r}")
        return f"{', '.join(place)}: {self.problem}" if place else self.problem

    def within(self, source: str) -> InputError:
        """The same error, located inside `source` (a file name or a batch position)."""
        where = source if self.source is None else f"{source}, {self.source}"
        return InputError(self.problem, dialogue=self.dialogue, turn=self.turn, field=self.field, source=where)
