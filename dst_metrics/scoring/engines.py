"""Scoring inputs (files, folders, data; gold apart): the entry of the command line.

`engine_for` chooses the engine: ``dask`` when asked for (`distributed`); ``whole`` when a figure
needs the corpus in this process (gold apart, a compat profile that is not sums over dialogues, or
`Request.needs_whole_corpus`); otherwise ``stream`` (`streaming`), or `jobs` processes (`parallel`)
for large inputs. Every input is read and tallied before any figure is computed, and the figures
are the same whichever engine runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import msgspec

from .._gc import gc_paused
from ..compat import PROFILES
from ..compat.base import Profile
from ..corpus import Corpus
from ..errors import counted
from ..figures.registry import DialogueFigures
from ..generation.updates import sample_looks_like_updates, votes_say_updates
from ..options import OptionError, Options
from ..progress import progress
from ..readers.inputs import InputSpec, ResolvedInput, resolve_input
from .parallel import default_jobs, tally_in_processes
from .scores import Report, corpus_options, score_tallies, with_profile_figures
from .streaming import Tallies, Tallying, tally_input

__all__ = ["Request", "Scored", "engine_for", "read_whole", "score_inputs"]


# Frozen msgspec Structs, not dataclasses: a Struct class is made in microseconds, a dataclass in about a millisecond.
class Request(msgspec.Struct, frozen=True):
    """How to score beyond the `Options`: per-dialogue figures, engine, jobs, scheduler, profile files, hooks."""

    per_dialogue: bool = False
    dialogue_figures: bool = False
    needs_whole_corpus: tuple[str, ...] = ()
    engine: str = "local"
    jobs: int | None = None
    scheduler: str | None = None
    compat_files: Mapping[str, object] = msgspec.field(default_factory=dict)
    on_updates: Callable[[str], None] | None = None


class Scored(msgspec.Struct, frozen=True):
    """One input scored: its report, the format(s) read, its corpus if read whole and each dialogue's figures."""

    name: str
    report: Report
    format: str
    corpus: Corpus | None = None
    dialogue_figures: dict | None = None


def engine_for(specs: Sequence[InputSpec], options: Options, request: Request) -> tuple[str, int]:
    """(engine, processes per input) for `specs`; a flag Dask cannot honour is an OptionError naming it."""
    spec = specs[0]
    summed = options.compat is None or PROFILES[options.compat].sums is not None  # a profile of sums streams
    if request.engine == "dask":  # each shard is tallied as the stream engine tallies a file: what needs more, says so
        for flag in request.needs_whole_corpus:
            raise OptionError(f"{flag} needs every dialogue's states in one process; it cannot run on --engine dask")
        if not summed:
            sums = ", ".join(name for name, profile in PROFILES.items() if profile.sums is not None)
            raise OptionError(
                f"--compat {options.compat} reads the whole corpus in one process; it cannot run on --engine dask "
                f"(the profiles of sums can: {sums})"
            )
        return "dask", request.jobs or 0
    if not summed or request.needs_whole_corpus or spec.gold is not None:
        return "whole", 1
    if request.jobs is not None:
        return "stream", request.jobs
    return "stream", default_jobs([s.source for s in specs if isinstance(s.source, str)])


def score_inputs(specs: Sequence[InputSpec], options: Options, request: Request | None = None) -> list[Scored]:
    """Every input of `specs` scored under `options` by the engine `engine_for` chooses."""
    if not specs:
        return []
    request = request or Request()
    engine, jobs = engine_for(specs, options, request)
    profile = PROFILES[options.compat] if options.compat else None
    tallying = Tallying(
        options.mode,
        request.per_dialogue,
        figures=DialogueFigures(options) if request.per_dialogue and request.dialogue_figures else None,
        profile=profile.sums if profile is not None else None,
        options=options,
        vote_updates=engine != "whole" and request.on_updates is not None,
    )
    if engine == "dask":
        read = _read_on_dask(specs, tallying, request)
    else:
        read = [_read(spec, tallying, engine, jobs, request) for spec in progress(specs, unit="files", desc="reading")]
    return [_scored(spec, *found, tallying, options, request, profile) for spec, found in zip(specs, read)]


