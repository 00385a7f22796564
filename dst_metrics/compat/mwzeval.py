"""Profile ``mwzeval``: JGA and slot P/R/F1 as MultiWOZ_Evaluation computes them (Nekvinda & Dušek,
2021; github Tomiinek/MultiWOZ_Evaluation, ``mwzeval/metrics.py`` ``get_dst``). Its conventions:
``docs/compat.md``.
"""

from __future__ import annotations

import functools

from ..corpus import Corpus
from ..fuzzy import FUZZY_THRESHOLD, partial_ratio
from ..options import Options
from ..states import INACTIVE_VALUES, Alternatives, State
from .base import Profile

NAME = "mwzeval"
DONTCARE = "dontcare"
SMOOTHING = 1e-10  # mwzeval's get_dst adds it to every denominator

# The facts below are mwzeval's fixed tables (mwzeval/normalization.py, normalize_data and
# normalize_state_slot_value), restated as {as written: canonical}.
SLOT_RENAMES = {"arriveby": "arrive", "leaveat": "leave"}
NAME_RENAMES = {  # name_to_canonical with no domain: its restaurant, hotel and attraction lists at once
    "hotel du vin bistro": "hotel du vin and bistro",
    "the river bar and grill": "the river bar steakhouse and grill",
    "nando's": "nandos",
    "city center b and b": "city center north b and b",
    "acorn house": "acorn guest house",
    "caffee uno": "caffe uno",
    "cafe uno": "caffe uno",
    "rosa's": "rosas bed and breakfast",
    "restaurant called two two": "restaurant two two",
    "restaurant 2 two": "restaurant two two",
    "restaurant two 2": "restaurant two two",
    "restaurant 2 2": "restaurant two two",
    "restaurant 1 7": "restaurant one seven",
    "restaurant 17": "restaurant one seven",
    "lime house": "limehouse",
    "cityrooms": "cityroomz",
    "whale of time": "whale of a time",
    "huntingdon hotel": "huntingdon marriott hotel",
    "holiday inn exlpress, cambridge": "express by holiday inn cambridge",
    "university hotel": "university arms hotel",
    "arbury guesthouse and lodge": "arbury lodge guesthouse",
    "bridge house": "bridge guest house",
    "arbury guesthouse": "arbury lodge guesthouse",
    "nandos in the city centre": "nandos city centre",
    "broughton gallery": "broughton house gallery",
    "scudamores punt co": "scudamores punting co",
    "cambridge botanic gardens": "cambridge university botanic gardens",
    "the junction": "junction theatre",
    "trinity street college": "trinity college",
    "christ college": "christ's college",
    "christs": "christ's college",
    "history of science museum": "whipple museum of the history of science",
    "parkside pools": "parkside swimming pool",
    "the botanical gardens at cambridge university": "cambridge university botanic gardens",
    "cafe jello museum": "cafe jello gallery",
}
TYPE_RENAMES = {  # type_to_canonical (applied to the value as written, not lower-cased)
    "swimming pool": "swimmingpool",
    "mutliple sports": "multiple sports",
    "night club": "nightclub",
    "guest house": "guesthouse",
}
FOOD_RENAMES = {  # food_to_canonical, after lower-casing
    "eriterean": "mediterranean",
    "brazilian": "portuguese",
    "sea food": "seafood",
    "portugese": "portuguese",
    "modern american": "north american",
    "americas": "north american",
    "intalian": "italian",
    "italain": "italian",
    "asian or oriental": "asian",
    "english": "british",
    "australasian": "australian",
    "gastropod": "gastropub",
    "brutish": "british",
    "bristish": "british",
    "europeon": "european",
}
TIME_PHRASES = {  # time_to_canonical's whole phrases, after lower-casing
    "afternoon": "13:00",
    "lunch": "12:00",
    "noon": "12:00",
    "mid-day": "12:00",
    "around lunch time": "12:00",
    "morning": "08:00",
    "seven o'clock tomorrow evening": "07:00",
    "three forty five p.m": "15:45",
    "one thirty p.m.": "13:30",
    "six fourty five": "06:45",
    "eight thirty": "08:30",
}
TIME_STARTS = {"one o'clock p.m": "13:00", "ten o'clock a.m": "10:00"}  # phrases it reads by their start
TIME_SLOTS = frozenset({"arrive", "leave", "arriveby", "leaveat", "time"})
NAME_SLOTS = frozenset({"name", "destination", "departure"})
_PREFIXES = (("by", 3, False), ("after", 5, True), ("afer", 4, True))  # (start, characters cut, strip after)


def normalize_time(value: str) -> str:
    """A time as mwzeval writes it, ``HH:MM`` where it can (``"after 5pm"`` -> ``"17:00"``,
    ``"afternoon"`` -> ``"13:00"``, ``"9.15"`` stays); its rules in its order."""
    time = value.strip().lower()
    if time in TIME_PHRASES:
        return TIME_PHRASES[time]
    for start, canonical in TIME_STARTS.items():
        if time.startswith(start):
            return canonical
    for start, cut, strip in _PREFIXES:
        if time.startswith(start):
            time = time[cut:].strip() if strip else time[cut:]
    for suffix in ("am", "a.m."):
        if time.endswith(suffix):
            time = time[: -len(suffix)].strip()
    if time.endswith(("pm", "p.m.")):
        for suffix in ("pm", "p.m."):
            if time.endswith(suffix):
                time = time[: -len(suffix)].strip()
        evening = _twelve_later(time)
        if evening is not None:
            return evening
    if not time:
        return "00:00"
    if time[-1] in ".,?":
        time = time[:-1]
    if time.isdigit():
        return f"{time[:2]}:{time[2:]}" if len(time) == 4 else time.zfill(2) + ":00"
    if ":" in time:
        time = time.replace(" ", "")
    if len(time) == 4 and time[1] == ":":
        hour, minutes = time.split(":")[:2]
        return f"{hour.zfill(2)}:{minutes}"
    return time


