"""The shared layers take the game as a parameter (policies/games): arena, training, checkpoints, CLI.

Domain Wheel's own suites cover its behaviour; here the two board games go through the same arena, trainer
and checkpoint code, and every place a game is chosen refuses what belongs to another game.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from policies import games
from training.evaluation.arena import play_all, run_arena
from training.evaluation.arena_config import ArenaConfig, build_lineups
from training.evaluation.arena_report import csv_row, format_table, row_fields

ROOT = Path(__file__).resolve().parents[1]


def _alveole(**options: int) -> object:
    return games.get("alveole").options_from_dict({"max_plies": 120, **options})


def test_every_game_is_listed_and_unknown_ones_name_the_choices() -> None:
    from dw_cli.commands.arguments import GAME_IDS

    assert games.available() == ["domain_wheel", "alveole", "conquer", "frontera"]
    assert tuple(games.GAMES) == GAME_IDS  # the CLI's copy (no engine import for --help) agrees
    with pytest.raises(ValueError, match="unknown game 'chess'; allowed: domain_wheel, alveole, conquer, frontera"):
        games.get("chess")


@pytest.mark.parametrize("game_id", ["alveole", "conquer"])
def test_two_player_games_have_two_seats_and_truncation_last(game_id: str) -> None:
    adapter = games.get(game_id)
    assert adapter.num_players == 2
    assert adapter.end_reasons[-1] == "truncation"
    assert set(adapter.registered_seats()) >= {"random", "heuristic"}


def test_line_ups_take_the_games_seat_count() -> None:
    adapter = games.get("alveole")
    assert build_lineups("gauntlet", ["heuristic", "random"], game=adapter) == [("heuristic", "random")]
    assert build_lineups("round-robin", ["heuristic", "random"], game=adapter) == [
        ("heuristic", "heuristic"),
        ("heuristic", "random"),
        ("random", "random"),
    ]
    with pytest.raises(ValueError, match="exactly 2 strategies"):
        build_lineups("lineup", lineups=["heuristic,random,random"], game=adapter)
    with pytest.raises(ValueError, match="unknown Alveole strategy 'balanced'"):
        build_lineups("gauntlet", ["balanced", "random"], game=adapter)
    with pytest.raises(ValueError, match="Alveole line-up has 2 seats"):
        ArenaConfig(lineups=(("heuristic", "random", "random"),), game="alveole")


def test_alveole_arena_is_the_same_on_any_worker_count_and_reports_its_seats() -> None:
    config = ArenaConfig(
        lineups=(("heuristic", "random"),), games_per_lineup=6, seed=5, options=_alveole(), game="alveole"
    )
    one = play_all(config, workers=1, progress=False)
    two = play_all(config, workers=2, progress=False)
    assert one == two
    assert [r["seating"] for r in one] == [0, 0, 0, 1, 1, 1]
    assert all(len(r["strategies"]) == 2 and len(r["scores"]) == 2 for r in one)
    summary, rows = run_arena(config, progress=False)
    heuristic = next(s for s in summary["strategies"] if s["name"] == "heuristic")
    assert heuristic["win_rate"] >= 0.5  # the 2-ply heuristic beats random play
    assert set(heuristic["by_seat"]) <= {"first", "second"}
    assert summary["config"]["game"] == "alveole"
    table = format_table(summary)
    assert "Alveole" in table and "2 seatings" in table and "first/second" in table
    flat = csv_row(rows[0], games.get("alveole"))
    assert set(flat) == set(row_fields(games.get("alveole")))  # every column filled, no other
    assert "pieces_end_first" in flat and "lands_mid_blue" not in flat


def test_conquer_arena_plays_a_small_grid() -> None:
    adapter = games.get("conquer")
    options = adapter.options_from_dict({"width": 7, "height": 7})
    config = ArenaConfig(
        lineups=(("heuristic", "random"),), games_per_lineup=4, seed=1, options=options, game="conquer"
    )
    summary, rows = run_arena(config, progress=False)
    assert summary["overall"]["games"] == 4
    assert all(r["end_reason"] in adapter.end_reasons for r in rows)
    assert "7x7" in format_table(summary)


def _dw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dw_cli.main", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def test_arena_cli_refuses_options_of_another_game() -> None:
    result = _dw("arena", "--game", "alveole", "--players", "heuristic", "random", "--land-radius", "1")
    assert result.returncode != 0 and "--land-radius is a Domain Wheel option" in result.stderr
    result = _dw("arena", "--players", "balanced", "random", "--option", "max_plies=10")
    assert result.returncode != 0 and "--option is for the other games" in result.stderr
    result = _dw("arena", "--game", "alveole", "--players", "heuristic", "random", "--option", "plies=10")
    assert result.returncode != 0 and "unknown option 'plies'" in result.stderr
    result = _dw("arena", "--game", "alveole", "--players", "heuristic", "random", "--option", "max_plies")
    assert result.returncode != 0 and "--option must be KEY=VALUE" in result.stderr


def _tiny_config(tmp_path: Path, game: str) -> Path:
    text = f"""
