"""GCA explorer: the Hugging Face Space of dst-metrics (Gradio Blocks, gradio 6).

Run ``python app.py``; it serves on localhost, port from GRADIO_SERVER_PORT (default 7860).

The module has two halves. The first holds pure functions (options, reading the prediction
sets, the tables, the per-slot view HTML, the section 5.2 analysis) that tests call without a
browser; `explore` ties them together. The second, `build_demo`, only lays out the page and
wires events to those functions. All metric logic lives in `dst_metrics`: the options and their
checks (`dst_metrics.options`), the input formats (`dst_metrics.readers`) and the figures with
their labels, groups and descriptions (`dst_metrics.figures`); the page adds only its wording.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # the page must not call home

import html
import json
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path

try:
    import gradio as gr
    import pandas as pd
except ImportError as missing:  # `python app.py` without the Space's extra: one line, no traceback
    if __name__ != "__main__":
        raise
    need = missing.name or "gradio and pandas"
    raise SystemExit(f"app.py needs {need}: install the Space's extra with pip install -e \".[space]\"") from None

from dst_metrics import VALUE_MATCHINGS, Corpus, Dialogue, InputError, Options, Report, score
from dst_metrics.examples import EXAMPLES
from dst_metrics.explain import (
    SlotRow,
    explain_dialogue,
    mistakes_per_turn,
    non_uniformity,
    pearson,
    tail_orientation,
)
from dst_metrics.figures import FIGURES, figure_labels, figure_of
from dst_metrics.readers import FORMATS, READERS, detect, read_with_format

log = logging.getLogger("gca-explorer")

# --------------------------------------------------------------------------------------------
# Constants of the page

SET_LABELS = ("A", "B")
SET_COLORS = ("#0072B2", "#E69F00")  # Okabe-Ito blue and orange: distinct under colour blindness
# The figures, their labels, groups and descriptions come from `dst_metrics.figures.FIGURES`;
# the page adds one row of its own (the number of dialogues, beside the registry's `turns`)
# and the captions of its three tables, one per registry group.
DIALOGUES_ROW = ("dialogues", "Dialogues", "number of dialogues scored")
TABLE_CAPTIONS = {"main": "Metric", "counts": "GCA counts", "detail": "More figures"}
AUTO_LABEL = "auto-detect"

# Count type -> (background, text colour, symbol). Okabe-Ito colours, told apart under the three
# common colour blindnesses, each with text contrast >= 4.5:1; the symbol and the word repeat it.
COUNT_STYLES: dict[str, tuple[str, str, str]] = {
    "correct": ("#0072B2", "#FFFFFF", "✓"),
    "wrong": ("#D55E00", "#000000", "✗"),
    "missed": ("#F0E442", "#000000", "−"),
    "overshot": ("#CC79A7", "#000000", "+"),
}
COUNT_MEANINGS = {
    "correct": "gold and prediction agree on the change",
    "wrong": "both have the slot, with different values",
    "missed": "gold has the slot, the prediction does not",
    "overshot": "the prediction has a slot that gold does not",
}

ALL_EXAMPLES = "all"
EXAMPLE_CHOICES: list[tuple[str, str]] = [
    ("Figure 1: the first example, P1 vs P2", "first_example"),
    ("Section 5.4: the hypothetical dialogue, P1 vs P2", "hypothetical"),
    ("Figure 6: MultiWOZ dialogue MUL1110", "mul1110"),
    ("All three paper dialogues as one corpus", ALL_EXAMPLES),
]


# --------------------------------------------------------------------------------------------
# Pure functions: settings and input


def read_settings(
    mode: str,
    alpha: str | float | None,
    fga_lambda: float | None,
    num_slots: float | None,
    value_matching: str,
) -> Options:
    """The library's `Options` from the option widgets: `Options` parses and checks every value
    (α as '10/11' or '0.9', K from gradio's float) and raises OptionError, a ValueError, in the
    library's wording. The widgets need no conversion of their own."""
    return Options(mode=mode, alpha=alpha, fga_lambda=fga_lambda, num_slots=num_slots, value_matching=value_matching)


def format_label(name: str) -> str:
    """How the page names an input format: the reader's description, or 'auto-detect'."""
    return AUTO_LABEL if name == "auto" else READERS[name].description


@dataclass(frozen=True)
class PredictionSet:
    """One pasted or uploaded prediction set: a name, its corpus and the layout it was read in."""

    name: str
    corpus: Corpus
    layout: str


def read_prediction_set(label: str, name: str, text: str, fmt: str, value_matching: str) -> PredictionSet:
    """Read one set with `dst_metrics.readers` (`fmt` is one of its FORMATS); an InputError says
    which set and, once the format is known, which format it was read as."""
    shown = name.strip() or label
    where = f"Prediction set {label} {shown!r}"
    data = text.encode("utf-8")  # bytes: pasted text is never taken for a path
    used = fmt
    if fmt == "auto" and data.strip():  # empty input: the reader's own message below
        try:
            used = detect(data)
        except InputError as error:
            raise error.within(where) from None
    if used in READERS:
        where += f" (read as {READERS[used].description}" + (", auto-detected)" if fmt == "auto" else ")")
    corpus, used = read_with_format(data, used, value_matching=value_matching, name=where)
    return PredictionSet(shown, corpus, used)


def check_comparable(first: PredictionSet, second: PredictionSet) -> None:
    """Two sets compare only on the same dialogues, turns and gold states; else InputError."""
    a = {d.dialogue_id: d for d in first.corpus.dialogues}
    b = {d.dialogue_id: d for d in second.corpus.dialogues}
    if a.keys() != b.keys():
        only_a, only_b = sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys())
        parts = [f"only in {s.name!r}: {_short_list(ids)}" for s, ids in ((first, only_a), (second, only_b)) if ids]
        raise InputError("the two prediction sets do not cover the same dialogues (" + "; ".join(parts) + ")")
    for dialogue_id, da in a.items():
        db = b[dialogue_id]
        if da.turn_ids != db.turn_ids:
            raise InputError(
                f"the two prediction sets have different turns: {first.name!r} has "
                f"{_short_list(da.turn_ids)}, {second.name!r} has {_short_list(db.turn_ids)}",
                dialogue=dialogue_id,
            )
        for turn_id, gold_a, gold_b in zip(da.turn_ids, da.gold, db.gold, strict=True):
            if gold_a != gold_b:
                raise InputError(
                    "the gold state differs between the two prediction sets; both must be scored "
                    "against the same reference",
                    dialogue=dialogue_id,
                    turn=turn_id,
                    field="gt",
                )


