"""Domain Wheel's search seat: Monte Carlo tree search over the engine, guided by a network's policy and value.

``search:PATH`` (a ``dw train`` checkpoint, or an exported strategy package folder with a value output, which
plays the same search on onnxruntime without torch: :mod:`policies.package_evaluator`) sits in any seat that
takes a strategy spec (``dw arena``, the browser game). Before each of its moves it grows a tree of real
engine positions (:class:`dw_env.engine.Game` copies; the rules are the engine's alone) and plays the move
it visited most.

How a node is valued. Domain Wheel has three players, so a node's value is a vector, one entry per player,
and each player picks, at its own nodes, the child that is best *for itself* (max^n backup): every playout
adds the leaf's value vector to the totals of each node on its path, and selection at a node of player
``p`` reads entry ``p``. The ``backup`` option changes what the rivals play for: ``paranoid`` (both minimise
the searching seat's value against theirs) and ``best_reply`` (one rival searched between two of the seat's
turns, the other on its policy's move): :mod:`policies.domain_wheel.backups`. Selection is PUCT (AlphaZero's rule):
``Q_p(child) + c_puct * prior(child) * sqrt(N(node)) / (1 + N(child))``, unvisited children valued at the
node's own estimate (first-play urgency).

Where the numbers come from:

* **priors** of a full move (piece then destination, as the env's two actions) are the product of the
  network's phase-1 probability of the piece and its phase-2 probability of the destination; pass and end
  request take their phase-1 probabilities. All phase-2 observations of a node go through the network in
  one batch with its phase-1 observation.
* **values**: the network's value head estimates the *acting* player's return. The rewards are zero-sum
  (``+1/k`` to each of ``k`` winners, ``-1/(3-k)`` to the others), so the two rivals get ``-v/2`` each: an
  approximation. With ``all_viewers=1`` each rival's entry is instead the head's value of the same position
  encoded from that rival's view (the vector then centred, as returns sum to zero); the head was trained on
  positions its player was to act in, so that is an approximation too. Finished games are
  valued exactly by their result (truncation, not a rule ending, is 0 for all, as in the environments).

The tree is kept between moves: when the seat is asked again, the position reached after the rivals'
moves is looked up among the descendants of the move it played, and its subtree becomes the new root.

A budget is a number of playouts (reproducible: with ``greedy`` the same position and seed give the same
move) and/or a time limit per move (``time=``; then results depend on the machine's speed). The spec and
its parameters are every game's (:mod:`policies.search_spec`); ``policies.search`` re-exports this module.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, Game, Move
from dw_env.info import NUM_PLAYERS
from dw_env.options import GameOptions
from policies.base import Policy
from policies.domain_wheel.backups import plays_its_policy, selection_values
from policies.domain_wheel.two_phase import TwoPhaseDriver
from policies.puct import puct_select
from policies.search_spec import SearchParams, check_spec, sample_by_visits, split_spec


class Evaluator(Protocol):
    """What the search asks of a network: priors and values for a batch, on the map it is pointed at."""

    def prepare(self, options: GameOptions) -> None:
        """Point the network at the map of ``options`` (called before the first position of a map)."""

    def __call__(
        self, obs: NDArray[np.int8], mask: NDArray[np.int8]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Return (masked log-probabilities [B, A], values of the acting player [B]) of a batch."""
        ...


@dataclass
class Node:
    """A position in the tree: its moves with priors, and per-move visit counts and value totals."""

    game: Game
    player: int
    terminal: NDArray[np.float64] | None = None  # the exact result of a finished game
    value: NDArray[np.float64] | None = None  # the network's estimate, set on expansion
    steps: NDArray[np.int64] = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))  # [M, 2] src, dst
    specials: list[Move] = field(default_factory=list)  # pass and end request, after the steps
    priors: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    children: list[Node | None] = field(default_factory=list)
    visits: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    totals: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, NUM_PLAYERS)))

    @property
    def expanded(self) -> bool:
        return self.value is not None

    @property
    def num_moves(self) -> int:
        return len(self.steps) + len(self.specials)

    def move(self, i: int) -> Move:
        """Return move ``i``: the piece moves in the order of their priors' rows, then pass and end request.

        The moves are held as arrays and made into :class:`Move` only when played: a node of the standard map
        has hundreds of them and a playout plays one.
        """
        n = len(self.steps)
        return Move(int(self.steps[i, 0]), int(self.steps[i, 1])) if i < n else self.specials[i - n]


