"""What the visitor gives: options, prediction sets (pasted or uploaded, in any format), a gold file for
formats that hold predictions only, and the paper's examples. The library reads them (`readers.inputs.resolve_input`);
this module adds the page's size limits, the sets' names and the check that every set has the same gold.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dst_metrics import Corpus, InputError, Options
from dst_metrics.compat import PROFILES
from dst_metrics.options import OptionError
from dst_metrics.readers import compression
from dst_metrics.readers.base import read_file
from dst_metrics.readers.inputs import FORMATS, READERS, SUFFIXES, InputSpec, resolve, resolve_input
from dst_metrics.reading import Reading
from dst_metrics.space.examples import EXAMPLES

SET_LABELS = ("A", "B", "C", "D")
MAX_PASTE_BYTES = 5_000_000
MAX_UPLOAD_MB = 50
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1_000_000
SESSION_STATE_SECONDS = 1800
"""A session's results and uploads are dropped after 30 minutes without a computation, or when its tab closes."""
AUTO = "auto"
AUTO_LABEL = "auto-detect"
UPLOAD_TYPES = [*SUFFIXES, *compression.SUFFIXES]
"""What the upload buttons take: every reader's files, plain or compressed."""

ALL_EXAMPLES = "all"
CONFIDENCES = "confidences"
_EXAMPLE_FOLDERS = (Path.cwd() / "examples", Path(__file__).resolve().parents[2] / "examples")
"""Where the example files are: beside app.py in the Space's folder, or in a clone's top level."""
CONFIDENCES_FILE = next(
    (folder / "confidences.json" for folder in _EXAMPLE_FOLDERS if (folder / "confidences.json").is_file()),
    _EXAMPLE_FOLDERS[-1] / "confidences.json",
)
EXAMPLE_CHOICES: list[tuple[str, str]] = [
    ("Figure 1: the first example, P1 vs P2", "first_example"),
    ("Section 5.4: the hypothetical dialogue, P1 vs P2", "hypothetical"),
    ("Figure 6: MultiWOZ dialogue MUL1110", "mul1110"),
    ("All three paper dialogues as one corpus", ALL_EXAMPLES),
]
if CONFIDENCES_FILE.is_file():  # in a clone and in the Space's folder; an installed package has no examples/
    EXAMPLE_CHOICES.append(("Confidence-scored predictions (examples/confidences.json)", CONFIDENCES))


def read_settings(
    mode: str, alpha: str | float | None, fga_lambda: float | None, num_slots: float | None, value_matching: str,
    compat: str | None = None,
) -> Options:  # fmt: skip
    """The library's `Options` from the option widgets (a bad value raises `OptionError`); `compat` "": none."""
    options = {"fga_lambda": fga_lambda, "num_slots": num_slots, "value_matching": value_matching}
    return Options(mode=mode, alpha=alpha, **options, compat=compat or None)


def whole_number(value: object, name: str) -> int:
    """An endpoint's count (`name`: resamples, seed) as `int` takes it; what it refuses is an OptionError in
    our words (int's own message is Python's, issue 56). Its bounds are checked where it is used."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise OptionError(f"{name} must be a whole number; got {value!r}") from None


def page_profiles() -> list[tuple[str, str]]:
    """(label, name) of the compatibility profiles that score a corpus alone (not ``sgd``: it reads schemas)."""
    return [
        (f"{name}: {profile.description}", name) for name, profile in PROFILES.items() if profile.cli_inputs is None
    ]


def format_label(name: str) -> str:
    """How the page names an input format (``jsonl``, ``jsonl (gzip)``): the reader's description, or 'auto-detect'."""
    if name == AUTO:
        return AUTO_LABEL
    reader, compressed = name.partition(" (")[::2]
    return READERS[reader].description + (f" ({compressed.rstrip(')')}-compressed)" if compressed else "")


