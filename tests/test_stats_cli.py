"""The command line's statistics: ``score --ci``, ``compare`` and ``analyze``."""

from __future__ import annotations

import json

import pytest

from dst_metrics import read
from dst_metrics.cli import main
from dst_metrics.figures.registry import FIGURES
from dst_metrics.options import Options
from dst_metrics.stats import bootstrap_intervals
from tests.conftest import REFERENCE, REPO, requires_shared
from tests.samples import gold_copy

EXAMPLE = str(REPO / "examples" / "mul1110.json")
P1 = str(REPO / "examples" / "first_example_p1.json")
P2 = str(REPO / "examples" / "first_example_p2.json")
T5 = REFERENCE / "t5_zeroshot" / "predictions"
NON_COUNT_KEYS = {key for f in FIGURES if not f.is_count for key in f.keys(Options())}
# a comparison's default family: the figures registered as compared (a later protocol figure is asked by name)
COMPARED_KEYS = {key for f in FIGURES if not f.is_count and f.compared for key in f.keys(Options())}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_score_ci_json_adds_ci_for_every_non_count_figure_and_the_signature(capsys):
    status, out, _ = run(capsys, "score", EXAMPLE, "--ci", "--bootstrap", "200", "--seed", "3", "--json")
    assert status == 0
    record = json.loads(out)
    assert set(record["ci"]) == NON_COUNT_KEYS
    assert record["signature"].endswith("|match:exact|ci:percentile,200,seed:3,level:0.95")
    expected = bootstrap_intervals(read(EXAMPLE), resamples=200, seed=3)
    assert record["ci"] == expected.as_dict()
    for key, (low, high) in record["ci"].items():
        assert low <= high, key


def test_score_ci_table_has_an_interval_row_under_each_file(capsys):
    status, out, _ = run(capsys, "score", P1, P2, "--ci", "--ci-method", "bca", "--bootstrap", "100")
    assert status == 0
    lines = out.splitlines()
    assert lines[1].startswith(P1) and lines[2].lstrip().startswith("95% CI")
    assert "73.33-73.33" in lines[2]  # one dialogue: every resample is the corpus itself
    assert lines[3].startswith(P2) and lines[4].lstrip().startswith("95% CI")
    assert "CI: bca bootstrap over dialogues, 100 resamples, seed 0" in out
    assert out.rstrip().endswith("|ci:bca,100,seed:0,level:0.95")


def test_score_without_ci_is_unchanged(capsys):
    status, out, _ = run(capsys, "score", P1, "--json")
    assert status == 0 and "ci" not in json.loads(out)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", P1, "--ci", "--bootstrap", "0"], "--bootstrap: must be a whole number at least 1"),
        (["score", P1, "--ci", "--seed", "-1"], "--seed: must be a whole number at least 0"),
        (["compare", P1, P1, "--level", "1.5"], "--level: must be a number between 0 and 1"),
    ],
)
def test_bad_statistics_options_exit_2_with_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", P1, "--ci", "--compat", "fga"], "cannot be combined with --compat"),
        (["compare", P1, EXAMPLE], "this dialogue is missing from the"),
    ],
)
def test_statistics_input_errors_print_one_line_and_exit_2(capsys, argv, message):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_compare_refuses_different_gold(capsys, tmp_path):
    data = json.loads(open(P1).read())
    dialogue = next(iter(data.values()))
    last = sorted(dialogue, key=int)[-1]
    dialogue[last]["gt"] = {}
    other = tmp_path / "other_gold.json"
    other.write_text(json.dumps(data))
    status, _, err = run(capsys, "compare", P1, str(other))
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert f"turn {last}: the two inputs have different gold states" in err