def _short_list(items) -> str:
    items = list(items)
    shown = ", ".join(repr(i) if isinstance(i, str) else str(i) for i in items[:5])
    return f"[{shown}{', …' if len(items) > 5 else ''}]"


def read_prediction_sets(
    entries: list[tuple[str, str]], fmt: str = "auto", value_matching: str = "exact"
) -> list[PredictionSet]:
    """Read up to two (name, text) entries. The first is required; a later entry with blank
    text is left out; every later set must match the first (`check_comparable`)."""
    sets: list[PredictionSet] = []
    for index, (name, text) in enumerate(entries):
        label = SET_LABELS[index]
        if index and not (text or "").strip():
            continue
        current = read_prediction_set(label, name or "", text or "", fmt, value_matching)
        if any(s.name == current.name for s in sets):
            current = PredictionSet(f"{current.name} ({label})", current.corpus, current.layout)
        if sets:
            check_comparable(sets[0], current)
        sets.append(current)
    return sets


def read_upload(path: str | Path | None) -> str:
    """The text of an uploaded file (UTF-8); InputError if it is not text."""
    if not path:
        raise InputError("no file was uploaded")
    path = Path(path)
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"the file is not UTF-8 text ({error.reason} at byte {error.start})", source=path.name
        ) from None


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
    """What choosing a preloaded example puts in the data boxes."""

    name_a: str
    text_a: str
    name_b: str
    text_b: str
    description: str


def example_input(key: str) -> ExampleInput:
    """The boxes' content for a preloaded example (`EXAMPLE_CHOICES`)."""
    if key == ALL_EXAMPLES:
        layouts: list[dict] = [{}, {}]
        for example in EXAMPLES.values():
            names = list(example.predictions)
            for side in (0, 1):
                layouts[side].update(example.reference_layout(names[min(side, len(names) - 1)]))
        return ExampleInput(
            "P1",
            format_reference_layout(layouts[0]),
            "P2",
            format_reference_layout(layouts[1]),
            "**All three paper dialogues as one corpus.** Set P1 holds P1 of Figure 1 and of section "
            "5.4 with the MUL1110 prediction; set P2 holds their P2 with the same MUL1110 "
            "prediction. Three dialogues are enough to show the per-dialogue GCA vs FGA analysis.",
        )
    if key not in EXAMPLES:
        raise InputError(f"unknown example {key!r}")
    example = EXAMPLES[key]
    names = list(example.predictions)
    published = "; ".join(
        f"{name}: " + ", ".join(f"{metric.upper()} {value:.2f}" for metric, value in figures.items())
        for name, figures in example.published.items()
    )
    description = f"**{example.title}.** {example.description}"
    if published:
        description += f" *Published: {published}.*"
    second = names[1] if len(names) > 1 else None
    return ExampleInput(
        names[0],
        format_reference_layout(example.reference_layout(names[0])),
        second or "",
        format_reference_layout(example.reference_layout(second)) if second else "",
        description,
    )


# --------------------------------------------------------------------------------------------
# Pure functions: scores and their views


@dataclass(frozen=True)
class ScoredSet:
    """A prediction set with its report (per dialogue too)."""

    name: str
    corpus: Corpus
    layout: str
    report: Report


def score_sets(sets: list[PredictionSet], options: Options) -> list[ScoredSet]:
    """Score every set under `options`, corpus and per dialogue."""
    return [ScoredSet(s.name, s.corpus, s.layout, score(s.corpus, options, per_dialogue=True)) for s in sets]


def pct(x: float) -> str:
    """A fraction as percent with 2 decimals ('73.33'); '—' for NaN."""
    return "—" if x is None or math.isnan(x) else f"{100 * x:.2f}"


