"""The page's words and looks: the introduction, the formats' help, the notes, the theme and the CSS."""

from __future__ import annotations

import json

from dst_metrics import citations
from dst_metrics._version import __version__
from dst_metrics.compat import PROFILES
from dst_metrics.figures.registry import FIGURES
from dst_metrics.readers import READERS

from .inputs import AUTO_LABEL

INTRO = """
# GCA explorer
Score dialogue-state-tracking predictions with **Granular Change Accuracy** (GCA), JGA, FGA, SA, AGA, RSA and
slot F1, compare systems, and see how GCA counts every change of the state: pick one of the GCA paper's examples,
or paste or upload your own data (set B and more to compare), then **Score**. Scores are percentages
([jump to the scores](#scores-col)).
"""

GCA_PAPER = "https://arxiv.org/abs/2403.11123"

DESCRIPTION = (
    "Score dialogue state tracking predictions with Granular Change Accuracy (GCA), JGA, FGA, SA and slot F1; "
    "compare systems with significance tests and see, turn by turn, how GCA counts each change of the state."
)
LINK_PREVIEW = f"""<meta name="description" content="{DESCRIPTION}">
<meta property="og:title" content="GCA explorer: Granular Change Accuracy for dialogue state tracking">
<meta property="og:description" content="{DESCRIPTION}">
<meta name="twitter:title" content="GCA explorer: Granular Change Accuracy for dialogue state tracking">
<meta name="twitter:description" content="{DESCRIPTION}">"""
"""The link preview: what the Space is, not gradio's "Click to try out the app!"."""
IDLE_FRAMES_JS = """(() => {
  // An idle page draws nothing (issue 60): the frames asked for when nothing in the page has changed and the
  // visitor has done nothing for a second run together, a second later or at the next change, whichever comes
  // first. gradio's page-loader timer asks for a frame at every frame once its tracker is gone, while nothing
  // shows it: 60 a second on an idle page. In <head>, written by the server: it must run before gradio's
  // scripts keep the browser's function.
  const frame = window.requestAnimationFrame.bind(window), cancelFrame = window.cancelAnimationFrame.bind(window);
  const waiting = new Map(), running = new Set(), cancelled = new Set();  // our ids are negative
  let changed = performance.now(), next = 0, timer = null;
  const runWaiting = () => {
    clearTimeout(timer);
    timer = null;
    const due = [...waiting];
    waiting.clear();
    due.forEach(([id]) => running.add(id));
    frame((time) => due.forEach(([id, callback]) => {
      running.delete(id);
      if (!cancelled.delete(id)) callback(time);
    }));
  };
  window.requestAnimationFrame = (callback) => {
    if (performance.now() - changed < 1000) return frame(callback);
    waiting.set(--next, callback);
    timer = timer || setTimeout(runWaiting, 1000);
    return next;
  };
  window.cancelAnimationFrame = (id) => {
    if (waiting.delete(id)) return;
    if (running.has(id)) cancelled.add(id);
    else cancelFrame(id);
  };
  const wake = () => {
    changed = performance.now();
    if (waiting.size) runWaiting();
  };
  new MutationObserver(wake).observe(document, {childList: true, subtree: true, attributes: true, characterData: true});
  // so does the visitor: a scroll, a resize, a key or a pointer is no idle page
  ["scroll", "resize", "keydown", "pointerdown", "pointermove", "wheel"].forEach((type) =>
    addEventListener(type, wake, {capture: true, passive: true}));
})();"""
"""At most a frame a second while nothing in the page changes (see its comment)."""
URL_QUERY_NAMES = ("example", "data", "mode", "alpha", "lambda", "k", "match", "unchanged", "dialogue", "compat")
"""The settings a link may name (`page.url_settings`)."""
ANSWER_IDS = ("status", "scores-col", "slots-col", "compare-col", "analysis-col", "takeaway-col", "calibration-col")
"""The status line and the result columns: what a computation answers."""
OPENING_CSS = ", ".join(f".gca-opening #{answer}" for answer in ANSWER_IDS) + " { display: none !important; }"


