"""Profiles count an unchanged turn (the same state objects as the turn before, as readers build them) as
the turn before without comparing its states again (issue 22). That is a saving only: each profile gives the
same figures on a corpus whose every state is a copy of its own, so that no two turns share an object."""

from __future__ import annotations

import dataclasses

import pytest

from dst_metrics import score
from dst_metrics.readers import read

from .conftest import REFERENCE, requires_shared

FILES = [
    REFERENCE / "t5_zeroshot" / "predictions" / "T5_result_zeroshot_rest.json",
    REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json",
]


def unshared(corpus):
    """The corpus with every state copied: no two turns share a state object."""
    dialogues = tuple(
        dataclasses.replace(d, gold=tuple(dict(s) for s in d.gold), pred=tuple(dict(s) for s in d.pred))
        for d in corpus.dialogues
    )
    return dataclasses.replace(corpus, dialogues=dialogues)


@requires_shared
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("profile", ["trade", "fga", "convlab"])
def test_a_profile_gives_the_same_figures_without_shared_states(path, profile):
    corpus = read(path)
    copied = unshared(corpus)
    assert sum(a is b for d in corpus for a, b in zip(d.gold, d.gold[1:])) > 0  # the file has unchanged turns
    assert sum(a is b for d in copied for a, b in zip(d.gold, d.gold[1:])) == 0
    for mode in ("official", "corrected"):
        shared = score(corpus, mode=mode, compat=profile).scores.as_dict()
        assert shared == score(copied, mode=mode, compat=profile).scores.as_dict(), (profile, mode)
