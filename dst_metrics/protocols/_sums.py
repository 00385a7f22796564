"""Sums as numpy computes them, so that the protocols' figures equal their reference code (numpy) to the
last bit without importing numpy."""

from __future__ import annotations

from collections.abc import Sequence

_UNROLL = 8
_BLOCK = 128


def numpy_sum(values: Sequence[float], start: int = 0, n: int | None = None) -> float:
    """``np.sum`` of floats: numpy's pairwise summation (fewer than 8 values: in order; up to 128: eight
    running sums, combined ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest; more: both halves,
    split at a multiple of 8)."""
    n = len(values) - start if n is None else n
    if n < _UNROLL:
        total = 0.0
        for index in range(start, start + n):
            total += values[index]
        return total
    if n <= _BLOCK:
        r = [float(value) for value in values[start : start + _UNROLL]]
        index = _UNROLL
        while index < n - n % _UNROLL:
            for j in range(_UNROLL):
                r[j] += values[start + index + j]
            index += _UNROLL
        total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for rest in range(index, n):
            total += values[start + rest]
        return total
    half = n // 2
    half -= half % _UNROLL
    return numpy_sum(values, start, half) + numpy_sum(values, start + half, n - half)


def numpy_mean(values: Sequence[float]) -> float | None:
    """``np.mean``: `numpy_sum` / n (None for no value, where numpy gives nan)."""
    return numpy_sum(values) / len(values) if values else None
