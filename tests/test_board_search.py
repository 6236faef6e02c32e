"""The board games' search seat (policies/board_search.py): PUCT over engine copies, negamax backup."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from policies import games
from policies.board_search import BoardSearchPolicy, TorchBoardEvaluator, result_value
from policies.search import SearchParams


class Nim:
    """Take 1 or 2 from a pile; who takes the last one wins (a stand-in engine of the board-game contract)."""

    def __init__(self, pile: int, turn: int = 0, ply: int = 0) -> None:
        self.pile, self.turn, self.ply = pile, turn, ply
        self.winners: list[int] = []
        self.truncated = False

    @property
    def over(self) -> bool:
        return self.pile == 0

    def copy(self) -> Nim:
        other = Nim(self.pile, self.turn, self.ply)
        other.winners = list(self.winners)
        return other

    def legal_actions(self) -> list[int]:
        return [a for a in (0, 1) if a + 1 <= self.pile]

    def play(self, action: int) -> None:
        self.pile -= action + 1
        self.ply += 1
        if self.pile == 0:
            self.winners = [self.turn]
        self.turn = 1 - self.turn

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        obs = np.zeros(4, dtype=np.int8)
        obs[0] = self.pile
        mask = np.zeros(2, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return obs, mask


class Uniform(torch.nn.Module):
    """A network with no opinion: equal logits, value 0."""

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.zeros((obs.shape[0], 2)), torch.zeros(obs.shape[0])


@pytest.mark.parametrize(("pile", "winning"), [(5, 1), (4, 0), (7, 0), (8, 1)])
def test_search_finds_the_winning_take_with_an_uninformed_network(pile: int, winning: int) -> None:
    # piles that are multiples of 3 lose for the player to move: the winning take leaves one
    seat = BoardSearchPolicy(TorchBoardEvaluator(Uniform()), SearchParams(playouts=400, c_puct=1.5), seed=0)
    assert seat.act(Nim(pile), 0) == winning


def test_result_values_and_refusals() -> None:
    game = Nim(1)
    game.play(0)
    assert result_value(game, 0) == 1.0 and result_value(game, 1) == -1.0
    seat = BoardSearchPolicy(TorchBoardEvaluator(Uniform()), SearchParams(playouts=8), seed=0)
    with pytest.raises(ValueError, match="not that seat's turn"):
        seat.act(Nim(5), 1)


def test_the_tree_is_kept_for_the_position_after_the_reply() -> None:
    seat = BoardSearchPolicy(TorchBoardEvaluator(Uniform()), SearchParams(playouts=200), seed=0)
    game = Nim(8)
    game.play(seat.act(game, 0))
    kept = seat._kept
    assert kept is not None and kept.visits.sum() > 0
    game.play(0)  # the opponent's reply
    assert seat._root(game) in kept.children


@pytest.mark.parametrize(
    ("game_id", "options"), [("alveole", {"max_plies": 40}), ("conquer", {"width": 5, "height": 5})]
)
def test_search_seat_plays_legal_moves_of_a_checkpoint(tmp_path: Path, game_id: str, options: dict) -> None:
    from training.ppo.config import from_dict
    from training.ppo.game_setup import make_network
    from training.ppo.resume import save_checkpoint

    config = from_dict({"game": {"name": game_id, **options}, "network": {"channels": 8, "cell_layers": 1}})
    net = make_network(config, torch.device("cpu"))
    path = tmp_path / "net.pt"
    save_checkpoint(path, net, config, {"env_steps": 0, "updates": 0, "games": 0, "decisions": 0, "seconds": 0.0}, None)
    adapter = games.get(game_id)
    spec = f"search:{path}?playouts=6"
    adapter.check_seat_spec(spec)
    seat = adapter.make_seat(spec, seed=1)
    game = adapter.new_game(config.options)
    for _ in range(12):
        if game.over:
            break
        action = seat.act(game, game.turn)
        assert action in game.legal_actions()
        game.play(action)
    with pytest.raises(FileNotFoundError, match="no such network file"):
        adapter.check_seat_spec(f"search:{tmp_path / 'missing.pt'}")
    with pytest.raises(ValueError, match="playouts"):
        adapter.check_seat_spec(f"search:{path}?playouts=0")


def test_the_compiled_selection_is_puct_on_random_nodes() -> None:
    """puct_select picks the first maximum of Q + c * prior * sqrt(max(N, 1)) / (1 + n), unvisited Q = fpu."""
    import math

    from policies.puct import puct_select

    rng = np.random.default_rng(0)
    for _ in range(3000):
        k = int(rng.integers(1, 40))
        visits = (rng.integers(0, 5, k) * (rng.random(k) < 0.6)).astype(np.int64)
        totals, priors, fpu = rng.normal(size=k) * visits, rng.dirichlet(np.ones(k)), float(rng.normal())
        q = np.where(visits > 0, totals / np.maximum(visits, 1), fpu)
        u = 1.5 * priors * math.sqrt(max(int(visits.sum()), 1)) / (1 + visits)
        assert puct_select(visits, totals, priors, fpu, 1.5) == int(np.argmax(q + u))
    # ties go to the first index, as numpy's argmax
    assert puct_select(np.zeros(3, np.int64), np.zeros(3), np.full(3, 1 / 3), 0.0, 1.5) == 0
