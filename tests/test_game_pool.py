"""The arena's and sweeps' game pool (training/distributed/game_pool.py) leaves no worker behind when it is
stopped while its workers start: a worker it did not list would ignore SIGTERM and hold the interpreter's exit."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection

import pytest

from training.distributed.game_pool import GamePool


def _nothing() -> None:
    return None


def test_an_exception_right_after_a_worker_starts_leaves_no_worker_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    real_close = multiprocessing.connection.Connection.close
    calls = []

    def interrupted_close(self: multiprocessing.connection.Connection) -> None:
        real_close(self)
        calls.append(1)
        if len(calls) == 1:  # the pool's own end of the first worker's pipe, just after that worker started
            raise KeyboardInterrupt

    monkeypatch.setattr(multiprocessing.connection.Connection, "close", interrupted_close)
    with pytest.raises(KeyboardInterrupt):
        GamePool(2, "fork", _nothing)
    monkeypatch.undo()
    leftover = multiprocessing.active_children()
    for process in leftover:  # a failure must not leave them to hang this process's exit
        process.kill()
        process.join()
    assert leftover == []


def test_a_pool_answers_and_closes() -> None:
    with GamePool(2, "fork", _nothing) as pool:
        assert sorted(pool.imap_unordered(abs, [-3, 1, -2, 4], chunksize=1)) == [1, 2, 3, 4]
    assert multiprocessing.active_children() == []