def metric_label(key: str, label: str, options: Options) -> str:
    """A figure's row label, with the option it depends on when the label does not say it
    (the page's wording: 'FGA (λ=0.5)', 'SA (K=30)')."""
    if key == "fga":
        return f"{label} (λ={options.fga_lambda:g})"
    if key == "sa":
        return f"{label} (K={options.num_slots})"
    return label


@dataclass(frozen=True)
class MetricRow:
    """One row of the comparison table: a figure key, its label on the page, its registry group
    ('main': the bar chart's figures, 'counts' or 'detail') and what it measures."""

    key: str
    label: str
    group: str
    description: str
    is_count: bool


def metric_rows(options: Options) -> list[MetricRow]:
    """Every row of the comparison table, in registry order: every key of every registered
    figure under `options` (per-λ FGA keys included), and the page's Dialogues row just before
    `turns` (at the end of the counts when no figure has that key)."""
    labels = figure_labels(options)
    rows = [
        MetricRow(key, metric_label(key, labels[key], options), figure.group, figure.description, figure.is_count)
        for figure in FIGURES
        for key in figure.keys(options)
    ]
    key, label, description = DIALOGUES_ROW
    at = next((i for i, row in enumerate(rows) if row.key == "turns"), None)
    if at is None:
        at = max((i + 1 for i, row in enumerate(rows) if row.group == "counts"), default=len(rows))
    group = rows[at].group if at < len(rows) and rows[at].key == "turns" else "counts"
    rows.insert(at, MetricRow(key, label, group, description, True))
    return rows


def figure_text(result: ScoredSet, key: str) -> str:
    """One figure of a set as shown: percent with 2 decimals, counts as integers."""
    if key == DIALOGUES_ROW[0]:
        return str(len(result.corpus))
    value = result.report.scores[key]
    return str(value) if figure_of(key).is_count else pct(value)


def metrics_frame(results: list[ScoredSet], options: Options | None = None) -> pd.DataFrame:
    """The full comparison table, indexed by key: every registered figure key under `options`
    ('gca', 'fga@0.25', 'missed', 'turns', ...) and 'dialogues'; the column 'Metric' holds the
    row label, then one column of displayed text per set. `options` defaults to the options
    the first set was scored with."""
    options = options or results[0].report.options
    rows = metric_rows(options)
    data = {"Metric": [row.label for row in rows]}
    for r in results:
        data[r.name] = [figure_text(r, row.key) for row in rows]
    return pd.DataFrame(data, index=[row.key for row in rows])


def bars_frame(results: list[ScoredSet], options: Options) -> pd.DataFrame:
    """Bar chart data: the registry's main figures in percent, one bar per (figure, set).

    The chart sorts bars by their label ascending (gradio 6.31 does not redraw a BarPlot whose
    `sort` is a list when only the data change), so each label starts with as many spaces as
    put it in table order: more spaces sort first and are not seen."""
    labels = figure_labels(options)
    main = [row for row in metric_rows(options) if row.group == "main" and not row.is_count]
    rows = []
    for i, row in enumerate(main):
        for j, r in enumerate(results):
            rank = len(results) * (len(main) - i) - j
            rows.append(
                {
                    "bar": " " * rank + f"{labels[row.key]} · {r.name}",
                    "metric": row.label,
                    "set": r.name,
                    "score (%)": round(100 * r.report.scores[row.key], 2),
                }
            )
    return pd.DataFrame(rows, columns=["bar", "metric", "set", "score (%)"])


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def swatch(index: int) -> str:
    """The small square in the colour of prediction set `index`."""
    return f'<span class="set-swatch" style="background:{SET_COLORS[index]}"></span>'


def table_caption(group: str, rows: list[MetricRow]) -> str:
    """The first header cell of a group's table: the page's name of the group and the unit of
    its rows ('(%)', none for counts alone, '(% or count)' for a mix)."""
    name = TABLE_CAPTIONS.get(group, group.capitalize())
    counts = {row.is_count for row in rows}
    unit = "" if counts == {True} else " (%)" if counts == {False} else " (% or count)"
    return name + unit


def metrics_html(results: list[ScoredSet], options: Options, groups: tuple[str, ...] = ("main",)) -> str:
    """The comparison table as HTML for the row `groups` (registry groups, see `metric_rows`);
    main figures in bold, each row label titled with what the figure measures. Each cell carries
    data-metric and data-set attributes."""
    head = "".join(f'<th scope="col">{swatch(i)}{_e(r.name)}</th>' for i, r in enumerate(results))
    rows = [row for row in metric_rows(options) if row.group in groups]
    body = []
    for row in rows:
        cells = "".join(
            f'<td data-metric="{_e(row.key)}" data-set="{_e(r.name)}">{figure_text(r, row.key)}</td>' for r in results
        )
        body.append(
            f'<tr class="{_e(row.group)}"><th scope="row" title="{_e(row.description)}">{_e(row.label)}</th>'
            f"{cells}</tr>"
        )
    caption = table_caption(groups[0], rows)
    return (
        f'<div class="table-wrap"><table class="metrics-table" id="metrics-{groups[0]}">'
        f'<thead><tr><th scope="col">{_e(caption)}</th>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
        "</table></div>"
    )


