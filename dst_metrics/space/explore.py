"""Everything the page shows for one input, as plain data (HTML and SVG strings): `explore` reads and scores
the sets, `compare_sets` compares each later set with A. The charts are `report.plots`', drawn on the server
from the same numbers as the tables. Nothing here imports gradio."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from dst_metrics import InputError, Options, score
from dst_metrics.analysis.breakdown import breakdown
from dst_metrics.analysis.explain import non_uniformity, pearson, tail_orientation
from dst_metrics.core.tally import CORRECT, tally_dialogue
from dst_metrics.errors import counted
from dst_metrics.options import OptionError
from dst_metrics.report.draw import esc, num, pct, signed_pct
from dst_metrics.report.plots import BarSet, Point, figures_chart, inline_svg, reliability_chart, scatter_chart

from . import exports, views
from .inputs import AUTO, SetInput, format_label, pasted_gold, read_prediction_sets, read_settings, whole_number
from .scored import ScoredSet, calibrated, main_rows, score_sets

PAPER_CORRELATIONS = {("TO", "FGA"): 0.08, ("TO", "GCA"): -0.05, ("NU", "FGA"): 0.59, ("NU", "GCA"): 0.40}
"""Pearson r of the GCA paper (TRADE and SOM-DST on MultiWOZ, section 5.2)."""
DEFAULT_TOP = 10
COMPARE_RESAMPLES = 1000


@dataclass
class Exploration:
    """Everything the page shows for one input: pure data, no widgets."""

    ok: bool
    status: str
    results: list[ScoredSet] = field(default_factory=list)
    options: Options = field(default_factory=Options)
    metrics: str = ""  # main figures and counts
    details: str = ""  # the other figures
    signature: str = ""
    bars: str = ""  # SVG
    dialogue_ids: list[str] = field(default_factory=list)
    dialogue_id: str | None = None  # the dialogue of the per-turn view
    slots: str = ""
    dialogue_rows: list[dict] | None = None  # per set and dialogue, with several dialogues
    scatter: str = ""
    disagreements: str = ""
    correlations: str = ""
    pair_scatter: str = ""
    pair_table: str = ""
    command: str = ""
    snippet: str = ""
    comparison: object = None  # dst_metrics.stats.Comparison of A and B
    comparisons: list = field(default_factory=list)  # each later set against A
    calibration: str = ""  # with confidence-scored predictions: figures and reliability diagrams
    by_domain: str = ""  # every main figure per domain (dst-metrics score --by domain)
    options_error: bool = False  # the options were bad (the inputs were not read): the last figures may stay
    ticket: int = 0  # which computation of the session made it (the page drops a stale one)
    analysed: bool = False  # the views of `analyse_sets` are laid out

    @property
    def several(self) -> bool:
        """Whether the corpus has several dialogues (the per-dialogue views need them)."""
        return self.dialogue_rows is not None


def turn_mistakes(dialogue, mode: str) -> list[int]:
    """The mistakes of each turn (wrong, missed, overshot), as `analysis.explain.mistakes_per_turn` counts them,
    from GCA's walk alone (10 times less work than the per-slot rows)."""
    mistakes = [0] * len(dialogue)

    def observe(position: int, turn_id: object, gold: dict, pred: dict, counted: list) -> None:
        mistakes[position] += sum(1 for _, kind in counted if kind != CORRECT)

    tally_dialogue(dialogue, mode, observe=observe)
    return mistakes


def dialogue_rows(results: list[ScoredSet], mode: str) -> list[dict]:
    """Per set and dialogue: turns, mistakes, GCA and FGA (fractions), FGA − GCA, and the tail orientation (TO)
    and non-uniformity (NU) of the mistakes."""
    rows = []
    for index, r in enumerate(results):
        for dialogue in r.corpus.dialogues:
            scores = r.report.dialogues[dialogue.dialogue_id]
            mistakes = turn_mistakes(dialogue, mode)
            rows.append({
                "set": r.name, "set_index": index, "dialogue": dialogue.dialogue_id, "turns": len(dialogue),
                "mistakes": sum(mistakes), "GCA": scores.gca, "FGA": scores.fga, "FGA - GCA": scores.fga - scores.gca,
                "TO": tail_orientation(mistakes), "NU": non_uniformity(mistakes),
            })  # fmt: skip
    return rows


