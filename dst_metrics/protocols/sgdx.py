"""SGD-X schema sensitivity (Lee et al., AAAI 2022): predictions on the original SGD schema and on
variants v1 … v5, scored frame by frame as the SGD evaluator scores them, summed as the reference code
does (github alexcoca/robust-dst-v2, ``scripts/compute_sgd_x_metrics.py``).

Per split (``all``, ``seen``, ``unseen``): ``jga_original``, ``jga_variants`` (mean over every frame of
every variant) and ``ss_jga`` (nanmean over frames of std / mean of the frame's JGA across variants,
std with n - 1), and the same three for AGA. Sums are numpy's (`numpy_sums`), so every figure equals
the reference code's to the last bit; None where a split has no frame. Differences: docs/compat.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._version import __version__
from ..compat.sgd import ALL_SERVICES, SEEN_SERVICES, UNSEEN_SERVICES, collect, load_schema, matching_name
from ..errors import InputError
from ..numpy_sums import numpy_mean, numpy_sum
from ..readers.sgd import load_dialogues

FAMILY = "sgdx"
SPLITS: dict[str, str] = {"all": ALL_SERVICES, "seen": SEEN_SERVICES, "unseen": UNSEEN_SERVICES}
"""Our split name -> the SGD evaluator's group."""
MEASURES: dict[str, str] = {"jga": "joint_goal_accuracy", "aga": "average_goal_accuracy"}
"""Our measure -> the SGD evaluator's per-frame figure."""

PAPER_VARIANTS = 5
"""The paper's number of schema variants (v1 … v5): the registry's labels (``JGA v1-5``) are for this many."""

Rows = list[list[float]]
"""One list of per-frame values per file (the original, or each variant), frames in the same order."""


def original_mean(original: list[float], variants: Rows) -> float | None:
    """The original predictions' mean over frames: sum / frames."""
    return numpy_mean(original)


def variants_mean(original: list[float], variants: Rows) -> float | None:
    """The mean over every frame of every variant: Σ_v Σ_f x[v][f] / (V · F) (numpy's mean of the V × F array)."""
    return numpy_mean([value for row in variants for value in row])


def frame_variation(values: Sequence[float]) -> float:
    """One frame's coefficient of variation across the variants: std (n - 1) / mean; nan when the mean is 0."""
    n = len(values)
    mean = numpy_sum(values) / n
    std = math.sqrt(numpy_sum([(value - mean) ** 2 for value in values]) / (n - 1))
    return std / mean if mean else math.nan


def schema_sensitivity(original: list[float], variants: Rows) -> float | None:
    """SS = nanmean over frames f of `frame_variation` (x[1][f] … x[V][f]) (`get_metric_sensitivity`)."""
    ratios = [frame_variation(column) for column in zip(*variants)]
    kept = [ratio for ratio in ratios if not math.isnan(ratio)]
    if not kept:
        return None
    return numpy_sum([0.0 if math.isnan(ratio) else ratio for ratio in ratios]) / len(kept)


@dataclass(frozen=True)
class SgdxFigure:
    """One registered figure: ``sgdx.<split>.<measure>_<name>``, computed from per-frame values."""

    key: str
    label: str
    description: str
    higher_is_better: bool
    split: str
    measure: str
    compute: Callable[[list[float], Rows], float | None]
    family: str = FAMILY
    percent: bool = True
    """Shown in percent; SS (a coefficient of variation) as a fraction."""


_KINDS = (
    ("original", "{M} orig", "mean {M} over the frames of the original schema's predictions", True, original_mean),
    ("variants", "{M} v1-{V}", "mean {M} over every frame of every schema variant", True, variants_mean),
    ("ss", "SS {M}", "schema sensitivity: mean over frames of the coefficient of variation of {M}", False, None),
)