def signature_html(results: list[ScoredSet]) -> str:
    """The signature string of the figures (every option they depend on)."""
    return f'<p class="signature">Signature: <code id="signature">{_e(results[0].report.signature)}</code></p>'


def legend_html() -> str:
    """The colour legend of the per-slot view."""
    items = "".join(
        f'<span class="legend-item">{count_chip(kind)}'
        f'<span class="legend-text">{_e(COUNT_MEANINGS[kind])}</span></span>'
        for kind in COUNT_STYLES
    )
    unchanged = (
        '<span class="legend-item"><span class="chip chip-unchanged">unchanged</span>'
        '<span class="legend-text">carried over, judged in an earlier turn</span></span>'
    )
    return f'<div class="legend">{items}{unchanged}</div>'


def count_chip(kind: str) -> str:
    """One count type as a coloured label with its symbol."""
    background, color, symbol = COUNT_STYLES[kind]
    return f'<span class="chip" style="background:{background};color:{color}">{symbol} {kind}</span>'


def _value_cell(value: str | None) -> str:
    if value is None:
        return '<td class="value absent" title="absent">—</td>'
    return f'<td class="value">{_e(value)}</td>'


def slot_table_html(name: str, index: int, dialogue: Dialogue, mode: str, show_unchanged: bool) -> str:
    """One set's per-turn, per-slot table of a dialogue (Figure 2 of the GCA paper)."""
    rows = explain_dialogue(dialogue, mode)
    totals = dict.fromkeys(COUNT_STYLES, 0)
    by_turn: dict[int, list[SlotRow]] = {}
    for row in rows:
        for kind in row.count_types:
            totals[kind] += 1
        if row.count_types or show_unchanged:
            by_turn.setdefault(row.position, []).append(row)
    body = []
    for position, turn_id in enumerate(dialogue.turn_ids):
        shown = by_turn.get(position, [])
        turn_cell = f'<th scope="rowgroup" class="turn" rowspan="{max(1, len(shown))}">{turn_id}</th>'
        if not shown:
            body.append(f'<tr class="turn-start">{turn_cell}<td colspan="4" class="no-change">no change</td></tr>')
            continue
        for i, row in enumerate(shown):
            kinds = "".join(count_chip(kind) for kind in row.count_types) or (
                '<span class="chip chip-unchanged">unchanged</span>'
            )
            css = "turn-start" if i == 0 else ""
            css += "" if row.count_types else " unchanged"
            body.append(
                f'<tr class="{css.strip()}">{turn_cell if i == 0 else ""}<td class="slot">{_e(row.slot)}</td>'
                f"{_value_cell(row.gold)}{_value_cell(row.pred)}"
                f'<td class="kinds" data-kinds="{_e(" ".join(row.count_types))}">{kinds}</td></tr>'
            )
    summary = " · ".join(f"{kind} {totals[kind]}" for kind in COUNT_STYLES)
    return (
        f'<div class="slot-set"><h4>{swatch(index)}{_e(name)}'
        f'</h4><p class="slot-summary">{summary}</p><div class="table-wrap"><table class="slot-table">'
        '<thead><tr><th scope="col">Turn</th><th scope="col">Slot</th><th scope="col">Gold</th>'
        '<th scope="col">Predicted</th><th scope="col">Count type</th></tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div></div>"
    )


def slot_view_html(results: list[ScoredSet], dialogue_id: str | None, mode: str, show_unchanged: bool) -> str:
    """The per-slot view of one dialogue for every set, side by side, with the legend."""
    if not results:
        return ""
    corpus = results[0].corpus
    if dialogue_id is None or dialogue_id not in {d.dialogue_id for d in corpus.dialogues}:
        dialogue_id = corpus.dialogues[0].dialogue_id
    tables = "".join(
        slot_table_html(r.name, i, r.corpus.dialogue(dialogue_id), mode, show_unchanged) for i, r in enumerate(results)
    )
    return (
        f'<div class="slot-view"><p class="slot-title">Dialogue <b>{_e(dialogue_id)}</b> '
        f'({mode} mode)</p>{legend_html()}<div class="slot-sets">{tables}</div></div>'
    )


def dialogue_frame(results: list[ScoredSet], mode: str) -> pd.DataFrame:
    """Per set and dialogue: GCA and FGA (fractions), their difference, and the paper's
    tail orientation (TO) and non-uniformity (NU) of the mistakes."""
    rows = []
    for r in results:
        for dialogue in r.corpus.dialogues:
            scores = r.report.dialogues[dialogue.dialogue_id]
            mistakes = mistakes_per_turn(dialogue, mode)
            rows.append(
                {
                    "set": r.name,
                    "dialogue": dialogue.dialogue_id,
                    "turns": len(dialogue),
                    "mistakes": sum(mistakes),
                    "GCA": scores.gca,
                    "FGA": scores.fga,
                    "FGA - GCA": scores.fga - scores.gca,
                    "TO": tail_orientation(mistakes),
                    "NU": non_uniformity(mistakes),
                }
            )
    return pd.DataFrame(rows, columns=["set", "dialogue", "turns", "mistakes", "GCA", "FGA", "FGA - GCA", "TO", "NU"])


