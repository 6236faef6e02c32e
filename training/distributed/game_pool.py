"""A pool of game worker processes that a signal can never wedge: one pipe per worker, no shared lock.

The arena (:mod:`training.evaluation.arena`) and designer sweeps (:mod:`training.studies.sweep`) play their games
in such a pool.
``multiprocessing.Pool`` was not safe to stop: its workers share one task queue and one result queue, each
guarded by a lock across processes, and a worker killed while it held one (a SIGTERM to the whole process
group, as ``timeout`` and job schedulers send, lands at any moment) left ``Pool.terminate`` and the pool's
own exit handler waiting on that lock for ever. Here every worker has a pipe of its own, so a worker's death
costs nothing but its own pipe.

The workers take no stop signal: they start with SIGINT and SIGTERM blocked
(:func:`training.distributed.worker_process.stop_signals_blocked`) and their initializer ignores both
(:func:`training.distributed.worker_process.ignore_stop_signals`, which also makes Linux kill a worker whose parent
dies).
The main process decides what a signal means: on any exception (Ctrl-C, SIGTERM turned into
:class:`training.distributed.interrupt.Interrupted`, an error) the pool SIGKILLs its workers; on a normal end it asks
them to exit. A worker's exception is raised again in the main process, its traceback attached as the cause.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import multiprocessing.connection
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from training.distributed.worker_process import stop_signals_blocked

#: how often the main process checks that the workers it waits on still run (seconds)
POLL_SECONDS = 1.0
#: how long a worker asked to exit may take before it is killed (seconds)
EXIT_SECONDS = 10.0


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, attached as the cause of the one raised here."""


class GamePool:
    """``workers`` processes started with ``method`` ("fork" or "spawn"), each running ``initializer(*initargs)``."""

    def __init__(
        self, workers: int, method: str, initializer: Callable[..., None], initargs: Sequence[Any] = ()
    ) -> None:
        context = mp.get_context(method)
        self._workers: list[tuple[Any, multiprocessing.connection.Connection]] = []
        try:
            with stop_signals_blocked():
                for _ in range(workers):
                    mine, theirs = context.Pipe()
                    process = context.Process(target=_serve, args=(theirs, initializer, tuple(initargs)), daemon=True)
                    # listed before it starts: an exception (a signal that reached another thread of this process,
                    # whose handler runs here despite the block) right after start() must find it to kill; a worker
                    # left out ignores SIGTERM, and the interpreter's exit would wait on it for ever
                    self._workers.append((process, mine))
                    process.start()
                    theirs.close()
        except BaseException:
            self.kill()
            raise

    def __enter__(self) -> GamePool:
        return self

    def __exit__(self, kind: Any, value: Any, trace: Any) -> None:
        if kind is None:
            self.close()
        else:
            self.kill()

    def imap_unordered(self, fn: Callable[[Any], Any], items: Sequence[Any], chunksize: int = 1) -> Iterator[Any]:
        """Yield ``fn(item)`` for every item, in the order the workers finish their chunks of ``chunksize``."""
        chunks = [list(items[i : i + chunksize]) for i in range(0, len(items), max(1, chunksize))]
        waiting = iter(chunks)
        idle = list(self._workers)
        busy: dict[Any, tuple[Any, Any]] = {}
        left = len(chunks)
        while left:
            while idle and len(busy) < left:
                process, conn = idle.pop()
                conn.send((fn, next(waiting)))
                busy[conn] = (process, conn)
            ready = multiprocessing.connection.wait(list(busy), POLL_SECONDS)
            if not ready:
                _check_alive(busy.values())
            for conn in ready:
                worker = busy.pop(conn)
                yield from _answer(worker)
                idle.append(worker)
                left -= 1

    def close(self) -> None:
        """Ask every worker to exit and wait for it; kill one that does not within :data:`EXIT_SECONDS`."""
        for _, conn in self._workers:
            with contextlib.suppress(OSError):
                conn.send(None)
        for process, conn in self._workers:
            process.join(EXIT_SECONDS)
            if process.exitcode is None:
                process.kill()
                process.join()
            conn.close()
        self._workers = []

    def kill(self) -> None:
        """SIGKILL every worker and wait for it (they ignore SIGTERM, and nothing they hold is shared)."""
        for process, _ in self._workers:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.kill()
        for process, conn in self._workers:
            with contextlib.suppress(OSError, ValueError, AssertionError):
                process.join()
            conn.close()
        self._workers = []


def _answer(worker: tuple[Any, Any]) -> list[Any]:
    """Return a worker's results for its chunk; raise its exception, or an error if it died."""
    process, conn = worker
    try:
        kind, payload, text = conn.recv()
    except (EOFError, OSError):
        process.join(EXIT_SECONDS)
        raise RuntimeError(
            f"a game worker process stopped with work left to do (exit code {process.exitcode})"
        ) from None
    if kind == "error":
        raise payload from RemoteTraceback(text)
    return list(payload)


def _check_alive(workers: Any) -> None:
    for process, _ in workers:
        if process.exitcode is not None:
            raise _stopped(process)


def _stopped(process: Any) -> RuntimeError:
    return RuntimeError(f"a game worker process stopped with work left to do (exit code {process.exitcode})")


def _serve(conn: Any, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
    """A worker's life: set itself up, then play the chunks it is sent until it is told to stop (None)."""
    initializer(*initargs)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the main process is gone
            return
        if message is None:
            return
        fn, chunk = message
        try:
            answer: tuple[str, Any, str] = ("ok", [fn(item) for item in chunk], "")
        except Exception as exc:  # noqa: BLE001 - raised again in the main process
            answer = ("error", exc, "".join(traceback.format_exception(exc)))
        try:
            conn.send(answer)
        except Exception as exc:  # noqa: BLE001 - an exception or result that cannot be pickled
            if answer[0] == "ok":
                raise
            conn.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}"), answer[2]))
