"""FnCTOD's DST figures (Li et al., 2024; github facebookresearch/FnCTOD at 243fa2f, ``compute_jacc``):
overall JGA, slot P/R/F1, per-domain JGA and F1 for its five domains and their mean ("average JGA").

States are written as FnCTOD's belief spans and read back, cleaned with its typo table, value fixes
and renames, and compared as sets of ``[domain]->slot->value`` strings. Each convention, and the
figures measured against FnCTOD's own code, is in ``docs/compat.md``. Where FnCTOD would crash (a
domain outside its seven, a value holding ``->``) the domain is skipped or the string split at its
first two ``->``. Figures are fractions, unrounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..corpus import Corpus
from ..options import Options
from ..states import Alternatives, State, slot_service
from .base import Profile, precision_recall_f1
from .trade import turn_f1

NAME = "fnctod"

DOMAINS = ("restaurant", "taxi", "hotel", "attraction", "train")
"""FnCTOD's five evaluated domains, in its order."""

INFORMABLE = {
    "taxi": ("leave", "destination", "departure", "arrive"),
    "police": (),
    "hospital": ("department",),
    "hotel": ("type", "parking", "pricerange", "internet", "stay", "day", "people", "area", "stars", "name"),
    "attraction": ("area", "type", "name"),
    "train": ("destination", "day", "arrive", "departure", "people", "leave"),
    "restaurant": ("food", "pricerange", "area", "name", "time", "day", "people"),
}
"""The slots written into a belief span, by domain (UBAR names)."""

SPAN_DOMAINS = frozenset(f"[{domain}]" for domain in INFORMABLE)
SPAN_SLOTS = frozenset(
    "address area arrive car day department departure destination food id internet leave name parking "
    "people phone postcode price pricerange reference stars stay time type".split()
)
"""Tokens that start a slot when a belief span is read back (its requestable and informable slots)."""

SLOT_RENAMES = {
    "book people": "people",
    "book day": "day",
    "book stay": "stay",
    "book time": "time",
    "leaveat": "leave",
    "arriveby": "arrive",
}
"""MultiWOZ slot names -> UBAR's, as in FnCTOD's data."""

NONE_MARKS = ("not mentioned", "none", "not present")
DONTCARE_MARKS = ("dontcare", "dont care", "do not care")
END_OF_TEXT = "<|endoftext|>"
"""Removed from every predicted string, which is then stripped (FnCTOD's ``clean_tokens``); gold keeps it."""

PRED_TYPOS = {
    "guesthouse": "guest house",
    "guesthouses": "guest house",
    "guest": "guest house",
    "mutiple sports": "multiple sports",
    "sports": "multiple sports",
    "mutliple sports": "multiple sports",
    "swimmingpool": "swimming pool",
    "concerthall": "concert hall",
    "concert": "concert hall",
    "pool": "swimming pool",
    "night club": "nightclub",
    "mus": "museum",
    "ol": "architecture",
    "colleges": "college",
    "coll": "college",
    "architectural": "architecture",
    "musuem": "museum",
    "churches": "church",
    "center": "centre",
    "center of town": "centre",
    "near city center": "centre",
    "in the north": "north",
    "cen": "centre",
    "east side": "east",
    "east area": "east",
    "west part of town": "west",
    "ce": "centre",
    "town center": "centre",
    "centre of cambridge": "centre",
    "city center": "centre",
    "the south": "south",
    "scentre": "centre",
    "town centre": "centre",
    "in town": "centre",
    "north part of town": "north",
    "centre of town": "centre",
    "cb30aq": "none",
    "mode": "moderate",
    "moderate -ly": "moderate",
    "mo": "moderate",
    "next friday": "friday",
    "monda": "monday",
    "free parking": "free",
    "free internet": "yes",
    "4 star": "4",
    "4 stars": "4",
    "0 star rarting": "none",
    "y": "yes",
    "any": "dontcare",
    "n": "no",
    "does not care": "dontcare",
    "not men": "none",
    "not": "none",
    "not mentioned": "none",
    "not present": "none",
    "": "none",
    "not mendtioned": "none",
    "3 .": "3",
    "does not": "no",
    "fun": "none",
    "art": "none",
}
"""FnCTOD's typo table (``GENERAL_TYPO``), applied to predicted values only."""

