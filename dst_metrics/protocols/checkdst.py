"""CheckDST's figures of original / perturbed prediction pairs (Cho et al., 2022; reference code
github wise-east/CheckDST, ``ParlAI/models/add_jga_new_conditional.py``, ``get_jga_values``).

A pair is a turn of the perturbed predictions (its dialogue and turn id) and the same turn of the
original ones; o and p say whether each turn's state is right (the turn counts in JGA: gold and
predicted states equal, under the same options as ``dst-metrics score``). Over the N pairs:

- ``jga_original`` = Σ o / N, ``jga_perturbed`` = Σ p / N (JGA over the paired turns);
- ``cjga`` = Σ (o ∧ p) / N: right on both (the reference's ``jga_new_conditional``, CheckDST's cJGA);
- ``jga_conditional`` = Σ (o ∧ p) / Σ o: right on the perturbed turn when right on the original
  (the reference's ``jga_conditional``);
- ``flip_rate`` = Σ (o ≠ p) / N; ``flip_to_wrong`` = Σ (o ∧ ¬p) / Σ o (= 1 - jga_conditional);
  ``flip_to_right`` = Σ (¬o ∧ p) / Σ ¬o.

A figure whose denominator is 0 is None (the reference divides by zero). Differences: docs/compat.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.tally import tally_dialogue
from ..corpus import Corpus, Dialogue
from ..errors import InputError
from ..options import Options

FAMILY = "checkdst"
Pairs = list[tuple[bool, bool]]
"""(original right, perturbed right) of each pair."""


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def jga_original(pairs: Pairs) -> float | None:
    """Σ o / N."""
    return _ratio(sum(o for o, _ in pairs), len(pairs))


def jga_perturbed(pairs: Pairs) -> float | None:
    """Σ p / N."""
    return _ratio(sum(p for _, p in pairs), len(pairs))


def cjga(pairs: Pairs) -> float | None:
    """Σ (o ∧ p) / N."""
    return _ratio(sum(o and p for o, p in pairs), len(pairs))


def jga_conditional(pairs: Pairs) -> float | None:
    """Σ (o ∧ p) / Σ o."""
    return _ratio(sum(o and p for o, p in pairs), sum(o for o, _ in pairs))


def flip_rate(pairs: Pairs) -> float | None:
    """Σ (o ≠ p) / N."""
    return _ratio(sum(o != p for o, p in pairs), len(pairs))


def flip_to_wrong(pairs: Pairs) -> float | None:
    """Σ (o ∧ ¬p) / Σ o."""
    return _ratio(sum(o and not p for o, p in pairs), sum(o for o, _ in pairs))


def flip_to_right(pairs: Pairs) -> float | None:
    """Σ (¬o ∧ p) / Σ ¬o."""
    return _ratio(sum(p and not o for o, p in pairs), sum(not o for o, _ in pairs))


@dataclass(frozen=True)
class CheckDSTFigure:
    """One registered figure: ``checkdst.<name>``, computed from the pairs."""

    key: str
    label: str
    description: str
    higher_is_better: bool
    compute: Callable[[Pairs], float | None]
    family: str = FAMILY
    percent: bool = True
    """Shown in percent (every CheckDST figure is a rate)."""


FIGURES: tuple[CheckDSTFigure, ...] = (
    CheckDSTFigure(
        "checkdst.jga_original", "JGA orig", "JGA of the original turns that have a pair", True, jga_original
    ),
    CheckDSTFigure("checkdst.jga_perturbed", "JGA pert", "JGA of the perturbed turns", True, jga_perturbed),
    CheckDSTFigure("checkdst.cjga", "cJGA", "share of pairs right on both the original and the perturbed", True, cjga),
    CheckDSTFigure(
        "checkdst.jga_conditional",
        "JGA|orig",
        "share right when perturbed, of those right originally",
        True,
        jga_conditional,
    ),
    CheckDSTFigure("checkdst.flip_rate", "flips", "share of pairs right on one side only", False, flip_rate),
    CheckDSTFigure(
        "checkdst.flip_to_wrong", "right→wrong", "share wrong when perturbed, of those right", False, flip_to_wrong
    ),
    CheckDSTFigure(
        "checkdst.flip_to_right", "wrong→right", "share right when perturbed, of those wrong", False, flip_to_right
    ),
)
"""Every figure, in the order the command prints them."""


def turns_right(dialogue: Dialogue, mode: str = "official") -> dict[int, bool]:
    """{turn id: the turn counts in JGA} of one dialogue (each turn tallied on its own)."""
    return {
        turn_id: tally_dialogue(Dialogue(dialogue.dialogue_id, (turn_id,), (gold,), (pred,)), mode).joint_hits == 1
        for turn_id, gold, pred in zip(dialogue.turn_ids, dialogue.gold, dialogue.pred)
    }


def pair_turns(original: Corpus, perturbed: Corpus, mode: str = "official") -> Pairs:
    """(original right, perturbed right) of every perturbed turn, in the perturbed corpus's order; a
    perturbed turn the original lacks is an InputError naming it."""
    originals = {dialogue.dialogue_id: dialogue for dialogue in original}
    pairs: Pairs = []
    for dialogue in perturbed:
        if dialogue.dialogue_id not in originals:
            raise InputError("the perturbed dialogue is not in the original predictions", dialogue=dialogue.dialogue_id)
        right = turns_right(originals[dialogue.dialogue_id], mode)
        for turn_id, perturbed_right in turns_right(dialogue, mode).items():
            if turn_id not in right:
                raise InputError(
                    "the perturbed turn is not in the original dialogue", dialogue=dialogue.dialogue_id, turn=turn_id
                )
            pairs.append((right[turn_id], perturbed_right))
    return pairs


def checkdst_figures(
    original: Corpus, perturbed: Corpus, mode: str = "official", source: str | None = None
) -> dict[str, float | int | None]:
    """Every figure of `FIGURES` ({key: value}) and ``checkdst.pairs``, the number of pairs; a perturbed turn
    without its original is an InputError located at `source` (the perturbed input's name) when given."""
    try:
        pairs = pair_turns(original, perturbed, mode)
    except InputError as error:
        raise error.located(source=source or error.source) from None
    return {**{entry.key: entry.compute(pairs) for entry in FIGURES}, f"{FAMILY}.pairs": len(pairs)}


def checkdst_json(original: Corpus, perturbed: Corpus, options: Options, names: tuple[str, str], source: str) -> dict:
    """``dst-metrics checkdst --json``'s object: ``original`` and ``perturbed`` (`names`), every figure,
    ``checkdst.pairs`` and ``signature``; `source` locates a perturbed turn without its original."""
    found = checkdst_figures(original, perturbed, options.mode, source)
    return {"original": names[0], "perturbed": names[1], **found, "signature": signature(options, original, perturbed)}


def signature_part() -> str:
    """This protocol's part of the signature: ``checkdst|pairs:turn`` (pairs matched by dialogue and turn id)."""
    return f"{FAMILY}|pairs:turn"


def signature(options: Options, original: Corpus, perturbed: Corpus) -> str:
    """The signature of ``dst-metrics checkdst``'s figures: the options' (with every reading convention either
    corpus met) and this protocol's part: ``dst-metrics:0.1.0|mode:official|match:exact|checkdst|pairs:turn``."""
    reading = tuple(dict.fromkeys((*options.reading, *original.reading, *perturbed.reading)))
    return f"{options.replace(reading=reading).signature(())}|{signature_part()}"
