"""`Profile`: what a compatibility profile is (`dst_metrics.compat` lists them)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import msgspec

from ..corpus import Corpus, Dialogue
from ..options import OptionError, Options


class DialogueSums(msgspec.Struct, frozen=True):
    """How a profile's figures come from sums over dialogues: `new()` is an empty sum, `add(sums,
    dialogue, options)` adds one dialogue into it in place, and `figures(sums, options)` gives the
    profile's figures. The sums are a dataclass whose fields declare how they merge, as `core.Tally`'s do
    (`core.integer`, `core.histogram`, or a merge of their own under `core.MERGE`), and two sums (of other
    dialogues, e.g. another process's) merge by `core.summed`: so the figures are the same in any order
    of the dialogues and any split into processes (`scoring.streaming.Tallying` sums them as an input is
    read). Each function is defined at module level, so that the sums pickle by name."""

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
