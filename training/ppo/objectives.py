"""Exploiter objectives: rewards other than winning, for training that searches the rules for loopholes.

A designer's question is not only "who wins" but "what can a player get away with". An *exploiter* is
trained on one of these objectives instead of the win/loss reward; its games then go through ``dw sweep``
and the exploit finder (:mod:`training.studies.exploits`), which says whether the behaviour it learned is
degenerate (a king parked on the centre throne, resolution A49; stalling to truncation, A57).

Each objective gives every seat its reward of one vector step, float32 ``[N, 3]`` like the vector env's:

* ``win`` (the default): the environment's own reward, unchanged;
* ``lead_at_truncation``: nothing for a rule ending (rules 9.1-9.4); at truncation (A57) ``+1/k`` to each
  of the ``k`` top scorers and ``-1`` to the others: it pays only to stall a won position until the round
  limit, the behaviour A57 warns about;
* ``centre_denial``: :data:`CENTRE_STEP` to the seat that just acted when its turn ends with its king on
  the centre throne (the entry ban 5.1(i) then keeps every rival king out), nothing for the result: it pays
  to park (A49).

:class:`ObjectiveVectorEnv` is the batched env with its rewards replaced by an objective; ``dw train`` uses
it for every run, with ``env.objective`` of the config (training/ppo/config.py) choosing the reward
(``--set env.objective=centre_denial``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.envs.vector import DomainWheelVectorEnv
from dw_env.info import NUM_PLAYERS
from dw_env.rules import layout as lay

OBJECTIVES = ("win", "lead_at_truncation", "centre_denial")
#: reward per own turn ending on the centre throne (small: a game lasts tens of turns)
CENTRE_STEP = 0.01


def lead_at_truncation(final_scores: NDArray[Any], truncated: NDArray[np.bool_]) -> NDArray[np.float32]:
    """Return ``[N, 3]``: on truncated rows ``+1/k`` for the ``k`` top scorers and ``-1`` for the others; else 0."""
    scores = np.asarray(final_scores).reshape(-1, NUM_PLAYERS)
    leaders = scores == scores.max(axis=1, keepdims=True)
    share = 1.0 / leaders.sum(axis=1, keepdims=True)
    reward = np.where(leaders, share, -1.0)
    return np.where(np.asarray(truncated)[:, None], reward, 0.0).astype(np.float32)


def centre_denial(
    king_cells: NDArray[Any], acted: NDArray[Any], running: NDArray[np.bool_], centre_throne: int
) -> NDArray[np.float32]:
    """Return ``[N, 3]``: :data:`CENTRE_STEP` to the seat that acted where its king now stands on the centre
    throne and the game goes on (``king_cells`` int ``[N, 3]`` after the step, ``acted`` int ``[N]``)."""
    cells = np.asarray(king_cells).reshape(-1, NUM_PLAYERS)
    rows = np.arange(len(cells))
    reward = np.zeros(cells.shape, dtype=np.float32)
    parked = np.asarray(running) & (cells[rows, np.asarray(acted)] == centre_throne)
    reward[rows[parked], np.asarray(acted)[parked]] = CENTRE_STEP
    return reward


class ObjectiveVectorEnv(DomainWheelVectorEnv):
    """The batched env (:class:`dw_env.envs.vector.DomainWheelVectorEnv`) rewarding an exploiter objective."""

    def __init__(self, *args: Any, objective: str = "win", **kwargs: Any) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(f"unknown objective {objective!r}; allowed: {', '.join(OBJECTIVES)}")
        super().__init__(*args, **kwargs)
        self.objective = objective
        self._centre_throne = int(self.geometry.land_throne[self.geometry.centre_land])

    def step(self, actions: Any) -> tuple[Any, ...]:
        """Step every game; return the env's outputs with the rewards of :attr:`objective`."""
        if self.objective == "win":
            return super().step(actions)  # exactly the plain env
        acted = np.array(self._acting)  # the seat acting now, before the step advances the turn
        obs, masks, acting, rewards, terminated, truncated, infos = super().step(actions)
        if self.objective == "lead_at_truncation":
            rewards = lead_at_truncation(infos["final_scores"], truncated)
        elif self.objective == "centre_denial":
            kings = self._scalars[:, lay.KING_CELL : lay.KING_CELL + NUM_PLAYERS]
            rewards = centre_denial(kings, acted, ~(terminated | truncated), self._centre_throne)
        return obs, masks, acting, rewards, terminated, truncated, infos
