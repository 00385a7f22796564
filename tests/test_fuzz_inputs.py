"""Hostile mutants of every reader's fixture (tests/fuzz.py) end in a result or one located line.

Through `resolve_input` and the command line (`main`, in this process, plus a few
subprocesses): a Corpus or exit 0, else one InputError line naming the file or exit 2, never another
exception or a traceback, never more than 20 s; and the two ways agree on every mutant.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from dst_metrics.errors import InputError
from dst_metrics.readers.inputs import READERS, InputSpec, resolve_input

from .fuzz import KINDS, _paths, fixtures, mutants, outcome

SEEDS = range(5)
LIMIT_SECONDS = 20


def _mutant_files(tmp_path, reader: str) -> list[tuple[str, object]]:
    found = []
    for index, (name_reader, kind, name, data) in enumerate(mutants(SEEDS)):
        if name_reader != reader:
            continue
        folder = tmp_path / f"{kind}-{index}"
        folder.mkdir()
        (folder / name).write_bytes(data)
        found.append((kind, folder / name))
    return found


@pytest.mark.parametrize("reader", list(READERS))  # the registry: a new reader is fuzzed too
def test_every_mutant_ends_in_a_result_or_one_located_input_error(reader, tmp_path):
    files = _mutant_files(tmp_path, reader)
    assert {kind for kind, _ in files} == set(KINDS)
    ended = {}
    for kind, path in files:
        outcomes = []
        for through in ("door", "cli"):
            start = time.perf_counter()
            outcomes.append(outcome(reader, path, through))
            assert time.perf_counter() - start < LIMIT_SECONDS, (reader, kind, path)
        assert outcomes[0] in ("ok", "input-error"), (kind, path, outcomes[0])
        assert outcomes[1] == outcomes[0], (kind, path, outcomes)  # the door and the command line agree
        ended[outcomes[0]] = ended.get(outcomes[0], 0) + 1
        if outcomes[0] == "input-error":
            predictions, gold = _paths(reader, path)
            with pytest.raises(InputError) as caught:
                resolve_input(InputSpec(predictions, gold=gold))
            named = [str(p) for p in (predictions, gold) if p is not None]
            assert any(str(caught.value).startswith(p) for p in named), str(caught.value)  # the file comes first
    assert ended.get("input-error", 0) >= len(files) // 3  # the mutants are hostile: most are refused


@pytest.mark.parametrize(
    ("reader", "kind"), [("reference", "deep"), ("jsonl", "deep"), ("trade", "flipped"), ("trade", "utf16")]
)
def test_mutants_in_a_subprocess_exit_2_without_a_traceback(reader, kind, tmp_path):
    data = fixtures()[reader][0]
    if kind == "flipped":  # a byte of a value no longer UTF-8: once a UnicodeDecodeError traceback
        at = data.index(b"guest house")
        mutant = data[:at] + b"\xff" + data[at + 1 :]
    else:
        mutant = next(m for r, k, _, m in mutants(range(1)) if (r, k) == (reader, kind))
    path = tmp_path / fixtures()[reader][1]
    path.write_bytes(mutant)
    done = subprocess.run(
        [sys.executable, "-m", "dst_metrics", "score", str(path)], capture_output=True, text=True, timeout=60
    )
    # our one line and nothing else (no traceback): checked by our own output, not by Python's traceback header
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"dst-metrics: error: {path}") and done.stderr.count("\n") == 1, done.stderr
