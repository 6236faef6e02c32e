"""Parity of an exported package with its checkpoint, on positions taken from real games.

:func:`collect_positions` plays seeded games among the scripted AIs and the agent itself (its checkpoint,
sampling) on a map and records, at every turn, the acting player's phase-1 observation and, when it moves a
piece, the phase-2 observation with that piece selected: both phases, as the seats see them.
:func:`compare` runs the checkpoint's network (torch) and the package's graph for the same map (onnxruntime)
on them and reports whether the greedy actions agree and the largest absolute difference between the two
logits on legal actions. ``dw export --parity N`` records the result in the manifest (``parity``).

The board games (Alveole, Conquer) take their positions the same way from games of their own seats and the
agent (:func:`collect_board_positions`), on every grid of the package (:func:`board_parity_report`).
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game
from dw_env.options import GameOptions
from policies.base import Policy
from policies.domain_wheel.two_phase import TwoPhaseDriver, map_key, map_text
from policies.registry import make

#: line-ups of the position games ("agent" is the checkpoint); each is played in all three rotations
LINEUPS = (
    ("agent", "balanced", "random"),
    ("expansionist", "agent", "center"),
    ("raider", "guardian", "agent"),
    ("balanced", "center", "expansionist"),
    ("agent", "agent", "guardian"),
)
#: positions kept per game at most, so that a few long games do not fill the sample
PER_GAME = 200


def collect_positions(
    checkpoint: Path, options: GameOptions, count: int, seed: int = 0
) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
    """Return (observations [N, D], masks [N, A]) of ``count`` decisions from seeded games on ``options``."""
    from policies.domain_wheel.network_policy import load

    driver = TwoPhaseDriver(options)
    obs: list[NDArray[np.int8]] = []
    masks: list[NDArray[np.int8]] = []
    for game_index in itertools.count():
        base = LINEUPS[game_index % len(LINEUPS)]
        lineup = base[game_index % 3 :] + base[: game_index % 3]
        seats: list[Policy] = []
        for s, spec in enumerate(lineup):
            seat_seed = seed * 1_000_003 + 3 * game_index + s
            seats.append(load(checkpoint, seed=seat_seed) if spec == "agent" else make(spec, seed=seat_seed))
        game = Game.new(options)
        kept = 0
        while not game.over and kept < PER_GAME and len(obs) < count:
            p = game.turn
            o, m = driver.encode(game, p)
            obs.append(o.copy())
            masks.append(m.copy())
            with warnings.catch_warnings():  # the agent on another map than its own warns once per seat
                warnings.simplefilter("ignore")
                move = seats[p].act(game, p)
            if move.src >= 0 and len(obs) < count:
                o, m = driver.encode(game, p, selected=move.src)
                obs.append(o.copy())
                masks.append(m.copy())
            game.play(move)
            kept += 1
        if len(obs) >= count:
            return np.stack(obs), np.stack(masks)
    raise AssertionError("unreachable")


def compare(
    net: Any,
    graph: Any,
    obs: NDArray[np.int8],
    masks: NDArray[np.int8],
    batch: int = 512,
    phase_feature: int | None = -9,
) -> dict[str, Any]:
    """Return {positions, agree, phase_2, max_abs_logit_diff, max_abs_value_diff} of torch ``net`` vs onnx ``graph``.

    Both on the same map. ``phase_feature`` is the observation index of Domain Wheel's phase feature (None: a
    game without phases, and no ``phase_2`` count). The value difference is there when the graph has a value
    output (what a search seat over the package reads).
    """
    import torch

    agree, worst, worst_value = 0, 0.0, 0.0
    for at in range(0, len(obs), batch):
        o, m = obs[at : at + batch], masks[at : at + batch]
        with torch.no_grad():
            logits, values = (t.numpy() for t in net(torch.from_numpy(o)))
        legal = m != 0
        want = np.where(legal, logits, -np.inf).argmax(1)
        got, onnx_logits = graph.run(o, m)
        agree += int((got == want).sum())
        if onnx_logits is not None:
            worst = max(worst, float(np.abs(np.where(legal, onnx_logits - logits, 0.0)).max()))
        if getattr(graph, "has_value", False):
            worst_value = max(worst_value, float(np.abs(graph.evaluate(o, m)[1] - values).max()))
    result: dict[str, Any] = {"positions": len(obs)}
    if phase_feature is not None:
        result["phase_2"] = int(obs[:, phase_feature].sum())  # the global block's "phase" (index 17 of 26)
    result.update(agree=agree, max_abs_logit_diff=worst)
    if getattr(graph, "has_value", False):
        result["max_abs_value_diff"] = worst_value
    return result


def parity_report(
    net: Any, trained: GameOptions, checkpoint: Path, package: Path, count: int, seed: int = 0
) -> dict[str, Any]:
    """Return the parity of ``package`` with ``checkpoint`` (its network ``net``, trained on ``trained``).

    The ``count`` positions are spread evenly over the package's maps.
    """
    from policies.onnx_policy import OnnxGraph
    from policies.package import read_package

    pkg = read_package(package)
    per_map = []
    share = -(-count // len(pkg.graphs))
    for spec in pkg.graphs:
        options = GameOptions(**{**trained.to_dict(), **spec.accepts})
        obs, masks = collect_positions(checkpoint, options, share, seed)
        net.set_geometry(TwoPhaseDriver(options).geometry)
        result = compare(net, OnnxGraph(pkg, spec), obs, masks)
        per_map.append({"map": map_text(map_key(options)), **result})
    return {
        "positions": sum(r["positions"] for r in per_map),
        "agree": sum(r["agree"] for r in per_map),
        "max_abs_logit_diff": max(r["max_abs_logit_diff"] for r in per_map),
        **_value_diff(per_map),
        "source": "arena-style games among the scripted AIs and the agent (sampling), both phases",
        "seed": seed,
        "maps": per_map,
    }


def _value_diff(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Return {max_abs_value_diff} over the graphs that have a value output (none: an empty dict)."""
    diffs = [r["max_abs_value_diff"] for r in rows if "max_abs_value_diff" in r]
    return {"max_abs_value_diff": max(diffs)} if diffs else {}


