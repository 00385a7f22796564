"""The page's HTML views: figure tables, status lines, the per-turn view of Figure 2 (every set side by side),
the per-dialogue tables and the comparison of two sets. Clickable rows and points carry `data-dialogue`.
"""

from __future__ import annotations

from dst_metrics import Dialogue, Options
from dst_metrics.analysis.explain import SlotRow, explain_dialogue
from dst_metrics.figures.registry import figure_labels
from dst_metrics.report.draw import esc, esc_name, num, pct, signed_pct, swatch, table
from dst_metrics.report.palette import COUNT_COLORS

from .scored import ScoredSet, figure_text, main_rows, metric_rows

TABLE_CAPTIONS = {"main": "Metric", "counts": "GCA counts", "detail": "More figures"}
# Count type -> (background, text colour with contrast >= 4.5:1, symbol)
COUNT_STYLES: dict[str, tuple[str, str, str]] = {
    "correct": (COUNT_COLORS["correct"], "#FFFFFF", "✓"),
    "wrong": (COUNT_COLORS["wrong"], "#000000", "✗"),
    "missed": (COUNT_COLORS["missed"], "#000000", "−"),
    "overshot": (COUNT_COLORS["overshot"], "#000000", "+"),
}
COUNT_MEANINGS = {
    "correct": "gold and prediction agree on the change",
    "wrong": "both have the slot, with different values",
    "missed": "gold has the slot, the prediction does not",
    "overshot": "the prediction has a slot that gold does not",
}
DIALOGUE_FIGURES = ("gca", "jga", "fga")
"""The figures the per-turn view shows for its dialogue (and the B − A table per dialogue)."""


def metrics_html(results: list[ScoredSet], options: Options, group: str = "main") -> str:
    """One registry group's figures as a table, a column per set; cells carry data-metric and data-set."""
    head = "".join(f'<th scope="col">{swatch(i)}{esc_name(r.name)}</th>' for i, r in enumerate(results))
    rows = [row for row in metric_rows(options) if row.group == group]
    body = []
    marked = False
    for row in rows:
        cells = []
        for r in results:
            theirs = row.key in r.report.scores and r.report.scores.replaced(row.key)
            marked |= theirs
            mark = f' class="compat" title="computed {esc(options.compat)}\'s way"' if theirs else ""
            cells.append(
                f'<td data-metric="{esc(row.key)}" data-set="{esc(r.name)}"{mark}>{figure_text(r, row.key)}</td>'
            )
        body.append(
            f'<tr class="{esc(row.group)}"><th scope="row" title="{esc(row.description)}">{esc(row.label)}</th>'
            f"{''.join(cells)}</tr>"
        )
    counts = {row.is_count for row in rows}  # the caption's unit: '(%)', '(% or count)' or none
    unit = "" if counts == {True} else " (%)" if counts == {False} else " (% or count)"
    head = f'<th scope="col">{esc(TABLE_CAPTIONS.get(group, group.capitalize()) + unit)}</th>{head}'
    note = (  # what the marked cells are: the figures the evaluator computes, its way
        f'<p class="note compat-note"><span class="compat-key">†</span> computed {esc(options.compat)}\'s way (its '
        "conventions: see the side-by-side table); unmarked figures are dst-metrics' own definitions.</p>"
    )
    return table(head, body, f' class="metrics-table" id="metrics-{group}"') + (note if marked else "")


def compat_side_by_side_html(names: list[str], ours: list, theirs: list, profile: str) -> str:
    """Each figure the profile replaces: per set, dst-metrics' value, the evaluator's and the difference (%)."""
    labels = figure_labels()
    order = {key: i for i, key in enumerate(labels)}
    keys = [k for k in theirs[0] if theirs[0].replaced(k) and isinstance(theirs[0][k], (int, float))]
    keys.sort(key=lambda k: order.get(k, len(order)))
    head = "".join(
        f'<th scope="col">{swatch(i)}{esc_name(n)}: dst-metrics</th><th scope="col">{esc_name(n)}: {esc(profile)}</th>'
        f'<th scope="col">{esc(profile)} − dst-metrics</th>'
        for i, n in enumerate(names)
    )
    body = []
    for key in keys:
        cells = []
        for n, own, other in zip(names, ours, theirs, strict=True):
            mine = own[key] if key in own else None
            cells.append(
                f'<td class="num" data-metric="{esc(key)}" data-set="{esc(n)}" data-side="ours">{pct(mine)}</td>'
                f'<td class="num compat" data-metric="{esc(key)}" data-set="{esc(n)}" data-side="theirs">'
                f"{pct(other[key])}</td>"
                f'<td class="num">{signed_pct(other[key] - mine) if mine is not None else "—"}</td>'
            )
        label = labels.get(key, key.replace("_", " ").replace("average jga", "average JGA (over domains)"))
        body.append(f'<tr><th scope="row">{esc(label)}</th>{"".join(cells)}</tr>')
    return (
        f"<h3>dst-metrics against {esc(profile)}</h3>"
        + table(f'<th scope="col">Figure (%)</th>{head}', body, ' class="data-table compat-table" id="compat-table"')
        + '<p class="note">The same input scored both ways: where the columns differ, the evaluator\'s '
        "conventions move the number (—: dst-metrics has no such figure).</p>"
    )


