"""The report as one self-contained HTML page: inline CSS, plots as inline SVG, no script and nothing loaded
from elsewhere, so it opens offline. Tables scroll sideways on a phone; cells carry their unrounded figures
as ``data-value`` (``data-low``, ``data-high`` for the interval).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..figures.registry import figure_of
from ..stats.paired import floor_warning
from ..stats.table import SystemsTable
from . import systems
from .data import ComparisonData, ReportData, SystemData
from .draw import data_attributes, esc, num, pct, signed_pct, swatch, table
from .plots import Plot, render_plots
from .protocols import protocols_section

PAGE_TITLE = "DST evaluation report"
PERCENT = 100.0
CSS = """
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1b1b1b;
background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:1.5em;margin:.2em 0 .4em}
h2{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{font-size:1.05em;margin:1.2em 0 .4em}
p,li{overflow-wrap:anywhere}
.table-wrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;background:#fff;border:1px solid #e3e3e3}
th,td{padding:4px 10px;text-align:right;white-space:nowrap;border-bottom:1px solid #eee}
th:first-child,td:first-child{text-align:left}
thead th{background:#f0f0f0;white-space:normal;min-width:6em;vertical-align:bottom}
tbody th{white-space:normal;min-width:7em}
.ci{display:block;font-size:.8em;color:#666}
.yes{color:#b00020;font-weight:600}
.warning{background:#fff4d6;border-left:4px solid #e0a800;padding:6px 10px}
.note{color:#555;font-size:.9em}
td.what{text-align:left;white-space:normal;color:#555;font-size:.9em;min-width:24em}
figure{margin:1em 0;background:#fff;border:1px solid #e3e3e3;padding:8px}
figure svg.chart{display:block;width:100%;height:auto}
figure[id^=plot-]{max-width:780px}
figure#plot-gca_vs_fga,figure[id^=plot-reliability]{max-width:540px}
.set-swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;vertical-align:-1px}
figcaption{font-size:.9em;color:#444;margin-top:4px}
code{font-size:.85em;overflow-wrap:anywhere;word-break:break-all}
details summary{cursor:pointer;margin:.6em 0}
"""


def _is_count(key: str) -> bool:
    try:
        return figure_of(key).is_count
    except KeyError:
        return False


def _number(key: str, value: float | int) -> str:
    return str(int(value)) if _is_count(key) else pct(value, "n/a")


def _figure_cell(system: SystemData, key: str) -> str:
    value = system.scores[key]
    data = {"system": system.name, "figure": key, "value": repr(value)}
    interval = system.intervals.get(key) if system.intervals else None
    shown = _number(key, value)
    if interval is not None:
        data.update(low=repr(interval[0]), high=repr(interval[1]))
        shown += f'<span class="ci">{pct(interval[0])}–{pct(interval[1])}</span>'
    return f"<td{data_attributes(data)}>{shown}</td>"


def figures_table(data: ReportData, keys: Sequence[str], table_id: str) -> str:
    """A row per figure, a column per system; fractions in percent with their interval below them."""
    labels = data.labels
    head = "<th>figure</th>" + "".join(f"<th>{swatch(i)}{esc(s.name)}</th>" for i, s in enumerate(data.systems))
    rows = (
        f'<tr data-figure="{esc(key)}"><th scope="row">{esc(labels.get(key, key))}</th>'
        + "".join(_figure_cell(s, key) for s in data.systems)
        + "</tr>\n"
        for key in keys
    )
    return table(head, rows, f' id="{table_id}"')


def figures_section(data: ReportData) -> str:
    """The headline figures and counts, then every other figure in a folded table."""
    main = [*data.main_keys(), "correct", "wrong", "missed", "overshot", "turns"]
    every = [key for key in data.systems[0].scores if key not in main]
    ci = data.ci
    intervals = "No intervals computed (<code>--bootstrap 0</code>)."
    if ci:
        intervals = (
            f"Below each score: its {PERCENT * float(ci['level']):g}% {esc(ci['method'])} bootstrap interval over "
            f"dialogues ({esc(ci['resamples'])} resamples, seed {esc(ci['seed'])})."
        )
    return (
        '<section id="figures"><h2>Figures</h2>'
        f'<p class="note">Scores in percent; counts of changed slots as numbers. {intervals}</p>'
        + figures_table(data, main, "metrics")
        + "<details><summary>Rates and FGA at every λ</summary>"
        + figures_table(data, every, "details")
        + "</details></section>"
    )


def _comparison_row(key: str, label: str, found: Mapping[str, object]) -> str:
    low, high = found["ci"]
    values = {"figure": key, "a": found["a"], "b": found["b"], "diff": found["diff"], "low": low, "high": high}
    values.update(p=found["p"], p_adjusted=found["p_adjusted"], significant=str(bool(found["significant"])).lower())
    cells = [
        _number(key, found["a"]),
        _number(key, found["b"]),
        signed_pct(found["diff"]) if not _is_count(key) else f"{found['diff']:+g}",
        f"{signed_pct(low)} … {signed_pct(high)}" if not _is_count(key) else f"{low:+g} … {high:+g}",
        f"{found['p']:.4f}",
        f"{found['p_adjusted']:.4f}",
        '<span class="yes">yes</span>' if found["significant"] else "no",
    ]
    cells_html = "".join(f"<td>{c}</td>" for c in cells)
    return f'<tr{data_attributes(values)}><th scope="row">{esc(label)}</th>{cells_html}</tr>'


def p_floor_warning(comparison: ComparisonData, rounds: int) -> str:
    """A warning when no adjusted p can fall below the level (`stats.paired.floor_warning`)."""
    rounds = comparison.rounds or rounds
    tested = comparison.family_size or len(comparison.figures)
    if rounds <= 0 or not tested:
        return ""
    warning = floor_warning(rounds, tested, comparison.level, comparison.correction, comparison.dialogues or None)
    return f'<p class="warning">{esc(warning[0].upper() + warning[1:])}.</p>' if warning else ""


def comparison_block(comparison: ComparisonData, labels: Mapping[str, str], index: int, rounds: int = 0) -> str:
    """One comparison: its summary, the per-figure table and McNemar's test; or why there is none."""
    a, b = esc(comparison.name_a), esc(comparison.name_b)
    title = f"<h3>B = {b} against A = {a}</h3>"
    if comparison.error:
        return f'{title}<p class="note">Not compared: {esc(comparison.error)}</p>'
    adjusted = f"p ({esc(comparison.correction)}, m = {comparison.family_size or len(comparison.figures)})"
    heads = ("figure", "A", "B", "B − A", "interval of B − A", "p", adjusted, "significant")
    head = "".join(f"<th>{h}</th>" for h in heads)
    rows = (_comparison_row(key, labels.get(key, key), f) + "\n" for key, f in comparison.figures.items())
    summary = "<br>".join(esc(line) for line in comparison.summary.splitlines())
    return (
        f'{title}<p class="summary"><strong>{summary}</strong></p>{p_floor_warning(comparison, rounds)}'
        + table(head, rows, f' class="comparison" id="comparison-{index}" data-a="{a}" data-b="{b}"')
        + _mcnemar_line(comparison)
    )


def _mcnemar_line(comparison: ComparisonData) -> str:
    test = comparison.mcnemar
    if not test:
        return ""
    a, b = esc(comparison.name_a), esc(comparison.name_b)
    return (
        f'<p class="mcnemar" data-a-only="{test["a_only"]}" data-b-only="{test["b_only"]}" data-p="{test["p"]!r}">'
        f"McNemar's test of JGA on turns, clustered by dialogue (Durkalski et al. 2003): {test['a_only']} turns "
        f"right only for {a}, {test['b_only']} only for {b}, p = {test['p']:.4g}.</p>"
    )


def comparison_section(data: ReportData) -> str:
    """Each later system against the first; empty with one system."""
    if len(data.systems) < 2:
        return ""
    first = esc(data.systems[0].name)
    if not data.comparisons:
        body = '<p class="note">Not compared: no resamples (<code>--bootstrap 0</code>).</p>'
    else:
        rounds = int(data.ci["resamples"]) if data.ci else 0
        body = "".join(comparison_block(c, data.labels, i + 1, rounds) for i, c in enumerate(data.comparisons))
    note = (
        "Differences in points (B − A); the interval is the paired bootstrap over dialogues, p the paired "
        "approximate randomization test (whole dialogues swapped), adjusted across this comparison's figures "
        "(the table of every system above corrects over all its tests at once)."
    )
    return f'<section id="comparison"><h2>Comparison with {first}</h2><p class="note">{note}</p>{body}</section>'


def _r(value: float | None) -> str:
    return num(value, 3, "n/a")


def analysis_section(data: ReportData) -> str:
    """Per system, Pearson's r of per-dialogue GCA and FGA with TO and NU, and Zou's interval of their
    difference (GCA paper, section 5.2)."""
    head = "<th>system</th><th>measure</th><th>r(GCA)</th><th>r(FGA)</th><th>r(FGA) − r(GCA), 95% CI (Zou)</th>"
    rows = []
    for system in data.systems:
        for measure in ("to", "nu"):
            zou = system.zou.get(measure, {})
            interval = f"{_r(zou.get('low'))} … {_r(zou.get('high'))}" if zou else "n/a"
            rows.append(
                f'<tr data-system="{esc(system.name)}" data-measure="{measure}"><th scope="row">{esc(system.name)}</th>'
                f"<td>{measure.upper()}</td><td>{_r(system.correlations.get(f'gca~{measure}'))}</td>"
                f"<td>{_r(system.correlations.get(f'fga~{measure}'))}</td><td>{interval}</td></tr>"
            )
    note = (
        "Per-dialogue GCA and FGA correlated with the tail orientation (TO) and non-uniformity (NU) of the "
        "dialogue's mistakes (dialogues without a mistake left out)."
    )
    return (
        f'<section id="analysis"><h2>Where mistakes fall (GCA paper, section 5.2)</h2><p class="note">{note}</p>'
        + table(head, rows, ' id="correlations"')
        + "</section>"
    )


def plot_figure(plot: Plot) -> str:
    """A plot as inline SVG above its caption."""
    caption = esc(plot.caption or plot.title)
    return f'<figure id="plot-{esc(plot.name)}">{plot.svg}<figcaption>{caption}</figcaption></figure>'


def page(title: str, body: str) -> str:
    """A self-contained page: `title`, the report's CSS and `body` (HTML) in ``<main>``."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body><main>{body}</main></body></html>\n"
    )


def systems_page(table: SystemsTable, matrix: str | None = None) -> str:
    """The page of ``dst-metrics table --html``: the table, the pairwise matrix of `matrix` and the profiles."""
    title = f"Table of {len(table.names)} systems"
    footer = f"<footer><p><code>{esc(table.signature)}</code></p></footer>"
    return page(title, f"<h1>{esc(title)}</h1>{systems.html_table(table, matrix)}{footer}")


def build_report(
    data: ReportData,
    plots: Sequence[Plot] | None = None,
    *,
    extra_sections: Sequence[tuple[str, str]] = (),
    protocols: Sequence[tuple[str, object]] = (),
) -> str:
    """The whole page. `plots` default to `plots.render_plots(data)`; `extra_sections`: (title, HTML) after the
    plots; `protocols`: (system name, `protocols.extras.Extras`) of each system, shown after the figures."""
    plots = render_plots(data) if plots is None else plots
    names = ", ".join(esc(s.name) for s in data.systems)
    extra = "".join(
        f'<section class="extra"><h2>{esc(title)}</h2>{fragment}</section>' for title, fragment in extra_sections
    )
    body = (
        f"<h1>{PAGE_TITLE}</h1><p>Systems: {names}.</p>"
        + figures_section(data)
        + protocols_section(protocols, data.signature)
        + (systems.html_section(data.table) if data.table is not None else "")
        + comparison_section(data)
        + analysis_section(data)
        + '<section id="plots"><h2>Plots</h2>'
        + "".join(plot_figure(p) for p in plots)
        + "</section>"
        + extra
        + f'<footer><h2>Signature</h2><p><code id="signature">{esc(data.signature)}</code></p></footer>'
    )
    return page(PAGE_TITLE, body)


def systems_output(
    table: SystemsTable, kind: str, matrix: str | None = None, intervals: str | bool | None = None, wide: bool = False
) -> str:
    """The table of N systems as ``dst-metrics table`` writes it: `kind` is markdown, latex, json or html, with
    the pairwise matrix of `matrix` and the profiles; `intervals` and `wide` as `systems.latex` takes them."""
    if kind == "json":
        import msgspec

        return msgspec.json.encode(table.as_dict()).decode() + "\n"
    if kind == "html":
        return systems_page(table, matrix)
    markdown = kind == "markdown"
    matrix_part = systems.matrix_markdown if markdown else systems.matrix_latex
    profiles_part = systems.profiles_markdown if markdown else systems.profiles_latex
    extra = [matrix_part(table, matrix)] if matrix else []
    extra += [profiles_part(table)] if table.profiles else []
    main = systems.markdown(table, intervals) if markdown else systems.latex(table, intervals, wide)
    return "\n".join([main, *extra])
