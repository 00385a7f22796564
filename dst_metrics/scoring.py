"""Scoring a corpus: options, the signature of a result, and the figures per corpus and dialogue."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction

from . import metrics
from .core import Tally, check_mode, tally_corpus, tally_dialogue
from .corpus import Corpus, _without_gc

try:
    from importlib.metadata import PackageNotFoundError, version

    __version__ = version("dst-metrics")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"


def _format_number(x: float) -> str:
    """A short exact-looking form: 10/11 for α's default, otherwise the shortest repr."""
    fraction = Fraction(x).limit_denominator(100)
    if float(fraction) == x and fraction.denominator != 1 and len(str(x)) > 6:
        return f"{fraction.numerator}/{fraction.denominator}"
    return f"{x:g}"


@dataclass(frozen=True)
class Options:
    """What a score depends on besides the data; `signature` writes it down."""

    mode: str = "official"
    alpha: float = metrics.OFFICIAL_ALPHA
    fga_lambda: float = metrics.DEFAULT_FGA_LAMBDA
    fga_lambdas: tuple[float, ...] = metrics.FGA_LAMBDA_GRID
    num_slots: int = metrics.MULTIWOZ_NUM_SLOTS

    def __post_init__(self) -> None:
        check_mode(self.mode)
        if not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha must be in [0, 1], got {self.alpha}")
        for lam in (self.fga_lambda, *self.fga_lambdas):
            if not lam > 0:
                raise ValueError(f"an FGA lambda must be > 0, got {lam}")
        if isinstance(self.num_slots, bool) or not isinstance(self.num_slots, int) or self.num_slots < 1:
            raise ValueError(f"num_slots (K) must be a positive integer, got {self.num_slots!r}")

    def signature(self, value_matching: str = "exact") -> str:
        """sacrebleu-style: every option that produced a figure, e.g.
        ``dst-metrics:0.1.0|mode:official|alpha:10/11|lambda:0.5|K:30|match:exact``
        (``|lambdas:0.25,1`` is added when FGA is reported at λ other than 0.25, 0.5, 0.75, 1)."""
        grid = ""
        if len(self.fga_lambdas) > 1 and tuple(self.fga_lambdas) != metrics.FGA_LAMBDA_GRID:  # FGA at several λ
            grid = "|lambdas:" + ",".join(_format_number(lam) for lam in self.fga_lambdas)
        return (
            f"dst-metrics:{__version__}|mode:{self.mode}|alpha:{_format_number(self.alpha)}"
            f"|lambda:{_format_number(self.fga_lambda)}{grid}|K:{self.num_slots}|match:{value_matching}"
        )


@dataclass(frozen=True)
class Scores:
    """Every figure of one corpus or dialogue (scores are fractions in [0, 1])."""

    gca: float
    value_precision: float
    value_recall: float
    label_precision: float
    label_recall: float
    correct: int
    wrong: int
    missed: int
    overshot: int
    jga: float
    fga: float  # at Options.fga_lambda
    fga_grid: dict[float, float]  # λ -> FGA for Options.fga_lambdas
    sa: float
    aga: float
    rsa: float
    slot_precision: float
    slot_recall: float
    slot_f1: float
    turns: int
    signature: str

    @classmethod
    def from_tally(cls, t: Tally, options: Options, signature: str) -> Scores:
        """Compute every metric of a tally under `options`."""
        mode = options.mode
        vp, vr, lp, lr = metrics.gca_rates(t, mode)
        precision, recall, f1 = metrics.slot_prf(t)
        return cls(
            gca=metrics.gca(t, options.alpha, mode),
            value_precision=vp,
            value_recall=vr,
            label_precision=lp,
            label_recall=lr,
            correct=t.correct,
            wrong=t.wrong,
            missed=t.missed,
            overshot=t.overshot,
            jga=metrics.jga(t),
            fga=metrics.fga(t, options.fga_lambda),
            fga_grid={lam: metrics.fga(t, lam) for lam in options.fga_lambdas},
            sa=metrics.slot_accuracy(t, options.num_slots),
            aga=metrics.aga(t, mode),
            rsa=metrics.rsa(t, mode),
            slot_precision=precision,
            slot_recall=recall,
            slot_f1=f1,
            turns=t.turns,
            signature=signature,
        )

    def as_dict(self) -> dict:
        """Flat JSON-ready figures; the FGA grid becomes keys ``fga@0.25`` … ``fga@1.0``."""
        out = asdict(self)
        grid = out.pop("fga_grid")
        signature = out.pop("signature")
        out.update({f"fga@{float(lam)!r}": value for lam, value in grid.items()})
        out["signature"] = signature
        return out


@dataclass(frozen=True)
class Report:
    """Scores of a corpus, with its tally and, on request, each dialogue's scores and tally."""

    scores: Scores
    tally: Tally
    options: Options
    dialogues: dict[str, Scores] = field(default_factory=dict)
    dialogue_tallies: dict[str, Tally] = field(default_factory=dict)

    @property
    def signature(self) -> str:
        """The signature string of every figure in this report."""
        return self.scores.signature


def score(
    corpus: Corpus,
    *,
    mode: str = "official",
    alpha: float = metrics.OFFICIAL_ALPHA,
    fga_lambda: float = metrics.DEFAULT_FGA_LAMBDA,
    fga_lambdas: tuple[float, ...] = metrics.FGA_LAMBDA_GRID,
    num_slots: int = metrics.MULTIWOZ_NUM_SLOTS,
    per_dialogue: bool = False,
) -> Report:
    """Score a corpus: every figure, micro over the corpus (counts and turns summed), and with
    `per_dialogue` each dialogue's figures too."""
    options = Options(mode, alpha, fga_lambda, tuple(fga_lambdas), num_slots)
    return score_tallies(tally_dialogues(corpus, mode, per_dialogue), options, corpus.value_matching)


@_without_gc
def tally_dialogues(corpus: Corpus, mode: str, per_dialogue: bool) -> tuple[Tally, dict[str, Tally]]:
    """The corpus tally and, with `per_dialogue`, each dialogue's tally."""
    if not per_dialogue:
        return tally_corpus(corpus.dialogues, mode), {}
    by_dialogue = {d.dialogue_id: tally_dialogue(d, mode) for d in corpus.dialogues}
    total = Tally()
    for tally in by_dialogue.values():
        total = total + tally
    return total, by_dialogue


def score_tallies(tallies: tuple[Tally, dict[str, Tally]], options: Options, value_matching: str = "exact") -> Report:
    """Scores from tallies (e.g. merged from several batches or processes)."""
    total, by_dialogue = tallies
    signature = options.signature(value_matching)
    return Report(
        scores=Scores.from_tally(total, options, signature),
        tally=total,
        options=options,
        dialogues={d: Scores.from_tally(t, options, signature) for d, t in by_dialogue.items()},
        dialogue_tallies=by_dialogue,
    )
