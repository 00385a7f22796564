"""The page's "Robustness" section: layout and events only, the figures from `space.protocols`. CheckDST
pairs two of the sets above (original and perturbed dialogues); SGD-X takes SGD files uploaded here.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import gradio as gr

from . import views
from .inputs import SESSION_STATE_SECONDS, SET_LABELS, remove_session_file, upload_paths
from .protocols import (
    EXPORT_FILES,
    SGD_MATCHINGS,
    ProtocolView,
    SgdxFiles,
    checkdst_view,
    set_choices,
    sgdx_view,
    write_export,
)

INTRO = (
    "Two robustness protocols, as their papers compute them and as `dst-metrics checkdst` / `dst-metrics sgdx` "
    "print them. **CheckDST** (Cho et al., 2022): the same tracker on the original dialogues and on perturbed "
    "copies of them, turn by turn: conditional JGA (cJGA) and how often a turn flips between right and wrong. "
    "**SGD-X** (Lee et al., AAAI 2022): the same tracker on the SGD test set under the original schema and "
    "under rewritten schemas v1–v5: JGA and AGA averaged over the variants and the schema sensitivity SS "
    "(per frame, the coefficient of variation across the variants)."
)
CHECKDST_NOTE = (
    "Put the original predictions in one set above and the predictions on the perturbed dialogues in another "
    "(paste or upload; the gold box above serves predictions-only formats). Every turn of the perturbed set is "
    "paired with the same dialogue and turn of the original; mode and value matching are the page's options."
)
SGDX_NOTE = (
    "SGD dialogue files (or the files of one folder, selected together): the predictions on the original "
    "schema, the predictions on each schema variant (**one file per variant**, at least 2; uploads add "
    "variants), the gold test dialogues, the test `schema.json` and, for the seen / unseen split, the train "
    "schema."
)
ROLES = {
    "original": "Original schema's predictions",
    "variants": "Variants' predictions",
    "gold": "Gold dialogues",
    "schema": "Test schema.json",
    "train_schema": "Train schema (optional)",
}
CSS = """
.protocol-run-row { align-items: center; flex-wrap: wrap; }
.protocol-run-row > .protocol-status { flex: 1 1 260px !important; min-width: min(260px, 100%) !important; }
.protocol-view .protocol-table th, .protocol-view .protocol-table td { vertical-align: top; }
.protocol-view .protocol-table thead th { white-space: nowrap; }
.protocol-view .protocol-table tbody th { white-space: nowrap; }
#checkdst-view .protocol-table td:last-child { white-space: normal; min-width: 8em; }
@media (max-width: 640px) {
  #checkdst-view .protocol-table td:last-child { min-width: 0; }
  #checkdst-view .protocol-table thead th:last-child { white-space: normal; }
}
.protocol-caption { font-size: 14px; margin: 4px 0; overflow-wrap: break-word; color: var(--body-text-color); }
#sgdx-files-note { gap: 2px; }
#sgdx-files-note p.sgdx-role { margin: 0; font-size: 14px; overflow-wrap: anywhere; }
"""
FORGET_CHOSEN_FILES_JS = (
    "() => { document.querySelectorAll('#sgdx-uploads input[type=file]').forEach((i) => { i.value = ''; }); }"
)
"""Lets the same files be chosen again after they are removed (a file input fires no change otherwise)."""


def role_note(role: str, files: list) -> str:
    """What is uploaded for one SGD-X role (chips of the files' names, — when none)."""
    chips = views.file_chips([name for _, name in files]) or "—"
    count = f" ({len(files)})" if role == "variants" and files else ""
    return f'<p class="sgdx-role"><b>{views.esc(ROLES[role])}{count}:</b> {chips}</p>'


def downloads(folder: str | None) -> dict:
    """The downloads box: the section's JSON files written so far; hidden when none."""
    found = [str(Path(folder) / name) for name in EXPORT_FILES.values() if folder and (Path(folder) / name).is_file()]
    return gr.update(value=found or None, visible=bool(found))


def shown_command(command: str) -> dict:
    """A command box, hidden when there is no command."""
    return gr.update(value=command, visible=bool(command))


def shown(protocol: str, compute: Callable[[str], ProtocolView], folder: str | None) -> tuple:
    """`compute(folder)`'s view, its JSON written (or an older one removed): the status, the table, the command
    box, the downloads box and the session's folder. A bug is said in the page."""
    folder = folder or tempfile.mkdtemp(prefix="gca-explorer-protocols-")
    try:
        view = compute(folder)
    except Exception as error:  # a bug, not bad input: said in the page
        view = ProtocolView(False, views.internal_error(error))
    if view.ok:
        write_export(view.figures, protocol, folder)
    else:
        (Path(folder) / EXPORT_FILES[protocol]).unlink(missing_ok=True)
    html = views.status_html(view.status, view.ok, protocol)
    return html, view.html, shown_command(view.command), downloads(folder), folder


class ProtocolsSection:
    """The widgets of the section and their handlers; `page` is the `Page` whose sets and options it reads."""

    def __init__(self, page) -> None:
        self.page = page
        self.uploads: dict[str, gr.UploadButton] = {}

    def layout(self) -> None:
        """CheckDST of two sets, SGD-X of uploaded files, and the JSON downloads."""
        with gr.Column(elem_id="protocols-col", visible=False) as self.column:
            gr.Markdown("## Robustness: perturbed dialogues (CheckDST) and schema variants (SGD-X)")
            gr.Markdown(INTRO, elem_id="protocols-intro")
            self.checkdst_layout()
            self.sgdx_layout()
            self.files = gr.File(
                label="The figures as dst-metrics checkdst --json / sgdx --json print them (fractions of 1)",
                file_count="multiple", interactive=False, visible=False, elem_id="protocols-downloads",
            )  # fmt: skip
        self.folder = gr.State(None, time_to_live=SESSION_STATE_SECONDS, delete_callback=remove_session_file)
        # a state per role: uploads of different roles in quick succession never overwrite each other
        state = {"time_to_live": SESSION_STATE_SECONDS, "delete_callback": remove_session_file}
        self.role_files = {role: gr.State([], **state) for role in ROLES}
        self.shown = gr.State(False, time_to_live=SESSION_STATE_SECONDS)

    def checkdst_layout(self) -> None:
        gr.Markdown("### CheckDST: the same dialogues, perturbed")
        gr.Markdown(CHECKDST_NOTE, elem_id="checkdst-note")
        with gr.Row(equal_height=False, elem_id="checkdst-choices-row"):
            choices = set_choices([""] * len(SET_LABELS))
            self.original = gr.Dropdown(
                choices, value=SET_LABELS[0], label="Original predictions: set", min_width=200,
                elem_id="checkdst-original",
            )  # fmt: skip
            self.perturbed = gr.Dropdown(
                choices, value=SET_LABELS[1], label="Perturbed predictions: set", min_width=200,
                elem_id="checkdst-perturbed",
            )  # fmt: skip
        with gr.Row(elem_classes=["protocol-run-row"]):
            self.run_checkdst = gr.Button("Compute CheckDST", variant="primary", scale=0, min_width=200,
                                          elem_id="run-checkdst")  # fmt: skip
            self.checkdst_status = gr.HTML(elem_id="checkdst-status", min_width=260, elem_classes=["protocol-status"])
        self.checkdst_view = gr.HTML(elem_id="checkdst-view", elem_classes=["protocol-view"])
        self.checkdst_command = gr.Code(
            language="shell", interactive=False, label="dst-metrics command", visible=False, lines=1,
            elem_id="checkdst-command",
        )  # fmt: skip

    def sgdx_layout(self) -> None:
        gr.Markdown("### SGD-X: the same dialogues, under schema variants")
        gr.Markdown(SGDX_NOTE, elem_id="sgdx-note")
        with gr.Row(elem_classes=["set-buttons"], elem_id="sgdx-uploads"):
            for role, words in ROLES.items():
                single = role in ("schema", "train_schema")
                self.uploads[role] = gr.UploadButton(
                    words, file_types=[".json"], file_count="single" if single else "multiple", size="sm",
                    elem_id=f"upload-sgdx-{role.replace('_', '-')}",
                )  # fmt: skip
            self.clear = gr.Button("Remove the SGD-X files", size="sm", elem_id="empty-sgdx")
        with gr.Column(elem_id="sgdx-files-note"):
            self.role_notes = {
                role: gr.HTML(role_note(role, []), elem_id=f"note-sgdx-{role.replace('_', '-')}") for role in ROLES
            }  # fmt: skip
        with gr.Row(elem_classes=["protocol-run-row"]):
            self.sgd_matching = gr.Radio(
                list(SGD_MATCHINGS), value="fuzzy", label="Value matching (non-categorical slots)",
                min_width=260, elem_id="sgdx-matching",
            )  # fmt: skip
            self.run_sgdx = gr.Button("Compute SGD-X", variant="primary", scale=0, min_width=200, elem_id="run-sgdx")
            self.sgdx_status = gr.HTML(elem_id="sgdx-status", min_width=260, elem_classes=["protocol-status"])
        self.sgdx_view = gr.HTML(elem_id="sgdx-view", elem_classes=["protocol-view"])
        self.sgdx_command = gr.Code(language="shell", interactive=False, label="dst-metrics command",
                                    visible=False, lines=1, elem_id="sgdx-command")  # fmt: skip

    # ---- handlers ------------------------------------------------------------------------

    @property
    def checkdst_inputs(self) -> list:
        page = self.page
        return [*page.data_inputs, page.mode, page.matching, self.original, self.perturbed, self.folder]

    @property
    def checkdst_outputs(self) -> list:
        return [self.checkdst_status, self.checkdst_view, self.checkdst_command, self.original, self.perturbed,
                self.files, self.folder, self.shown]  # fmt: skip

    def compute_checkdst(self, *values) -> tuple:
        """CheckDST of the chosen sets: the table, the command and the JSON download (or the problem)."""
        fmt, entries, gold, (mode, matching, original, perturbed, folder) = self.page.read_data(values)
        names = [entry.name or (Path(entry.filename).stem if entry.filename else "") for entry in entries]
        choices = set_choices(names)

        def compute(_: str) -> ProtocolView:
            return checkdst_view(entries, original, perturbed, fmt=fmt, gold=gold, settings=(mode, matching))

        html, table, command, files, folder = shown("checkdst", compute, folder)
        updates = gr.update(choices=choices, value=original), gr.update(choices=choices, value=perturbed)
        return html, table, command, *updates, files, folder, True

    def compute_sgdx(self, *values) -> tuple:
        """SGD-X of the uploaded files (each role's, then the matching and the folder): the table, the command and
        the JSON download (or the problem)."""
        uploads, (matching, folder) = values[: len(ROLES)], values[len(ROLES) :]
        files = SgdxFiles(*(list(files or []) for files in uploads))
        return shown("sgdx", lambda scratch: sgdx_view(files, matching, Path(scratch)), folder)

    def when_complete(self, *values) -> tuple:
        """After an upload: SGD-X as soon as every file it needs is there (else nothing changes)."""
        uploads = dict(zip(ROLES, values))
        if all(uploads[role] for role in ("original", "gold", "schema")) and len(uploads["variants"] or []) >= 2:
            return self.compute_sgdx(*values)
        return tuple(gr.skip() for _ in range(5))

    @staticmethod
    def uploaded(role: str):
        """An upload's handler: variants are added to those uploaded, any other role's files replaced."""

        def handler(upload: str | list[str] | None, files: list) -> tuple:
            added = [(path, Path(path).name) for path in upload_paths(upload)]
            files = [*(files or []), *added] if role == "variants" else added
            return files, role_note(role, files)

        return handler

    @staticmethod
    def cleared(folder: str | None) -> tuple:
        """The SGD-X files removed: its table, command and download go with them."""
        if folder:
            (Path(folder) / EXPORT_FILES["sgdx"]).unlink(missing_ok=True)
        emptied = [[] for _ in ROLES] + [role_note(role, []) for role in ROLES]
        return *emptied, "", "", shown_command(""), downloads(folder)

    def refresh(self, shown: bool, *values) -> tuple:
        """After the sets above were scored again: CheckDST again if it was shown, else change nothing."""
        if not shown:
            return tuple(gr.skip() for _ in self.checkdst_outputs)
        return self.compute_checkdst(*values)

    def wire(self) -> None:
        """A choice or a click computes at once; an upload computes SGD-X once every file it needs is there."""
        options = {"trigger_mode": "always_last", "concurrency_limit": 1}
        triggers = [self.run_checkdst.click, self.original.input, self.perturbed.input]
        gr.on(triggers, self.compute_checkdst, self.checkdst_inputs, self.checkdst_outputs,
              concurrency_id="checkdst", **options)  # fmt: skip
        sgdx_outputs = [self.sgdx_status, self.sgdx_view, self.sgdx_command, self.files, self.folder]
        sgdx_inputs = [*self.role_files.values(), self.sgd_matching, self.folder]
        gr.on([self.run_sgdx.click, self.sgd_matching.input], self.compute_sgdx, sgdx_inputs, sgdx_outputs,
              concurrency_id="sgdx", **options)  # fmt: skip
        for role, button in self.uploads.items():
            files = self.role_files[role]
            taken = button.upload(self.uploaded(role), [button, files], [files, self.role_notes[role]],
                                  trigger_mode="always_last", concurrency_limit=1)  # fmt: skip
            taken.then(self.when_complete, sgdx_inputs, sgdx_outputs, concurrency_id="sgdx", **options)
        emptied = [*self.role_files.values(), *self.role_notes.values(), self.sgdx_status, self.sgdx_view,
                   self.sgdx_command]  # fmt: skip
        cleared = self.clear.click(self.cleared, self.folder, [*emptied, self.files])
        cleared.then(None, None, None, js=FORGET_CHOSEN_FILES_JS)

    def after_scoring(self, event) -> None:
        """Chain CheckDST's refresh after a computation of the page's sets."""
        event.then(self.refresh, [self.shown, *self.checkdst_inputs], self.checkdst_outputs)


__all__ = ["CSS", "ProtocolsSection"]
