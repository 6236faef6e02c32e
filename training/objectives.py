"""Exploiter objectives: rewards other than winning, for training that searches the rules for loopholes.

A designer's question is not "who wins" but "what can a player get away with". An *exploiter* is trained on
one of these objectives instead of the win/loss reward; its learned games then go through the exploit
finder (:mod:`training.exploits`), which says whether the behaviour it found is degenerate (a king parked
on the centre throne, resolution A49; stalling to truncation, A57).

Each objective turns one vector step's outcome into the learner's reward (float32 ``[N]``):

* ``win`` (the default): the environment's own reward, unchanged;
* ``lead_at_truncation``: nothing for a rule ending (rules 9.1-9.4); at truncation (A57) ``+1/k`` to the
  learner when it is one of the ``k`` top scorers, ``-1`` otherwise: it pays only to stall a won position
  until the round limit, the behaviour A57 warns about;
* ``centre_denial``: ``+1/100`` at each of the learner's turns ending with its king on the centre throne
  (the entry ban 5.1(i) keeps every rival king out), and nothing for the result: it pays to park (A49).

Wiring into training/ppo.py (not done here: ppo.py belongs to the training helper) is two lines after the
vector step (see :func:`objective_reward`) and one config field ``env.objective`` (one of :data:`OBJECTIVES`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.geometry import build_geometry
from dw_env.info import NUM_PLAYERS
from dw_env.options import GameOptions

OBJECTIVES = ("win", "lead_at_truncation", "centre_denial")
#: reward per own turn parked on the centre throne (small: a game lasts tens of turns)
CENTRE_STEP = 0.01


def lead_at_truncation(
    final_scores: NDArray[Any], truncated: NDArray[np.bool_], seat: NDArray[Any]
) -> NDArray[np.float32]:
    """Return ``+1/k`` for a learner among the ``k`` top scorers of a truncated game, ``-1`` for the others
    of a truncated game, 0 for every game that goes on or ended by a rule."""
    rows = np.arange(len(seat))
    scores = np.asarray(final_scores)
    top = scores.max(axis=1, keepdims=True)
    leaders = scores == top
    k = leaders.sum(axis=1)
    mine = leaders[rows, seat]
    reward = np.where(mine, 1.0 / np.maximum(k, 1), -1.0)
    return np.where(truncated, reward, 0.0).astype(np.float32)


def centre_denial(
    options: GameOptions, king_cells: NDArray[Any], acted: NDArray[np.bool_], seat: NDArray[Any]
) -> NDArray[np.float32]:
    """Return :data:`CENTRE_STEP` where the learner just acted and its king stands on the centre throne.

    ``king_cells`` is int ``[N, 3]``: each player's king cell after the step (the state's ``KING_CELL``
    scalars, read before an automatic reset); ``acted`` marks the games where the learner made this step.
    """
    g = build_geometry(options.land_radius, options.map_radius)
    throne = int(g.land_throne[g.centre_land])
    cells = np.asarray(king_cells).reshape(-1, NUM_PLAYERS)[np.arange(len(seat)), seat]
    return np.where(acted & (cells == throne), CENTRE_STEP, 0.0).astype(np.float32)


def objective_reward(
    objective: str,
    env_reward: NDArray[np.float32],
    info: dict[str, Any],
    truncated: NDArray[np.bool_],
    seat: NDArray[Any],
    options: GameOptions | None = None,
    king_cells: NDArray[Any] | None = None,
    acted: NDArray[np.bool_] | None = None,
) -> NDArray[np.float32]:
    """Return the learner's reward of one vector step under ``objective`` (see the module docstring)."""
    if objective == "win":
        return env_reward
    if objective == "lead_at_truncation":
        return lead_at_truncation(info["final_scores"], truncated, seat)
    if objective == "centre_denial":
        if options is None or king_cells is None or acted is None:
            raise ValueError("objective centre_denial needs the options, the king cells and who acted")
        return centre_denial(options, king_cells, acted, seat)
    raise ValueError(f"unknown objective {objective!r}; allowed: {', '.join(OBJECTIVES)}")
