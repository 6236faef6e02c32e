"""Watching a command's processes from a test, without sleeps as synchronisation.

A command starts with a unique marker in its environment (:func:`marked_env`); every process it starts
inherits it, so /proc/*/environ finds them all, orphans included, whatever their process group
(:func:`marked_pids`). A signal mask in /proc/PID/status tells whether a worker has reached the point where
it ignores SIGINT (:func:`ignores_sigint`). Waits poll a condition under a generous overall bound: the bound
is a safety net, never what a test asserts.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Callable
from pathlib import Path

#: the environment variable that marks a test's command and everything it starts
MARKER = "DW_SIGNAL_TEST"
#: the overall bound of a wait (seconds): a safety net only, generous for a loaded 2-core machine (three
#: training runs at once, each compiling its kernels, took over 300 s to their first checkpoint under load)
WAIT_S = 900.0


def marked_env() -> tuple[dict[str, str], str]:
    """Return this process's environment plus a fresh marker, and the marker."""
    tag = uuid.uuid4().hex
    return {**os.environ, MARKER: tag}, tag


def marked_pids(tag: str) -> list[int]:
    """Return the live processes whose environment holds the marker ``tag`` (zombies left out)."""
    needle = f"{MARKER}={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0") and not _zombie(entry):
                found.append(int(entry.name))
        except OSError:  # gone, or not ours to read
            continue
    return found


def _zombie(entry: Path) -> bool:
    return " Z " in (entry / "stat").read_text().rpartition(")")[2][:4]


def ignores_sigint(pid: int) -> bool:
    """Return whether process ``pid`` ignores SIGINT now (False once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = next(int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigIgn:"))
    return bool(mask >> (signal.SIGINT - 1) & 1)


def command_line(pid: int) -> str:
    """Return process ``pid``'s command line, its arguments joined by spaces ("" once it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def wait_for(condition: Callable[[], bool], what: str, alive: Callable[[], bool] = lambda: True) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` if ``alive`` turns false or the bound passes."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert alive(), f"the command ended before {what}"
        assert time.monotonic() < deadline, f"still waiting for {what} after {WAIT_S:.0f} s"
        time.sleep(0.02)


def leftovers(tag: str) -> list[str]:
    """Return the marked processes still alive once every one had a generous bound to exit (empty: none)."""
    deadline = time.monotonic() + 60.0
    while marked_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [f"{pid}: {command_line(pid)[:200]}" for pid in marked_pids(tag)]


def kill_marked(tag: str) -> None:
    """SIGKILL every process still marked ``tag`` (a failed test's cleanup)."""
    for pid in marked_pids(tag):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
