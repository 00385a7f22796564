"""`Profile`: what a compatibility profile is (`dst_metrics.compat` lists them)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from ..corpus import Corpus, Dialogue
from ..options import OptionError, Options


@dataclass(frozen=True)
class Profile:
    """One evaluator's conventions: `figures` gives {key: value} for the keys it replaces (and
    any it adds), computed from a corpus under `options` (scores as fractions).

    `cli_inputs`, for a profile that reads more than a corpus holds (``sgd``: the dialogue files and
    the schema), is called by the CLI with the prediction path and the parsed arguments and returns
    those inputs; `figures` then takes them as a third argument (`compute`).

    `signature_fields`, for a profile whose figures depend on more than the options (``sgd``: its
    own value matching), gives from its figures the fields the signature holds before
    ``|compat:NAME`` (e.g. ``|sgd-match:fuzzy``).

    `self_check`: for each figure that is below 1 on gold scored against itself, the convention of
    the evaluator that makes it so (``dst-metrics check``, `dst_metrics.selfcheck`)."""

    name: str
    description: str
    figures: Callable[..., dict[str, object]]
    cli_inputs: Callable[[str, argparse.Namespace], object] | None = None
    signature_fields: Callable[[dict[str, object]], str] | None = None
    self_check: Mapping[str, str] = field(default_factory=dict)

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
