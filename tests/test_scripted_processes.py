"""The scripted AIs in worker processes (training/ppo/scripted_processes.py, ``run.scripted_workers``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from dw_env.envs.vector import DomainWheelVectorEnv  # noqa: E402
from policies import checkpoint  # noqa: E402
from training.ppo.config import from_dict  # noqa: E402
from training.ppo.league import ScriptedSeats  # noqa: E402
from training.ppo.scripted_processes import ScriptedProcesses  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = str(ROOT / "configs" / "smoke.yaml")
# the smoke run with a league heavy in AIs and games short enough that many end (and restart) in it
AIS = [
    "--set",
    "league.weights={latest: 0.2, past: 0.1, random: 0.1, balanced: 0.2, center: 0.2, guardian: 0.1, raider: 0.1}",
    "--set",
    "game.max_rounds=15",
    "--set",
    "run.total_env_steps=3072",  # 8 updates
    "--set",
    "eval.final_games=0",
]


def _train(run_dir: Path, *extra: str) -> dict[str, Any]:
    """Train in a process of its own (a fresh allocator and thread pool, as a user's run has).

    In the test process, what earlier tests left in memory changes where tensors are placed, and with it how
    the CPU kernels split their sums: after an in-process search-guided run, two equal trainings differed in
    the last bit of a weight.
    """
    _dw("train", "--config", CONFIG, "--run-dir", str(run_dir), *AIS, *extra)
    return checkpoint.load(run_dir / "checkpoint.pt")


def _dw(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "dw_cli.main", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


def _assert_same_run(a: dict[str, Any], b: dict[str, Any]) -> None:
    keys = ("env_steps", "updates", "games", "decisions")
    assert {k: a["counters"][k] for k in keys} == {k: b["counters"][k] for k in keys}
    for name, tensor in a["model"].items():
        assert torch.equal(b["model"][name], tensor), name
    table_a, table_b = a["training"]["table"], b["training"]["table"]
    assert table_a["scripted"] == table_b["scripted"]  # every AI's saved memory, in the same order
    assert torch.equal(table_a["pending"], table_b["pending"])
    assert table_a["opponent"] == table_b["opponent"]


@pytest.fixture(scope="module")
def on_two_workers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The run with its AIs in two worker processes, straight through (both tests below compare with it)."""
    return _train(tmp_path_factory.mktemp("scripted") / "two", "--set", "run.scripted_workers=2")


def test_a_run_is_the_same_with_its_ais_in_worker_processes(on_two_workers: dict[str, Any], tmp_path: Path) -> None:
    here = _train(tmp_path / "here")
    assert here["counters"]["games"] >= 20  # games ended and restarted their AIs during the run
    assert {"center", "guardian", "raider", "balanced"} <= set(here["training"]["table"]["opponent"])
    _assert_same_run(here, on_two_workers)  # three workers: the resumed run below


def test_a_run_with_worker_processes_resumes_exactly_with_any_count(
    on_two_workers: dict[str, Any], tmp_path: Path
) -> None:
    straight = on_two_workers
    split = tmp_path / "split"
    _train(split, "--set", "run.scripted_workers=2", "--set", "run.stop_after_updates=3")
    resume = ["train", "--resume", str(split / "checkpoint.pt"), "--set", "run.stop_after_updates=5"]
    _dw(*resume, "--set", "run.scripted_workers=0")  # on the trainer's thread for a while
    resume[-1] = "run.stop_after_updates=0"
    _dw(*resume, "--set", "run.scripted_workers=3")
    _assert_same_run(straight, checkpoint.load(split / "checkpoint.pt"))


def _env(n: int = 6) -> DomainWheelVectorEnv:
    env = DomainWheelVectorEnv(n, {"land_radius": 1, "map_radius": 2, "max_rounds": 40}, seed=5)
    env.reset()
    return env


def _play(
    seats: ScriptedSeats, env: DomainWheelVectorEnv, kinds: list[str], steps: int, start: bool = True
) -> list[list[int]]:
    """Play every slot with the AIs of ``kinds`` (restarting games that end); return the actions taken."""
    n = env.num_envs
    for slot in range(n if start else 0):
        seats.start_game(slot, kinds[slot], 100 + slot)
    player = np.array([env.game(slot).turn for slot in range(n)])
    taken = []
    for _ in range(steps):
        actions = seats.actions(np.arange(n), kinds, player)
        taken.append(actions)
        _, _, player, _, terminated, truncated, _ = env.step(np.array(actions))
        for slot in np.flatnonzero(terminated | truncated):
            seats.start_game(int(slot), kinds[slot], 1000 + len(taken) + int(slot))
    return taken


KINDS = ["balanced", "center", "guardian", "raider", "expansionist", "random"]


def test_the_workers_play_and_save_what_the_trainers_thread_would() -> None:
    here = ScriptedSeats(_env())
    pool = ScriptedProcesses(_env(), workers=4)
    try:
        assert _play(pool, pool.env, KINDS, 150) == _play(here, here.env, KINDS, 150)
        assert np.array_equal(pool.pending, here.pending)
        mine = {key: policy.state_dict() for key, policy in here.policies.items()}
        theirs = {key: policy.state_dict() for key, policy in pool.policies.items()}
        assert theirs == mine
        # a resumed run hands the workers saved AIs, which replace theirs, and they go on as the trainer's thread's
        pool.policies = {}
        assert pool.policies == {}
        pool.policies = here.policies
        assert {key: policy.state_dict() for key, policy in pool.policies.items()} == mine
        assert _play(pool, pool.env, KINDS, 60, start=False) == _play(here, here.env, KINDS, 60, start=False)
    finally:
        pool.close()


def test_an_error_in_a_worker_reaches_the_trainer_and_every_worker_keeps_serving() -> None:
    pool, here = ScriptedProcesses(_env(), workers=2), ScriptedSeats(_env())
    try:
        pool.start_game(1, "center", 7)
        with pytest.raises(RuntimeError, match="in a scripted AIs' worker process:(.|\n)*KeyError"):
            # no game was started in slot 0: worker 0 has no AI there, while worker 1 answers for slot 1
            pool.actions([0, 1], ["center", "center"], [0, 0])
        # worker 1's answer was read too: nothing stale is left to be taken for a later move
        assert _play(pool, pool.env, KINDS, 40) == _play(here, here.env, KINDS, 40)
    finally:
        pool.close()


def test_a_killed_worker_is_an_error_naming_its_exit_code_not_a_hang() -> None:
    pool = ScriptedProcesses(_env(), workers=2)
    try:
        for slot in range(6):
            pool.start_game(slot, "balanced", slot)
        victim = pool.workers[1].process
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)
        with pytest.raises(RuntimeError, match=rf"worker process .*process {victim.pid}, exit code -9"):
            pool.actions(list(range(6)), ["balanced"] * 6, [0] * 6)
    finally:
        pool.close()


