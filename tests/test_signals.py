"""SIGINT and SIGTERM, to a command's main process or to its whole process group, end it cleanly.

``timeout`` and job schedulers signal the whole process group, as a terminal's Ctrl-C does: the workers get
the signal too. Every command must still end with one line and status 128 + the signal (130 for SIGINT, 143
for SIGTERM), no traceback, nothing half-written, ``dw train``'s checkpoint written, and no process left
behind, even when its main process is SIGKILLed (the workers die with it, training/distributed/worker_process.py).

Each command runs with a unique marker in its environment (tests/process_watch.py), which every process it
starts inherits: after it ended, /proc finds any process left. Each test waits for a point the command
reached (its workers ignore SIGINT, a file it wrote), never for a length of time.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from process_watch import command_line, ignores_sigint, kill_marked, leftovers, marked_env, marked_pids, wait_for

from training.distributed.worker_process import stop_signals_blocked

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


def _assert_resumable(run: Path) -> None:
    """Fail unless ``run``'s checkpoint is one ``dw train --resume`` takes (its training state checks out)."""
    from policies import checkpoint
    from training.ppo.resume import check_resumable, saved_counters

    payload = checkpoint.load(run / "checkpoint.pt")
    check_resumable(payload, run / "checkpoint.pt")
    saved_counters(payload, run / "checkpoint.pt")


# ---- dw train ----------------------------------------------------------------------------------------------
TRAIN = ["train", "--config", SMOKE, "--set", "run.total_env_steps=100000000", "--set", "eval.final_games=0"]
#: the update's second replica in a worker process, and two scripted AIs' workers
WORKERS = [
    "--set",
    "imitation.teacher=none",
    "--set",
    "run.checkpoint_every=1",
    "--set",
    "league.weights={latest: 0.4, balanced: 0.3, center: 0.3}",
    "--set",
    "run.scripted_workers=2",
    "--set",
    "env.num_envs=48",
    "--set",
    "ppo.num_minibatches=1",
    "--set",
    "run.network_threads=2",
]


def _assert_saved_after_sigterm(c: Command, run: Path) -> str:
    """Check that a signalled ``dw train`` ended cleanly (143) with a resumable checkpoint and its policy, and
    left no process; return its stderr."""
    code, err = c.finish()
    _assert_clean(code, err, 143)
    assert "stopped by SIGTERM" in err
    _assert_resumable(run)
    assert (run / "policy.pt").exists()
    assert leftovers(c.tag) == []
    return err


def test_group_sigterm_in_the_warm_start_writes_a_resumable_checkpoint(command: type[Command], tmp_path: Path) -> None:
    """Finding 1: `timeout` during the warm start gave BrokenProcessPool and a run folder no retry would take."""
    run = tmp_path / "run"
    warm = ["--set", "imitation.workers=2", "--set", "imitation.decisions=4000", "--run-dir", str(run)]
    c = command([*TRAIN, *warm])
    c.wait_for_workers(2)  # the demonstrations' pool is at work
    c.signal_group(signal.SIGTERM)
    err = _assert_saved_after_sigterm(c, run)
    assert f"dw train --resume {run}" in err


def test_group_sigterm_during_updates_lets_the_trainer_finish_and_save(command: type[Command], tmp_path: Path) -> None:
    """Finding 1: `timeout` during the updates killed the workers: two tracebacks and no checkpoint."""
    run = tmp_path / "run"
    c = command([*TRAIN, *WORKERS, "--run-dir", str(run)])
    wait_for(lambda: (run / "checkpoint.pt").exists(), "the first checkpoint", c.alive)
    c.wait_for_workers(3)  # the update's worker and the two AIs' workers
    c.signal_group(signal.SIGTERM)
    _assert_saved_after_sigterm(c, run)