DISAGREEMENT_CELLS = {
    "Set": ("set", str), "Dialogue": ("dialogue", str), "Turns": ("turns", str), "Mistakes": ("mistakes", str),
    "GCA": ("GCA", pct), "FGA": ("FGA", pct), "FGA − GCA": ("FGA - GCA", signed_pct), "TO": ("TO", num),
    "NU": ("NU", num),
}  # fmt: skip
"""The disagreements table: column -> (the `dialogue_rows` key it shows, how)."""


def disagreement_rows(rows: list[dict], top: int = DEFAULT_TOP) -> list[tuple[str, list[str]]]:
    """The `top` (set, dialogue) pairs where GCA and FGA differ most, as table cells; ties keep corpus order."""
    ordered = sorted(rows, key=lambda row: -abs(row["FGA - GCA"]))[: max(0, int(top))]
    return [(row["dialogue"], [shown(row[key]) for key, shown in DISAGREEMENT_CELLS.values()]) for row in ordered]


def correlation_rows(results: list[ScoredSet], rows: list[dict]) -> tuple[list[str], list[tuple[str, list[float]]]]:
    """Columns (each set, the paper) and a row per (measure, figure) pair of Pearson r."""
    columns = [r.name for r in results] + ["GCA paper"]
    table = []
    for (measure, figure), paper in PAPER_CORRELATIONS.items():
        values = []
        for r in results:
            part = [row for row in rows if row["set"] == r.name]
            values.append(pearson([row[figure] for row in part], [row[measure] for row in part]))
        table.append((f"{measure} vs {figure}", [*values, paper]))
    return columns, table


def pair_rows(a: ScoredSet, b: ScoredSet, top: int) -> list[tuple[str, list[str]]]:
    """Per dialogue, B − A of GCA, JGA and FGA, the largest |GCA difference| first."""
    ids = [d.dialogue_id for d in a.corpus.dialogues]
    diffs = {i: {k: b.report.dialogues[i][k] - a.report.dialogues[i][k] for k in views.DIALOGUE_FIGURES} for i in ids}
    ordered = sorted(ids, key=lambda i: -abs(diffs[i]["gca"]))[: max(0, int(top))]
    cells = {i: [pct(a.report.dialogues[i].gca), pct(b.report.dialogues[i].gca)] for i in ordered}
    return [(i, [i, *cells[i], *(signed_pct(diffs[i][k]) for k in views.DIALOGUE_FIGURES)]) for i in ordered]


def _status(results: list[ScoredSet]) -> str:
    corpus = results[0].corpus
    layouts = {format_label(r.layout) for r in results}
    read_as = "; ".join(f"{r.name} read as {format_label(r.layout)}" for r in results)
    read_as = f"read as {layouts.pop()}" if len(layouts) == 1 else read_as
    names = ", ".join(r.name for r in results)
    return (
        f"Scored {counted(len(results), 'prediction set')} ({names}) on {counted(len(corpus), 'dialogue')} and "
        f"{counted(corpus.num_turns, 'turn')}, {read_as}."
    )


def explore(
    entries: list[SetInput | tuple[str, str]], *, fmt: str = AUTO, gold: SetInput | None = None,
    mode: str = "official", alpha: str | float = "10/11", fga_lambda: float = 0.5, num_slots: float = 30,
    value_matching: str = "exact", top: int = DEFAULT_TOP, show_unchanged: bool = False,
    dialogue_id: str | None = None, compat: str | None = None, analyse: bool = True,
) -> Exploration:  # fmt: skip
    """Read, score and lay out up to four sets (`SetInput`, or (name, text) pairs); the per-turn view shows
    `dialogue_id`, else the first dialogue. Bad input or options give ok=False and the problem in `status`;
    nothing raises. `analyse=False` leaves the views of `analyse_sets` for later."""
    entries = [e if isinstance(e, SetInput) else SetInput(name=e[0] or "", text=e[1] or "") for e in entries]
    try:
        options = read_settings(mode, alpha, fga_lambda, num_slots, value_matching, compat)
    except (InputError, OptionError) as error:  # nothing was read; anything else is a bug (issue 56)
        return Exploration(False, str(error), options_error=True)
    set_aside: list[str] = []
    try:
        sets = read_prediction_sets(entries, fmt, options.value_matching, gold, set_aside)  # an empty gold: none
        results = score_sets(sets, options)
    except OptionError as error:  # an option the data rules out (K below a turn's slots): the last figures stay
        return Exploration(False, str(error), options_error=True)
    except InputError as error:
        return Exploration(False, str(error))
    gold_file = (gold.filename or "gold.json") if gold and not gold.empty else None
    status = " ".join([_status(results), *set_aside])
    out = Exploration(True, status, results, options)
    out.metrics = views.metrics_html(results, options, "main") + views.metrics_html(results, options, "counts")
    out.details = views.metrics_html(results, options, "detail")
    if options.compat:  # ours and the evaluator's, side by side
        ours = [score(r.corpus, dataclasses.replace(options, compat=None)).scores for r in results]
        theirs = [r.report.scores for r in results]
        side = views.compat_side_by_side_html([r.name for r in results], ours, theirs, options.compat)
        out.details = side + out.details
    out.signature = views.signature_line(results[0].report.signature, "signature")
    rows = tuple((row.key, row.label) for row in main_rows(options))
    out.bars = bars_svg(rows, tuple((r.name, tuple(r.report.scores[key] for key, _ in rows)) for r in results))
    out.dialogue_ids = [d.dialogue_id for d in results[0].corpus.dialogues]
    out.dialogue_id = dialogue_id if dialogue_id in out.dialogue_ids else out.dialogue_ids[0]
    out.slots = views.slot_view_html(results, out.dialogue_id, options.mode, show_unchanged)
    out.command = exports.command_line(results, options, fmt, gold_file)
    out.snippet = exports.python_snippet(results, options, gold_file)
    if analyse:
        analyse_sets(out, top)
    return out


