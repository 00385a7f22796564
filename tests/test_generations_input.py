"""``dst-metrics generations FILE``: bad input as one line naming the file (exit 2), the turn-updates
warning as ``score`` gives it, and ``--show-readings N``."""

from __future__ import annotations

import json

import pytest

from dst_metrics.cli import main
from dst_metrics.generation.parsing import parse_generation
from dst_metrics.generation.updates import UPDATES_WARNING

from .fuzz import EXAMPLES

RUN = EXAMPLES / "generations.jsonl"


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["generations", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _record(**fields: object) -> bytes:
    record = {"dialogue_id": "A", "turn_id": 0, "generation": '{"hotel-area": "north"}', "gold": {}, **fields}
    return json.dumps(record, ensure_ascii=False).encode()


BAD = _record().index(b"north") + 4
"""The column of the byte that is not UTF-8 in "nor\\xe9h" (columns count from 1)."""


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (_record() + b"\n" + _record(turn_id=1).replace(b"north", b"nor\xe9h"), f":2: not UTF-8 text at column {BAD}"),
        (_record().replace(b"north", b"nor\xe9h"), f": not UTF-8 text at line 1, column {BAD}"),
        (b"PK\x03\x04" + bytes(100), ": the zip data is damaged or cut short: it cannot be decompressed"),
        (_record().decode().encode("utf-16"), ": the data is UTF-16 or UTF-32 text"),
        (b"[" * 100_000, ": the data is nested too deeply to be dialogue states"),
        (_record(gold=[1]), ', dialogue "A", turn 0, field gt[0]: a state array holds'),
        (_record(turn_id="x"), ', dialogue "A": a turn id must be a whole number'),
    ],
    ids=["utf8-line", "utf8-document", "zip", "utf16", "deep", "gold", "turn"],
)
def test_bad_input_is_one_line_naming_the_file_and_exit_2(data, said, tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    path.write_bytes(data)
    status, out, err = _run(capsys, str(path))
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"dst-metrics: error: {path}{said}"), err


def test_states_that_look_like_turn_updates_are_warned_of_as_score_does(capsys):
    status, _, err = _run(capsys, str(RUN))
    assert status == 0 and err == f"warning: {RUN}: {UPDATES_WARNING}\n"
    status, _, err = _run(capsys, str(RUN), "--prediction-states", "updates")
    assert status == 0 and err == ""


def test_show_readings_prints_how_each_generation_was_read(capsys):
    records = [json.loads(line) for line in RUN.read_text(encoding="utf-8").splitlines()]
    status, _, err = _run(capsys, str(RUN), "--prediction-states", "updates", "--show-readings", "3")
    lines = err.splitlines()
    assert status == 0 and lines[0] == f"generations read: {len(records)}; the first 3:" and len(lines) == 4
    for line, record in zip(lines[1:], records):
        read = parse_generation(record["completion"])  # the first turns of one dialogue: no context needed
        place = f'  dialogue "{record["dialogue_id"]}", turn {record["turn_id"]}: {read.outcome} ({read.style}) '
        assert line == place + f"{json.dumps(read.state)} from {json.dumps(record['completion'])}"
    status, _, err = _run(capsys, str(RUN), "--prediction-states", "updates", "--show-readings", "100")
    assert err.splitlines()[0] == f"generations read: {len(records)}:" and len(err.splitlines()) == len(records) + 1
    assert sum(" unparsed (none) {} from " in line for line in err.splitlines()) == 1
