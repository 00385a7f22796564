"""Compatibility profiles: the figures other evaluators print, from the same inputs.

A profile reproduces one public evaluator's conventions for the figures it computes (JGA, slot
P/R/F1, SA, AGA, FGA, …), so a researcher who published with it can switch without the numbers
moving. ``dst-metrics score --compat NAME`` (``Options(compat=NAME)``) puts the profile's figures
under the usual keys (``jga``, ``slot_f1``, …) and names the profile in the signature; GCA and the
figures the evaluator does not compute keep our definitions. ``shared/COMPAT.md`` states each
evaluator's conventions as measured. A new profile is a module defining a `Profile` (`base`) and one
entry in `PROFILES` below.
"""

from __future__ import annotations

from ..options import OptionError
from . import convlab, fga, fnctod, mwzeval, sgd, trade
from .base import Profile


class _Profiles(dict):
    """{name: Profile}: looking up a name that is no profile raises OptionError naming the profiles,
    wherever options meet profiles (``score``, the `evaluate` modules, the command line)."""

    def __missing__(self, name: object) -> Profile:
        raise OptionError(f"compat must be one of the profiles ({', '.join(self)}); got {name!r}")


PROFILES: dict[str, Profile] = _Profiles(
    (entry.name, entry)
    for entry in (fga.PROFILE, convlab.PROFILE, sgd.PROFILE, trade.PROFILE, mwzeval.PROFILE, fnctod.PROFILE)
)
"""Every profile, by name."""

__all__ = ["PROFILES", "Profile"]
