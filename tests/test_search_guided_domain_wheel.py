"""Search-guided self-play on Domain Wheel (training/search_guided/games.py, policies/domain_wheel/two_phase.py).

A move is two decisions of the same player (rule 3.2: a piece, then its destination), so the Gumbel max^n
search walks the engine through :class:`Decisions`. Known answers come from the tutorial's centre conquest
(tests/scenarios/paso_18.json, rules 6.4, 9.1): Blue has held the centre three turns, so any move that keeps
the position intact ends the game with Blue the winner, while moving the king off the centre throne throws
the win away. The runs are a tiny network on the small map with short games (``max_rounds`` 6).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from dw_env import position
from dw_env.engine import Game, Move
from policies import checkpoint
from policies.domain_wheel.two_phase import TwoPhaseDriver
from training.search_guided import config as sg
from training.search_guided.games import Decisions
from training.search_guided.search import GumbelSearch, SearchSettings, outcome_vector
from training.search_guided.search_guided import train

ROOT = Path(__file__).resolve().parents[1]
SMALL = {"name": "domain_wheel", "land_radius": 1, "map_radius": 2, "max_rounds": 6}


def centre_position() -> Decisions:
    """Return paso 18's position (Blue to move, its fourth turn on the centre) as decisions."""
    data = json.loads((ROOT / "tests" / "scenarios" / "paso_18.json").read_text())
    game = position.from_dict(data["position"])
    return Decisions(game, TwoPhaseDriver(game.options))


