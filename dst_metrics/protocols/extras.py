"""The protocols' figures beside a file's own, for ``dst-metrics report`` (`extra_figures`): CheckDST's
(``checkdst.*``, with predictions on perturbed dialogues), SGD-X's (``sgdx.<split>.*``, with predictions
on schema variants) and the calibration figures (when predictions carry confidences). Each family's
part of the signature is appended to the input's, in that order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..compat.sgd import default_schemas
from ..corpus import Corpus
from ..options import OptionError, Options

if TYPE_CHECKING:  # imported where asked for: not at every `dst-metrics score`'s start
    from . import checkdst, sgdx

CALIBRATION_BINS = 10
"""Bins of our ECE in `extra_figures` (``dst-metrics calibration``'s default)."""


@dataclass(frozen=True)
class SchemaVariants:
    """SGD-X's inputs beside the original predictions: the variants' predictions, gold, the test schema,
    the train schema (None: no seen/unseen split) and the value matching (`sgdx.sgdx_figures`' `fuzzy`)."""

    variants: tuple[str, ...]
    gold: str
    schema: str
    train_schema: str | None = None
    fuzzy: bool | str = True


@dataclass(frozen=True)
class Extras:
    """What the protocols add to one input: {key: value} of every figure asked for (``checkdst.*``,
    ``sgdx.*``), the calibration block (None without confidences), {family: its signature part} of the
    families present (``checkdst``, ``sgdx``, ``calibration``), in signature order, and SGD-X's number of
    schema variants (None without SGD-X)."""

    figures: dict[str, float | int | None] = field(default_factory=dict)
    calibration: dict | None = None
    families: dict[str, str] = field(default_factory=dict)
    variants: int | None = None

    def signature(self, base: str) -> str:
        """`base` with every family's part appended: ``…|checkdst|pairs:turn``."""
        return "|".join([base, *self.families.values()])

    def signatures(self, base: str) -> dict[str, str]:
        """{key: `base` and its family's part} of every figure of `figures`."""
        return {key: f"{base}|{self.families[key.split('.', 1)[0]]}" for key in self.figures}


def figure_entries(variants: int | None = None) -> dict[str, checkdst.CheckDSTFigure | sgdx.SgdxFigure]:
    """{key: registered figure} of CheckDST's and SGD-X's registries, in that order (labels, descriptions);
    SGD-X's labelled for `variants` schema variants (None: the paper's five)."""
    from . import checkdst, sgdx

    return {entry.key: entry for entry in (*checkdst.FIGURES, *sgdx.figures(variants or sgdx.PAPER_VARIANTS))}


def schema_variants(
    variants: Sequence[str],
    gold: str | None,
    schema: str | None = None,
    train_schema: str | None = None,
    fuzzy: bool | str = True,
) -> SchemaVariants:
    """SGD-X's inputs found as ``dst-metrics sgdx`` finds them: the test schema `schema` or GOLD/schema.json,
    the train schema `train_schema` or GOLD/../train/schema.json where it exists; OptionError naming the
    flag otherwise."""
    if not gold:
        raise OptionError("--schema-variants scores SGD predictions against gold: give the SGD gold with --gold")
    if len(variants) < 2:
        raise OptionError(f"--schema-variants needs at least 2 schema variants, got {len(variants)}")
    schema, train_schema = default_schemas(gold, schema, train_schema)
    if schema is None:
        raise OptionError("--schema-variants needs the test schema: give it with --schema (default GOLD/schema.json)")
    return SchemaVariants(tuple(map(str, variants)), str(gold), str(schema), train_schema, fuzzy)


def calibration_block(corpus: Corpus, options: Options, bins: int = CALIBRATION_BINS) -> dict | None:
    """``dst-metrics calibration --json``'s figures of `corpus` (without ``file`` and ``format``) with its
    ``signature``; None when no predicted value carries a confidence."""
    from ..calibration.metrics import calibration

    if not corpus.scores:
        return None
    result = calibration(corpus, bins=bins)
    return {**result.as_dict(), "signature": f"{options.signature()}|{calibration_part(bins)}"}


def calibration_part(bins: int = CALIBRATION_BINS) -> str:
    """The calibration family's part of the signature: ``calibration|bins:10|slt2024|bins:10``."""
    from ..figures.calibration import signature_parts

    return f"calibration|bins:{bins}|{signature_parts()}"


def extra_figures(
    original: str,
    corpus: Corpus,
    options: Options,
    *,
    perturbed: tuple[str, Corpus] | None = None,
    variants: SchemaVariants | None = None,
    calibration: bool = False,
) -> Extras:
    """The protocols' figures of the input `original` (read as `corpus`): CheckDST's against `perturbed`
    (its name, its corpus), SGD-X's over `variants`, and with `calibration` the calibration block where
    `corpus` carries confidences. A perturbed turn without its original is an InputError naming the
    perturbed file."""
    figures: dict[str, float | int | None] = {}
    families: dict[str, str] = {}
    if perturbed is not None:
        from . import checkdst

        figures.update(checkdst.checkdst_figures(corpus, perturbed[1], options.mode, perturbed[0]))
        families[checkdst.FAMILY] = checkdst.signature_part()
    if variants is not None:
        from . import sgdx

        v = variants
        figures.update(sgdx.sgdx_figures(original, v.variants, v.gold, v.schema, v.train_schema, fuzzy=v.fuzzy))
        families[sgdx.FAMILY] = sgdx.signature_part(len(v.variants), v.fuzzy)
    block = calibration_block(corpus, options) if calibration else None
    if block is not None:
        families["calibration"] = calibration_part()
    return Extras(figures, block, families, None if variants is None else len(variants.variants))
