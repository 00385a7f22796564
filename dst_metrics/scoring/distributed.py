"""Scoring a corpus split into shard files on a Dask cluster (extra ``distributed``; docs/distributed.md).

Each shard (a file any reader reads, or with ``--gold`` a predictions file paired with the gold file) is one
task returning its `Tally` and its dialogue ids in hash buckets; tallies add up in a tree, and a dialogue id in
two shards is an error naming it and both shards. With gold, each shard is joined to the gold file's dialogues by
id (`GoldJoin`): every gold dialogue must be in some shard, unless only the predicted ones are scored. The
figures equal scoring the dialogues in one process.

    from dst_metrics.scoring.distributed import score_shards
    report = score_shards(["shards/part-000.jsonl", ...], Options())          # a local cluster
    report = score_shards(paths, Options(), scheduler="tcp://10.0.0.5:8786")  # a running cluster
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec

from ..errors import InputError
from ..modules import needs_extra
from ..options import OptionError, Options
from ..readers.inputs import InputFile, InputSpec, read_sides, resolve, resolve_input
from ..readers.pairing import SUBSET_PART, no_partner, subset_note
from ..reading import Reading
from .scores import Report, score_tallies
from .streaming import Tallies, Tallying, add_up, tally_input

ENGINES = ("local", "dask")
"""``--engine``: this machine's processes (`dst_metrics.scoring.parallel`) or a Dask cluster."""
SPLIT_EVERY = 8
"""Tallies added per reduction task (the tree's fan-in)."""
ID_BUCKETS = 16
"""The dialogue ids are checked for repeats in this many tasks, each over one hash bucket of every shard."""


def shards_of(source: str, format: str = "auto") -> tuple[InputFile, ...]:
    """The shards of `source`: the file, or every file of a folder (sorted, hidden files skipped)."""
    if not os.path.exists(source):
        raise InputError("no such file or folder", source=source)
    return resolve(source, format)


def score_shards(
    paths: Sequence[str | InputFile],
    options: Options,
    *,
    format: str = "auto",
    scheduler: str | None = None,
    workers: int | None = None,
    client: Any = None,
) -> Report:
    """The scores of the shard files `paths` on Dask: `client`, a cluster at `scheduler`, or a local one (our
    figures; ``dst-metrics score --engine dask`` also gives a profile's, each dialogue's and the reading options)."""
    if options.compat is not None:
        raise OptionError("score_shards gives our figures; score_inputs with --engine dask gives a profile's")
    if not paths:
        raise InputError("no shard to score")
    # every shard resolved before any task, its format detected here once (the workers read it as given)
    resolved = [one for path in paths for one in ((path,) if isinstance(path, InputFile) else shards_of(path, format))]
    if client is None:
        with dask_client(scheduler, workers) as connected:
            return score_shards(resolved, options, client=connected)
    spec = InputSpec("", reading=Reading(value_matching=options.value_matching))
    tallies, _ = tally_shards(shard_specs(spec, resolved), Tallying(options.mode), client)
    return score_tallies((tallies.total, {}), options)


class GoldJoin(msgspec.Struct, frozen=True):
    """The gold file of a ``--gold`` input on Dask, read once by the client: its dialogue ids and its name."""

    dialogue_ids: tuple[str, ...]
    name: str | None
    only_predicted: bool = False  # the gold dialogues no shard predicts are left out, not an error

    @classmethod
    def of(cls, spec: InputSpec) -> GoldJoin:
        """The gold of `spec` read (one side); a gold that pairs by position (DSTC10's labels) cannot be joined."""
        gold = read_sides(resolve(spec.gold, spec.gold_format, spec.gold_name), "gold")
        if gold.ids == "position":
            raise OptionError(
                f"--gold in the {gold.format} format pairs instances by their position in the whole file, which "
                "shards do not keep; it cannot run on --engine dask"
            )
        return cls(tuple(gold.states), gold.source, spec.reading.only_predicted)


def shard_specs(spec: InputSpec, shards: Sequence[InputFile]) -> list[InputSpec]:
    """One spec per shard: the shard's file and format, read with `spec`'s reading settings; with gold, each shard
    is paired with the gold dialogues it predicts (`GoldJoin` checks the rest)."""
    if spec.gold is not None:
        spec = msgspec.structs.replace(spec, reading=msgspec.structs.replace(spec.reading, only_predicted=True))
    return [msgspec.structs.replace(spec, source=str(s.path), format=s.format, name=s.name) for s in shards]


