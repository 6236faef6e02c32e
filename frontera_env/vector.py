"""Batched vector env for training: N Frontera games per call, numpy arrays in and out (not yet compiled).

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

Row ``i``'s ``k``-th game has seed ``seed + i + k*N``. Each row is a ``frontera_v0.raw_env`` stepped in a plain
Python loop (eliminated seats' dead steps are taken for the caller): no compiled kernel yet, so it is as fast
as the AEC env (docs/FRONTERA.md, "Environment"). An illegal action raises ValueError naming the row, the action,
the seat and the allowed actions, and no game is stepped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from frontera_env.frontera_v0 import raw_env
from frontera_env.rules_errors import brief

__all__ = ["FronteraVectorEnv"]


class FronteraVectorEnv:
    """``num_envs`` Frontera games with the options of ``frontera_v0.raw_env`` (see the module docs)."""

    def __init__(self, num_envs: int, seed: int = 0, **options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= 65536:
            raise ValueError(f"num_envs must be an integer in 1..65536, got {brief(num_envs)}")
        self.num_envs = num_envs
        self.envs = [raw_env(**options) for _ in range(num_envs)]
        first = self.envs[0]
        self.players = first.options.players
        self.num_actions = first.layout.size
        self.observation_size = first.obs_layout.size
        self.seed = self._check_seed(seed)
        self._games = np.zeros(num_envs, np.int64)
        self._steps = np.zeros(num_envs, np.int32)
        self._rng = np.random.default_rng(self.seed)
        self.obs = np.zeros((num_envs, self.observation_size), np.float32)
        self.masks = np.zeros((num_envs, self.num_actions), np.int8)
        self.acting = np.zeros(num_envs, np.int32)

    @staticmethod
    def _check_seed(seed: Any) -> int:
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {brief(seed)}")
        return int(seed)

    def reset(self, seed: int | None = None) -> tuple[NDArray[np.float32], NDArray[np.int8], NDArray[np.int32]]:
        """Start every row's first game (``seed`` replaces the constructor's); return obs, masks, acting."""
        if seed is not None:
            self.seed = self._check_seed(seed)
            self._rng = np.random.default_rng(self.seed)
        self._games[:] = 0
        for i in range(self.num_envs):
            self._restart(i)
        return self.obs.copy(), self.masks.copy(), self.acting.copy()

    def _restart(self, i: int) -> None:
        env = self.envs[i]
        env.reset(seed=self.seed + i + int(self._games[i]) * self.num_envs)
        self._games[i] += 1
        self._steps[i] = 0
        self._observe(i)

    def _observe(self, i: int) -> None:
        env = self.envs[i]
        seat = env.game.current
        self.acting[i] = seat
        out = env.observe(env.possible_agents[seat])
        self.obs[i] = out["observation"]
        self.masks[i] = out["action_mask"]

    def step(self, actions: Any) -> tuple[Any, ...]:
        """Play one action in every row; return obs, masks, acting, rewards, terminated, truncated, infos."""
        acts = self._check_actions(actions)
        rewards = np.zeros((self.num_envs, self.players), np.float32)
        terminated = np.zeros(self.num_envs, np.bool_)
        truncated = np.zeros(self.num_envs, np.bool_)
        winner = np.full(self.num_envs, -1, np.int8)
        episode_steps = np.zeros(self.num_envs, np.int32)
        for i, env in enumerate(self.envs):
            env.step(int(acts[i]))
            self._steps[i] += 1
            for agent, r in env.rewards.items():
                rewards[i, env.possible_agents.index(agent)] += r
            over = env.game.over
            while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
                env.step(None)  # the eliminated seats' (or, at the end, everyone's) dead steps
            if over:
                truncated[i] = bool(env.game.state.truncated)
                terminated[i] = not truncated[i]
                winner[i] = -1 if env.game.winner is None else env.game.winner
                episode_steps[i] = self._steps[i]
                self._restart(i)
            else:
                self._observe(i)
        infos = {"winner": winner, "episode_steps": episode_steps}
        return self.obs.copy(), self.masks.copy(), self.acting.copy(), rewards, terminated, truncated, infos

    def _check_actions(self, actions: Any) -> NDArray[np.int64]:
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} integers, one per row; got {brief(actions)} "
                f"(shape {acts.shape}, dtype {acts.dtype})"
            )
        acts = acts.astype(np.int64)
        bad = np.flatnonzero((acts < 0) | (acts >= self.num_actions))
        if bad.size == 0:
            bad = np.flatnonzero(self.masks[np.arange(self.num_envs), acts] == 0)
        if bad.size:
            i = int(bad[0])
            allowed = np.flatnonzero(self.masks[i])
            raise ValueError(
                f"row {i}: action {int(acts[i])} is not legal for seat {int(self.acting[i])}; allowed: "
                f"{', '.join(str(int(a)) for a in allowed[:20])}{' ...' if allowed.size > 20 else ''}"
            )
        return acts

    def sample_actions(self) -> NDArray[np.int64]:
        """Return one uniformly random legal action per row (from the env's own seeded generator)."""
        return np.array([self._rng.choice(np.flatnonzero(m)) for m in self.masks], np.int64)

    def close(self) -> None:
        """Release nothing: the rows hold no external resource."""