def analyse_sets(out: Exploration, top: int = DEFAULT_TOP) -> Exploration:
    """The views that walk every dialogue again: the per-dialogue analysis, calibration, every figure per domain."""
    if not out.ok or out.analysed:
        return out
    if len(out.dialogue_ids) > 1:
        lay_out_dialogues(out, top)
    out.calibration = calibration_view(out.results)
    groups = [breakdown(r.corpus, out.options, "domain") for r in out.results]
    out.by_domain = views.by_domain_html([r.name for r in out.results], groups, out.options)
    out.analysed = True
    return out


def calibration_view(results: list[ScoredSet]) -> str:
    """The calibration figures and reliability diagrams of the sets whose predictions carry confidences."""
    figures = calibrated(results)
    if not figures:
        return ""
    table = views.calibration_html([r.name for _, r, _ in figures], [c for _, _, c in figures])
    diagrams = []
    for i, r, c in figures:  # each under its name
        name = f"{r.name}: slot decisions"
        key = f"reliability-{i + 1}"
        figure, marks = reliability_chart(key, c.as_dict()["reliability"]["slot"]["width"], i, space=True)
        chart = inline_svg(figure, key, f"Reliability diagram of {name}", marks)
        diagrams.append(f'<figure class="reliability"><figcaption>{esc(name)}</figcaption>{chart}</figure>')
    return table + f'<div class="reliability-row">{"".join(diagrams)}</div>'


def lay_out_dialogues(out: Exploration, top: int = DEFAULT_TOP) -> None:
    """The per-dialogue views: GCA against FGA (scatter, largest disagreements, correlations) and B against A."""
    results = out.results
    rows = dialogue_rows(results, out.options.mode)
    out.dialogue_rows = rows
    points = [Point(100 * r["FGA"], 100 * r["GCA"], r["set_index"], r["set"], r["dialogue"]) for r in rows]
    names = [r.name for r in results]
    out.scatter = scatter_html("scatter", points, "FGA (%)", "GCA (%)", names, "Per-dialogue GCA against FGA")
    found = disagreement_rows(rows, top)
    out.disagreements = views.clickable_table(list(DISAGREEMENT_CELLS), found, "disagreements-table", 2)
    out.correlations = views.correlations_html(*correlation_rows(results, rows))
    if len(results) > 1:
        a, b = results[0], results[1]
        pair_points = [
            Point(100 * a.report.dialogues[i].gca, 100 * b.report.dialogues[i].gca, 1, b.name, i)
            for i in out.dialogue_ids
        ]
        caption = (
            f'<p class="note">Each point is a dialogue: above the line y = x {views.esc(b.name)} scored it higher, '
            f"below it {views.esc(a.name)}.</p>"
        )
        legend = ["", f"each point a dialogue: x = {a.name}, y = {b.name}"]  # in B's colour
        out.pair_scatter = caption + scatter_html(
            "pair-scatter", pair_points, f"GCA of {a.name} (%)", f"GCA of {b.name} (%)", legend,
            "Per-dialogue GCA of B against A",
        )  # fmt: skip
        columns = ["Dialogue", f"GCA {a.name}", f"GCA {b.name}", "Δ GCA", "Δ JGA", "Δ FGA"]
        out.pair_table = views.clickable_table(columns, pair_rows(a, b, top), "pair-table", 1)


