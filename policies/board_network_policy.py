"""A learned network in a seat of a board game (Alveole, Conquer): a ``dw train`` checkpoint of that game.

The engine encodes the position for the player to act (``game.observe()``: the same encoder as the envs) and
the network (:class:`policies.board_network.BoardPolicyNet`) scores every action; the seat plays the best
legal one (greedy) or samples from the masked policy. Actions are the engine's own ints, so nothing is mapped.
Torch is imported when a file is loaded, never when a spec is only checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from policies.base import Policy


class BoardNetworkPolicy(Policy):
    """Plays a seat of a board game with a trained policy network."""

    name = "network"
    display_name = "Red neuronal"

    def __init__(self, net: Any, game_id: str, seed: int | None = None, greedy: bool = False, label: str = "") -> None:
        super().__init__(seed)
        import torch

        self.torch = torch
        self.net = net.eval()
        self.game_id = game_id
        self.greedy = greedy
        self.label = label or "network"

    def scores(self, obs: np.ndarray) -> tuple[np.ndarray, float]:
        """Return (logits [A], value) of one observation."""
        torch = self.torch
        with torch.inference_mode():
            logits, value = self.net(torch.from_numpy(obs)[None])
        return logits[0].numpy(), float(value[0])

    def fit_grid(self, game: Any) -> None:
        """Point the network at ``game``'s grid (its weights run on any grid size of the game)."""
        from policies import games

        _, height, width = games.get(self.game_id).planes(game.options)  # type: ignore[attr-defined]
        if (height, width) != (self.net.height, self.net.width):
            self.net.set_grid(height, width)

    def act(self, game: Any, seat: int) -> int:  # type: ignore[override]
        self.fit_grid(game)
        obs, mask = game.observe()
        logits, _ = self.scores(obs)
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError(f"{self.label}: no legal action to choose from")
        if self.greedy:
            return int(legal[int(np.argmax(logits[legal]))])
        z = logits[legal].astype(np.float64)
        p = np.exp(z - z.max())
        return int(legal[int(self.rng.choice(len(legal), p=p / p.sum()))])

    def __repr__(self) -> str:
        return f"BoardNetworkPolicy({self.label!r}, game={self.game_id}, greedy={self.greedy})"


def check_spec(spec: str, game: Any) -> None:
    """Raise ValueError/FileNotFoundError unless ``spec`` is a ``.pt`` checkpoint file of ``game`` (by suffix)."""
    p = Path(spec)
    if p.is_file():
        if p.suffix.lower() != ".pt":
            raise ValueError(f"{spec}: no loader for this file type ({p.suffix or 'no suffix'}); supported: .pt")
        return
    if p.suffix or "/" in spec or "\\" in spec:
        raise FileNotFoundError(f"no such policy file: {spec}")
    raise ValueError(
        f"unknown {game.title} strategy {spec!r}; allowed: {', '.join(game.registered_seats())}, "
        "a path to a dw train checkpoint (.pt) of this game, a strategy package folder of this game (dw export), "
        "or search:PATH?playouts=N"
    )


def load(path: str | Path, game: Any, seed: int | None = None, greedy: bool = False) -> BoardNetworkPolicy:
    """Return the seat stored in a ``dw train`` checkpoint of ``game``; CheckpointError if it is another game's."""
    import torch

    from policies import checkpoint

    torch.set_num_threads(1)  # one game per process in the arena: threads would only contend
    payload = checkpoint.load(path, game_id=game.game_id)
    net = checkpoint.build_network(payload, path)
    return BoardNetworkPolicy(net, game.game_id, seed=seed, greedy=greedy, label=Path(path).name)
