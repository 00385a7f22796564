"""How an input is read: `Reading`, whose fields are the reading settings, each declared once beside its field
(`_setting`): the command line's flags, `read()`'s keywords, the evaluate modules' ``compute()`` keywords and
the signature's parts are taken from `READING_SETTINGS`. Never compiled: mypyc keeps no `Annotated` metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec

from .options import GOLD_ALTERNATIVES, PREDICTION_STATES, VALUE_MATCHINGS, OptionError
from .states import LinearizedFormat


def _setting(help: str, *, choices: tuple[str, ...] = (), signature: str = "", evaluate: bool = False) -> msgspec.Meta:
    """The declaration of a reading setting, beside its `Reading` field: what its flag's `help` says, its
    `choices` (none: a switch where the default is a bool, else any text), the `signature` part's key
    (``preds`` in ``preds:updates``, written where the value is not the default; empty: none), and whether the
    evaluate modules' ``compute()`` takes it (`evaluate`)."""
    return msgspec.Meta(description=help, extra={"choices": choices, "signature": signature, "evaluate": evaluate})


class Reading(msgspec.Struct, frozen=True, kw_only=True):  # a Struct: made in µs (a dataclass: ~1 ms of each start)
    """How an input is read. Each field declared with `_setting` is a reading setting, declared here once: its
    name is `read()`'s keyword and the attribute of `InputSpec.reading`, its default the default everywhere, and
    the command line's flag (``--prediction-states``), the signature part and the ``compute()`` keyword come
    from its declaration (`READING_SETTINGS`). A new setting is one field here and the code that applies it."""

    value_matching: Annotated[
        str,
        _setting(
            "exact (default); normalized: case and white space folded; fuzzy: folded, then partial_ratio > 95",
            choices=VALUE_MATCHINGS,
        ),
    ] = "exact"
    prediction_states: Annotated[
        str,
        _setting(
            "cumulative (default): each predicted state is the whole state; updates: each turn's new and changed "
            "slots (null or [DELETE] removes one), accumulated into states",
            choices=PREDICTION_STATES,
            signature="preds",
            evaluate=True,
        ),
    ] = "cumulative"
    gold_alternatives: Annotated[
        str,
        _setting(
            "a gold slot with several acceptable values matches any of them (default) or the first only",
            choices=GOLD_ALTERNATIVES,
            signature="alts",
            evaluate=True,
        ),
    ] = "any"
    only_predicted: Annotated[
        bool, _setting("with --gold: score only the gold dialogues the predictions cover (coverage in the signature)")
    ] = False
    linearized: LinearizedFormat | None = None  # how a linearized text's states are written (its readers set it)
    keep_deletions: bool = False  # null / [DELETE] kept in the states, for the readers that accumulate them later

    def __post_init__(self) -> None:
        for setting in READING_SETTINGS:
            setting.check(getattr(self, setting.name))

    @property
    def parts(self) -> tuple[str, ...]:
        """The signature parts of the settings that are not the default (``preds:updates``; `Corpus.reading`)."""
        return tuple(
            f"{setting.signature}:{value}"
            for setting in READING_SETTINGS
            if setting.signature and (value := getattr(self, setting.name)) != setting.default
        )


@dataclass(frozen=True)
class ReadingSetting:
    """A reading setting as its `Reading` field declares it (`_setting`)."""

    name: str
    default: Any
    help: str
    choices: tuple[str, ...]
    signature: str
    evaluate: bool

    @property
    def flag(self) -> str:
        """The command line's flag: ``--prediction-states`` for ``prediction_states``."""
        return "--" + self.name.replace("_", "-")

    @property
    def metavar(self) -> str | None:
        """How the flag's help names its value: the choices (argparse's own), else the name's end (``DOMAIN``)."""
        return None if self.choices or self.switch else self.name.rsplit("_", 1)[-1].upper()

    @property
    def switch(self) -> bool:
        """Whether the setting is on or off (its flag takes no value)."""
        return isinstance(self.default, bool)

    def check(self, value: object) -> None:
        """An OptionError naming the setting unless `value` is one of its choices, a bool for a switch, or else
        a text."""
        if self.choices and value not in self.choices:
            raise OptionError(f"{self.name} must be one of {', '.join(self.choices)}; got {value!r}")
        if not isinstance(value, bool if self.switch else str):
            raise OptionError(f"{self.name} must be {'true or false' if self.switch else 'a text'}; got {value!r}")


def _declared_settings() -> tuple[ReadingSetting, ...]:
    settings = []
    for field in msgspec.structs.fields(Reading):
        declared = [meta for meta in getattr(field.type, "__metadata__", ()) if isinstance(meta, msgspec.Meta)]
        if declared:
            extra = declared[0].extra or {}
            settings.append(ReadingSetting(field.name, field.default, declared[0].description or "", **extra))
    return tuple(settings)


READING_SETTINGS: tuple[ReadingSetting, ...] = _declared_settings()
"""Every reading setting, in `Reading`'s order: what the command line, `read()`, the evaluate modules and the
signature take them from."""


def split_reading(keywords: Mapping[str, Any], evaluate: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """`keywords` as (the reading settings among them, the rest); `evaluate`: only those ``compute()`` takes."""
    names = {setting.name for setting in READING_SETTINGS if setting.evaluate or not evaluate}
    reading = {name: value for name, value in keywords.items() if name in names}
    return reading, {name: value for name, value in keywords.items() if name not in names}
