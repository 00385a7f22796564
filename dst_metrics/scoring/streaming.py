"""Tallying an input's dialogues as they are read, without holding the corpus.

`Tallying` is what `dst_metrics.readers.ResolvedInput.read_stream` is given for each file of an input. Two
formats stream, each dialogue built, tallied and dropped:
- JSON Lines turn records, read line by line: the turns of one dialogue on consecutive lines make a
  dialogue, so the peak memory is that of the largest dialogue (plus one id per dialogue, to catch an
  id that comes back later);
- the reference layout (one JSON object): the file's bytes are split into one undecoded slice per
  dialogue (msgspec.Raw views of the bytes, no copy), each decoded only when its turn comes, so the
  peak is about the file's size, not the whole corpus's normalized states.
A file of another format, or one that cannot stream (lines of a dialogue apart, any problem with the
input), is read whole, that file only: reading whole accepts lines in any order and names the problem.
The figures are those of reading the input whole (tallies add up in any order), and per-dialogue
tallies come in the order reading whole gives.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from ..compat.base import DialogueSums
from ..core.figures import DialogueFigures
from ..core.tally import Tally, summed, tally_corpus, tally_each
from ..corpus import Corpus, Dialogue
from ..options import Options
from ..readers import ResolvedInput
from ..readers.inputs import STREAMED_FORMATS, FileResult
from ..readers.updates import watch

__all__ = ["STREAMED_FORMATS", "Tallies", "Tallying", "add_up", "tally_input"]


class Tallies(msgspec.Struct):
    """The tallies of some dialogues: their `total`, each dialogue's tally (or its figures: `Tallying.figures`)
    by id, a profile's `sums` and the first dialogues' `votes` on whether the predictions are turn updates."""

    total: Tally
    dialogues: dict[str, Any] = msgspec.field(default_factory=dict)
    sums: Any = None
    votes: list[bool] = msgspec.field(default_factory=list)


class Tallying(msgspec.Struct, frozen=True):
    """How to tally dialogues, called with them (a file's stream, or a Corpus): in `mode`; with `per_dialogue`
    each dialogue's tally too, or its `figures` where given (computed where it was tallied); with `profile`,
    a compatibility profile's sums under `options`; with `vote_updates`, the votes of `updates.watch`."""

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
        """The dialogues, each added to the profile's `sums` on its way; a file read whole comes as its
        Corpus, added with what its reader found beyond the dialogues (`DialogueSums.add_corpus`)."""
        if isinstance(dialogues, Corpus):
            self.profile.add_corpus(sums, dialogues, self.options)
            yield from dialogues
            return
        add, options = self.profile.add, self.options
        for dialogue in dialogues:
            add(sums, dialogue, options)
            yield dialogue


def add_up(parts: Iterable[Tallies]) -> Tallies:
    """The tallies of all `parts` (files or processes, in input order): totals and sums added, each
    dialogue's tally kept in order, the votes joined."""
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
    """(the tallies of every file, each file's `FileResult`) of an input, its files streamed where they can
    be, else read whole (`ResolvedInput.read_stream`); with `share` (k, n) only the dialogues at positions
    k modulo n of each file."""
    found = resolved.read_stream(tallying, share)
    return add_up(map(_in_reading_order, found)), found
