"""A search seat for the two-player board games (Alveole, Conquer): PUCT tree search guided by a network.

``search:PATH`` (a ``dw train`` checkpoint of the game, or its exported package folder with a value output,
which needs onnxruntime only: :mod:`policies.package_evaluator`; the same spec and options as Domain Wheel's
search seat: ``playouts``, ``time``, ``c_puct``, ``greedy``, ``reuse_tree``; see :mod:`policies.search_spec`) plays
AlphaZero's search over real engine positions (copies of the game's engine object: the rules stay the
engine's): each playout walks down by PUCT,
``Q(child) + c_puct * prior(child) * sqrt(N(node)) / (1 + N(child))``, expands one position with the
network's priors (softmax over the legal actions) and value, and backs the value up, negated at every
change of the player to move (the games are zero-sum between two players). Finished games are valued by
their result: +1 for the winner, -1 for the loser, 0 for a draw or a truncation (not a rule ending).
Unvisited children take their parent's value (first-play urgency). The move played is the most visited one
(or drawn by visit counts with ``greedy=0``); with ``reuse_tree`` the subtree of the position reached after
the opponent's reply is kept for the next move.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from policies.base import Policy
from policies.puct import puct_select
from policies.search_spec import PREFIX, SearchParams, sample_by_visits, split_spec
from policies.search_spec import check_spec as check_spec_form


@dataclass
class Node:
    """A position: its legal actions with priors, per-action visits and value totals (for its player)."""

    game: Any
    player: int
    key: bytes
    value: float | None = None  # the network's estimate for ``player``, set on expansion
    actions: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    priors: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    children: list[Node | None] = field(default_factory=list)
    visits: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    totals: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))


def position_key(game: Any) -> bytes:
    """Return what identifies a position for tree reuse: the player to move's observation and mask, and the ply."""
    obs, mask = game.observe()
    return bytes(obs.tobytes() + mask.tobytes() + int(game.ply).to_bytes(4, "little"))


def result_value(game: Any, player: int) -> float:
    """Return a finished game's value for ``player``: +1 won, -1 lost, 0 a draw or a truncation."""
    winners = list(game.winners)
    if game.truncated or not winners or len(winners) > 1:
        return 0.0
    return 1.0 if winners[0] == player else -1.0


class TorchBoardEvaluator:
    """A board game's torch network (policies/board_network.py) as the search's evaluator, on the CPU."""

    def __init__(self, net: Any, fit: Any = None) -> None:
        import torch

        self.torch, self.net = torch, net.eval()
        self._fit = fit  # points the network at a game's grid (BoardNetworkPolicy.fit_grid), or None

    def fit(self, game: Any) -> None:
        """Point the network at the grid of ``game``."""
        if self._fit is not None:
            self._fit(game)

    def __call__(self, obs: NDArray[np.int8], mask: NDArray[np.int8]) -> tuple[NDArray[np.float64], float]:
        """Return (logits [A], value for the player to act) of one position."""
        with self.torch.inference_mode():
            logits, value = self.net(self.torch.from_numpy(obs)[None])
        return logits[0].numpy().astype(np.float64), float(value[0])


class PackageBoardEvaluator:
    """A board game's exported package (onnxruntime only) as the search's evaluator."""

    def __init__(self, package: Any, adapter: Any) -> None:
        from policies.package_evaluator import PackageEvaluator

        self.graphs, self.adapter = PackageEvaluator(package), adapter  # adapter: the game's BoardGrid

    def fit(self, game: Any) -> None:
        """Use the package's graph of the grid of ``game``; PackageError listing the grids it has."""
        from policies.board_onnx_policy import grid_key

        self.graphs.select(grid_key(self.adapter.planes(game.options)))

    def __call__(self, obs: NDArray[np.int8], mask: NDArray[np.int8]) -> tuple[NDArray[np.float64], float]:
        """Return (masked logits [A], value for the player to act) of one position."""
        logits, values = self.graphs(obs[None], mask[None])
        return logits[0].astype(np.float64), float(values[0])


