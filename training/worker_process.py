"""A trainer's worker process: a fresh interpreter that serves it through a socket pair.

The PPO update's replicas (training/update_processes.py) and the scripted AIs (training/scripted_processes.py)
run in such workers. A fresh interpreter, not multiprocessing's spawn: that one imports the caller's main
script again, which runs a script's training a second time unless it is guarded by
``if __name__ == "__main__"``. The worker runs ``MODULE.worker_main(fd)`` on its end of the socket and
unpickles only what its trainer sends it; a worker whose trainer is gone sees the socket close.

The trainer never waits on a dead worker: while it waits for an answer it checks every
:data:`POLL_SECONDS` that the process still runs, and a worker that stopped or closed its pipe is an error
naming its exit code.
"""

from __future__ import annotations

import contextlib
import multiprocessing.connection
import os
import signal
import socket
import subprocess
import sys
from typing import Any

#: how often the trainer checks that a worker it waits on is still alive (seconds)
POLL_SECONDS = 1.0


def ignore_interrupts() -> None:
    """Let Ctrl-C stop the command, not its workers: a terminal sends SIGINT to every process of the job.

    For every worker process (these, the arena's and sweep's pools, the warm start's demonstrations): the
    main process decides what an interrupt means (``dw train`` finishes its update with its workers and saves;
    the other commands stop their pools and say they were interrupted, dw_cli/main.py), and a worker that died
    of it would only add a traceback, or leave a trainer without the share it waits for.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class WorkerProcess:
    """One worker: start it, send it requests, read its answers, stop it (module doc)."""

    #: how errors name the worker
    what = "a worker process"

    def __init__(self, module: str) -> None:
        """Start ``module.worker_main`` in a fresh interpreter with this process's import path."""
        mine, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))}
        code = f"from {module} import worker_main; worker_main({theirs.fileno()})"
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