def read_whole(spec: InputSpec, on_updates: Callable[[str], None] | None = None) -> ResolvedInput:
    """`spec` read whole, its first dialogues checked for turn updates (`on_updates` is called with its name)."""
    with gc_paused():
        resolved = resolve_input(spec)
    cumulative = spec.reading.prediction_states == "cumulative"
    if on_updates and cumulative and sample_looks_like_updates(resolved.corpus.dialogues):
        on_updates(spec.name or str(spec.source))
    return resolved


def _read(
    spec: InputSpec, tallying: Tallying, engine: str, jobs: int, request: Request
) -> tuple[Tallies, str, Corpus | None, tuple[str, ...]]:
    """(tallies, the format(s) read, the corpus if read whole, how it was read: the signature's parts) of one
    input."""
    if engine == "whole":
        resolved = read_whole(spec, request.on_updates)
        with gc_paused():
            return tallying(resolved.corpus), resolved.format, resolved.corpus, resolved.corpus.reading
    resolved = resolve_input(spec, stream=True)
    tallies = tally_in_processes(resolved, tallying, jobs)
    if tallies is None:
        tallies, _ = tally_input(resolved, tallying)
    _warn_if_updates(spec, tallies, request)
    return tallies, resolved.format, None, spec.reading.parts


def _read_on_dask(specs: Sequence[InputSpec], tallying: Tallying, request: Request) -> list[tuple]:
    """`_read` of each input on Dask: the shards of one corpus (a file, or a folder's files), each tallied by
    `tallying` with the input's reading settings (`distributed.tally_shards`)."""
    from .distributed import GoldJoin, dask_client, shard_specs, shards_of, tally_shards

    shards = [shard_specs(spec, shards_of(spec.source, spec.format)) for spec in specs]  # all checked first
    golds = [None if spec.gold is None else GoldJoin.of(spec) for spec in specs]
    read = []
    with dask_client(request.scheduler, request.jobs) as client:
        for spec, shard_list, gold in zip(specs, shards, golds):
            tallies, reading = tally_shards(shard_list, tallying, client, gold)
            _warn_if_updates(spec, tallies, request)
            read.append((tallies, f"{counted(len(shard_list), 'shard')} on dask", None, reading))
    return read


def _warn_if_updates(spec: InputSpec, tallies: Tallies, request: Request) -> None:
    """`request.on_updates` of cumulative predictions whose votes say they are turn updates."""
    if request.on_updates and spec.reading.prediction_states == "cumulative" and votes_say_updates(tallies.votes):
        request.on_updates(spec.name or str(spec.source))


def _scored(
    spec: InputSpec,
    tallies: Tallies,
    format: str,
    corpus: Corpus | None,
    reading: tuple[str, ...],
    tallying: Tallying,
    options: Options,
    request: Request,
    profile: Profile | None,
) -> Scored:
    """The figures of one input's tallies: ours, then a profile's in place of ours."""
    name = spec.name or str(spec.source)
    if corpus is not None:
        options = corpus_options(corpus, options)
        whole = lambda: corpus.dialogues  # noqa: E731 - only to name a too wide turn
    else:
        options = options.replace(reading=reading)  # how the input was read, as a corpus says it
        whole = lambda: resolve_input(spec).corpus.dialogues  # noqa: E731
    figures = tallies.dialogues if tallying.figures is not None else None
    by_dialogue = tallies.dialogues if figures is None else {}
    report = score_tallies((tallies.total, by_dialogue), options, source=name, dialogues=whole)
    if profile is not None and profile.sums is not None:
        report = with_profile_figures(report, profile, profile.sums.figures(tallies.sums, options))
    elif profile is not None:
        inputs = profile.cli_inputs(name, **request.compat_files) if profile.cli_inputs else None
        report = with_profile_figures(report, profile, profile.compute(corpus, options, inputs))
    return Scored(name, report, format, corpus, figures)
