"""Gumbel max^n search for any number of players: the self-play search and its improved-policy target.

The search walks real engine positions (copies of an engine object of the board-game contract: ``copy()``,
``turn``, ``over``, ``truncated``, ``winners``, ``legal_actions()``, ``play(action)``, ``observe()``), so the
rules stay the engine's. Every node keeps, per legal action, a visit count and the sum of the **value
vectors** backed up through it: one entry per player in the absolute seat order (multiplayer AlphaZero's
max^n backup: each node's player picks the child that is best for itself, and the whole vector goes up).

* **Leaves** are valued by the network: ``evaluator(obs, mask) -> (logits [A], values [n])`` with the values
  in the acting player's frame (entry 0 the player to move, entry 1 the next seat, ...), rotated here to the
  absolute frame. A finished game is valued by :func:`outcome_vector`.
* **Root** (Danihelka et al. 2022, "Policy improvement by planning with Gumbel"): Gumbel noise is added to
  the network's logits, the top ``gumbel_k`` actions are kept, and sequential halving spends the
  simulations over them, halving the candidates each phase by ``g + logits + sigma(q)``. The action played
  is the last one standing; the training target is ``softmax(logits + sigma(completed q))``, where an
  unvisited action's q is the mixed value of the root (the network's value and the visited children's).
* **Below the root** the rule is PUCT (:func:`policies.puct.puct_select`, the board search's compiled rule)
  over the entry of the node's player, unvisited children valued at their parent's network value.

Values lie in [-1, 1]; sigma maps them to [0, 1] first: ``sigma(q) = (c_visit + max N) * c_scale * (q+1)/2``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from policies.puct import puct_select


class Evaluator(Protocol):
    def __call__(
        self, obs: NDArray[np.int8], mask: NDArray[np.int8]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Return (logits [A], value vector [n] in the acting player's frame) of one position."""
        ...


@dataclass(frozen=True)
class SearchSettings:
    """How one move is searched: the simulations, the Gumbel root's width and the constants."""

    simulations: int = 16
    gumbel_k: int = 8
    c_visit: float = 50.0
    c_scale: float = 1.0
    c_puct: float = 1.25


@dataclass
class Node:
    """A position: its player, legal actions, priors, network value and per-action visits and value sums."""

    game: Any
    player: int
    actions: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    logits: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    priors: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    value: NDArray[np.float64] | None = None  # the network's value vector (absolute frame), set on expansion
    children: list[Node | None] = field(default_factory=list)
    visits: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    totals: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))  # [actions, players]


@dataclass
class SearchResult:
    """What one searched move gives: the action to play, the improved policy over the legal actions, the root."""

    action: int
    actions: NDArray[np.int64]
    improved: NDArray[np.float64]
    root: Node


def outcome_vector(game: Any, players: int) -> NDArray[np.float64]:
    """Return a finished game's outcome, one value per seat, summing to 0.

    A sole winner gets +1 and each other seat ``-1/(n-1)``; ``k`` winners share the win (each
    ``n/(k(n-1)) - 1/(n-1)``); a truncation (not a rule ending) or a game without winners is all 0. With two
    players that is +1/-1/0 as in the board search (policies/board_search.py). A game whose engine view
    names its own results (``results()``: Domain Wheel's rule 9.5, a sole winner +1 and the others -1/2,
    two winners +1/2 each and the loser -1) is valued by them.
    """
    results = getattr(game, "results", None)
    if results is not None:
        return np.asarray(results(), dtype=np.float64)
    out = np.zeros(players)
    winners = list(game.winners)
    if game.truncated or not winners:
        return out
    out -= 1.0 / (players - 1)
    for w in winners:
        out[int(w)] += players / (len(winners) * (players - 1))
    return out


def to_absolute(ego: NDArray[np.float64], player: int) -> NDArray[np.float64]:
    """Return a value vector in the acting player's frame (entry 0 = ``player``) in the absolute seat order."""
    return np.roll(ego, player)


def to_ego(absolute: NDArray[np.float64], player: int) -> NDArray[np.float64]:
    """Return an absolute value vector in ``player``'s frame (entry 0 = ``player``, then the next seats)."""
    return np.roll(absolute, -player)