def scatter_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Scatter data: per-dialogue GCA and FGA in percent."""
    out = frame[["set", "dialogue", "GCA", "FGA"]].copy()
    out["GCA"] = (100 * out["GCA"]).round(2)
    out["FGA"] = (100 * out["FGA"]).round(2)
    return out


def _num(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.2f}"


def disagreement_frame(frame: pd.DataFrame, top: int = 10) -> pd.DataFrame:
    """The `top` (set, dialogue) pairs where GCA and FGA differ most (section 5.2), formatted:
    GCA, FGA and FGA − GCA in percent, TO and NU with 2 decimals. Ties keep corpus order."""
    order = frame.assign(gap=frame["FGA - GCA"].abs()).sort_values("gap", ascending=False, kind="stable")
    top_rows = order.head(max(0, int(top)))
    return pd.DataFrame(
        {
            "Set": top_rows["set"],
            "Dialogue": top_rows["dialogue"],
            "Turns": top_rows["turns"].astype(str),
            "Mistakes": top_rows["mistakes"].astype(str),
            "GCA": top_rows["GCA"].map(pct),
            "FGA": top_rows["FGA"].map(pct),
            "FGA − GCA": top_rows["FGA - GCA"].map(lambda x: f"{100 * x:+.2f}"),
            "TO": top_rows["TO"].map(_num),
            "NU": top_rows["NU"].map(_num),
        }
    ).reset_index(drop=True)


PAPER_CORRELATIONS = {("TO", "FGA"): 0.08, ("TO", "GCA"): -0.05, ("NU", "FGA"): 0.59, ("NU", "GCA"): 0.40}


def correlations_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Pearson r over dialogues of FGA and GCA with TO and NU: a row per pair, a column per set
    and the GCA paper's values (TRADE and SOM-DST on MultiWOZ, section 5.2)."""
    data: dict[str, list] = {"Pair": [f"{m} vs {x}" for m, x in PAPER_CORRELATIONS]}
    for name, part in frame.groupby("set", sort=False):
        data[str(name)] = [pearson(list(part[m]), list(part[x])) for m, x in PAPER_CORRELATIONS]
    data["GCA paper"] = list(PAPER_CORRELATIONS.values())
    return pd.DataFrame(data)


