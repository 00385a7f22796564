"""dst-metrics: Granular Change Accuracy and the DST metrics it is compared with.

>>> from dst_metrics import Corpus, score
>>> corpus = Corpus.from_dialogues(
...     predictions=[[{"hotel": {"area": "north"}}]], references=[[{"hotel": {"area": "north"}}]]
... )
>>> round(score(corpus).scores.gca, 4)
1.0
"""

from .core import CORRECT, COUNT_TYPES, MISSED, MODES, OVERSHOT, WRONG, Tally, tally_corpus, tally_dialogue
from .corpus import Corpus, Dialogue, load_reference_file, read_json
from .errors import InputError
from .metrics import (
    DEFAULT_FGA_LAMBDA,
    FGA_LAMBDA_GRID,
    MULTIWOZ_NUM_SLOTS,
    OFFICIAL_ALPHA,
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
from .scoring import Options, Report, Scores, __version__, score, score_tallies, tally_dialogues
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
    "WRONG",
    "Corpus",
    "Dialogue",
    "InputError",
    "LinearizedFormat",
    "Options",
    "Report",
    "Scores",
    "Tally",
    "__version__",
    "aga",
    "fga",
    "gca",
    "gca_rates",
    "jga",
    "load_reference_file",
    "module_path",
    "normalize_state",
    "parse_linearized",
    "read_json",
    "rsa",
    "score",
    "score_tallies",
    "slot_accuracy",
    "slot_prf",
    "tally_corpus",
    "tally_dialogue",
    "tally_dialogues",
]
