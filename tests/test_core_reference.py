"""The 21 reference files of ../shared/reference: official mode reproduces every published figure.

Each ``predictions/X.json`` has a ``published/X.json`` with the figures the official code printed,
in percent rounded to 2 decimals (``IAGA`` is an unpublished variant and is ignored, SPEC.md).
"""

from __future__ import annotations

import json

import pytest

from dst_metrics import Corpus, read, score
from tests.conftest import REFERENCE, requires_shared

pytestmark = requires_shared

REFERENCE_FILES = sorted(REFERENCE.glob("*/predictions/*.json")) if REFERENCE.is_dir() else []
FILE_IDS = [f"{path.parent.parent.name}/{path.stem}" for path in REFERENCE_FILES]


def published_of(path):
    return json.loads((path.parent.parent / "published" / path.name).read_text())


def figure(scores, key: str) -> float:
    """The Scores figure behind a published key (JGA, SA, AGA, RSA, FGA_λ, GCA)."""
    if key.startswith("FGA_"):
        return scores.fga_grid[float(key[len("FGA_") :])]
    return getattr(scores, key.lower())


def percent(x: float) -> float:
    return round(100 * x, 2)


PUBLISHED_KEYS = ("JGA", "SA", "AGA", "RSA", "FGA_0.25", "FGA_0.5", "FGA_0.75", "FGA_1.0", "GCA")


@pytest.fixture(scope="module")
def corpora():
    return {path: read(path, "reference") for path in REFERENCE_FILES}


def test_all_reference_files_are_present():
    # 4 paper samples + 15 proofs of concept + 2 T5 zero-shot files (SPEC.md, last section).
    assert len(REFERENCE_FILES) == 21
    for path in REFERENCE_FILES:
        assert (path.parent.parent / "published" / path.name).is_file(), path


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=FILE_IDS)
def test_official_mode_reproduces_every_published_figure(path, corpora):
    published = published_of(path)
    assert set(PUBLISHED_KEYS) <= set(published)
    scores = score(corpora[path], mode="official").scores
    got = {key: percent(figure(scores, key)) for key in PUBLISHED_KEYS}
    want = {key: published[key] for key in PUBLISHED_KEYS}
    assert got == pytest.approx(want, abs=1e-9)


TRADE = REFERENCE.parent / "reference" / "trade"


def test_the_trade_file_in_the_reference_layout_reproduces_the_official_figures():
    # shared/reference/trade: 999 MultiWOZ test dialogues, 7,368 turns, with what the official
    # GCA code printed for them (its JGA 51.95 drops the 11 gold `none` items).
    corpus = read(TRADE / "MLCSG_TRADE_reference_layout.json", "reference")
    assert (len(corpus), corpus.num_turns) == (999, 7368)
    published = json.loads((TRADE / "MLCSG_TRADE_reference_layout.published.json").read_text())
    scores = score(corpus).scores
    assert {key: percent(figure(scores, key)) for key in PUBLISHED_KEYS} == {
        key: published[key] for key in PUBLISHED_KEYS
    }


def test_as_dict_names_the_fga_grid(corpora):
    scores = score(next(iter(corpora.values()))).scores
    flat = scores.as_dict()
    assert [flat[f"fga@{lam}"] for lam in ("0.25", "0.5", "0.75", "1.0")] == [
        scores.fga_grid[lam] for lam in (0.25, 0.5, 0.75, 1.0)
    ]
    assert flat["fga"] == scores.fga_grid[0.5]


def test_default_mode_is_official(corpora):
    for corpus in corpora.values():
        assert score(corpus).scores.as_dict() == score(corpus, mode="official").scores.as_dict()


@pytest.mark.parametrize(
    "name, dialogues, turns",
    [("T5_result_zeroshot_attraction", 395, 3110), ("T5_result_zeroshot_rest", 437, 3359)],
)
def test_t5_files_have_the_sizes_given_in_spec(name, dialogues, turns):
    corpus = read(REFERENCE / "t5_zeroshot" / "predictions" / f"{name}.json", "reference")
    assert len(corpus) == dialogues
    assert corpus.num_turns == turns
    assert score(corpus).scores.turns == turns


def test_the_reference_layout_and_the_loader_agree():
    # read(path, "reference") == read the JSON with the standard library + from_reference_layout.
    for path in REFERENCE_FILES:
        via_loader = read(path, "reference")
        via_layout = Corpus.from_reference_layout(json.loads(path.read_text()))
        assert via_loader == via_layout, path


