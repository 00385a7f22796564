"""The page's "Table of systems" section and its `/table` endpoint: layout and events only; the table is
`space.systems`' (``dst-metrics table``'s). The systems are the sets above or files uploaded here, one per
system or per run (a name typed twice makes runs of one system).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr

from dst_metrics.errors import counted
from dst_metrics.stats.table import DEFAULT_FIGURES

from . import views
from .inputs import (
    AUTO,
    SESSION_STATE_SECONDS,
    SET_LABELS,
    UPLOAD_TYPES,
    SetInput,
    remove_session_file,
    upload_paths,
    whole_number,
)
from .systems import (
    CORRECTIONS,
    EVERY_FIGURE,
    PAIRS_CHOICES,
    TableChoices,
    TableView,
    api_table,
    figure_choices,
    table_view,
    write_exports,
)

SOURCE_SETS = "sets"
SOURCE_FILES = "files"
INTRO = (
    "A paper's main table: each system a row, the chosen figures with 95% bootstrap intervals over dialogues, "
    "and significance marks from **one** correction over every test the table makes (the family size is "
    "stated under it), as `dst-metrics table` prints it. The systems are the sets above, or prediction files "
    "uploaded here (one file per system or per run: type the names, one per file, a name repeated for the runs of "
    "one system, whose row is then their mean; any formats, on one gold; the gold box above serves "
    "predictions-only formats). It uses the options above (mode, α, λ, K, value matching) but always "
    "dst-metrics' own definitions: a compatibility profile chosen above applies to the figures above only, "
    "as `dst-metrics table` has no `--compat`."
)
CSS = """
#systems-run-row { align-items: center; flex-wrap: wrap; }
#systems-run-row > #systems-status { flex: 1 1 260px !important; min-width: min(260px, 100%) !important; }
#systems-view .scroll { overflow-x: auto; max-width: 100%; }
#systems-view table { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; margin: 6px 0; }
#systems-view th, #systems-view td { border: 1px solid var(--border-color-primary); padding: 4px 8px;
  color: var(--body-text-color); vertical-align: top; }
