"""The GCA paper's section 5.2 analyses: where a dialogue's mistakes fall, and how strongly GCA and
FGA follow it: per dialogue, tail orientation TO (eq. 7-8) and non-uniformity NU (eq. 9-10) of its
mistakes; Pearson's r of per-dialogue GCA and FGA with each, and Zou's (2007) 95% interval for
r(FGA, x) - r(GCA, x). Dialogues without a mistake are left out; a figure that cannot be computed is
NaN, with the reason in `Analysis.undefined`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from statistics import NormalDist

from ..analysis.explain import mistakes_per_turn, non_uniformity, pearson, tail_orientation
from ..corpus import Corpus
from ..errors import counted
from ..options import Options
from ..scoring.scores import corpus_options, score

ZOU_LEVEL = 0.95
ZOU_MIN_DIALOGUES = 4
"""Zou's interval takes Fisher's z of each r, whose standard error is 1 / sqrt(n - 3)."""
MEASURES: tuple[str, ...] = ("to", "nu")


@dataclass(frozen=True)
class DialogueAnalysis:
    """One dialogue's GCA, FGA (at the options' λ), TO and NU (NaN without a mistake)."""

    dialogue_id: str
    gca: float
    fga: float
    to: float
    nu: float


@dataclass(frozen=True)
class ZouInterval:
    """r1 = r(FGA, x), r2 = r(GCA, x), and the interval (low, high) of r1 - r2 (Zou 2007)."""

    r1: float
    r2: float
    low: float
    high: float
    n: int = 0
    r12: float = math.nan  # r(FGA, GCA), the correlation of the two non-shared variables

    @property
    def significant(self) -> bool:
        """True when the interval excludes 0."""
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class Analysis:
    """Per-dialogue measures, the four correlations and Zou's intervals (see the module docstring)."""

    dialogues: list[DialogueAnalysis]
    correlations: dict[str, float]
    zou: dict[str, ZouInterval]
    options: Options
    undefined: dict[str, str] = field(default_factory=dict)
    """Why a figure cannot be computed: correlation key (``gca~to``) or ``zou.to`` -> the reason."""

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: dialogues, correlations, zou (with n and r12), undefined (the reason of each null
        figure), signature; NaN as None."""
        return {
            "dialogues": [_finite(asdict(d)) for d in self.dialogues],
            "correlations": _finite(self.correlations),
            "zou": {key: _finite({**asdict(z), "significant": z.significant}) for key, z in self.zou.items()},
            "undefined": self.undefined,
            "signature": self.options.signature(),
        }


def _finite(values: dict) -> dict:
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in values.items()}


def fisher_interval(r: float, n: int, level: float = ZOU_LEVEL) -> tuple[float, float]:
    """The interval of a correlation from Fisher's z: tanh(atanh(r) ± z_(1-α/2) / sqrt(n - 3))."""
    half = NormalDist().inv_cdf(0.5 + level / 2) / math.sqrt(n - 3)
    z = math.atanh(max(min(r, 1 - 1e-15), -1 + 1e-15))
    return math.tanh(z - half), math.tanh(z + half)


def overlap_correlation(r1: float, r2: float, r12: float) -> float:
    """The correlation between two sample correlations r(a, x) = r1 and r(b, x) = r2 that share x,
    with r(a, b) = r12 (the large-sample formula Zou 2007 uses, after Pearson and Filon)."""
    numerator = (r12 - r1 * r2 / 2) * (1 - r1**2 - r2**2 - r12**2) + r12**3
    return numerator / ((1 - r1**2) * (1 - r2**2))