@dataclass(frozen=True)
class SetInput:
    """One set as the page holds it: name, pasted text and uploaded file (path, name). Pasted text wins."""

    name: str = ""
    text: str = ""
    path: str | None = None
    filename: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.text or "").strip() and not self.path


@dataclass(frozen=True)
class PredictionSet:
    """One prediction set read: its name, corpus, the format it was read in and where it came from."""

    name: str
    corpus: Corpus
    layout: str
    source: str  # the uploaded file's name, or "pasted"


def name_from_file(filename: str) -> str:
    """A set's name from its file: the file name without its extension (and its compression's: ``run.jsonl.gz``)."""
    return compression.name_inside(Path(filename)).stem or filename


def input_bytes(entry: SetInput, where: str) -> bytes | Path:
    """An entry's data within the page's limits: pasted text as bytes, else the uploaded file's or folder's path."""
    if entry.text or not entry.path:  # pasted text (empty: the library says so)
        data = (entry.text or "").encode("utf-8")
        if len(data) > MAX_PASTE_BYTES:
            raise InputError(
                f"the pasted text has {len(data) / 1e6:.1f} MB, more than the {MAX_PASTE_BYTES / 1e6:g} MB a paste "
                f"may hold: upload it as a file instead (up to {MAX_UPLOAD_MB} MB)",
                source=where,
            )
        return data
    path = Path(entry.path)
    try:
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        size = sum(file.stat().st_size for file in files)
        if size > MAX_UPLOAD_BYTES:
            raise InputError(f"the upload has {size / 1e6:.1f} MB, more than {MAX_UPLOAD_MB} MB", source=where)
        return path
    except OSError as error:
        raise InputError(f"the uploaded file can no longer be read ({error.strerror}); upload it again") from None


DSTC2_TRACK_MESSAGE = (
    "this is a DSTC2 tracker output (a track file: sessions of turns with goal-labels, scored "
    "distributions), not dialogue states with their gold: score it with the command line, "
    "dst-metrics dstc2 --trackfile FILE --dataset NAME --dataroot DIR --ontology FILE "
    "(DSTC2's accuracy, L2, MRR and ROC; see docs/dstc2.md)"
)


def is_dstc2_track(data: bytes | Path) -> bool:
    """Whether `data` (text or a file) starts like a DSTC2 tracker output: "sessions" with "goal-labels"."""
    try:
        if isinstance(data, Path):
            if data.is_dir():
                return False
            head = read_file(data, None, 65536)  # decompressed where compressed
        else:
            head = compression.decompress(data, None)[0][:65536]
    except (OSError, InputError):
        return False
    head = head.lstrip()
    return head.startswith(b"{") and b'"sessions"' in head and b'"goal-labels' in head


def folder_of(paths: list[str], label: str) -> tuple[str, str]:
    """Several uploaded files as one folder beside them: (its path, its name such as 'set_b_files')."""
    name = f"set_{label.lower()}_files"
    folder = Path(paths[0]).parent.parent / f"{name}-{uuid.uuid4().hex[:12]}"
    folder.mkdir()
    for path in paths:
        (folder / Path(path).name).write_bytes(Path(path).read_bytes())
    return str(folder), name


