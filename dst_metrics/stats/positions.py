"""Figures by turn position, and where JGA first fails (the RSA paper's Figure 1).

Each turn's share of a dialogue's tally is the tally of the dialogue cut after that turn minus the
tally of the dialogue cut before it: the core's own walk, so per-turn figures add up exactly to the
corpus figures (a turn's FGA and RSA depend on earlier turns; this keeps that).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields

from ..core.tally import Tally, add_keys, sum_fields, tally_dialogue
from ..corpus import Corpus, Dialogue
from ..figures.registry import figure_of
from ..options import Options
from ..scoring.scores import corpus_options

HISTOGRAMS = sum_fields(Tally, add_keys)


def subtract(total: Tally, part: Tally) -> Tally:
    """total - part, field by field (histogram keys that become 0 are dropped)."""
    values: dict[str, object] = {}
    for name in sum_fields(Tally):
        mine, theirs = getattr(total, name), getattr(part, name)
        if name in HISTOGRAMS:
            diff = {key: mine.get(key, 0) - theirs.get(key, 0) for key in mine.keys() | theirs.keys()}
            values[name] = {key: value for key, value in diff.items() if value}
        else:
            values[name] = mine - theirs
    return Tally(**values)


def turn_tallies(dialogue: Dialogue, mode: str = "official") -> list[Tally]:
    """Each turn's contribution to the dialogue's tally, in turn order (they sum to it)."""
    out = []
    before = Tally()
    ident, turns, gold, pred = dialogue.dialogue_id, dialogue.turn_ids, dialogue.gold, dialogue.pred
    for length in range(1, len(dialogue) + 1):
        upto = tally_dialogue(Dialogue(ident, turns[:length], gold[:length], pred[:length]), mode)
        out.append(subtract(upto, before))
        before = upto
    return out


def joint_hits(corpus: Corpus, mode: str = "official") -> dict[str, list[bool]]:
    """{dialogue id: [gold state == predicted state, per turn]} (JGA turn by turn).

    Whether a turn's states are equal depends on that turn alone, so each turn is scored as a
    dialogue of one turn (linear in the turns, where `turn_tallies` is quadratic per dialogue)."""
    out = {}
    for d in corpus.dialogues:
        turns = zip(d.turn_ids, d.gold, d.pred)
        out[d.dialogue_id] = [
            tally_dialogue(Dialogue(d.dialogue_id, (t,), (g,), (p,)), mode).joint_hits == 1 for t, g, p in turns
        ]
    return out


@dataclass(frozen=True)
class PositionRow:
    """Figures of the turns at one position (0-based turn index) over all dialogues long enough."""

    position: int
    turns: int
    jga: float
    rsa: float
    correct: int
    wrong: int
    missed: int
    overshot: int
    first_failures: int  # dialogues whose JGA is first 0 at this position

    def as_dict(self) -> dict[str, float | int]:
        """JSON-ready fields."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class PositionProfile:
    """One `PositionRow` per turn position; `never_failed` counts dialogues right at every turn."""

    rows: list[PositionRow]
    never_failed: int
    options: Options

    def __iter__(self) -> Iterator[PositionRow]:
        return iter(self.rows)

    def as_dict(self) -> dict[str, object]:
        """{"rows": [...], "never_failed": n, "signature": str}."""
        return {
            "rows": [row.as_dict() for row in self.rows],
            "never_failed": self.never_failed,
            "signature": self.options.signature(),
        }


def by_position(corpus: Corpus, options: Options | None = None) -> PositionProfile:
    """JGA, RSA and the GCA counts of the turns at each position, and where JGA first fails."""
    options = corpus_options(corpus, options)
    sums: dict[int, Tally] = {}
    first: dict[int, int] = {}
    never = 0
    for dialogue in corpus.dialogues:
        failed = False
        for position, tally in enumerate(turn_tallies(dialogue, options.mode)):
            sums[position] = sums[position] + tally if position in sums else tally
            if not failed and tally.joint_hits == 0:
                failed = True
                first[position] = first.get(position, 0) + 1
        never += not failed
    jga, rsa = figure_of("jga").compute, figure_of("rsa").compute
    rows = [
        PositionRow(
            position,
            t.turns,
            jga(t, options),
            rsa(t, options),
            t.correct,
            t.wrong,
            t.missed,
            t.overshot,
            first.get(position, 0),
        )
        for position, t in sorted(sums.items())
    ]
    return PositionProfile(rows, never, options)
