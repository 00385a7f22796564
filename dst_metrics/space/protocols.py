"""The page's robustness protocols, CheckDST (two of the sets: original and perturbed predictions) and SGD-X
(SGD files on the original schema and its variants): the figures as the command's ``--json`` gives them, their
HTML table, the command and a JSON download. No gradio here.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dst_metrics import InputError, Options
from dst_metrics.options import OptionError
from dst_metrics.protocols import checkdst, sgdx
from dst_metrics.report.draw import data_attributes, esc, esc_name, num, pct, table

from .exports import PASTED_FILE, shell_line
from .inputs import AUTO, SET_LABELS, SetInput, pasted_gold, read_prediction_set
from .views import signature_line

SGD_MATCHINGS: tuple[tuple[str, str], ...] = (("fuzzy (the SGD evaluator's)", "fuzzy"), ("exact", "exact"))
SGD_FILE_PATTERN = re.compile(r"dialogues_.*\.json")
EXPORT_FILES = {"checkdst": "checkdst.json", "sgdx": "sgdx.json"}


@dataclass
class ProtocolView:
    """A protocol's result as the page shows it, or the problem in `status` (ok False)."""

    ok: bool
    status: str
    figures: dict = field(default_factory=dict)
    html: str = ""
    command: str = ""


def set_choices(names: Sequence[str]) -> list[tuple[str, str]]:
    """(label, set letter) of the sets A–D, with their names."""
    return [(f"{label}: {name}" if name else label, label) for label, name in zip(SET_LABELS, names)]


def checkdst_figures_of(
    original: SetInput, perturbed: SetInput, options: Options, fmt: str = AUTO, gold: SetInput | None = None,
    labels: tuple[str, str] = ("original", "perturbed"),
) -> dict:  # fmt: skip
    """``dst-metrics checkdst --json``'s object of two sets."""
    sides = []
    for label, entry in zip(labels, (original, perturbed)):
        if entry.empty:
            raise InputError(f"set {label} is empty: choose a set that holds predictions")
        sides.append(read_prediction_set(label, entry, fmt, options.value_matching, gold))
    first, second = sides
    where = f"perturbed set {labels[1]} {second.name!r} against original set {labels[0]} {first.name!r}"
    return checkdst.checkdst_json(first.corpus, second.corpus, options, (first.name, second.name), where)


def checkdst_html(found: dict) -> str:
    """The CheckDST table: each figure in percent and what it counts, the pairs and the signature."""
    rows = [
        f'<tr><th title="{esc(entry.description)}">{esc(entry.label)}</th>'
        f"{_cell(entry.key, found[entry.key], pct(found[entry.key]))}<td>{esc(entry.description)}</td></tr>"
        for entry in checkdst.FIGURES
    ]
    head = "<th>Figure</th><th>%</th><th>What it counts</th>"
    pairs = found[f"{checkdst.FAMILY}.pairs"]
    caption = (
        f'<p class="protocol-caption">{esc_name(found["perturbed"])} against {esc_name(found["original"])}: '
        f'<span id="checkdst-pairs" data-value="{pairs}">{pairs}</span> pair{"s" * (pairs != 1)} '
        "(turns matched by dialogue and turn id)</p>"
    )
    note = '<p class="note">— : undefined (no pair, or none right / wrong originally).</p>'
    return (
        caption
        + table(head, rows, ' class="data-table protocol-table" id="checkdst-table"')
        + note
        + signature_line(found["signature"], "checkdst-signature")
    )