def figures(variants: int = PAPER_VARIANTS) -> tuple[SgdxFigure, ...]:
    """Every figure, labelled for `variants` schema variants (``JGA v1-3`` for three): per split (all, seen,
    unseen), JGA then AGA, each original, variants, SS."""
    return tuple(
        SgdxFigure(
            f"{FAMILY}.{split}.{'ss_' + measure if kind == 'ss' else measure + '_' + kind}",
            label.format(M=measure.upper(), V=variants) + ("" if split == "all" else f" ({split})"),
            description.format(M=measure.upper()) + f"; {split} services",
            higher,
            split,
            measure,
            compute or schema_sensitivity,
            percent=kind != "ss",
        )
        for split in SPLITS
        for measure in MEASURES
        for kind, label, description, higher, compute in _KINDS
    )


FIGURES: tuple[SgdxFigure, ...] = figures()
"""Every figure, labelled for the paper's five variants."""


def table(variants: int) -> tuple[list[str], list[tuple[str, list[SgdxFigure]]]]:
    """The table ``dst-metrics sgdx`` prints and the Space draws: its header (the split, its frames, the figures'
    labels for `variants` schema variants) and (split, its figures) of each split, its frames the cell before."""
    entries = figures(variants)
    header = ["split", "frames", *(entry.label for entry in entries if entry.split == "all")]
    return header, [(split, [entry for entry in entries if entry.split == split]) for split in SPLITS]


def frame_values(
    gold: dict, predictions: str | Path, schema: dict, seen: set[str] | None, fuzzy: bool | str = True
) -> dict[tuple[str, str], list[float]]:
    """{(split, measure): per-frame values} of one prediction file or folder, frames in gold's order."""
    pred = load_dialogues(predictions)
    ordered = {dialogue_id: pred[dialogue_id] for dialogue_id in gold if dialogue_id in pred}
    ordered.update(pred)  # a dialogue gold lacks comes last, for `collect` to name it
    values = collect(gold, ordered, schema, seen, fuzzy=fuzzy)
    return {
        (split, measure): list(values.get(group, {}).get(name, ()))
        for split, group in SPLITS.items()
        for measure, name in MEASURES.items()
    }


def _check_aligned(found: list[dict[tuple[str, str], list[float]]], paths: Sequence[str]) -> None:
    for key, values in found[0].items():
        for other, path in zip(found[1:], paths[1:]):
            if len(other[key]) != len(values):
                problem = f"{len(other[key])} {key[0]} frames with {key[1]} but {len(values)} in {paths[0]}"
                raise InputError(problem + ": every file must cover the same gold frames", source=str(path))


def sgdx_figures(
    original: str | Path,
    variants: Sequence[str | Path],
    gold: str | Path,
    schema: str | Path,
    train_schema: str | Path | None = None,
    *,
    fuzzy: bool | str = True,
) -> dict[str, float | int | None]:
    """Every figure of `FIGURES` ({key: value}) and ``sgdx.<split>.frames``, for the original schema's
    predictions and those of each variant (at least 2), all scored against `gold` with `schema`; without
    `train_schema` the seen and unseen figures are None."""
    if len(variants) < 2:
        raise InputError(f"schema sensitivity needs at least 2 schema variants, got {len(variants)}")
    services = load_schema(schema)
    seen = None if train_schema is None else set(services) & set(load_schema(train_schema))
    gold_dialogues = load_dialogues(gold)
    paths = [str(original), *map(str, variants)]
    found = [frame_values(gold_dialogues, path, services, seen, fuzzy) for path in paths]
    _check_aligned(found, paths)
    result: dict[str, float | int | None] = {}
    for entry in FIGURES:
        rows = [values[entry.split, entry.measure] for values in found]
        result[entry.key] = entry.compute(rows[0], rows[1:]) if rows[0] else None
    for split in SPLITS:
        result[f"{FAMILY}.{split}.frames"] = len(found[0][split, "jga"])
    return result


def signature_part(variants: int, fuzzy: bool | str = True) -> str:
    """This protocol's part of the signature: ``sgdx|variants:5|sgd-match:fuzzy``."""
    return f"{FAMILY}|variants:{variants}|sgd-match:{matching_name(fuzzy)}"


def signature(variants: int, fuzzy: bool | str = True) -> str:
    """The signature of ``dst-metrics sgdx``'s figures: ``dst-metrics:0.1.0|sgdx|variants:5|sgd-match:fuzzy``."""
    return f"dst-metrics:{__version__}|{signature_part(variants, fuzzy)}"
