"""Tallying an input's dialogues as they are read, without holding the corpus.

JSON Lines turn records stream line by line (a dialogue's turns on consecutive lines), so peak
memory is the largest dialogue's; the reference layout is cut into one undecoded slice per
dialogue, decoded when its turn comes. Other files, or files that cannot stream, are read whole.
The figures equal those of reading whole, since tallies add up in any order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from ..compat.base import DialogueSums
from ..core.tally import Tally, summed, tally_corpus, tally_each
from ..corpus import Corpus, Dialogue
from ..figures.registry import DialogueFigures
from ..generation.updates import watch
from ..options import Options
from ..readers import ResolvedInput
from ..readers.inputs import STREAMED_FORMATS, FileResult

__all__ = ["STREAMED_FORMATS", "Tallies", "Tallying", "add_up", "tally_input"]


class Tallies(msgspec.Struct):
    """The tallies of some dialogues: `total`, each dialogue's tally (or figures), a profile's `sums`, `votes`."""

    total: Tally
    dialogues: dict[str, Any] = msgspec.field(default_factory=dict)
    sums: Any = None
    votes: list[bool] = msgspec.field(default_factory=list)


class Tallying(msgspec.Struct, frozen=True):
    """How to tally dialogues (a file's stream, or a Corpus), called with them.

    Options: `per_dialogue` (each dialogue's tally, or its `figures`), `profile` (a compat profile's
    sums) and `vote_updates` (the votes of `updates.watch`)."""

    mode: str = "official"
    per_dialogue: bool = False
    figures: DialogueFigures | None = None
    profile: DialogueSums | None = None
    options: Options | None = None
    vote_updates: bool = False

    def __call__(self, dialogues: Iterable[Dialogue]) -> Tallies:
        votes: list[bool] = []
        sums = None
        if self.profile is not None:
            sums = self.profile.new()
            dialogues = self._summed(dialogues, sums)
        if self.vote_updates:
            dialogues = watch(dialogues, votes)
        if not self.per_dialogue:
            return Tallies(tally_corpus(dialogues, self.mode), {}, sums, votes)
        total, by_dialogue = tally_each(dialogues, self.mode)
        if self.figures is not None:
            by_dialogue = {dialogue_id: self.figures(tally) for dialogue_id, tally in by_dialogue.items()}
        return Tallies(total, by_dialogue, sums, votes)

    def _summed(self, dialogues: Iterable[Dialogue], sums: Any) -> Iterator[Dialogue]:
        """The dialogues, each added to the profile's `sums` on its way (a Corpus with `add_corpus`)."""
        if isinstance(dialogues, Corpus):
            self.profile.add_corpus(sums, dialogues, self.options)
            yield from dialogues
            return
        add, options = self.profile.add, self.options
        for dialogue in dialogues:
            add(sums, dialogue, options)
            yield dialogue


def add_up(parts: Iterable[Tallies]) -> Tallies:
    """The tallies of all `parts`, in input order: totals and sums added, dialogue tallies kept, votes joined."""
    total, by_dialogue, sums, votes = Tally(), {}, None, []
    for part in parts:
        total = total + part.total
        by_dialogue.update(part.dialogues)
        sums = part.sums if sums is None else summed(sums, part.sums)
        votes.extend(part.votes)
    return Tallies(total, by_dialogue, sums, votes)


def _in_reading_order(found: FileResult) -> Tallies:
    """A file's tallies with its dialogues in the order reading it whole gives (JSON Lines: by id)."""
    tallies = found.result
    if found.streamed and found.file.format == "jsonl":
        tallies.dialogues = dict(sorted(tallies.dialogues.items()))
    return tallies


def tally_input(
    resolved: ResolvedInput, tallying: Tallying, share: tuple[int, int] | None = None
) -> tuple[Tallies, list[FileResult]]:
    """(tallies, each file's `FileResult`) of an input, streamed where possible; `share`: positions k modulo n."""
    found = resolved.read_stream(tallying, share)
    return add_up(map(_in_reading_order, found)), found