class GumbelSearch:
    """Searches one position of an ``players``-seat game with an evaluator; see the module docstring."""

    def __init__(self, evaluator: Evaluator, players: int, settings: SearchSettings) -> None:
        self.evaluator, self.players, self.settings = evaluator, players, settings

    def _expand(self, node: Node) -> NDArray[np.float64]:
        obs, mask = node.game.observe()
        logits, ego = self.evaluator(obs, mask)
        node.actions = np.flatnonzero(mask).astype(np.int64)
        z = np.asarray(logits, dtype=np.float64)[node.actions]
        node.logits = z - z.max()
        p = np.exp(node.logits)
        node.priors = p / p.sum()
        node.value = to_absolute(np.asarray(ego, dtype=np.float64), node.player)
        node.children = [None] * len(node.actions)
        node.visits = np.zeros(len(node.actions), dtype=np.int64)
        node.totals = np.zeros((len(node.actions), self.players))
        return node.value

    def _child(self, node: Node, i: int) -> Node:
        child = node.children[i]
        if child is None:
            game = node.game.copy()
            game.play(int(node.actions[i]))
            child = node.children[i] = Node(game, int(game.turn) if not game.over else -1)
        return child

    def _simulate(self, root: Node, first: int) -> None:
        """Play one simulation that starts with the root's action ``first``, and back its value vector up."""
        path = [(root, first)]
        node = self._child(root, first)
        while True:
            if node.game.over:
                value = outcome_vector(node.game, self.players)
                break
            if node.value is None:
                value = self._expand(node)
                break
            assert node.value is not None
            i = int(
                puct_select(
                    node.visits,
                    np.ascontiguousarray(node.totals[:, node.player]),
                    node.priors,
                    float(node.value[node.player]),
                    self.settings.c_puct,
                )
            )
            path.append((node, i))
            node = self._child(node, i)
        for parent, j in path:
            parent.visits[j] += 1
            parent.totals[j] += value

    def _sigma(self, q: NDArray[np.float64], visits: NDArray[np.int64]) -> NDArray[np.float64]:
        s = self.settings
        return (s.c_visit + float(visits.max(initial=0))) * s.c_scale * (q + 1.0) / 2.0

    def completed_q(self, root: Node) -> NDArray[np.float64]:
        """Return each root action's value for the root's player; unvisited ones take the root's mixed value."""
        assert root.value is not None
        p, n = root.player, root.visits
        q = np.divide(root.totals[:, p], np.maximum(n, 1))
        seen = n > 0
        total = int(n.sum())
        if total == 0:
            return np.full(len(n), float(root.value[p]))
        weight = float(root.priors[seen].sum())
        mixed = (float(root.value[p]) + total * float((root.priors[seen] * q[seen]).sum()) / weight) / (1 + total)
        return np.where(seen, q, mixed)

    def improved_policy(self, root: Node) -> NDArray[np.float64]:
        """Return ``softmax(logits + sigma(completed q))`` over the root's legal actions (the training target)."""
        z = root.logits + self._sigma(self.completed_q(root), root.visits)
        e = np.exp(z - z.max())
        return e / e.sum()

    def run(self, game: Any, simulations: int, rng: np.random.Generator) -> SearchResult:
        """Search ``game`` (not changed) with ``simulations`` simulations by sequential halving at the root."""
        if game.over:
            raise ValueError("search: the game is over, there is no move to search")
        root = Node(game.copy(), int(game.turn))
        self._expand(root)
        k = len(root.actions)
        g = rng.gumbel(size=k)
        score = g + root.logits
        m = min(self.settings.gumbel_k, k)
        candidates = np.argsort(-score, kind="stable")[:m]
        if simulations > 0 and m > 1:
            phases = math.ceil(math.log2(m))
            left = simulations
            while len(candidates) > 1 and left > 0:
                per = max(1, simulations // (phases * len(candidates)))
                for i in candidates:
                    for _ in range(min(per, left)):
                        self._simulate(root, int(i))
                        left -= 1
                q = self.completed_q(root)
                ranked = candidates[np.argsort(-(score + self._sigma(q, root.visits))[candidates], kind="stable")]
                candidates = ranked[: max(1, len(candidates) // 2)]
        elif simulations > 0:
            for _ in range(simulations):
                self._simulate(root, int(candidates[0]))
        best = int(candidates[0])
        return SearchResult(int(root.actions[best]), root.actions, self.improved_policy(root), root)
