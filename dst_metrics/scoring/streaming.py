"""Scoring without holding the corpus: each dialogue is built, tallied and dropped.

`dst_metrics.readers.ResolvedInput.read_stream` streams two formats:
- JSON Lines turn records, read line by line: the turns of one dialogue on consecutive lines make a
  dialogue, so the peak memory is that of the largest dialogue (plus one id per dialogue, to catch an
  id that comes back later);
- the reference layout (one JSON object): the file's bytes are split into one undecoded slice per
  dialogue (msgspec.Raw views of the bytes, no copy), each decoded only when its turn comes, so the
  peak is about the file's size, not the whole corpus's normalized states.
The figures are those of reading the input whole (tallies add up in any order), and per-dialogue
tallies come in the order reading whole gives. A file that cannot stream (another format, lines of
a dialogue apart, any problem with the input) is read whole, that file only: reading whole accepts
lines in any order and names the problem.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from ..core.tally import Tally, tally_corpus, tally_each
from ..corpus import Dialogue
from ..readers import ResolvedInput
from ..readers.inputs import STREAMED_FORMATS, FileResult

if TYPE_CHECKING:
    from ..compat.base import ProfileTap

__all__ = ["STREAMED_FORMATS", "tally_opened"]


def _fold(mode: str, per_dialogue: bool, view: Callable[[Tally], object] | None = None):
    if per_dialogue and view is not None:
        return lambda dialogues: _viewed(tally_each(dialogues, mode), view)
    if per_dialogue:
        return lambda dialogues: tally_each(dialogues, mode)
    return lambda dialogues: (tally_corpus(dialogues, mode), {})


def _tapped(fold: Callable, tap: ProfileTap, dialogues: Iterable[Dialogue]) -> tuple:
    """(tally, by dialogue, the sums of `tap`): a fold that fails part way (a shard read whole after
    streaming stopped) drops its sums with its tally, so no dialogue is summed twice. The tap sees
    the shard's dialogues first: a Corpus where the shard was read whole (`compat.base.ProfileTap`)."""
    total, by_dialogue = fold(tap(dialogues))
    return total, by_dialogue, tap.sums


def _viewed(tallies: tuple[Tally, dict[str, Tally]], view: Callable[[Tally], object]) -> tuple[Tally, dict]:
    total, by_dialogue = tallies
    return total, {dialogue_id: view(tally) for dialogue_id, tally in by_dialogue.items()}


def _watched(fold: Callable, watch: Callable[[Iterator[Dialogue]], Iterator[Dialogue]]) -> Callable:
    return lambda dialogues: fold(watch(dialogues))


def _tap_of(fold: Callable, tap: ProfileTap) -> Callable:
    return lambda dialogues: _tapped(fold, tap.fresh(), dialogues)


def _ordered(folded: FileResult) -> dict[str, Tally]:
    """A shard's per-dialogue tallies in the order reading it whole gives (JSON Lines: by id)."""
    by_dialogue = folded.result[1]
    return dict(sorted(by_dialogue.items())) if folded.streamed and folded.file.format == "jsonl" else by_dialogue


def tally_opened(
    opened: ResolvedInput,
    mode: str,
    per_dialogue: bool = False,
    share: tuple[int, int] | None = None,
    watch: Callable[[Iterator[Dialogue]], Iterator[Dialogue]] | None = None,
    view: Callable[[Tally], object] | None = None,
    tap: ProfileTap | None = None,
) -> tuple[tuple[Tally, dict[str, Tally]], list[FileResult]]:
    """((corpus tally, each dialogue's tally in the order reading whole gives), each shard's fold) of
    an opened input: its shards streamed where they can be, else read whole (`ResolvedInput.read_stream`).
    `watch` sees the dialogues on their way to the tally (e.g. `updates.watch`); with `view`, each
    dialogue's ``view(tally)`` stands for its tally (e.g. its figures, computed where it was tallied);
    `tap` gets the sums of every dialogue (`compat.base.ProfileTap`; each shard's in a fresh copy, merged)."""
    fold = _fold(mode, per_dialogue, view)
    if watch is not None:
        fold = _watched(fold, watch)
    if tap is not None:
        fold = _tap_of(fold, tap)
    folded = opened.read_stream(fold, share)
    total, by_dialogue = Tally(), {}
    for found in folded:
        total = total + found.result[0]
        if tap is not None:
            tap.merge(found.result[2])
        if per_dialogue:
            by_dialogue.update(_ordered(found))
    return (total, by_dialogue), folded
