"""Ctrl-C at a terminal: a ``dw`` command stops with one line and status 130, its workers without tracebacks.

A terminal sends SIGINT to every process of the foreground job, so a command's worker processes get it too
(``dw train``'s clean stop is tests/test_train_interrupt.py's).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from process_watch import ignores_sigint, kill_marked, leftovers, marked_env, marked_pids, wait_for

from dw_cli import main as cli

ROOT = Path(__file__).resolve().parent.parent


def test_an_interrupted_command_says_so_and_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(args: argparse.Namespace) -> int:
        raise KeyboardInterrupt

    class Parser:
        def parse_args(self, argv: list[str] | None) -> argparse.Namespace:
            return argparse.Namespace(command="sweep", func=interrupted)

    monkeypatch.setattr(cli, "build_parser", Parser)
    assert cli.main(["sweep"]) == 130
    assert capsys.readouterr().err == "dw sweep: interrupted\n"


def test_ctrl_c_stops_an_arena_and_its_worker_pool_cleanly(tmp_path: Path) -> None:
    args = ["arena", "--lineup", "balanced,center,guardian", "--games", "100000", "--workers", "2"]
    env, tag = marked_env()
    process = subprocess.Popen(
        [sys.executable, "-m", "dw_cli.main", *args, "--out", str(tmp_path / "out")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job has
    )
    try:
        # both workers past their initializer (they ignore SIGINT): games under way, not a worker still starting
        workers = lambda: [p for p in marked_pids(tag) if p != process.pid and ignores_sigint(p)]  # noqa: E731
        wait_for(lambda: len(workers()) >= 2, "the arena's two workers", lambda: process.poll() is None)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=600)
    finally:
        kill_marked(tag)
    assert process.returncode == 130, err[-2000:]
    assert "dw arena: interrupted" in err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert not (tmp_path / "out" / "results.json").exists()  # nothing half-written
    assert leftovers(tag) == []