# ---------------------------------------------------------------- the board games

#: line-ups of a board game's position games ("agent" is the network, sampling); each in both seatings
BOARD_LINEUPS = (("agent", "random"), ("heuristic", "agent"), ("agent", "agent"), ("random", "heuristic"))


def collect_board_positions(
    net: Any, game: Any, options: Any, count: int, seed: int = 0
) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
    """Return (observations [N, D], masks [N, A]) of ``count`` decisions from seeded games of a board game.

    ``game`` is the :class:`policies.games.board.BoardGrid` adapter, ``net`` its BoardPolicyNet (set here to the
    grid of ``options``); the agent samples from its masked policy, the other seats are the game's own.
    """
    import torch

    _, height, width = game.planes(options)
    net.set_grid(height, width)
    seats = game.seats()
    obs: list[NDArray[np.int8]] = []
    masks: list[NDArray[np.int8]] = []
    for game_index in itertools.count():
        base = BOARD_LINEUPS[(game_index // 2) % len(BOARD_LINEUPS)]
        lineup = base if game_index % 2 == 0 else base[::-1]
        rng = np.random.default_rng(seed * 1_000_003 + game_index)
        players = [
            None if spec == "agent" else seats[spec](seed=seed * 1_000_003 + 2 * game_index + s)
            for s, spec in enumerate(lineup)
        ]
        state, kept = game.new_game(options), 0
        while not state.over and kept < PER_GAME and len(obs) < count:
            o, m = state.observe()
            obs.append(np.array(o, np.int8))
            masks.append(np.array(m, np.int8))
            seat = players[state.turn]
            if seat is None:
                with torch.no_grad():
                    logits = net(torch.from_numpy(obs[-1])[None])[0][0].numpy().astype(np.float64)
                legal = np.flatnonzero(m)
                p = np.exp(logits[legal] - logits[legal].max())
                action = int(legal[int(rng.choice(len(legal), p=p / p.sum()))])
            else:
                action = int(seat.act(state, state.turn))
            state.play(action)
            kept += 1
        if len(obs) >= count:
            return np.stack(obs), np.stack(masks)
    raise AssertionError("unreachable")


def board_parity_report(
    net: Any, game: Any, variants: list[Any], package: Path, count: int, seed: int = 0
) -> dict[str, Any]:
    """Return the parity of a board game's ``package`` with its network ``net`` on every grid of ``variants``.

    ``variants`` are the options of each graph (the trained grid first); the ``count`` positions are spread
    evenly over them.
    """
    from policies.board_onnx_policy import grid_key, grid_text
    from policies.onnx_policy import OnnxGraph
    from policies.package import read_package

    pkg = read_package(package)
    per_grid = []
    share = -(-count // len(variants))
    for options in variants:
        key = grid_key(game.planes(options))
        obs, masks = collect_board_positions(net, game, options, share, seed)
        result = compare(net, OnnxGraph(pkg, pkg.graph_for(key)), obs, masks, phase_feature=None)
        per_grid.append({"grid": grid_text(key), **result})
    return {
        "positions": sum(r["positions"] for r in per_grid),
        "agree": sum(r["agree"] for r in per_grid),
        "max_abs_logit_diff": max(r["max_abs_logit_diff"] for r in per_grid),
        **_value_diff(per_grid),
        "source": f"games among {game.title}'s seats and the agent (sampling)",
        "seed": seed,
        "grids": per_grid,
    }
