"""The Gradio page: layout and events only; nothing here computes a figure.

The URL holds what is shown (``?example=first_example&mode=corrected&alpha=0.9&dialogue=MUL0003``) for a
preloaded example; the visitor's own data stays in their session and never enters a URL.
"""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import logging
import tempfile
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import gradio as gr
from starlette.middleware import Middleware

from dst_metrics import VALUE_MATCHINGS
from dst_metrics.options import format_number
from dst_metrics.readers import FORMATS

from . import exports, views
from .explore import (
    DEFAULT_TOP,
    Exploration,
    analyse_sets,
    api_compare,
    api_score,
    compare_sets,
    explore,
    set_intervals,
    try_states,
)
from .inputs import (
    AUTO,
    EXAMPLE_CHOICES,
    MAX_UPLOAD_MB,
    OWN_DATA_NOTE,
    SESSION_STATE_SECONDS,
    SET_LABELS,
    UPLOAD_TYPES,
    SetInput,
    empty_option,
    endpoint,
    example_input,
    example_key,
    folder_of,
    format_label,
    left_example_names,
    name_from_file,
    page_profiles,
    remove_session_file,
    set_input,
    shows_example,
    shows_example_set,
    upload_paths,
)
from .protocols import api_checkdst, api_sgdx
from .protocols_section import CSS as PROTOCOLS_CSS
from .protocols_section import ProtocolsSection
from .served_head import ServedHead
from .style import (
    CSS,
    INTRO,
    METRIC_CARD,
    PAGE_JS,
    TRY_STATES_EXAMPLE,
    analysis_note,
    build_theme,
    card_markdown,
    format_help,
    page_head,
)
from .systems_section import CSS as SYSTEMS_CSS
from .systems_section import SystemsSection, table_endpoint

log = logging.getLogger("gca-explorer")

DEFAULT_EXAMPLE = "first_example"
SESSION_FILES_SECONDS = 3600
"""Uploaded files and downloads are deleted after an hour."""
SESSION_CAPACITY = 200
"""Sessions whose page state gradio keeps (its default, 10,000, holds every view's HTML of each)."""
LAST = "always_last"
QUEUE_CONCURRENCY = 2
"""Events run at once; the others wait in gradio's queue."""
NOTHING_TO_SCORE = "Nothing to score yet: paste or upload a prediction set (A), or choose a preloaded example."
NOT_YET_SCORED = "Not yet scored: click Score to score the data in the boxes (the figures of the last data are hidden)."
ANALYSE_AT_ONCE_TURNS = 5000
"""Up to this many turns (all sets), the per-dialogue analysis comes with the figures; above, it follows them."""
OWN_DATA_QUERY = "own"
"""`data=own` in a URL: the page that made it showed the visitor's own data."""
OWN_LINK_NOTE = (
    "**This link was made from someone's own data**, which is never put in a URL: paste or upload the "
    "same files to see its figures (the options below are the link's), or choose an example."
)

CLICK_JS = """
element.addEventListener('click', (event) => {
  const target = event.target.closest('[data-dialogue]');
  if (!target || !element.contains(target)) return;
  element.querySelectorAll('.selected').forEach((e) => e.classList.remove('selected'));
  target.classList.add('selected');
  trigger('click', {dialogue: target.dataset.dialogue});
});
element.addEventListener('keydown', (event) => {
  const target = event.target.closest('[data-dialogue]');
  if (target && event.key === 'Enter') target.dispatchEvent(new MouseEvent('click', {bubbles: true}));
});
"""
SCROLL_TO_SLOTS_JS = (
    "() => { document.getElementById('slots-col')?.scrollIntoView({behavior: 'instant', block: 'start'}); }"
)
SHOW_ERROR_JS = (
    "async () => { await new Promise((drawn) => requestAnimationFrame(() => setTimeout(drawn)));"
    " const e = document.querySelector('#status-error, #compare-error');"
    " if (e) e.scrollIntoView({behavior: 'instant', block: 'nearest'}); }"
)
"""After the frame that draws a computation's answer (what follows it waits: the figures 0.4 s sooner), scroll an
error into view."""
TICKET_JS = (
    "(...values) => { window.gcaTicket = (window.gcaTicket || 0) + 1;"
    " values[values.length - 1] = window.gcaTicket; return values; }"
)
"""Numbers each computation in the order the browser asks for it (`ticket_no`): the server drops a computation
that a later one has superseded, whatever order they finish in."""
OPENED_JS = "() => { document.documentElement.classList.remove('gca-opening'); }"
"""Once a link's figures are computed (or nothing was to compute): what `style.opening_js` hid is shown again."""
URL_JS = "(query) => { history.replaceState(null, '', query ? '?' + query : location.pathname); }"
SHOWN = ("metrics", "details", "signature", "bars", "slots", "command", "snippet")
"""The views of a computation: each an `Exploration` field shown in the `Page` widget of the same name."""
ANALYSED = ("scatter", "disagreements", "correlations", "calibration", "by_domain")
"""The same, of the views that `analyse_sets` lays out."""


def _file_note(file: dict | None) -> str:
    if not file:
        return ""
    return views.file_chips(["file: " + file["filename"]])


def without_shown_visibility(out: dict, ticket: dict) -> dict:
    """`out` without the updates that only show or hide a widget as it already is (`ticket["visible"]`, what the
    page's computations last sent for it). Each costs the browser a walk of the widget's children: about a tenth
    of redrawing the figures after a change of options."""
    visible = ticket.setdefault("visible", {})
    kept = {}
    for widget, value in out.items():
        if isinstance(value, dict) and value.keys() == {"__type__", "visible"}:
            if visible.get(widget._id) == value["visible"]:
                continue
            visible[widget._id] = value["visible"]
        kept[widget] = value
    return kept


FIRST_FIGURES_ROUNDS = 3
"""`lay_out_first_figures` computes at most this many times (twice, as the page is)."""