def result_values(game: Game) -> NDArray[np.float64]:
    """Return each player's return of a finished game (rule 9.5; truncation gives 0, as in the envs)."""
    values = np.zeros(NUM_PLAYERS)
    winners = [] if game.truncated else game.winners
    k = len(winners)
    if 0 < k < NUM_PLAYERS:
        values[:] = -1.0 / (NUM_PLAYERS - k)
        values[winners] = 1.0 / k
    return values


class SearchPolicy(Policy):
    """Plays a seat by PUCT tree search over the engine, max^n or another backup (see the module docstring)."""

    name = "search"
    display_name = "Búsqueda"

    def __init__(
        self, evaluate: Evaluator, params: SearchParams | None = None, seed: int | None = None, label: str = "search"
    ) -> None:
        super().__init__(seed)
        self.evaluate = evaluate
        self.params = params or SearchParams()
        self.label = label
        self.root: Node | None = None
        self.driver: TwoPhaseDriver | None = None
        self.last_playouts = 0
        self.last_root: Node | None = None  # the root of the last search: its moves, priors and visits, to inspect
        self.seat = 0  # the searching player, the root of every backup but max^n's

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.root = self.last_root = None

    # ---- the tree ---------------------------------------------------------------------------
    def _expand(self, node: Node) -> NDArray[np.float64]:
        """Give ``node`` its moves and priors; return its value vector (exact for a finished game)."""
        game = node.game
        if game.over:
            node.terminal = result_values(game)
            node.value = node.terminal
            return node.terminal
        assert self.driver is not None
        p, c = node.player, self.driver.geometry.num_cells
        obs, phase1 = self.driver.encode(game, p)
        mask = phase1.copy()  # the driver's buffers are overwritten by the phase-2 encodings below
        first = np.flatnonzero(mask)
        pieces = first[first < c]
        batch_obs, batch_mask = [obs.copy()], [mask]
        sources = []
        for action in pieces:
            src = self.driver.cell_of(p, int(action))
            o2, m2 = self.driver.encode(game, p, selected=src)
            batch_obs.append(o2.copy())
            batch_mask.append(m2.copy())
            sources.append(src)
        rivals = [(p + k) % NUM_PLAYERS for k in range(1, NUM_PLAYERS)] if self.params.all_viewers else []
        for q in rivals:  # the same position seen by a rival (not to act: its mask is empty; only the value is read)
            oq, _ = self.driver.encode(game, q)
            batch_obs.append(oq.copy())
            batch_mask.append(np.ones_like(mask))
        logp, values = self.evaluate(np.stack(batch_obs), np.stack(batch_mask))
        # every piece's destinations, piece by piece in mask order: log prior = log p(piece) + log p(dst | piece)
        phase2 = np.stack(batch_mask[1 : 1 + len(pieces)]) if len(pieces) else np.zeros((0, mask.size), np.int8)
        rows, dst_actions = np.nonzero(phase2)
        log_priors = [logp[0, pieces[rows]] + logp[1 + rows, dst_actions]]
        steps = np.empty((len(rows), 2), dtype=np.int64)
        steps[:, 0] = np.asarray(sources, dtype=np.int64)[rows]
        steps[:, 1] = self.driver.cells_of(p, dst_actions)
        specials: list[Move] = []
        for action, move in ((c, PASS_MOVE), (c + 1, END_REQUEST_MOVE)):
            if mask[action]:
                specials.append(move)
                log_priors.append(logp[0, action : action + 1])
        priors = np.concatenate(log_priors)
        prior = np.exp(priors - priors.max())
        node.steps, node.specials, node.priors = steps, specials, prior / prior.sum()
        moves = node.num_moves
        node.children = [None] * moves
        node.visits = np.zeros(moves, dtype=np.int64)
        node.totals = np.zeros((moves, NUM_PLAYERS))
        v = float(values[0])
        node.value = np.full(NUM_PLAYERS, -v / (NUM_PLAYERS - 1))
        node.value[p] = v
        if rivals:
            node.value[rivals] = values[len(batch_obs) - len(rivals) :]
            node.value -= node.value.mean()  # returns are zero-sum
        return node.value

    def _select(self, node: Node) -> int:
        """Return the index of the move PUCT picks at ``node`` for its player, read by the backup (backups.py)."""
        p, backup = node.player, self.params.backup
        assert node.value is not None
        if plays_its_policy(p, self.seat, backup):
            return int(np.argmax(node.priors))
        values, fpu = selection_values(node.totals, node.value, p, self.seat, backup)
        return int(puct_select(node.visits, values, node.priors, fpu, self.params.c_puct))

    def _playout(self, root: Node) -> None:
        """Walk down by PUCT to a new position, value it, and add the value to every node on the path."""
        path: list[tuple[Node, int]] = []
        node = root
        while node.expanded and node.terminal is None:
            i = self._select(node)
            path.append((node, i))
            child = node.children[i]
            if child is None:
                game = node.game.copy()
                game.play(node.move(i))
                child = node.children[i] = Node(game, game.turn)
                node = child
                break
            node = child
        value = node.terminal if node.terminal is not None else self._expand(node)
        for parent, i in path:
            parent.visits[i] += 1
            parent.totals[i] += value

    def _find(self, game: Game) -> Node | None:
        """Return the kept node whose position is ``game`` (after the rivals' moves), or None."""
        frontier = [self.root] if self.root is not None else []
        for _ in range(NUM_PLAYERS):
            nxt: list[Node] = []
            for node in frontier:
                if _same_position(node.game, game):
                    return node
                nxt.extend(child for child in node.children if child is not None)
            frontier = nxt
        return None

    # ---- the seat ---------------------------------------------------------------------------
    def act(self, game: Game, seat: int) -> Move:
        if game.over:
            return PASS_MOVE
        if self.driver is None or self.driver.options != game.options:
            self.driver = TwoPhaseDriver(game.options)
            self.evaluate.prepare(game.options)
            self.root = None
        self.seat = game.turn
        root = self._find(game) if self.params.reuse_tree else None
        if root is None:
            root = Node(game.copy(), game.turn)
        if not root.expanded:
            self._expand(root)
        deadline = None if self.params.time is None else time.perf_counter() + self.params.time
        done = 0
        while done < self.params.playouts and (deadline is None or time.perf_counter() < deadline or done == 0):
            self._playout(root)
            done += 1
        self.last_playouts, self.last_root = done, root
        if self.params.greedy:
            best = max(range(root.num_moves), key=lambda i: (root.visits[i], root.priors[i]))
        else:
            best = sample_by_visits(root.visits, self.rng)
        move = root.move(best)
        child = root.children[best]
        self.root = child if (self.params.reuse_tree and child is not None) else None
        return move

    def __repr__(self) -> str:
        return f"SearchPolicy({self.label!r}, {self.params})"