class BoardSearchPolicy(Policy):
    """Plays a board game's seat by PUCT search over the engine with a policy/value network."""

    name = "search"
    display_name = "Búsqueda"

    def __init__(self, evaluator: Any, params: SearchParams, seed: int | None = None, label: str = "search") -> None:
        super().__init__(seed)
        self.evaluator = evaluator  # TorchBoardEvaluator or PackageBoardEvaluator: fit(game), (obs, mask) -> ...
        self.params = params
        self.label = label
        self._kept: Node | None = None  # the subtree below the move played last

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._kept = None

    def evaluate(self, game: Any) -> tuple[NDArray[np.int64], NDArray[np.float64], float]:
        """Return (legal actions, their priors, value for the player to move) from the network."""
        obs, mask = game.observe()
        logits, value = self.evaluator(obs, mask)
        legal = np.flatnonzero(mask).astype(np.int64)
        z = logits[legal]
        p = np.exp(z - z.max()) if len(legal) else z
        return legal, p / p.sum() if len(legal) else p, value

    def _node(self, game: Any) -> Node:
        return Node(game, int(game.turn) if not game.over else -1, position_key(game))

    def _expand(self, node: Node) -> float:
        node.actions, node.priors, node.value = self.evaluate(node.game)
        k = len(node.actions)
        node.children = [None] * k
        node.visits = np.zeros(k, dtype=np.int64)
        node.totals = np.zeros(k)
        return node.value

    def _select(self, node: Node) -> int:
        fpu = node.value if node.value is not None else 0.0
        return int(puct_select(node.visits, node.totals, node.priors, fpu, self.params.c_puct))

    def _playout(self, root: Node) -> None:
        path: list[tuple[Node, int]] = []
        node = root
        while True:
            if node.value is None:
                value = self._expand(node)  # for node.player
                break
            if len(node.actions) == 0:
                value = 0.0
                break
            i = self._select(node)
            path.append((node, i))
            child = node.children[i]
            if child is None:
                game = node.game.copy()
                game.play(int(node.actions[i]))
                child = node.children[i] = self._node(game)
            if child.game.over:
                value = result_value(child.game, node.player)  # the exact result, for the player who chose
                break
            node = child
        # ``value`` is for ``node.player``: each node on the path takes it as is or negated
        for parent, j in reversed(path):
            parent.visits[j] += 1
            parent.totals[j] += value if parent.player == node.player else -value

    def _root(self, game: Any) -> Node:
        key = position_key(game)
        kept = self._kept
        if self.params.reuse_tree and kept is not None:
            if kept.key == key:
                return kept
            for child in kept.children:
                if child is not None and child.key == key:
                    return child
        return self._node(game.copy())

    def act(self, game: Any, seat: int) -> int:  # type: ignore[override]
        if game.over or game.turn != seat:
            raise ValueError(f"{self.label}: asked to move for seat {seat}, but it is not that seat's turn")
        self.evaluator.fit(game)
        root = self._root(game)
        if root.value is None:
            self._expand(root)
        if len(root.actions) == 0:
            raise ValueError(f"{self.label}: no legal action to choose from")
        deadline = time.monotonic() + self.params.time if self.params.time else math.inf
        for _ in range(self.params.playouts):
            self._playout(root)
            if time.monotonic() >= deadline:
                break
        if self.params.greedy:
            i = int(np.argmax(root.visits + root.priors * 1e-6))  # ties: the network's preference
        else:
            i = sample_by_visits(root.visits, self.rng)
        self._kept = root.children[i] if self.params.reuse_tree else None
        return int(root.actions[i])

    def __repr__(self) -> str:
        return f"BoardSearchPolicy({self.label!r}, playouts={self.params.playouts})"


def check_spec(spec: str, game: Any) -> None:
    """Raise ValueError/FileNotFoundError unless ``spec`` is a well-formed search seat on a checkpoint or package.

    The spec's form is Domain Wheel's search seat's (:func:`policies.search_spec.check_spec`); a package is checked
    to be one of ``game`` here; which game a checkpoint is for is checked when it loads.
    """
    check_spec_form(spec)
    path, _ = split_spec(spec)
    if Path(path).is_dir():
        from policies.board_onnx_policy import check_package

        check_package(path, game)


def load(spec: str, game: Any, seed: int | None = None) -> BoardSearchPolicy:
    """Return the search seat of ``search:PATH[?...]`` on a ``dw train`` checkpoint or exported package of ``game``."""
    check_spec_form(spec)
    path, params = split_spec(spec)
    label = f"{PREFIX}{Path(path).name}"
    evaluator: TorchBoardEvaluator | PackageBoardEvaluator
    if Path(path).is_dir():
        from policies.board_onnx_policy import check_package

        evaluator = PackageBoardEvaluator(check_package(path, game), game)  # the package checked once
    else:
        from policies.board_network_policy import load as load_network

        network = load_network(path, game, seed=seed)
        evaluator = TorchBoardEvaluator(network.net, network.fit_grid)
    return BoardSearchPolicy(evaluator, params, seed=seed, label=label)