def signature_line(signature: str, element_id: str) -> str:
    """A signature under its table (a narrow page breaks it at a bar)."""
    shown = esc(signature).replace("|", "|<wbr>")
    return f'<p class="signature">Signature: <code id="{element_id}">{shown}</code></p>'


def status_html(message: str, ok: bool, element_id: str = "status") -> str:
    """A status line: what was done, or the problem with the input."""
    if not message:
        return ""
    if ok:
        return f'<div class="status status-ok" role="status" id="{element_id}-ok">{esc(message)}</div>'
    return (
        f'<div class="status status-error" role="alert" id="{element_id}-error"><b>Could not score this input.</b> '
        f"{esc(message)}</div>"
    )


def file_chips(names: list[str]) -> str:
    """Uploaded files' names, each as a chip."""
    return " ".join(f'<span class="file-chip">{esc(name)}</span>' for name in names)


def internal_error(error: Exception) -> str:
    """How the page words a bug: the exception's type and message, never a traceback."""
    return f"internal error ({type(error).__name__}: {error})"


def count_chip(kind: str) -> str:
    """One count type as a coloured label with its symbol."""
    background, color, symbol = COUNT_STYLES[kind]
    return f'<span class="chip" style="background:{background};color:{color}">{symbol}&nbsp;{kind}</span>'


def legend_html() -> str:
    """The colour legend of the per-turn view."""
    items = "".join(
        f'<span class="legend-item">{count_chip(kind)}'
        f'<span class="legend-text">{esc(COUNT_MEANINGS[kind])}</span></span>'
        for kind in COUNT_STYLES
    )
    unchanged = (
        '<span class="legend-item"><span class="chip chip-unchanged">unchanged</span>'
        '<span class="legend-text">carried over, judged in an earlier turn</span></span>'
    )
    return f'<div class="legend">{items}{unchanged}</div>'


def _value(value: str | None, label: str) -> str:
    if value is None:
        return f'<td class="value absent" data-label="{esc(label)}" title="absent">—</td>'
    return f'<td class="value" data-label="{esc(label)}">{esc(value)}</td>'


def _kinds(row: SlotRow | None, name: str) -> str:
    kinds = row.count_types if row else ()
    chips = "".join(count_chip(kind) for kind in kinds) or (
        '<span class="chip chip-unchanged">unchanged</span>' if row else '<span class="quiet">—</span>'
    )
    return (
        f'<td class="kinds" data-set="{esc(name)}" data-label="{esc(name)}: count" '
        f'data-kinds="{esc(" ".join(kinds))}"><span class="chips">{chips}</span></td>'
    )


def dialogue_figures_html(results: list[ScoredSet], dialogue_id: str) -> str:
    """The dialogue's GCA, JGA and FGA and its counts, per set."""
    items = []
    for index, result in enumerate(results):
        scores = result.report.dialogues[dialogue_id]
        figures = " · ".join(f"{key.upper()} {pct(scores[key])}" for key in DIALOGUE_FIGURES)
        counts = " · ".join(f"{kind} {scores[kind]}" for kind in COUNT_STYLES if kind in scores)
        items.append(
            f'<li data-set="{esc(result.name)}">{swatch(index)}<b>{esc(result.name)}</b>: '
            f'<span class="dialogue-figures">{figures}</span> <span class="slot-summary">({counts})</span></li>'
        )
    return f'<ul class="dialogue-scores">{"".join(items)}</ul>'