def _same_position(a: Game, b: Game) -> bool:
    return (
        np.array_equal(a.scalars, b.scalars) and np.array_equal(a.board, b.board) and np.array_equal(a.lands, b.lands)
    )


class TorchEvaluator:
    """An :class:`Evaluator` over a torch policy network (policies/domain_wheel/network.py), on the CPU."""

    def __init__(self, net: Any) -> None:
        import torch

        from policies.domain_wheel.network import masked_logits

        self.net, self.torch, self.masked_logits = net.eval(), torch, masked_logits

    def prepare(self, options: GameOptions) -> None:
        from dw_env.geometry import build_geometry

        geometry = build_geometry(options.land_radius, options.map_radius)
        if geometry is not self.net.geometry:
            self.net.set_geometry(geometry)

    def __call__(
        self, obs: NDArray[np.int8], mask: NDArray[np.int8]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        torch = self.torch
        with torch.inference_mode():
            logits, values = self.net(torch.from_numpy(obs))
            logp = self.masked_logits(logits, torch.from_numpy(mask)).log_softmax(-1)
        return logp.double().numpy(), values.double().numpy()


class OnnxEvaluator:
    """An :class:`Evaluator` over an exported Domain Wheel package's graphs (onnxruntime, no torch)."""

    def __init__(self, package: Any) -> None:
        from policies.package_evaluator import PackageEvaluator

        self.graphs = PackageEvaluator(package)

    def prepare(self, options: GameOptions) -> None:
        from policies.domain_wheel.two_phase import map_key

        self.graphs.select(map_key(options))

    def __call__(
        self, obs: NDArray[np.int8], mask: NDArray[np.int8]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        from policies.package_evaluator import log_softmax

        logits, values = self.graphs(obs, mask)
        return log_softmax(logits), values.astype(np.float64)


def load(spec: str, seed: int | None = None) -> SearchPolicy:
    """Return the search seat of ``search:PATH[?...]`` on a ``dw train`` checkpoint or an exported package."""
    check_spec(spec)
    path, params = split_spec(spec)
    label = f"search:{Path(path).name}"
    if Path(path).is_dir():
        from policies.onnx_policy import PackagePolicy

        package = PackagePolicy(path, seed=seed).package  # a Domain Wheel package, every graph checked
        return SearchPolicy(OnnxEvaluator(package), params, seed=seed, label=label)
    from policies.domain_wheel import network_policy

    network = network_policy.load(path, seed=seed, greedy=True)
    return SearchPolicy(TorchEvaluator(network.net), params, seed=seed, label=label)
