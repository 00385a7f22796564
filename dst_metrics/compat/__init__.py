"""Compatibility profiles: the figures other evaluators print, from the same inputs.

A profile reproduces one public evaluator's conventions for the figures it computes (JGA, slot
P/R/F1, SA, AGA, FGA, …), so a researcher who published with it can switch without the numbers
moving. ``dst-metrics score --compat NAME`` (``Options(compat=NAME)``) puts the profile's figures
under the usual keys (``jga``, ``slot_f1``, …) and names the profile in the signature; GCA and the
figures the evaluator does not compute keep our definitions. ``shared/COMPAT.md`` states each
evaluator's conventions as measured. A new profile is a module defining a `Profile` and one line
in `_registry` below.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from ..corpus import Corpus
from ..options import Options


@dataclass(frozen=True)
class Profile:
    """One evaluator's conventions: `figures` gives {key: value} for the keys it replaces (and
    any it adds), computed from a corpus under `options` (scores as fractions).

    `cli_inputs`, for a profile that reads more than a corpus holds (``sgd``: the dialogue files and
    the schema), is called by the CLI with the prediction path and the parsed arguments; `figures`
    runs within the context manager it returns.

    `signature_fields`, for a profile whose figures depend on more than the options (``sgd``: its
    own value matching), gives from its figures the fields the signature holds before
    ``|compat:NAME`` (e.g. ``|sgd-match:fuzzy``)."""

    name: str
    description: str
    figures: Callable[[Corpus, Options], dict[str, object]]
    cli_inputs: Callable[..., AbstractContextManager] | None = None
    signature_fields: Callable[[dict[str, object]], str] | None = None


def _registry() -> dict[str, Profile]:
    from . import convlab, fga, mwzeval, sgd, trade

    profiles: tuple[Profile, ...] = (fga.PROFILE, convlab.PROFILE, sgd.PROFILE, trade.PROFILE, mwzeval.PROFILE)
    return {profile.name: profile for profile in profiles}


PROFILES: dict[str, Profile] = _registry()
"""Every profile, by name."""