CHARTS_KEPT = 64
"""How many charts the server keeps drawn (`bars_svg`, `scatter_html`): a chart of the same numbers is not drawn
again, for the next visitor of an example or a mode changed back. matplotlib's drawing was about 45% of the
server's CPU per change of mode on the example of all three dialogues."""


@lru_cache(maxsize=CHARTS_KEPT)
def bars_svg(rows: tuple[tuple[str, str], ...], sets: tuple[tuple[str, tuple[float, ...]], ...]) -> str:
    """The main figures' bars as inline SVG: `rows` (key, label), `sets` (name, each row's figure as a fraction)."""
    bars = [BarSet(name, dict(zip((key for key, _ in rows), figures))) for name, figures in sets]
    figure, marks = figures_chart("bars", list(rows), bars, space=True)
    return inline_svg(figure, "bars", "Main figures in percent, one bar per prediction set", marks)


def scatter_html(
    name: str, points: Sequence[Point], x_title: str, y_title: str, names: Sequence[str], label: str
) -> str:
    """A scatter of dialogues as inline SVG, its points clickable (or their density, with a note)."""
    return _scatter_html(name, tuple(points), x_title, y_title, tuple(names), label)


@lru_cache(maxsize=CHARTS_KEPT)
def _scatter_html(
    name: str, points: tuple[Point, ...], x_title: str, y_title: str, names: tuple[str, ...], label: str
) -> str:
    figure, marks, note = scatter_chart(name, points, x_title, y_title, names, space=True)
    return inline_svg(figure, name, label, marks) + (f'<p class="note density-note">{esc(note)}</p>' if note else "")


def set_intervals(out: Exploration, resamples: int = COMPARE_RESAMPLES) -> str:
    """Each set's bootstrap intervals of the main figures as HTML, or a note for one dialogue."""
    from dst_metrics.stats import bootstrap_intervals

    if not out.ok:
        return ""
    if out.options.compat:
        return (
            f'<p class="note" id="intervals-compat">No intervals under the {views.esc(out.options.compat)} profile: '
            "the bootstrap resamples dst-metrics' own definitions. Choose none for each set's intervals.</p>"
        )
    if len(out.results[0].corpus) < 2:
        return '<p class="note" id="intervals-one">One dialogue: no interval (the bootstrap resamples dialogues).</p>'
    found = [bootstrap_intervals(r.corpus, out.options, resamples=resamples, seed=0) for r in out.results]
    return views.intervals_html([r.name for r in out.results], found, out.options)


def compare_sets(out: Exploration, resamples: int = COMPARE_RESAMPLES) -> str:
    """Each later set compared with A as HTML; the comparisons are kept in `out`."""
    from dst_metrics.stats import compare
    from dst_metrics.stats.paired import FloorWarning

    if not out.ok or len(out.results) < 2:
        return ""
    if out.options.compat:
        return (
            f'<p class="note" id="compare-compat">The intervals and tests are of dst-metrics\' own definitions; '
            f"the figures above follow the {views.esc(out.options.compat)} profile. Choose none to compare.</p>"
        )
    a = out.results[0]
    if len(a.corpus) < 2:
        return (
            '<p class="note" id="compare-one">One dialogue cannot be tested: intervals and p-values resample '
            "dialogues, so they need several. The figures above compare the sets on this dialogue.</p>"
        )
    parts = []
    for index, b in enumerate(out.results[1:], start=1):
        try:
            with warnings.catch_warnings(record=True) as caught:  # shown on the page, not on the server's stderr
                warnings.simplefilter("always", FloorWarning)
                comparison = compare(a.corpus, b.corpus, out.options, resamples=resamples, names=(a.name, b.name))
        except (InputError, OptionError) as error:  # our messages; anything else is a bug (issue 56)
            parts.append(views.status_html(str(error), False, "compare"))
            continue
        out.comparisons.append(comparison)
        heading = f"<h3>{views.esc(b.name)} against {views.esc(a.name)}</h3>" if len(out.results) > 2 else ""
        floors = [w.message for w in caught if issubclass(w.category, FloorWarning)]  # ours, not a dependency's
        floor = "".join(f'<p class="note">{views.esc(str(message))}.</p>' for message in floors)
        parts.append(heading + views.comparison_html(comparison, out.options, index) + floor + _summary(comparison))
    out.comparison = out.comparisons[0] if out.comparisons else None
    return "".join(parts)