TYPE_TO_NONE = frozenset(
    ["nigh", "moderate -ly priced", "bed and breakfast", "centre", "venetian", "intern", "a cheap -er hotel"]
    + ["gastropub", "la raza", "galleria", "gallery", "science", "m"]
)
TYPE_TO_HOTEL = frozenset(["hotel with free parking and free wifi", "4", "3 star hotel"])
AREA_FIXES = {"no": "north", "we": "west", "cent": "centre"}
DAY_FIXES = {"we": "wednesday", "no": "none"}
AREA_TO_NONE = frozenset(
    ["stansted airport", "cambridge", "silver street", "norwich", "ely", "museum", "same area as hotel"]
)
APOSTROPHE_S = re.compile(r"(\w+)\s(\'s\s\w+)")

VALUE_RENAMES = {
    "cafe uno": "caffe uno",
    "alpha milton guest house": "alpha-milton guest house",
    "churchills college": "churchill college",
    "churchhill college": "churchill college",
    "churchill": "churchill college",
    "the churchill college": "churchill college",
    "portugese": "portuguese",
    "restaurant 17": "restaurant one seven",
    "restaurant 2 two": "restaurant two two",
    "gallery at 12 a high street": "gallery at twelve a high street",
    "museum of archaelogy": "museum of archaelogy and anthropology",
    "huntingdon marriot hotel": "huntingdon marriott hotel",
    "marriot hotel": "huntingdon marriott hotel",
    "sheeps green and lammas land park fen causeway": "sheep's green and lammas land park fen causeway",
    "sheeps green and lammas land park": "sheep's green and lammas land park fen causeway",
    "cambridge and country folk museum": "cambridge and county folk museum",
    "county folk museum": "cambridge and county folk museum",
    "ambridge": "cambridge",
    "cambridge contemporary art museum": "cambridge contemporary art",
    "molecular gastonomy": "molecular gastronomy",
    "2 two and cote": "two two and cote",
    "caribbeanindian": "caribbean|indian",
    "whipple museum": "whipple museum of the history of science",
    "ian hong": "ian hong house",
    "sundaymonday": "sunday|monday",
    "mondaythursday": "monday|thursday",
    "fridaytuesday": "friday|tuesday",
    "cheapmoderate": "cheap|moderate",
    "golden house                            golden house": "the golden house",
    "golden house": "the golden house",
    "sleeperz": "sleeperz hotel",
    "jamaicanchinese": "jamaican|chinese",
    "shiraz": "shiraz restaurant",
    "museum of archaelogy and anthropogy": "museum of archaelogy and anthropology",
    "yipee noodle bar": "yippee noodle bar",
    "abc theatre": "adc theatre",
    "wankworth house": "warkworth house",
    "cherry hinton water play park": "cherry hinton water play",
    "cherry hinton water park": "cherry hinton water play",
    "the gallery at 12": "the gallery at twelve",
    "barbequemodern european": "barbeque|modern european",
    "north americanindian": "north american|indian",
    "chiquito": "chiquito restaurant bar",
    "museum of archaeology and anthropology": "museum of archaelogy and anthropology",
    "saint catherine's college": "saint catharine's college",
    "city centre north bed and breakfast": "city centre north b and b",
    "north bed and breakfast": "north b and b",
    "christ college": "christ's college",
    "kings college": "king's college",
    "saint johns college": "saint john's college",
    "kettles yard": "kettle's yard",
    "rosas bed and breakfast": "rosa's bed and breakfast",
    "saint catharines college": "saint catharine's college",
    "little saint marys church": "little saint mary's church",
    "great saint marys church": "great saint mary's church",
    "queens college": "queen's college",
    "queens' college": "queen's college",
    "peoples portraits exhibition at girton college": "people's portraits exhibition at girton college",
    "st johns college": "saint john's college",
    "whale of time": "whale of a time",
    "st catharines college": "saint catharine's college",
    "saint john 's college": "saint john's college",
    "saint johns colleg": "saint john's college",
    "pizza hut fen ditton": "pizza hut fenditton",
    "pizza hit fen ditton": "pizza hut fenditton",
    "the copper kettle": "copper kettle",
    "the dojo noodle bar": "dojo noodle bar",
    "16,15": "16:15",
    "1330": "13:30",
    "1430": "14:30",
    "1532": "15:32",
    "845": "08:45",
    "1145": "11:45",
    "1545": "15:45",
    "1329": "13:29",
    "1345": "13:45",
    "1715": "17:15",
    "929": "09:29",
}
"""FnCTOD's fixed renames of names and times (``fix_mismatch_jason_2020``), both sides. Its rules
apply one after another, but no rule's output is a later rule's input, so one lookup is the same."""


