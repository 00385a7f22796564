"""``dst-metrics dstc2`` from files to `Scores`, in one process or split across processes.

`score_files` reads the flist, the ontology and the track file. With ``jobs > 1`` the sessions are cut
into chunks that worker processes (`dst_metrics.pool`) claim one after another; each chunk is read,
checked and turned into an `items.TablePart`, and the parent joins the parts in session order and
scores them, so the rows equal one process's (tests/test_dstc2_pipeline.py). When anything fails,
the whole input is scored again in one process, so errors and their order are those of one process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from .._gc import without_gc
from ..pool import claimed, forkable, in_processes, shared_counter
from .check import Problem, check_share, check_top, check_track
from .components import Scores
from .data import Ontology, read_flist, read_session, read_sessions, read_track

MAX_CHUNK = 64
"""The most sessions a process claims at once (`chunk_size`)."""
PARALLEL_MIN_SESSIONS = 200
"""Fewer sessions than this are scored in one process by default: a fork and the transfer of the
parts cost more than half the work saves (benchmarks/bench_dstc2.py)."""


@dataclass
class Run:
    """What one process returns for its run of sessions."""

    problems: list[Problem]
    part: Any
    """The run's `items.TablePart`."""
    skipped: list[tuple[str, int, str]]


def default_jobs(n_sessions: int) -> int:
    """All cores from `PARALLEL_MIN_SESSIONS` sessions up, else 1."""
    return (os.cpu_count() or 1) if n_sessions >= PARALLEL_MIN_SESSIONS else 1


def score_files(
    dataroot: str,
    flist: str,
    track_path: str,
    ontology: Ontology,
    dataset: str | None,
    *,
    strict: bool = False,
    jobs: int | None = None,
) -> tuple[Scores, list[Problem]]:
    """The scores of the track file at `track_path` on the sessions `flist` names, and the check's
    problems (`InputError` for what cannot be scored; with `strict`, for the first problem)."""
    relatives = read_flist(flist)
    jobs = default_jobs(len(relatives)) if jobs is None else jobs
    if jobs > 1 and len(relatives) >= 2 and forkable():
        found = _score_in_processes(dataroot, relatives, track_path, ontology, dataset, jobs)
        if found is not None:
            scores, problems = found
            if strict and problems:
                raise problems[0].error(track_path)
            return scores, problems
    from .scorer import score

    track = read_track(track_path)
    sessions = read_sessions(dataroot, flist)
    problems = check_track(track, sessions, ontology, dataset, source=track_path, strict=strict)
    return score(sessions, track, ontology), problems


@without_gc
def _run(dataroot: str, relatives: list[str], tracked: list[Any], ontology: Ontology, first: int, source: str) -> Run:
    """Read, check, prepare and tabulate the sessions ``relatives``, the first at position `first`
    of the flist and of `tracked` (the track file's sessions)."""
    from .scorer import prepare_all, tabulate

    sessions = [read_session(dataroot, relative) for relative in relatives]
    problems = check_share(tracked, sessions, ontology, first, source=source)
    prepared = prepare_all(sessions, {"sessions": tracked[first : first + len(sessions)]}, ontology)
    return Run(problems, *tabulate(prepared, ontology, first))


def chunk_size(n_sessions: int, jobs: int) -> int:
    """Sessions per claimed chunk: about 16 chunks per process (so all finish within a chunk of each
    other), at most `MAX_CHUNK`."""
    return max(1, min(MAX_CHUNK, n_sessions // (jobs * 16)))


def _work(
    counter: Any, dataroot: str, relatives: list[str], tracked: list[Any], ontology: Ontology, source: str, chunk: int
) -> list[tuple[int, Run]]:
    """Claim chunks and run them; (first position, `Run`) of each (the parent shows a progress bar)."""
    from ..progress import progress

    starts: Iterable[int] = claimed(counter, len(relatives), chunk)
    if multiprocessing.parent_process() is None:
        starts = progress(starts, unit="chunks", desc=f"sessions ({chunk} per chunk, this process)")
    return [
        (start, _run(dataroot, relatives[start : start + chunk], tracked, ontology, start, source)) for start in starts
    ]


def _score_in_processes(
    dataroot: str, relatives: list[str], track_path: str, ontology: Ontology, dataset: str | None, jobs: int
) -> tuple[Scores, list[Problem]] | None:
    """`score_files` with every process claiming chunks of consecutive sessions from a shared counter
    until none is left; None when one process must do it. The workers start first and read the track
    file themselves, while this process reads it too (and imports numpy, which only it needs)."""
    jobs = min(jobs, len(relatives))
    chunk = chunk_size(len(relatives), jobs)
    counter = shared_counter()
    mine: dict[str, Any] = {}  # what this process (k = 0) read

    def work(k: int) -> list[tuple[int, Run]]:
        track = read_track(track_path)
        if k == 0:  # this process: the track file's own checks, and numpy while the workers start
            from . import fast  # noqa: F401

            mine["track"] = track
            mine["problems"] = check_top(track, len(relatives), dataset, source=track_path)
        return _work(counter, dataroot, relatives, track["sessions"], ontology, track_path, chunk)

    found = in_processes(work, jobs)
    if found is None:
        return None
    runs = sorted((entry for runs in found for entry in runs), key=itemgetter(0))
    done = [run for _, run in runs]
    from .scorer import scores_of

    skipped = [entry for run in done for entry in run.skipped]
    scores = scores_of([run.part for run in done], skipped, len(relatives), mine["track"], ontology)
    return scores, mine["problems"] + [problem for run in done for problem in run.problems]
