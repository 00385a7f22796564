"""Sums as numpy computes them, without numpy: figures of peers' numpy code (SGD-X's schema sensitivity,
SLT 2024's ECE and AUROC) equal theirs to the last bit."""

from __future__ import annotations

from collections.abc import Sequence

_BLOCK = 128  # numpy's PW_BLOCKSIZE


def numpy_sum(values: Sequence[float]) -> float:
    """``np.sum`` of a float64 vector, to the last bit: numpy's pairwise summation (fewer than 8 values: in
    order; up to 128: eight running sums, combined ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest;
    more: both halves, split at a multiple of 8)."""
    count = len(values)
    if count < 8:
        total = 0.0
        for value in values:
            total += value
        return total
    if count <= _BLOCK:
        partial = [float(value) for value in values[:8]]
        index = 8
        while index < count - count % 8:
            for lane in range(8):
                partial[lane] += values[index + lane]
            index += 8
        total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
            (partial[4] + partial[5]) + (partial[6] + partial[7])
        )
        for value in values[index:]:
            total += value
        return total
    half = count // 2
    half -= half % 8
    return numpy_sum(values[:half]) + numpy_sum(values[half:])


def numpy_mean(values: Sequence[float]) -> float | None:
    """``np.mean``: `numpy_sum` / n (None for no value, where numpy gives nan)."""
    return numpy_sum(values) / len(values) if values else None