run: {{name: tiny, seed: 2, total_env_steps: 1024, max_minutes: 0, device: cpu, torch_threads: 1, network_threads: 1,
       env_threads: 1, checkpoint_every: 1, progress: false, out_dir: {tmp_path / "runs"}}}
game: {game}
env: {{num_envs: 8, num_steps: 32, opening_plies: 4}}
ppo: {{num_minibatches: 2, update_epochs: 1}}
network: {{channels: 8, cell_layers: 1, land_layers: 0, head_hidden: 16}}
league: {{snapshot_every: 1, keep: 2, weights: {{latest: 1.0, past: 0.5, random: 0.5, heuristic: 0.5}}}}
imitation: {{teacher: heuristic, decisions: 200, epochs: 1, workers: 1}}
eval: {{final_games: 0}}
"""
    path = tmp_path / "tiny.yaml"
    path.write_text(text)
    return path


def test_alveole_training_resumes_exactly(tmp_path: Path) -> None:
    config = _tiny_config(tmp_path, "{name: alveole, max_plies: 80}")
    full, half = tmp_path / "full", tmp_path / "half"
    assert _dw("train", "--config", str(config), "--run-dir", str(full)).returncode == 0
    stopped = _dw("train", "--config", str(config), "--run-dir", str(half), "--set", "run.stop_after_updates=2")
    assert stopped.returncode == 0, stopped.stderr[-500:]
    resumed = _dw("train", "--resume", str(half / "checkpoint.pt"), "--set", "run.stop_after_updates=0")
    assert resumed.returncode == 0, resumed.stderr[-500:]
    a = torch.load(full / "policy.pt", weights_only=True)
    b = torch.load(half / "policy.pt", weights_only=True)
    assert a["game"] == "alveole" and a["counters"]["updates"] == b["counters"]["updates"] == 4
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    # the trained seat plays in the arena of its game, and the other games refuse it by name
    seat = games.get("alveole").make_seat(str(full / "policy.pt"), seed=0)
    game = games.get("alveole").new_game(_alveole())
    assert seat.act(game, game.turn) in game.legal_actions()
    refused = _dw("arena", "--players", str(full / "policy.pt"), "random", "--games", "6")
    assert refused.returncode != 0 and "a checkpoint of alveole, not of domain_wheel" in refused.stderr
    with pytest.raises(ValueError, match="a checkpoint of alveole, not of conquer"):
        games.get("conquer").make_seat(str(full / "policy.pt"), seed=0)


def test_conquer_trains_and_its_network_plays_another_grid(tmp_path: Path) -> None:
    from training.ppo.config import load
    from training.ppo.ppo import train

    config = load(_tiny_config(tmp_path, "{name: conquer, width: 7, height: 7}"))
    assert config.game_id == "conquer" and config.options.width == 7
    result = train(config, run_dir=tmp_path / "run")
    assert result["counters"]["updates"] == 4
    adapter = games.get("conquer")
    seat = adapter.make_seat(str(tmp_path / "run" / "policy.pt"), seed=0)
    bigger = adapter.new_game(adapter.options_from_dict({"width": 9, "height": 9}))
    assert seat.act(bigger, bigger.turn) in bigger.legal_actions()  # the same weights read the 9x9 grid
    assert (seat.net.height, seat.net.width) == (9, 9)
    search = adapter.make_seat(f"search:{tmp_path / 'run' / 'policy.pt'}?playouts=4", seed=0)
    assert search.act(bigger, bigger.turn) in bigger.legal_actions()


def test_board_network_shapes_and_bad_observations() -> None:
    from policies.board_network import BoardPolicyNet

    net = BoardPolicyNet((4, 5, 5), action_planes=1, extra_actions=1, channels=8, cell_layers=1, head_hidden=8)
    obs = torch.zeros((3, 4 * 25), dtype=torch.int8)
    obs[:, 3 * 25 :] = 1  # the on-board plane
    logits, value = net(obs)
    assert logits.shape == (3, 26) and value.shape == (3,)
    net.set_grid(6, 6)
    with pytest.raises(ValueError, match=r"observation size 100 does not fit this network's grid \(4 x 6 x 6\)"):
        net(obs)
    assert np.isfinite(net(torch.ones((2, 4 * 36), dtype=torch.int8))[0].detach().numpy()).all()


def test_config_refuses_seats_and_options_of_another_game() -> None:
    from training.ppo.config import ConfigError, from_dict

    with pytest.raises(ConfigError, match="balanced is not a seat of alveole"):
        from_dict({"game": {"name": "alveole"}, "league": {"weights": {"latest": 1.0, "balanced": 1.0}}})
    with pytest.raises(ConfigError, match="unknown option 'land_radius'"):
        from_dict({"game": {"name": "alveole", "land_radius": 1}})
    with pytest.raises(ConfigError, match="heuristic is not a seat of domain_wheel"):
        from_dict({"eval": {"final_opponents": ["heuristic"]}})
    with pytest.raises(ConfigError, match="unknown game 'chess'"):
        from_dict({"game": {"name": "chess"}})
    config = from_dict({"game": {"name": "alveole"}})  # the game's own defaults where the config is silent
    assert config.imitation.teacher == "none" and config.eval.final_opponents == ["random", "heuristic"]


@pytest.mark.parametrize(
    ("game", "array", "message"),
    [
        ("{name: alveole, max_plies: 80}", "_state.0", "game slot 3: board cells must be 0, 1 or 2"),
        ("{name: conquer, width: 7, height: 7}", "_dots", r"game slot 3: dots must be 0 \(none\), 1 \(red\) or 2"),
    ],
)
def test_resume_refuses_a_tampered_game_in_progress(tmp_path: Path, game: str, array: str, message: str) -> None:
    from policies.checkpoint import CheckpointError
    from training.ppo.config import load
    from training.ppo.ppo import train

    config = load(_tiny_config(tmp_path, game), ["run.stop_after_updates=1"])
    train(config, run_dir=tmp_path / "run")
    path = tmp_path / "run" / "checkpoint.pt"
    payload = torch.load(path, weights_only=True)
    board = payload["training"]["table"]["env"][array]
    board[3, 7] = 9  # not a piece code: the compiled kernels would index out of their tables
    tampered = tmp_path / "tampered" / "checkpoint.pt"
    tampered.parent.mkdir()
    torch.save(payload, tampered)
    before = sorted(p.name for p in tampered.parent.iterdir())
    with pytest.raises(CheckpointError, match=f"table.env: {message}"):
        train(config, resume=tampered)
    assert sorted(p.name for p in tampered.parent.iterdir()) == before


def test_resume_refuses_a_board_game_file_without_its_tuple_held_state(tmp_path: Path) -> None:
    """Only Domain Wheel's tuple-held arrays are not state; Alveole's ``_state`` is its games in progress."""
    from policies.checkpoint import CheckpointError
    from training.ppo.config import load
    from training.ppo.ppo import train

    config = load(_tiny_config(tmp_path, "{name: alveole, max_plies: 80}"), ["run.stop_after_updates=1"])
    train(config, run_dir=tmp_path / "run")
    payload = torch.load(tmp_path / "run" / "checkpoint.pt", weights_only=True)
    env = payload["training"]["table"]["env"]
    payload["training"]["table"]["env"] = {k: v for k, v in env.items() if "." not in k}
    stripped = tmp_path / "stripped" / "checkpoint.pt"
    stripped.parent.mkdir()
    torch.save(payload, stripped)
    with pytest.raises(CheckpointError, match=r"table.env: missing _init.0, .*_state.0"):
        train(config, resume=stripped)
