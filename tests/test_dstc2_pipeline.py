"""``dst-metrics dstc2`` in several processes: the same rows, warnings, skips and errors as one process."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import pytest

from dst_metrics.cli import main
from dst_metrics.dstc2 import pipeline
from dst_metrics.dstc2.data import read_ontology
from dst_metrics.dstc2.output import csv_text
from dst_metrics.errors import InputError
from tests.fixtures.dstc2.builders import random_dataset

SHARED = Path(os.environ.get("DST_METRICS_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
SAMPLE = SHARED / "data" / "dstc2"
BASELINE = SHARED / "reference" / "dstc2"


def _scored(data: Path, track: Path, jobs: int, **options):
    ontology = read_ontology(str(data / "ontology.json"))
    return pipeline.score_files(str(data), str(data / "mini.flist"), str(track), ontology, "mini", jobs=jobs, **options)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("jobs", [2, 3])
def test_processes_give_the_rows_problems_and_skips_of_one_process(tmp_path, seed, jobs):
    data, track = random_dataset(tmp_path, seed, sessions=40, faults=0.08)
    one, one_problems = _scored(data, track, 1)
    several, several_problems = _scored(data, track, jobs)
    assert pipeline.chunk_size(40, jobs) == 1  # so every session is a chunk, claimed by any process
    assert several.rows == one.rows  # exact floats, None where undefined
    assert csv_text(several) == csv_text(one)
    assert several_problems == one_problems and one_problems  # faults: there are warnings to order
    assert several.skipped == one.skipped
    assert (several.sessions, several.turns) == (one.sessions, one.turns)


def test_a_worker_that_fails_leaves_the_work_to_one_process(tmp_path, monkeypatch):
    data, track = random_dataset(tmp_path, 7, sessions=30, faults=0.08)
    real_work = pipeline._work

    def failing_in_workers(*args, **kwargs):
        if multiprocessing.parent_process() is not None:
            raise RuntimeError("a worker fails")
        return real_work(*args, **kwargs)

    one, one_problems = _scored(data, track, 1)
    monkeypatch.setattr(pipeline, "_work", failing_in_workers)
    several, several_problems = _scored(data, track, 2)
    assert csv_text(several) == csv_text(one) and several_problems == one_problems


def _break_late_session(data: Path, track: Path, what: str) -> None:
    """Spoil the 25th of 30 sessions (a later chunk, so most likely another process's)."""
    tracker = json.loads(track.read_text())
    if what == "no label.json":
        (data / "calls" / "s24" / "label.json").unlink()
    elif what == "score not a number":
        tracker["sessions"][24]["turns"][0]["method-label"] = {"none": "high"}
    elif what == "turns not an array":
        tracker["sessions"][24]["turns"] = {}
    elif what == "sessions not an array":
        tracker["sessions"] = {}
    track.write_text(json.dumps(tracker))


@pytest.mark.parametrize("what", ["no label.json", "score not a number", "turns not an array", "sessions not an array"])
@pytest.mark.parametrize("strict", [False, True])
def test_errors_and_warnings_are_those_of_one_process(tmp_path, capsys, what, strict):
    data, track = random_dataset(tmp_path, 3, sessions=30, faults=0.1)
    _break_late_session(data, track, what)
    argv = ["dstc2", "--dataset", "mini", "--dataroot", str(data), "--ontology", str(data / "ontology.json")]
    argv += ["--trackfile", str(track), "--json"] + (["--strict"] if strict else [])
    seen = []
    for jobs in ("1", "2", "3"):
        status = main([*argv, "--jobs", jobs])
        captured = capsys.readouterr()
        seen.append((status, captured.out, captured.err))
    assert seen[0][0] == 2 and "dst-metrics: error: " in seen[0][2]  # each of these stops the run
    assert seen[1] == seen[0] and seen[2] == seen[0]


def test_strict_raises_the_first_warning_in_session_order(tmp_path):
    data, track = random_dataset(tmp_path, 4, sessions=30, faults=0.1)
    with pytest.raises(InputError) as one:
        _scored(data, track, 1, strict=True)
    with pytest.raises(InputError) as several:
        _scored(data, track, 3, strict=True)
    assert str(several.value) == str(one.value)


def test_default_processes_and_chunks():
    assert pipeline.default_jobs(pipeline.PARALLEL_MIN_SESSIONS - 1) == 1
    assert pipeline.default_jobs(pipeline.PARALLEL_MIN_SESSIONS) == (os.cpu_count() or 1)
    assert pipeline.chunk_size(1000, 2) == 31 and pipeline.chunk_size(10**6, 2) == pipeline.MAX_CHUNK
    assert pipeline.chunk_size(3, 2) == 1


@pytest.mark.skipif(not (BASELINE / "baseline.score.csv").is_file(), reason="needs ../shared/reference/dstc2")
@pytest.mark.parametrize("jobs", [2, 3])
def test_the_official_csv_from_several_processes(tmp_path, jobs):
    out = tmp_path / "score.csv"
    argv = ["dstc2", "--dataset", "dstc2_data", "--dataroot", str(SAMPLE), "--ontology"]
    argv += [str(SAMPLE / "ontology_dstc2.json"), "--trackfile", str(BASELINE / "baseline.track.json")]
    assert main([*argv, "--scorefile", str(out), "--jobs", str(jobs), "--quiet"]) == 0
    ours = [line for line in out.read_text().splitlines() if "wall" not in line and "time" not in line]
    official = (BASELINE / "baseline.score.csv").read_text().splitlines()
    assert ours == [line for line in official if "wall" not in line and "time" not in line]