def opening_js(first_query: str) -> str:
    """A link that names no setting gets the query of the figures the page opens with, before gradio's scripts read
    the address; one that names a setting opens on those figures too, laid out with the page: hidden until the page's
    first event has computed its own (page.OPENED_JS shows them again)."""
    return f"""(() => {{
  const query = new URLSearchParams(location.search);
  if ({list(URL_QUERY_NAMES)}.some((name) => query.has(name))) document.documentElement.classList.add("gca-opening");
  else history.replaceState(null, "", "?" + {json.dumps(first_query)} + location.search.replace("?", "&"));
}})();"""


def page_head(first_query: str) -> str:
    """What the server writes at the end of the page's `<head>` (`served_head.ServedHead`)."""
    return (
        f"{LINK_PREVIEW}\n<style>{OPENING_CSS}</style>\n"
        f"<script>\n{IDLE_FRAMES_JS}\n{opening_js(first_query)}\n</script>"
    )


METRIC_CARD = """
**Granular Change Accuracy (GCA)** judges each *change* of the dialogue state once, so one early mistake
carried through a dialogue costs once, not at every later turn (as it does in JGA). Per dialogue, every slot
whose value changes on the gold or the predicted side is counted **C**orrect, **W**rong (both sides set it,
different values), **M**issed or **O**vershot; with P = C+W+O and G = C+W+M, value precision VP = C/P, value
recall VR = C/G, label precision LP = (C+W)/P and label recall LR = (C+W)/G,

**GCA = (P + G) / (α·P/VP + α·G/VR + (1−α)·P/LP + (1−α)·G/LR)**, α = 10/11 (values weigh 10 to 1 against labels),

a weighted harmonic mean of the four rates; corpus GCA sums the counts over dialogues.

- **Inputs**: per turn, the gold and the predicted state (`{"hotel-area": "north"}`, nested, triples or
  `hotel-area=north`), in any of the formats under *Input formats*; α, mode, value matching
- **Outputs**: GCA with its counts C, W, M, O and VP, VR, LP, LR; beside it JGA, FGA (λ), SA (K), AGA, RSA,
  slot P/R/F1, in percent
- **Published values**: the GCA paper's Figure 1: P1 GCA 73.33, JGA 0.00; P2 GCA 15.49, JGA 33.33. Section
  5.4: both predictions GCA 52.38. MUL1110: GCA 31.43, FGA 48.84. The official code on a TRADE file of 7,368
  MultiWOZ turns: GCA 81.86, JGA 51.95
- **Limitations**: `official` mode keeps the published code's four quirks (a perfect prediction can score
  below 100; no change at all scores 0); `corrected` removes them, so say which mode you report. GCA needs
  turns in order and the states of every turn; it does not judge distributions (see DSTC2's figures)
- **Cite**: Aksu and Chen, *Granular Change Accuracy: A More Accurate Performance Metric for Dialogue State
  Tracking*, LREC-COLING 2024 ([arXiv:2403.11123](https://arxiv.org/abs/2403.11123)); BibTeX under *About the
  figures*
"""
"""The metric card shown first, as `evaluate`'s metric Spaces do."""

TRY_STATES_EXAMPLE = (
    "hotel-area=north | hotel-area=north\n"
    "hotel-area=north; hotel-stars=4 | hotel-area=south; hotel-stars=4\n"
    "hotel-area=north; hotel-stars=4; hotel-day=monday | hotel-area=south; hotel-stars=4; hotel-day=monday"
)
"""The try-it widget's first text: three turns, one wrong area carried over."""


