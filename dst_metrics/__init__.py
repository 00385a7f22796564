"""dst-metrics: Granular Change Accuracy and the DST metrics it is compared with.

>>> from dst_metrics import Corpus, score
>>> corpus = Corpus.from_dialogues(
...     predictions=[[{"hotel": {"area": "north"}}]], references=[[{"hotel": {"area": "north"}}]]
... )
>>> round(score(corpus).scores.gca, 4)
1.0
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__

if TYPE_CHECKING:  # for type checkers and editors; at run time `__getattr__` imports on first use
    from .core.tally import CORRECT, COUNT_TYPES, MISSED, OVERSHOT, WRONG, Tally, tally_corpus, tally_dialogue
    from .corpus import Corpus, Dialogue
    from .errors import InputError
    from .figures.metrics import (
        aga,
        fga,
        gca,
        gca_rates,
        jga,
        rsa,
        slot_accuracy,
        slot_prf,
    )
    from .figures.registry import FIGURES, Figure, figure_keys
    from .generation.parsing import parse_generation
    from .generation.updates import accumulate, looks_like_updates
    from .model_card import model_index, update_card
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
    from .readers import read, read_stream
    from .scoring.scores import Report, Scores, score, score_tallies, tally_dialogues
    from .states import LinearizedFormat, normalize_state, parse_linearized
    from .trainer import make_compute_metrics, score_generations

_LAZY: dict[str, str] = {
    "CORRECT": "core.tally",
    "COUNT_TYPES": "core.tally",
    "MISSED": "core.tally",
    "OVERSHOT": "core.tally",
    "WRONG": "core.tally",
    "Tally": "core.tally",
    "tally_corpus": "core.tally",
    "tally_dialogue": "core.tally",
    "Corpus": "corpus",
    "Dialogue": "corpus",
    "InputError": "errors",
    "FIGURES": "figures.registry",
    "Figure": "figures.registry",
    "figure_keys": "figures.registry",
    "parse_generation": "generation.parsing",
    "aga": "figures.metrics",
    "fga": "figures.metrics",
    "gca": "figures.metrics",
    "gca_rates": "figures.metrics",
    "jga": "figures.metrics",
    "rsa": "figures.metrics",
    "slot_accuracy": "figures.metrics",
    "slot_prf": "figures.metrics",
    "model_index": "model_card",
    "update_card": "model_card",
    "module_path": "modules",
    "DEFAULT_FGA_LAMBDA": "options",
    "FGA_LAMBDA_GRID": "options",
    "MODES": "options",
    "MULTIWOZ_NUM_SLOTS": "options",
    "OFFICIAL_ALPHA": "options",
    "VALUE_MATCHINGS": "options",
    "OptionError": "options",
    "Options": "options",
    "read": "readers",
    "read_stream": "readers",
    "Report": "scoring.scores",
    "Scores": "scoring.scores",
    "score": "scoring.scores",
    "score_tallies": "scoring.scores",
    "tally_dialogues": "scoring.scores",
    "LinearizedFormat": "states",
    "normalize_state": "states",
    "parse_linearized": "states",
    "make_compute_metrics": "trainer",
    "score_generations": "trainer",
    "accumulate": "generation.updates",
    "looks_like_updates": "generation.updates",
}
"""Each public name and the submodule it comes from: imported when first used, so that importing
the package (as ``dst-metrics --version`` does) costs nothing until a name is read."""


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


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
    "accumulate",
    "aga",
    "fga",
    "figure_keys",
    "gca",
    "gca_rates",
    "jga",
    "looks_like_updates",
    "make_compute_metrics",
    "model_index",
    "module_path",
    "normalize_state",
    "parse_generation",
    "parse_linearized",
    "read",
    "read_stream",
    "rsa",
    "score",
    "score_generations",
    "score_tallies",
    "slot_accuracy",
    "slot_prf",
    "tally_corpus",
    "tally_dialogue",
    "tally_dialogues",
    "update_card",
]
