"""A process pool of forked workers (``score --jobs``, ``dstc2 --jobs``).

`in_processes(work, jobs)` forks ``jobs - 1`` workers running ``work(k)`` while this process runs
``work(0)``; results come back pickled, in order of k. Workers inherit memory, so nothing is
pickled on the way in. Without ``fork``, or when a ``work(k)`` raises or a worker dies, it returns
None and the caller does the work in one process, so errors are those of one process.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

START_METHOD = "fork"


def forkable() -> bool:
    """Whether this platform can fork workers (else every caller works in one process)."""
    return START_METHOD in multiprocessing.get_all_start_methods()


def in_processes(work: Callable[[int], T], jobs: int) -> list[T] | None:
    """``[work(0), …, work(jobs - 1)]``, the others in forked workers; None when any failed or without fork."""
    if not forkable():
        return None
    context = multiprocessing.get_context(START_METHOD)
    children = []
    for k in range(1, jobs):
        receive, send = context.Pipe(duplex=False)
        child = context.Process(target=_child, args=(send, work, k))
        child.start()
        send.close()
        children.append((child, receive))
    try:
        results: list[Any] | None = [work(0)]
    except Exception:  # noqa: BLE001 - one process does it again and names the problem
        results = None
    received = [_receive(child, receive) for child, receive in children]  # every worker reaped
    if results is None or any(found is None for found in received):
        return None
    return results + [found[0] for found in received]  # type: ignore[index]


def _child(send: Any, work: Callable[[int], Any], k: int) -> None:
    """A forked worker: ``(work(k),)`` pickled down the pipe (None on any failure), then exit."""
    try:
        payload = pickle.dumps((work(k),), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # noqa: BLE001 - the parent works in one process instead
        payload = pickle.dumps(None)
    try:
        send.send_bytes(payload)
    finally:
        os._exit(0)  # no interpreter teardown: the parent owns every shared object


def _receive(child: Any, receive: Any) -> tuple | None:
    try:
        found = pickle.loads(receive.recv_bytes())
    except (EOFError, OSError, pickle.UnpicklingError):
        found = None
    child.join()
    return found


def shared_counter() -> Any:
    """A counter the workers of the next `in_processes` share (made before they fork)."""
    return multiprocessing.get_context(START_METHOD).Value("q", 0)


def claimed(counter: Any, total: int, chunk: int) -> Iterator[int]:
    """The first positions of the chunks of `total` items this process claims from the shared `counter`."""
    while True:
        with counter.get_lock():
            start = counter.value
            counter.value = start + chunk
        if start >= total:
            return
        yield start