# --------------------------------------------------------------------------------------------
# Official and corrected mode agree where none of SPEC's differences can show up.

GCA_FIELDS = set("gca value_precision value_recall label_precision label_recall".split())
GCA_FIELDS |= {"correct", "wrong", "missed", "overshot"}
FGA_GRID = {"fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0"}
TURN_FIELDS = set("jga fga sa aga rsa slot_precision slot_recall slot_f1 turns".split()) | FGA_GRID
ALL_FIELDS = GCA_FIELDS | TURN_FIELDS
# What each difference may change (SPEC.md, "Corrected mode" and the quirks; README conventions).
MAY_CHANGE = {
    "removal": GCA_FIELDS,  # quirks 1-3
    "none": GCA_FIELDS,  # official counts an explicit 'none' as a change; turn figures drop it
    "empty string": ALL_FIELDS,  # '' is an ordinary value in official mode, inactive in corrected
    "hyphen": {"sa", "rsa"},  # the last-hyphen quirk
    "turn ids": {"fga"} | FGA_GRID,  # official FGA distances are turn ids, corrected positions
    "no gold": {"aga"},  # no turn with a gold slot: 0 official, 1 corrected
    "no change": GCA_FIELDS,  # quirk 4
    # P = 0 or G = 0: the rates with nothing to divide are 0 official, 1 corrected
    "no predicted change": {"value_precision", "label_precision"},
    "no gold change": {"value_recall", "label_recall"},
}


def _values(value):
    return value if isinstance(value, frozenset) else {value}


def differences_possible(corpus: Corpus) -> set[str]:
    """Which of the things that make the two modes differ (SPEC.md) occur in the corpus."""
    found = set()
    any_gold = False
    changed = {"gold": False, "pred": False}
    for dialogue in corpus:
        if dialogue.turn_ids != tuple(range(len(dialogue))):
            found.add("turn ids")
        for name, side in (("gold", dialogue.gold), ("pred", dialogue.pred)):
            previous: dict = {}
            for state in side:
                for value in state.values():
                    if "none" in _values(value):
                        found.add("none")
                    if "" in _values(value):
                        found.add("empty string")
                    if any("-" in v for v in _values(value)):
                        found.add("hyphen")
                if any(slot not in state for slot in previous):
                    found.add("removal")
                changed[name] = changed[name] or state != previous
                previous = state
        any_gold = any_gold or any(dialogue.gold)
    if not any_gold:
        found.add("no gold")
    if not changed["gold"]:
        found.add("no gold change")
    if not changed["pred"]:
        found.add("no predicted change")
    if not changed["gold"] and not changed["pred"]:
        found.add("no change")
    return found


def unaffected(scores, differences: set[str]) -> dict:
    changing = set().union(*(MAY_CHANGE[d] for d in differences))
    return {name: value for name, value in scores.items() if name in ALL_FIELDS - changing}


@pytest.mark.parametrize("path", REFERENCE_FILES, ids=FILE_IDS)
def test_official_and_corrected_agree_except_where_spec_says_they_differ(path, corpora):
    # Without removals, explicit none/'' values, hyphenated values, gaps in the turn ids and
    # empty turns, the two modes give identical figures (==), corpus and per dialogue.
    # Otherwise every figure the differences present cannot touch still agrees.
    corpus = corpora[path]
    differences = differences_possible(corpus)
    official = score(corpus, mode="official", per_dialogue=True)
    corrected = score(corpus, mode="corrected", per_dialogue=True)
    assert unaffected(official.scores, differences) == unaffected(corrected.scores, differences)
    if not differences:
        assert unaffected(official.scores, set()).keys() == ALL_FIELDS
    for dialogue in corpus:
        own = differences_possible(Corpus((dialogue,)))
        assert unaffected(official.dialogues[dialogue.dialogue_id], own) == unaffected(
            corrected.dialogues[dialogue.dialogue_id], own
        )


def test_most_reference_files_have_none_of_the_differences(corpora):
    # Guard against the agreement test above comparing nothing: the hand-made paper and poc
    # files (all but zero_shot_result4, with explicit 'none' values) have none of the
    # differences, so all their figures must agree.
    clean = {path.stem for path, corpus in corpora.items() if not differences_possible(corpus)}
    assert len(clean) >= 15
    assert {"paper1", "paper2", "hypothetical_p1", "hypothetical_p2", "sample_1", "sample_2"} <= clean
    assert not {"T5_result_zeroshot_attraction", "zero_shot_result4"} & clean