def checkdst_view(
    entries: list[SetInput], original: str, perturbed: str, *, fmt: str = AUTO, gold: SetInput | None = None,
    settings: tuple = ("official", "exact"),
) -> ProtocolView:  # fmt: skip
    """CheckDST of set `original` against set `perturbed` (letters A–D); bad input gives ok=False and the
    problem in `status`. `settings`: mode and value matching."""
    try:
        letters = {label: index for index, label in enumerate(SET_LABELS[: len(entries)])}
        if original not in letters or perturbed not in letters:
            raise OptionError("choose the original set and the perturbed set among the sets A–D")
        if original == perturbed:
            raise OptionError(f"the original and the perturbed predictions are the same set ({original})")
        options = Options(mode=settings[0], value_matching=settings[1])
        pair = entries[letters[original]], entries[letters[perturbed]]
        found = checkdst_figures_of(*pair, options, fmt, gold, (original, perturbed))  # an empty gold: none
    except (InputError, OptionError) as error:  # our messages; anything else is a bug (issue 56)
        return ProtocolView(False, str(error))
    status = f"CheckDST of set {perturbed} against set {original}: {found['checkdst.pairs']} pairs."
    # the command that prints these figures: an uploaded set by its file's name, a pasted one as set_<letter>.json
    files = [
        e.filename if e.filename and not e.text else PASTED_FILE.format(label=label.lower())
        for e, label in zip(pair, (original, perturbed))
    ]
    words = ["dst-metrics", "checkdst", *files, *(["--format", fmt] if fmt != AUTO else [])]
    words += ["--gold", gold.filename or "gold.json"] if gold and not gold.empty else []
    words += ["--mode", options.mode, "--value-matching", options.value_matching, "--json"]
    return ProtocolView(True, status, found, checkdst_html(found), shell_line(words))


def api_checkdst(
    original: str, perturbed: str, gold: str = "", fmt: str = AUTO, mode: str = "official",
    value_matching: str = "exact",
) -> dict:  # fmt: skip
    """CheckDST of two prediction sets as texts (any format; `gold` for predictions-only formats): every turn of
    `perturbed` paired with the same turn of `original`. `dst-metrics checkdst --json`'s object."""
    options = Options(mode=mode, value_matching=value_matching)
    sides = SetInput("original", original), SetInput("perturbed", perturbed)
    return checkdst_figures_of(*sides, options, fmt, pasted_gold(gold))


@dataclass(frozen=True)
class SgdxFiles:
    """The uploads of SGD-X, each a list of (server path, file name); one file per variant."""

    original: list[tuple[str, str]] = field(default_factory=list)
    variants: list[tuple[str, str]] = field(default_factory=list)
    gold: list[tuple[str, str]] = field(default_factory=list)
    schema: list[tuple[str, str]] = field(default_factory=list)
    train_schema: list[tuple[str, str]] = field(default_factory=list)


def one_path(files: list[tuple[str, str]], what: str, folder: Path, name: str) -> tuple[str, str]:
    """(path, name in the command) of uploaded SGD files: one file as it is, several as a folder `name` in
    `folder` (as dialogues_*.json, which the SGD reader reads)."""
    if not files:
        raise InputError(f"SGD-X needs {what}: upload it")
    if len(files) == 1:
        return files[0]
    target = folder / name
    target.mkdir(parents=True, exist_ok=True)
    for number, (path, name) in enumerate(files, start=1):
        kept = name if SGD_FILE_PATTERN.fullmatch(name) else f"dialogues_{number:03d}_{Path(name).stem}.json"
        shutil.copyfile(path, target / kept)
    return str(target), f"{target.name}/"


def _schema(files: list[tuple[str, str]], what: str) -> tuple[str, str] | None:
    if len(files) > 1:
        raise InputError(f"the {what} is one file (schema.json); {len(files)} given")
    return files[0] if files else None


def sgdx_figures_of(files: SgdxFiles, fuzzy: bool = True, scratch: Path | None = None) -> tuple[dict, list[str]]:
    """``dst-metrics sgdx --json``'s object of the uploads and the command's file arguments; several files of
    one side are joined in a folder under `scratch`."""
    if len(files.variants) < 2:
        raise InputError(
            f"schema sensitivity needs at least 2 schema variants (one prediction file each); "
            f"{len(files.variants)} uploaded"
        )
    schema = _schema(files.schema, "test schema")
    if schema is None:
        raise InputError("SGD-X needs the test schema (schema.json): upload it")
    train = _schema(files.train_schema, "train schema")
    with tempfile.TemporaryDirectory(dir=scratch) as folder:
        original = one_path(files.original, "the original schema's predictions", Path(folder), "original")
        gold = one_path(files.gold, "the gold dialogues", Path(folder), "gold")
        try:
            found = sgdx.sgdx_figures(
                original[0], [path for path, _ in files.variants], gold[0], schema[0], train[0] if train else None,
                fuzzy=fuzzy,
            )  # fmt: skip
        except InputError as error:  # named by the files' names, not their places on the server
            named = [original, gold, schema, *files.variants, *([train] if train else [])]
            raise InputError(_renamed(str(error), named)) from None
    names = [original[1], *(name for _, name in files.variants)]
    signature = sgdx.signature(len(files.variants), fuzzy)
    words = [*names, "--gold", gold[1], "--schema", schema[1]] + (["--train-schema", train[1]] if train else [])
    return {"original": names[0], "variants": names[1:], **found, "signature": signature}, words