def _summary(comparison) -> str:
    lines = comparison.summary().splitlines()
    mcnemar = comparison.mcnemar
    if not math.isnan(mcnemar.p):
        lines.append(
            f"McNemar on JGA per turn, clustered by dialogue: {mcnemar.a_only} turns right only in "
            f"{comparison.names[0]}, {mcnemar.b_only} only in {comparison.names[1]}, p = {mcnemar.p:.3g}."
        )
    items = "".join(f"<li>{views.esc(line)}</li>" for line in lines)
    return f'<ul class="compare-summary">{items}</ul>'


def api_score(
    predictions: str, gold: str = "", fmt: str = AUTO, mode: str = "official", alpha: str = "10/11",
    fga_lambda: float = 0.5, num_slots: float = 30, value_matching: str = "exact", compat: str = "",
) -> dict:  # fmt: skip
    """Score one prediction set, pasted as text in any input format (`fmt`: auto or a reader's name; `gold`:
    for formats holding predictions only). Returns {"figures": {key: value}, "signature", "dialogues",
    "turns", "format"}; figures are fractions of 1, counts are integers."""
    options = read_settings(mode, alpha, fga_lambda, num_slots, value_matching, compat)
    entry = SetInput("predictions", predictions)
    (predicted,) = read_prediction_sets([entry], fmt, options.value_matching, pasted_gold(gold))
    (result,) = score_sets([predicted], options)
    scores = result.report.scores
    return {
        "figures": {key: scores[key] for key in scores if isinstance(scores[key], (int, float))},
        "signature": scores.signature,
        "dialogues": len(result.corpus),
        "turns": result.corpus.num_turns,
        "format": result.layout,
    }


def api_compare(
    a: str, b: str, gold: str = "", fmt: str = AUTO, mode: str = "official", alpha: str = "10/11",
    fga_lambda: float = 0.5, num_slots: float = 30, value_matching: str = "exact", resamples: int = COMPARE_RESAMPLES,
) -> dict:  # fmt: skip
    """Compare two prediction sets on the same dialogues (paired randomization test, bootstrap intervals,
    Holm over every figure): dst_metrics.stats.compare's result as JSON."""
    from dst_metrics.stats import compare
    from dst_metrics.stats.paired import FloorWarning

    options = read_settings(mode, alpha, fga_lambda, num_slots, value_matching)
    entries = [SetInput("A", a), SetInput("B", b)]
    first, second = read_prediction_sets(entries, fmt, options.value_matching, pasted_gold(gold))
    with warnings.catch_warnings():  # the JSON carries p_floor, from which the floor is read
        warnings.simplefilter("ignore", FloorWarning)
        resamples = whole_number(resamples, "resamples")
        return compare(first.corpus, second.corpus, options, resamples=resamples, names=("A", "B")).as_dict()


def try_states(text: str, mode: str = "official", alpha: str = "10/11") -> str:
    """The card's try-it widget: one turn per line, ``gold state | predicted state``, read as one dialogue ->
    GCA, JGA and FGA with GCA's counts, as HTML; a problem is said, never raised."""
    lines = [line for line in (text or "").splitlines() if line.strip()]
    rows = []
    for number, line in enumerate(lines, start=1):
        gold, bar, predicted = line.partition("|")
        if not bar:
            return views.status_html(
                f"line {number}: write the gold state, then |, then the predicted state", False, "try"
            )
        rows.append(f"try\t{number - 1}\t{gold.strip()}\t{predicted.strip()}")
    if not rows:
        return views.status_html("type one turn per line: gold state | predicted state", False, "try")
    try:
        options = read_settings(mode, alpha, 0.5, 30, "exact")
        (read,) = read_prediction_sets([SetInput("typed", "\n".join(rows) + "\n")], "linearized")
        (result,) = score_sets([read], options)
    except (InputError, OptionError) as error:  # our messages; anything else is a bug (issue 56)
        return views.status_html(str(error), False, "try")
    s = result.report.scores
    turns = "turn" if len(rows) == 1 else "turns"
    return (
        f'<p class="try-result" id="try-result"><b>GCA {pct(s.gca)}</b> · JGA {pct(s.jga)} · FGA {pct(s.fga)} '
        f"({len(rows)} {turns}; C {s.correct}, W {s.wrong}, M {s.missed}, O {s.overshot}; {mode} mode)</p>"
    )