def _lay_out(block: gr.blocks.Block, update: object) -> None:
    """Make an output of an event `block`'s first value and properties, as the browser would show it; also in the
    arguments gradio makes the block of a session again from, at each later update of its properties."""
    props = dict(update) if isinstance(update, dict) and update.get("__type__") == "update" else {"value": update}
    props.pop("__type__", None)
    for key, value in props.items():
        if key == "value":
            block.value = block.postprocess(value)
        elif key == "choices":
            block.choices = [tuple(choice) if isinstance(choice, (tuple, list)) else (str(choice), choice)
                             for choice in value]  # fmt: skip
        else:
            setattr(block, key, value)
        block.constructor_args[key] = value


CLOSE_ATTEMPTS = 5
"""How many times a closed tab's states are walked when a running event changes them meanwhile."""


def release_memory(_: object = None) -> None:
    """Collect and hand freed memory back to the system (glibc keeps it otherwise): when a session's results go."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _uploaded_file(upload: str | list[str] | None, label: str) -> dict | None:
    """{"path", "filename"} of an upload: one file as it is, several as one folder (SGD, MultiWOZ 2.2); None."""
    paths = upload_paths(upload)
    if len(paths) > 1:
        path, filename = folder_of(paths, label)
    elif paths:
        path, filename = paths[0], Path(paths[0]).name
    else:
        return None
    return {"path": path, "filename": filename}


def url_query(result: Exploration | None, example: str | None, dialogue_id: str | None, unchanged: bool) -> str:
    """The query string of what is shown: the options the figures were computed with, the example, the dialogue
    of the per-turn view and the unchanged-slots toggle; "" when nothing was scored."""
    if not isinstance(result, Exploration) or not result.ok:
        return ""
    options = result.options
    values = {"example": example} if example else {"data": OWN_DATA_QUERY}
    values.update(
        mode=options.mode, alpha=format_number(options.alpha), **{"lambda": f"{options.fga_lambda:g}"},
        k=str(options.num_slots), match=options.value_matching,
    )  # fmt: skip
    if options.compat:
        values["compat"] = options.compat
    if unchanged:
        values["unchanged"] = "1"
    if example and dialogue_id:
        values["dialogue"] = dialogue_id
    return urlencode(values)


def url_settings(query: dict) -> dict:
    """The page's settings from URL query parameters (bad values keep the defaults; the options are checked when
    scored); `data=own` opens no example."""
    example = example_key(query.get("example")) if "example" in query else DEFAULT_EXAMPLE
    own = query.get("data") == OWN_DATA_QUERY and "example" not in query
    return {
        "example": None if own else example or DEFAULT_EXAMPLE,
        "mode": query.get("mode") if query.get("mode") in ("official", "corrected") else "official",
        "alpha": query.get("alpha", "10/11"),
        "lambda": _float(query.get("lambda"), 0.5),
        "k": _float(query.get("k"), 30),
        "match": query.get("match") if query.get("match") in VALUE_MATCHINGS else "exact",
        "unchanged": query.get("unchanged") == "1",
        "dialogue": query.get("dialogue"),
        "compat": query.get("compat") if query.get("compat") in {name for _, name in page_profiles()} else "",
    }


def _float(text: str | None, default: float) -> float:
    try:
        return float(text) if text is not None else default
    except ValueError:
        return default


@dataclasses.dataclass
class DataBox:
    """A set's or the gold's widgets: name (a set's only), data box, uploaded file's state, note and buttons."""

    name: gr.Textbox | None
    text: gr.Textbox
    file: gr.State
    note: gr.HTML
    upload: gr.UploadButton
    clear: gr.Button

    def emptied(self) -> dict:
        """Name, text, file and note emptied."""
        return {**({self.name: ""} if self.name else {}), self.text: "", self.file: None, self.note: ""}


def data_box(words: str, key: str, name: gr.Textbox | None, text: gr.Textbox, **row) -> DataBox:
    """The `DataBox` of `name` and `text`, with its buttons (in a row made with `row`), note and state."""
    with gr.Row(**row):
        upload = gr.UploadButton(
            f"Upload {words}", file_types=UPLOAD_TYPES, file_count="multiple", size="sm", elem_id=f"upload-{key}"
        )
        clear = gr.Button(f"Empty {words}", size="sm", variant="secondary", elem_id=f"empty-{key}")
    note = gr.HTML(elem_id=f"note-{key}")
    file = gr.State(None, time_to_live=SESSION_STATE_SECONDS, delete_callback=remove_session_file)
    return DataBox(name, text, file, note, upload, clear)


class Page:
    """The widgets of the page, built in `build_demo`, and the handlers that update them."""

    def __init__(self) -> None:
        self.sets: list[DataBox] = []
        self.first_url = ""  # the query of the figures the page opens with (`lay_out_first_figures`)
        self.systems = SystemsSection(self)  # the table of N systems
        self.protocols = ProtocolsSection(self)  # CheckDST and SGD-X

    # ---- layout -------------------------------------------------------------------------

    def set_column(self, label: str) -> None:
        """Name, data box, upload and empty buttons, and the note of one prediction set; filled with the default
        example's set, as the page opens (the page's first event then changes none of them)."""
        sets = example_input(DEFAULT_EXAMPLE).sets
        index = SET_LABELS.index(label)
        set_name, set_text = sets[index] if index < len(sets) else ("", "")
        with gr.Column(min_width=300, elem_classes=["set-column"]):
            name = gr.Textbox(set_name, label=f"Set {label}: name", max_lines=1, elem_id=f"name-{label.lower()}")
            hint = " (optional, to compare with A)" if label != "A" else ""
            text = gr.Textbox(
                set_text, label=f"Set {label}: data{hint}", lines=3, max_lines=8, elem_id=f"data-{label.lower()}",
                placeholder="Paste data in any input format, or upload a file",
            )  # fmt: skip
            self.sets.append(data_box(f"set {label}", label.lower(), name, text, elem_classes=["set-buttons"]))

    def inputs_section(self) -> None:
        gr.Markdown(INTRO)
        with gr.Accordion("The metric card: Granular Change Accuracy", open=False, elem_id="metric-card"):
            gr.Markdown(METRIC_CARD, elem_id="metric-card-text", latex_delimiters=[])
            with gr.Row(equal_height=False, elem_id="try-row"):
                with gr.Column(scale=3, min_width=300):
                    self.try_text = gr.Textbox(
                        value=TRY_STATES_EXAMPLE, lines=3, max_lines=8, elem_id="try-states",
                        label="Try it: one turn per line, gold state | predicted state",
                        info="e.g. hotel-area=north; hotel-stars=4 | hotel-area=south; hotel-stars=4",
                    )  # fmt: skip
                with gr.Column(scale=2, min_width=240):
                    self.try_button = gr.Button("Score these turns", size="sm", elem_id="try-score")
                    self.try_result = gr.HTML(try_states(TRY_STATES_EXAMPLE), elem_id="try-out")
        with gr.Row(elem_id="source-row"):
            self.example = gr.Dropdown(
                EXAMPLE_CHOICES, value=DEFAULT_EXAMPLE, label="Preloaded example", min_width=280, elem_id="example"
            )
            formats = [(format_label(name), name) for name in FORMATS]
            self.fmt = gr.Dropdown(formats, value=AUTO, label="Input format", min_width=280, elem_id="format")
        self.example_note = gr.Markdown(example_input(DEFAULT_EXAMPLE).description, elem_id="example-note")
        with gr.Row(equal_height=False, elem_id="sets-row"):
            for label in SET_LABELS[:2]:
                self.set_column(label)
        self.run_row()
        with gr.Accordion("A third and fourth system (sets C and D)", open=False, elem_id="more-sets"):
            with gr.Row(equal_height=False):
                for label in SET_LABELS[2:]:
                    self.set_column(label)
        with gr.Row(equal_height=False, elem_id="gold-formats-row"):  # two closed boxes on one line
            with gr.Accordion("Gold file, for predictions-only formats", open=False, elem_id="gold-box"):
                text = gr.Textbox(label="Gold: data", lines=5, max_lines=5, elem_id="data-gold")
                self.gold = data_box("gold", "gold", None, text)
            with gr.Accordion("Input formats", open=False, elem_id="formats-help"):
                gr.Markdown(format_help() + f"\n\nUploads may be up to {MAX_UPLOAD_MB} MB.")

    def run_row(self) -> None:
        """Score and the status beside it, right under sets A and B: in the first screen."""
        with gr.Row(elem_id="run-row"):
            self.run = gr.Button("Score", variant="primary", min_width=120, scale=0, elem_id="score")
            self.status = gr.HTML(elem_id="status", min_width=300)

    def options_section(self) -> None:
        with gr.Row(elem_id="options-row"):
            self.mode = gr.Radio(
                ["official", "corrected"], value="official", label="Mode", min_width=200, elem_id="mode",
                info="official: as the published code, quirks included",
            )  # fmt: skip
            self.alpha = gr.Textbox(
                value="10/11", label="α (GCA value weight)", max_lines=1, min_width=140, elem_id="alpha",
                info="e.g. 10/11 or 0.9; applies on Enter or leaving the box",
            )  # fmt: skip
            # No minimum on λ and K: gradio's own range check would cover every result with an error pill;
            # the library checks them and the page says why, in its own words, keeping the last figures.
            self.lam = gr.Number(
                value=0.5, label="λ (FGA decay)", step=0.25, min_width=120, elem_id="lambda",
                info="> 0, e.g. 0.5; applies on Enter or leaving the box",
            )  # fmt: skip
            self.k = gr.Number(
                value=30, label="K (slots, for SA)", min_width=120, elem_id="k",  # no precision: 2.5 refused, not cut
                info="whole number ≥ 1; applies on Enter or leaving the box",
            )  # fmt: skip
            self.matching = gr.Radio(
                list(VALUE_MATCHINGS), value="exact", label="Value matching", min_width=240, elem_id="matching",
                info="normalized: case and spacing; fuzzy: partial matches too",
            )  # fmt: skip
            self.compat = gr.Dropdown(
                [("none: dst-metrics' own definitions", "")] + page_profiles(), value="",
                label="Another evaluator's conventions", min_width=280, elem_id="compat",
                info="--compat: the figures that evaluator prints, computed its way (marked †); GCA keeps ours",
            )  # fmt: skip
        # What the figures shown were computed with, as the URL's query (kept in the DOM, not shown).
        self.url_query = gr.Textbox(visible="hidden", elem_id="url-query", container=False)
        # This session's newest computation (an older one is dropped) and the figures shown.
        self.ticket = gr.State({"latest": 0}, time_to_live=SESSION_STATE_SECONDS, delete_callback=release_memory)
        self.ticket_no = gr.Number(0, visible="hidden", elem_id="ticket-no")  # set by TICKET_JS
        # The number of the computation the page shows: its change runs what follows the figures (`after`), once
        # for every event that computes (13 of them), not a copy of the chain behind each.
        self.drawn_no = gr.Number(0, visible="hidden", elem_id="drawn-no")
        # Set by the page's first event when its link names other settings than the figures laid out: then (only)
        # the event after it computes the link's figures (a visitor's first change is never undone by it).
        self.link = gr.State(False)

    def results_section(self) -> None:
        self.state = gr.State(None, time_to_live=SESSION_STATE_SECONDS, delete_callback=release_memory)
        self.download_folder = gr.State(None, time_to_live=SESSION_STATE_SECONDS, delete_callback=remove_session_file)
        with gr.Column(visible=False, elem_id="scores-col") as self.scores_col:
            gr.Markdown("## Scores")
            with gr.Row(equal_height=False):
                with gr.Column(scale=2, min_width=300):
                    self.metrics = gr.HTML(elem_id="metrics")
                with gr.Column(scale=3, min_width=300):
                    self.bars = gr.HTML(elem_id="bars")
                    self.details = gr.HTML(elem_id="details")
                    self.intervals = gr.HTML(elem_id="intervals")  # filled after the figures
            with gr.Accordion("Every figure per domain (dst-metrics score --by domain)", open=False, elem_id="domains"):
                self.by_domain = gr.HTML(elem_id="by-domain")
            self.signature = gr.HTML(elem_id="signature-box")
            with gr.Accordion("About the figures: what each means, install, cite", open=False, elem_id="card"):
                gr.Markdown(card_markdown(), elem_id="card-text")
        with gr.Column(visible=False, elem_id="slots-col") as self.slots_col:
            gr.Markdown("## Per turn, per slot: how GCA counted each change (Figure 2 of the GCA paper)")
            with gr.Row():
                with gr.Column(scale=3, min_width=240):
                    self.dialogue = gr.Dropdown(label="Dialogue", choices=[], elem_id="dialogue")
                with gr.Column(scale=2, min_width=240):
                    label = "Show carried-over (unchanged) slots"
                    self.unchanged = gr.Checkbox(label=label, value=False, elem_id="unchanged")
            self.slots = gr.HTML(elem_id="slots")
        with gr.Column(visible=False, elem_id="compare-col") as self.compare_col:
            gr.Markdown("## Is the difference real? Each set against A")
            self.compare_table = gr.HTML(elem_id="compare")
            with gr.Row(equal_height=False, visible=False) as self.pair_body:
                with gr.Column(min_width=300):
                    self.pair_scatter = gr.HTML(elem_id="pair-scatter", js_on_load=CLICK_JS)
                with gr.Column(min_width=300):
                    gr.Markdown("Per dialogue, B − A, the largest GCA differences first; click a row or a point.")
                    self.pair_table = gr.HTML(elem_id="pair", js_on_load=CLICK_JS)
        with gr.Column(visible=False, elem_id="analysis-col") as self.analysis_col:
            gr.Markdown("## Per-dialogue GCA vs FGA (section 5.2 of the GCA paper)")
            self.note = gr.Markdown(elem_id="analysis-note")
            with gr.Column(visible=False) as self.analysis_body:
                with gr.Row(equal_height=False):
                    with gr.Column(min_width=300):
                        self.scatter = gr.HTML(elem_id="scatter", js_on_load=CLICK_JS)
                    with gr.Column(min_width=300):
                        gr.Markdown("**Where the mistakes fall**: Pearson r over dialogues")
                        self.correlations = gr.HTML(elem_id="correlations")
                        self.top = gr.Slider(
                            1, 50, value=10, step=1, label="Dialogues listed in the tables", elem_id="top"
                        )
                gr.Markdown("Where GCA and FGA disagree most; click a row to open the dialogue.")
                self.disagreements = gr.HTML(elem_id="disagreements", js_on_load=CLICK_JS)
        with gr.Column(visible=False, elem_id="calibration-col") as self.calibration_col:
            gr.Markdown("## Confidences: are they calibrated? (DSTC2's figures, ECE, Brier, AUROC)")
            self.calibration = gr.HTML(elem_id="calibration")
        self.takeaway_section()
        self.systems.layout()  # the protocol sections after the figures and the per-turn view
        self.protocols.layout()

    def takeaway_section(self) -> None:
        """The command, the Python code and the downloads that reproduce the figures."""
        with gr.Column(visible=False, elem_id="takeaway-col") as self.takeaway_col:
            gr.Markdown("## Take it away")
            gr.Markdown(
                "The command and the Python code that reproduce these figures (save pasted sets under the names used):"
            )
            self.command = gr.Code(language="shell", interactive=False, elem_id="command", label="dst-metrics command")
            self.snippet = gr.Code(language="python", interactive=False, elem_id="snippet", label="Python")
            self.prepare = gr.Button("Prepare the downloads", elem_id="prepare")
            self.downloads = gr.File(  # shown once prepared: no empty box before
                label="Downloads (CSV and JSON hold fractions of 1, unrounded; the tables above show percent)",
                file_count="multiple", interactive=False, visible=False, elem_id="downloads",
            )  # fmt: skip

    # ---- handlers ------------------------------------------------------------------------

    @property
    def data_inputs(self) -> list:
        """The input format, each set's name, text and file, and the gold's text and file (`read_data`)."""
        sets = [widget for box in self.sets for widget in (box.name, box.text, box.file)]
        return [self.fmt, *sets, self.gold.text, self.gold.file]

    def read_data(self, values: tuple | list) -> tuple[str, list[SetInput], SetInput, list]:
        """The values of `data_inputs` and of the widgets after them: (format, sets, gold, the others)."""
        count = 3 * len(self.sets)
        sets, (gold_text, gold_file, *rest) = values[1 : 1 + count], values[1 + count :]
        entries = [set_input(*sets[i : i + 3]) for i in range(0, count, 3)]
        return values[0], entries, set_input("gold", gold_text, gold_file), rest

    @property
    def compute_inputs(self) -> list:
        options = [self.mode, self.alpha, self.lam, self.k, self.matching, self.compat]
        shown = [self.top, self.unchanged, self.dialogue, self.example, self.ticket, self.ticket_no]
        return [*self.data_inputs, *options, *shown]

    @property
    def compute_outputs(self) -> list:
        return [
            self.status, self.state, self.scores_col, self.intervals, self.dialogue, self.slots_col, self.analysis_col,
            self.compare_col, self.compare_table, self.takeaway_col, self.downloads, self.url_query, self.example,
            self.example_note, *(getattr(self, name) for name in SHOWN), *self.analysis_outputs,
            *(box.name for box in self.sets), self.drawn_no,
        ]  # fmt: skip

    @property
    def columns(self) -> list:
        """The result columns: those every result shows, then those shown when there is something to compare or
        calibrate."""
        return [self.scores_col, self.slots_col, self.analysis_col, self.takeaway_col, self.compare_col,
                self.calibration_col]  # fmt: skip

    def skip(self) -> dict:
        """No change to any output (gradio wants at least one key: an empty dict is an error)."""
        return {self.status: gr.skip()}

    def updates(self, result: Exploration, previous: Exploration | None = None, url: str = "") -> dict:
        """Every output of a computation: the views, or the error with every view hidden; bad options after a good
        result leave its figures in place, under a message saying so."""
        if not result.ok and result.options_error and isinstance(previous, Exploration) and previous.ok:
            kept = f"{result.status}. The figures below are still those of the last options that scored."
            return {self.status: views.status_html(kept, False)}
        if not result.ok:
            hidden = gr.update(visible=False)
            return {
                self.status: views.status_html(result.status, False),
                self.state: None,
                self.url_query: "",  # the URL names no example once its figures are gone
                **dict.fromkeys(self.columns, hidden),
            }
        shown = gr.update(visible=True)
        return {
            self.status: views.status_html(result.status, True),
            self.state: result,
            **{getattr(self, name): getattr(result, name) for name in SHOWN},
            **dict.fromkeys(self.columns[:4], shown),
            self.intervals: '<p class="note">Computing each set\'s intervals…</p>',
            self.dialogue: gr.update(choices=result.dialogue_ids, value=result.dialogue_id),
            self.compare_col: gr.update(visible=len(result.results) > 1),
            self.compare_table: '<p class="note" id="compare-pending">Computing the comparison…</p>',
            self.downloads: gr.update(value=None, visible=False),
            self.url_query: url,
            **self.analysis_updates(result),
        }

    def analysis_updates(self, result: Exploration) -> dict:
        """The views that walk every dialogue again (`analyse_sets`): laid out, or a note that they follow."""
        if not result.analysed:
            hidden = gr.update(visible=False)
            pending = '<p class="note" id="analysis-pending">Computing the per-dialogue analysis…</p>'
            emptied = {**dict.fromkeys(self.analysis_outputs, ""), self.note: pending, self.by_domain: pending}
            return {**emptied, self.analysis_body: hidden, self.pair_body: hidden, self.calibration_col: hidden}
        pair = len(result.results) > 1 and result.several
        return {
            self.note: analysis_note(result),
            self.analysis_body: gr.update(visible=result.several),
            **{getattr(self, name): getattr(result, name) for name in ANALYSED},
            self.pair_body: gr.update(visible=pair),
            self.pair_scatter: result.pair_scatter if pair else "",
            self.pair_table: result.pair_table if pair else "",
            self.calibration_col: gr.update(visible=bool(result.calibration)),
        }

    @property
    def analysis_outputs(self) -> list:
        return [
            self.note, self.analysis_body, self.pair_body, self.pair_scatter, self.pair_table, self.scatter,
            self.disagreements, self.correlations, self.calibration_col, self.calibration, self.by_domain,
        ]  # fmt: skip

    def analyse(self, result: Exploration | None, ticket: dict, top: float) -> dict:
        """After the figures of a large input: the per-dialogue analysis, calibration and per-domain views."""
        if not isinstance(result, Exploration) or result.ticket != ticket["latest"] or result.analysed:
            return {self.note: gr.skip()}
        try:
            analyse_sets(result, int(top or DEFAULT_TOP))
        except Exception as error:  # a bug: shown, logged
            log.exception("analysis failed")
            return {self.note: views.status_html(views.internal_error(error), False, "analysis")}
        return without_shown_visibility(self.analysis_updates(result), ticket)

    def compute(self, *values) -> dict:
        """Read, score and show everything; a bug shows as an internal error, never a traceback."""
        fmt, entries, gold, rest = self.read_data(values)
        mode, alpha, lam, k, matching, compat, top, unchanged, shown, example, ticket, number = rest
        number = int(number or 0)  # the browser's order of asking (TICKET_JS); 0 from the API
        if number < ticket["latest"]:
            return self.skip()  # a later request of this session came first
        asked = (fmt, tuple(entries), gold, mode, alpha, lam, k, matching, compat, top, unchanged, example)
        if asked == ticket.get("asked"):
            return self.skip()  # what is shown or being computed, asked again (e.g. leaving a box after Enter)
        ticket["latest"] = number
        ticket["asked"] = asked
        if not example and all(entry.empty for entry in entries) and gold.empty:  # e.g. a link of own data
            ticket.pop("shown", None)  # no figures are left to keep under an options error
            nothing = {**self.updates(Exploration(False, "")), self.status: views.status_html(NOTHING_TO_SCORE, True)}
            # hidden as any error hides them, and noted so (issue 60: the next figures were never shown again)
            shown_nothing = {**without_shown_visibility(nothing, ticket), self.drawn_no: number}
            return {**shown_nothing, self.url_query: gr.skip()}  # a link keeps its options
        left: dict = {}
        if example and not shows_example(example, entries, fmt, gold):  # pasted or uploaded: own data
            renamed = left_example_names(example, entries)
            for index, new_name in renamed.items():
                entries[index] = dataclasses.replace(entries[index], name=new_name)
                left[self.sets[index].name] = new_name
            left.update({self.example: None, self.example_note: OWN_DATA_NOTE})
            example = None
        try:
            missing = empty_option(lam, k)  # an emptied number box: say what it takes, not "got None"
            result = Exploration(False, missing, options_error=True) if missing else explore(
                entries, fmt=fmt, gold=gold, mode=mode, alpha=alpha, fga_lambda=lam, num_slots=k,
                value_matching=matching, top=top, show_unchanged=unchanged, dialogue_id=shown, compat=compat,
                analyse=False,
            )  # fmt: skip
            if result.ok and sum(r.corpus.num_turns for r in result.results) <= ANALYSE_AT_ONCE_TURNS:
                analyse_sets(result, int(top or DEFAULT_TOP))  # small: everything in one round trip
        except Exception as error:  # a bug, not bad input: say so in the page, log the traceback
            log.exception("explore failed")
            result = Exploration(False, views.internal_error(error))
        if ticket["latest"] != number:
            return self.skip()  # superseded: what is drawn stays one set of inputs, the latest one's
        result.ticket = number
        ticket["filled"] = example  # the example whose sets the boxes now hold (`edited`), None for own data
        turns = result.results[0].corpus.num_turns if result.ok else 0
        ticket["last"] = (number, result.ok, result.status, turns)  # for the note beside an upload button
        if not result.ok:
            ticket.pop("asked", None)  # asking again computes again
        previous = ticket.get("shown")
        out = self.updates(result, previous, url_query(result, example, result.dialogue_id, unchanged))
        if self.state in out:
            ticket["shown"] = out[self.state]
        return {**without_shown_visibility(out, ticket), **left, self.drawn_no: number}

    def link_computed(self, link: bool, *values) -> dict:
        """`compute` of a link's settings once the page's first event has set them (`link`); nothing for the page
        as laid out (computed, the widgets' values sent before a visitor's first change could undo it)."""
        return self.compute(*values) if link else self.skip()

    def compare(self, result: Exploration | None, ticket: dict) -> tuple:
        """Each set's intervals and each later set against A, after the figures are shown."""
        if not isinstance(result, Exploration) or result.ticket != ticket["latest"]:
            return gr.skip(), gr.skip()  # a later computation draws its own
        try:
            intervals = set_intervals(result)
            return (compare_sets(result) if len(result.results) > 1 else ""), intervals
        except Exception as error:  # a bug: shown, logged
            log.exception("compare failed")
            return views.status_html(views.internal_error(error), False, "compare"), ""

    def example_chosen(self, *values) -> dict:
        """A preloaded example chosen (`compute_inputs`, the example among them): its sets and their figures, as one
        answer numbered as the choice was made (`TICKET_JS`). A choice that a later one superseded changes nothing,
        neither the boxes nor the figures, whatever order they finish in (CI: three quick choices, the figures of
        the first drawn last, while the menu showed the third)."""
        inputs = self.compute_inputs
        filled = self.choose_example(values[inputs.index(self.example)])
        if self.fmt not in filled:  # no example chosen
            return filled
        out = self.compute(*[filled.get(widget, value) for widget, value in zip(inputs, values)])
        if int(values[-1] or 0) < values[inputs.index(self.ticket)]["latest"]:
            return self.skip()  # superseded (`compute` skipped it): the boxes keep the later choice's sets
        return {**filled, **out}

    def choose_example(self, key: str | None) -> dict:
        """Fill the sets with a preloaded example; the sets it does not use are emptied."""
        if not key:
            return {self.example_note: gr.skip()}
        chosen = example_input(key)
        out: dict = {self.fmt: AUTO, self.example_note: chosen.description}
        for i, box in enumerate(self.sets):
            set_name, set_text = chosen.sets[i] if i < len(chosen.sets) else ("", "")
            out.update({**box.emptied(), box.name: set_name, box.text: set_text})
        return out

    def uploaded(self, index: int):
        """An upload into set `index`, named after its file; one into A leaves the example and empties its sets."""
        box = self.sets[index]

        def handler(upload: str | list[str] | None, example: str | None) -> dict:
            file = _uploaded_file(upload, SET_LABELS[index])
            if not file:
                return {box.note: gr.skip()}
            filename = file["filename"]
            out: dict = {
                box.name: name_from_file(filename), box.text: "", box.file: file, box.note: _file_note(file),
                self.example: None, self.example_note: f"Your own data: set {SET_LABELS[index]} from {filename}.",
            }  # fmt: skip
            return {**out, **self.example_sets_emptied(example, index)}

        return handler

    def example_sets_emptied(self, example: str | None, index: int) -> dict:
        """A new set A, uploaded or pasted, leaves the example: the example's other sets go too (issue 60: after a
        paste, B kept the paper's P2 under its name, compared with the visitor's own data)."""
        if not example or index != 0:
            return {}
        return {widget: value for other in self.sets[1:] for widget, value in other.emptied().items()}

    def gold_uploaded(self, upload: str | list[str] | None) -> dict:
        file = _uploaded_file(upload, "gold")
        return {self.gold.text: "", self.gold.file: file, self.gold.note: _file_note(file)}

    def edited(self, index: int):
        """Text typed or pasted into set `index` replaces an uploaded file and leaves the preloaded example (a set
        still named as in the example is renamed; a new A empties the example's other sets); nothing happens when the
        text is the example's own or empty."""
        box = self.sets[index]

        def handler(example: str | None, set_name: str | None, value: str | None, ticket: dict) -> dict:
            entry = SetInput(set_name or "", value or "")
            # the example chosen, or the one whose sets the page's last answer filled in while the menu already
            # showed a later choice (still to compute): neither is an edit
            if not (value or "").strip() or any(
                key and shows_example_set(key, index, entry) for key in (example, ticket.get("filled"))
            ):
                return {box.note: gr.skip()}
            for kept in ("asked", "shown", "visible"):  # the figures are hidden (`not_yet_scored`): Score computes
                ticket.pop(kept, None)  # them again, whatever the boxes hold, and shows every column it shows
            out: dict = {box.file: None, box.note: "", **self.not_yet_scored()}
            if example:
                out.update({self.example: None, self.example_note: OWN_DATA_NOTE})
                for new_name in left_example_names(example, [SetInput()] * index + [entry]).values():
                    out[box.name] = new_name
            return {**out, **self.example_sets_emptied(example, index)}

        return handler

    def not_yet_scored(self) -> dict:
        """The figures shown no longer describe the boxes: hidden, the URL emptied, the status saying so."""
        return {
            self.status: views.status_html(NOT_YET_SCORED, True),
            self.url_query: "",
            **dict.fromkeys(self.columns, gr.update(visible=False)),
        }

    def set_status(self, index: int):
        """After an upload: beside its button, the file and what was read or the error; nothing when a later
        computation superseded this upload's."""

        def handler(file: dict | None, ticket: dict) -> str | dict:
            number, ok, status, turns = ticket.get("last", (None, False, "", 0))
            if number != ticket["latest"]:
                return gr.skip()
            if ok and f"Set {SET_LABELS[index]} (" in status:
                return _file_note(file) + ' <span class="note-error">left out: see the message under Score</span>'
            if ok:
                counted = f"{turns:,} turn" + ("" if turns == 1 else "s")
                return _file_note(file) + f' <span class="note-ok">read and scored ({counted})</span>'
            element = f"note-{SET_LABELS[index].lower()}-error"
            error = f'<span class="note-error" id="{element}">could not be scored: {views.esc(status)}</span>'
            return f"{_file_note(file)} {error}"

        return handler

    def open_dialogue(
        self, result: Exploration | None, dialogue_id: str | None, unchanged: bool, example: str | None
    ) -> tuple[str, str]:
        """The per-turn view of `dialogue_id` and the URL that names it."""
        if not isinstance(result, Exploration) or not result.ok:
            return "", ""
        slots = views.slot_view_html(result.results, dialogue_id, result.options.mode, unchanged)
        return slots, url_query(result, example, dialogue_id, unchanged)

    def clicked(self, result: Exploration | None, unchanged: bool, example: str | None, evt: gr.EventData) -> tuple:
        dialogue_id = getattr(evt, "dialogue", None) or (evt._data or {}).get("dialogue")
        if not isinstance(result, Exploration) or dialogue_id not in result.dialogue_ids:
            return gr.update(), gr.update(), gr.update()
        return dialogue_id, *self.open_dialogue(result, dialogue_id, unchanged, example)

    def prepare_downloads(self, result: Exploration | None, folder: str | None) -> tuple:
        """Write the downloads into the session's folder (made on first use)."""
        if not isinstance(result, Exploration) or not result.ok:
            return gr.update(value=None, visible=False), folder
        folder = folder or tempfile.mkdtemp(prefix="gca-explorer-")
        comparisons = [comparison.as_dict() for comparison in result.comparisons]
        written = exports.write_downloads(result.results, result.options, comparisons, folder)
        return gr.update(value=written, visible=True), folder

    def opened(self, request: gr.Request) -> dict:
        """The page's first event: the options its URL names, and the example's sets (`choose_example`)."""
        settings = url_settings(dict(request.query_params) if request else {})
        laid_out = (url_settings({}), url_settings(dict(parse_qsl(self.first_url))))  # `style.opening_js` writes it
        if settings in laid_out:  # the page as laid out, figures and all: nothing to change, nothing to compute
            return {self.example_note: gr.skip()}
        dialogue = settings["dialogue"]
        emptied = {widget: value for box in self.sets for widget, value in box.emptied().items()}
        chosen = self.choose_example(settings["example"]) if settings["example"] else emptied  # own data: none
        own = {self.example_note: OWN_LINK_NOTE} if settings["example"] is None else {}
        return {
            **chosen,
            **own,
            **{widget: settings[key] for key, widget in self.url_widgets.items()},
            # the dialogue laid out stays a choice: the browser may still send it with the link's computation
            self.dialogue: gr.update(
                choices=[*self.dialogue.choices, *([(dialogue, dialogue)] if dialogue else [])], value=dialogue
            ),  # fmt: skip
            self.link: True,  # the link's figures are computed next
        }

    @property
    def url_widgets(self) -> dict:
        """The widgets a URL sets (`url_settings`), by their setting's name."""
        return {
            "example": self.example, "mode": self.mode, "alpha": self.alpha, "lambda": self.lam, "k": self.k,
            "match": self.matching, "unchanged": self.unchanged, "compat": self.compat,
        }  # fmt: skip

    # ---- events --------------------------------------------------------------------------

    def after(self) -> None:
        """After each computation the page shows (`drawn_no` changed): scroll an error into view, then fill the
        comparison and, for a large input, the analysis, at the same time."""
        shown = self.drawn_no.change(None, None, None, js=SHOW_ERROR_JS)
        shown.then(self.compare, [self.state, self.ticket], [self.compare_table, self.intervals])
        shown.then(self.analyse, [self.state, self.ticket, self.top], self.analysis_outputs)  # at the same time
        self.systems.after_scoring(shown)  # a table made of the sets is made again
        self.protocols.after_scoring(shown)  # and CheckDST of two of them

    def scored(self, event):
        """After `event` filled the inputs: compute (then `after`, by `drawn_no`); the computation's event."""
        return event.then(self.compute, self.compute_inputs, self.compute_outputs, js=TICKET_JS)

    def lay_out_first_figures(self) -> None:
        """The page opens showing the default example's figures: `compute`'s and `compare`'s answers to the widgets
        as laid out become their first values, so no round trip comes before the first figures (issue 60: 2.4 s
        after the page was asked for, before). Computed again until the widgets ask for what they show (the per-turn
        view's dialogue is chosen by the first answer): the page's first event then computes nothing."""
        for _ in range(FIRST_FIGURES_ROUNDS):
            values = [0 if block is self.ticket_no else block.value for block in self.compute_inputs]
            out = self.compute(*values)
            if out == self.skip():
                return
            result, ticket = out[self.state], self.ticket.value
            out.update(zip((self.compare_table, self.intervals), self.compare(result, ticket)))
            self.first_url = out[self.url_query]  # the server writes it into the address bar (`style.page_head`)
            for block, update in out.items():
                _lay_out(block, update)
        raise RuntimeError("the first figures did not settle")  # a bug: build_demo fails at start, not a visitor

    def closed(self, demo: gr.Blocks):
        """When a tab closes: its session's states, files and page state go at once, not an hour later."""

        def handler(request: gr.Request) -> None:
            holder = getattr(demo, "state_holder", None)
            session = getattr(request, "session_hash", None)
            if holder is None or not session:
                return
            # An event of this session still running (the chain after the figures) may write its states while
            # gradio walks them: "dictionary changed size during iteration". Walk them again; the session goes
            # whatever happens, or it stays for the server's life (1 close in 3 under load, before).
            for _ in range(CLOSE_ATTEMPTS):
                try:
                    holder.delete_state(session)
                    break
                except RuntimeError:
                    continue
                except KeyError:  # already gone
                    break
            holder.session_data.pop(session, None)
            holder.time_last_used.pop(session, None)
            release_memory()

        return handler

    def wire_set(self, index: int, box, set_widgets: list) -> None:
        """The events of prediction set `index`: its upload, clear and text box."""
        # The file is taken at once (never dropped), then scored as a computation like any other.
        taken = box.upload.upload(
            self.uploaded(index), [box.upload, self.example], [*set_widgets, self.example, self.example_note],
            trigger_mode=LAST, show_progress_on=box.note,  # at the button that was used, not at set A's name
        )  # fmt: skip
        self.scored(taken).then(self.set_status(index), [box.file, self.ticket], box.note)
        self.scored(box.clear.click(box.emptied, None, list(box.emptied()), trigger_mode=LAST))
        # Typing in a box leaves the preloaded example and replaces an uploaded file.
        # (`change`, not `input`: a paste that sets the whole box at once must leave the example too.)
        outputs = [self.example, self.example_note, box.file, box.note, box.name, self.status, self.url_query]
        others = [widget for other in self.sets[1:] for widget in other.emptied()] if index == 0 else []
        box.text.change(
            self.edited(index), [self.example, box.name, box.text, self.ticket], [*outputs, *others, *self.columns],
            queue=False, show_progress="hidden",
        )  # fmt: skip

    def wire(self, demo: gr.Blocks) -> None:
        demo.unload(self.closed(demo))
        set_widgets = [widget for box in self.sets for widget in box.emptied()]
        example_outputs = [self.fmt, self.example_note, *set_widgets]
        # "always_last": a choice made while an earlier one is still computing is not lost; it runs next
        # (gradio's default drops it), and TICKET_JS makes sure the earlier one's sets and figures never land after
        # it (gradio may also run two at once: a choice made as the previous one is sent is not deferred).
        chosen_outputs = list(dict.fromkeys([*example_outputs, *self.compute_outputs]))
        self.example.select(
            self.example_chosen, self.compute_inputs, chosen_outputs, js=TICKET_JS, trigger_mode=LAST
        )  # fmt: skip
        opened = demo.load(self.opened, None, [*self.url_widgets.values(), self.dialogue, *example_outputs, self.link])
        # The sections under the figures are laid out after them: the first figures come 0.2 s sooner.
        sections = [self.systems.column, self.protocols.column]
        opened.then(
            lambda: [gr.update(visible=True)] * 2, None, sections, queue=False, show_progress="hidden",
            show_progress_on=self.systems.status,
        )  # fmt: skip
        linked = opened.then(self.link_computed, [self.link, *self.compute_inputs], self.compute_outputs, js=TICKET_JS)
        linked.then(None, None, None, js=OPENED_JS)  # the link's own figures shown
        # Options apply as soon as they change: radios on input, α, λ and K on Enter and on leaving
        # the box (never a box showing one value and the table another).
        triggers = [self.run.click, self.mode.input, self.matching.input, self.compat.input, self.top.release]
        boxes = [self.alpha, self.lam, self.k] + [box.name for box in self.sets]  # options and set names
        triggers += [trigger for w in boxes for trigger in (w.submit, w.blur)]
        gr.on(triggers, self.compute, self.compute_inputs, self.compute_outputs, js=TICKET_JS, trigger_mode=LAST)
        self.after()
        for index, box in enumerate(self.sets):
            self.wire_set(index, box, set_widgets)
        gold = self.gold
        self.scored(gold.upload.upload(self.gold_uploaded, gold.upload, list(gold.emptied()), trigger_mode=LAST))
        self.scored(gold.clear.click(gold.emptied, None, list(gold.emptied())))
        slot_inputs = [self.state, self.dialogue, self.unchanged, self.example]
        self.dialogue.input(self.open_dialogue, slot_inputs, [self.slots, self.url_query])
        self.unchanged.input(self.open_dialogue, slot_inputs, [self.slots, self.url_query])
        for clickable in (self.disagreements, self.scatter, self.pair_table, self.pair_scatter):
            click = clickable.click(
                self.clicked, [self.state, self.unchanged, self.example], [self.dialogue, self.slots, self.url_query]
            )
            click.then(None, None, None, js=SCROLL_TO_SLOTS_JS)
        self.url_query.change(None, self.url_query, None, js=URL_JS)
        try_inputs = [self.try_text, self.mode, self.alpha]
        gr.on([self.try_button.click, self.try_text.submit], try_states, try_inputs, self.try_result, trigger_mode=LAST)
        self.prepare.click(
            self.prepare_downloads, [self.state, self.download_folder], [self.downloads, self.download_folder]
        )
        self.systems.wire()
        self.protocols.wire()