def correlations_html(frame: pd.DataFrame) -> str:
    """`correlations_frame` as an HTML table."""
    table = correlations_frame(frame)
    names = list(table.columns[1:])
    head = "".join(f'<th scope="col">{_e(n)}</th>' for n in names)
    body = "".join(
        f'<tr><th scope="row">{_e(row["Pair"])}</th>' + "".join(f"<td>{_num(row[n])}</td>" for n in names) + "</tr>"
        for _, row in table.iterrows()
    )
    return (
        '<div class="table-wrap"><table class="metrics-table corr-table">'
        f'<thead><tr><th scope="col">Pearson r</th>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )


def status_html(message: str, ok: bool) -> str:
    """The status line: a summary, or the problem with the input (never a traceback)."""
    if ok:
        return f'<div class="status status-ok" role="status">{_e(message)}</div>'
    return (
        '<div class="status status-error" role="alert" id="status-error"><b>Could not score this input.</b> '
        f"{_e(message)}</div>"
    )


@dataclass
class Exploration:
    """Everything the page shows for one input: pure data, no widgets."""

    ok: bool
    status: str
    results: list[ScoredSet] = field(default_factory=list)
    options: Options = field(default_factory=Options)
    metrics: str = ""  # main metrics and counts
    details: str = ""  # the other figures
    signature: str = ""
    bars: pd.DataFrame | None = None
    dialogue_ids: list[str] = field(default_factory=list)
    dialogue_id: str | None = None  # the dialogue of the per-slot view
    slots: str = ""
    dialogues: pd.DataFrame | None = None  # dialogue_frame, only with several dialogues
    scatter: pd.DataFrame | None = None
    disagreements: pd.DataFrame | None = None
    correlations: str = ""


def explore(
    entries: list[tuple[str, str]],
    *,
    fmt: str = "auto",
    mode: str = "official",
    alpha: str | float = "10/11",
    fga_lambda: float = 0.5,
    num_slots: float = 30,
    value_matching: str = "exact",
    top: int = 10,
    show_unchanged: bool = False,
    dialogue_id: str | None = None,
) -> Exploration:
    """Read, score and lay out one or two prediction sets; the per-slot view shows `dialogue_id`
    if the corpus has it, else its first dialogue. Bad input or options give an Exploration with
    ok=False and the problem in `status`; nothing raises."""
    try:
        options = read_settings(mode, alpha, fga_lambda, num_slots, value_matching)
        sets = read_prediction_sets(entries, fmt, options.value_matching)
        results = score_sets(sets, options)
    except ValueError as error:  # InputError and OptionError are ValueErrors
        return Exploration(False, str(error))
    corpus = results[0].corpus
    layouts = {format_label(r.layout) for r in results}
    read_as = (
        f"read as {layouts.pop()}"
        if len(layouts) == 1
        else "; ".join(f"{r.name} read as {format_label(r.layout)}" for r in results)
    )
    status = (
        f"Scored {len(results)} prediction set{'s' if len(results) > 1 else ''} "
        f"({', '.join(r.name for r in results)}) on {len(corpus)} dialogue{'s' if len(corpus) > 1 else ''} "
        f"and {corpus.num_turns} turn{'s' if corpus.num_turns > 1 else ''}, {read_as}."
    )
    out = Exploration(
        True,
        status,
        results,
        options,
        metrics=metrics_html(results, options, ("main",)) + metrics_html(results, options, ("counts",)),
        details=metrics_html(results, options, ("detail",)),
        signature=signature_html(results),
        bars=bars_frame(results, options),
        dialogue_ids=[d.dialogue_id for d in corpus.dialogues],
    )
    out.dialogue_id = dialogue_id if dialogue_id in out.dialogue_ids else out.dialogue_ids[0]
    out.slots = slot_view_html(results, out.dialogue_id, options.mode, show_unchanged)
    if len(corpus) > 1:
        frame = dialogue_frame(results, options.mode)
        out.dialogues = frame
        out.scatter = scatter_frame(frame)
        out.disagreements = disagreement_frame(frame, top)
        out.correlations = correlations_html(frame)
    return out


# --------------------------------------------------------------------------------------------
# The page

CSS = """
.status { padding: 10px 14px; border-radius: 6px; font-size: 15px; line-height: 1.45; }
.status-ok { background: #E8F1FA; color: #0B3A5E; border: 1px solid #9CC3E4; }
.status-error { background: #FDECEA; color: #7A1000; border: 2px solid #C62828; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; max-width: 100%; }
.metrics-table, .slot-table {
  border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums;
}
.metrics-table th, .metrics-table td, .slot-table th, .slot-table td {
  border: 1px solid var(--border-color-primary); padding: 4px 10px; text-align: left;
  color: var(--body-text-color);
}
.metrics-table td { text-align: right; min-width: 72px; }
.metrics-table th { white-space: nowrap; }
.metrics-table { margin-bottom: 10px; }
.metrics-table thead th, .slot-table thead th { background: var(--background-fill-secondary); }
.metrics-table tr.main th, .metrics-table tr.main td { font-weight: 700; font-size: 15px; }
.metrics-table tr.detail th, .metrics-table tr.detail td { font-size: 13px; }
.set-swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px;
  vertical-align: -1px; }
.signature { font-size: 13px; margin-top: 8px; overflow-wrap: anywhere; }
.signature code { font-size: 13px; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 6px 0 12px; font-size: 13px; }
.legend-item { display: inline-flex; align-items: center; gap: 6px; }
.chip { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 13px; font-weight: 700;
  white-space: nowrap; margin-right: 4px; }
.chip-unchanged { background: transparent; color: var(--body-text-color);
  border: 1px dashed var(--border-color-primary); font-weight: 400; }
.slot-sets { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.slot-set { flex: 1 1 420px; min-width: 0; }
.slot-set h4 { margin: 0 0 4px; font-size: 16px; }
.slot-summary { margin: 0 0 6px; font-size: 13px; color: var(--body-text-color); }
.slot-table { width: 100%; }
.slot-table td.value, .slot-table td.slot { overflow-wrap: anywhere; }
.slot-table td.absent { color: var(--body-text-color-subdued); text-align: center; }
.slot-table tr.turn-start > * { border-top: 2px solid var(--body-text-color-subdued); }
.slot-table th.turn { text-align: center; vertical-align: top; width: 3em; }
.slot-table tr.unchanged td.slot, .slot-table tr.unchanged td.value { color: var(--body-text-color-subdued); }
.slot-table td.no-change { color: var(--body-text-color-subdued); font-style: italic; }
.slot-title { margin: 0 0 4px; }
"""

INTRO = """
# GCA explorer
Score dialogue-state-tracking predictions with **Granular Change Accuracy** (GCA) and the metrics it
is compared with (JGA, FGA, SA, AGA, RSA, slot F1), and see how GCA counts every change of the state.
Pick one of the GCA paper's examples, or paste or upload your own data; add a second prediction set
to compare. Scores are percentages.
"""

FORMAT_EXAMPLES = {  # the page's examples for the registered formats (dst_metrics.readers.READERS)
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

A second prediction set must hold the same dialogues, turns and gold states as the first.
"""


def format_help() -> str:
    """The 'Input formats' text: every registered format (its description and the page's
    example), how auto-detection works, and what every format shares."""
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


def analysis_note(result: Exploration) -> str:
    """The text above the per-dialogue analysis."""
    if result.dialogues is None:
        return (
            "This corpus has one dialogue; the per-dialogue GCA vs FGA analysis needs several "
            "(try *All three paper dialogues as one corpus*)."
        )
    return (
        f"{len(result.dialogue_ids)} dialogues. Each point is one dialogue of one prediction set; points "
        "far from the diagonal are dialogues where GCA and FGA disagree. The table lists the largest "
        "disagreements (the GCA paper examined 20 such dialogues); click a row to open that dialogue "
        "in the per-slot view. TO: tail orientation, NU: non-uniformity of the mistakes (paper, eq. 7-10)."
    )


THEME_FONTS = ("system-ui", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "Liberation Sans", "DejaVu Sans")
MONO_FONTS = ("ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "Liberation Mono", "DejaVu Sans Mono")


def build_theme() -> gr.themes.Base:
    """The default theme with system fonts: nothing to download, and no half-bundled web font
    (gradio 6.31 ships a Source Sans Pro SemiBold that lacks most glyphs)."""
    return gr.themes.Default(font=[*THEME_FONTS, "sans-serif"], font_mono=[*MONO_FONTS, "monospace"])


def build_demo() -> gr.Blocks:
    """Lay out the page and wire its events."""
    formats = [(format_label(name), name) for name in FORMATS]
    with gr.Blocks(title="GCA explorer") as demo:
        gr.Markdown(INTRO)
        with gr.Row():
            example = gr.Dropdown(
                EXAMPLE_CHOICES, value="first_example", label="Preloaded example", scale=2, elem_id="example"
            )
            fmt = gr.Dropdown(formats, value="auto", label="Input format", scale=3, elem_id="format")
        example_note = gr.Markdown(example_input("first_example").description, elem_id="example-note")
        with gr.Row(equal_height=True):
            boxes = []
            for label in SET_LABELS:
                with gr.Column():
                    name = gr.Textbox(
                        label=f"Prediction set {label}: name", max_lines=1, elem_id=f"name-{label.lower()}"
                    )
                    optional = " (optional, to compare with A)" if label == "B" else ""
                    text = gr.Textbox(
                        label=f"Prediction set {label}: data{optional}",
                        lines=12,
                        max_lines=12,
                        elem_id=f"data-{label.lower()}",
                        placeholder="Paste your data in one of the input formats (see Input formats below)",
                    )
                    upload = gr.UploadButton(
                        f"Upload a file for set {label} (.json, .jsonl, .tsv, .txt)",
                        file_types=[".json", ".jsonl", ".tsv", ".txt"],
                        size="sm",
                        elem_id=f"upload-{label.lower()}",
                    )
                    boxes.append((name, text, upload))
        with gr.Accordion("Input formats", open=False):
            gr.Markdown(format_help())
        with gr.Row():
            mode = gr.Radio(
                ["official", "corrected"],
                value="official",
                label="Mode",
                info="official: as the published code, quirks included",
                elem_id="mode",
            )
            alpha = gr.Textbox(
                value="10/11",
                label="α (GCA value weight)",
                max_lines=1,
                info="e.g. 10/11 or 0.9",
                elem_id="alpha",
            )
            fga_lambda = gr.Number(value=0.5, label="λ (FGA decay)", minimum=0.01, step=0.25, elem_id="lambda")
            num_slots = gr.Number(value=30, label="K (slots, for SA)", minimum=1, precision=0, elem_id="k")
            matching = gr.Radio(
                list(VALUE_MATCHINGS),
                value="exact",
                label="Value matching",
                info="normalized: ignore case and spacing; fuzzy: also partial matches (mwzeval's rule)",
            )
        run = gr.Button("Score", variant="primary", elem_id="score")
        status = gr.HTML(elem_id="status")
        state = gr.State(None)

        with gr.Column(visible=False) as scores_col:
            gr.Markdown("## Scores")
            with gr.Row(equal_height=False):
                with gr.Column(scale=2, min_width=340):
                    metrics = gr.HTML(elem_id="metrics")
                with gr.Column(scale=3):
                    bars = gr.BarPlot(
                        x="bar",
                        y="score (%)",
                        color="set",
                        y_lim=[0, 100],
                        x_label_angle=-45,
                        sort="x",
                        x_title="metric · prediction set",
                        color_title="prediction set",
                        label="Main metrics (%)",
                        elem_id="bars",
                        tooltip=["metric", "set", "score (%)"],
                    )
                    details = gr.HTML(elem_id="details")
            signature = gr.HTML(elem_id="signature-box")
        with gr.Column(visible=False) as slots_col:
            gr.Markdown("## Per turn, per slot: how GCA counted each change (Figure 2 of the GCA paper)")
            with gr.Row():
                dialogue = gr.Dropdown(label="Dialogue", choices=[], elem_id="dialogue", scale=3)
                show_unchanged = gr.Checkbox(
                    label="Show carried-over (unchanged) slots", value=False, scale=2, elem_id="unchanged"
                )
            slots = gr.HTML(elem_id="slots")
        with gr.Column(visible=False) as analysis_col:
            gr.Markdown("## Per-dialogue GCA vs FGA (section 5.2 of the GCA paper)")
            note = gr.Markdown(elem_id="analysis-note")
            with gr.Column(visible=False) as analysis_body:
                scatter = gr.ScatterPlot(
                    x="FGA",
                    y="GCA",
                    color="set",
                    x_lim=[0, 100],
                    y_lim=[0, 100],
                    x_title="FGA (%)",
                    y_title="GCA (%)",
                    color_title="prediction set",
                    label="Per-dialogue GCA against FGA",
                    tooltip=["set", "dialogue", "GCA", "FGA"],
                    elem_id="scatter",
                )
                with gr.Row(equal_height=False):
                    with gr.Column(scale=3):
                        disagreements = gr.Dataframe(
                            label="Where GCA and FGA disagree most (FGA − GCA > 0: FGA rates it higher)",
                            interactive=False,
                            elem_id="disagreements",
                        )
                    with gr.Column(scale=2, min_width=300):
                        top = gr.Slider(1, 50, value=10, step=1, label="Dialogues listed in the table")
                        gr.Markdown("**Where the mistakes fall**: Pearson r over dialogues")
                        correlations = gr.HTML(elem_id="correlations")

        inputs = [fmt, boxes[0][0], boxes[0][1], boxes[1][0], boxes[1][1], mode, alpha, fga_lambda, num_slots]
        inputs += [matching, top, show_unchanged, dialogue]
        outputs = [status, state, scores_col, metrics, details, signature, bars, dialogue, slots_col, slots]
        outputs += [analysis_col, note, analysis_body, scatter, disagreements, correlations]

        def updates(result: Exploration) -> dict:
            if not result.ok:
                hidden = gr.update(visible=False)
                return {
                    status: status_html(result.status, False),
                    state: None,
                    scores_col: hidden,
                    slots_col: hidden,
                    analysis_col: hidden,
                }
            colors = dict(zip((r.name for r in result.results), SET_COLORS, strict=False))
            several = result.dialogues is not None
            return {
                status: status_html(result.status, True),
                state: result,
                scores_col: gr.update(visible=True),
                metrics: result.metrics,
                details: result.details,
                signature: result.signature,
                bars: gr.BarPlot(result.bars, color_map=colors),
                dialogue: gr.update(choices=result.dialogue_ids, value=result.dialogue_id),
                slots_col: gr.update(visible=True),
                slots: result.slots,
                analysis_col: gr.update(visible=True),
                note: analysis_note(result),
                analysis_body: gr.update(visible=several),
                scatter: gr.ScatterPlot(result.scatter, color_map=colors) if several else None,
                disagreements: result.disagreements if several else None,
                correlations: result.correlations,
            }

        def compute(fmt_, name_a, text_a, name_b, text_b, mode_, alpha_, lam, k, matching_, top_, unchanged, shown):
            try:
                result = explore(
                    [(name_a, text_a), (name_b, text_b)],
                    fmt=fmt_,
                    mode=mode_,
                    alpha=alpha_,
                    fga_lambda=lam,
                    num_slots=k,
                    value_matching=matching_,
                    top=top_,
                    show_unchanged=unchanged,
                    dialogue_id=shown,
                )
            except Exception as error:  # a bug, not bad input: say so in the page, log the traceback
                log.exception("explore failed")
                result = Exploration(False, f"internal error ({type(error).__name__}: {error})")
            return updates(result)

        def choose_example(key):
            chosen = example_input(key)
            return chosen.name_a, chosen.text_a, chosen.name_b, chosen.text_b, "auto", chosen.description

        def uploaded(index, text_box):
            def handler(path, *values):
                try:
                    text = read_upload(path)
                except InputError as error:
                    return updates(Exploration(False, str(error.within(f"Prediction set {SET_LABELS[index]}"))))
                values = list(values)
                values[2 + 2 * index] = text
                own = f"Your own data: set {SET_LABELS[index]} from the uploaded file {Path(path).name}."
                return {text_box: text, example: None, example_note: own, **compute(*values)}

            return handler

        def open_dialogue(result, dialogue_id, unchanged):
            if not isinstance(result, Exploration) or not result.ok:
                return ""
            return slot_view_html(result.results, dialogue_id, result.options.mode, unchanged)

        def pick_row(result, evt: gr.SelectData):
            if not isinstance(result, Exploration) or result.disagreements is None or evt is None:
                return gr.update()
            row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
            if not 0 <= int(row) < len(result.disagreements):
                return gr.update()
            return result.disagreements.iloc[int(row)]["Dialogue"]

        example_outputs = [boxes[0][0], boxes[0][1], boxes[1][0], boxes[1][1], fmt, example_note]
        example.select(choose_example, example, example_outputs).then(compute, inputs, outputs)
        demo.load(choose_example, example, example_outputs).then(compute, inputs, outputs)
        run.click(compute, inputs, outputs)
        for widget in (mode, matching):
            widget.input(compute, inputs, outputs)
        for widget in (alpha, fga_lambda, num_slots):
            widget.submit(compute, inputs, outputs)
        top.release(compute, inputs, outputs)
        for index, (_, text, upload) in enumerate(boxes):
            upload.upload(uploaded(index, text), [upload, *inputs], [text, example, example_note, *outputs])
            # Typing in a box leaves the preloaded example: say so, in the browser alone.
            text.input(None, None, [example, example_note], js="() => [null, 'Your own data.']")
        slot_inputs = [state, dialogue, show_unchanged]
        dialogue.input(open_dialogue, slot_inputs, slots)
        show_unchanged.input(open_dialogue, slot_inputs, slots)
        disagreements.select(pick_row, state, dialogue).then(open_dialogue, slot_inputs, slots)
    return demo


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    build_demo().launch(theme=build_theme(), css=CSS, max_file_size="20mb")
