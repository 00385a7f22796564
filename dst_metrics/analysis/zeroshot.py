"""Zero-shot, leave-one-domain-out figures (MultiWOZ): one held-out domain's turns, restricted to its slots.

Two protocols (docs/compat.md, "Zero-shot"):

- ``trade``, as TRADE's ``-exceptd DOMAIN``: every turn of each dialogue containing the domain, states
  restricted to its slots, SA over its K slots. Dialogue domains come from a file
  (`read_dialogue_domains`); without one, from the gold states (the signature says which);
- ``active-turns``, as D3ST reports it: only turns whose gold state has a slot of the domain.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..corpus import Corpus, Dialogue, restricted
from ..errors import InputError
from ..options import OptionError, Options
from ..scoring.scores import Report, Scores, score
from ..states import INACTIVE_VALUES, State, slot_domain

DOMAINS: tuple[str, ...] = ("hotel", "train", "restaurant", "attraction", "taxi")
"""MultiWOZ's five domains of the zero-shot experiments (TRADE's EXPERIMENT_DOMAINS), in their order."""
DOMAIN_SLOTS: dict[str, int] = {"hotel": 10, "train": 6, "restaurant": 7, "attraction": 3, "taxi": 4}
"""K of each domain: its slots among TRADE's 30 (``len(slot_temp)``, SA's denominator when it is held out)."""
PROTOCOLS: tuple[str, ...] = ("trade", "active-turns")
IGNORED_GOAL_KEYS = frozenset({"eod", "topic", "messageLen", "message"})
"""Keys of a MultiWOZ goal that are not domains (TRADE's IGNORE_KEYS_IN_GOAL)."""


def _has_domain(state: State, domain: str) -> bool:
    """Whether the (normalized) state has an active slot of the domain (`none` and "" are inactive)."""
    return any(slot_domain(slot) == domain and value not in INACTIVE_VALUES for slot, value in state.items())


def _active_turns(dialogue: Dialogue, domain: str) -> Dialogue:
    keep = [i for i, state in enumerate(dialogue.gold) if _has_domain(state, domain)]
    return Dialogue(
        dialogue.dialogue_id,
        tuple(dialogue.turn_ids[i] for i in keep),
        tuple(dialogue.gold[i] for i in keep),
        tuple(dialogue.pred[i] for i in keep),
    )


def held_out(
    corpus: Corpus,
    domain: str,
    protocol: str = "trade",
    dialogue_domains: Mapping[str, frozenset[str]] | None = None,
) -> Corpus:
    """The corpus of one held-out `domain` under `protocol`, states restricted to its slots."""
    if protocol not in PROTOCOLS:
        raise OptionError(f"protocol must be one of {', '.join(PROTOCOLS)}; got {protocol!r}")
    if dialogue_domains is not None and protocol != "trade":
        raise OptionError("the dialogues' domains select dialogues under --protocol trade only")
    if protocol == "trade" and dialogue_domains is not None:
        chosen = [d for d in corpus.dialogues if domain in dialogue_domains.get(d.dialogue_id, ())]
    elif protocol == "trade":
        chosen = [d for d in corpus.dialogues if any(_has_domain(state, domain) for state in d.gold)]
    else:
        chosen = [d for d in (_active_turns(d, domain) for d in corpus.dialogues) if d.turn_ids]
    if not chosen:
        raise InputError(f"no dialogue of the input has the domain {domain!r} under --protocol {protocol}")
    dialogues = tuple(restricted(d, lambda slot: slot_domain(slot) == domain) for d in chosen)
    source = "" if protocol != "trade" else ("/goal" if dialogue_domains is not None else "/gold")
    reading = (*corpus.reading, f"heldout:{domain}", f"protocol:{protocol}{source}")
    return dataclasses.replace(corpus, dialogues=dialogues, scores=None, reading=reading)


def held_out_options(options: Options, domain: str) -> Options:
    """`options` with SA's K set to the domain's slot count, as TRADE's ``compute_acc`` divides."""
    return options.replace(num_slots=DOMAIN_SLOTS[domain]) if domain in DOMAIN_SLOTS else options


def score_held_out(
    corpus: Corpus,
    domain: str,
    protocol: str = "trade",
    options: Options | None = None,
    dialogue_domains: Mapping[str, frozenset[str]] | None = None,
) -> Report:
    """Every figure of one held-out domain (`held_out`, `held_out_options`)."""
    selected = held_out(corpus, domain, protocol, dialogue_domains)
    return score(selected, held_out_options(options or Options(), domain))


def score_domains(
    corpus: Corpus,
    protocol: str = "trade",
    options: Options | None = None,
    dialogue_domains: Mapping[str, frozenset[str]] | None = None,
    domains: Iterable[str] = DOMAINS,
) -> dict[str, Scores]:
    """{domain: scores} of each held-out domain, then ``average``: the mean over the domains (counts summed)."""
    out = {domain: score_held_out(corpus, domain, protocol, options, dialogue_domains).scores for domain in domains}
    out["average"] = average_scores(list(out.values()))
    return out


def average_scores(rows: list[Scores]) -> Scores:
    """The mean of each figure over `rows` (counts summed), signed ``heldout:each`` and ``K:each``."""
    first = rows[0]
    parts = first.signature.split("|")
    signature = "|".join(
        "heldout:each" if part.startswith("heldout:") else "K:each" if part.startswith("K:") else part for part in parts
    )
    values: dict = {}
    for key, value in first.items():
        column = [row[key] for row in rows]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        values[key] = sum(column) if isinstance(value, int) else math.fsum(column) / len(column)
    return Scores(values, signature)


def _unreadable(path: str | Path, problem: str) -> InputError:
    return InputError(f"{path}: cannot read the dialogues' domains ({problem})")


def read_dialogue_domains(path: str | Path) -> dict[str, frozenset[str]]:
    """{dialogue id: domains} from TRADE's ``*_dials.json``, MultiWOZ's ``data.json`` or a plain mapping."""
    # each failure in our words, placed by the errors' documented attributes, never by their messages (issue 56)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise _unreadable(path, error.strerror or type(error).__name__) from None
    except UnicodeDecodeError as error:
        raise _unreadable(path, f"not UTF-8 text at byte {error.start}") from None
    except json.JSONDecodeError as error:
        raise _unreadable(path, f"not valid JSON at line {error.lineno}, column {error.colno}") from None
    if isinstance(data, list):
        items = [(d.get("dialogue_idx"), d.get("domains")) for d in data if isinstance(d, dict)]
    elif isinstance(data, dict):
        items = [(key, _goal_domains(value) if isinstance(value, dict) else value) for key, value in data.items()]
    else:
        items = []
    out = {}
    for dialogue_id, domains in items:
        if not isinstance(dialogue_id, str) or not isinstance(domains, list):
            raise InputError(f"{path}: dialogue {dialogue_id!r}: expected a list of domains, got {domains!r}")
        out[dialogue_id] = frozenset(domains)
    if not out:
        raise InputError(f"{path}: no dialogue's domains (TRADE's *_dials.json, MultiWOZ's data.json or {{id: [...]}})")
    return out


def _goal_domains(dialogue: dict) -> list[str] | None:
    goal = dialogue.get("goal")
    if not isinstance(goal, dict):
        return None
    return [domain for domain, entry in goal.items() if entry and domain not in IGNORED_GOAL_KEYS]