def test_compare_a_file_with_itself(capsys):
    status, out, _ = run(capsys, "compare", EXAMPLE, EXAMPLE, "--bootstrap", "100", "--json")
    assert status == 0
    data = json.loads(out)
    assert set(data) >= {"names", "figures", "mcnemar", "mcnemar_turns", "options", "signature", "family_size"}
    assert set(data["figures"]) == COMPARED_KEYS - {"fga@0.5"}  # fga@0.5 is fga: the family holds it once
    # one dialogue: its swap only flips the sign, so p is 1 whatever the rounds (2/2^1)
    assert data["family_size"] == 16 and data["rounds"] == 3199 and data["p_floor"] == 1.0
    for key, figure in data["figures"].items():
        assert figure["diff"] == 0 and figure["p"] == 1 and figure["significant"] is False, key
        assert figure["family_size"] == 16, key
    status, out, _ = run(capsys, "compare", EXAMPLE, EXAMPLE, "--bootstrap", "100")
    assert out.rstrip().splitlines()[-1] == "no significant difference at level 0.05 (holm over 16 figures)"
    assert "p (holm, m = 16)" in out.splitlines()[3]
    assert "3199 rounds (smallest p 1 with 1 dialogue), adjusted by holm over m = 16 figures" in out


def test_compare_fga_lambda_moves_the_alias_out_of_the_family(capsys):
    status, out, _ = run(capsys, "compare", EXAMPLE, EXAMPLE, "--fga-lambda", "0.25", "--bootstrap", "20", "--json")
    assert status == 0 and "fga@0.25" not in json.loads(out)["figures"] and "fga@0.5" in json.loads(out)["figures"]