def tally_shards(
    specs: Sequence[InputSpec], tallying: Tallying, client: Any, gold: GoldJoin | None = None
) -> tuple[Tallies, tuple[str, ...]]:
    """The `Tallies` of the shard files `specs` on Dask, added up in shard order (`streaming.add_up`, a tree of
    `SPLIT_EVERY` per task), and how the first shard was read (its signature parts, as a corpus's `reading`). A
    dialogue id in two shards is an error naming it and both shards; with `gold`, so is a gold dialogue no
    shard predicts, unless only the predicted ones are scored (the signature then says how many)."""
    shards = client.map(_tally_and_buckets, specs, tallying=tallying, pure=False)  # a shard file may change
    parts = [client.submit(operator.itemgetter(0), shard) for shard in shards]
    while len(parts) > 1:
        parts = [client.submit(_add_up, *parts[k : k + SPLIT_EVERY]) for k in range(0, len(parts), SPLIT_EVERY)]
    checks = [
        client.submit(_repeated, *[client.submit(_bucket, shard, b) for shard in shards]) for b in range(ID_BUCKETS)
    ]
    tallies = parts[0].result()
    reading = client.submit(operator.itemgetter(2), shards[0]).result()
    repeated = [found for found in client.gather(checks) if found[0]]
    if repeated:
        count = sum(found[0] for found in repeated)
        _, dialogue_id, first, second = repeated[0]
        where = f"{dialogue_id!r} in {specs[first].name} and {specs[second].name}"
        raise InputError(f"{count} dialogue ids are in more than one shard: {where}")
    if gold is not None:
        reading = _joined_reading(reading, gold, shards, client)
    return tallies, reading


def _joined_reading(reading: tuple[str, ...], gold: GoldJoin, shards: list, client: Any) -> tuple[str, ...]:
    """The signature parts of shards joined to `gold`: each shard's count of the gold dialogues it predicts
    replaced by the whole corpus's; a gold dialogue no shard predicts is an error (unless `gold.only_predicted`)."""
    predicted = sum(client.gather([client.submit(_id_count, shard) for shard in shards]))
    if predicted < len(gold.dialogue_ids) and not gold.only_predicted:
        seen = {one for ids in client.gather([client.submit(_ids, shard) for shard in shards]) for one in ids}
        raise no_partner([d for d in gold.dialogue_ids if d not in seen], "the predictions", gold.name)
    kept = [part for part in reading if not part.startswith(f"{SUBSET_PART}(")]  # the first shard's own count
    return (*kept, subset_note(predicted, len(gold.dialogue_ids))) if gold.only_predicted else tuple(kept)


def _tally_and_buckets(spec: InputSpec, tallying: Tallying) -> tuple[Tallies, list[list[str]], tuple[str, ...]]:
    """One shard's tallies, its dialogue ids in `ID_BUCKETS` lists by CRC-32 (the same in every process) and how it
    was read (its first file's signature parts)."""
    import zlib  # Dask only: not at every `dst-metrics score`'s start

    tallies, files = tally_input(resolve_input(spec, stream=True), tallying)
    buckets: list[list[str]] = [[] for _ in range(ID_BUCKETS)]
    for file in files:
        for dialogue_id in file.dialogue_ids:
            buckets[zlib.crc32(dialogue_id.encode()) % ID_BUCKETS].append(dialogue_id)
    return tallies, buckets, files[0].reading if files else ()


def _id_count(shard: tuple[Tallies, list[list[str]], tuple[str, ...]]) -> int:
    return sum(map(len, shard[1]))


def _ids(shard: tuple[Tallies, list[list[str]], tuple[str, ...]]) -> list[str]:
    return [dialogue_id for bucket in shard[1] for dialogue_id in bucket]


def _add_up(*parts: Tallies) -> Tallies:
    return add_up(parts)


def _bucket(shard: tuple[Tallies, list[list[str]]], index: int) -> list[str]:
    return shard[1][index]


def _repeated(*buckets: list[str]) -> tuple[int, str | None, int, int]:
    """(ids found in more than one shard's bucket, the first such id, the shards it is first found in)."""
    first_shard: dict[str, int] = {}
    count, example = 0, (None, -1, -1)
    for shard, ids in enumerate(buckets):
        for dialogue_id in ids:
            seen = first_shard.setdefault(dialogue_id, shard)
            if seen != shard:
                count += 1
                if example[0] is None:
                    example = (dialogue_id, seen, shard)
    return (count, *example)


@contextmanager
def dask_client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` of the cluster at `scheduler` or of a local cluster, closed on exit."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise OptionError(needs_extra("--engine dask", "distributed", ("dask", "distributed"))) from None
    if scheduler is not None:
        with Client(scheduler) as client:
            yield client
        return
    n = workers or os.cpu_count() or 1
    import logging

    quiet = logging.CRITICAL  # a task's InputError reaches the caller; the workers need not log it too
    with LocalCluster(
        n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=quiet
    ) as cluster:
        with Client(cluster) as client:
            yield client
