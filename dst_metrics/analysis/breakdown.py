"""Every figure per domain or per slot (``dst-metrics score --by domain|slot``).

The figures of a group (a domain, or one slot) are those of the corpus with gold and predicted states
restricted to the group's slots, over the dialogues where the group has a slot on either side in some
turn. A slot's domain is its name up to the first hyphen. GCA's counts of the groups add up to the
corpus's. Domains are listed by name; slots most often missed or overshot first, then by name.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..corpus import Corpus, Dialogue, restricted
from ..options import Options
from ..scoring.scores import Report, Scores, score
from ..states import slot_domain, slot_service

BY: tuple[str, ...] = ("domain", "service", "slot")
"""The groupings of `breakdown`."""


def group_of(slot: str, by: str) -> str:
    """The group of a slot name: its service (`states.slot_service`), its domain (`states.slot_domain`) or the
    slot itself."""
    if by == "slot":
        return slot
    return slot_domain(slot) if by == "domain" else slot_service(slot)


def _slots(dialogue: Dialogue) -> set[str]:
    """Every slot given on either side in some turn of the dialogue."""
    slots: set[str] = set()
    for state in {id(s): s for s in (*dialogue.gold, *dialogue.pred)}.values():
        slots.update(state)
    return slots


def group_corpora(corpus: Corpus, by: str = "domain") -> dict[str, Corpus]:
    """{group: the corpus restricted to the group} (see the module), groups sorted by name."""
    if by not in BY:
        raise ValueError(f"by must be one of {', '.join(BY)}; got {by!r}")
    groups: dict[str, list[Dialogue]] = {}
    for dialogue in corpus.dialogues:
        keep: dict[str, set[str]] = {}
        for slot in _slots(dialogue):
            keep.setdefault(group_of(slot, by), set()).add(slot)
        for group, slots in keep.items():
            groups.setdefault(group, []).append(restricted(dialogue, slots.__contains__))
    return {group: Corpus(tuple(groups[group]), corpus.value_matching) for group in sorted(groups)}


def _most_mistaken_first(reports: dict[str, Report]) -> dict[str, Report]:
    def key(item: tuple[str, Report]) -> tuple[int, str]:
        tally = item[1].tally
        return -(tally.missed + tally.overshot), item[0]

    return dict(sorted(reports.items(), key=key))


def breakdown_reports(corpus: Corpus, options: Options | None = None, by: str = "domain") -> dict[str, Report]:
    """{group: Report of the restricted corpus} (tallies included); slots most often missed or
    overshot first, domains by name."""
    options = options or Options(value_matching=corpus.value_matching)
    reports = {group: score(part, options) for group, part in group_corpora(corpus, by).items()}
    return _most_mistaken_first(reports) if by == "slot" else reports


def breakdown(corpus: Corpus, options: Options | None = None, by: str = "domain") -> dict[str, Scores]:
    """Every figure per domain (``by="domain"``) or per slot (``by="slot"``): {group: Scores}.

    >>> from dst_metrics import Corpus
    >>> corpus = Corpus.from_dialogues([[{"hotel-area": "north", "taxi-to": "x"}]],
    ...                                [[{"hotel-area": "north", "taxi-to": "y"}]])
    >>> {group: scores.jga for group, scores in breakdown(corpus).items()}
    {'hotel': 1.0, 'taxi': 0.0}
    """
    return {group: report.scores for group, report in breakdown_reports(corpus, options, by).items()}


def domain_reports(dialogues: Iterable[Dialogue], options: Options) -> dict[str, Report]:
    """`breakdown_reports` by domain of some dialogues (scored as they are, whatever matching
    built them)."""
    corpus = Corpus(tuple(dialogues), options.value_matching)
    return breakdown_reports(corpus, options, "domain")
