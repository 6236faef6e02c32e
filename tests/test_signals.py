"""SIGINT and SIGTERM, to a command's main process or to its whole process group, end it cleanly.

``timeout`` and job schedulers signal the whole process group, as a terminal's Ctrl-C does: the workers get
the signal too. Every command must still end with one line and status 128 + the signal (130 for SIGINT, 143
for SIGTERM), no traceback, nothing half-written, ``dw train``'s checkpoint written, and no process left
behind, even when its main process is SIGKILLed (the workers die with it, training/worker_process.py).

Each command runs with a unique marker in its environment (tests/process_watch.py), which every process it
starts inherits: after it ended, /proc finds any process left. Each test waits for a point the command
reached (its workers ignore SIGINT, a file it wrote), never for a length of time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from process_watch import command_line, ignores_sigint, kill_marked, leftovers, marked_env, marked_pids, wait_for

ROOT = Path(__file__).resolve().parent.parent
SMOKE = str(ROOT / "configs" / "smoke.yaml")
LIMIT = 600  # seconds a signalled command may take to end on a loaded CI machine (a safety net)


class Command:
    """A ``dw`` command in a process group of its own, its output in files, its processes marked."""

    def __init__(self, args: list[str], folder: Path) -> None:
        env, self.tag = marked_env()
        self.out, self.err = folder / "stdout.txt", folder / "stderr.txt"
        with self.out.open("w") as out, self.err.open("w") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "dw_cli.main", *args],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=err,
                start_new_session=True,  # its own process group, as a terminal's job or `timeout`'s child has
            )

    def alive(self) -> bool:
        return self.process.poll() is None

    def workers(self) -> list[int]:
        """Return the command's worker processes that ignore SIGINT by now (multiprocessing's helper left out)."""
        pids = [p for p in marked_pids(self.tag) if p != self.process.pid]
        return [p for p in pids if ignores_sigint(p) and "resource_tracker" not in command_line(p)]

    def wait_for_workers(self, count: int) -> None:
        wait_for(lambda: len(self.workers()) >= count, f"{count} workers at work", self.alive)

    def signal_group(self, sig: int) -> None:
        os.killpg(self.process.pid, sig)

    def finish(self) -> tuple[int, str]:
        """Wait for the command to end; return its status and its standard error."""
        code = self.process.wait(timeout=LIMIT)
        return code, self.err.read_text()


@pytest.fixture
def command(tmp_path: Path) -> Iterator[type[Command]]:
    started: list[Command] = []

    class Tracked(Command):
        def __init__(self, args: list[str], folder: Path = tmp_path) -> None:
            super().__init__(args, folder)
            started.append(self)

    yield Tracked
    for c in started:  # a failed test leaves nothing running
        if c.alive():
            c.process.kill()
            c.process.wait()
        kill_marked(c.tag)


def _assert_clean(code: int, err: str, expected: int) -> None:
    assert code == expected, err[-3000:]
    assert "Traceback" not in err and "Error" not in err, err[-3000:]


# ---- dw arena ----------------------------------------------------------------------------------------------
ARENA = ["arena", "--lineup", "balanced,center,guardian", "--games", "100000", "--workers", "2", "--no-progress"]


@pytest.mark.parametrize(("sig", "group"), [(signal.SIGTERM, True), (signal.SIGTERM, False), (signal.SIGINT, True)])
def test_a_signalled_arena_stops_its_pool_and_writes_nothing(
    command: type[Command], tmp_path: Path, sig: int, group: bool
) -> None:
    c = command([*ARENA, "--out", str(tmp_path / "out")])
    c.wait_for_workers(2)  # both workers past their start: games under way
    if group:
        c.signal_group(sig)
    else:
        c.process.send_signal(sig)
    code, err = c.finish()
    _assert_clean(code, err, 128 + sig)
    assert err.strip().endswith("dw arena: interrupted" + ("" if sig == signal.SIGINT else " by SIGTERM"))
    assert not (tmp_path / "out" / "results.json").exists()  # nothing half-written
    assert leftovers(c.tag) == []
