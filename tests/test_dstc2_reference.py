"""The DSTC2 scorer against the official scorer's output on the 100-dialogue sample (../shared/reference/dstc2)."""

from __future__ import annotations

import json
import shlex

import pytest

from dst_metrics.cli import main
from dst_metrics.dstc2.data import read_ontology, read_sessions, read_track
from dst_metrics.dstc2.output import csv_text, report_text
from dst_metrics.dstc2.scorer import score
from tests.conftest import REFERENCE, REPO, SHARED, requires_shared
from tests.fixtures.dstc2.reference_scorer import reference_score

DATA = SHARED / "data" / "dstc2"
DSTC2_REFERENCE = REFERENCE / "dstc2"
TRACKERS = ("baseline", "focus")
METRIC_ROWS = 810  # DSTC2.md section 7: (7 + 9 + 1 + 1) * 15 + (7 + 1 + 1) * 15 rows per schedule, 2 schedules
WALL_TIME_ROWS = ("basic,total_wall_time,", "basic,wall_time_per_turn,")

pytestmark = requires_shared


@pytest.fixture(scope="module")
def sample():
    sessions = read_sessions(str(DATA), str(DATA / "dstc2_data.flist"))
    return sessions, read_ontology(str(DATA / "ontology_dstc2.json"))


def _official_csv(name: str) -> list[str]:
    return (DSTC2_REFERENCE / f"{name}.score.csv").read_text().splitlines()


@pytest.mark.parametrize("scorer", [score, reference_score], ids=["package", "reference oracle"])
@pytest.mark.parametrize("name", TRACKERS)
def test_every_metric_row_equals_the_official_csv(sample, name, scorer):
    sessions, ontology = sample
    scores = scorer(sessions, read_track(str(DSTC2_REFERENCE / f"{name}.track.json")), ontology)
    ours = csv_text(scores).splitlines()
    official = _official_csv(name)
    assert len(ours) == len(official) == 1 + METRIC_ROWS + 5
    assert ours[: 1 + METRIC_ROWS] == official[: 1 + METRIC_ROWS]
    other_basic = [line for line in official[1 + METRIC_ROWS :] if not line.startswith(WALL_TIME_ROWS)]
    assert [line for line in ours[1 + METRIC_ROWS :] if not line.startswith(WALL_TIME_ROWS)] == other_basic
    assert scores.turns == 732 and scores.sessions == 100 and scores.skipped == []


@pytest.mark.parametrize("name", TRACKERS)
def test_report_equals_report_py(sample, name):
    sessions, ontology = sample
    scores = score(sessions, read_track(str(DSTC2_REFERENCE / f"{name}.track.json")), ontology)
    assert report_text(scores) == (DSTC2_REFERENCE / f"{name}.report.txt").read_text()


def _cli(*extra: str, track: str = "baseline") -> list[str]:
    return [
        "dstc2",
        "--dataset",
        "dstc2_data",
        "--dataroot",
        str(DATA),
        "--ontology",
        str(DATA / "ontology_dstc2.json"),
        "--trackfile",
        str(DSTC2_REFERENCE / f"{track}.track.json"),
        *extra,
    ]


def test_cli_writes_the_official_csv_and_prints_the_report(tmp_path, capsys):
    out = tmp_path / "score.csv"
    assert main(_cli("--scorefile", str(out))) == 0
    printed = capsys.readouterr()
    assert printed.out == (DSTC2_REFERENCE / "baseline.report.txt").read_text()
    assert out.read_text().splitlines() == _official_csv("baseline")  # wall-time rows too: same str(float)
    # check_track.py compares the track file's dataset with --dataset: a warning here
    assert "the dataset 'orig_baseline' is not 'dstc2_data'" in printed.err


def test_cli_json_featured_is_the_published_baseline_table(capsys):
    assert main(_cli("--json")) == 0
    result = json.loads(capsys.readouterr().out)
    featured = result["featured"]
    # the published baseline figures on this sample (reference/dstc2/README.md): joint acc, L2, ROC v2 CA05
    assert f"{featured['goal.joint']['acc']:.7f}" == "0.5686546"
    assert f"{featured['goal.joint']['l2']:.7f}" == "0.8344502"
    assert f"{featured['goal.joint']['roc.v2_ca05']:.7f}" == "0.0000000"
    assert f"{featured['requested.all']['acc']:.7f}" == "0.9162437"
    assert f"{featured['requested.all']['l2']:.7f}" == "0.1204444"
    assert f"{featured['requested.all']['roc.v2_ca05']:.7f}" == "0.6066482"
    assert f"{result['method']['acc']['2,a']:.7f}" == "0.9153953"
    assert result["goal.food"]["acc"]["1,a"] == pytest.approx(0.6844262, abs=5e-8)
    assert result["basic"]["turns"] == "732" and result["skipped"] == []


def test_strict_makes_the_dataset_mismatch_an_error(capsys):
    assert main(_cli("--strict")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("dst-metrics: error: ") and "field dataset" in err[0]


def test_compare_baseline_and_focus(capsys):
    argv = _cli()[:-2] + [str(DSTC2_REFERENCE / "baseline.track.json"), str(DSTC2_REFERENCE / "focus.track.json")]
    assert main(["dstc2-compare", *argv[1:], "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    tests = {(t["component"], t["stat"]): t for t in result["tests"]}
    joint_acc = tests[("goal.joint", "acc")]
    assert f"{joint_acc['a']:.7f}" == "0.5686546"
    # focus tracks the joint goal far better: significant after Bonferroni over the 6 tests
    assert joint_acc["significant"] is True and joint_acc["p_adjusted"] < 1e-6
    assert joint_acc["detail"]["n"] == 721  # schedule 2 counts 721 of the 732 turns for the joint goal
    assert tests[("goal.joint", "l2")]["significant"] is True
    assert tests[("requested.all", "roc.v2_ca05")]["test"] is None
    assert sum(t["p"] is not None for t in result["tests"]) == 6


def _readme_commands() -> list[list[str]]:
    text = (REPO / "docs" / "usage.md").read_text()
    section = text[text.index("## DSTC2 tracker metrics") : text.index("## Compatibility profiles")]
    block = section[section.index("```bash") + len("```bash") : section.index("```", section.index("```bash") + 7)]
    return [shlex.split(line) for line in block.strip().splitlines()]


@pytest.mark.skipif(
    SHARED.resolve() != (REPO.parent / "shared").resolve(), reason="docs/usage.md's paths assume ../shared"
)
def test_readme_commands_work_as_written(tmp_path, monkeypatch, capsys):
    commands = _readme_commands()
    assert [argv[:2] for argv in commands] == [["dst-metrics", "dstc2"], ["dst-metrics", "dstc2-compare"]]
    monkeypatch.chdir(REPO)
    first = commands[0]
    first[first.index("--scorefile") + 1] = str(tmp_path / "score.csv")  # the guide writes score.csv in the clone
    assert main(first[1:]) == 0
    assert (tmp_path / "score.csv").read_text().splitlines() == _official_csv("baseline")
    assert main(commands[1][1:]) == 0
    assert "Bonferroni over 6 tests" in capsys.readouterr().out