def _twelve_later(time: str) -> str | None:
    """``h:mm`` or ``h`` of a p.m. time with 12 added to the hour (mwzeval's reading, ``12pm`` is
    ``24:00``); None where mwzeval does not convert it (or its ``int()`` would fail)."""
    tokens = time.split(":")
    try:
        if len(tokens) == 2:
            return f"{int(tokens[0]) + 12}:{tokens[1]}"
        if len(tokens) == 1 and tokens[0].isdigit():
            return f"{int(tokens[0]) + 12}:00"
    except ValueError:
        return None
    return None


def normalize_name(value: str) -> str:
    """A venue or place name: stripped, lower-cased, ``&`` as ``and``, then `NAME_RENAMES`."""
    name = value.strip().lower().replace(" & ", " and ").replace("&", " and ").replace(" '", "'")
    return NAME_RENAMES.get(name, name)


def normalize_value(slot: str, value: str) -> str:
    """A value as mwzeval normalizes it for its (canonical) slot name; other slots keep it as is."""
    if slot in NAME_SLOTS:
        return normalize_name(value)
    if slot == "type":
        return TYPE_RENAMES.get(value, value)
    if slot == "food":
        food = value.strip().lower()
        return FOOD_RENAMES.get(food, food)
    if slot in TIME_SLOTS:
        return normalize_time(value)
    if slot in ("parking", "internet"):
        return "yes" if value == "free" else value
    return value


def canonical_slot(slot: str) -> str:
    """A slot name lower-cased without spaces, ``arriveby`` -> ``arrive``, ``leaveat`` -> ``leave``."""
    slot = slot.lower().replace(" ", "")
    return SLOT_RENAMES.get(slot, slot)


def gold_value(value: object) -> str | None:
    """The value mwzeval's gold holds for a gold value: None (dropped) for ``dontcare`` in any of
    its acceptable values and for an inactive value, else the first acceptable value."""
    if value.__class__ is Alternatives:
        return None if DONTCARE in value else value.first
    return None if value == DONTCARE or value in INACTIVE_VALUES else value


@functools.lru_cache(maxsize=1 << 16)
def _entry(name: str, value: str) -> tuple[tuple[str, str], str]:
    """((domain, slot), value) of one slot as mwzeval sees it, slot and value normalized."""
    domain, hyphen, slot = name.partition("-")
    if not hyphen:
        domain, slot = "", name
    slot = canonical_slot(slot)
    return (domain, slot), normalize_value(slot, value)


def _normalized(state: State, gold: bool) -> dict[tuple[str, str], str]:
    """The state's entries as mwzeval compares them, {(domain, slot): value} (gold as `gold_value` keeps it)."""
    out = {}
    for name, value in state.items():
        if gold:
            value = gold_value(value)
            if value is None:
                continue
        key, out_value = _entry(name, value)
        out[key] = out_value
    return out


@functools.lru_cache(maxsize=1 << 16)
def _matches(hyp: str, ref: str) -> bool:
    """mwzeval's value match, ``partial_ratio(hyp, ref) > 95``."""
    return partial_ratio(hyp, ref) > FUZZY_THRESHOLD


def mwzeval_figures(corpus: Corpus, options: Options) -> dict[str, object]:
    """{jga, slot_precision, slot_recall, slot_f1} as mwzeval's get_dst computes them (fractions)."""
    joint = tp = fp = fn = turns = 0
    for dialogue in corpus.dialogues:
        for gold, pred in zip(dialogue.gold, dialogue.pred):
            ref = _normalized(gold, True)
            hyp = _normalized(pred, False)
            hits = sum(1 for slot, value in hyp.items() if slot in ref and _matches(value, ref[slot]))
            joint += hits == len(ref) and hyp.keys() == ref.keys()
            tp += hits
            fp += len(hyp) - hits
            fn += len(ref) - hits
            turns += 1
    precision = tp / (tp + fp + SMOOTHING)
    recall = tp / (tp + fn + SMOOTHING)
    return {
        "jga": joint / (turns + SMOOTHING),
        "slot_precision": precision,
        "slot_recall": recall,
        "slot_f1": 2 * precision * recall / (precision + recall + SMOOTHING),
    }


_DONTCARE_FP = (
    "mwzeval drops gold dontcare (and none) slots but keeps predicted ones, so a perfect prediction's "
    "dontcare is a false positive (its issue 13)"
)
_SMOOTHING = "mwzeval adds 1e-10 to every denominator, so a perfect recall prints just below 1"
SELF_CHECK = {
    "jga": _DONTCARE_FP,
    "slot_precision": _DONTCARE_FP,
    "slot_f1": _DONTCARE_FP,
    "slot_recall": _SMOOTHING,
}
"""Why a figure is below 1 on gold scored against itself (``dst-metrics check``)."""

PROFILE = Profile(
    NAME,
    "MultiWOZ_Evaluation (mwzeval): normalized names and values, fuzzy match",
    mwzeval_figures,
    self_check=SELF_CHECK,
)
