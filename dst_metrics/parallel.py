"""Scoring one input in several processes (``dst-metrics score --jobs N``).

Each worker process reads the whole input but builds and tallies only its share of the dialogues:
those whose position is k modulo N. The reference layout is streamed (`streaming`: the file cut
into one undecoded slice per dialogue, only the share's slices decoded); other formats are decoded
whole and `corpus.sharded` skips the other dialogues before any work. The parent adds the tallies
(`Tally` merges by ``+``, so the figures are ``==`` to one process's) and puts per-dialogue tallies
back in input order. N - 1 worker processes are started with ``fork`` (the parent's imports are
inherited, nothing is pickled but the small results) and the parent scores the first share itself;
where ``fork`` is unavailable, or a worker fails, or the shares overlap, the input is read in this
process instead, so errors are exactly those of one process.
"""

from __future__ import annotations

import argparse
import os

from .core import Tally
from .scoring import tally_dialogues

PARALLEL_MIN_BYTES = 8_000_000
"""Inputs smaller than this (about 50,000 turns of the reference layout) are scored in one process
by default: starting processes costs more than they save (benchmarks/bench_core.py)."""
START_METHOD = "fork"


def default_jobs(paths: list[str]) -> int:
    """All cores for an input of at least `PARALLEL_MIN_BYTES` (a file, or a folder's files), else 1."""
    size = 0
    for path in paths:
        try:
            size += os.path.getsize(path) if os.path.isfile(path) else 0
        except OSError:
            return 1
    return (os.cpu_count() or 1) if size >= PARALLEL_MIN_BYTES else 1


def _tally_share(path: str, args: argparse.Namespace, mode: str, k: int, n: int, per_dialogue: bool) -> tuple:
    from .command_line import read_input
    from .corpus import sharded
    from .streaming import stream_tally, streamable

    if not args.gold and streamable(path, args.format) == "reference":  # only this share's dialogues decoded
        ids: list[str] = []
        found = stream_tally(path, value_matching=args.value_matching, mode=mode, per_dialogue=per_dialogue,
                             format="reference", dialogue_ids=ids, share=(k, n))  # fmt: skip
        if found is not None:
            return found[0], found[1], ids, [k + n * i for i in range(len(ids))], "reference"
    with sharded(k, n) as positions:
        corpus, read_as = read_input(path, args)
    total, by_dialogue = tally_dialogues(corpus, mode, per_dialogue)
    return total, by_dialogue, [d.dialogue_id for d in corpus.dialogues], positions, read_as


def tally_in_processes(
    path: str, args: argparse.Namespace, mode: str, jobs: int, per_dialogue: bool
) -> tuple[tuple[Tally, dict[str, Tally]], str] | None:
    """((corpus tally, each dialogue's tally in input order), the format read) of `path` read in
    `jobs` processes; None when this must be done in one process (see the module)."""
    import multiprocessing  # here, not at the top: `default_jobs` is asked on every run
    from concurrent.futures import ProcessPoolExecutor

    if START_METHOD not in multiprocessing.get_all_start_methods():
        return None
    context = multiprocessing.get_context(START_METHOD)
    try:
        with ProcessPoolExecutor(jobs - 1, mp_context=context) as pool:  # this process takes share 0
            futures = [pool.submit(_tally_share, path, args, mode, k, jobs, per_dialogue) for k in range(1, jobs)]
            shares = [_tally_share(path, args, mode, 0, jobs, per_dialogue)]
            shares += [future.result() for future in futures]
    except Exception:  # noqa: BLE001 - any failure: one process reads it again and names the problem
        return None
    ids = [dialogue_id for share in shares for dialogue_id in share[2]]
    if not ids or len(set(ids)) != len(ids):
        return None  # an empty input or a repeated id: one process raises the error
    total = Tally()
    for share in shares:
        total = total + share[0]
    if not per_dialogue:
        return (total, {}), shares[0][4]
    ordered = sorted((position, dialogue_id, share[1][dialogue_id]) for share in shares
                     for position, dialogue_id in zip(share[3], share[2]))  # fmt: skip
    return (total, {dialogue_id: tally for _, dialogue_id, tally in ordered}), shares[0][4]
