"""Gold scored against itself (``dst-metrics check GOLD``): every figure of our own definitions, in
both modes, and of every compatibility profile, each one below 100 with the convention that makes it
so (`REASONS`, `Profile.self_check`) or a line saying that no convention explains it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from ..compat import PROFILES
from ..corpus import Corpus, Dialogue, decode_raw, first_alternatives
from ..errors import InputError
from ..figures.registry import FIGURES
from ..options import MODES, OptionError, Options
from ..readers.inputs import READERS, InputSpec, ResolvedInput, read_sides, resolve
from ..readers.pairing import pair
from ..reading import Reading
from ..scoring.scores import score
from ..states import Alternatives, normalize_state

_RSA = "RSA scores a turn with no slot on either side 0 (the RSA paper's definition, kept in both modes)"
_JTA = (
    "DST-STAR's turn label on gold with several acceptable values: a slot whose acceptable values change while "
    "its first stays is a change of gold's label, not of the first values scored against it (DST-STAR's data "
    "has one value a slot; with gold's first values only it is 100)"
)
REASONS: dict[tuple[str, str], str] = {
    ("official", "gca"): (
        "official GCA counts a slot that gold and prediction remove in the same turn as missed (quirk 1) and "
        "scores a dialogue with no change 0 (quirk 4); corrected mode fixes both"
    ),
    ("official", "value_recall"): "official GCA's quirk 1 adds missed slots, which its recall rates count",
    ("official", "label_recall"): "official GCA's quirk 1 adds missed slots, which its recall rates count",
    ("official", "rsa"): _RSA,
    ("corrected", "rsa"): _RSA,
    ("official", "joint_turn_accuracy"): _JTA,
    ("corrected", "joint_turn_accuracy"): _JTA,
}
"""Why one of our own figures is below 1 on gold scored against itself: (mode, figure key) -> the convention."""


UNEXPLAINED = "no convention explains it: please report it"
"""The reason given for a figure below 1 that no convention explains (a bug, in us or in a profile)."""


@dataclass(frozen=True)
class CheckLine:
    """One line of the check: who computed the figure (``ours (official)``, a profile's name), the
    figure, its value (None for a profile that could not run) and why it is not 1 (None when it is)."""

    scorer: str
    figure: str | None
    value: float | None
    reason: str | None

    def __str__(self) -> str:
        if self.figure is None:
            return f"{self.scorer}: {self.reason or 'every figure 100'}"
        return f"{self.scorer}: {self.figure} {100 * self.value:.2f}: {self.reason}"


def read_gold(source: object, format: str = "auto", *, value_matching: str = "exact") -> Corpus:
    """The gold of `source` as a corpus (its predicted side, if it has one, is replaced by
    `gold_against_itself`): a format of gold and predictions is read whole; a gold-only format
    (data.json, SGD dialogues, ConvLab-3's unified dialogues) is paired with its own states. The
    source is resolved (formats detected, standard input read) once."""
    files = resolve(source, format)
    if all(READERS[file.format].read is not None for file in files):
        return ResolvedInput(InputSpec(source, format, reading=Reading(value_matching=value_matching)), files).read()
    gold = read_sides(files, "gold")
    as_predicted = {
        dialogue_id: {turn: _first_values(raw, dialogue_id, turn) for turn, raw in turns.items()}
        for dialogue_id, turns in gold.states.items()
    }
    return pair(gold, msgspec.structs.replace(gold, states=as_predicted, flat=False), value_matching)


def _first_values(raw: object, dialogue_id: str, turn: int) -> dict[str, str]:
    try:
        state = normalize_state(decode_raw(raw), gold=True)
    except InputError as error:
        raise error.located(dialogue=dialogue_id, turn=turn) from None
    return {slot: value.first if value.__class__ is Alternatives else value for slot, value in state.items()}


def gold_against_itself(corpus: Corpus) -> Corpus:
    """`corpus`'s gold as both sides: each predicted state is its turn's gold state, with the first
    of several acceptable values (`first_alternatives`)."""
    dialogues = tuple(
        Dialogue(d.dialogue_id, d.turn_ids, d.gold, tuple(first_alternatives(d.gold))) for d in corpus.dialogues
    )
    return dataclasses.replace(corpus, dialogues=dialogues)


def check_gold(
    corpus: Corpus,
    options: Options | None = None,
    compat_inputs: Callable[[str], object] | None = None,
) -> list[CheckLine]:
    """The check's lines for gold `corpus` scored against itself: our figures in each mode, then
    each profile's (with `compat_inputs(name)` for a profile that reads more than the corpus; a
    profile that cannot run says why, in its line)."""
    options = options or Options(value_matching=corpus.value_matching)
    perfect = gold_against_itself(corpus)
    # our figures that are 1 at best: every key of a higher-is-better figure that is not a count
    own_keys = [key for f in FIGURES if f.higher_is_better and f.group != "counts" for key in f.keys(options)]
    lines: list[CheckLine] = []
    for mode in MODES:
        scores = score(perfect, options.replace(mode=mode, compat=None)).scores
        own = {key: scores[key] for key in own_keys}
        lines += _lines(f"ours ({mode})", own, lambda key, mode=mode: REASONS.get((mode, key)))
    for name, profile in PROFILES.items():
        try:
            inputs = compat_inputs(name) if compat_inputs is not None and profile.cli_inputs else None
            scores = score(perfect, options.replace(compat=name), compat_inputs=inputs).scores
        except (OptionError, InputError) as error:  # our own message: what the profile lacks
            lines.append(CheckLine(name, None, None, f"not run: {error}"))
            continue
        except ValueError as error:  # a dependency's: its type, not its message (issue 56)
            lines.append(CheckLine(name, None, None, f"not run: the profile failed ({type(error).__name__})"))
            continue
        theirs = {key: scores[key] for key in scores if scores.replaced(key) and type(scores[key]) is float}
        lines += _lines(name, theirs, profile.self_check.get)
    return lines


def _lines(scorer: str, figures: dict[str, object], reason_of: Callable[[str], str | None]) -> list[CheckLine]:
    """One scorer's lines: each fraction figure below 1 (counts and groups left out) with its reason, or one
    line saying that every figure is 100."""
    below = [(key, value) for key, value in figures.items() if isinstance(value, float) and value < 1 - 1e-12]
    if not below:
        return [CheckLine(scorer, None, None, None)]
    return [CheckLine(scorer, key, value, reason_of(key) or UNEXPLAINED) for key, value in below]
