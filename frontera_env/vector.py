"""Batched vector env for training: N Frontera games per call, one compiled call per batch for the rules and masks.

The same call shape as the other games' vector envs (``alveole_env.vector.AlveoleVectorEnv``)::

    venv = FronteraVectorEnv(64, seed=0, players=4, size="small")
    obs, masks, acting = venv.reset()
    for _ in range(1000):
        actions = venv.sample_actions()          # or a policy restricted by the masks
        obs, masks, acting, rewards, terminated, truncated, infos = venv.step(actions)

Outputs:

* ``obs`` float32 ``[N, S]`` and ``masks`` int8 ``[N, A]``: the observation and mask of the seat to act, exactly
  as ``frontera_v0`` builds them (``frontera_env.observation``, ``frontera_env.encoding``);
* ``acting`` int32 ``[N]``: the seat to act;
* ``rewards`` float32 ``[N, P]``: what each seat received on this step (spec 6.5: an eliminated seat's share on
  the step that eliminates it, the others' at the end; every game sums to 0 with ``rewards="zero_sum"``);
* ``terminated`` / ``truncated`` bool ``[N]``: the game ended by a rule / at ``max_turns``; that row's ``obs``,
  ``masks`` and ``acting`` already belong to the row's next game (finished games restart at once);
* ``infos``: ``winner`` int8 ``[N]`` (-1 on rows that did not end or were truncated) and ``episode_steps``
  int32 ``[N]`` (actions of the game that ended, 0 elsewhere).

Row ``i``'s ``k``-th game has seed ``seed + i + k*N``. Every row's state lives in one
:class:`frontera_env.arrays.Batch`; ``step`` plays all rows, fills all masks and encodes all observations in
one compiled call (:func:`step_batch` over ``frontera_env.kernels`` and ``frontera_env.observation_kernel``,
which the lock-step test proves equal to ``frontera_v0``'s rules, masks and observations). Only the deal of a
new game stays in Python (``Game.new``, once per game). ``envs`` are the rows' ``frontera_v0.raw_env`` dealers;
reading it refreshes each one's ``game`` to the row's current position (its arrays are the row's, no copy).
An eliminated seat has no dead step to take here: rows always show the seat to act. An illegal action raises
ValueError naming the row, the action, the seat and the allowed actions, and no game is stepped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from frontera_env import arrays, kernels
from frontera_env.arrays import CURRENT, PHASE, SEL_DEST, SEL_SOURCE
from frontera_env.frontera_v0 import raw_env
from frontera_env.observation_kernel import observe
from frontera_env.state import ACTIVE, OVER
from gamecore.vector_checks import check_action_batch, check_base_seed, check_count, shown

__all__ = ["FronteraVectorEnv", "observe_rows", "step_batch"]


@njit(cache=True, nogil=True)
def step_batch(T, S, actions, out, work):  # type: ignore[no-untyped-def]
    """Play ``actions[g]`` in every row g, then fill its mask and its seat to act's observation (:func:`observe_rows`).

    ``out`` is ``(masks, obs, acting, static, fog, max_turns)``; rows that ended keep a zero mask.
    """
    for g in range(S.sc.shape[0]):
        kernels.step(T, S, g, actions[g], work)
    observe_rows(T, S, np.arange(S.sc.shape[0]), out, work)


@njit(cache=True, nogil=True)
def observe_rows(T, S, rows, out, work):  # type: ignore[no-untyped-def]
    """Fill each row's mask, seat to act and that seat's observation (spec 6.3, 6.4); nothing for ended rows."""
    masks, obs, acting, static, fog, max_turns = out
    for g in rows:
        kernels.mask(T, S, g, masks[g], work)
        if S.sc[g, PHASE] != OVER:
            acting[g] = S.sc[g, CURRENT]
            observe(T, static, S, g, acting[g], fog, max_turns, obs[g], work)


class FronteraVectorEnv:
    """``num_envs`` Frontera games with the options of ``frontera_v0.raw_env`` (see the module docs)."""

    def __init__(self, num_envs: int, seed: int = 0, **options: Any) -> None:
        #: each row is a Python env of its own (the deal runs in Python), hence a lower limit than MAX_ENVS
        self.num_envs = check_count("num_envs", num_envs, 65536)
        self._envs = [raw_env(**options) for _ in range(num_envs)]
        first = self._envs[0]
        self.players = first.options.players
        self.num_actions = first.layout.size
        self.observation_size = first.obs_layout.size
        self.tables = arrays.tables(first.game.ctx, first.options.buckets, first.options.blitz)
        self.batch = arrays.empty_batch(num_envs, self.players, first.board.territory_count)
        self._work = kernels.workspace(first.board.territory_count)
        self.seed = check_base_seed(seed)
        self._games = np.zeros(num_envs, np.int64)
        self._steps = np.zeros(num_envs, np.int32)
        self._rng = np.random.default_rng(self.seed)
        self.obs = np.zeros((num_envs, self.observation_size), np.float32)
        self.masks = np.zeros((num_envs, self.num_actions), np.int8)
        self.acting = np.zeros(num_envs, np.int32)
        options_out = (first.obs_layout.static, int(first.options.fog), first.options.max_turns)
        self._out = (self.masks, self.obs, self.acting, *options_out)

    @property
    def envs(self) -> list[raw_env]:
        """Return the rows' envs, each ``game`` refreshed to its row's current position (a view of the batch)."""
        for i, env in enumerate(self._envs):
            arrays.sync(self.batch, i, env.game.state)
            row = self.batch.sc[i]
            env.selection.source, env.selection.dest = int(row[SEL_SOURCE]), int(row[SEL_DEST])
        return self._envs

    def reset(self, seed: int | None = None) -> tuple[NDArray[np.float32], NDArray[np.int8], NDArray[np.int32]]:
        """Start every row's first game (``seed`` replaces the constructor's); return obs, masks, acting."""
        if seed is not None:
            self.seed = check_base_seed(seed)
            self._rng = np.random.default_rng(self.seed)
        self._games[:] = 0
        self._restart(np.arange(self.num_envs))
        return self.obs.copy(), self.masks.copy(), self.acting.copy()

    def _restart(self, rows: NDArray[np.int64]) -> None:
        """Deal each row's next game in Python, store it in the batch, then mask and observe in one compiled call."""
        for i in rows:
            env = self._envs[i]
            env.reset(seed=self.seed + int(i) + int(self._games[i]) * self.num_envs)
            arrays.store(env.game.state, self.batch, i)
            env.game.state = arrays.state_view(self.batch, i)  # the row is the game from now on
            self._games[i] += 1
            self._steps[i] = 0
        observe_rows(self.tables, self.batch, rows, self._out, self._work)

    def step(self, actions: Any) -> tuple[Any, ...]:
        """Play one action in every row; return obs, masks, acting, rewards, terminated, truncated, infos."""
        acts = self._check_actions(actions)
        rewards = np.zeros((self.num_envs, self.players), np.float32)
        terminated = np.zeros(self.num_envs, np.bool_)
        truncated = np.zeros(self.num_envs, np.bool_)
        winner = np.full(self.num_envs, -1, np.int8)
        episode_steps = np.zeros(self.num_envs, np.int32)
        before = self.batch.status == ACTIVE
        step_batch(self.tables, self.batch, acts, self._out, self._work)
        self._steps += 1
        after = self.batch.status == ACTIVE
        loss = -1.0 / (self.players - 1) if self._envs[0].options.rewards == "zero_sum" else -1.0
        rewards[before & ~after] = loss  # spec 6.5: an eliminated seat's share on the step that eliminates it
        over = self.batch.sc[:, arrays.PHASE] == OVER
        for i in np.flatnonzero(over):
            rewards[i] += self._final_rewards(int(i), after[i], loss)
            truncated[i] = bool(self.batch.sc[i, arrays.TRUNCATED])
            terminated[i] = not truncated[i]
            winner[i] = self.batch.sc[i, arrays.WINNER]
            episode_steps[i] = self._steps[i]
        if over.any():
            self._restart(np.flatnonzero(over))
        infos = {"winner": winner, "episode_steps": episode_steps}
        return self.obs.copy(), self.masks.copy(), self.acting.copy(), rewards, terminated, truncated, infos

    def _final_rewards(self, i: int, alive: NDArray[np.bool_], loss: float) -> NDArray[np.float32]:
        """Return the survivors' rewards at row i's end: winner +1, others the loss; shares at truncation (6.5)."""
        out = np.zeros(self.players, np.float32)
        if self.batch.sc[i, arrays.TRUNCATED]:
            if self._envs[i].options.rewards == "zero_sum":
                out[alive] = (self.players - alive.sum()) / ((self.players - 1) * alive.sum())
            return out
        out[alive] = loss
        out[self.batch.sc[i, arrays.WINNER]] = 1.0
        return out

    def _check_actions(self, actions: Any) -> NDArray[np.int64]:
        acts = check_action_batch(actions, self.masks, self._explain_illegal, f"{self.num_envs} integers, one per row")
        return acts.astype(np.int64)

    def _explain_illegal(self, i: int, action: int) -> str:
        return (
            f"row {i}: action {action} is not legal for seat {int(self.acting[i])}; allowed: {shown(self.masks[i], 20)}"
        )

    def sample_actions(self) -> NDArray[np.int64]:
        """Return one uniformly random legal action per row (from the env's own seeded generator)."""
        return np.array([self._rng.choice(np.flatnonzero(m)) for m in self.masks], np.int64)

    def close(self) -> None:
        """Release nothing: the rows hold no external resource."""