def uniform(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An evaluator that knows nothing: equal logits, a value of 0 for every player."""
    return np.zeros(len(mask)), np.zeros(3)


def frame_action(game: Decisions, cell: int) -> int:
    """Return the legal action of ``game``'s decision that names map cell ``cell``."""
    (action,) = [a for a in game.legal_actions() if a < game.driver.geometry.num_cells and game.cell_of(0, a) == cell]
    return action


def wins_at_once(game: Game, move: Move) -> bool:
    after = game.copy()
    after.play(move)
    return after.over and after.winners == [game.turn]


def test_rule_9_1_improved_policy_picks_a_destination_that_conquers_the_centre() -> None:
    """A knight of the centre's guard selected: 4 of its 6 destinations keep the hold and win at once."""
    game = centre_position()
    game.play(frame_action(game, 547))  # phase 2: the knight at cell 547 is selected
    destinations = game.legal_actions()
    winning = [wins_at_once(game.engine, Move(547, game.cell_of(0, a))) for a in destinations]
    assert sum(winning) == 4 and len(winning) == 6  # the known answer, from the engine
    search = GumbelSearch(uniform, 3, SearchSettings(simulations=24, gumbel_k=6))
    for seed in range(3):
        result = search.run(game, 24, np.random.default_rng(seed))
        chosen = list(result.actions).index(result.action)
        assert winning[chosen]
        assert result.improved[np.asarray(winning)].sum() > 0.95
    assert game.selected == 547  # searching does not change the game


def test_rule_9_1_phase_one_search_keeps_the_king_on_the_centre_throne() -> None:
    """Phase 1: a pass wins at once (the hold's fourth turn); the king's every destination loses the win."""
    game = centre_position()
    king = game.engine.king_cell(0)
    assert not any(wins_at_once(game.engine, Move(king, d)) for d in game.engine.destinations(king))
    search = GumbelSearch(uniform, 3, SearchSettings(simulations=80, gumbel_k=16))
    result = search.run(game, 80, np.random.default_rng(0))
    actions = list(result.actions)
    pass_action = game.driver.geometry.num_cells
    assert result.action != frame_action(game, king)
    assert result.improved[actions.index(pass_action)] == result.improved.max()
    assert result.improved[actions.index(frame_action(game, king))] < 1e-3


@pytest.mark.parametrize(
    ("winners", "truncated", "expected"),
    [([0], False, [1.0, -0.5, -0.5]), ([1, 2], False, [-1.0, 0.5, 0.5]), ([], True, [0.0, 0.0, 0.0])],
)
def test_rule_9_5_outcome_vectors_are_the_games_results(winners: list[int], truncated: bool, expected: list) -> None:
    """A sole winner +1 and the others -1/2; two winners +1/2 each and the loser -1; truncation 0 for all."""

    class Finished:
        pass

    Finished.winners, Finished.truncated = winners, truncated  # type: ignore[attr-defined]
    game = centre_position()
    game.engine = Finished()  # type: ignore[assignment]
    out = outcome_vector(game, 3)
    assert out.tolist() == expected and out.sum() == 0


def test_one_value_output_reads_as_a_zero_sum_vector_fitted_to_the_movers_result() -> None:
    """The acting player's ``v`` gives each rival ``-v/2`` (two players: ``-v``); against a rule 9.5 result
    the vector's squared error is least at ``v`` = the acting player's result."""
    from training.search_guided.self_play import value_vectors

    v = torch.tensor([0.6, -1.0])
    assert np.allclose(value_vectors(v, 3).numpy(), [[0.6, -0.3, -0.3], [-1.0, 0.5, 0.5]])
    assert np.allclose(value_vectors(v, 2).numpy(), [[0.6, -0.6], [-1.0, 1.0]])
    target = torch.tensor([[0.5, -1.0, 0.5]])  # the mover shares the win with the second rival
    grid = torch.linspace(-1, 1, 201)
    errors = torch.stack([((value_vectors(x[None], 3) - target) ** 2).sum() for x in grid])
    assert float(grid[int(errors.argmin())]) == pytest.approx(0.5)


def test_decisions_make_the_engines_moves() -> None:
    """A piece and a destination are one engine move, by the same player; pass is one decision; bad actions refused."""
    game = centre_position()
    knight = frame_action(game, 547)
    game.play(knight)
    assert game.turn == 0 and game.selected == 547 and not game.over
    with pytest.raises(ValueError, match=r"action 999 is not legal in phase 2 \(a destination\); legal: "):
        game.play(999)
    with pytest.raises(ValueError, match="cannot be played after a piece was selected"):
        game.play_move(Move(-1, -1))
    destination = game.legal_actions()[0]
    reference = game.engine.copy()
    reference.play(Move(547, game.cell_of(0, destination)))
    game.play(destination)
    assert game.selected == -1 and game.engine == reference
    fresh = centre_position()
    fresh.play(fresh.driver.geometry.num_cells)  # pass: the centre's fourth turn, the game ends (rule 9.1)
    assert fresh.over and fresh.winners == [0]


# ---- runs: exact resume across processes, the worker count, the warm start ----------------------------------
def tiny_network_file(folder: Path) -> Path:
    """Write a tiny untrained small-map network as a ``dw train`` policy file; return its path."""
    from dw_env.geometry import build_geometry
    from dw_env.options import GameOptions
    from policies.domain_wheel.network import HexPolicyNet

    torch.manual_seed(3)
    size = {"channels": 4, "cell_layers": 1, "land_layers": 1, "head_hidden": 8, "turn_trunk": 0}
    net = HexPolicyNet(build_geometry(1, 2), **size)
    options = {k: v for k, v in SMALL.items() if k != "name"}
    payload = {
        "format": checkpoint.FORMAT,
        "format_version": checkpoint.FORMAT_VERSION,
        "observation_version": HexPolicyNet.observation_version,
        "options": GameOptions(**options).to_dict(),
        "network": size,
        "model": net.state_dict(),
    }
    checkpoint.save(folder / "tiny.pt", payload)
    return folder / "tiny.pt"


def tiny_config(source: Path, *overrides: str) -> sg.Config:
    data = {
        "algo": "search_guided",
        "run": {"name": "sg-dw", "seed": 4, "iterations": 2},
        "game": SMALL,
        "network": {"channels": 4, "cell_layers": 1, "land_layers": 1, "head_hidden": 8, "init_from": str(source)},
        "search": {"simulations": 6, "cheap_simulations": 2, "full_fraction": 0.5, "gumbel_k": 4},
        "learn": {"games_per_iteration": 3, "buffer_size": 400, "batch_size": 16, "updates_per_iteration": 3},
        "eval": {"games": 0},
    }
    return sg.from_dict(data, overrides)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two iterations in the trainer's process; and one, then ``dw train --resume`` with 2 worker processes for
    the second (one comparison checks both: resuming from the file and the worker count change nothing)."""
    from dw_cli.main import main

    base = tmp_path_factory.mktemp("sg-dw")
    source = tiny_network_file(base)
    out: dict[str, Any] = {"source": source, "base": base}
    out["whole_result"] = train(tiny_config(source), run_dir=base / "whole")
    train(tiny_config(source, "run.iterations=1"), run_dir=base / "split")
    out["after_one"] = torch.load(base / "split" / "checkpoint.pt", weights_only=True)
    more = ["--set", "run.iterations=2", "--set", "run.selfplay_workers=2"]
    assert main(["train", "--resume", str(base / "split"), *more]) == 0
    for name in ("whole", "split"):
        out[name] = torch.load(base / name / "checkpoint.pt", weights_only=True)
    return out


def test_resume_with_two_workers_gives_the_unbroken_runs_weights(runs: dict[str, Any]) -> None:
    whole, split = runs["whole"], runs["split"]
    assert runs["after_one"]["training"]["counters"]["iterations"] == 1
    assert split["config"]["run"]["selfplay_workers"] == 2
    assert split["training"]["counters"]["iterations"] == whole["training"]["counters"]["iterations"] == 2
    assert {k: v for k, v in split["training"]["counters"].items() if k != "seconds"} == {
        k: v for k, v in whole["training"]["counters"].items() if k != "seconds"
    }
    for key, tensor in whole["model"].items():
        assert torch.equal(split["model"][key], tensor), key
    for key in ("obs", "mask", "policy", "value"):
        assert torch.equal(split["training"]["replay"][key], whole["training"]["replay"][key]), key
    assert split["training"]["numpy_rng"] == whole["training"]["numpy_rng"]


def test_rule_9_5_value_targets_are_zero_sum_results_in_the_movers_frame(runs: dict[str, Any]) -> None:
    """Each target's value vector is a rule 9.5 result seen from the player to move: it sums to 0."""
    replay = runs["whole"]["training"]["replay"]
    values = replay["value"].numpy()
    assert len(values) == runs["whole"]["training"]["counters"]["targets"] > 0
    assert np.allclose(values.sum(1), 0.0)
    allowed = {(0.0, 0.0, 0.0), (1.0, -0.5, -0.5), (-0.5, 1.0, -0.5), (-0.5, -0.5, 1.0)}
    allowed |= {(-1.0, 0.5, 0.5), (0.5, -1.0, 0.5), (0.5, 0.5, -1.0)}
    assert {tuple(float(x) for x in row) for row in values} <= allowed
    policy, mask = replay["policy"].numpy(), replay["mask"].numpy()
    assert np.allclose(policy.sum(1), 1.0) and not (policy[mask == 0] > 0).any()


def test_the_run_trains_and_its_policy_sits_in_the_network_seat(runs: dict[str, Any]) -> None:
    """The weights moved from the warm start's, and ``policy.pt`` plays where checkpoints play."""
    from policies.domain_wheel import network_policy

    start = checkpoint.load(runs["source"])["model"]
    trained = runs["whole"]["model"]
    assert any(not torch.equal(start[k], trained[k]) for k in start)
    seat = network_policy.load(runs["base"] / "whole" / "policy.pt", seed=0)
    game = Game.new(seat.options)
    game.play(seat.act(game.copy(), game.turn))
    assert runs["whole"]["config"]["game"]["name"] == "domain_wheel"


def test_evaluation_plays_the_scripted_seats(runs: dict[str, Any], tmp_path: Path) -> None:
    """``eval.games`` against a scripted seat: a win rate in [0, 1] for each opponent, logged as eval/win_rate_*."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = tiny_config(runs["source"], "run.iterations=1", "eval.games=2", "eval.opponents=[random]")
    train(config, run_dir=tmp_path / "eval")
    events = EventAccumulator(str(tmp_path / "eval")).Reload()
    (rate,) = events.Scalars("eval/win_rate_random")
    assert 0.0 <= rate.value <= 1.0
    assert "charts/selfplay_moves_per_s" in events.Tags()["scalars"]


def test_a_warm_start_of_another_size_is_refused_naming_the_shapes(runs: dict[str, Any], tmp_path: Path) -> None:
    config = tiny_config(runs["source"], "network.channels=8")
    with pytest.raises(checkpoint.CheckpointError, match=r"do not fit.*wrong shape"):
        train(config, run_dir=tmp_path / "bad")
    assert not (tmp_path / "bad" / "checkpoint.pt").exists()


def test_land_layers_are_refused_for_a_board_game(tmp_path: Path) -> None:
    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml").to_dict()
    with pytest.raises(ValueError, match=r"network.land_layers: Domain Wheel's network only, got 2 for conquer"):
        train(sg.from_dict(smoke, ["network.land_layers=2"]), run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()
