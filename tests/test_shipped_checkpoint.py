"""Every agent shipped in checkpoints/ loads as an arena seat of its game and plays legal moves to the end of a game."""

from __future__ import annotations

from pathlib import Path

import pytest

from dw_env.engine import Game
from dw_env.options import GameOptions
from policies import games, make
from policies.files import load_policy_file

SHIPPED = sorted((Path(__file__).resolve().parent.parent / "checkpoints").glob("*.pt"))


def test_checkpoints_are_shipped_with_model_cards() -> None:
    assert SHIPPED, "no agent in checkpoints/"
    for path in SHIPPED:
        assert path.with_suffix(".md").exists(), f"{path.name} has no model card"
        assert path.stat().st_size < 5 * 2**20


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_agent_plays_a_legal_game(path: Path) -> None:
    import torch

    game_id = torch.load(path, weights_only=True).get("game", games.DEFAULT_GAME)
    if game_id != games.DEFAULT_GAME:  # another game's agent: against random, through its game's adapter
        adapter = games.get(game_id)
        options, rival = adapter.default_options(), "random"
        if game_id == "frontera":  # against the expansionist, whose games end by the rules in a few rounds
            options = adapter.options_from_dict({**adapter.options_to_dict(options), "map": "small", "players": 2})
            adapter, rival = adapter.for_options(options), "expansionist"
        seats = [adapter.make_seat(str(path), seed=0)]
        seats += [adapter.make_seat(rival, seed=s) for s in range(1, adapter.num_players)]
        board = adapter.new_game(options)
        while not board.over:
            action = seats[board.turn].act(board, board.turn)
            assert action in board.legal_actions()
            board.play(action)
        return
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
