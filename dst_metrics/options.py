"""The options a figure depends on besides the data, parsed and checked once.

The library, the command line, the `evaluate` modules and the Space all build an `Options`, so a
bad value gets the same message everywhere. `Options.signature` writes every option down, as
sacrebleu does, so two figures can be compared honestly.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from ._version import __version__

MODES: tuple[str, ...] = ("official", "corrected")
"""``official`` reproduces the official GCA code, quirks included; ``corrected`` fixes them."""
VALUE_MATCHINGS: tuple[str, ...] = ("exact", "normalized", "fuzzy")
"""How values are compared: as given; with case and white space folded; or folded and then fuzzily
(rapidfuzz partial_ratio > 95, mwzeval's rule: a predicted value matching the gold value of its
slot and turn is replaced by it, see `dst_metrics.corpus`)."""
OFFICIAL_ALPHA = 10 / 11
"""GCA's weight of the value rates against the label rates, 10:1, as in the official code."""
DEFAULT_FGA_LAMBDA = 0.5
"""FGA's decay λ used by Dey et al. (2022) and the GCA paper's benchmarks."""
FGA_LAMBDA_GRID: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)
"""The λ values the official code reports FGA for."""
MULTIWOZ_NUM_SLOTS = 30
"""K for slot accuracy: the number of slots of MultiWOZ 2.1's five evaluation domains."""
PREDICTION_STATES: tuple[str, ...] = ("cumulative", "updates")
"""What a predicted state is: the whole state after the turn, or the turn's update (its new and
changed slots, null or ``[DELETE]`` removing one), accumulated into states before scoring."""
GOLD_ALTERNATIVES: tuple[str, ...] = ("any", "first")
"""How a gold slot with several acceptable values is matched: by any of them (IC-DST, ConvLab-3, the
SGD evaluator) or by the first only (mwzeval)."""


class OptionError(ValueError):
    """A bad option value; the message names the option and what it accepts."""


def _number(value: object) -> float | None:
    """`value` as a float when it is a real number or text of one ('0.9', '10/11'); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        try:
            return float(Fraction(value.strip()))
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
    return None


def _shown(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _choice(option: str, choices: tuple[str, ...]) -> Callable[[object], str]:
    """The parser of an option that is one of `choices`; its message names `option` and lists them."""

    def parse(value: object) -> str:
        if value not in choices:
            raise OptionError(f"{option} must be one of {', '.join(choices)}; got {_shown(value)}")
        return value

    return parse


parse_mode = _choice("mode", MODES)
parse_value_matching = _choice("value_matching", VALUE_MATCHINGS)


def parse_alpha(value: object) -> float:
    """GCA's α, a number in [0, 1], given as a number, a decimal ('0.9') or a fraction ('10/11')."""
    alpha = _number(value)
    if alpha is None or not 0.0 <= alpha <= 1.0:
        raise OptionError(f"alpha (GCA's value weight) must be a number in [0, 1] such as 10/11; got {_shown(value)}")
    return alpha


def parse_lambda(value: object) -> float:
    """An FGA decay λ: a finite number > 0."""
    lam = _number(value)
    if lam is None or not (lam > 0 and math.isfinite(lam)):
        raise OptionError(f"an FGA lambda must be a number > 0 such as 0.5; got {_shown(value)}")
    return lam


def parse_lambdas(value: object) -> tuple[float, ...]:
    """A non-empty list of FGA λ values (one λ is a list of one)."""
    items = [value] if _number(value) is not None or isinstance(value, str) else value
    if not isinstance(items, Iterable) or isinstance(items, Mapping):
        raise OptionError(f"FGA lambdas must be a number or a list of numbers > 0; got {_shown(value)}")
    lambdas = tuple(parse_lambda(lam) for lam in items)
    if not lambdas:
        raise OptionError("FGA lambdas must be a number or a non-empty list of numbers > 0; got an empty list")
    return lambdas


def parse_num_slots(value: object) -> int:
    """K for slot accuracy: a whole number ≥ 1."""
    k = _number(value)
    if k is None or not math.isfinite(k) or k != int(k) or k < 1:
        raise OptionError(f"num_slots (K, slots per turn for SA) must be a whole number >= 1; got {_shown(value)}")
    return int(k)


SEPARATOR_NAMES = {"|": "pipe", "/": "slash", ",": "comma", ";": "semicolon", "#": "hash"}
"""How the signature names a gold alternatives separator (``|`` separates the signature's parts)."""


def parse_gold_alternatives_separator(value: object) -> str | None:
    """None, or the text that separates a gold value's acceptable values (``"|"``: ``"a|b"`` is a or b)."""
    if value is None or (isinstance(value, str) and value.strip()):
        return value
    raise OptionError(f"gold_alternatives_separator must be None or a non-blank text such as '|'; got {_shown(value)}")


def gold_separator_part(separator: str | None) -> tuple[str, ...]:
    """The signature's part for a gold alternatives separator where one is given: ``altsep:pipe`` for ``|``."""
    if parse_gold_alternatives_separator(separator) is None:
        return ()
    return (f"altsep:{SEPARATOR_NAMES.get(separator) or ''.join(f'U+{ord(char):04X}' for char in separator)}",)


def parse_reading(value: object) -> tuple[str, ...]:
    """The reading's signature parts: a tuple of non-empty strings without ``|``."""
    if isinstance(value, (tuple, list)) and all(isinstance(part, str) and part and "|" not in part for part in value):
        return tuple(value)
    raise OptionError(f"reading must be a list of signature parts such as ['preds:updates']; got {_shown(value)}")


