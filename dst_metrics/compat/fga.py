"""Profile ``fga``: JGA, SA, AGA and FGA as the official FGA code prints them (Dey et al., 2022;
github SuvodipDey/FGA, ``compute_accuracy_trade_somdst.py``). Its conventions and its turn order:
``docs/compat.md``.
"""

from __future__ import annotations

from ..core.tally import Changes, Tally, hyphenated, side_changes, turn_figures
from ..corpus import Dialogue
from ..errors import InputError
from ..figures.registry import FIGURES
from ..options import Options
from ..states import State, values_match
from .base import DialogueSums, Profile, turn_results

NAME = "fga"
KEYS: tuple[str, ...] = ("jga", "sa", "aga", "fga")
"""The figures this profile replaces (and ``fga@λ`` for each λ of the grid)."""


def _inside(changes: Changes, gold: State, pred: State, gold_side: bool) -> bool:
    """Every new item of one side is an item of the other side's state (FGA's type-1 test)."""
    if gold_side:
        return all(values_match(value, pred.get(slot)) for slot, value in changes)
    return all(values_match(gold.get(slot), value) for slot, value in changes)


def _turn(gold: State, pred: State) -> tuple:
    """(equal, SA misses + wrongs, hits, gold items) of a turn read as the code's strings (`hyphenated`:
    the same counts as reading its slots unless a value has a hyphen)."""
    return turn_figures(gold, pred, string_quirk=hyphenated(gold) or hyphenated(pred))[:4]


def _add(tally: Tally, dialogue: Dialogue, options: Options) -> None:
    """Add one dialogue's turn figures, every item (``none`` included) counting, into `tally`."""
    previous_gold: State = {}
    previous_pred: State = {}
    previous_equal = False
    last_error = -1
    figures = turn_results(dialogue, _turn)
    turns = zip(dialogue.turn_ids, dialogue.gold, dialogue.pred, figures)
    for position, (turn_id, gold, pred, (equal, slot_errors, hits, size)) in enumerate(turns):
        tally.turns += 1
        tally.joint_hits += equal
        tally.slot_errors += slot_errors
        if size:
            tally.goal_turns += 1
            tally.goal_hits[size] = tally.goal_hits.get(size, 0) + hits
        if not equal:
            # FGA's type-1 / type-2 test, as `core.tally`'s walk writes it inline for our `fga`, over other sets: the
            # FGA code's change sets and items (``none`` counting, `_inside` by `values_match` on whole states)
            # where ours takes active slots and skips removals (`changes_inside`); the walk's copy short-circuits
            # both tests in its hot loop, where one shared function would evaluate both on every unequal turn.
            if (
                position == 0
                or previous_equal
                or not _inside(side_changes(gold, previous_gold, False), gold, pred, True)
                or not _inside(side_changes(pred, previous_pred, False), gold, pred, False)
            ):
                last_error = turn_id
            else:
                distance = turn_id - last_error
                tally.fga_distances[distance] = tally.fga_distances.get(distance, 0) + 1
        previous_gold, previous_pred, previous_equal = gold, pred, equal


def _figures(tally: Tally, options: Options) -> dict[str, object]:
    """{jga, sa, aga, fga, fga@λ…} of the summed tally (fractions, unrounded)."""
    if not tally.goal_turns:
        raise InputError(
            "the fga profile needs at least one gold item (domain-slot-value, none included) in some turn: "
            "the official FGA code averages AGA over such turns and divides by zero without one"
        )
    out: dict[str, object] = {}
    for figure in FIGURES:
        if figure.key in KEYS:
            out.update(figure.values(tally, options))
    return out


SUMS = DialogueSums(Tally, _add, _figures)
"""The profile as sums over dialogues: a `Tally` of its turn figures (``none`` counting)."""


PROFILE = Profile(NAME, "the official FGA code: JGA, SA, AGA, FGA with none as an item", SUMS.of_corpus, sums=SUMS)