def test_close_stops_every_worker_and_can_be_repeated() -> None:
    pool = ScriptedProcesses(_env(), workers=2)
    processes = [w.process for w in pool.workers]
    pool.close()
    pool.close()
    assert all(p.poll() == 0 for p in processes)


@pytest.mark.parametrize("bad", [-1, 257, 1.5, "two", True])
def test_the_worker_count_is_validated(bad: Any) -> None:
    with pytest.raises(ValueError, match="scripted_workers"):
        from_dict({"run": {"scripted_workers": bad}})
    with pytest.raises(ValueError, match="workers must be an integer >= 1"):
        ScriptedProcesses(_env(), workers=0)


def test_worker_processes_are_refused_where_they_cannot_serve() -> None:
    with pytest.raises(ValueError, match=r"run.scripted_workers: .*allowed: 0 with run.rollout_workers"):
        from_dict({"run": {"scripted_workers": 2, "rollout_workers": 2}})
    with pytest.raises(ValueError, match=r"run.scripted_workers: alveole's seats .*allowed: 0"):
        from_dict(
            {
                "game": {"name": "alveole"},
                "run": {"scripted_workers": 2},
                "league": {"weights": {"latest": 1.0}},
                "eval": {"final_opponents": []},
                "imitation": {"teacher": "none"},
            }
        )
