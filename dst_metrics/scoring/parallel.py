"""Scoring one input in several processes (``dst-metrics score --jobs N``).

Each worker process gets the opened input (`dst_metrics.readers.ResolvedInput`: the `InputSpec` and its
shards, formats already detected, each file's bytes read once by the parent before it forks:
`ResolvedInput.loaded`) and builds and tallies only its share of each shard's dialogues: those whose
position is k modulo N. The reference layout is streamed (the file cut once, by the parent, into one
undecoded slice per dialogue; only the share's slices decoded); other formats are decoded whole and
`corpus.only_share` skips the other dialogues before any work. The parent adds the tallies (`Tally`
merges by ``+``, so the figures are ``==`` to one process's) and puts per-dialogue tallies back in
input order. The processes are `pool`'s (N - 1 forked workers, the parent scoring the first share
itself; nothing is pickled but the small results); where ``fork`` is unavailable, or a worker fails,
or the shares overlap, the caller reads the input in one process instead, so errors are exactly those
of one process.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..core.tally import Tally
from ..readers import ResolvedInput
from .streaming import tally_opened

if TYPE_CHECKING:
    from ..compat.base import ProfileTap

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


def _tally_share(
    opened: ResolvedInput,
    mode: str,
    k: int,
    n: int,
    per_dialogue: bool,
    view: Callable[[Tally], object] | None,
    tap: ProfileTap | None,
    watch: Callable | None = None,
) -> tuple[list[tuple], object]:
    """(per shard of the input: (tally, {dialogue: tally or view(tally)}, dialogue ids, their positions),
    the sums of a fresh copy of `tap`) of share k of n; `watch` sees its dialogues (`tally_opened`)."""
    share_tap = tap.fresh() if tap is not None else None  # the caller's tap merges only on success
    _, folded = tally_opened(opened, mode, per_dialogue, (k, n), watch, view, share_tap)
    parts = [(*found.result[:2], found.dialogue_ids, found.positions) for found in folded]
    return parts, share_tap.sums if share_tap is not None else None


def tally_in_processes(
    opened: ResolvedInput,
    mode: str,
    jobs: int,
    per_dialogue: bool,
    view: Callable[[Tally], object] | None = None,
    tap: ProfileTap | None = None,
    watch: Callable | None = None,
) -> tuple[Tally, dict[str, Tally]] | None:
    """(corpus tally, each dialogue's tally in input order) of an opened input read in `jobs`
    processes, each file read once, here; None when this must be done in one process (see the module). With
    `view` (picklable), each dialogue's ``view(tally)`` comes back in place of its tally: computed in the worker
    that tallied it (e.g. the dialogue's figures: `figures.DialogueFigures`). With `tap` (e.g. a profile's sums:
    `compat.base.ProfileTap`), each process sums its share into a fresh copy and, on success only, `tap` merges
    them all. `watch` sees the dialogues of the share this process tallies (e.g. `updates.watch`: a sample
    without reading the input again)."""
    from ..pool import forkable, in_processes  # here, not at the top: `default_jobs` is asked on every run

    if not forkable():
        return None
    opened = opened.loaded()  # the files read (and a reference layout cut) once, here: the workers share them

    def share(k: int) -> tuple:
        return _tally_share(opened, mode, k, jobs, per_dialogue, view, tap, watch if k == 0 else None)

    results = in_processes(share, jobs)
    if results is None:
        return None  # any failure: one process reads it again and names the problem
    shares = [share for share, _ in results]
    parts = [part for share in shares for part in share]
    ids = [dialogue_id for part in parts for dialogue_id in part[2]]
    if not ids or len(set(ids)) != len(ids):
        return None  # an empty input or a repeated id: one process raises the error
    total = Tally()
    for part in parts:
        total = total + part[0]
    order = _input_order(shares) if per_dialogue else []
    if order is None:
        return None  # positions that are not those of one input: one process reads it
    if tap is not None:  # only now: a None above leaves the caller's tap as it was
        for _, sums in results:
            tap.merge(sums)
    by_dialogue = {part[2][i]: part[1][part[2][i]] for part, i in order} if per_dialogue else {}
    return total, by_dialogue


def _input_order(shares: list[list[tuple]]) -> list[tuple[tuple, int]] | None:
    """(part, index in the part) of every dialogue of every share, in input order: each shard's dialogues
    put back at their positions (O(n), no sort); None when the positions of a shard are not 0 … n-1 once each."""
    order: list = []
    for shard in range(len(shares[0])):
        parts_of_shard = [share[shard] for share in shares]
        in_order: list = [None] * sum(len(part[2]) for part in parts_of_shard)
        for part in parts_of_shard:
            for index, position in enumerate(part[3]):
                if not 0 <= position < len(in_order) or in_order[position] is not None:
                    return None
                in_order[position] = (part, index)
        order.extend(in_order)
    return order
