"""Every command's ``--json`` output meets its JSON Schema (`dst_metrics.cli.json_output`), names it, and gives
each input's sha256 and size as ``sha256sum`` and the file system do; the schemas refuse what they should."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from dst_metrics.cli import COMMANDS, main
from dst_metrics.cli.common import CommandParser
from dst_metrics.cli.json_output import SCHEMAS, schema_of
from tests.conftest import REFERENCE, REPO, SHARED

EXAMPLES = REPO / "examples"
SGD_FIXTURES = REPO / "tests" / "fixtures" / "sgd"
TRADE_FILE = REFERENCE / "trade" / "MLCSG_all_prediction_TRADE.json"
DSTC2_DATA = SHARED / "data" / "dstc2"
DSTC2_TRACKS = REFERENCE / "dstc2"
DSTC2 = [
    "--dataset",
    "dstc2_data",
    "--dataroot",
    str(DSTC2_DATA),
    "--ontology",
    str(DSTC2_DATA / "ontology_dstc2.json"),
]
P1, P2 = str(EXAMPLES / "first_example_p1.json"), str(EXAMPLES / "first_example_p2.json")
QUICK = ["--bootstrap", "50", "--rounds", "50"]

# (command, its arguments, whether they read ../shared): every command with --json, and each block an option adds
CASES = [
    ("score", [str(EXAMPLES / "mul1110.json"), P1], False),
    ("score", [str(EXAMPLES / "mul1110.json"), "--per-dialogue", "--by", "domain", "--ci", "--bootstrap", "50"], False),
    ("score", [str(EXAMPLES / "confidences.json"), "--calibration", "--mode", "corrected"], False),
    ("score", [str(EXAMPLES / "mul1110.json"), "--compat", "trade"], False),
    ("score", [str(EXAMPLES / "mul1110.json"), "--domain", "hotel"], False),
    ("score", [str(TRADE_FILE), "--domain", "all"], True),
    ("score", [str(SGD_FIXTURES / "sgd_pred"), "--gold", str(SGD_FIXTURES / "sgd_gold"), "--compat", "sgd"], False),
    ("generations", [str(EXAMPLES / "generations.jsonl")], False),
    ("compare", [P1, P2, *QUICK], False),
    ("table", [str(EXAMPLES / "hypothetical_p1.json"), str(EXAMPLES / "hypothetical_p2.json"), *QUICK], False),
    ("table", [P1, P2, "--pairs", "all", "--matrix", "gca", "--intervals", *QUICK], False),
    ("analyze", [str(EXAMPLES / "mul1110.json")], False),
    ("calibration", [str(EXAMPLES / "confidences.json"), "--by-slot"], False),
    ("calibration", [str(EXAMPLES / "confidences.json"), "--compat", "slt2024"], False),
    ("dstc2", [*DSTC2, "--trackfile", str(DSTC2_TRACKS / "baseline.track.json")], True),
    (
        "dstc2-compare",
        [*DSTC2, str(DSTC2_TRACKS / "baseline.track.json"), str(DSTC2_TRACKS / "focus.track.json")],
        True,
    ),
    ("checkdst", [P1, P2], False),
    ("sgdx", [*[str(SGD_FIXTURES / "sgd_pred")] * 3, "--gold", str(SGD_FIXTURES / "sgd_gold")], False),
]


def _outputs(capsys, command: str, argv: list[str]) -> list[dict]:
    status = main([command, *argv, "--json"])
    out = capsys.readouterr().out
    assert status == 0, out
    return [json.loads(line) for line in out.splitlines()]


def _validator(command: str) -> jsonschema.Draft202012Validator:
    schema = schema_of(command)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def _has_json(name: str) -> bool:
    import importlib

    parser = CommandParser(prog=name)
    importlib.import_module(COMMANDS[name]).add_arguments(parser)
    return any("--json" in action.option_strings for action in parser._actions)


def test_every_command_with_json_has_a_schema_and_a_case():
    with_json = {name for name in COMMANDS if _has_json(name)}
    assert with_json == set(SCHEMAS)
    assert {command for command, _, _ in CASES} == with_json


def test_the_schema_command_prints_each_schema(capsys):
    for command in SCHEMAS:
        assert main(["schema", command]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert printed == schema_of(command)
        assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert printed["$id"] == f"urn:dst-metrics:{command}:{SCHEMAS[command].version}"
    with pytest.raises(SystemExit):  # no --json: no schema
        main(["schema", "explain"])


@pytest.mark.parametrize(("command", "argv", "shared"), CASES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(CASES)])
def test_every_output_meets_its_schema_and_names_its_inputs(capsys, command, argv, shared):
    if shared and not REFERENCE.is_dir():
        pytest.skip(f"needs the project's shared/ folder beside the clone (looked in {SHARED})")
    validator = _validator(command)
    for record in _outputs(capsys, command, argv):
        errors = [f"{list(error.absolute_path)}: {error.message}" for error in validator.iter_errors(record)]
        assert not errors, errors[:5]
        assert record["schema"] == {"name": command, "version": SCHEMAS[command].version}
        assert list(record)[:2] == ["schema", "inputs"]
        for entry in record["inputs"]:
            path = Path(entry["path"])
            assert path.exists() and str(path) in argv or entry["role"] in ("schema", "train_schema", "flist")
            if path.is_file():
                assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
                assert entry["size"] == path.stat().st_size
            else:
                assert entry["files"] == sum(1 for child in path.rglob("*") if child.is_file())
        roles = [entry["role"] for entry in record["inputs"]]
        assert len(roles) >= 1 + (command in ("compare", "checkdst", "dstc2-compare", "sgdx", "table"))


def test_a_folders_digest_is_what_sha256sum_prints_for_its_files(tmp_path, capsys):
    if shutil.which("sha256sum") is None:
        pytest.skip("needs sha256sum (coreutils)")
    folder = tmp_path / "gold"
    shutil.copytree(SGD_FIXTURES / "sgd_gold", folder)
    (folder / "nested").mkdir()
    (folder / "nested" / "Z note.txt").write_text("a file the reader does not read, counted all the same")
    (record,) = _outputs(capsys, "score", [str(SGD_FIXTURES / "sgd_pred"), "--gold", str(folder)])
    (gold,) = [entry for entry in record["inputs"] if entry["role"] == "gold"]
    listed = subprocess.run(
        "find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum", shell=True, cwd=folder, capture_output=True,
        check=True,
    ).stdout  # fmt: skip
    assert gold["sha256"] == hashlib.sha256(listed).hexdigest()
    assert gold["files"] == 4 and gold["size"] == sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_standard_input_is_named_without_a_digest():
    data = (EXAMPLES / "mul1110.json").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "dst_metrics", "score", "-", "--json"], input=data, capture_output=True, check=True
    )
    record = json.loads(done.stdout)
    assert record["inputs"] == [{"role": "predictions", "path": "-", "stdin": True}]
    assert not list(_validator("score").iter_errors(record))


def test_the_schemas_refuse_a_missing_a_renamed_or_a_mistyped_key(capsys):
    (record,) = _outputs(capsys, "score", [P1])
    validator = _validator("score")
    assert validator.is_valid(record)
    missing = {key: value for key, value in record.items() if key != "gca"}
    renamed = {**missing, "GCA": record["gca"]}
    mistyped = {**record, "turns": "3"}
    unnamed = {key: value for key, value in record.items() if key != "schema"}
    older = {**record, "schema": {"name": "score", "version": 0}}
    bad_digest = copy.deepcopy(record)
    bad_digest["inputs"][0]["sha256"] = "not a digest"
    for broken in (missing, renamed, mistyped, unnamed, older, bad_digest):
        assert not validator.is_valid(broken)
    (checkdst,) = _outputs(capsys, "checkdst", [P1, P2])
    assert not _validator("checkdst").is_valid({**checkdst, "checkdst.cjga": "high"})
    assert not _validator("checkdst").is_valid({**checkdst, "unknown": 1.0})


PUBLISHED = REPO / "tests" / "fixtures" / "json_schemas"
"""Each schema as its version was published (`COMMAND-VERSION.json`): a schema changed under the same version
fails here; a new version is a new file beside the old ones (docs/usage.md, "JSON output")."""


@pytest.mark.parametrize("command", list(SCHEMAS))
def test_a_schema_changes_only_with_its_version(command):
    published = PUBLISHED / f"{command}-{SCHEMAS[command].version}.json"
    assert published.is_file(), f"{command}'s version {SCHEMAS[command].version} has no published schema"
    assert schema_of(command) == json.loads(published.read_text(encoding="utf-8")), (
        f"{command}'s schema changed: give it a new version in json_output.SCHEMAS and write "
        f"`dst-metrics schema {command} > {published.parent.name}/{command}-VERSION.json`"
    )


def test_a_named_pipe_is_a_stream_and_is_not_opened_again(tmp_path):
    from dst_metrics.cli.json_output import input_entry

    pipe = tmp_path / "preds.jsonl"
    os.mkfifo(pipe)  # opening it to hash it would wait for a writer for ever
    assert input_entry("predictions", str(pipe)) == {"role": "predictions", "path": str(pipe), "stream": True}
