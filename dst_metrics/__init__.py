"""dst-metrics: Granular Change Accuracy and the DST metrics it is compared with.

>>> from dst_metrics import Corpus, score
>>> corpus = Corpus.from_dialogues(
...     predictions=[[{"hotel": {"area": "north"}}]], references=[[{"hotel": {"area": "north"}}]]
... )
>>> round(score(corpus).scores.gca, 4)
1.0
"""

from .core import CORRECT, COUNT_TYPES, MISSED, OVERSHOT, WRONG, Tally, tally_corpus, tally_dialogue
from .corpus import Corpus, Dialogue
from .errors import InputError
from .figures import FIGURES, Figure, figure_keys
from .metrics import (
    aga,
    fga,
    gca,
    gca_rates,
    jga,
    rsa,
    slot_accuracy,
    slot_prf,
)
from .modules import module_path
from .options import (
    DEFAULT_FGA_LAMBDA,
    FGA_LAMBDA_GRID,
    MODES,
    MULTIWOZ_NUM_SLOTS,
    OFFICIAL_ALPHA,
    VALUE_MATCHINGS,
    OptionError,
    Options,
)
from .readers import load_reference_file, read
from .scoring import Report, Scores, __version__, score, score_tallies, tally_dialogues
from .states import LinearizedFormat, normalize_state, parse_linearized

__all__ = [
    "COUNT_TYPES",
    "CORRECT",
    "DEFAULT_FGA_LAMBDA",
    "FGA_LAMBDA_GRID",
    "MISSED",
    "MODES",
    "MULTIWOZ_NUM_SLOTS",
    "OFFICIAL_ALPHA",
    "OVERSHOT",
    "VALUE_MATCHINGS",
    "WRONG",
    "Corpus",
    "Dialogue",
    "FIGURES",
    "Figure",
    "InputError",
    "LinearizedFormat",
    "OptionError",
    "Options",
    "Report",
    "Scores",
    "Tally",
    "__version__",
    "aga",
    "fga",
    "figure_keys",
    "gca",
    "gca_rates",
    "jga",
    "load_reference_file",
    "module_path",
    "normalize_state",
    "parse_linearized",
    "read",
    "rsa",
    "score",
    "score_tallies",
    "slot_accuracy",
    "slot_prf",
    "tally_corpus",
    "tally_dialogue",
    "tally_dialogues",
]