def belief_span(state: State) -> str:
    """The belief span FnCTOD writes for a state (informable slots, UBAR names, no empty value)."""
    goal: dict[str, dict[str, str]] = {}
    for name, value in state.items():
        domain, _, slot = name.partition("-")
        text = value.first if isinstance(value, Alternatives) else value
        goal.setdefault(domain, {})[SLOT_RENAMES.get(slot, slot)] = text
    words: list[str] = []
    for domain, slots in goal.items():
        informable = INFORMABLE.get(domain)
        if informable is None:  # FnCTOD's span writer would fail on this domain
            continue
        words.append(f"[{domain}]")
        for slot, value in slots.items():
            if slot in informable and value:
                words += (slot, value)
    return " ".join(words)


def read_span(span: str) -> set[str]:
    """The ``[domain]->slot->value`` strings FnCTOD reads from a belief span (``paser_bs``)."""
    tokens = span.split()
    items: set[str] = set()
    starts = [index for index, token in enumerate(tokens) if token in SPAN_DOMAINS]
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(tokens)
        words = tokens[start + 1 : end]
        slots = [index for index, token in enumerate(words) if token in SPAN_SLOTS]
        for rank, at in enumerate(slots):
            stop = slots[rank + 1] if rank + 1 < len(slots) else len(words)
            items.add(f"{tokens[start]}->{words[at]}->{' '.join(words[at + 1 : stop])}")
    return items


def fix_value(slot: str, value: str) -> str:
    """FnCTOD's per-slot value fixes (``fix_mismatch_jason``) then its renames."""
    if (
        (slot == "type" and value in TYPE_TO_NONE)
        or (slot == "internet" and value == "4")
        or (slot == "pricerange" and value == "2")
        or ("area" in slot and value == "moderate")
        or ("day" in slot and value == "t")
    ):
        value = "none"
    elif slot == "type" and value in TYPE_TO_HOTEL:
        value = "hotel"
    elif "area" in slot:
        value = AREA_FIXES.get(value, value)
    elif "day" in slot:
        value = DAY_FIXES.get(value, value)
    elif "price" in slot and value == "ch":
        value = "cheap"
    elif ("internet" in slot or "parking" in slot) and value == "free":
        value = "yes"
    elif value.startswith("the"):
        value = value[4:]
    elif "[value_" in value:
        value = "none"
    value = APOSTROPHE_S.sub(r"\1\2", value)
    if slot == "area" and value in AREA_TO_NONE:
        value = "none"
    return VALUE_RENAMES.get(value, value)


def _split(item: str) -> tuple[str, str, str]:
    domain, slot, value = (item.split("->", 2) + ["", ""])[:3]
    return domain, slot, value


def _without_none(items: Iterable[str]) -> list[str]:
    return [item for item in items if not any(mark in item for mark in NONE_MARKS)]


def _cleaned(items: set[str], *, pred: bool) -> set[str]:
    if pred:
        items = {item.replace(END_OF_TEXT, "").strip() for item in items}
    fixed = []
    for item in _without_none(items):
        domain, slot, value = _split(item)
        if pred:
            value = PRED_TYPOS.get(value, value)
        fixed.append(f"{domain}->{slot}->{fix_value(slot, value)}")
    kept = _without_none(fixed)
    if pred:
        kept = [item for item in kept if not any(mark in item for mark in DONTCARE_MARKS)]
    return set(kept)


def turn_strings(gold: State, pred: State) -> tuple[set[str], set[str]]:
    """FnCTOD's cleaned gold and predicted ``[domain]->slot->value`` strings of one turn."""
    return (
        _cleaned(read_span(belief_span(gold)), pred=False),
        _cleaned(read_span(belief_span(pred)), pred=True),
    )


