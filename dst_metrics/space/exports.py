"""Take the results away: the figures as CSV and JSON, the report's tables and page, and the command and
Python code that reproduce the figures."""

from __future__ import annotations

import csv
import io
import json
import re
import tempfile
from pathlib import Path

from dst_metrics import Options
from dst_metrics.options import format_number

from .inputs import AUTO, SET_LABELS
from .scored import ScoredSet, calibrated, main_rows, metric_rows

PASTED_FILE = "set_{label}.json"
"""The file name the command gives a pasted set."""


def file_names(results: list[ScoredSet]) -> list[str]:
    """The file each set is read from in the command: its uploaded file's name, or set_a.json, …"""
    return [
        r.source if r.source != "pasted" else PASTED_FILE.format(label=label.lower())
        for label, r in zip(SET_LABELS, results)
    ]


def option_arguments(options: Options) -> list[str]:
    """The command-line options that give `options` (every one written out, as the signature is)."""
    flags = ("--mode", "--alpha", "--fga-lambda", "--num-slots", "--value-matching", "--compat")
    values = [options.mode, format_number(options.alpha), format_number(options.fga_lambda), str(options.num_slots)]
    values += [options.value_matching, options.compat]  # no --compat without a profile
    return [word for flag, value in zip(flags, values, strict=True) if value for word in (flag, value)]


def shell_line(words: list[str]) -> str:
    """`words` as one shell command line, each quoted where the shell would act on it."""
    quoted = (w if re.fullmatch(r"[A-Za-z0-9_./=@:-]+", w) else "'" + w.replace("'", "'\\''") + "'" for w in words)
    return " ".join(quoted)


def command_line(results: list[ScoredSet], options: Options, fmt: str = AUTO, gold: str | None = None) -> str:
    """The ``dst-metrics score`` command of these figures and the ``dst-metrics compare`` command of each later
    set against A."""
    reading = (["--format", fmt] if fmt != AUTO else []) + (["--gold", gold] if gold else [])
    files = file_names(results)
    commands = [["dst-metrics", "score", *files, *reading, *option_arguments(options)]]
    if not options.compat:  # the tests are of our own definitions (the page says so)
        commands += [
            ["dst-metrics", "compare", files[0], other, *reading, *option_arguments(options)] for other in files[1:]
        ]
    return "\n".join(shell_line(words) for words in commands)


def python_snippet(results: list[ScoredSet], options: Options, gold: str | None = None) -> str:
    """Python code that reads the same files and prints the same figures and signature."""
    files = file_names(results)
    reader = f"read(path, gold={gold!r})" if gold else "read(path)"
    lines = ["from dst_metrics import Options, read, score"]
    lines += [
        "",
        f"options = Options(mode={options.mode!r}, alpha={format_number(options.alpha)!r}, "
        f"fga_lambda={options.fga_lambda!r}, num_slots={options.num_slots}, value_matching={options.value_matching!r}"
        + (f", compat={options.compat!r})" if options.compat else ")"),
        f"for path in {files!r}:",
        f"    report = score({reader}, options, per_dialogue=True)",
        "    print(path, {key: round(100 * report.scores[key], 2) for key in "
        f"{[row.key for row in main_rows(options)]!r}}})",
        f"    print(report.signature)  # {options.signature()}",
    ]
    if len(results) > 1:
        lines += [
            "",
            "# the difference of two sets with its bootstrap interval and p value",
            "from dst_metrics.stats import compare",
            "",
            f"a, b = ({reader.replace('path', repr(files[0]))}, {reader.replace('path', repr(files[1]))})",
            f"print(compare(a, b, options, names=({results[0].name!r}, {results[1].name!r})).summary())",
        ]
    return "\n".join(lines) + "\n"


def corpus_records(results: list[ScoredSet], options: Options) -> list[dict]:
    """One record per set: its name, file, every figure (fractions, counts) and the signature."""
    keys = [row.key for row in metric_rows(options) if row.key in results[0].report.scores]
    return [
        {"set": r.name, "file": r.source, **{k: r.report.scores[k] for k in keys}, "signature": r.report.signature}
        for r in results
    ]


def dialogue_records(results: list[ScoredSet]) -> list[dict]:
    """One record per set and dialogue with its per-dialogue figures."""
    return [
        {"set": r.name, "dialogue_id": dialogue_id, **dict(scores)}
        for r in results
        for dialogue_id, scores in r.report.dialogues.items()
    ]


def calibration_records(results: list[ScoredSet]) -> dict | None:
    """{set: calibration figures and bins} of the sets whose predictions carry confidences, or None."""
    return {r.name: c.as_dict() for _, r, c in calibrated(results)} or None


def to_csv(records: list[dict]) -> str:
    """Records as CSV with a header line (the first record's keys)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return out.getvalue()


REPORT_RESAMPLES = 1000


def report_files(results: list[ScoredSet], options: Options) -> dict[str, str]:
    """The report's paper tables (``table.md``, ``table.tex``) and its HTML page."""
    from dst_metrics.report import build_report, collect
    from dst_metrics.report.tables import latex_table, markdown_table

    data = collect([(r.name, r.corpus) for r in results], options, resamples=REPORT_RESAMPLES, seed=0)
    return {"table.md": markdown_table(data), "table.tex": latex_table(data), "report.html": build_report(data)}


CARD_DATASET = {"dataset_name": "DATASET", "dataset_type": "DATASET", "split": "SPLIT"}
"""The dataset of ``model-index.yaml``'s results: the page does not know it, so its owner writes it in."""


def model_index_file(results: list[ScoredSet]) -> str:
    """``model-index.yaml``: a model card's metadata per set (`dst_metrics.model_card`), the set's name as the
    model's, one YAML document each (the dataset placeholders of `CARD_DATASET` to be filled in)."""
    from dst_metrics.model_card import model_index, model_index_yaml

    return model_index_yaml([model_index(r.report, model_name=r.name, **CARD_DATASET) for r in results])


def write_downloads(
    results: list[ScoredSet], options: Options, comparisons: list[dict] | None = None, folder: str | None = None
) -> list[str]:
    """Write every download into `folder` (else a new temporary one); `comparisons`: `Comparison.as_dict()`
    of each later set against A. Returns the paths."""
    folder = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="gca-explorer-"))
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():  # the session's earlier downloads
        old.unlink()
    corpus = corpus_records(results, options)
    dialogues = dialogue_records(results)
    summary = {
        "sets": corpus,
        "comparison": comparisons[0] if comparisons else None,  # A against B
        "comparisons": comparisons or [],  # each later set against A
        "calibration": calibration_records(results),
    }
    files = {
        "figures.csv": to_csv(corpus),
        "figures.json": json.dumps(summary, indent=1, ensure_ascii=False),
        "dialogues.csv": to_csv(dialogues),
        "dialogues.json": json.dumps(dialogues, ensure_ascii=False),
        **report_files(results, options),
        "model-index.yaml": model_index_file(results),
    }
    return write_files(files, folder)


def write_files(files: dict[str, str], folder: str | Path) -> list[str]:
    """Write each (file name, text) into `folder` (made if missing); their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [str(folder / name) for name in files]
