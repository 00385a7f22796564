"""What holds for every command of the command line: the list of commands, a reader that stops early
(``| head``)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from dst_metrics.cli import BROKEN_PIPE_STATUS, COMMANDS, main
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
P1 = str(EXAMPLES / "first_example_p1.json")
P2 = str(EXAMPLES / "first_example_p2.json")
MUL1110 = str(EXAMPLES / "mul1110.json")
CONFIDENCES = str(EXAMPLES / "confidences.json")
SGD = REPO / "tests" / "fixtures" / "sgd"
DSTC2_DATA = ["--dataset", "d", "--dataroot", "d", "--ontology", "ontology.json"]


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as stop:  # argparse: --help, usage errors
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_help_lists_every_command_with_its_one_line_help(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # no line wrapped inside a help text
    status, out, _ = run(["--help"], capsys)
    assert status == 0
    for name, module_name in COMMANDS.items():
        help_line = importlib.import_module(module_name).HELP
        assert any(line.split() == [name, *help_line.split()] for line in out.splitlines()), name


def test_an_unknown_command_is_one_line(capsys):
    status, out, err = run(["scroe", P1], capsys)
    assert (status, out) == (2, "") and err.count("\n") == 1 and "invalid choice: 'scroe'" in err


# --------------------------------------------------------------------------------------------
# A reader that stops early: no BrokenPipeError, no traceback


def _one_dialogue_of_many_turns(path: Path, turns: int = 300, slots: int = 60) -> None:
    state = {f"hotel-slot{i}": f"value {i}" for i in range(slots)}
    layout = {"d1": {str(t): {"gt": state, "pr": {**state, "hotel-slot0": f"wrong {t}"}} for t in range(turns)}}
    path.write_text(json.dumps(layout), encoding="utf-8")


def _many_dialogues(path: Path, dialogues: int = 3000) -> None:
    turn = {"0": {"gt": {"hotel-area": "north"}, "pr": {"hotel-area": "south"}}}
    path.write_text(json.dumps({f"dialogue{i:05d}": turn for i in range(dialogues)}), encoding="utf-8")


@pytest.mark.parametrize(
    "case",
    ["score --json, 400 files", "score --per-dialogue, 3000 dialogues", "explain --all-slots, 18000 rows"],
)
def test_output_piped_into_a_reader_that_stops_after_one_line_ends_quietly(case, tmp_path):
    if case.startswith("score --json"):
        argv = ["score", *[P1] * 400, "--json"]  # 400 lines of about 800 bytes: far more than a pipe holds
    elif case.startswith("score --per-dialogue"):
        _many_dialogues(tmp_path / "many.json")
        argv = ["score", str(tmp_path / "many.json"), "--per-dialogue"]
    else:
        _one_dialogue_of_many_turns(tmp_path / "long.json")
        argv = ["explain", str(tmp_path / "long.json"), "--all-slots"]
    process = subprocess.Popen(
        [sys.executable, "-m", "dst_metrics", *argv, "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    first = process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    err = process.stderr.read()
    process.stderr.close()
    status = process.wait(timeout=120)
    assert first.strip() and err == b"" and status == BROKEN_PIPE_STATUS == 0, err.decode()[-2000:]