def _renamed(message: str, files: list[tuple[str, str]]) -> str:
    for path, name in sorted(files, key=lambda file: -len(file[0])):
        message = message.replace(path.rstrip("/") + "/" if name.endswith("/") else path, name)
    return message


def _cell(key: str, value: object, shown: str) -> str:
    """A figure's cell: `shown`, with its key and its value as JSON (``data-key``, ``data-value``)."""
    return f'<td class="num"{data_attributes({"key": key, "value": json.dumps(value)})}>{shown}</td>'


def _sgdx_cell(entry: sgdx.SgdxFigure, found: dict) -> str:
    value = found[entry.key]
    return _cell(entry.key, value, pct(value, "-") if entry.percent else num(value, 4, "-"))


def sgdx_html(found: dict) -> str:
    """The SGD-X table as ``dst-metrics sgdx`` prints it: a row per split, JGA and AGA in percent, SS a fraction."""
    variants = len(found["variants"])
    header, splits = sgdx.table(variants)
    head = "".join(f"<th>{esc(name)}</th>" for name in header)
    rows = []
    for split, entries in splits:
        frames = f"sgdx.{split}.frames"
        cells = [_cell(frames, found[frames], str(found[frames])), *(_sgdx_cell(entry, found) for entry in entries)]
        rows.append(f'<tr data-split="{split}"><th>{split}</th>{"".join(cells)}</tr>')
    split = found["sgdx.seen.frames"] or found["sgdx.unseen.frames"]
    caption = (
        f'<p class="protocol-caption">{esc_name(found["original"])} and {variants} schema variant'
        f"{'s' * (variants != 1)}: JGA, AGA in percent; SS as a fraction (lower: less sensitive); - no frame"
        + ("" if split else " (seen / unseen services need the train schema)")
        + "</p>"
    )
    return (
        caption
        + table(head, rows, ' class="data-table protocol-table" id="sgdx-table"')
        + signature_line(found["signature"], "sgdx-signature")
    )


def sgdx_view(files: SgdxFiles, value_matching: str = "fuzzy", scratch: Path | None = None) -> ProtocolView:
    """SGD-X of the uploads; a missing file or bad input gives ok=False and the problem in `status`."""
    fuzzy = value_matching != "exact"
    try:
        found, words = sgdx_figures_of(files, fuzzy, scratch)
    except (InputError, OptionError) as error:  # our messages; anything else is a bug (issue 56)
        return ProtocolView(False, str(error))
    status = f"SGD-X of {len(found['variants'])} schema variants: {found['sgdx.all.frames']} frames."
    flags = [] if fuzzy else ["--value-matching", "exact"]
    command = shell_line(["dst-metrics", "sgdx", *words, *flags, "--json"])
    return ProtocolView(True, status, found, sgdx_html(found), command)


def api_sgdx(
    original: str, variants: list[str], gold: str, schema: str, train_schema: str = "", value_matching: str = "fuzzy"
) -> dict:
    """SGD-X of SGD dialogue files as texts: the predictions on the original schema, on each variant (at least
    2), the gold dialogues, schema.json and optionally the train schema. `dst-metrics sgdx --json`'s object."""
    with tempfile.TemporaryDirectory(prefix="gca-explorer-sgdx-") as folder:

        def saved(name: str, text: str) -> list[tuple[str, str]]:
            if not (text or "").strip():
                return []
            path = Path(folder) / name
            path.write_text(text, encoding="utf-8")
            return [(str(path), name)]

        named = [saved(f"v{number}.json", text) for number, text in enumerate(variants or [], start=1)]
        files = SgdxFiles(
            saved("original.json", original), [file for files in named for file in files], saved("gold.json", gold),
            saved("schema.json", schema), saved("train_schema.json", train_schema),
        )  # fmt: skip
        return sgdx_figures_of(files, value_matching != "exact", Path(folder))[0]


def write_export(found: dict, protocol: str, folder: str | Path) -> str:
    """Write one protocol's figures into `folder` as the command's ``--json`` prints them; the path."""
    path = Path(folder) / EXPORT_FILES[protocol]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(found, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return str(path)