def zou_interval(r1: float, r2: float, r12: float, n: int, level: float = ZOU_LEVEL) -> ZouInterval:
    """Zou's (2007) interval for ρ1 - ρ2, two dependent correlations sharing a variable.

    With (l_i, u_i) the Fisher intervals of r_i and c their correlation (`overlap_correlation`):
    low = r1 - r2 - sqrt((r1-l1)² + (u2-r2)² - 2c(r1-l1)(u2-r2)),
    high = r1 - r2 + sqrt((u1-r1)² + (r2-l2)² - 2c(u1-r1)(r2-l2)).
    """
    if n < ZOU_MIN_DIALOGUES or any(math.isnan(r) for r in (r1, r2, r12)):
        return ZouInterval(r1, r2, math.nan, math.nan, n, r12)
    l1, u1 = fisher_interval(r1, n, level)
    l2, u2 = fisher_interval(r2, n, level)
    c = overlap_correlation(r1, r2, r12)
    low = r1 - r2 - math.sqrt(max(0.0, (r1 - l1) ** 2 + (u2 - r2) ** 2 - 2 * c * (r1 - l1) * (u2 - r2)))
    high = r1 - r2 + math.sqrt(max(0.0, (u1 - r1) ** 2 + (r2 - l2) ** 2 - 2 * c * (u1 - r1) * (r2 - l2)))
    return ZouInterval(r1, r2, low, high, n, r12)


def dialogue_analyses(corpus: Corpus, options: Options) -> list[DialogueAnalysis]:
    """TO, NU, GCA and FGA of each dialogue, by dialogue id."""
    report = score(corpus, options, per_dialogue=True)
    out = []
    for dialogue in sorted(corpus.dialogues, key=lambda d: d.dialogue_id):
        mistakes = mistakes_per_turn(dialogue, options.mode)
        scores = report.dialogues[dialogue.dialogue_id]
        out.append(
            DialogueAnalysis(
                dialogue.dialogue_id,
                float(scores["gca"]),
                float(scores["fga"]),
                tail_orientation(mistakes),
                non_uniformity(mistakes),
            )
        )
    return out


def correlation_undefined(columns: dict[str, list[float]]) -> str | None:
    """Why Pearson's r of two columns ({name: values}, over the same dialogues) is undefined, or None:
    fewer than 2 dialogues, or a column that is the same in every dialogue."""
    n = len(next(iter(columns.values())))
    if n < 2:
        return f"needs at least 2 dialogues with a mistake, has {counted(n, 'dialogue')}"
    constant = [name for name, values in columns.items() if len(set(values)) == 1]
    return f"{' and '.join(constant)} the same in every dialogue with a mistake" if constant else None


def analyze(corpus: Corpus, options: Options | None = None) -> Analysis:
    """The GCA paper's section 5.2 analyses of one corpus (see the module docstring)."""
    options = corpus_options(corpus, options)
    rows = dialogue_analyses(corpus, options)
    correlations = {}
    zou = {}
    undefined = {}
    for measure in MEASURES:
        kept = [row for row in rows if not math.isnan(getattr(row, measure))]
        xs = [getattr(row, measure) for row in kept]
        gca, fga = [row.gca for row in kept], [row.fga for row in kept]
        for name, values in (("gca", gca), ("fga", fga)):
            key = f"{name}~{measure}"
            correlations[key] = pearson(values, xs)
            why = correlation_undefined({name.upper(): values, measure.upper(): xs})
            if math.isnan(correlations[key]):
                undefined[key] = why or "undefined"
        zou[measure] = zou_interval(
            correlations[f"fga~{measure}"], correlations[f"gca~{measure}"], pearson(fga, gca), len(kept)
        )
        if math.isnan(zou[measure].low):
            undefined[f"zou.{measure}"] = (
                f"needs at least {ZOU_MIN_DIALOGUES} dialogues with a mistake, has {counted(len(kept), 'dialogue')}"
                if len(kept) < ZOU_MIN_DIALOGUES
                else undefined.get(f"fga~{measure}")
                or undefined.get(f"gca~{measure}")
                or correlation_undefined({"GCA": gca, "FGA": fga})
                or "undefined"
            )
    return Analysis(rows, correlations, zou, options, undefined)
