"""Scoring inputs (files, folders, data; gold apart): the one entry the command line uses, the
engine chosen inside, for every flag, by one rule (`engine_for`):

- ``dask`` when asked for: each input is the shards of one corpus, tallied on Dask (`distributed`);
- ``whole`` when a figure needs the corpus in this process: gold apart (its corpus says how it was
  read), a compat profile that is not sums over dialogues, or the caller keeps the corpus
  (`Request.keep_corpus`: breakdowns, intervals, calibration); the corpus is scored by `scoring.score`;
- ``stream`` otherwise: each input's shards streamed where they stream, else read whole one shard at
  a time (`streaming`), or in `jobs` processes (`parallel`) for large inputs.

Every input is read (tallied) before any figure is computed; the figures are the same whichever
engine runs. Each input is opened once and its dialogues read once; only a failure reads again (a
shard that stops streaming is read whole; a turn too wide for ``num_slots`` is located by reading
the input again, as the error is raised).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import msgspec

from .._gc import gc_paused
from ..compat import PROFILES
from ..compat.base import ProfileTap
from ..core.figures import DialogueFigures
from ..corpus import Corpus, Dialogue
from ..errors import counted
from ..options import OptionError, Options
from ..progress import progress
from ..readers.inputs import InputSpec, ResolvedInput, resolve_input
from ..readers.updates import sample_looks_like_updates, votes_say_updates, watch
from .scores import Report, score, score_tallies, with_profile_figures

__all__ = ["Request", "Scored", "engine_for", "read_whole", "score_inputs"]


# Frozen msgspec Structs, not dataclasses: a Struct class is made in microseconds, a dataclass in about a
# millisecond of every command's start (its methods compiled from source).
class Request(msgspec.Struct, frozen=True):
    """How to score beyond the `Options`: each dialogue's figures (`per_dialogue`; with `dialogue_figures`
    computed where it was tallied), the flags that keep the corpus (``("--by",)``), the engine (``local``,
    ``dask``), `jobs` (None chooses), a Dask `scheduler`, a profile's files (`Profile.cli_inputs`' keywords),
    and `on_updates`, called with an input's name when its cumulative predictions look like updates."""

    per_dialogue: bool = False
    dialogue_figures: bool = False
    keep_corpus: tuple[str, ...] = ()
    engine: str = "local"
    jobs: int | None = None
    scheduler: str | None = None
    compat_files: Mapping[str, object] = msgspec.field(default_factory=dict)
    on_updates: Callable[[str], None] | None = None


class Scored(msgspec.Struct, frozen=True):
    """One input scored: its report, the format(s) read, its corpus if read whole and each dialogue's figures
    (computed where it was tallied: `Request.dialogue_figures`)."""

    name: str
    report: Report
    format: str
    corpus: Corpus | None = None
    dialogue_figures: dict | None = None


DASK_REFUSED = ("--gold", "--per-dialogue", "--compat", "--prediction-states updates", "--gold-alternatives first")


def engine_for(specs: Sequence[InputSpec], options: Options, request: Request) -> tuple[str, int]:
    """(engine, processes per input) of `specs` under `options` and `request`: the one rule (see the
    module); a flag Dask cannot honour is an OptionError naming it."""
    spec = specs[0]
    if request.engine == "dask":
        given = (spec.gold is not None, request.per_dialogue, *[True] * len(request.keep_corpus),
                 options.compat is not None, spec.prediction_states != "cumulative",
                 spec.gold_alternatives != "any")  # fmt: skip
        flags = (*DASK_REFUSED[:2], *request.keep_corpus, *DASK_REFUSED[2:])
        for flag, refused in zip(flags, given):
            if refused:
                raise OptionError(f"{flag} needs the whole corpus in one process; it cannot run on --engine dask")
        return "dask", request.jobs or 0
    summed = options.compat is None or PROFILES[options.compat].sums is not None  # a profile of sums streams
    if not summed or request.keep_corpus or spec.gold is not None:
        return "whole", 1
    if request.jobs is not None:
        return "stream", request.jobs
    from .parallel import default_jobs

    return "stream", default_jobs([s.source for s in specs if isinstance(s.source, str)])


def score_inputs(specs: Sequence[InputSpec], options: Options, request: Request | None = None) -> list[Scored]:
    """Every input of `specs` scored under `options` by the engine `engine_for` chooses."""
    if not specs:
        return []
    request = request or Request()
    engine, jobs = engine_for(specs, options, request)
    if engine == "dask":
        return _on_dask(specs, options, request)
    if engine == "whole":
        return _whole(specs, options, request)
    return _streamed(specs, options, request, jobs)


