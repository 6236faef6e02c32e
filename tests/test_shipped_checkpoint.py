"""Every agent shipped in checkpoints/ loads as an arena seat and plays legal moves to the end of a game."""

from __future__ import annotations

from pathlib import Path

import pytest

from dw_env.engine import Game
from dw_env.options import GameOptions
from policies import make
from policies.files import load_policy_file

SHIPPED = sorted((Path(__file__).resolve().parent.parent / "checkpoints").glob("*.pt"))


def test_checkpoints_are_shipped_with_model_cards() -> None:
    assert SHIPPED, "no agent in checkpoints/"
    for path in SHIPPED:
        assert path.with_suffix(".md").exists(), f"{path.name} has no model card"
        assert path.stat().st_size < 5 * 2**20


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_agent_plays_a_legal_game(path: Path) -> None:
    agent = load_policy_file(path, seed=0)
    agent.reset(seed=0)
    game = Game.new(GameOptions(land_radius=1, map_radius=2, max_rounds=40))
    others = make("random", seed=1)
    while not game.over:
        player = agent if game.turn == 0 else others
        move = player.act(game, game.turn)
        assert move in game.legal_moves()
        game.play(move)
    assert game.over
