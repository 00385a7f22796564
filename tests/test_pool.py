"""The one process pool (`dst_metrics.pool`): results in order of k, None when any process fails."""

from __future__ import annotations

import multiprocessing
import os

import pytest

from dst_metrics import pool

pytestmark = pytest.mark.skipif(not pool.forkable(), reason="needs the fork start method")


def test_each_process_returns_its_result_in_order_and_only_k_0_runs_here():
    here = os.getpid()
    found = pool.in_processes(lambda k: (k, os.getpid() == here, multiprocessing.parent_process() is None), 4)
    assert found == [(0, True, True)] + [(k, False, False) for k in (1, 2, 3)]


@pytest.mark.parametrize("failing", [0, 2])
def test_any_process_that_fails_makes_the_answer_none(failing):
    def work(k: int) -> int:
        if k == failing:
            raise ValueError("this share fails")
        return k

    assert pool.in_processes(work, 3) is None


def test_a_worker_that_dies_makes_the_answer_none():
    assert pool.in_processes(lambda k: os._exit(1) if k == 1 else k, 2) is None


def test_the_processes_share_out_every_chunk_once():
    counter = pool.shared_counter()
    found = pool.in_processes(lambda k: list(pool.claimed(counter, 100, 7)), 3)
    assert found is not None and sorted(start for starts in found for start in starts) == list(range(0, 100, 7))
