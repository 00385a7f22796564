"""Progress bars on stderr for long work (`tqdm`).

`progress(iterable, …)` shows a bar only after `DELAY_SECONDS`, only on a terminal, and never with
``quiet``; otherwise, or without tqdm, it returns the iterable itself.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")

DELAY_SECONDS = 2.0
"""A bar appears once the work has run this long (tqdm's ``delay``): short runs print nothing."""
_quiet = False


def set_quiet(quiet: bool) -> None:
    """Turn every bar of this process off (the command line's ``--quiet``) or back on."""
    global _quiet
    _quiet = bool(quiet)


def enabled(quiet: bool = False, stream: object | None = None) -> bool:
    """Whether a bar would be shown: not quiet, and `stream` (default stderr) is a terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return not (quiet or _quiet) and callable(isatty) and bool(isatty())


def progress(
    iterable: Iterable[T],
    *,
    total: int | None = None,
    unit: str = "items",
    desc: str = "",
    quiet: bool = False,
    stream: object | None = None,
) -> Iterable[T]:
    """`iterable`, with a bar on `stream` (default stderr) when `enabled` (see the module)."""
    if not enabled(quiet, stream):
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with datasets/evaluate
        return iterable
    stream = sys.stderr if stream is None else stream
    return tqdm(iterable, total=total, unit=unit, desc=desc, delay=DELAY_SECONDS, file=stream, leave=False)
