"""Compatibility profiles: the figures other evaluators print, from the same inputs.

``dst-metrics score --compat NAME`` (``Options(compat=NAME)``) puts a profile's figures under the usual
keys and names the profile in the signature; GCA and the figures the evaluator lacks keep our
definitions. Each evaluator's conventions: docs/compat.md. A new profile is a module defining a
`Profile` (`base`) and one entry in `PROFILES` below.
"""

from __future__ import annotations

from ..options import OptionError
from . import convlab, dstc10, fga, fnctod, mwzeval, sgd, simmc, trade
from .base import Profile


class _Profiles(dict):
    """{name: Profile}: looking up a name that is no profile raises OptionError naming the profiles,
    wherever options meet profiles (``score``, the `evaluate` modules, the command line)."""

    def __missing__(self, name: object) -> Profile:
        raise OptionError(f"compat must be one of the profiles ({', '.join(self)}); got {name!r}")


PROFILES: dict[str, Profile] = _Profiles(
    (entry.name, entry)
    for entry in (
        fga.PROFILE,
        convlab.PROFILE,
        sgd.PROFILE,
        trade.PROFILE,
        mwzeval.PROFILE,
        fnctod.PROFILE,
        dstc10.PROFILE,
        simmc.PROFILE,
    )
)
"""Every profile, by name."""

__all__ = ["PROFILES", "Profile"]
