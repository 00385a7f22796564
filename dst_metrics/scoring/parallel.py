"""Scoring one input in several processes (``dst-metrics score --jobs N``).

The parent reads each file once and forks; worker k builds and tallies the dialogues at positions k
modulo N (the reference layout is cut per dialogue and only the share decoded; other formats skip
the others with `corpus.only_share`). The parent adds the tallies, so the figures equal one
process's, and restores input order. Where ``fork`` is unavailable or a worker fails, the input is
read in one process, so errors are those of one process.
"""

from __future__ import annotations

import os

import msgspec

from ..readers import ResolvedInput
from .streaming import Tallies, Tallying, add_up

PARALLEL_MIN_BYTES = 8_000_000
"""Inputs smaller than this (about 50,000 turns of the reference layout) are scored in one process
by default: starting processes costs more than they save (benchmarks/bench_core.py)."""


def default_jobs(paths: list[str]) -> int:
    """All cores for an input of at least `PARALLEL_MIN_BYTES` (files, and the files of folders), else 1."""
    size = 0
    for path in paths:
        try:
            if os.path.isdir(path):
                size += sum(entry.stat().st_size for entry in os.scandir(path) if entry.is_file())
            elif os.path.isfile(path):
                size += os.path.getsize(path)
        except OSError:
            return 1
    return (os.cpu_count() or 1) if size >= PARALLEL_MIN_BYTES else 1


def tally_in_processes(resolved: ResolvedInput, tallying: Tallying, jobs: int) -> Tallies | None:
    """The tallies of an input read in `jobs` processes, in input order; None when one process must read it."""
    if jobs < 2 or (resolved.streams and all(file.format == "jsonl" for file in resolved.files)):
        return None
    from ..pool import forkable, in_processes  # here: one process imports no process pool

    if not forkable():
        return None
    resolved = resolved.loaded()  # the files read (and a reference layout cut) once, here: the workers share them
    silent = msgspec.structs.replace(tallying, vote_updates=False)

    def share(k: int) -> list[tuple[Tallies, list[str], list[int]]]:
        found = resolved.read_stream(silent if k else tallying, (k, jobs))
        return [(file.result, file.dialogue_ids, file.positions) for file in found]

    shares = in_processes(share, jobs)
    if shares is None:
        return None  # any failure: one process reads it again and names the problem
    ids = [dialogue_id for found in shares for _, file_ids, _ in found for dialogue_id in file_ids]
    if not ids or len(set(ids)) != len(ids):
        return None  # an empty input or a repeated id: one process raises the error
    tallies = add_up([part for found in shares for part, _, _ in found])
    if tallying.per_dialogue:
        order = _input_order(shares)
        if order is None:
            return None  # positions that are not those of one input: one process reads it
        tallies.dialogues = {file_ids[i]: part.dialogues[file_ids[i]] for (part, file_ids, _), i in order}
    return tallies


def _input_order(shares: list[list[tuple]]) -> list[tuple[tuple, int]] | None:
    """(part, index in the part) of every dialogue in input order; None when a file's positions are not 0 … n-1."""
    order: list = []
    for file in range(len(shares[0])):
        parts_of_file = [share[file] for share in shares]
        in_order: list = [None] * sum(len(part[1]) for part in parts_of_file)
        for part in parts_of_file:
            for index, position in enumerate(part[2]):
                if not 0 <= position < len(in_order) or in_order[position] is not None:
                    return None
                in_order[position] = (part, index)
        order.extend(in_order)
    return order
