"""A learned network in a seat: loads a ``dw train`` checkpoint and plays through the env's own encoder.

A turn is the env's two actions (the human click pair): the policy encodes the position as the acting player
sees it (:func:`dw_env.envs.observation.encode_observation`, the same compiled encoder the environments
use), picks a piece or pass or end request from the masked policy, then, for a piece, encodes the phase-2
observation with that piece selected and picks its destination. Actions are in the player's rotated frame
and are mapped back to map cells with the frame tables (:mod:`dw_env.envs.actions`).

The network's weights do not depend on the map size (policies/domain_wheel/network.py), so a checkpoint also plays on
other maps (a transfer measurement); it then warns once. Torch is imported when the file is loaded.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np

from dw_env.engine import Game, Move
from dw_env.geometry import Geometry
from dw_env.options import GameOptions
from policies.base import Policy
from policies.domain_wheel.two_phase import TwoPhaseDriver


class NetworkPolicy(Policy):
    """Plays a seat with a trained policy network (greedy by default, or sampling from it)."""

    name = "network"
    display_name = "Red neuronal"

    def __init__(
        self, payload: dict[str, Any], seed: int | None = None, greedy: bool = True, label: str = "network"
    ) -> None:
        super().__init__(seed)
        import torch

        from policies.domain_wheel.network import HexPolicyNet

        self.torch = torch
        self.greedy = greedy
        self.label = label
        self.trained_options = GameOptions.from_dict(payload["options"])
        geometry = _geometry(self.trained_options)
        self.net = HexPolicyNet(geometry, **payload["network"])
        self.net.load_state_dict(payload["model"])
        self.net.eval()
        self._warned = False
        self._setup(self.trained_options)

    def _setup(self, options: GameOptions) -> None:
        self.driver = TwoPhaseDriver(options)
        if self.driver.geometry is not self.net.geometry:
            self.net.set_geometry(self.driver.geometry)
        self.options = options

    def _choose(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """Return the action (in the seat's frame) for one encoded observation and its mask."""
        torch = self.torch
        with torch.no_grad():
            logits, _ = self.net(torch.from_numpy(obs)[None])
        logits = logits[0].masked_fill(torch.from_numpy(mask) == 0, float("-inf"))
        if self.greedy:
            return int(logits.argmax())
        p = logits.softmax(-1).double().numpy()
        return int(self.rng.choice(len(p), p=p / p.sum()))

    def act(self, game: Game, seat: int) -> Move:
        if game.options != self.options:
            self._check_map(game.options)
            self._setup(game.options)
        return self.driver.act(game, seat, self._choose)

    def _check_map(self, options: GameOptions) -> None:
        trained = (self.trained_options.land_radius, self.trained_options.map_radius)
        here = (options.land_radius, options.map_radius)
        if trained != here and not self._warned:
            self._warned = True
            warnings.warn(
                f"{self.label}: trained on land_radius={trained[0]}, map_radius={trained[1]} but playing "
                f"land_radius={here[0]}, map_radius={here[1]} (the network runs on any map; expect weaker play)",
                stacklevel=3,
            )

    def __repr__(self) -> str:
        return f"NetworkPolicy({self.label!r}, greedy={self.greedy})"


def _geometry(options: GameOptions) -> Geometry:
    from dw_env.geometry import build_geometry

    return build_geometry(options.land_radius, options.map_radius)


def load(path: str | Path, seed: int | None = None, greedy: bool = False) -> NetworkPolicy:
    """Return the policy stored in a ``dw train`` checkpoint (``.pt``); the loader ``dw arena`` uses."""
    import torch

    from policies import checkpoint

    torch.set_num_threads(1)  # one game per process in the arena: threads would only contend
    payload = checkpoint.load(path, game_id="domain_wheel")
    checkpoint.check_playable(payload, path)  # a network size or weights that do not fit: CheckpointError
    return NetworkPolicy(payload, seed=seed, greedy=greedy, label=Path(path).name)