def slot_view_html(results: list[ScoredSet], dialogue_id: str | None, mode: str, show_unchanged: bool) -> str:
    """Figure 2 of the GCA paper for one dialogue: per turn and slot, the gold value and each set's prediction
    and count types side by side."""
    if not results:
        return ""
    corpus = results[0].corpus
    if dialogue_id is None or dialogue_id not in {d.dialogue_id for d in corpus.dialogues}:
        dialogue_id = corpus.dialogues[0].dialogue_id
    dialogues = [r.corpus.dialogue(dialogue_id) for r in results]
    tables = [explain_dialogue(d, mode) for d in dialogues]
    head = "".join(
        f'<th scope="col">{swatch(i)}{esc_name(r.name)}: predicted</th><th scope="col">{esc_name(r.name)}: count</th>'
        for i, r in enumerate(results)
    )
    body = _slot_rows(results, dialogues[0], tables, show_unchanged)
    head = f'<th scope="col">Turn</th><th scope="col">Slot</th><th scope="col">Gold</th>{head}'
    return (
        f'<div class="slot-view" data-dialogue="{esc(dialogue_id)}"><p class="slot-title">Dialogue '
        f"<b>{esc(dialogue_id)}</b> ({mode} mode)</p>{dialogue_figures_html(results, dialogue_id)}{legend_html()}"
        + table(head, body, ' class="slot-table"')
        + "</div>"
    )


def _slot_rows(results: list[ScoredSet], dialogue: Dialogue, tables: list[list[SlotRow]], show_unchanged: bool) -> str:
    order: dict[str, int] = {}  # every slot in the order it first appears in any set: one order for all turns
    for rows in tables:
        for row in sorted(rows, key=lambda r: r.position):
            order.setdefault(row.slot, len(order))
    by_key = [{(row.position, row.slot): row for row in rows} for rows in tables]
    columns = 2 + 2 * len(results)
    body = []
    for position, turn_id in enumerate(dialogue.turn_ids):
        slots = {
            slot
            for rows in by_key
            for (at, slot), row in rows.items()
            if at == position and (row.count_types or show_unchanged)
        }
        shown = sorted(slots, key=order.__getitem__)
        turn_cell = f'<th scope="rowgroup" class="turn" rowspan="{max(1, len(shown))}">{turn_id}</th>'
        if not shown:
            body.append(
                f'<tr class="turn-start" data-turn="{turn_id}">{turn_cell}'
                f'<td colspan="{columns}" class="no-change">no change</td></tr>'
            )
            continue
        for i, slot in enumerate(shown):
            rows = [table.get((position, slot)) for table in by_key]
            gold = next(row.gold for row in rows if row is not None)
            cells = "".join(
                _value(row.pred if row else None, f"{r.name}: predicted") + _kinds(row, r.name)
                for r, row in zip(results, rows)
            )
            changed = any(row and row.count_types for row in rows)
            css = ("turn-start " if i == 0 else "") + ("" if changed else "unchanged")
            body.append(
                f'<tr class="{css.strip()}" data-turn="{turn_id}" data-slot="{esc(slot)}">{turn_cell if i == 0 else ""}'
                f'<td class="slot" data-label="slot">{esc(slot)}</td>{_value(gold, "gold")}{cells}</tr>'
            )
    return "".join(body)


def clickable_table(columns: list[str], rows: list[tuple[str, list[str]]], table_id: str, numeric_from: int) -> str:
    """A table whose rows open their dialogue when clicked; cells from column `numeric_from` on are numbers."""
    head = "".join(f'<th scope="col">{esc_name(c)}</th>' for c in columns)
    body = "".join(
        f'<tr class="clickable" tabindex="0" data-dialogue="{esc(dialogue)}">'
        + "".join(
            f'<td class="{"num" if i >= numeric_from else ""}" data-col="{esc(columns[i])}">{esc(cell)}</td>'
            for i, cell in enumerate(cells)
        )
        + "</tr>"
        for dialogue, cells in rows
    )
    return table(head, body, f' class="data-table" id="{table_id}"')


def correlations_html(columns: list[str], rows: list[tuple[str, list[float]]]) -> str:
    """Pearson r of the per-dialogue figures with TO and NU, a column per set and the paper's."""
    head = "".join(f'<th scope="col">{esc_name(n)}</th>' for n in columns)
    body = "".join(
        f'<tr><th scope="row">{esc(pair)}</th>' + "".join(f'<td class="num">{num(x)}</td>' for x in values) + "</tr>"
        for pair, values in rows
    )
    return table(f'<th scope="col">Pearson r</th>{head}', body, ' class="data-table corr-table"')


