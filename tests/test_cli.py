"""The command line: `dst-metrics score` / `python -m dst_metrics`, its JSON lines, table and errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dst_metrics import load_reference_file, score
from dst_metrics.cli import main
from dst_metrics.examples import EXAMPLES
from tests.conftest import REFERENCE, REPO, requires_shared

EXAMPLE_DIR = REPO / "examples"
P1 = str(EXAMPLE_DIR / "first_example_p1.json")
P2 = str(EXAMPLE_DIR / "first_example_p2.json")
REQUIRED_KEYS = {
    "file", "gca", "jga", "fga", "fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0", "sa", "aga", "rsa", "slot_f1",
    "correct", "wrong", "missed", "overshot", "signature",
}  # fmt: skip


def run_json(capsys, *args: str) -> list[dict]:
    assert main(["score", *args, "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_bundled_example_files_are_the_paper_examples():
    for example in EXAMPLES.values():
        for prediction in example.predictions:
            suffix = f"_{prediction.lower()}" if len(example.predictions) > 1 else ""
            path = EXAMPLE_DIR / f"{example.name}{suffix}.json"
            assert json.loads(path.read_text()) == example.reference_layout(prediction)


def test_json_lines_hold_every_required_key_with_the_papers_figures(capsys):
    p1, p2 = run_json(capsys, P1, P2)
    assert REQUIRED_KEYS <= p1.keys() and REQUIRED_KEYS <= p2.keys()
    assert (p1["file"], p2["file"]) == (P1, P2)
    assert round(100 * p1["gca"], 2) == 73.33 and round(100 * p2["gca"], 2) == 15.49
    assert round(100 * p1["jga"], 2) == 0.0 and round(100 * p2["jga"], 2) == 33.33
    for record in (p1, p2):
        assert record["fga"] == record["fga@0.5"]
        for key, value in record.items():
            if isinstance(value, float):
                assert 0.0 <= value <= 1.0, key
        assert "mode:official" in record["signature"] and "alpha:10/11" in record["signature"]


def test_per_dialogue_figures_match_the_corpus_of_one_dialogue(capsys):
    (record,) = run_json(capsys, str(EXAMPLE_DIR / "mul1110.json"), "--per-dialogue")
    (dialogue_id,) = record["dialogues"]
    figures = record["dialogues"][dialogue_id]
    assert set(figures) == {"gca", "fga@0.25", "fga@0.5", "fga@0.75", "fga@1.0"}
    assert figures["gca"] == record["gca"] and figures["fga@0.5"] == record["fga"]
    assert round(100 * figures["gca"], 2) == 31.43 and round(100 * figures["fga@0.5"], 2) == 48.84


def test_options_reach_the_scores_and_the_signature(capsys):
    (corrected,) = run_json(capsys, P1, "--mode", "corrected", "--num-slots", "10", "--fga-lambda", "1.0")
    expected = score(load_reference_file(P1), mode="corrected", num_slots=10, fga_lambda=1.0).scores
    assert corrected["sa"] == expected.sa and corrected["fga"] == expected.fga == corrected["fga@1.0"]
    assert "mode:corrected" in corrected["signature"] and "K:10" in corrected["signature"]
    assert "lambda:1" in corrected["signature"]


def test_table_shows_percentages_one_row_per_file(capsys):
    assert main(["score", P1, P2]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line for line in out if line.startswith(str(EXAMPLE_DIR))]
    assert len(rows) == 2
    assert rows[0].split()[1] == "73.33" and rows[1].split()[1] == "15.49"
    assert any(line.startswith("signature: dst-metrics:") for line in out)


def test_invalid_json_names_the_file_and_prints_no_figure(tmp_path, capsys):
    bad = tmp_path / "broken.json"
    bad.write_text('{"MUL0003": {"0": {"gt": {}, "pr": ')
    assert main(["score", P1, str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # the good file's figures are not printed either
    assert "broken.json" in captured.err and "not valid JSON" in captured.err


def test_bad_state_error_names_file_dialogue_turn_and_field(tmp_path, capsys):
    bad = tmp_path / "bad_value.json"
    bad.write_text(json.dumps({"D1": {"0": {"gt": {}, "pr": {}}, "1": {"gt": {"hotel": {"area": True}}, "pr": {}}}}))
    assert main(["score", str(bad)]) == 2
    err = capsys.readouterr().err
    for part in ("bad_value.json", "'D1'", "turn 1", "gt.hotel.area", "bool"):
        assert part in err


def test_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["score", str(tmp_path / "absent.json")]) == 2
    assert "absent.json" in capsys.readouterr().err


def test_explain_lists_count_types_of_each_turn(capsys):
    assert main(["explain", str(EXAMPLE_DIR / "mul1110.json")]) == 0
    out = capsys.readouterr().out
    assert "attraction-type" in out and "missed" in out and "wrong" in out
    assert "GCA 31.43" in out


def test_module_entry_point_runs_in_a_fresh_process():
    result = subprocess.run(
        [sys.executable, "-m", "dst_metrics", "score", P1, "--json"], capture_output=True, text=True, check=True
    )
    assert round(100 * json.loads(result.stdout)["gca"], 2) == 73.33


@requires_shared
@pytest.mark.parametrize("name", ["T5_result_zeroshot_attraction", "T5_result_zeroshot_rest"])
def test_t5_files_give_their_published_figures_through_the_cli(capsys, name):
    path = REFERENCE / "t5_zeroshot" / "predictions" / f"{name}.json"
    published = json.loads((REFERENCE / "t5_zeroshot" / "published" / f"{name}.json").read_text())
    (record,) = run_json(capsys, str(path), "--per-dialogue")
    keys = {"GCA": "gca", "JGA": "jga", "SA": "sa", "AGA": "aga", "RSA": "rsa", "FGA_0.25": "fga@0.25",
            "FGA_0.5": "fga@0.5", "FGA_0.75": "fga@0.75", "FGA_1.0": "fga@1.0"}  # fmt: skip
    for theirs, ours in keys.items():
        assert round(100 * record[ours], 2) == published[theirs], theirs
    assert len(record["dialogues"]) == len(json.loads(path.read_text()))
