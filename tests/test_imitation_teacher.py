"""A warm start taught by a network (training/ppo/imitation.py, ``imitation.teacher: PATH.pt``): the demonstrations
are the checkpoint's own policy, sampled, on the collection's map; each table of a run of several may name its own
teacher (or none); a bad teacher stops the run before any work.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dw_env.options import GameOptions  # noqa: E402
from policies import checkpoint, games  # noqa: E402
from training.ppo import config as cfg  # noqa: E402
from training.ppo.game_setup import check_teachers, teacher_network  # noqa: E402
from training.ppo.imitation import collect_demonstrations, collect_parallel  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SMALL_AGENT = str(ROOT / "checkpoints" / "small-agent.pt")
SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=60)
SMOKE = ROOT / "configs" / "frontera_smoke.yaml"


def test_a_network_teacher_plays_legal_moves_drawn_from_its_policy() -> None:
    data = collect_demonstrations(SMALL, SMALL_AGENT, 300, seed=2, num_envs=8)
    n = len(data["actions"])
    assert n >= 300
    assert (data["masks"][np.arange(n), data["actions"]] == 1).all()
    net = teacher_network(SMALL_AGENT, games.DEFAULT_GAME, SMALL)
    with torch.inference_mode():
        logits = net(torch.from_numpy(data["obs"]))[0].double()
    logits = logits.masked_fill(torch.from_numpy(data["masks"]) == 0, float("-inf"))
    logp = torch.log_softmax(logits, -1)
    chosen = float(logp[torch.arange(n), torch.from_numpy(data["actions"])].mean())
    legal = torch.from_numpy(data["masks"]) > 0
    uniform = float((torch.where(legal, logp, 0.0).sum(-1) / legal.sum(-1)).mean())
    # the teacher's own draws are far likelier under its policy than a uniform legal move would be
    assert chosen > uniform + 1.0, (chosen, uniform)
    again = collect_demonstrations(SMALL, SMALL_AGENT, 300, seed=2, num_envs=8)
    for key in ("obs", "masks", "actions", "values"):
        np.testing.assert_array_equal(again[key], data[key])  # a seed repeats its examples


def test_network_teachers_collect_in_worker_processes_as_in_one() -> None:
    data = collect_parallel(SMALL, SMALL_AGENT, 120, seed=7, workers=2)
    parts = [collect_demonstrations(SMALL, SMALL_AGENT, 60, seed=7 + k, num_envs=32) for k in range(2)]
    for key in ("obs", "actions"):
        np.testing.assert_array_equal(data[key], np.concatenate([part[key] for part in parts]))


@pytest.fixture(scope="module")
def frontera_teacher(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Return the policy of a one-update Frontera smoke run (small map, 3 players)."""
    run = tmp_path_factory.mktemp("teacher") / "run"
    done = dw_train("--config", str(SMOKE), "--run-dir", str(run), "--set", "run.stop_after_updates=1")
    assert done.returncode == 0, done.stderr[-3000:]
    return str(run / "policy.pt")


def test_a_frontera_teacher_plays_on_another_map_than_its_own(frontera_teacher: str) -> None:
    """Frontera's weights fit every map: a teacher trained on the small map demonstrates on the medium one."""
    teacher = frontera_teacher
    medium = cfg.load(SMOKE, ["game.map=medium", "game.players=4"]).options
    data = collect_demonstrations(medium, teacher, 80, seed=1, num_envs=4, game_id="frontera")
    n = len(data["actions"])
    assert n >= 80 and (data["masks"][np.arange(n), data["actions"]] == 1).all()
    small_width = len(
        collect_demonstrations(cfg.load(SMOKE).options, teacher, 4, seed=1, num_envs=4, game_id="frontera")["obs"][0]
    )
    assert data["obs"].shape[1] > small_width  # the medium map's observation


def test_the_teacher_key_accepts_scripted_ais_and_pt_files_only() -> None:
    assert cfg.load(SMOKE, ["imitation.teacher=runs/x/policy.pt"]).imitation.teacher == "runs/x/policy.pt"
    with pytest.raises(
        cfg.ConfigError,
        match=r"imitation.teacher: .*scripted AI .*expansionist.* or the path of a dw train .pt file, got .policy.json",
    ):
        cfg.load(SMOKE, ["imitation.teacher=policy.json"])
    with pytest.raises(cfg.ConfigError, match=r"imitation.teacher: balanced is not a seat of frontera"):
        cfg.load(SMOKE, ["imitation.teacher=balanced"])
    tables = cfg.load(SMOKE, ["tables=[{players: 2}, {players: 3, teacher: none}, {players: 4, teacher: a/b.pt}]"])
    assert [c.imitation.teacher for _, c in tables.table_configs()] == ["none", "none", "a/b.pt"]


def test_a_missing_or_unfit_teacher_stops_the_run_before_its_folder_is_made(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="imitation.teacher: .*nothing.pt"):
        check_teachers(cfg.load(SMOKE, [f"imitation.teacher={tmp_path / 'nothing.pt'}"]))
    with pytest.raises(checkpoint.CheckpointError, match="imitation.teacher: .*small-agent.pt"):
        check_teachers(cfg.load(SMOKE, ["tables=[{players: 2}, {players: 3, teacher: " + SMALL_AGENT + "}]"]))
    run = tmp_path / "run"
    done = dw_train("--config", str(SMOKE), "--run-dir", str(run), "--set", f"imitation.teacher={tmp_path / 'gone.pt'}")
    assert done.returncode != 0 and "imitation.teacher" in done.stderr and "gone.pt" in done.stderr
    assert "Traceback" not in done.stderr
    assert not run.exists()


def dw_train(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = "import sys; from dw_cli.main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, "train", *args], env=env, capture_output=True, text=True)


def test_each_table_has_its_own_teacher_or_none(frontera_teacher: str, tmp_path: Path) -> None:
    """A table's ``teacher`` key: a network on one table (a one-table run's policy), no clone on the other."""
    teacher = frontera_teacher
    tables = (
        "tables=[{players: 2, num_envs: 4, teacher: none}, "
        f"{{players: 3, map: medium, max_turns: 3, num_envs: 4, name: medium3, teacher: '{teacher}'}}]"
    )
    overrides = [
        tables,
        "imitation.decisions=100",
        "imitation.epochs=1",
        "imitation.workers=1",
        "run.stop_after_updates=1",
    ]
    done = dw_train(
        "--config", str(SMOKE), "--run-dir", str(tmp_path / "two"), *[a for o in overrides for a in ("--set", o)]
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    lines = [line for line in out.splitlines() if line.startswith("warm start:")]
    collected = [line for line in lines if "collected" in line]
    assert len(collected) == 1 and f"of {teacher} collected on table medium3" in collected[0]
    assert any(line.startswith(f"warm start: cloned {teacher} on ") for line in lines)