def parse_compat(value: object) -> str | None:
    """None, or the name of a compatibility profile (checked where a corpus is scored with it)."""
    if value is None or (isinstance(value, str) and value):
        return value
    raise OptionError(f"compat must be None or the name of a compatibility profile; got {_shown(value)}")


def parse_teacher_forced(value: object) -> bool:
    """Whether the predictions were made from the gold previous state (a bool)."""
    if isinstance(value, bool):
        return value
    raise OptionError(f"teacher_forced must be true or false; got {_shown(value)}")


def format_number(x: float) -> str:
    """A short exact-looking form: 10/11 for α's default, otherwise the shortest repr."""
    fraction = Fraction(x).limit_denominator(100)
    if float(fraction) == x and fraction.denominator != 1 and len(str(x)) > 6:
        return f"{fraction.numerator}/{fraction.denominator}"
    return f"{x:g}"


_PARSERS = {
    "mode": parse_mode,
    "alpha": parse_alpha,
    "fga_lambda": parse_lambda,
    "fga_lambdas": parse_lambdas,
    "num_slots": parse_num_slots,
    "value_matching": parse_value_matching,
    "compat": parse_compat,
    "reading": parse_reading,
    "teacher_forced": parse_teacher_forced,
}


@dataclass(frozen=True)
class Options:
    """What a score depends on besides the data; a bad value raises `OptionError`.

    - `mode`: ``official`` or ``corrected``;
    - `alpha`: GCA's weight of the value rates (10/11; ``"10/11"`` is parsed);
    - `fga_lambda`: the λ of ``fga``; `fga_lambdas`: the grid of ``fga@λ`` figures;
    - `num_slots`: K of slot accuracy (30 for MultiWOZ);
    - `value_matching`: ``exact``, ``normalized`` (case and white space folded) or ``fuzzy``;
    - `compat`: None, or a compatibility profile whose figures replace ours (`dst_metrics.compat`);
    - `reading`: how the inputs were read, as signature parts (``preds:updates``, ``alts:first``, ...);
    - `teacher_forced`: predictions were made from the gold previous state (signature ``prev:gold``)."""

    mode: str = "official"
    alpha: float = OFFICIAL_ALPHA
    fga_lambda: float = DEFAULT_FGA_LAMBDA
    fga_lambdas: tuple[float, ...] = FGA_LAMBDA_GRID
    num_slots: int = MULTIWOZ_NUM_SLOTS
    value_matching: str = "exact"
    compat: str | None = None
    reading: tuple[str, ...] = ()
    teacher_forced: bool = False

    def __post_init__(self) -> None:
        for name, parse in _PARSERS.items():
            object.__setattr__(self, name, parse(getattr(self, name)))

    @classmethod
    def from_kwargs(cls, kwargs: Mapping[str, object]) -> Options:
        """Options from keyword arguments (an unknown one is a TypeError); a list ``fga_lambda`` sets the grid."""
        unknown = sorted(set(kwargs) - set(_PARSERS))
        if unknown:
            raise TypeError(f"unknown options {unknown}; the options are {sorted(_PARSERS)}")
        values = dict(kwargs)
        lam = values.get("fga_lambda")
        if lam is not None and _number(lam) is None and not isinstance(lam, str):
            grid = parse_lambdas(lam)
            values["fga_lambda"], values["fga_lambdas"] = grid[0], grid
        return cls(**values)

    def replace(self, **changes: object) -> Options:
        """A copy with some options changed (checked like the originals)."""
        return dataclasses.replace(self, **changes)

    @functools.cached_property
    def per_lambda(self) -> tuple[tuple[float, Options], ...]:
        """(λ, these options with `fga_lambda` = λ) for each λ of the grid (made once)."""
        return tuple((lam, self.replace(fga_lambda=lam)) for lam in self.fga_lambdas)

    def signature(self, only: Iterable[str] | None = None) -> str:
        """The signature of every option; with `only`, of the version, mode, matching, reading and the options
        named: ``signature(("alpha",))`` is ``dst-metrics:0.1.0|mode:official|alpha:10/11|match:exact``."""
        if only is None:
            return self._signature
        wanted = {"version", "mode", "value_matching", "reading", "teacher_forced", *only}
        return "|".join(part for name, part in self._signature_parts if name in wanted and part)

    @functools.cached_property
    def _signature(self) -> str:
        """Every option, e.g. ``dst-metrics:0.1.0|mode:official|alpha:10/11|lambda:0.5|K:30|match:exact``."""
        return "|".join(part for _, part in self._signature_parts if part)

    @functools.cached_property
    def _signature_parts(self) -> tuple[tuple[str, str], ...]:
        """(option, its part of the signature, "" when left out), in signature order."""
        grid = ""
        if self.fga_lambdas != FGA_LAMBDA_GRID:
            grid = "lambdas:" + ",".join(format_number(lam) for lam in self.fga_lambdas)
        return (
            ("version", f"dst-metrics:{__version__}"),
            ("mode", f"mode:{self.mode}"),
            ("alpha", f"alpha:{format_number(self.alpha)}"),
            ("fga_lambda", f"lambda:{format_number(self.fga_lambda)}"),
            ("fga_lambdas", grid),
            ("num_slots", f"K:{self.num_slots}"),
            ("value_matching", f"match:{self.value_matching}"),
            ("reading", "|".join(self.reading)),
            ("compat", f"compat:{self.compat}" if self.compat else ""),
            ("teacher_forced", "prev:gold" if self.teacher_forced else ""),
        )