def read_prediction_set(
    label: str, entry: SetInput, fmt: str = AUTO, value_matching: str = "exact", gold: SetInput | None = None
) -> PredictionSet:
    """Read one set; with `gold`, a format holding predictions only is paired with it by dialogue and turn.
    An InputError names the set and the format it was read as."""
    shown = (entry.name or "").strip() or (name_from_file(entry.filename) if entry.filename else label)
    where = f"Prediction set {label} {shown!r}"
    data = input_bytes(entry, where)
    if is_dstc2_track(data):  # no reader takes it; else it would be misread as a reference layout
        raise InputError(DSTC2_TRACK_MESSAGE, source=where)
    if fmt not in FORMATS:  # said here as an OptionError: only our errors' messages reach the visitor (issue 56)
        raise OptionError(f"format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    files = resolve(data, fmt, where)  # the format detected here, once
    formats = sorted({file.format for file in files})
    used = formats[0] if len(formats) == 1 else AUTO
    if used in READERS:
        where += f" (read as {READERS[used].description}" + (", auto-detected)" if fmt == AUTO else ")")
    one_sided = [READERS[f] for f in formats if READERS[f].read_side is not None]
    given_gold = gold is not None and not gold.empty
    paired = bool(one_sided) and (given_gold or any(reader.read is None for reader in one_sided))
    if paired and not given_gold:
        raise InputError(
            f"this is {one_sided[0].description}, which holds predictions only: add the gold file under "
            "'Gold' (SGD, MultiWOZ or ConvLab dialogues)",
            source=where,
        )
    gold_where = "Gold " + repr(gold.filename or "pasted") if paired else None
    gold_data = input_bytes(gold, gold_where) if paired else None
    reading = Reading(value_matching=value_matching)
    opened = resolve_input(InputSpec(data, used, gold_data, name=where, gold_name=gold_where, reading=reading))
    source = entry.filename if not entry.text and entry.filename else "pasted"
    return PredictionSet(shown, opened.corpus, opened.format.split(",")[0], source)


def check_comparable(first: PredictionSet, second: PredictionSet) -> None:
    """Two sets compare only on the same dialogues, turns and gold states; else InputError."""
    a = {d.dialogue_id: d for d in first.corpus.dialogues}
    b = {d.dialogue_id: d for d in second.corpus.dialogues}
    if a.keys() != b.keys():
        only_a, only_b = sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys())
        parts = [f"only in {s.name!r}: {short_list(ids)}" for s, ids in ((first, only_a), (second, only_b)) if ids]
        raise InputError(
            f"{first.name!r} and {second.name!r} do not cover the same dialogues (" + "; ".join(parts) + ")"
        )
    for dialogue_id, da in a.items():
        db = b[dialogue_id]
        if da.turn_ids != db.turn_ids:
            raise InputError(
                f"the prediction sets have different turns: {first.name!r} has "
                f"{short_list(da.turn_ids)}, {second.name!r} has {short_list(db.turn_ids)}",
                dialogue=dialogue_id,
            )
        for turn_id, gold_a, gold_b in zip(da.turn_ids, da.gold, db.gold, strict=True):
            if gold_a != gold_b:
                raise InputError(
                    f"the gold state differs between {first.name!r} and {second.name!r}; all sets must be "
                    "scored against the same reference",
                    dialogue=dialogue_id,
                    turn=turn_id,
                    field="gt",
                )


def short_list(items) -> str:
    """At most five items, then '…'."""
    items = list(items)
    shown = ", ".join(repr(i) if isinstance(i, str) else str(i) for i in items[:5])
    return f"[{shown}{', …' if len(items) > 5 else ''}]"


def read_prediction_sets(
    entries: list[SetInput],
    fmt: str = AUTO,
    value_matching: str = "exact",
    gold: SetInput | None = None,
    set_aside: list[str] | None = None,
) -> list[PredictionSet]:
    """Read up to four sets (A required, an empty later set left out); a later set that does not match A
    (`check_comparable`) is an error or, given `set_aside`, left out with the reason appended there. A
    repeated name gets its letter."""
    sets: list[PredictionSet] = []
    for label, entry in zip(SET_LABELS, entries):
        if label != SET_LABELS[0] and entry.empty:
            continue
        current = read_prediction_set(label, entry, fmt, value_matching, gold)
        if any(s.name == current.name for s in sets):
            current = PredictionSet(f"{current.name} ({label})", current.corpus, current.layout, current.source)
        if sets:
            try:
                check_comparable(sets[0], current)
            except InputError as error:
                if set_aside is None:
                    raise
                set_aside.append(f"Set {label} ({current.name!r}) is left out: {error}.")
                continue
        sets.append(current)
    return sets


