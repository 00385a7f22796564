"""Scoring a corpus: every registered figure per corpus and, on request, per dialogue, each result
with the signature of the options that produced it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

import msgspec

from .._gc import without_gc
from .._version import __version__
from ..core.tally import Tally, tally_corpus, tally_dialogue, tally_each
from ..corpus import Corpus, Dialogue
from ..errors import json_text
from ..figures.registry import compute_figures, figure_of
from ..options import OptionError, Options

if TYPE_CHECKING:  # the profiles are imported when one is asked for (`score`)
    from ..compat.base import Profile

__all__ = ["Options", "Report", "Scores", "__version__", "corpus_options", "score", "score_tallies", "tally_dialogues"]


class Scores(Mapping):
    """Every figure of one corpus or dialogue: a read-only mapping in `FIGURES` order (``scores.gca`` too)."""

    __slots__ = ("_options", "_replaced", "_values", "signature")

    def __init__(
        self,
        values: dict[str, float | int],
        signature: str,
        options: Options | None = None,
        replaced: frozenset[str] = frozenset(),
    ) -> None:
        """`options`: those the figures were computed with; `replaced`: the keys a compat profile gave."""
        self._values = values
        self.signature = signature
        self._options = options
        self._replaced = replaced

    @classmethod
    def from_tally(cls, tally: Tally, options: Options, *, per_dialogue: bool = False) -> Scores:
        """Compute every figure of a tally (only the per-dialogue ones with `per_dialogue`)."""
        return cls(compute_figures(tally, options, per_dialogue=per_dialogue), options.signature(), options)

    def __getitem__(self, key: str) -> float | int:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __getattr__(self, name: str) -> float | int:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        return f"Scores({self._values!r}, signature={self.signature!r})"

    def replaced(self, key: str) -> bool:
        """Whether a compatibility profile gave the figure `key` (it replaced ours or added it)."""
        return key in self._replaced

    @property
    def fga_grid(self) -> dict[float, float]:
        """λ -> FGA for each λ of the options' grid."""
        return {float(key[4:]): value for key, value in self._values.items() if key.startswith("fga@")}

    def signature_of(self, key: str) -> str:
        """The signature naming only the options that change one figure (else the full `signature`)."""
        if key not in self._values:
            raise KeyError(key)
        if self._options is None or key in self._replaced:
            return self.signature
        try:
            figure = figure_of(key)
        except KeyError:
            return self.signature
        if figure.per_lambda:
            return figure.signature(dict(self._options.per_lambda)[float(key.partition("@")[2])])
        return figure.signature(self._options)

    def signatures(self) -> dict[str, str]:
        """{key: `signature_of(key)`} of every figure (``dst-metrics score --json``'s ``signatures``)."""
        return {key: self.signature_of(key) for key in self._values}

    def as_dict(self) -> dict[str, float | int | str]:
        """Flat JSON-ready figures and the signature."""
        return {**self._values, "signature": self.signature}


class Report(msgspec.Struct, frozen=True):
    """Scores of a corpus, with its tally and, on request, each dialogue's scores and tally."""

    scores: Scores
    tally: Tally
    options: Options
    dialogues: Mapping[str, Scores] = msgspec.field(default_factory=dict)  # DialogueScores: computed when read
    dialogue_tallies: dict[str, Tally] = msgspec.field(default_factory=dict)

    @property
    def signature(self) -> str:
        """The signature string of every figure in this report."""
        return self.scores.signature


def corpus_options(corpus: Corpus, options: Options | None = None, **option_values: object) -> Options:
    """The options to score `corpus` with; value matching defaults to the corpus's and must equal it."""
    if options is None:
        options = Options(**{"value_matching": corpus.value_matching, **option_values})
    elif option_values:
        options = options.replace(**option_values)
    if corpus.reading and options.reading != corpus.reading:
        options = options.replace(reading=corpus.reading)
    if options.value_matching != corpus.value_matching:
        raise OptionError(
            f"the corpus was read with value matching {corpus.value_matching!r}, not {options.value_matching!r}: "
            "read it again with the value matching to score with"
        )
    return options