def test_workers_die_with_a_killed_trainer(command: type[Command], tmp_path: Path) -> None:
    """SIGKILL leaves the trainer no chance to stop its workers: the kernel ends them (PR_SET_PDEATHSIG)."""
    run = tmp_path / "run"
    c = command([*TRAIN, *WORKERS, "--run-dir", str(run)])
    c.wait_for_workers(3)
    c.process.kill()
    c.process.wait(timeout=LIMIT)
    assert leftovers(c.tag) == []


# ---- dw train over several tables ----------------------------------------------------------------------------
FRONTERA = str(ROOT / "configs" / "frontera_smoke.yaml")
#: two tables on two maps (each map's update replica in a worker process of its own), no end in sight
SEVERAL_TABLES = [
    "tables=[{players: 2, num_envs: 4}, {players: 3, map: medium, max_turns: 3, num_envs: 4, name: medium3}]",
    "run.network_threads=2",
    "run.total_env_steps=100000000",
    "run.checkpoint_every=1",
    "eval.final_games=0",
]


def _sets(overrides: list[str]) -> list[str]:
    return [arg for text in overrides for arg in ("--set", text)]


def test_ctrl_c_in_a_run_of_several_tables_saves_every_table_and_resumes_exactly(
    command: type[Command], tmp_path: Path
) -> None:
    """Ctrl-C once both maps' update workers are at work (a table's update on each map done): status 130, no
    process left, every table's games in the checkpoint; resumed for one more update in a new process, the run
    ends bit-identical to a straight run of as many updates (docs/TRAINING.md "Tables")."""
    import torch

    from policies import checkpoint

    run, straight = tmp_path / "run", tmp_path / "straight"
    for logs in ("c", "again"):
        (tmp_path / logs).mkdir()
    c = command(["train", "--config", FRONTERA, "--run-dir", str(run), *_sets(SEVERAL_TABLES)], tmp_path / "c")
    wait_for(lambda: (run / "checkpoint.pt").exists(), "the first checkpoint", c.alive)
    c.wait_for_workers(2)  # the second map's worker starts with its first update: both tables have trained
    c.signal_group(signal.SIGINT)
    code, err = c.finish()
    _assert_clean(code, err, 130)
    assert "stopped by SIGINT" in err and f"continue with: dw train --resume {run}" in err
    assert leftovers(c.tag) == []
    _assert_resumable(run)
    stopped = checkpoint.load(run / "checkpoint.pt")
    updates = stopped["counters"]["updates"]
    assert updates >= 1 and [t["name"] for t in stopped["training"]["tables"]] == ["medium3"]
    more = f"run.stop_after_updates={updates + 1}"
    again = command(["train", "--resume", str(run), "--set", more], tmp_path / "again")
    whole = command(["train", "--config", FRONTERA, "--run-dir", str(straight), *_sets([*SEVERAL_TABLES, more])])
    for done in (again, whole):
        code, err = done.finish()
        _assert_clean(code, err, 0)
    resumed, reference = checkpoint.load(run / "checkpoint.pt"), checkpoint.load(straight / "checkpoint.pt")
    keys = ("env_steps", "updates", "games", "decisions")
    assert {k: resumed["counters"][k] for k in keys} == {k: reference["counters"][k] for k in keys}
    assert resumed["counters"]["updates"] == updates + 1
    for name, tensor in reference["model"].items():
        assert torch.equal(resumed["model"][name], tensor), name


# ---- dw train: Domain Wheel's value refit --------------------------------------------------------------------
VALUE_FIT = """algo: search_guided
run: {name: vf-signal, seed: 0, checkpoint_every: 1}
game: {name: domain_wheel, land_radius: 1, map_radius: 2, max_rounds: 6}
network: {init_from: %s}
value_fit: {games: 1000000, lineups: ["network,balanced,balanced"], epochs: 1}
"""


