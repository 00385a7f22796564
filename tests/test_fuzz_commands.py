"""Every command that reads files, on the hostile inputs `score` is fuzzed with (tests/fuzz.py): exit 0, or
one line ``dst-metrics: error: `` naming the file and exit 2; never a traceback (run in this process)."""

from __future__ import annotations

import pytest

from .fuzz import COMMAND_ARGV, command_outcome, hostile_inputs

HOSTILE = hostile_inputs()


def test_the_hostile_inputs_are_those_of_every_kind_and_more():
    labels = [label for label, _, _ in HOSTILE]
    assert len(labels) == len(set(labels)) >= 30
    assert {"reference-deep", "jsonl-flipped", "trade-utf16", "latin1", "elf", "empty"} <= set(labels)


@pytest.mark.parametrize("command", list(COMMAND_ARGV))
@pytest.mark.parametrize(("label", "name", "data"), HOSTILE, ids=[label for label, _, _ in HOSTILE])
def test_a_command_on_a_hostile_input_ends_in_a_result_or_one_line_naming_the_file(
    command, label, name, data, tmp_path
):
    path = tmp_path / name
    path.write_bytes(data)
    found = command_outcome(COMMAND_ARGV[command](str(path)), str(path))
    assert found in ("ok", "input-error"), (command, label, found)


@pytest.mark.parametrize("command", list(COMMAND_ARGV))
def test_every_command_refuses_binary_input_with_one_line(command, tmp_path):
    path = tmp_path / "run.json"
    path.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)))
    assert command_outcome(COMMAND_ARGV[command](str(path)), str(path)) == "input-error"
