"""How inputs are read where a convention changes the figures: gold alternatives (any or first),
gold restricted to the dialogues predicted, and MultiWOZ 2.4 gold (data.json, read by the 2.1
reader); each named in the signature."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dst_metrics import Corpus, InputError, score
from dst_metrics.cli import main
from dst_metrics.readers import read
from dst_metrics.readers.multiwoz21 import CONVENTION
from tests.conftest import SGD, requires_shared

MWZ24 = Path(__file__).parent / "fixtures" / "multiwoz24"  # our own dialogues in MultiWOZ 2.4's data.json layout


def _predictions(tmp_path: Path) -> Path:
    """mwzeval-style predictions of two of the fixture's three dialogues: the first exact, the second
    missing the restaurant slot of its last turn (so JGA is 4 of 5 turns)."""
    predictions = {
        "sng0101": [
            {"state": {"hotel": {"pricerange": "cheap", "area": "north"}}},
            {"state": {"hotel": {"pricerange": "cheap", "area": "north", "type": "dontcare", "book people": "2"}}},
            {
                "state": {
                    "hotel": {
                        "pricerange": "cheap",
                        "area": "north",
                        "type": "dontcare",
                        "book people": "2",
                        "stars": "none",
                    }
                }
            },  # fmt: skip
        ],
        "mul0202": [
            {"state": {"train": {"destination": "cambridge", "day": "monday"}}},
            {"state": {"train": {"destination": "cambridge", "day": "monday", "leaveat": "09:15"}}},
        ],
    }
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions))
    return path


def test_multiwoz24_gold_with_only_predicted_names_its_convention_and_coverage(tmp_path, capsys):
    pred = _predictions(tmp_path)
    with pytest.raises(InputError, match=r"no partner in the predictions: \"PMUL0303.json\".*--only-predicted"):
        read(pred, gold=MWZ24)
    corpus = read(pred, gold=MWZ24, only_predicted=True)
    assert [d.dialogue_id for d in corpus] == ["SNG0101.json", "MUL0202.json"]
    assert corpus.dialogue("SNG0101.json").gold[2]["hotel-stars"] == "none"  # kept as a value
    scores = score(corpus).scores
    assert scores["jga"] == pytest.approx(4 / 5)
    assert scores.signature.endswith(f"|{CONVENTION}|subset:predicted(2/3)")
    assert main(["score", "--quiet", "--only-predicted", "--gold", str(MWZ24), str(pred)]) == 0
    out = capsys.readouterr().out
    assert "only the gold dialogues predicted: 2 of 3 (66.7%)" in out
    assert "subset:predicted(2/3)" in out and CONVENTION in out
    assert main(["score", "--quiet", "--only-predicted", str(pred)]) == 2  # nothing to restrict without --gold
    assert "only_predicted (--only-predicted) restricts a gold input" in capsys.readouterr().err


def test_gold_alternatives_any_or_first():
    gold = [[{"hotel-area": ["north", "centre"]}, {"hotel-area": ["north", "centre"], "hotel-stars": "4"}]]
    pred = [[{"hotel-area": "centre"}, {"hotel-area": "centre", "hotel-stars": "4"}]]
    any_ = score(Corpus.from_dialogues(pred, gold)).scores
    first = score(Corpus.from_dialogues(pred, gold, gold_alternatives="first")).scores
    assert any_["jga"] == 1.0 and first["jga"] == 0.0
    assert "alts:" not in any_.signature and first.signature.endswith("|alts:first")
    with pytest.raises(ValueError, match="gold_alternatives must be one of any, first"):
        Corpus.from_dialogues(pred, gold, gold_alternatives="last")


@requires_shared
def test_first_alternative_only_is_never_more_lenient_on_real_sgd_gold(tmp_path, capsys):
    """SGD gold lists several acceptable values; matching the first only can only lose turns and slots."""
    from tests.test_compat_sgd import SGD_GOLD, SGD_PRED

    any_ = score(read(SGD_PRED, gold=SGD_GOLD)).scores
    first = score(read(SGD_PRED, gold=SGD_GOLD, gold_alternatives="first")).scores
    assert first["jga"] <= any_["jga"] and first["aga"] <= any_["aga"]
    for alternatives in ("any", "first"):  # the predicted side of gold holds its first values: 100 either way
        assert score(read(SGD, gold=SGD, gold_alternatives=alternatives)).scores["jga"] == 1.0
    assert (
        main(["score", "--json", "--quiet", "--gold-alternatives", "first", "--gold", str(SGD_GOLD), str(SGD_PRED)])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["jga"] == first["jga"]