def card_markdown() -> str:
    """The Space's card: what each figure means (from the registry), how to install and use, the profiles, how
    to cite GCA."""
    figures = "\n".join(
        f"| `{f.key}@λ` | {f.label}λ | {f.description} |"
        if f.per_lambda
        else f"| `{f.key}` | {f.label} | {f.description} |"
        for f in FIGURES
        if f.group in ("main", "detail", "counts")
    )  # each key once: the per-λ FGA rows are `fga@0.25`, ..., not a second `fga`
    profiles = "\n".join(
        f"- `--compat {name}`: {profile.description}"
        + (" (command line only: it reads the SGD dialogue files and schema)" if profile.cli_inputs else "")
        for name, profile in PROFILES.items()
    )
    return f"""
**What each figure means** (as `dst-metrics` computes it; `official` mode reproduces the official GCA code,
quirks included, `corrected` fixes them):

| key | figure | meaning |
| --- | --- | --- |
{figures}

**Install and use** (version {__version__}): `pip install "dst-metrics[evaluate]"` once released (until then
from a clone: `pip install -e ".[evaluate]"`). In Python, `from dst_metrics import read, score;
score(read("predictions.json")).scores`; as Hugging Face `evaluate` modules,
`evaluate.load(dst_metrics.module_path("all"))` (or `"gca"`, `"jga_fga"`) and
`compute(predictions=..., references=...)`; on the command line, `dst-metrics score FILE`, per domain with
`--by domain`, two systems with `dst-metrics compare A B`.

**Other evaluators' conventions**, from the same input (the page's *Another evaluator's conventions* menu
offers every one that scores the input alone):

{profiles}

**Cite** the GCA paper ([arXiv:2403.11123]({GCA_PAPER})) when you report GCA:

```bibtex
{citations.GCA.strip()}
```
"""


FORMAT_EXAMPLES = {  # the page's examples for some registered formats (dst_metrics.readers.READERS)
    "reference": 'for example `{"d1": {"0": {"gt": {"hotel": {"area": "north"}}, "pr": {"hotel-area": "north"}}}}`.',
    "jsonl": 'one turn per line, `{"dialogue_id": "d1", "turn_id": 0, "gt": state, "pr": state}`; lines in any '
    "order, every (dialogue_id, turn_id) once.",
    "linearized": "one turn per line, `dialogue_id⇥turn_id⇥gold state⇥predicted state`, a state written "
    "`hotel-area=north; hotel-stars=4` (an empty field is an empty state; in the gold field `centre|north` "
    "lists acceptable values). Blank lines and lines starting with `#` are skipped.",
}
FORMAT_NOTES = """
A state in JSON may be nested `{"hotel": {"area": "north"}}`, flat `{"hotel-area": "north"}`, a list
of `["hotel", "area", "north"]` triples or `"hotel-area-north"` strings, or a linearized string.
Gold values may be lists of acceptable values. A slot valued `none` or `""` is inactive.

Formats that hold predictions only (mwzeval, SGD / MultiWOZ 2.2 or ConvLab unified dialogues) are
paired with the file under *Gold*. Every set must hold the same dialogues, turns and gold states as A.

A file compressed with gzip, bzip2 or xz (`.gz`, `.bz2`, `.xz`) or zipped (`.zip`; several files in a zip
are read as a folder's) is read as the file inside.
"""


def format_help() -> str:
    """The 'Input formats' text: every registered format, auto-detection, and what all share."""
    parts = []
    for name, reader in READERS.items():
        title = _md(reader.description[:1].upper() + reader.description[1:])
        example = f": {FORMAT_EXAMPLES[name]}" if name in FORMAT_EXAMPLES else ""
        parts.append(f"**{title}** (`{name}`){example}")
    parts.append(f"**{AUTO_LABEL}** reads the beginning of the data and picks the format it fits.")
    return "\n\n".join(parts) + "\n" + FORMAT_NOTES


def _md(text: str) -> str:
    """`text` with the characters markdown would act on escaped."""
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in text)