def _warn(spec: InputSpec, votes: list[bool], on_updates: Callable[[str], None] | None) -> None:
    if on_updates and spec.prediction_states == "cumulative" and votes_say_updates(votes):
        on_updates(spec.name or str(spec.source))


def read_whole(spec: InputSpec, on_updates: Callable[[str], None] | None = None) -> ResolvedInput:
    """`spec` opened and read whole, its first dialogues watched for turn updates (`on_updates`)."""
    with gc_paused():
        opened = resolve_input(spec)
    if on_updates and spec.prediction_states == "cumulative" and sample_looks_like_updates(opened.corpus.dialogues):
        on_updates(spec.name or str(spec.source))
    return opened


def _compat_inputs(name: str, options: Options, request: Request) -> object:
    profile = PROFILES.get(options.compat)
    return profile.cli_inputs(name, **request.compat_files) if profile and profile.cli_inputs else None


def _whole(specs: Sequence[InputSpec], options: Options, request: Request) -> list[Scored]:
    """Every input read whole (all checked first), then each scored (`scoring.score`)."""
    opened = [read_whole(spec, request.on_updates) for spec in progress(specs, unit="files", desc="reading")]
    out = []
    for spec, found in zip(specs, progress(opened, unit="files", desc="scoring")):
        name = spec.name or str(spec.source)
        inputs = _compat_inputs(name, options, request)
        report = score(found.corpus, options, per_dialogue=request.per_dialogue, compat_inputs=inputs, source=name)
        out.append(Scored(name, report, found.format, found.corpus))
    return out


def _tallies(spec: InputSpec, options: Options, request: Request, jobs: int, view, tap) -> tuple:
    """(tallies, format) of one input, opened and read once: streamed (`streaming`) or in `jobs`
    processes (`parallel`)."""
    from .streaming import tally_opened

    opened = resolve_input(spec, stream=True)
    alone = opened.streams and (jobs == 1 or all(shard.format == "jsonl" for shard in opened.files))
    votes: list[bool] = []

    def seen(dialogues: Iterable[Dialogue]) -> Iterator[Dialogue]:
        passed: list[bool] = []  # a pass that stops part way (the shard read whole after it) does not vote
        yield from watch(dialogues, passed)
        votes.extend(passed)

    tallies = None
    if jobs > 1 and not alone:  # the layout and whole reads: processes, when several
        from .parallel import tally_in_processes

        tallies = tally_in_processes(opened, options.mode, jobs, request.per_dialogue, view, tap, seen)
        if tallies is None:
            votes.clear()  # read again in one process: its votes count
    if tallies is None:
        tallies, _ = tally_opened(opened, options.mode, request.per_dialogue, watch=seen, view=view, tap=tap)
    _warn(spec, votes, request.on_updates)
    return tallies, opened.format


def _streamed(specs: Sequence[InputSpec], options: Options, request: Request, jobs: int) -> list[Scored]:
    """Every input tallied (a profile's sums on the way: `compat.base.ProfileTap`), then each scored."""
    view = DialogueFigures(options) if request.per_dialogue and request.dialogue_figures else None
    profile = PROFILES[options.compat] if options.compat else None
    found = []
    for spec in progress(specs, unit="files", desc="scoring"):
        tap = ProfileTap(profile.sums, options) if profile is not None and profile.sums is not None else None
        found.append((spec, *_tallies(spec, options, request, jobs, view, tap), tap))
    out = []
    for spec, (total, by_dialogue), how, tap in found:
        name = spec.name or str(spec.source)
        whole = lambda spec=spec: resolve_input(spec).corpus.dialogues  # noqa: E731 - only to name a too wide turn
        report = score_tallies((total, {} if view else by_dialogue), options, source=name, dialogues=whole)
        if profile is not None and tap is not None:
            report = with_profile_figures(report, profile, tap.figures())
        out.append(Scored(name, report, how, None, by_dialogue if view else None))
    return out


def _on_dask(specs: Sequence[InputSpec], options: Options, request: Request) -> list[Scored]:
    """Each input scored as the shards of one corpus on Dask (`distributed`)."""
    from .distributed import dask_client, score_shards, shards_of

    shards = {spec.name or str(spec.source): shards_of(spec.source, spec.format) for spec in specs}  # all checked first
    out = []
    with dask_client(request.scheduler, request.jobs) as client:
        for name, paths in shards.items():
            how = f"{counted(len(paths), 'shard')} on dask"
            out.append(Scored(name, score_shards(paths, options, client=client), how))
    return out
