"""The learned agent in a Frontera seat: a ``dw train`` checkpoint playing engine actions in the arena.

Each decision is the env's (spec 6.2): the seat builds its own observation exactly as ``frontera_v0`` does,
from ``frontera_env.view.view`` of its seat only (R-13), packs it (:mod:`policies.frontera.inputs`), masks the
network's logits with ``frontera_env.encoding.action_mask`` and decodes the drawn index to an engine action.
A regroup takes three of the network's decisions (source, destination, amount: the env's selection, kept here
between them) and is returned as one ``Regroup``. In the deployment the env declares Ready itself once the
armies are placed (6.6); the seat does the same. Torch is imported when a file is loaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from frontera_env.actions import Action, Ready
from frontera_env.encoding import Choose, Layout, Selection, action_mask, decode
from frontera_env.engine import Game
from frontera_env.observation import ObservationLayout, encode
from frontera_env.state import SETUP
from frontera_env.view import view
from policies.base import Policy
from policies.frontera.inputs import BUCKETS, MapGraph, pack

#: the most network decisions one engine action takes (a regroup: source, destination, amount)
MAX_STEPS = 3


class FronteraAgentSeat(Policy):
    """Plays a Frontera seat with a trained :class:`policies.frontera.network.FronteraGraphNet`."""

    name = "network"
    display_name = "Red neuronal"

    def __init__(self, net: Any, seed: int | None = None, greedy: bool = False, label: str = "") -> None:
        super().__init__(seed)
        import torch

        self.torch, self.net, self.greedy, self.label = torch, net.eval(), greedy, label or "network"
        self._board: Any = None

    def _fit(self, game: Game) -> tuple[Layout, ObservationLayout]:
        """Point the network at ``game``'s map (its weights play any map) and return the map's layouts."""
        board = game.ctx.map
        key = (id(board), game.ctx.max_turns)
        if self._board != key:
            self._board = key
            self._layout = Layout.for_map(board, BUCKETS)
            self._obs_layout = ObservationLayout.for_map(board, game.ctx.max_turns)
            self.net.set_map(MapGraph.of_map(board))
        return self._layout, self._obs_layout

    def inputs(self, game: Game, seat: int, sel: Selection) -> tuple[np.ndarray, np.ndarray]:
        """Return (packed observation, mask) of ``seat`` with the regroup selection ``sel``: the env's, exactly."""
        layout, obs_layout = self._fit(game)
        obs = np.empty(obs_layout.size, np.float32)
        encode(obs_layout, view(game.ctx, game.state, seat), sel, (game.ctx.max_turns, game.ctx.cards), obs)
        mask = np.zeros(layout.size, np.int8)
        action_mask(layout, game, sel, True, mask)
        return pack(obs), mask

    def _draw(self, obs: np.ndarray, mask: np.ndarray) -> int:
        torch = self.torch
        with torch.inference_mode():
            logits = self.net(torch.from_numpy(obs)[None])[0][0].numpy().astype(np.float64)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"{self.label}: no legal action to choose from")
        if self.greedy:
            return int(legal[int(np.argmax(logits[legal]))])
        z = logits[legal]
        p = np.exp(z - z.max())
        return int(legal[int(self.rng.choice(legal.size, p=p / p.sum()))])

    def act(self, game: Any, seat: int) -> Action:  # type: ignore[override]
        """Return the seat's next engine action, decided from its own observation only."""
        g: Game = getattr(game, "game", game)
        if g.over or g.current != seat:
            raise ValueError(f"seat {seat} cannot act: {'the game is over' if g.over else 'not its turn'}")
        if g.state.phase == SETUP and int(g.state.deploy_left[seat]) == 0:
            return Ready(seat)
        layout, _ = self._fit(g)
        sel = Selection()
        for _ in range(MAX_STEPS):
            index = self._draw(*self.inputs(g, seat, sel))
            choice = decode(layout, g, sel, index, True)
            if isinstance(choice, Choose):
                setattr(sel, choice.what, choice.territory)
            elif choice is not None:
                return choice
        raise ValueError(f"{self.label}: no engine action after {MAX_STEPS} decisions (last index {index})")

    def __repr__(self) -> str:
        return f"FronteraAgentSeat({self.label!r}, greedy={self.greedy})"


def load(path: str | Path, seed: int | None = None, greedy: bool = False) -> FronteraAgentSeat:
    """Return the seat stored in a ``dw train`` checkpoint of Frontera; CheckpointError if it is another game's."""
    import torch

    from policies import checkpoint

    torch.set_num_threads(1)  # one game per process in the arena: threads would only contend
    payload = checkpoint.load(path, game_id="frontera")
    net = checkpoint.build_network(payload, path)
    return FronteraAgentSeat(net, seed=seed, greedy=greedy, label=Path(path).name)
