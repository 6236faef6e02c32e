"""Stopping a training run cleanly on Ctrl-C (SIGINT) or SIGTERM.

The first signal asks the run to stop: the update in progress (or the warm start) finishes, the checkpoint
and the policy file are written, and ``dw train`` exits with ``128 + signal number`` (130 for Ctrl-C, 143
for SIGTERM) after saying how to continue. Stopping between updates is what makes the interrupted run
resumable exactly. A second signal aborts at once (:class:`Interrupted`); the last checkpoint written stays
intact because checkpoint writes are atomic. Once the final checkpoint and policy are written (during the
final evaluation) there is nothing left to save, and the first signal aborts at once.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType, TracebackType
from typing import Any

#: the signals that stop a run
STOP_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """A stop signal that ends a command at once: a KeyboardInterrupt that remembers which signal it was."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_code(exc: KeyboardInterrupt) -> int:
    """Return the conventional exit status of a command ended by ``exc``: 128 + the signal's number."""
    return 128 + getattr(exc, "signum", signal.SIGINT)


def raise_interrupted(signum: int, frame: FrameType | None) -> None:
    """A signal handler: end the command at once with :class:`Interrupted`."""
    raise Interrupted(signum)


class StopRequest:
    """Context manager: catches the stop signals while a run is in progress (main thread only)."""

    def __init__(self, stopping: str = "stopping after the current update, then writing the checkpoint") -> None:
        """``stopping``: what the run does on the first signal, as the message printed then says it."""
        self.stopping = stopping
        self.signum: int | None = None
        self._abort = False
        self._previous: dict[int, Any] = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else ""

    @property
    def exit_code(self) -> int:
        """Return the conventional exit status of a process stopped by the signal (128 + its number)."""
        return 128 + self.signum if self.signum is not None else 0

    def abort_on_signal(self) -> None:
        """From now on a stop signal aborts at once (:class:`Interrupted`): everything is saved already."""
        self._abort = True

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None or self._abort:
            raise Interrupted(signum)
        self.signum = signum
        print(
            f"\n{signal.Signals(signum).name}: {self.stopping} (send it again to abort without saving)",
            file=sys.stderr,
            flush=True,
        )

    def __enter__(self) -> StopRequest:
        if threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()
