"""A trainer's worker process: a fresh interpreter that serves it through a socket pair.

The PPO update's replicas (training/ppo/update_processes.py) and the scripted AIs (training/ppo/scripted_processes.py)
run in such workers. A fresh interpreter, not multiprocessing's spawn: that one imports the caller's main
script again, which runs a script's training a second time unless it is guarded by
``if __name__ == "__main__"``. The worker runs ``MODULE.worker_main(fd)`` on its end of the socket and
unpickles only what its trainer sends it; a worker whose trainer is gone sees the socket close.

The trainer never waits on a dead worker: while it waits for an answer it checks every
:data:`POLL_SECONDS` that the process still runs, and a worker that stopped or closed its pipe is an error
naming its exit code. Nor does a worker outlive its parent, whatever ends the parent (SIGKILL included):
on Linux every worker asks the kernel to kill it when its parent dies (:func:`die_with_parent`).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import multiprocessing.connection
import multiprocessing.process
import os
import signal
import socket
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from training.distributed.interrupt import STOP_SIGNALS

#: how often the trainer checks that a worker it waits on is still alive (seconds)
POLL_SECONDS = 1.0


#: prctl's option that sets the signal a process gets when its parent dies (linux/prctl.h)
PR_SET_PDEATHSIG = 1


def ignore_stop_signals(parent: int | None = None) -> None:
    """Leave SIGINT and SIGTERM to the main process, which still needs this worker; end it when its parent dies.

    For every worker process (the update's replicas, the scripted AIs, the warm start's demonstrations, the
    bench's runs, the arena's and sweep's game pools): ``timeout`` or a job scheduler sends SIGTERM to the
    whole process group as a terminal sends SIGINT, and the main process decides what it means: ``dw train``
    finishes its update (or warm start) with its workers and writes its checkpoint (training/distributed/interrupt.py);
    the arena and sweeps kill their pools (training/distributed/game_pool.py) and say they were interrupted. A worker
    that died of the signal would leave a trainer without the share it waits for, or (in
    ``multiprocessing.Pool``) a lock shared by the pool held for ever. Parents end them by message or SIGKILL.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    die_with_parent(parent)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # signals blocked since the start now meet SIG_IGN


def ignore_stop_signals_if_spawning() -> bool:
    """In a spawned worker importing its parent's main module (``dw_cli.main``), ignore SIGINT and SIGTERM now.

    multiprocessing's spawn re-imports the parent's main module (``dw_cli.main``, or the ``dw`` script that imports
    it) before the worker's initializer runs (:func:`ignore_stop_signals`). The parent starts its workers with both
    signals blocked (:func:`stop_signals_blocked`), but the import loads numba and its threads, and a signal sent to
    the process group meanwhile (Ctrl-C, ``timeout``) was seen to reach one worker as a KeyboardInterrupt with its
    traceback. A worker never takes a stop signal, so it ignores them from that import on. Returns whether it did.
    """
    if not getattr(multiprocessing.process.current_process(), "_inheriting", False):  # set while spawn prepares
        return False
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return True


@contextlib.contextmanager
def stop_signals_blocked() -> Iterator[None]:
    """Block SIGINT and SIGTERM in this thread while it starts workers; the workers unblock them themselves.

    A worker inherits the signal mask of the thread that starts it, through fork and exec: a signal to the
    process group while a worker starts (importing, before its initializer ran) stays pending instead of
    ending it, and the initializer (:func:`ignore_stop_signals`) decides what it
    means. This process gets its own signals once the block ends.
    """
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def die_with_parent(parent: int | None = None) -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; return whether it could (False elsewhere).

    The kernel's PR_SET_PDEATHSIG covers any death of the parent, SIGKILL included, where the parent's
    own cleanup never runs. A parent that died before the request was made is caught by comparing
    ``os.getppid()`` with ``parent`` right after it: this process then exits at once. (The signal follows the
    parent *thread* that started the worker: workers are started from threads that live as long as they do.)
    """
    expected = parent if parent is not None else _multiprocessing_parent()
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if expected is not None and os.getppid() != expected:
        os._exit(1)  # the parent is gone already: nobody is left to serve or to stop this process
    return True


def _multiprocessing_parent() -> int | None:
    """Return the pid of the process that started this one as a multiprocessing child, else None."""
    import multiprocessing

    parent = multiprocessing.parent_process()
    return parent.pid if parent is not None else None


def kill_pool(pool: Any) -> None:
    """SIGKILL every worker of a ``concurrent.futures.ProcessPoolExecutor``: for workers that ignore SIGTERM.

    Its ``shutdown`` would wait for the task under way; the command that calls this has given it up.
    """
    for process in list((getattr(pool, "_processes", None) or {}).values()):  # no public handle on them
        with contextlib.suppress(OSError, ValueError):
            process.kill()


def serve_requests(fd: int, handle: Callable[[Any], tuple[str, Any]]) -> None:
    """Answer each request read from socket ``fd`` with ``handle(request)`` until a ``("stop",)`` or the trainer goes.

    A worker's loop: an exception in ``handle`` travels back as ``("error", traceback)`` (the trainer raises
    it); a closed socket, either way, ends the loop quietly, since the trainer that would read the answer is gone.
    """
    conn = multiprocessing.connection.Connection(fd)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the trainer is gone
            return
        if message[0] == "stop":
            return
        try:
            answer = handle(message)
        except Exception:  # noqa: BLE001 - every error goes back to the trainer, which raises it
            answer = ("error", traceback.format_exc())
        try:
            conn.send(answer)
        except OSError:  # the trainer is gone
            return


class WorkerProcess:
    """One worker: start it, send it requests, read its answers, stop it (module doc)."""

    #: how errors name the worker
    what = "a worker process"

    def __init__(self, module: str) -> None:
        """Start ``module.worker_main`` in a fresh interpreter with this process's import path."""
        mine, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))}
        # signals ignored and the parent's death watched first thing, before the slow imports
        code = (
            f"from training.distributed.worker_process import ignore_stop_signals; ignore_stop_signals({os.getpid()}); "
            f"from {module} import worker_main; worker_main({theirs.fileno()})"
        )
        with stop_signals_blocked():
            self.process = subprocess.Popen([sys.executable, "-c", code], pass_fds=(theirs.fileno(),), env=env)
        theirs.close()
        self.conn = multiprocessing.connection.Connection(mine.detach())
        self.waiting = False  # whether an answer is owed and not yet read

    def send(self, message: Any) -> None:
        """Send one message (pickled); an error naming the worker's state if it cannot be reached."""
        try:
            self.conn.send(message)
        except OSError as e:
            raise RuntimeError(f"{self.what} cannot be reached ({self.exit_text()})") from e
        self.waiting = True

    def read(self, during: str = "") -> Any:
        """Wait for the worker's next message and return it; an error naming its exit code if it stops first."""
        self.waiting = False
        while not self.conn.poll(POLL_SECONDS):
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.what} stopped{during} ({self.exit_text()})")
        try:
            return self.conn.recv()
        except (EOFError, OSError) as e:
            raise RuntimeError(f"{self.what} closed its pipe ({self.exit_text()})") from e

    def close(self) -> None:
        """Stop the worker (idempotent): read an answer it still owes, ask, wait, then kill one that does not stop."""
        if self.process.poll() is None:
            if self.waiting:
                with contextlib.suppress(Exception):  # stopping anyway
                    self.read()
            with contextlib.suppress(OSError):
                self.conn.send(("stop",))
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if not self.conn.closed:
            self.conn.close()

    def exit_text(self) -> str:
        """Describe the worker's state for an error message."""
        code = self.process.poll()
        return f"process {self.process.pid}, " + ("still running" if code is None else f"exit code {code}")