def format_reference_layout(layout: dict) -> str:
    """Reference layout JSON with one turn per line (readable in a text box)."""
    lines = ["{"]
    for i, (dialogue_id, turns) in enumerate(layout.items()):
        lines.append(f"  {json.dumps(dialogue_id)}: {{")
        for j, (turn_id, turn) in enumerate(turns.items()):
            comma = "," if j < len(turns) - 1 else ""
            lines.append(f"    {json.dumps(str(turn_id))}: {json.dumps(turn, ensure_ascii=False)}{comma}")
        lines.append("  }" + ("," if i < len(layout) - 1 else ""))
    lines.append("}")
    return "\n".join(lines)


@dataclass(frozen=True)
class ExampleInput:
    """What a preloaded example puts in the sets: (name, text) per set, and a note."""

    sets: list[tuple[str, str]]
    description: str


def example_input(key: str) -> ExampleInput:
    """The sets of a preloaded example (`EXAMPLE_CHOICES`); the other sets are empty."""
    if key == ALL_EXAMPLES:
        layouts: list[dict] = [{}, {}]
        for example in EXAMPLES.values():
            names = list(example.predictions)
            for side in (0, 1):
                layouts[side].update(example.reference_layout(names[min(side, len(names) - 1)]))
        return ExampleInput(
            [("P1", format_reference_layout(layouts[0])), ("P2", format_reference_layout(layouts[1]))],
            "**All three paper dialogues as one corpus.** Set P1 holds P1 of Figure 1 and of section "
            "5.4 with the MUL1110 prediction; set P2 holds their P2 with the same MUL1110 "
            "prediction. Three dialogues are enough to show the per-dialogue analysis.",
        )
    if key == CONFIDENCES:
        return ExampleInput(
            [("scored", CONFIDENCES_FILE.read_text(encoding="utf-8"))],
            "**Predictions with confidences** (`examples/confidences.json`): predicted values carry a "
            "confidence or a list of scored values. The figures use each slot's top value; the calibration "
            "section shows DSTC2's figures over the distributions, ECE, Brier, AUROC and a reliability diagram.",
        )
    if key not in EXAMPLES:
        raise InputError(f"unknown example {key!r}")
    example = EXAMPLES[key]
    published = "; ".join(
        f"{name}: " + ", ".join(f"{metric.upper()} {value:.2f}" for metric, value in figures.items())
        for name, figures in example.published.items()
    )
    description = f"**{example.title}.** {example.description}"
    if published:
        description += f" *Published: {published}.*"
    sets = [(name, format_reference_layout(example.reference_layout(name))) for name in example.predictions]
    return ExampleInput(sets, description)


OWN_DATA = "own data"
"""The name of a set that left the example but still had its name ('own data', then 'own data B', ...)."""
OWN_DATA_NOTE = "**Your own data.** Pasted or uploaded sets are never put in the page's URL."


def _example_set(example: ExampleInput, index: int) -> tuple[str, str]:
    return example.sets[index] if index < len(example.sets) else ("", "")


def _holds(example: ExampleInput, index: int, entry: SetInput) -> bool:
    """Whether set `index` holds the text `example` puts there (not an upload)."""
    return entry.text == _example_set(example, index)[1] and not (not entry.text and entry.path)


def shows_example(key: str | None, entries: list[SetInput], fmt: str = AUTO, gold: SetInput | None = None) -> bool:
    """Whether the sets hold exactly the preloaded example `key` (no upload, no gold, auto-detected format):
    only then may the URL name the example."""
    if not example_key(key) or fmt != AUTO or (gold is not None and not gold.empty):
        return False
    example = example_input(key)
    return len(entries) >= len(example.sets) and all(_holds(example, i, entry) for i, entry in enumerate(entries))


