"""What the commands share: the parser, the input and interval options, option checks, the run with
one-line errors, tables. Imports only light modules at the top; readers when a command needs them.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .. import options as opts
from ..errors import InputError
from ..modules import needs_extra
from ..options import OptionError, Options

# Parsing


class CommandParser(argparse.ArgumentParser):
    """argparse, with every usage error as one line (``dst-metrics: error: …``) and status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"dst-metrics: error: {message} (see {self.prog} --help)\n")


def _at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum`."""

    def whole(text: str) -> int:
        if not text.strip().isdigit() or int(text) < minimum:
            raise argparse.ArgumentTypeError(f"must be a whole number at least {minimum}; got {text!r}")
        return int(text)

    return whole


whole_number = _at_least(1)
seed_number = _at_least(0)  # a seed


def option_type(parse: Callable[[str], object]) -> Callable[[str], object]:
    """An argparse `type` from one of the options' parsers (``options.parse_alpha``, …): its message, not argparse's."""

    def convert(text: str) -> object:
        try:
            return parse(text)
        except OptionError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = parse.__name__.removeprefix("parse_")
    return convert


def add_reading_options(sub: argparse.ArgumentParser, skip: tuple[str, ...] = ()) -> None:
    """A flag per reading setting (`reading.READING_SETTINGS`) but those named in `skip`: a choice
    (``--prediction-states {cumulative,updates}``), a switch (``--only-predicted``) or a text. Unset, a flag is
    None until `run_parsed` gives it the setting's default (``--compat sgd`` asks whether ``--value-matching``
    was given)."""
    from ..reading import READING_SETTINGS

    for setting in READING_SETTINGS:
        if setting.name in skip:
            continue
        if setting.switch:
            sub.add_argument(setting.flag, action="store_true", default=None, help=setting.help)
        else:
            sub.add_argument(setting.flag, choices=setting.choices or None, metavar=setting.metavar, help=setting.help)


def add_input_options(sub: argparse.ArgumentParser) -> None:
    """The input options every command that reads prediction files shares (format, gold, matching, mode, α)."""
    from ..readers import FORMATS, READERS

    names = ", ".join(f"{name} ({reader.description})" for name, reader in READERS.items())
    sub.add_argument("--format", choices=FORMATS, default="auto", help=f"input format: auto (default), {names}")
    sub.add_argument("--gold", metavar="PATH", help="gold file or folder, for inputs that hold predictions only")
    sub.add_argument("--gold-format", choices=FORMATS, default="auto", help="the format of --gold (auto)")
    add_reading_options(sub)
    sub.add_argument("--mode", choices=opts.MODES, default="official", help="official (default) or corrected")
    alpha_help = "GCA's value weight: 10/11 (default) or any number in [0, 1]"
    sub.add_argument("--alpha", type=option_type(opts.parse_alpha), default=opts.OFFICIAL_ALPHA, help=alpha_help)
    sub.add_argument("--quiet", action="store_true", help="no progress bar (shown on a terminal after 2 s)")


def add_compat_option(sub: argparse.ArgumentParser) -> None:
    """--compat PROFILE: the figures as another evaluator computes them (`compat.PROFILES`)."""
    from ..compat import PROFILES

    profiles = ", ".join(f"{name} ({profile.description})" for name, profile in PROFILES.items())
    sub.add_argument("--compat", choices=list(PROFILES), help=f"figures as another evaluator computes them: {profiles}")


def add_figure_options(sub: argparse.ArgumentParser, lambda_help: str = "FGA's λ (0.5)", k: bool = True) -> None:
    """--fga-lambda (FGA's λ) and, with `k`, --num-slots (SA's K): the options of the figures themselves."""
    sub.add_argument(
        "--fga-lambda", type=option_type(opts.parse_lambda), default=opts.DEFAULT_FGA_LAMBDA, help=lambda_help
    )
    if k:
        num_slots = option_type(opts.parse_num_slots)
        sub.add_argument("--num-slots", type=num_slots, default=opts.MULTIWOZ_NUM_SLOTS, help="K for SA (30)")


def add_interval_options(sub: argparse.ArgumentParser, *, flag: bool = True) -> None:
    """Bootstrap options (``--bootstrap N``, ``--seed S``; with `flag` also ``--ci`` and ``--ci-method``)."""
    if flag:
        sub.add_argument("--ci", action="store_true", help="95%% bootstrap intervals over dialogues (JSON: ci)")
        sub.add_argument("--ci-method", choices=("percentile", "bca"), default="percentile", help="percentile or bca")
    sub.add_argument("--bootstrap", type=whole_number, default=1000, metavar="N", help="resamples (1000)")
    sub.add_argument("--seed", type=seed_number, default=0, help="seed of the resamples (0)")


def options_from_args(args: argparse.Namespace) -> Options:
    """The `Options` of parsed arguments (fields a command does not offer keep their defaults)."""
    values = {"mode": args.mode, "alpha": args.alpha, "value_matching": args.value_matching}
    for name in ("fga_lambda", "num_slots", "compat"):
        if getattr(args, name, None) is not None:
            values[name] = getattr(args, name)
    if getattr(args, "teacher_forced", False):
        values["teacher_forced"] = True
    return Options(**values)


def given_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> set[str]:
    """The destinations of the options `argv` gives itself (an option left at its default is not given)."""
    actions = [action for action in parser._actions if action.option_strings]
    defaults = [action.default for action in actions]
    try:
        for action in actions:
            action.default = argparse.SUPPRESS
        found = vars(parser.parse_known_args(list(argv))[0])
    finally:
        for action, default in zip(actions, defaults):
            action.default = default
    return {action.dest for action in actions if action.dest in found}


# Options that need another option


@dataclass(frozen=True)
class OptionNeed:
    """An option that has an effect only when `holds(args)`: given otherwise, it is an error."""

    option: str  # as typed, e.g. "--schema"
    dest: str  # its argparse destination
    message: str | Callable[[], str]  # what follows the option in the error, e.g. "needs --compat sgd"
    holds: Callable[[argparse.Namespace], bool]
    commands: tuple[str, ...] = ()  # the commands the row is for; () = every command with the option


OPTION_NEEDS: tuple[OptionNeed, ...] = (
    OptionNeed("--schema", "schema", "needs --compat sgd", lambda a: a.compat == "sgd", ("score",)),
    OptionNeed("--train-schema", "train_schema", "needs --compat sgd", lambda a: a.compat == "sgd", ("score",)),
    OptionNeed("--schema", "schema", "needs --schema-variants", lambda a: a.schema_variants, ("report",)),
    OptionNeed("--train-schema", "train_schema", "needs --schema-variants", lambda a: a.schema_variants, ("report",)),
    OptionNeed("--bootstrap", "bootstrap", "needs --ci", lambda a: a.ci, ("score",)),
    OptionNeed("--seed", "seed", "needs --ci", lambda a: a.ci, ("score",)),
    OptionNeed("--ci-method", "ci_method", "needs --ci", lambda a: a.ci, ("score",)),
    OptionNeed("--gold-format", "gold_format", "needs --gold (it is the format of the gold file)", lambda a: a.gold),
    OptionNeed(
        "--scheduler",
        "scheduler",
        "is the address of a Dask scheduler: use it with --engine dask",
        lambda a: a.engine == "dask",
        ("score",),
    ),
    OptionNeed(
        "--jobs",
        "jobs",
        lambda: (
            "needs scoring in processes: --by, --ci, --calibration and --compat "
            f"{', '.join(_whole_profiles())} score in one process"
        ),
        lambda a: not (a.by or a.ci or a.calibration or a.compat in _whole_profiles()),
        ("score",),
    ),
    OptionNeed(
        "--jobs",
        "jobs",
        "is the size of a local Dask cluster: with --scheduler the scheduler's workers score",
        lambda a: not a.scheduler,
        ("score",),
    ),
    OptionNeed(
        "--seed", "seed", "needs --bootstrap above 0 (0: no resampling)", lambda a: a.bootstrap > 0, ("report",)
    ),
    *(
        OptionNeed(option, dest, f"{flag}cannot be combined with --domain", holds, ("score",))
        for option, dest, flag, holds in (
            ("--by", "by", "", lambda a: not a.domain),
            ("--ci", "ci", "", lambda a: not a.domain),
            ("--per-dialogue", "per_dialogue", "", lambda a: not a.domain),
            ("--engine", "engine", "dask ", lambda a: not a.domain or a.engine != "dask"),
            ("--calibration", "calibration", "", lambda a: not a.domain),
        )
    ),
    OptionNeed(
        "--dialogue-domains",
        "dialogue_domains",
        "selects dialogues under --protocol trade only",
        lambda a: a.protocol == "trade",
        ("score",),
    ),
)
"""Every option of every command that has no effect without another (one row each, checked by `check_option_needs`)."""


def _whole_profiles() -> list[str]:
    """The --compat profiles that need the whole corpus in one process (not sums over dialogues)."""
    from ..compat import PROFILES

    return [name for name, profile in PROFILES.items() if profile.sums is None]


def check_option_needs(command: str, args: argparse.Namespace, given: Iterable[str]) -> None:
    """Raise OptionError for the first option of `given` whose `OPTION_NEEDS` row does not hold."""
    given = set(given)
    for need in OPTION_NEEDS:
        if need.dest in given and (not need.commands or command in need.commands) and not need.holds(args):
            message = need.message() if callable(need.message) else need.message
            raise OptionError(f"{need.option} {message}")


# Optional dependencies

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "stats": ("numpy",),
    "report": ("matplotlib", "numpy"),
    "dstc2": ("numpy",),
    "distributed": ("dask", "distributed"),
    "evaluate": ("evaluate", "datasets"),
    "model-card": ("huggingface_hub",),
}
"""The modules each extra of pyproject.toml installs that a command imports (extra -> modules)."""


class MissingExtra(Exception):
    """A command needs a module that is not installed; the message names the extra that installs it."""


Need = tuple[str, tuple[str, ...], str]
"""One need of a command: (extra, modules, what needs them: a flag such as ``--ci``, or ``""`` for the command)."""


def requires(extra: str, *modules: str, flag: str = "") -> Need:
    """One need: `modules` (default: every module of `extra` in `EXTRA_MODULES`) from `extra`, for `flag`."""
    return extra, modules or EXTRA_MODULES[extra], flag


def installed(module: str) -> bool:
    """Whether `module` can be imported (a module set to None in sys.modules cannot)."""
    from importlib.util import find_spec

    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def check_requirements(command: str, needs: Iterable[Need]) -> None:
    """Raise MissingExtra naming the first missing extra of `needs`, the flag and the install command."""
    for extra, modules, flag in needs:
        missing = [module for module in modules if not installed(module)]
        if missing:
            who = flag or f"dst-metrics {command}"
            raise MissingExtra(needs_extra(who, extra, missing))


# Running


def dumps(obj: object) -> str:
    """`obj` as compact JSON text (msgspec)."""
    import msgspec

    return msgspec.json.encode(obj).decode()


def run_parsed(args: argparse.Namespace, run: Callable[[argparse.Namespace], int]) -> int:
    """`run(args)` with progress bars per ``--quiet``, and bad input or options printed as one line, status 2."""
    from ..progress import set_quiet

    set_quiet(getattr(args, "quiet", False))
    if hasattr(args, "value_matching"):  # a command with reading flags (`add_reading_options`): their defaults
        from ..reading import READING_SETTINGS

        args.value_matching_given = args.value_matching is not None  # --compat sgd: fuzzy unless exact is asked
        for setting in READING_SETTINGS:
            if getattr(args, setting.name, False) is None:
                setattr(args, setting.name, setting.default)
    try:
        return run(args)
    except (InputError, OptionError, MissingExtra) as error:
        print(f"dst-metrics: error: {error}", file=sys.stderr)
        return 2


def warn_of_updates(name: str) -> None:
    """The one-line warning on stderr when cumulative predictions look like turn updates (`updates`)."""
    from ..generation.updates import UPDATES_WARNING

    print(f"warning: {name}: {UPDATES_WARNING}", file=sys.stderr)


def check_output_folder(path: str | None, what: str) -> None:
    """The folder of the output `path` must exist before anything is computed (a typo costs no minutes)."""
    from pathlib import Path

    if path and not Path(path).resolve().parent.is_dir():
        raise InputError(f"cannot write {what}: its folder does not exist", source=path)


def write_text(path: str, text: str, what: str) -> None:
    """Write `text` to `path`; an OSError becomes an InputError naming `what` and the file."""
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as error:
        raise InputError(f"cannot write {what}: {error.strerror or error}", source=path) from None


# Tables


def figure_cell(value: float | None, percent: bool = True) -> str:
    """A figure's cell: in percent with 2 decimals, or as a fraction with 4; ``-`` when undefined (None)."""
    if value is None:
        return "-"
    return f"{100 * value:.2f}" if percent else f"{value:.4f}"


def display_width(text: str) -> int:
    """Columns `text` takes in a terminal: wide (CJK) characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _left(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


def _right(text: str, width: int) -> str:
    return " " * (width - display_width(text)) + text


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str = "") -> str:
    """Columns aligned by display width; `align` has an ``l`` or ``r`` per column (default: first left)."""
    align = align or "l" + "r" * (len(header) - 1)
    widths = [max(display_width(row[i]) for row in (header, *rows)) for i in range(len(header))]
    pads = [_left if a == "l" else _right for a in align]
    return "\n".join("  ".join(pad(c, w) for pad, c, w in zip(pads, row, widths)).rstrip() for row in (header, *rows))


def levels_table(figures: dict, slots: int, turns: int, by_slot: dict | None = None) -> str:
    """The table of calibration `figures`, one row per level (or per slot with `by_slot`), in percent."""
    from ..figures.calibration import CALIBRATION_FIGURES

    names = [f.key.split("_", 1)[1] for f in CALIBRATION_FIGURES if f.key.startswith("slot_")]
    labels = [f.label for f in CALIBRATION_FIGURES if f.key.startswith("slot_")]
    percent = {"acc", "mrr", "roc_v2_ca05", "auroc"}
    rows = []
    for level, count in (("slot", slots), ("joint", turns)):
        cells = [figure_cell(figures[f"{level}_{name}"], name in percent) for name in names]
        rows.append([level, *cells, str(count)])
    for slot, found in (by_slot or {}).items():
        rows.append([f"  {slot}", *[figure_cell(found[name], name in percent) for name in names], str(found["n"])])
    return format_table(["level", *labels, "N"], rows, "l" + "r" * (len(labels) + 1))