PUBLIC_API = ("score", "compare", "table", "checkdst", "sgdx")
"""The endpoints a client calls (`gradio_client.Client(url).predict(text, api_name="/score")`); the page's own
events are private."""


def progress_widget(outputs: list) -> list:
    """The one widget that shows an event's progress mark: its first output that is drawn (not a layout block, not
    a `gr.State`); none if it has no such output.

    gradio's page updates every widget that has ever shown a progress mark, and everything inside it, at each step
    of every event. With the marks on every output, a change of mode took the browser's page process 3.4-3.5 s of
    CPU; with one widget per event, 2.0 s (docs/space.md, "What a change computes").
    """
    drawn = [block for block in outputs if isinstance(block, gr.components.Component)]
    return [block for block in drawn if not isinstance(block, gr.State)][:1]


def build_demo() -> gr.Blocks:
    """Lay out the page and wire its events; only `PUBLIC_API` is on the API page."""
    page = Page()
    with gr.Blocks(title="GCA explorer", delete_cache=(SESSION_FILES_SECONDS, SESSION_FILES_SECONDS)) as demo:
        for name, api in zip(PUBLIC_API, (api_score, api_compare, table_endpoint, api_checkdst, api_sgdx)):
            gr.api(endpoint(api), api_name=name)  # first: the page's own events cannot take these names
        page.inputs_section()
        page.options_section()
        page.results_section()
        page.wire(demo)
        page.lay_out_first_figures()
        demo.page_head = page_head(page.first_url)  # what `launch` has the server write into the page's <head>
        for fn in demo.fns.values():  # every event, the API's and the page's, whatever it is named
            if fn.api_name not in PUBLIC_API:
                fn.api_visibility = "private"
            if fn.show_progress_on is None:
                fn.show_progress_on = progress_widget(fn.outputs)
    demo.queue(default_concurrency_limit=QUEUE_CONCURRENCY)
    return demo


def launch(demo: gr.Blocks) -> None:
    """Serve the page (port from GRADIO_SERVER_PORT) with the upload size limit."""
    logging.basicConfig(level=logging.WARNING)
    demo.launch(
        theme=build_theme(), css=CSS + SYSTEMS_CSS + PROTOCOLS_CSS, js=PAGE_JS,
        max_file_size=f"{MAX_UPLOAD_MB}mb", state_session_capacity=SESSION_CAPACITY, prevent_thread_lock=True,
        app_kwargs={"middleware": [Middleware(ServedHead, head=demo.page_head)]},  # the head, by the server
    )  # fmt: skip
    # What the server holds for its whole life (gradio, the page: about 190,000 objects) leaves every later
    # garbage collection: a closed tab's `release_memory` then walks only what the sessions made. Each closed tab
    # cost the server 0.4-0.5 s of CPU before, a quarter of a visit.
    gc.freeze()
    demo.block_thread()
