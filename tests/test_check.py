"""``dst-metrics check GOLD`` (`dst_metrics.analysis.selfcheck`): gold scored against itself under every
definition and profile; each figure 100 or the convention that keeps it below."""

from __future__ import annotations

from pathlib import Path

import pytest

from dst_metrics import score
from dst_metrics.analysis.selfcheck import UNEXPLAINED, check_gold, gold_against_itself, read_gold
from dst_metrics.cli import main
from dst_metrics.compat import PROFILES
from tests.conftest import REFERENCE, SGD, requires_shared

MWZ24 = Path(__file__).parent / "fixtures" / "multiwoz24"
TRADE = REFERENCE / "trade" / "MLCSG_TRADE_reference_layout.json"


def _lines(capsys, *argv: str) -> list[str]:
    assert main(["check", *argv]) == 0
    return capsys.readouterr().out.splitlines()


def test_every_scorer_gets_a_line_and_every_figure_below_100_a_convention(capsys):
    lines = _lines(capsys, str(MWZ24))
    assert lines[0] == f"{MWZ24}: gold scored against itself (6 turns, 3 dialogues)"
    scorers = {line.split(":")[0] for line in lines[1:]}
    assert scorers == {"ours (official)", "ours (corrected)", *PROFILES}
    assert "ours (corrected): every figure 100" in lines
    assert "fga: every figure 100" in lines and "trade: every figure 100" in lines
    assert any(line.startswith("ours (official): gca 95.85: official GCA counts a slot") for line in lines)
    assert any(line.startswith("mwzeval: jga 66.67: mwzeval drops gold dontcare") for line in lines)
    assert any(line.startswith("sgd: not run: --compat sgd needs the schema") for line in lines)
    assert not any(UNEXPLAINED in line for line in lines)


def test_gold_against_itself_scores_100_where_no_convention_says_otherwise():
    corpus = read_gold(MWZ24)
    perfect = gold_against_itself(corpus)
    assert all(d.gold == d.pred for d in perfect.dialogues)
    assert score(perfect, mode="corrected").scores["gca"] == 1.0
    below = {(line.scorer, line.figure) for line in check_gold(corpus) if line.figure}
    assert ("ours (official)", "gca") in below and ("ours (corrected)", "gca") not in below


@requires_shared
@pytest.mark.parametrize("gold", [TRADE, SGD], ids=["trade-reference-layout", "sgd-dialogues"])
def test_real_gold_has_no_unexplained_figure(gold, capsys):
    lines = _lines(capsys, str(gold))
    assert not any(UNEXPLAINED in line for line in lines), lines
    if gold == SGD:  # the SGD evaluator scores its own gold 100
        assert "sgd: every figure 100" in lines


def test_gold_from_standard_input_is_read_once(capsys, monkeypatch):
    """``dst-metrics check -``: standard input is resolved once (a second read would find it empty)."""
    import io
    import sys

    data = b'{"d1": {"0": {"gt": {"hotel-area": "north"}, "pr": {}}}}'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    lines = _lines(capsys, "-")
    assert lines[0] == "-: gold scored against itself (1 turn, 1 dialogue)"
    assert "ours (corrected): every figure 100" in lines


def test_a_profile_failing_in_a_dependency_is_named_by_the_error_s_type_not_its_message():
    # issue 56: a dependency's message may change with a release; the line says what we know, the type
    def failing(name):
        raise ValueError("a message a dependency words as it likes: use this")

    lines = check_gold(read_gold(MWZ24), compat_inputs=failing)
    assert [line.reason for line in lines if line.scorer == "sgd"] == ["not run: the profile failed (ValueError)"]