def score(
    corpus: Corpus,
    options: Options | None = None,
    *,
    per_dialogue: bool = False,
    compat_inputs: object = None,
    source: str | None = None,
    **option_values: object,
) -> Report:
    """Score a corpus: every figure, micro over the corpus, and with `per_dialogue` each dialogue's too.

    Options come as an `Options` or as its fields (``score(corpus, mode="corrected")``). With
    ``compat``, the profile's figures replace ours; `compat_inputs` is what a profile reads besides the
    corpus. `source` names the corpus in an error."""
    options = corpus_options(corpus, options, **option_values)
    chosen = None
    if options.compat is not None:
        from ..compat import PROFILES  # the profiles and their readers, loaded when one is asked for

        chosen = PROFILES[options.compat]
    elif compat_inputs is not None:
        raise OptionError("compat_inputs are read by a compatibility profile: give compat too")
    tallies = tally_dialogues(corpus, options.mode, per_dialogue)
    report = score_tallies(tallies, options, source=source, dialogues=lambda: corpus.dialogues)
    if chosen is None:
        return report
    return with_profile_figures(report, chosen, chosen.compute(corpus, options, compat_inputs))


def with_profile_figures(report: Report, profile: Profile, theirs: dict[str, object]) -> Report:
    """`report` with a compatibility profile's figures in place of ours."""
    options = report.options
    signature = report.signature
    if profile.signature_fields is not None:  # before the profile's name, which ends the signature
        named = f"|compat:{options.compat}"
        signature = signature.removesuffix(named) + profile.signature_fields(theirs) + named
    scores = Scores({**report.scores, **theirs}, signature, options, frozenset(theirs))
    return msgspec.structs.replace(report, scores=scores)


@without_gc
def tally_dialogues(corpus: Corpus, mode: str, per_dialogue: bool) -> tuple[Tally, dict[str, Tally]]:
    """The corpus tally and, with `per_dialogue`, each dialogue's tally."""
    if not per_dialogue:
        return tally_corpus(corpus.dialogues, mode), {}
    return tally_each(corpus.dialogues, mode)


class DialogueScores(Mapping):
    """Each dialogue's `Scores` by id, computed from its tally when first read."""

    __slots__ = ("_cache", "_options", "_tallies")

    def __init__(self, tallies: dict[str, Tally], options: Options) -> None:
        self._tallies = tallies
        self._options = options
        self._cache: dict[str, Scores] = {}

    def __getitem__(self, dialogue_id: str) -> Scores:
        scores = self._cache.get(dialogue_id)
        if scores is None:
            scores = self._cache[dialogue_id] = Scores.from_tally(self._tallies[dialogue_id], self._options)
        return scores

    def __iter__(self) -> Iterator[str]:
        return iter(self._tallies)

    def __len__(self) -> int:
        return len(self._tallies)

    def __repr__(self) -> str:
        return f"DialogueScores({len(self)} dialogues)"


def _widest(tally: Tally) -> int:
    return max(tally.relative_hits, default=0)


def widest_turn(dialogues: Iterable[Dialogue], mode: str, widest: int) -> tuple[str, int] | None:
    """(dialogue id, turn id) of the first turn with `widest` slots (gold and prediction together)."""
    for dialogue in dialogues:
        if _widest(tally_dialogue(dialogue, mode)) < widest:
            continue
        for n in range(1, len(dialogue) + 1):  # the first prefix that reaches it ends with the turn
            prefix = Dialogue(dialogue.dialogue_id, dialogue.turn_ids[:n], dialogue.gold[:n], dialogue.pred[:n])
            if _widest(tally_dialogue(prefix, mode)) >= widest:
                return dialogue.dialogue_id, dialogue.turn_ids[n - 1]
    return None


def check_num_slots(
    tally: Tally,
    options: Options,
    *,
    source: str | None = None,
    dialogues: Callable[[], Iterable[Dialogue]] | None = None,
) -> None:
    """Raise OptionError naming `source` (dialogue and turn from `dialogues`) when a turn has more slots than K."""
    widest = _widest(tally)
    if options.num_slots < widest:
        found = widest_turn(dialogues(), options.mode, widest) if dialogues is not None else None
        place = [source] if source else []
        if found is not None:
            place += [f"dialogue {json_text(found[0])}", f"turn {found[1]}"]
        turn = "this turn" if found is not None else "a turn"
        raise OptionError(
            (", ".join(place) + ": " if place else "")
            + f"num_slots (K, slots per turn for SA) is {options.num_slots}, but {turn} has {widest} slots "
            f"(gold and prediction together); K must be at least {widest}"
        )


def score_tallies(
    tallies: tuple[Tally, dict[str, Tally]],
    options: Options,
    *,
    source: str | None = None,
    dialogues: Callable[[], Iterable[Dialogue]] | None = None,
) -> Report:
    """Scores from tallies (e.g. merged from batches or processes); `source` and `dialogues` locate errors."""
    total, by_dialogue = tallies
    check_num_slots(total, options, source=source, dialogues=dialogues)
    return Report(
        scores=Scores.from_tally(total, options),
        tally=total,
        options=options,
        dialogues=DialogueScores(by_dialogue, options),
        dialogue_tallies=by_dialogue,
    )