#systems-view thead th { background: var(--background-fill-secondary); white-space: nowrap; }
#systems-view td { text-align: right; white-space: nowrap; }
#systems-view tbody th { text-align: left; overflow-wrap: normal; word-break: normal; }
#systems-view td .ci { display: block; font-size: 12px; color: var(--body-text-color); }
#systems-view td sup { font-weight: 700; }
#systems-view p.note, #systems-view p.warning { font-size: 14px; overflow-wrap: break-word; margin: 4px 0; }
#systems-view p.note { color: var(--body-text-color); }
#systems-view p.warning { color: #7A1000; font-weight: 600; }
"""
"""The section's own styles, added to the page's at launch."""


def _files_note(files: list[dict]) -> str:
    if not files:
        return ""
    chips = views.file_chips([f["filename"] for f in files])
    return f'<span class="note-ok">{counted(len(files), "file")} uploaded:</span> {chips}'


def _primary_choices(figures: list[str]) -> list[tuple[str, str]]:
    labels = dict((key, label) for label, key in figure_choices())
    return [("none: every figure tested", EVERY_FIGURE), *((labels.get(key, key), key) for key in figures)]


def drawn(html: str) -> str:
    """`report.systems.html_table`'s HTML with the page's scroll cue on its tables."""
    return html.replace('<div class="scroll">', '<div class="scroll table-wrap">')


FIRST_SYSTEM = ("the first system", "")
"""The Baseline list before a table names its systems."""


class SystemsSection:
    """The widgets of the section and their handlers; `page` is the `Page` whose sets and options it reads."""

    def __init__(self, page) -> None:
        self.page = page

    def layout(self) -> None:
        """Where the systems come from, the table's choices, the table and its downloads."""
        with gr.Column(elem_id="systems-col", visible=False) as self.column:
            gr.Markdown("## Table of systems: every system a row, for a paper")
            gr.Markdown(INTRO, elem_id="systems-intro")
            with gr.Row(equal_height=False, elem_id="systems-source-row"):
                self.source = gr.Radio(
                    [("the sets above (A–D)", SOURCE_SETS), ("files uploaded here", SOURCE_FILES)],
                    value=SOURCE_SETS, label="Systems", min_width=260, elem_id="systems-source",
                )  # fmt: skip
                with gr.Column(min_width=260):
                    with gr.Row(elem_classes=["set-buttons"]):
                        self.upload = gr.UploadButton(
                            "Upload systems (one file each)", file_types=UPLOAD_TYPES, file_count="multiple",
                            size="sm", elem_id="upload-systems",
                        )  # fmt: skip
                        self.clear = gr.Button("Remove uploaded systems", size="sm", elem_id="empty-systems")
                    self.files_note = gr.HTML(elem_id="note-systems")
                    self.names = gr.Textbox(
                        label="Names of the uploaded files, one per line in order (a name repeated: runs of one "
                        "system; empty: the file names)",
                        lines=2, elem_id="systems-names",
                    )  # fmt: skip
            self.choices_section()
            with gr.Row(elem_id="systems-run-row"):
                self.make = gr.Button("Make the table", variant="primary", scale=0, min_width=200, elem_id="make-table")
                self.status = gr.HTML(elem_id="systems-status", min_width=260)
            self.view = gr.HTML(elem_id="systems-view")
            self.command = gr.Code(  # shown with the table: no empty box before
                language="shell", interactive=False, label="dst-metrics command", visible=False, lines=1,
                elem_id="systems-command",
            )  # fmt: skip
            self.downloads = gr.File(
                label="The table as dst-metrics table writes it (Markdown, LaTeX, JSON, HTML) and as CSV "
                "(fractions of 1, unrounded)",
                file_count="multiple", interactive=False, visible=False, elem_id="systems-downloads",
            )  # fmt: skip
        self.files = gr.State([], time_to_live=SESSION_STATE_SECONDS, delete_callback=remove_session_file)
        self.folder = gr.State(None, time_to_live=SESSION_STATE_SECONDS, delete_callback=remove_session_file)
        self.shown = gr.State(False, time_to_live=SESSION_STATE_SECONDS)

    def choices_section(self) -> None:
        with gr.Row(equal_height=False, elem_id="systems-choices-row"):
            self.figures = gr.CheckboxGroup(
                figure_choices(), value=list(DEFAULT_FIGURES), label="Figures (the columns)", scale=3,
                min_width=260, elem_id="systems-figures",
            )  # fmt: skip
            with gr.Column(scale=2, min_width=260):
                self.pairs = gr.Radio(PAIRS_CHOICES, value="baseline", label="Tests", elem_id="systems-pairs")
                self.baseline = gr.Dropdown(
                    [FIRST_SYSTEM], value=FIRST_SYSTEM[1], label="Baseline (the first system unless chosen)",
                    elem_id="systems-baseline",
                )  # fmt: skip
                self.primary = gr.Dropdown(
                    _primary_choices(list(DEFAULT_FIGURES)), value=EVERY_FIGURE, elem_id="systems-primary",
                    label="Primary figure (tested alone, as a paper declares one)",
                )  # fmt: skip
                self.correction = gr.Radio(
                    list(CORRECTIONS), value="holm", label="Correction over the whole table",
                    elem_id="systems-correction",
                )  # fmt: skip

    # ---- handlers ------------------------------------------------------------------------

    @property
    def inputs(self) -> list:
        page = self.page
        options = [page.mode, page.alpha, page.lam, page.k, page.matching]
        choices = [self.figures, self.pairs, self.baseline, self.primary, self.correction]
        return [*page.data_inputs, *options, self.source, self.files, self.names, *choices, self.folder]

    @property
    def outputs(self) -> list:
        return [self.status, self.view, self.baseline, self.primary, self.command, self.downloads, self.folder,
                self.shown]  # fmt: skip

    def make_table(self, *values) -> tuple:
        """Read the systems, build and draw the table, write its downloads."""
        fmt, entries, gold, rest = self.page.read_data(values)
        settings = tuple(rest[:5])  # mode, α, λ, K, value matching
        source, files, names, figures, pairs, baseline, primary, correction, folder = rest[5:]
        figures = [key for _, key in figure_choices() if key in (figures or [])]  # in the registry's order
        primary = primary if primary in figures else EVERY_FIGURE
        primary_update = gr.update(choices=_primary_choices(figures), value=primary)
        labels = list(SET_LABELS)
        if source == SOURCE_FILES:  # the uploaded files, numbered, named as typed
            typed = [line.strip() for line in (names or "").splitlines()]
            typed += [""] * (len(files or []) - len(typed))
            entries = [SetInput(name, "", f["path"], f["filename"]) for f, name in zip(files or [], typed)]
            labels = [str(number) for number in range(1, len(entries) + 1)]
        choices = TableChoices(tuple(figures), pairs, baseline or None, primary or None, correction)
        try:
            view = table_view(entries, choices, fmt=fmt, gold=gold, settings=settings,
                              labels=labels, runs=source == SOURCE_FILES)  # fmt: skip
        except Exception as error:  # a bug, not bad input: said in the page
            view = TableView(False, views.internal_error(error))
        if not view.ok:  # said where the table was; the table and its downloads go (never a stale table)
            error = views.status_html(view.status, False, "systems")
            hidden = gr.update(value=None, visible=False)
            return error, "", gr.update(), primary_update, hidden, hidden, folder, False
        folder = folder or tempfile.mkdtemp(prefix="gca-explorer-table-")
        baseline_update = gr.update(
            choices=list(view.table.names), value=view.table.baseline, interactive=view.table.baseline is not None
        )
        return (
            views.status_html(view.status, True, "systems"),
            drawn(view.html) + views.signature_line(view.table.signature, "systems-signature"),
            baseline_update, primary_update,
            gr.update(value=view.command, visible=True),
            gr.update(value=write_exports(view.table, folder), visible=True), folder, True,
        )  # fmt: skip

    def refresh(self, shown: bool, source: str, *values) -> tuple:
        """After the sets above were scored again: redraw a table made of them, else change nothing."""
        if not shown or source != SOURCE_SETS:
            return tuple(gr.skip() for _ in self.outputs)
        return self.make_table(*values)

    def uploaded(self, upload: str | list[str] | None, files: list[dict]) -> tuple:
        """Uploaded systems are added to those already uploaded; the table takes them."""
        files = [*(files or []), *({"path": p, "filename": Path(p).name} for p in upload_paths(upload))]
        return files, _files_note(files), SOURCE_FILES

    def wire(self) -> None:
        """Every choice redraws the table at once; a later choice supersedes an earlier one still computing."""
        options = {"trigger_mode": "always_last", "concurrency_limit": 1, "concurrency_id": "systems-table"}
        choices = (self.source, self.figures, self.pairs, self.baseline, self.primary, self.correction)
        triggers = [self.make.click, *(choice.input for choice in choices), self.names.blur, self.names.submit]
        gr.on(triggers, self.make_table, self.inputs, self.outputs, **options)
        added = self.upload.upload(self.uploaded, [self.upload, self.files], [self.files, self.files_note, self.source])
        added.then(self.make_table, self.inputs, self.outputs, **options)
        emptied = self.clear.click(lambda: ([], "", SOURCE_SETS), None, [self.files, self.files_note, self.source])
        self.after_scoring(emptied)

    def after_scoring(self, event) -> None:
        """Redraw the table after `event` (the page's sets scored, or the uploads removed)."""
        event.then(self.refresh, [self.shown, self.source, *self.inputs], self.outputs)


def table_endpoint(
    predictions: list[str], names: list[str] | None = None, gold: str = "", fmt: str = AUTO, mode: str = "official",
    alpha: str = "10/11", fga_lambda: float = 0.5, num_slots: float = 30, value_matching: str = "exact",
    figures: str = ",".join(DEFAULT_FIGURES), baseline: str = "", pairs: str = "baseline", primary: str = "",
    correction: str = "holm", resamples: int = 1000, seed: int = 0,
) -> dict:  # fmt: skip
    """The table of N systems (prediction sets as texts, any formats, on one gold; `names` one per set):
    `dst-metrics table --json`'s output. `figures`: comma-separated keys; `pairs`: baseline or all;
    `primary`: one figure tested alone; `correction`: holm or bonferroni, over every test of the table."""
    keys = tuple(key.strip() for key in (figures or "").split(",") if key.strip())
    counts = whole_number(resamples, "resamples"), whole_number(seed, "seed")
    choices = TableChoices(keys, pairs, baseline or None, primary or None, correction, *counts)
    settings = (mode, alpha, fga_lambda, num_slots, value_matching)
    return api_table(list(predictions or []), names, gold, fmt, settings, choices)


__all__ = ["CSS", "SystemsSection", "table_endpoint"]