def shows_example_set(key: str, index: int, entry: SetInput) -> bool:
    """Whether set `index` holds the text example `key` puts there."""
    return bool(example_key(key)) and _holds(example_input(key), index, entry)


def left_example_names(key: str | None, entries: list[SetInput]) -> dict[int, str]:
    """{index: new name (`OWN_DATA`)} of the sets that left example `key` but still carry its set name."""
    if not example_key(key):
        return {}
    example = example_input(key)
    renamed = {}
    for index, entry in enumerate(entries):
        name = _example_set(example, index)[0]
        if name and entry.name.strip() == name and not _holds(example, index, entry):
            renamed[index] = OWN_DATA if index == 0 else f"{OWN_DATA} {SET_LABELS[index]}"
    return renamed


def example_key(key: str | None) -> str | None:
    """`key` when it names a preloaded example, else None (a URL may hold anything)."""
    return key if key in {value for _, value in EXAMPLE_CHOICES} else None


def remove_session_file(value: dict | str | list | None) -> None:
    """Delete what a session kept on the server when gradio deletes its state: a file or folder, {"path"},
    (path, name), or a list of them."""
    for item in value if isinstance(value, list) else [value]:
        path = item.get("path") if isinstance(item, dict) else item[0] if isinstance(item, (list, tuple)) else item
        if not path:
            continue
        if Path(path).is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            Path(path).unlink(missing_ok=True)


def set_input(name: str | None, text: str | None, file: dict | None) -> SetInput:
    """A set from the page's widgets: name, text and uploaded file ({"path", "filename"} or None)."""
    return SetInput(name or "", text or "", file["path"] if file else None, file["filename"] if file else None)


def pasted_gold(text: str | None) -> SetInput | None:
    """An endpoint's gold text as a set, None when empty."""
    return SetInput("gold", text) if (text or "").strip() else None


def upload_paths(upload: str | list[str] | None) -> list[str]:
    """The paths of an upload button's files (one, several or none)."""
    return [upload] if isinstance(upload, str) else list(upload or [])


EMPTY_OPTIONS = {
    "lambda": "λ (FGA decay) is empty: type a number > 0, such as 0.5",
    "k": "K (slots, for SA) is empty: type a whole number ≥ 1, such as 30",
}


def empty_option(fga_lambda: float | None, num_slots: float | None) -> str | None:
    """What an emptied λ or K box should hold (the boxes give None), or None when both are set."""
    if fga_lambda is None:
        return EMPTY_OPTIONS["lambda"]
    return EMPTY_OPTIONS["k"] if num_slots is None else None


API_TERMS = (
    (re.compile(r"Prediction set A 'predictions'"), "parameter 'predictions'"),
    (re.compile(r"Prediction set ([A-D]) '\1'"), lambda m: f"parameter '{m[1].lower()}'"),
    (re.compile(r"Prediction set (\d+) '([^']*)'"), lambda m: f"predictions[{int(m[1]) - 1}] ({m[2]!r})"),
    (re.compile(r"Gold 'pasted'"), "parameter 'gold'"),
)
"""The page's names of the inputs as an API client's parameters."""


def api_message(message: str) -> str:
    """`message`, naming the page's sets, in the API's terms: the parameter holding the data."""
    for pattern, replacement in API_TERMS:
        message = pattern.sub(replacement, message)
    return message


def endpoint(api: Callable) -> Callable:
    """`api` as a Space endpoint: bad input or options (InputError, OptionError: our messages) reach the client
    as a `gradio.Error` in the API's terms (`api_message`), without a traceback. Any other exception is a bug,
    which gradio reports as one: a dependency's message is never passed off as ours (issue 56)."""

    @functools.wraps(api)
    def answer(*args, **kwargs):
        try:
            return api(*args, **kwargs)
        except (InputError, OptionError) as error:
            import gradio as gr

            raise gr.Error(api_message(str(error)), print_exception=False) from None

    return answer