def analysis_note(result) -> str:
    """The text above the per-dialogue analysis."""
    if not result.several:
        return (
            "This corpus has one dialogue; the per-dialogue GCA vs FGA analysis needs several "
            "(try *All three paper dialogues as one corpus*)."
        )
    return (
        f"{len(result.dialogue_ids)} dialogues. Each point is one dialogue of one prediction set; points "
        "off the dashed line y = x are dialogues where GCA and FGA disagree. The table lists the largest "
        "disagreements (the GCA paper examined 20 such dialogues). Click a point or a row to open that "
        "dialogue in the per-turn view. TO: tail orientation, NU: non-uniformity of the mistakes (eq. 7-10)."
    )


THEME_FONTS = ("system-ui", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "Liberation Sans", "DejaVu Sans")
MONO_FONTS = ("ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "Liberation Mono", "DejaVu Sans Mono")


def build_theme():
    """The default theme with system fonts: nothing to download."""
    import gradio as gr

    buttons = {
        f"button_primary_{part}{dark}": colour
        for part, colour in (("background_fill", PRIMARY_BUTTON), ("background_fill_hover", PRIMARY_BUTTON_HOVER),
                             ("text_color", "#FFFFFF"), ("border_color", PRIMARY_BUTTON))
        for dark in ("", "_dark")
    }  # fmt: skip
    return gr.themes.Default(font=[*THEME_FONTS, "sans-serif"], font_mono=[*MONO_FONTS, "monospace"]).set(
        body_text_color_subdued=SUBDUED_TEXT, body_text_color_subdued_dark=SUBDUED_TEXT_DARK, **buttons
    )


# Contrast (WCAG AA asks 4.5:1): white on the primary buttons 5.6:1 (gradio's orange 2.8:1), 8.2:1 under the
# pointer; subdued text 6.5:1 on white (gradio's 1.9:1), 7.9:1 on the dark theme's background.
PRIMARY_BUTTON, PRIMARY_BUTTON_HOVER = "#B93C0A", "#8F2E08"
SUBDUED_TEXT, SUBDUED_TEXT_DARK = "#5C5C66", "#A9A9B3"
PAGE_JS = """() => {
  // Marks each table box wider than the page (.scrolls-right / .scrolls-left): the CSS shows a cue.
  let queued = false;
  const mark = () => { queued = false; document.querySelectorAll('.table-wrap').forEach((w) => {
    w.classList.toggle('scrolls-right', w.scrollWidth - w.clientWidth - w.scrollLeft > 2);
    w.classList.toggle('scrolls-left', w.scrollLeft > 2); }); };
  const later = () => { if (!queued) { queued = true; requestAnimationFrame(mark); } };
  new MutationObserver(later).observe(document.body, {childList: true, subtree: true});
  addEventListener('resize', later);
  document.addEventListener('scroll', later, true);
  later();
  // In-page links scroll to their target: with <base href="./">, "#scores-col" would load "/" again
  // (without the query, losing what the visitor pasted).
  document.addEventListener('click', (event) => {
    const link = event.target.closest && event.target.closest('a[href^="#"]');
    if (!link) return;
    event.preventDefault();
    document.getElementById(link.getAttribute('href').slice(1))?.scrollIntoView({behavior: 'instant', block: 'start'});
  }, true);
}"""


CSS = """
.status { padding: 10px 14px; border-radius: 6px; font-size: 15px; line-height: 1.45; }
.status-ok { background: #E8F1FA; color: #0B3A5E; border: 1px solid #9CC3E4; }
.status-error { background: #FDECEA; color: #7A1000; border: 2px solid #C62828; overflow-wrap: break-word; }
#run-row { align-items: center; flex-wrap: wrap; }
#run-row > #status { flex: 1 1 300px !important; min-width: min(300px, 100%) !important; }
.file-chip { display: inline-block; padding: 2px 8px; border-radius: 10px; background: var(--background-fill-secondary);
  border: 1px solid var(--border-color-primary); font-size: 13px; overflow-wrap: anywhere; }
.note-ok { color: #0B5E2E; font-size: 13px; } .note-error { color: #7A1000; font-size: 13px; font-weight: 600; }
.note { font-size: 14px; color: var(--body-text-color-subdued); }
.table-wrap { overflow-x: auto; max-width: 100%; -webkit-overflow-scrolling: touch; }
/* A table wider than its box says so (PAGE_JS marks it): a line kept in view and a shadow at the edge. */
.table-wrap.scrolls-right, .table-wrap.scrolls-left { box-shadow: inset -14px 0 10px -10px rgba(0, 0, 0, 0.35); }
.table-wrap.scrolls-left:not(.scrolls-right) { box-shadow: inset 14px 0 10px -10px rgba(0, 0, 0, 0.35); }
.table-wrap.scrolls-right::before, .table-wrap.scrolls-left::before {
  content: "⇆ wider than the page: scroll the table sideways"; display: block; position: sticky; left: 0;
  width: max-content; max-width: 100%; font-size: 13px; color: var(--body-text-color-subdued); margin: 0 0 2px; }
.table-wrap.scrolls-left:not(.scrolls-right)::before { content: "⇆ scroll back for the first columns"; }
.metrics-table, .slot-table, .data-table {
  border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums;
}
.metrics-table th, .metrics-table td, .slot-table th, .slot-table td, .data-table th, .data-table td {
  border: 1px solid var(--border-color-primary); padding: 4px 8px; text-align: left;
  color: var(--body-text-color);
}
.metrics-table td, .data-table td.num { text-align: right; white-space: nowrap; }
.metrics-table td { min-width: 64px; }
.metrics-table th, .data-table th { white-space: normal; min-width: 4.5em; }
.metrics-table thead th:not(:first-child), .data-table thead th:not(:first-child) { overflow-wrap: break-word; }
.metrics-table tbody th { overflow-wrap: normal; word-break: normal; hyphens: none; }
.status, .legend-item, .compare-summary li, p.note, .dialogue-scores li, .slot-title { overflow-wrap: break-word; }
#pair-scatter p.note { color: var(--body-text-color); }
.metrics-table, .data-table { max-width: 100%; }
.table-wrap > table th:first-child, .table-wrap > table td:first-child {
  position: sticky; left: 0; z-index: 1; background: var(--background-fill-primary); }
.table-wrap > table thead th:first-child { background: var(--background-fill-secondary); }
#url-query, #ticket-no { display: none !important; }
#example input, #compat input { padding-right: 2.4em; text-overflow: ellipsis; }
.slot-table th { overflow-wrap: break-word; }
.data-table td:not(.num):not(:first-child) { overflow-wrap: break-word; }
.data-table td:first-child { overflow-wrap: break-word; }
#gold-formats-row { flex-wrap: wrap; }  /* side by side when each has 300 px, else stacked */
#gold-formats-row > * { flex: 1 1 300px !important; min-width: min(300px, 100%) !important; }
@media (max-width: 640px) {  /* a set's upload and empty buttons side by side: Score stays in two screens */
  .set-buttons { flex-wrap: nowrap !important; }
  .set-buttons > button { min-width: 0 !important; flex: 1 1 0 !important; }
  .table-wrap > table th:first-child, .table-wrap > table td:first-child { max-width: 38vw; }
}
.metrics-table { margin-bottom: 10px; }
.metrics-table thead th, .slot-table thead th, .data-table thead th { background: var(--background-fill-secondary); }
.metrics-table tr.main th, .metrics-table tr.main td { font-weight: 700; font-size: 15px; }
.metrics-table tr.detail th, .metrics-table tr.detail td { font-size: 13px; }
.data-table tr.clickable { cursor: pointer; }
.data-table tr.clickable:hover, .data-table tr.clickable:focus { background: var(--background-fill-secondary); }
.data-table tr.selected { outline: 2px solid #0072B2; outline-offset: -2px; }
.compare-table tr.significant td.diff, .compare-table tr.significant td.sig { font-weight: 700; }
td.compat { background: #FFF3D1; color: #3D2E00; }
.metrics-table td.compat::after { content: "†"; margin-left: 1px; }
.compare-summary { margin: 6px 0 0 18px; font-size: 14px; }
.set-swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px;
  vertical-align: -1px; }
.signature { font-size: 13px; margin-top: 8px; overflow-wrap: anywhere; }
.signature code { font-size: 13px; }
.legend, .chart-legend { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 6px 0 12px; font-size: 13px; }
.legend-item { display: inline-flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.chip { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 13px; font-weight: 700;
  white-space: nowrap; margin: 1px 4px 1px 0; }
.chip-unchanged { background: transparent; color: var(--body-text-color);
  border: 1px dashed var(--border-color-primary); font-weight: 400; }
.quiet { color: var(--body-text-color-subdued); }
.dialogue-scores { list-style: none; padding: 0; margin: 4px 0 8px; font-size: 14px; }
.dialogue-scores li { margin: 2px 0; }
.slot-summary { font-size: 13px; color: var(--body-text-color-subdued); }
.slot-table { width: 100%; }
.slot-table td.value, .slot-table td.slot { overflow-wrap: break-word; word-break: normal; hyphens: none; }
.slot-table td.absent { color: var(--body-text-color-subdued); text-align: center; }
.slot-table tr.turn-start > * { border-top: 2px solid var(--body-text-color-subdued); }
.slot-table th.turn { text-align: center; vertical-align: top; width: 3em; }
.slot-table tr.unchanged td.slot, .slot-table tr.unchanged td.value { color: var(--body-text-color-subdued); }
.slot-table td.no-change { color: var(--body-text-color-subdued); font-style: italic; }
.slot-title { margin: 0 0 4px; }
svg.chart { width: 100%; height: auto; max-width: 520px; display: block; background: #fff; border-radius: 4px; }
svg.scatter, svg.pair-scatter { max-width: 460px; }
svg.chart .point { cursor: pointer; }
svg.chart .point:hover use, svg.chart .point.selected use {
  stroke-width: 3px !important; fill-opacity: 0.9 !important; }
.label-wrap > span:first-child { min-width: 0 !important; flex: 1 1 auto !important; white-space: normal !important;
  text-align: left; }
.label-wrap > .icon { flex: none !important; }
.reliability-row { display: flex; flex-wrap: wrap; gap: 16px; }
.reliability { margin: 8px 0; flex: 0 1 320px; min-width: 0; }
.reliability figcaption { font-size: 14px; font-weight: 700; }
@media (max-width: 640px) {
  .slot-table thead { display: none; }
  .slot-table, .slot-table tbody, .slot-table tr { display: block; width: 100%; }
  .slot-table tr { border: 1px solid var(--border-color-primary); border-radius: 6px; margin: 0 0 6px; padding: 4px; }
  .slot-table tr.turn-start { border-top: 3px solid var(--body-text-color-subdued); }
  .slot-table th, .slot-table td { display: grid; grid-template-columns: 9em 1fr; gap: 6px; border: none;
    padding: 2px 4px; width: auto; text-align: left; }
  .slot-table td.kinds { grid-template-columns: 9em minmax(0, 1fr); }
  .table-wrap > .slot-table th:first-child, .table-wrap > .slot-table td:first-child {
    max-width: none; position: static; }  /* cards: no sticky first column */
  .slot-table th.turn::before { content: "Turn"; font-weight: 400; }
  .slot-table td::before { content: attr(data-label); color: var(--body-text-color-subdued); font-weight: 400;
    overflow-wrap: break-word; }
  .slot-table td.kinds .chips { display: flex; flex-wrap: wrap; gap: 4px; align-items: flex-start; min-width: 0; }
  .slot-table td.no-change::before { content: ""; }
  .slot-table tr.turn-start > * { border-top: none; }
}
"""