def test_ctrl_c_ends_a_value_refit_after_its_game_every_game_saved(command: type[Command], tmp_path: Path) -> None:
    """A first Ctrl-C was noted ("the self-play games under way are dropped") and then ignored, the refit's
    games playing on. It now ends them after the game under way, status 130, every game played in the
    checkpoint, and ``--resume`` goes on from the next game."""
    from policies import checkpoint
    from training.search_guided import config as sg
    from training.search_guided.search_guided import train

    run, spec = tmp_path / "run", tmp_path / "value_fit.yaml"
    spec.write_text(VALUE_FIT % (ROOT / "checkpoints" / "small-agent.pt"))
    c = command(["train", "--config", str(spec), "--run-dir", str(run)])
    wait_for(lambda: (run / "checkpoint.pt").exists(), "the first checkpoint", c.alive)
    c.signal_group(signal.SIGINT)
    code, err = c.finish()  # without the fix: a million games later (the safety net's bound fails it)
    _assert_clean(code, err, 130)
    assert "stopping after the game under way" in err and f"continue with: dw train --resume {run}" in err
    assert checkpoint.stale_temporaries(run, ("checkpoint.pt", "policy.pt")) == []
    saved = checkpoint.load(run / "checkpoint.pt")
    games = saved["training"]["counters"]["games"]
    assert games >= 1 and "report" not in saved["training"]  # stopped among the games: nothing fitted yet
    assert len(saved["training"]["samples"]["games"]) > 0
    more = sg.from_dict(saved["config"], [f"value_fit.games={games + 1}"])
    assert train(more, resume=run / "checkpoint.pt")["counters"]["games"] == games + 1


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


# ---- dw bench train ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", [True, False])
def test_a_signalled_bench_leaves_no_worker(command: type[Command], tmp_path: Path, group: bool) -> None:
    """Finding 2: the bench's spawned worker lived on, orphaned, holding the caller's stdout open."""
    c = command(["bench", "train", "--seconds", "20"])
    c.wait_for_workers(1)  # the measured run's process is up
    if group:
        c.signal_group(signal.SIGTERM)
    else:
        c.process.send_signal(signal.SIGTERM)
    code, err = c.finish()
    assert code == 143, err[-3000:]
    assert "Traceback" not in err and err.strip().endswith("dw bench: interrupted by SIGTERM")
    assert leftovers(c.tag) == []


