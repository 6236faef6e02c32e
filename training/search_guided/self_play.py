"""One search-guided self-play game and the network evaluator its search calls (the trainer's and the workers')."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from training.search_guided.config import Config
from training.search_guided.search import GumbelSearch, outcome_vector, to_ego


class Targets(Protocol):
    """Where a game's training targets go: the replay buffer, or a worker's collector."""

    def add(self, obs: NDArray[np.int8], mask: NDArray[np.int8], policy: NDArray[np.float32], value: Any) -> None:
        """Store one target."""


def value_vectors(values: Any, players: int) -> Any:
    """Return a network's values as vectors ``[B, players]`` in the acting player's frame.

    A network with one value ``v`` (the acting player's: a board network's, Domain Wheel's) gives each rival
    ``-v/(players-1)``: ``(v, -v)`` with two players, ``(v, -v/2, -v/2)`` with three (the play-time search's
    default, policies/domain_wheel/search.py). Its squared error to a zero-sum outcome vector is least at
    ``v`` = the acting player's outcome, so the learner fits ``v`` to exactly that.
    """
    import torch

    if values.dim() == 2:
        return values
    rivals = (-values / (players - 1))[:, None].expand(-1, players - 1)
    return torch.cat([values[:, None], rivals], 1)


def network_evaluator(net: Any, players: int) -> Any:
    """Return the search's evaluator of ``net``: ``(obs, mask) -> (logits [A], value vector [n], own frame)``."""
    import torch

    def evaluate(obs: NDArray[np.int8], mask: NDArray[np.int8]) -> tuple[Any, Any]:
        with torch.inference_mode():
            logits, values = net(torch.from_numpy(obs)[None])
        return logits[0].numpy().astype(np.float64), value_vectors(values, players)[0].numpy().astype(np.float64)

    return evaluate


def self_play_game(
    game: Any, search: GumbelSearch, config: Config, rng: np.random.Generator, replay: Targets
) -> tuple[int, int]:
    """Play one game from ``game`` by search, adding the full searches as targets; return (moves, targets)."""
    s, players = config.search, search.players
    targets: list[tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.float32], int]] = []
    moves = 0
    while not game.over:
        full = bool(rng.random() < s.full_fraction)
        result = search.run(game, s.simulations if full else s.cheap_simulations, rng)
        if full:
            obs, mask = game.observe()
            policy = np.zeros(len(mask), dtype=np.float32)
            policy[result.actions] = result.improved
            targets.append((obs.copy(), mask.copy(), policy, int(game.turn)))
        game.play(result.action)
        moves += 1
    outcome = outcome_vector(game, players)
    for obs, mask, policy, player in targets:
        replay.add(obs, mask, policy, to_ego(outcome, player))
    return moves, len(targets)
