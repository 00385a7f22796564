"""`Profile`: what a compatibility profile is (`dst_metrics.compat` lists them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import msgspec

from ..core.tally import summed
from ..corpus import Corpus, Dialogue
from ..options import OptionError, Options


class DialogueSums(msgspec.Struct, frozen=True):
    """How a profile's figures come from sums over dialogues: `new()` is an empty sum, `add(sums,
    dialogue, options)` adds one dialogue into it in place, and `figures(sums, options)` gives the
    profile's figures. The sums are a dataclass whose fields declare how they merge, as `core.Tally`'s do
    (`core.integer`, `core.histogram`, or a merge of their own under `core.MERGE`), and two sums (of other
    dialogues, e.g. another process's) merge by `core.summed`: so the figures are the same in any order
    of the dialogues and any split into processes. Each function is defined at module level (a
    `ProfileTap` pickles it by name)."""

    new: Callable[[], Any]
    add: Callable[[Any, Dialogue, Options], None]
    figures: Callable[[Any, Options], dict[str, object]]
    listed: Callable[[Any, frozenset[str]], None] | None = None
    """For a profile that needs them: adds a corpus's `Corpus.listed_gold_slots` into the sums."""

    def add_corpus(self, sums: Any, corpus: Corpus, options: Options) -> None:
        """Add every dialogue of `corpus`, and what the reader found beyond them (`listed`)."""
        if self.listed is not None and corpus.listed_gold_slots is not None:
            self.listed(sums, corpus.listed_gold_slots)
        for dialogue in corpus.dialogues:
            self.add(sums, dialogue, options)

    def of_corpus(self, corpus: Corpus, options: Options) -> dict[str, object]:
        """The profile's figures of a corpus in memory."""
        sums = self.new()
        self.add_corpus(sums, corpus, options)
        return self.figures(sums, options)


class ProfileTap:
    """A profile's sums of the dialogues passing through it on their way to the tally (``tap(dialogues)``
    yields them as they come): the `tap` of `streaming.tally_opened` and of `parallel.tally_in_processes`,
    where each shard or process sums into a `fresh` tap and the caller `merge`s their sums by ``+``."""

    __slots__ = ("definition", "options", "sums")

    def __init__(self, definition: DialogueSums, options: Options) -> None:
        self.definition = definition
        self.options = options
        self.sums = definition.new()

    def __call__(self, dialogues: Iterable[Dialogue]) -> Iterator[Dialogue]:
        """The dialogues, each summed on its way; a shard read whole comes as its Corpus, summed with
        what its reader found beyond the dialogues (`DialogueSums.add_corpus`)."""
        if isinstance(dialogues, Corpus):
            self.definition.add_corpus(self.sums, dialogues, self.options)
            yield from dialogues
            return
        add, sums, options = self.definition.add, self.sums, self.options
        for dialogue in dialogues:
            add(sums, dialogue, options)
            yield dialogue

    def fresh(self) -> ProfileTap:
        """A tap of the same profile and options, with nothing summed."""
        return ProfileTap(self.definition, self.options)

    def merge(self, sums: Any) -> None:
        """Add sums of other dialogues (another tap's `sums`), as their fields declare."""
        self.sums = summed(self.sums, sums)

    def figures(self) -> dict[str, object]:
        """The profile's figures of the dialogues summed so far."""
        return self.definition.figures(self.sums, self.options)

    def __reduce__(self) -> tuple:  # a worker process gets an empty tap
        return ProfileTap, (self.definition, self.options)


class Profile(msgspec.Struct, frozen=True):
    """One evaluator's conventions: `figures` gives {key: value} for the keys it replaces or adds,
    from a corpus under `options`. `cli_inputs` returns the files a profile reads beside the corpus
    (``sgd``: the dialogue files and schemas), which `figures` takes as a third argument;
    `signature_fields` gives the signature's fields before ``|compat:NAME``; `self_check` the reason
    each figure is below 1 on gold scored against itself; `sums` a profile whose figures are sums over
    dialogues (`DialogueSums`), scored while the input streams."""

    name: str
    description: str
    figures: Callable[..., dict[str, object]]
    cli_inputs: Callable[..., object] | None = None
    signature_fields: Callable[[dict[str, object]], str] | None = None
    self_check: Mapping[str, str] = msgspec.field(default_factory=dict)
    sums: DialogueSums | None = None

    def compute(self, corpus: Corpus, options: Options, inputs: object = None) -> dict[str, object]:
        """`figures` of `corpus`, with `inputs` for a profile that reads more than the corpus."""
        if inputs is None:
            return self.figures(corpus, options)
        if self.cli_inputs is None:
            raise OptionError(f"the {self.name} profile reads nothing but the corpus; it takes no inputs")
        return self.figures(corpus, options, inputs)


def turn_results(dialogue: Dialogue, compute: Callable[[dict, dict], object]) -> Iterator:
    """compute(gold, pred) of each turn of `dialogue`; a turn whose two states are the objects of the turn
    before (unchanged, as readers build them) gives the turn before's result without computing it again."""
    last_gold = last_pred = result = None
    for gold, pred in zip(dialogue.gold, dialogue.pred):
        if gold is not last_gold or pred is not last_pred:
            result, last_gold, last_pred = compute(gold, pred), gold, pred
        yield result


def precision_recall_f1(hits: int, predicted: int, gold: int) -> tuple[float, float, float]:
    """(precision, recall, F1) from the hits and the numbers of predicted and gold items; a zero
    denominator gives 0 (as the evaluators of FnCTOD, ConvLab-3 and TRADE do)."""
    precision = hits / predicted if predicted else 0.0
    recall = hits / gold if gold else 0.0
    return precision, recall, 2 * precision * recall / (precision + recall) if precision + recall else 0.0
