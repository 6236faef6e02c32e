"""``dw train`` on Frontera end to end (configs/frontera_smoke.yaml): PPO updates, a checkpoint, exact resume.

The smoke config runs 3 updates of 8 games x 48 steps (3 players, small map, fog on half the rows, games cut
at 9 turns so that some end). One run stops after 2 updates and is resumed from its checkpoint; another goes
straight through: the two must end with the same counters and bit-identical weights. Then the checkpoint
plays an arena game as a seat (``dw arena --game frontera --players CHECKPOINT ...``).
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from dw_cli.main import main  # noqa: E402
from policies import checkpoint  # noqa: E402

CONFIG = str(Path(__file__).resolve().parent.parent / "configs" / "frontera_smoke.yaml")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("frontera_train")
    split, straight = base / "split", base / "straight"
    out: dict[str, Any] = {"split": split, "straight": straight, "base": base}
    assert main(["train", "--config", CONFIG, "--run-dir", str(split), "--set", "run.stop_after_updates=2"]) == 0
    out["first"] = checkpoint.load(split / "checkpoint.pt")
    assert main(["train", "--resume", str(split / "checkpoint.pt"), "--set", "run.stop_after_updates=0"]) == 0
    assert main(["train", "--config", CONFIG, "--run-dir", str(straight)]) == 0
    return out


def test_frontera_smoke_run_writes_a_frontera_checkpoint_and_policy(runs: dict[str, Any]) -> None:
    first = runs["first"]
    assert first["game"] == "frontera" and first["options"]["players"] == 3
    assert first["counters"]["updates"] == 2 and first["counters"]["env_steps"] == 2 * 8 * 48
    assert first["counters"]["decisions"] > 0
    assert (runs["split"] / "policy.pt").is_file()


def test_frontera_resume_continues_counters_and_weights_exactly(runs: dict[str, Any]) -> None:
    resumed = checkpoint.load(runs["split"] / "checkpoint.pt")
    straight = checkpoint.load(runs["straight"] / "checkpoint.pt")
    keys = ("env_steps", "updates", "games", "decisions")
    assert {k: resumed["counters"][k] for k in keys} == {k: straight["counters"][k] for k in keys}
    assert resumed["counters"]["updates"] == 3
    assert resumed["counters"]["games"] > 0  # games ended and were scored (winners, final territories)
    for name, tensor in straight["model"].items():
        assert torch.equal(resumed["model"][name], tensor), name
    assert any(not torch.equal(runs["first"]["model"][k], v) for k, v in straight["model"].items())


def test_frontera_checkpoint_plays_in_the_arena(runs: dict[str, Any]) -> None:
    policy = str(runs["straight"] / "policy.pt")
    out = runs["base"] / "arena"
    args = ["arena", "--game", "frontera", "--option", "map=small", "--option", "players=2", "--option", "max_turns=6"]
    assert main([*args, "--lineup", f"{policy},expansionist", "--games", "2", "--out", str(out), "--no-progress"]) == 0
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert len(rows) == 2  # 2 games, the seating rotating
    assert {policy, "expansionist"} == {r["strategy_seat1"] for r in rows}
    assert all(r["faults_seat1"] == r["faults_seat2"] == "0" for r in rows)  # no illegal action, no failure


def test_arena_refuses_a_missing_frontera_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "nowhere.pt")
    assert main(["arena", "--game", "frontera", "--players", missing, "expansionist", "--games", "1"]) != 0
    assert "nowhere.pt" in capsys.readouterr().err


def test_frontera_final_evaluation_plays_its_games_without_openings() -> None:
    """The run's last evaluation (eval.final_games) plays Frontera: no random openings, as in the arena.

    Frontera's games differ by their seeds (deal and dice), so the arena draws no openings for it; the
    evaluation used to take the arena's opening moves as env indices and failed at its first game.
    """
    from training.ppo.config import load
    from training.ppo.evaluate import evaluate
    from training.ppo.game_setup import make_network

    config = load(CONFIG, ["eval.final_games=4"])
    assert config.eval.opening_plies == 0
    net = make_network(config, torch.device("cpu"))
    result = evaluate(
        net,
        config.options,
        "expansionist",
        4,
        seed=3,
        num_envs=4,
        game_id="frontera",
        opening_plies=config.eval.opening_plies,
    )
    assert result.games == 4 and result.env_steps > 0 and result.opening_plies == 0


def test_frontera_config_refuses_evaluation_openings_naming_the_way_to_resume() -> None:
    from training.ppo.config import ConfigError, load

    with pytest.raises(ConfigError) as err:
        load(CONFIG, ["eval.opening_plies=3"])
    text = str(err.value)
    assert "eval.opening_plies" in text and "dice and deal" in text and "allowed: 0" in text
    assert "--set eval.opening_plies=0" in text
