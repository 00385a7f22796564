"""What every command's ``--json`` output is: one JSON Schema (draft 2020-12) per command, and the two keys every
output starts with, ``schema`` (the schema's name and version) and ``inputs`` (each input's path, sha256 and size).

`SCHEMAS` holds each command's version and schema; ``dst-metrics schema COMMAND`` prints it. A version changes
with any change of the schema: a key added, removed or renamed, a type or a meaning changed (docs/usage.md).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from ..figures.registry import FIGURES
from ..options import Options
from .common import dumps

JSON_SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema"
DIGEST_CHUNK = 1 << 20
"""Bytes read at a time for a digest."""
STDIN = "-"
"""The path that names standard input."""


# Each input's digest


def _file_digest(path: str) -> tuple[str, int]:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(DIGEST_CHUNK):
            digest.update(chunk)
    return digest.hexdigest(), os.path.getsize(path)


def _folder_digest(folder: str) -> tuple[str, int, int]:
    """(the sha256 of the lines ``sha256sum`` prints for every file under `folder`, by path in byte order, as
    ``cd FOLDER && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum`` gives it; the
    files' total size; their number)."""
    paths = [os.path.join(root, name) for root, _, files in os.walk(folder) for name in files]
    relative = sorted((("./" + os.path.relpath(path, folder).replace(os.sep, "/")), path) for path in paths)
    relative.sort(key=lambda pair: pair[0].encode())  # LC_ALL=C: by bytes
    lines, size = [], 0
    for name, path in relative:
        sha256, file_size = _file_digest(path)
        lines.append(f"{sha256}  {name}\n")
        size += file_size
    return hashlib.sha256("".join(lines).encode()).hexdigest(), size, len(relative)


def input_entry(role: str, path: str) -> dict[str, object]:
    """One input of an output: its role, its path as given, and its sha256 and size in bytes; a folder's also has
    ``files`` (its sha256 is over its files' sha256sum lines, `_folder_digest`). Standard input (``-``) has
    ``stdin: true`` instead, and a named pipe (``<(zcat preds.json.gz)``) ``stream: true``: each is read once."""
    if path == STDIN:
        return {"role": role, "path": path, "stdin": True}
    if os.path.isdir(path):
        sha256, size, count = _folder_digest(path)
        return {"role": role, "path": path, "sha256": sha256, "size": size, "files": count}
    if not stat.S_ISREG(os.stat(path).st_mode):
        return {"role": role, "path": path, "stream": True}
    sha256, size = _file_digest(path)
    return {"role": role, "path": path, "sha256": sha256, "size": size}


def output_header(command: str, inputs: Iterable[tuple[str, str | None]]) -> dict[str, object]:
    """The first keys of `command`'s JSON output: its schema, and each (role, path) of `inputs` given (None: not
    given, left out) with its digest."""
    return {
        "schema": {"name": command, "version": SCHEMAS[command].version},
        "inputs": [input_entry(role, path) for role, path in inputs if path is not None],
    }


def json_output(command: str, inputs: Iterable[tuple[str, str | None]], record: dict) -> str:
    """`record` as `command`'s JSON output (one line, no newline): `output_header`'s keys, then its own."""
    return dumps({**output_header(command, inputs), **record})


# The schemas' parts

NUMBER = {"type": ["number", "null"]}
"""A figure: a number, or null where it is undefined (no turn to divide by)."""
INTEGER = {"type": "integer"}
STRING = {"type": "string"}
BOOLEAN = {"type": "boolean"}
OPTIONAL_STRING = {"type": ["string", "null"]}
SIGNATURE = {"type": "string", "pattern": "^dst-metrics:"}
INTERVAL = {"type": "array", "items": NUMBER, "minItems": 2, "maxItems": 2}
PROFILE_VALUE = {"type": ["number", "null", "string", "boolean", "object", "array"]}
"""Any other key of score's output: a figure (a number or null), or a profile's block (``--compat sgd``: ``sgd``,
``sgd_value_matching``; docs/compat.md)."""
FIGURE_KEY = r"^[a-z][a-z0-9_]*([.@][a-zA-Z0-9_.@-]+)*$"
"""The key of a figure: a registry key (``gca``), ``fga@0.25``, or a profile's (``trade.jga``, ``sgd.all.jga``)."""


def closed(
    required: dict[str, Any], optional: dict[str, Any] | None = None, others: tuple[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """An object with these properties (`required` always present) and no other, unless `others` is given:
    (a pattern, a schema) that every other key matches and every other value meets."""
    properties = {**required, **(optional or {})}
    found: dict[str, Any] = {"type": "object", "properties": properties, "required": list(required)}
    if others is None:
        return {**found, "additionalProperties": False}
    pattern, value = others
    names = {"anyOf": [{"enum": list(properties)}, {"pattern": pattern}]}
    return {**found, "additionalProperties": value, "propertyNames": names}


def map_of(value: dict[str, Any], **more: Any) -> dict[str, Any]:
    """An object of any keys, each holding `value`."""
    return {"type": "object", "additionalProperties": value, **more}


def array_of(item: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "array", "items": item, **more}


FIGURES_MAP = map_of(NUMBER, propertyNames={"pattern": FIGURE_KEY})
"""An object of figures: {figure key: number or null}."""


def _registry_figures() -> dict[str, Any]:
    """Every figure of the registry under default options, typed (counts integers)."""
    return {key: INTEGER if figure.is_count else NUMBER for figure in FIGURES for key in figure.keys(Options())}


def _header(command: str) -> dict[str, Any]:
    entry = {
        "type": "object",
        "properties": {
            "role": STRING,
            "path": STRING,
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "size": {"type": "integer", "minimum": 0},
            "files": {"type": "integer", "minimum": 0},
            "stdin": {"const": True},
            "stream": {"const": True},
        },
        "required": ["role", "path"],
        "additionalProperties": False,
        "oneOf": [{"required": ["sha256", "size"]}, {"required": ["stdin"]}, {"required": ["stream"]}],
    }
    version = {"name": {"const": command}, "version": {"const": SCHEMAS[command].version}}
    return {"schema": closed(version), "inputs": array_of(entry)}


def _document(command: str, description: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "$schema": JSON_SCHEMA_DRAFT,
        "$id": f"urn:dst-metrics:{command}:{SCHEMAS[command].version}",
        "title": f"dst-metrics {command} --json",
        "description": description,
        **body,
    }


def _with_header(command: str, body: dict[str, Any]) -> dict[str, Any]:
    """`body` (a `closed` object) with the header's keys first and required."""
    found = {**body, "properties": {**_header(command), **body["properties"]}}
    if "propertyNames" in body:
        found["propertyNames"] = {"anyOf": [{"enum": list(found["properties"])}, body["propertyNames"]["anyOf"][1]]}
    return {**found, "required": ["schema", "inputs", *body["required"]]}


# Each command's schema


def _scores_record(command: str) -> dict[str, Any]:
    figures = _registry_figures()
    required = {"file": STRING, "format": STRING, **figures, "signature": SIGNATURE, "signatures": map_of(SIGNATURE)}
    optional = {
        "ci": map_of(INTERVAL),
        "by": map_of(FIGURES_MAP),
        "dialogues": map_of(FIGURES_MAP),
        "calibration": {"type": "object"},  # dst-metrics calibration's figures (its schema, without file and format)
    }
    return _with_header(command, closed(required, optional, others=(FIGURE_KEY, PROFILE_VALUE)))


def _held_out_domains(command: str) -> dict[str, Any]:
    row = {**FIGURES_MAP, "properties": {"signature": SIGNATURE}, "propertyNames": {}}
    return _with_header(
        command,
        closed({"file": STRING, "format": STRING, "protocol": STRING, "average": row}, others=("^[a-z]+$", row)),
    )


def _score() -> dict[str, Any]:
    return _document(
        "score",
        "One line per FILE: its figures, each figure's signature, and with --ci, --by, --per-dialogue or --calibration "
        "their blocks; with --domain all, a row of figures per held-out domain and their average.",
        {"oneOf": [_scores_record("score"), _held_out_domains("score")]},
    )


def _generations() -> dict[str, Any]:
    record = closed(
        {"file": STRING, **_registry_figures(), "empty": NUMBER, "truncated": NUMBER, "unparsed": NUMBER,
         "outcomes": map_of(map_of(INTEGER)), "malformed": map_of(INTEGER), "signature": SIGNATURE},
        {"unparsed_texts": array_of({}), "readings": array_of({})},
        others=(FIGURE_KEY, NUMBER),
    )  # fmt: skip
    return _document(
        "generations",
        "The figures of the generated texts, how many were empty, truncated or unparsed, and each style's outcomes.",
        _with_header("generations", record),
    )


def _test_result(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return closed(
        {"a": NUMBER, "b": NUMBER, "diff": NUMBER, "ci": INTERVAL, "p": NUMBER, "p_adjusted": NUMBER,
         "significant": BOOLEAN, "family_size": INTEGER, **(extra or {})}
    )  # fmt: skip


def _compare() -> dict[str, Any]:
    record = closed(
        {"names": array_of(STRING, minItems=2, maxItems=2), "figures": map_of(_test_result()),
         "mcnemar": {"type": "object"}, "mcnemar_turns": {"type": "object"}, "options": {"type": "object"},
         "signature": SIGNATURE, "level": NUMBER, "correction": STRING, "family_size": INTEGER, "rounds": INTEGER,
         "p_floor": NUMBER}
    )  # fmt: skip
    return _document(
        "compare",
        "A and B's figures, B - A with its interval, each figure's p-value before and after correction, McNemar's "
        "test.",
        _with_header("compare", record),
    )


def _table() -> dict[str, Any]:
    by_system = map_of(map_of(NUMBER))
    record = closed(
        {"names": array_of(STRING), "keys": array_of(STRING), "tested": array_of(STRING), "values": by_system,
         "intervals": map_of(map_of(INTERVAL)), "tests": array_of(closed({"a": STRING, "b": STRING,
         "figures": map_of(_test_result())})), "baseline": OPTIONAL_STRING, "options": {"type": "object"},
         "signature": SIGNATURE, "dialogues": INTEGER, "turns": INTEGER, "correction": STRING, "level": NUMBER,
         "rounds": INTEGER, "resamples": INTEGER, "seed": INTEGER, "method": STRING, "interval_level": NUMBER,
         "primary": OPTIONAL_STRING, "profiles": array_of(STRING), "labels": map_of(STRING),
         "runs": map_of(array_of(STRING)), "spread": by_system, "pairs": STRING, "family_size": INTEGER,
         "p_floor": NUMBER, "small_sample": BOOLEAN, "marks": map_of(map_of(STRING))},
        {"matrix": {"type": "object"}},
    )  # fmt: skip
    return _document(
        "table",
        "The table of N systems: each one's figures (and intervals), the tests against the baseline or of all pairs.",
        _with_header("table", record),
    )


def _analyze() -> dict[str, Any]:
    dialogue = closed({"dialogue_id": STRING, "gca": NUMBER, "fga": NUMBER, "to": NUMBER, "nu": NUMBER})
    zou = closed({"r1": NUMBER, "r2": NUMBER, "low": NUMBER, "high": NUMBER, "n": INTEGER, "r12": NUMBER,
                  "significant": BOOLEAN})  # fmt: skip
    record = closed(
        {"file": STRING, "dialogues": array_of(dialogue), "correlations": map_of(NUMBER), "zou": map_of(zou),
         "undefined": map_of(STRING), "signature": SIGNATURE,
         "by_position": closed({"rows": array_of(map_of(NUMBER)), "never_failed": INTEGER, "signature": SIGNATURE})}
    )  # fmt: skip
    return _document(
        "analyze",
        "Each dialogue's GCA and FGA beside its turn-over and new-update rates, their correlations and Zou's test.",
        _with_header("analyze", record),
    )


def _calibration() -> dict[str, Any]:
    levels = closed(
        {"file": STRING, "format": STRING, "slots": INTEGER, "turns": INTEGER, "bins": INTEGER,
         "confidences": BOOLEAN, "reliability": {"type": "object"}, "signature": SIGNATURE},
        {"by_slot": map_of({"type": "object"})},
        others=("^(slot|joint|slt2024)_[a-z0-9_]+$", NUMBER),
    )  # fmt: skip
    slt2024 = closed(
        {"file": STRING, "format": STRING, "compat": {"const": "slt2024"}, "pair_ece": NUMBER, "pair_auroc": NUMBER,
         "pairs": INTEGER, "right": INTEGER, "bins": INTEGER, "reliability": array_of(array_of(NUMBER)),
         "signature": SIGNATURE}
    )  # fmt: skip
    return _document(
        "calibration",
        "The calibration figures of predicted values with confidences, per slot and per turn; with --compat slt2024, "
        "that evaluator's figures over (slot, value) pairs.",
        {"oneOf": [_with_header("calibration", levels), _with_header("calibration", slt2024)]},
    )


DSTC2_STAT = map_of(NUMBER, propertyNames={"pattern": "^[12],[ab]$"})
"""A DSTC2 statistic: {"schedule,label scheme": value}."""


def _dstc2() -> dict[str, Any]:
    component = map_of(DSTC2_STAT)
    record = closed(
        {"featured": map_of(map_of(NUMBER)), "basic": map_of(STRING), "skipped": array_of({}),
         "warnings": array_of(STRING)},
        others=(r"^(goal|requested)\.[a-z_]+$|^method$|^all$", component),
    )  # fmt: skip
    return _document(
        "dstc2",
        "The official DSTC2 scorer's statistics of each component (goal slots, requested slots, method, all) by "
        "schedule and label scheme, the featured ones, the basic facts, the sessions skipped and the warnings.",
        _with_header("dstc2", record),
    )


def _dstc2_compare() -> dict[str, Any]:
    test = closed(
        {"component": STRING, "stat": STRING, "a": NUMBER, "b": NUMBER, "test": OPTIONAL_STRING, "p": NUMBER,
         "p_adjusted": NUMBER, "significant": {"type": ["boolean", "null"]}, "detail": map_of(NUMBER)}
    )  # fmt: skip
    record = closed(
        {"names": array_of(STRING, minItems=2, maxItems=2), "level": NUMBER, "correction": STRING,
         "tests": array_of(test)}
    )  # fmt: skip
    return _document(
        "dstc2-compare",
        "The tests of tracker B against tracker A on the featured statistics, before and after correction.",
        _with_header("dstc2-compare", record),
    )


def _sgdx() -> dict[str, Any]:
    record = closed(
        {"original": STRING, "variants": array_of(STRING), "signature": SIGNATURE},
        others=(r"^sgdx\.(all|seen|unseen)\.[a-z_]+$", NUMBER),
    )
    return _document(
        "sgdx",
        "SGD-X's figures (JGA and AGA on the original and the variants, schema sensitivity) over all, seen and unseen "
        "services, with their frame counts.",
        _with_header("sgdx", record),
    )


def _checkdst() -> dict[str, Any]:
    record = closed(
        {"original": STRING, "perturbed": STRING, "signature": SIGNATURE},
        others=(r"^checkdst\.[a-z_]+$", NUMBER),
    )
    return _document(
        "checkdst",
        "CheckDST's figures: JGA on the original and perturbed dialogues, conditional JGA and the flip rates.",
        _with_header("checkdst", record),
    )


class Schema(NamedTuple):
    """A command's output schema: its version and the function that writes it."""

    version: int
    write: Callable[[], dict[str, Any]]


SCHEMAS: dict[str, Schema] = {
    "score": Schema(1, _score),
    "generations": Schema(1, _generations),
    "compare": Schema(1, _compare),
    "table": Schema(1, _table),
    "analyze": Schema(1, _analyze),
    "calibration": Schema(1, _calibration),
    "dstc2": Schema(1, _dstc2),
    "dstc2-compare": Schema(1, _dstc2_compare),
    "sgdx": Schema(1, _sgdx),
    "checkdst": Schema(1, _checkdst),
}
"""Every command with ``--json``: its schema's version and writer (docs/usage.md: what bumps a version)."""


def schema_of(command: str) -> dict[str, Any]:
    """The JSON Schema of `command`'s ``--json`` output."""
    return SCHEMAS[command].write()
