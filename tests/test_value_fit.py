"""Domain Wheel's value refit (training/search_guided/value_fit.py): the policy frozen bit for bit, outcome
targets that sum as the game's results do (rule 9.5), a fit that lowers the held-out error, exact resume, and
the refitted file in the seats that read checkpoints.

One tiny run is shared by the module: a 4-channel network on the small map against two Balanced, short games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from dw_env.geometry import build_geometry
from dw_env.options import GameOptions
from policies import checkpoint
from policies.domain_wheel.network import HexPolicyNet
from training.search_guided import config as sg
from training.search_guided import value_fit

SMALL = {"land_radius": 1, "map_radius": 2, "max_rounds": 60}
GAMES = 6


def tiny_network_file(folder: Path) -> Path:
    """Write a tiny untrained small-map network as a ``dw train`` policy file; return its path."""
    torch.manual_seed(3)
    size = {"channels": 4, "cell_layers": 1, "land_layers": 1, "head_hidden": 8, "turn_trunk": 0}
    net = HexPolicyNet(build_geometry(1, 2), **size)
    payload = {
        "format": checkpoint.FORMAT,
        "format_version": checkpoint.FORMAT_VERSION,
        "observation_version": HexPolicyNet.observation_version,
        "options": GameOptions(**SMALL).to_dict(),
        "network": size,
        "model": net.state_dict(),
    }
    path = folder / "tiny.pt"
    checkpoint.save(path, payload)
    return path


def tiny_config(source: Path, out: Path, **value_fit: Any) -> sg.Config:
    """Return the tiny run's config (``value_fit`` keys override its section)."""
    section = {
        "games": GAMES,
        "lineups": ["network,balanced,balanced"],
        "held_out": 0.34,
        "epochs": 60,
        "batch_size": 64,
        "learning_rate": 0.01,
        **value_fit,
    }
    return sg.from_dict(
        {
            "algo": "search_guided",
            "run": {"name": "vf", "seed": 5, "out_dir": str(out), "checkpoint_every": 2},
            "game": {"name": "domain_wheel", **SMALL},
            "network": {"init_from": str(source)},
            "value_fit": section,
        }
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("value_fit")
    source = tiny_network_file(folder)
    result = value_fit.train(tiny_config(source, folder), run_dir=folder / "run")
    return {
        "source": source,
        "folder": folder,
        "result": result,
        "payload": checkpoint.load(folder / "run" / "checkpoint.pt"),
    }


def new_game() -> Any:
    """Return a new small-map game."""
    from policies import games

    return games.get("domain_wheel").new_game(GameOptions(**SMALL))


def _net(path: Path) -> HexPolicyNet:
    payload = checkpoint.load(path)
    net = HexPolicyNet(build_geometry(1, 2), **payload["network"])
    net.load_state_dict(payload["model"])
    return net.eval()


def _observations(n: int) -> torch.Tensor:
    """Return ``n`` encoded positions of a real game (every player's view), for comparing outputs."""
    from policies.domain_wheel.two_phase import TwoPhaseDriver
    from policies.registry import make

    options = GameOptions(**SMALL)
    game, driver, seat = new_game(), TwoPhaseDriver(options), make("balanced", seed=1)
    rows = []
    while not game.over and len(rows) < n:
        rows.extend(driver.encode(game, q)[0].copy() for q in range(3))
        game.play(seat.act(game.copy(), game.turn))
    return torch.from_numpy(np.stack(rows))


def test_refit_leaves_every_policy_logit_identical(run: dict[str, Any]) -> None:
    """Only ``value_head`` changes: the network alone plays exactly as before, its values do not."""
    before, after = _net(run["source"]), _net(run["folder"] / "run" / "policy.pt")
    obs = _observations(30)
    with torch.inference_mode():
        (logits0, values0), (logits1, values1) = before(obs), after(obs)
    assert torch.equal(logits0, logits1)
    assert not torch.equal(values0, values1)
    changed = [k for k in before.state_dict() if not torch.equal(before.state_dict()[k], after.state_dict()[k])]
    assert changed and all(k.startswith("value_head.") for k in changed)


def test_rule_9_5_value_targets_of_a_position_sum_to_zero(run: dict[str, Any]) -> None:
    """A position's three views get their players' results: they sum to zero as the game's outcomes do."""
    samples = value_fit.Samples()
    samples.load(run["payload"]["training"]["samples"])
    _, targets, games, actor = samples.arrays()
    views = targets.reshape(-1, 3)
    assert np.array_equal(views.sum(1), np.zeros(len(views), np.float32))
    assert (actor.reshape(-1, 3).sum(1) == 1).all()  # one view a position is the acting player's
    assert set(np.unique(games)) == set(range(GAMES))
    assert np.abs(targets).max() > 0  # some game ended by a rule, not all truncated


@pytest.mark.parametrize(("winners", "expected"), [([0], [1, -0.5, -0.5]), ([1, 2], [-1, 0.5, 0.5]), ([], [0, 0, 0])])
def test_rule_9_5_outcome_targets_of_finished_games(winners: list[int], expected: list[float]) -> None:
    """One winner +1, two winners +1/2 each, the others share -1; a truncated game 0 for all."""

    class Finished:
        truncated = not winners

    Finished.winners = winners  # type: ignore[attr-defined]
    assert value_fit.outcome_targets(Finished()).tolist() == expected


def test_tiny_fit_lowers_the_held_out_error(run: dict[str, Any]) -> None:
    """Fitted on four games, the head predicts the two held-out games' results better than it did."""
    report = run["payload"]["training"]["report"]
    assert report["held_samples"] > 0 and report["train_samples"] > report["held_samples"]
    assert report["held_mse_after"] < report["held_mse_before"]
    assert report["held_mse_after"] < report["held_mse_zero"]  # better than saying "even" everywhere


def test_resume_continues_exactly(run: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run stopped after its checkpoint at 2 games and resumed writes the same samples and weights."""
    play = value_fit.play_and_record

    def stop_at_third(index: int, *args: Any) -> Any:
        if index == 2:
            raise KeyboardInterrupt
        return play(index, *args)

    config = tiny_config(run["source"], tmp_path)
    monkeypatch.setattr(value_fit, "play_and_record", stop_at_third)
    with pytest.raises(KeyboardInterrupt):
        value_fit.train(config, run_dir=tmp_path / "cut")
    assert checkpoint.load(tmp_path / "cut" / "checkpoint.pt")["training"]["counters"]["games"] == 2
    monkeypatch.setattr(value_fit, "play_and_record", play)
    value_fit.train(config, resume=tmp_path / "cut" / "checkpoint.pt")
    whole, resumed = run["payload"], checkpoint.load(tmp_path / "cut" / "checkpoint.pt")
    for key in ("features", "targets", "games", "actor"):
        assert torch.equal(whole["training"]["samples"][key], resumed["training"]["samples"][key])
    assert all(torch.equal(whole["model"][k], resumed["model"][k]) for k in whole["model"])


def test_refitted_file_sits_in_the_network_and_search_seats(run: dict[str, Any]) -> None:
    """The refitted policy file loads where checkpoints load (same network shape as its source) and plays."""
    from policies.domain_wheel import network_policy, search

    path = run["folder"] / "run" / "policy.pt"
    assert "training" not in checkpoint.load(path)
    game = new_game()
    network_policy.load(path, seed=0).act(game.copy(), game.turn)
    seat = search.load(f"search:{path}?playouts=4&all_viewers=1", seed=0)
    game.play(seat.act(game.copy(), game.turn))


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"lineups": ["network,balanced"]}, "seats three players"),
        ({"lineups": ["network,nobody,balanced"]}, "'nobody' is not a seat"),
    ],
)
def test_bad_lineups_are_refused_before_any_game(
    run: dict[str, Any], tmp_path: Path, section: dict, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        value_fit.train(tiny_config(run["source"], tmp_path, **section), run_dir=tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_value_fit_config_refuses_unknown_keys(run: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(sg.ConfigError, match="value_fit.gmaes.*allowed: games"):
        tiny_config(run["source"], tmp_path, gmaes=3)


def test_search_guided_runs_the_value_fit_for_domain_wheel(run: dict[str, Any], tmp_path: Path) -> None:
    """``algo: search_guided`` with ``game.name: domain_wheel`` is this stage (what ``dw train`` calls)."""
    from training.search_guided.search_guided import train

    with pytest.raises(ValueError, match="seats three players"):
        train(tiny_config(run["source"], tmp_path, lineups=["network"]), run_dir=tmp_path / "bad")