def comparison_html(comparison, options: Options, index_b: int = 1) -> str:
    """A `stats.compare` result as a table: per main figure A, B, B − A with its interval, the adjusted p and
    whether it is significant; B is set number `index_b`."""
    name_a, name_b = comparison.names
    level = 100 * (1 - comparison.level)
    adjusted = f"p ({esc(comparison.correction)}, m = {len(comparison.figures)} figures)"
    head = (
        f'<th scope="col">Figure (%)</th><th scope="col">{swatch(0)}{esc_name(name_a)}</th>'
        f'<th scope="col">{swatch(index_b)}{esc_name(name_b)}</th>'
        f'<th scope="col">{esc_name(name_b)} − {esc_name(name_a)}</th>'
        f'<th scope="col">{level:g}% CI of the difference</th><th scope="col">{adjusted}</th>'
        '<th scope="col">significant</th>'
    )
    body = []
    for row in main_rows(options):
        diff = comparison.figures.get(row.key)
        if diff is None:
            continue
        low, high = diff.ci
        mark = "yes" if diff.significant else "no"
        body.append(
            f'<tr data-metric="{esc(row.key)}" class="{"significant" if diff.significant else ""}">'
            f'<th scope="row">{esc(row.label)}</th><td class="num">{pct(diff.a)}</td><td class="num">{pct(diff.b)}</td>'
            f'<td class="num diff">{signed_pct(diff.diff)}</td>'
            f'<td class="num">[{signed_pct(low)}, {signed_pct(high)}]</td>'
            f'<td class="num">{_p(diff.p_adjusted)}</td><td class="sig">{mark}</td></tr>'
        )
    shown = len(body)
    family = comparison.family_size
    correction = esc(comparison.correction).capitalize()
    note = (
        f'<p class="note p-note">p: a paired randomization test over {comparison.rounds:,} rounds, '
        f"{correction}-corrected over the family of all m = {family} figures compared ({shown} shown here, "
        f"every one in figures.json); with these rounds the smallest p possible is {_p(comparison.p_floor)}.</p>"
    )
    return table(head, body, f' class="data-table compare-table" data-a="{esc(name_a)}" data-b="{esc(name_b)}"') + note


def by_domain_html(names: list[str], groups: list[dict], options: Options) -> str:
    """Every main figure per domain (``dst-metrics score --by domain``): a row per domain and set, in percent."""
    rows = main_rows(options)
    head = "".join(f'<th scope="col">{esc(row.label)}</th>' for row in rows)
    domains = sorted({domain for found in groups for domain in found})
    body = []
    for domain in domains:
        for index, (name, found) in enumerate(zip(names, groups)):
            scores = found.get(domain)
            if scores is None:
                continue
            cells = "".join(
                f'<td class="num" data-metric="{esc(row.key)}" data-set="{esc(name)}" data-domain="{esc(domain)}">'
                f"{pct(scores[row.key])}</td>"
                for row in rows
            )
            body.append(f'<tr><th scope="row">{esc(domain)}</th><td>{swatch(index)}{esc(name)}</td>{cells}</tr>')
    head = f'<th scope="col">Domain</th><th scope="col">Set</th>{head}'
    return table(head, body, ' class="data-table by-domain-table" id="by-domain-table"')


def intervals_html(names: list[str], intervals: list, options: Options) -> str:
    """Each set's bootstrap interval of each main figure, a column per set, with how they were made."""
    if not intervals:
        return ""
    first = intervals[0]
    head = "".join(f'<th scope="col">{swatch(i)}{esc_name(n)}</th>' for i, n in enumerate(names))
    body = []
    for row in main_rows(options):
        cells = "".join(
            f'<td class="num" data-metric="{esc(row.key)}" data-set="{esc(n)}">'
            f"[{pct(found[row.key][0])}, {pct(found[row.key][1])}]</td>"
            for n, found in zip(names, intervals)
            if row.key in found
        )
        body.append(f'<tr><th scope="row">{esc(row.label)}</th>{cells}</tr>')
    head = f'<th scope="col">{100 * first.level:g}% interval (%)</th>{head}'
    note = f"{first.method} bootstrap over dialogues, {first.resamples:,} resamples, seed {first.seed}."
    return table(head, body, ' class="data-table intervals-table" id="intervals-table"') + f'<p class="note">{note}</p>'


def _p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def calibration_html(names: list[str], results: list) -> str:
    """The calibration figures of the sets that carry confidences: a row per figure, a column per set."""
    from dst_metrics.figures.calibration import CALIBRATION_FIGURES

    head = "".join(f'<th scope="col">{esc_name(n)}</th>' for n in names)
    body = []
    for figure in CALIBRATION_FIGURES:
        level = figure.key.split("_", 1)[0]
        label = f"{level} {figure.label}" if level in ("slot", "joint") else figure.label
        title = f"{figure.description} (signature: {figure.signature})" if figure.signature else figure.description
        cells = "".join(
            f'<td class="num" data-metric="{esc(figure.key)}" data-set="{esc(n)}">{num(r.figures[figure.key])}</td>'
            for n, r in zip(names, results)
        )
        body.append(f'<tr><th scope="row" title="{esc(title)}">{esc(label)}</th>{cells}</tr>')
    return table(f'<th scope="col">Calibration (fractions)</th>{head}', body, ' class="data-table calibration-table"')
