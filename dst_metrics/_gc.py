"""The one policy for pausing Python's cyclic garbage collector.

Building or scoring a large corpus allocates millions of small dicts and tuples and no reference
cycles; with the collector running, its full collections over them triple the time. Work of that
kind runs inside `gc_paused()`, which restores the collector's previous state on the way out, so
a caller's process never keeps the collector off (nested pauses are fine).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

F = TypeVar("F", bound=Callable)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block; restore its previous state after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def without_gc(function: F) -> F:
    """Decorate `function` to run inside `gc_paused()`."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with gc_paused():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