def test_compare_help_separates_resamples_from_rounds(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--bootstrap N bootstrap resamples of the interval of B - A (1000); not the randomization rounds" in text
    assert "--rounds R randomization rounds of the p-values (default: ceil(10 m / level) - 1" in text


def test_compare_warns_in_one_line_when_the_rounds_cannot_reach_the_level(capsys, tmp_path):
    dialogue = json.loads(open(EXAMPLE).read())["MUL1110"]
    many = tmp_path / "forty.json"  # 40 dialogues: the rounds, not the dialogues, set the smallest p
    many.write_text(json.dumps({f"MUL{1000 + i}": dialogue for i in range(40)}))
    status, out, err = run(
        capsys, "compare", str(many), str(many), "--bootstrap", "20", "--rounds", "999", "--level", "0.01"
    )
    assert status == 0
    assert err.strip() == (
        "warning: with 999 randomization rounds the smallest p is 1/1000, and holm over 16 figures makes the "
        "smallest adjusted p 0.016 > level 0.01: no difference can be significant (use 15999 rounds or more)"
    )
    status, out, err = run(capsys, "compare", str(many), str(many), "--bootstrap", "20", "--rounds", "1600", "--json")
    assert status == 0 and err == "" and json.loads(out)["rounds"] == 1600  # 16/1601 <= 0.05: no warning


def test_compare_warns_that_one_dialogue_cannot_give_a_small_p_whatever_the_rounds(capsys):
    status, _, err = run(capsys, "compare", EXAMPLE, EXAMPLE, "--bootstrap", "20", "--rounds", "100000")
    assert status == 0
    assert err.strip().startswith("warning: with 1 dialogue only 2 patterns of swaps exist, so the smallest p is 2/2")


@requires_shared
def test_compare_t5_with_a_copy_with_gold_for_one_dialogue_in_ten(capsys, tmp_path):
    source = T5 / "T5_result_zeroshot_rest.json"
    data = json.loads(source.read_text())
    for index, dialogue_id in enumerate(sorted(data)):
        if index % 10 == 0:
            for turn in data[dialogue_id].values():
                turn["pr"] = turn["gt"]
    copy = tmp_path / "gold10.json"
    copy.write_text(json.dumps(data))
    status, out, _ = run(capsys, "compare", str(source), str(copy), "--correction", "bonferroni")
    assert status == 0
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("significant at level 0.05 (bonferroni over 16 figures): B higher on GCA, JGA, FGA")
    assert "clustered by dialogue (Durkalski et al. 2003): only A right 0, only B right 243 (in 42 dialogues)" in out


@requires_shared
def test_compare_t5_with_a_seeded_10_percent_gold_copy_at_level_0_01(capsys, tmp_path):
    # issue 19: at --level 0.01, 1,000 rounds and Holm over 17 figures could not go below 17/1001;
    # the rounds now follow from the family size and the level (15,999 for 16 figures at 0.01)
    source = T5 / "T5_result_zeroshot_rest.json"
    copy = gold_copy(source, tmp_path / "T5_rest_10pct_gold.json", share=0.1, seed=0)
    status, out, err = run(capsys, "compare", str(source), str(copy), "--level", "0.01", "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert data["rounds"] == 15999 and data["family_size"] == 16
    jga = data["figures"]["jga"]
    assert jga["p"] == 1 / 16000 and jga["p_adjusted"] == 16 / 16000 and jga["significant"] is True
    assert jga["diff"] > 0.05 and data["mcnemar"]["p"] < 0.01 and data["mcnemar"]["a_only"] == 0


@requires_shared
def test_analyze_t5_prints_correlations_zou_and_positions(capsys):
    path = str(T5 / "T5_result_zeroshot_rest.json")
    status, out, _ = run(capsys, "analyze", path, "--json")
    assert status == 0
    data = json.loads(out)
    assert set(data["correlations"]) == {"gca~to", "fga~to", "gca~nu", "fga~nu"}
    assert set(data["zou"]) == {"to", "nu"} and data["zou"]["nu"]["significant"] is True
    assert data["undefined"] == {}  # 100s of dialogues with a mistake: every figure computed
    assert sum(row["turns"] for row in data["by_position"]["rows"]) == 3359
    status, out, _ = run(capsys, "analyze", path)
    assert "FGA's correlation with NU is significantly different from GCA's (95%, Zou 2007)" in out
    assert "JGA first 0" in out


def test_analyze_says_why_a_figure_cannot_be_computed_instead_of_nan(capsys, tmp_path):
    """One dialogue (the README's example): no r, no Zou interval, each with its reason, "1 dialogue"."""
    status, out, _ = run(capsys, "analyze", EXAMPLE)
    assert status == 0 and "nan" not in out.lower()
    assert out.startswith(f"{EXAMPLE}: 1 dialogue (0 without a mistake")
    assert "TO             n/a        n/a              n/a                n/a          n/a  1" in out
    assert "n/a: r(GCA, TO), r(FGA, TO), r(GCA, NU), r(FGA, NU): needs at least 2 dialogues with a mistake, " in out
    assert "Zou's interval for TO, Zou's interval for NU: needs at least 4 dialogues with a mistake" in out
    assert "FGA's and GCA's correlations with TO cannot be compared" in out and "significantly" not in out
    status, out, _ = run(capsys, "analyze", EXAMPLE, "--json")
    data = json.loads(out)
    assert set(data["correlations"].values()) == {None} and data["zou"]["to"]["low"] is None
    assert data["undefined"]["gca~to"] == "needs at least 2 dialogues with a mistake, has 1 dialogue"
    assert data["undefined"]["zou.nu"] == "needs at least 4 dialogues with a mistake, has 1 dialogue"
    # three copies of the dialogue: 3 dialogues with a mistake, r still undefined (nothing varies)
    dialogue = json.loads((REPO / "examples" / "mul1110.json").read_text())["MUL1110"]
    copies = tmp_path / "copies.json"
    copies.write_text(json.dumps({f"D{i}": dialogue for i in range(3)}))
    status, out, _ = run(capsys, "analyze", str(copies), "--json")
    undefined = json.loads(out)["undefined"]
    assert undefined["gca~to"] == "GCA and TO the same in every dialogue with a mistake"
    assert undefined["zou.to"] == "needs at least 4 dialogues with a mistake, has 3 dialogues"


def test_check_counts_one_dialogue_in_the_singular(capsys):
    status, out, _ = run(capsys, "check", EXAMPLE)
    assert status == 0 and f"{EXAMPLE}: gold scored against itself (7 turns, 1 dialogue)" in out


def test_a_protocol_figure_joins_a_comparison_when_asked_by_name(capsys):
    status, out, _ = run(
        capsys, "compare", EXAMPLE, EXAMPLE, "--bootstrap", "50", "--json", "--figures", "jga,joint_turn_accuracy"
    )
    data = json.loads(out)
    assert status == 0 and set(data["figures"]) == {"jga", "joint_turn_accuracy"} and data["family_size"] == 2
    assert {"joint_turn_accuracy", "final_jga"} <= NON_COUNT_KEYS - COMPARED_KEYS