def _domain_items(items: set[str], domain: str) -> set[str]:
    tag = f"[{domain}]"
    out = set()
    for item in items:
        item_domain, slot, value = _split(item)
        if item_domain == tag and value:
            out.add(f"{slot}->{value}")
    return out


def fnctod_figures(
    corpus: Corpus, *, dialogue_domains: Mapping[str, Iterable[str]] | None = None
) -> dict[str, float | int]:
    """``jga``, ``slot_precision``, ``slot_recall``, ``slot_f1``, ``average_jga`` and per domain of
    `DOMAINS` ``jga_<domain>``, ``f1_<domain>``, ``turns_<domain>``. `dialogue_domains`: each dialogue's
    domains (FnCTOD's ``all_domains``); by default the domains of its gold slots."""
    turns = joint = hits = n_pred = n_gold = 0
    domain_joint = dict.fromkeys(DOMAINS, 0)
    domain_turns = dict.fromkeys(DOMAINS, 0)
    domain_f1 = dict.fromkeys(DOMAINS, 0.0)
    for dialogue in corpus.dialogues:
        if dialogue_domains is not None:
            domains = set(dialogue_domains.get(dialogue.dialogue_id, ()))
        else:
            domains = {slot_service(name) for state in dialogue.gold for name in state}
        counted = [domain for domain in DOMAINS if domain in domains]
        for gold_state, pred_state in zip(dialogue.gold, dialogue.pred):
            gold, pred = turn_strings(gold_state, pred_state)
            turns += 1
            joint += gold == pred
            hits += len(gold & pred)
            n_pred += len(pred)
            n_gold += len(gold)
            for domain in counted:
                in_gold, in_pred = _domain_items(gold, domain), _domain_items(pred, domain)
                domain_turns[domain] += 1
                domain_joint[domain] += in_gold == in_pred
                domain_f1[domain] += turn_f1(len(in_gold & in_pred), len(in_gold), len(in_pred - in_gold))
    figures: dict[str, float | int] = {"jga": joint / turns if turns else 0.0}
    prf = precision_recall_f1(hits, n_pred, n_gold)
    figures.update(zip(("slot_precision", "slot_recall", "slot_f1"), prf))
    for domain in DOMAINS:
        count = domain_turns[domain]
        figures[f"jga_{domain}"] = domain_joint[domain] / count if count else 0.0
        figures[f"f1_{domain}"] = domain_f1[domain] / count if count else 0.0
        figures[f"turns_{domain}"] = count
    figures["average_jga"] = sum(figures[f"jga_{domain}"] for domain in DOMAINS) / len(DOMAINS)
    return figures


def profile_figures(corpus: Corpus, options: Options) -> dict[str, object]:
    """The profile's figures: `fnctod_figures` with the per-domain ones grouped under ``fnctod``
    ({domain: {"joint_goal_accuracy", "f1", "turns"}}); FnCTOD's conventions ignore `options`."""
    found = fnctod_figures(corpus)
    by_domain = {
        domain: {
            "joint_goal_accuracy": found.pop(f"jga_{domain}"),
            "f1": found.pop(f"f1_{domain}"),
            "turns": found.pop(f"turns_{domain}"),
        }
        for domain in DOMAINS
    }
    return {**found, NAME: by_domain}


_DONTCARE = "FnCTOD drops predicted dontcare but keeps gold dontcare, so a gold dontcare slot never matches"
_DOMAINS = "FnCTOD writes only its seven MultiWOZ domains' informable slots: gold without them has nothing to match"
SELF_CHECK = {
    "jga": _DONTCARE,
    "slot_recall": f"{_DONTCARE}; {_DOMAINS}",
    "slot_f1": f"{_DONTCARE}; {_DOMAINS}",
    "slot_precision": _DOMAINS,
    "average_jga": "the mean of five domains' JGA counts a domain without turns as 0 (and gold dontcare never matches)",
}
"""Why a figure is below 1 on gold scored against itself (``dst-metrics check``)."""

PROFILE = Profile(
    NAME,
    "FnCTOD's compute_jacc: belief-span strings, predicted dontcare dropped, per-domain and average JGA",
    profile_figures,
    self_check=SELF_CHECK,
)