# ---- dw sweep ----------------------------------------------------------------------------------------------
SWEEP_SPEC = """name: signals
seed: 0
games_per_cell: 6000
options: {land_radius: 1, map_radius: 2, max_rounds: 60}
grid:
  turns_to_conquer: [2, 4]
lineups:
  - {name: mixed, seats: [balanced, center, guardian]}
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signalled_sweep_stops_its_pool_and_leaves_no_half_written_file(
    command: type[Command], tmp_path: Path, sig: int
) -> None:
    spec, out = tmp_path / "spec.yaml", tmp_path / "out"
    spec.write_text(SWEEP_SPEC)
    c = command(["sweep", str(spec), "--out", str(out), "--workers", "2", "--no-progress"])
    c.wait_for_workers(2)  # both pool workers past their start: games under way
    c.signal_group(sig)
    code, err = c.finish()
    _assert_clean(code, err, 128 + sig)
    assert err.strip().endswith("dw sweep: interrupted" + ("" if sig == signal.SIGINT else " by SIGTERM"))
    for cell in out.rglob("cell.json"):  # a finished cell is whole (none is expected this early)
        json.loads(cell.read_text())
    assert not (out / "report.html").exists() and not (out / "sweep.json").exists()  # no report of a part
    assert leftovers(c.tag) == []


# ---- dw export ---------------------------------------------------------------------------------------------
AGENT = ROOT / "checkpoints" / "small-agent.pt"
SHIPPED = ROOT / "checkpoints" / "small-agent"


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(("sig", "existing"), [(signal.SIGTERM, False), (signal.SIGINT, True)])
def test_a_signalled_export_leaves_no_temporary_folder_and_the_old_package_intact(
    command: type[Command], tmp_path: Path, sig: int, existing: bool
) -> None:
    target = tmp_path / "exports" / "package"
    if existing:
        shutil.copytree(SHIPPED, target)
    before = _tree(target) if existing else {}
    # the arena's measurement runs inside the temporary folder, its manifest written: the export is half-way
    args = ["export", str(AGENT), "-o", str(target), "--measure", "100000", "--workers", "2", "--no-progress"]
    c = command(args)
    staged = lambda: [p for p in target.parent.glob(".package.*.tmp") if (p / "strategy.json").exists()]  # noqa: E731
    wait_for(lambda: bool(staged()), "the export's temporary folder", c.alive)
    c.wait_for_workers(2)
    c.signal_group(sig)
    code, err = c.finish()
    _assert_clean(code, err, 128 + sig)
    assert err.strip().endswith("dw export: interrupted" + ("" if sig == signal.SIGINT else " by SIGTERM"))
    assert sorted(p.name for p in target.parent.iterdir()) == (["package"] if existing else [])
    assert (_tree(target) if existing else {}) == before
    assert leftovers(c.tag) == []


# ---- dw play -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("sig", "group"), [(signal.SIGTERM, True), (signal.SIGINT, True), (signal.SIGTERM, False)])
def test_a_signalled_play_server_ends_with_one_line(
    command: type[Command], tmp_path: Path, sig: int, group: bool
) -> None:
    """uvicorn stops serving on the signal, then raises it again: dw play ends as every other command."""
    c = command(["play", "--port", "0", "--no-browser", "--records", str(tmp_path / "records")])
    wait_for(lambda: "dw play: serving" in c.out.read_text(), "the server to listen", c.alive)
    if group:
        c.signal_group(sig)
    else:
        c.process.send_signal(sig)
    code, err = c.finish()
    _assert_clean(code, err, 128 + sig)
    assert err.strip() == "dw play: interrupted" + ("" if sig == signal.SIGINT else " by SIGTERM")
    assert leftovers(c.tag) == []


# ---- a worker's start ----------------------------------------------------------------------------------------
def test_a_stop_signal_while_a_worker_starts_waits_for_its_initializer() -> None:
    """A group signal that reached a worker before its initializer ran ended it (the warm start's pool broke)."""
    code = (
        "import os, sys; os.write(1, b'started\\n'); sys.stdin.readline(); "  # importing, initializer not run yet
        "from training.distributed.worker_process import ignore_stop_signals; ignore_stop_signals(); print('serving')"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with stop_signals_blocked():
        worker = subprocess.Popen(
            [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
        )
    assert worker.stdout is not None and worker.stdin is not None
    try:
        assert worker.stdout.readline() == "started\n"
        worker.send_signal(signal.SIGTERM)
        worker.send_signal(signal.SIGINT)
        out, _ = worker.communicate("go\n", timeout=LIMIT)
    finally:
        worker.kill()
    assert (worker.returncode, out) == (0, "serving\n")


def test_a_spawned_worker_ignores_stop_signals_from_its_first_import(tmp_path: Path) -> None:
    """A spawned worker re-imports its parent's main module (here one that imports dw_cli.main, as the ``dw`` script
    does) before its initializer runs: the stop signals are ignored from that import on, the parent keeps them."""
    script = tmp_path / "probe.py"
    script.write_text(
        "import multiprocessing as mp, signal\n"
        "import dw_cli.main\n"
        "def report(q):\n"
        "    q.put([signal.getsignal(s) == signal.SIG_IGN for s in (signal.SIGINT, signal.SIGTERM)])\n"
        "if __name__ == '__main__':\n"
        "    ctx = mp.get_context('spawn')\n"
        "    q = ctx.Queue()\n"
        "    p = ctx.Process(target=report, args=(q,))\n"
        "    p.start()\n"
        "    mine = [signal.getsignal(s) == signal.SIG_IGN for s in (signal.SIGINT, signal.SIGTERM)]\n"
        "    print(q.get(timeout=120), mine)\n"
        "    p.join()\n"
    )
    out = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[0] == "[True, True] [False, False]"
