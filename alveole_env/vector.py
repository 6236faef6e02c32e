"""Batched vector env: N Alveole games stepped per call by one compiled kernel, numpy arrays in and out.

The same API as ``dw_env.envs.vector.DomainWheelVectorEnv``, so the trainer drives either unchanged::

    venv = AlveoleVectorEnv(256, seed=0)
    obs, masks, acting = venv.reset()
    for _ in range(1000):
        actions = venv.sample_actions()          # or a policy restricted by the masks
        obs, masks, acting, rewards, terminated, truncated, infos = venv.step(actions)

Outputs of ``reset`` / ``step``:

* ``obs`` int8 ``[N, 486]`` and ``masks`` int8 ``[N, 486]``: the observation and legal actions of the
  player to act (:mod:`alveole_env.encoding`, the engine's and the AEC env's encoding);
* ``acting`` int32 ``[N]``: the seat to act (0 moves first);
* ``rewards`` float32 ``[N, 2]``: +1 / -1 to the winner / loser on the step that ends a game by a rule,
  0 otherwise and on truncation (R-4.6);
* ``terminated`` / ``truncated`` bool ``[N]``: the game ended by a rule / at ``max_plies``; that row of
  ``obs`` / ``masks`` / ``acting`` already belongs to the next game (finished games reset at once);
* ``infos``: arrays valid on the rows that ended: ``final_scores`` int32 ``[N, 2]`` (10 - groups, as
  ``AlveoleGame.scores``), ``winners`` int8 ``[N, 2]`` (1 for the winner; all 0 on truncation),
  ``end_reason`` int8 ``[N]`` (index into ``END_REASONS``; -1 on rows that did not end),
  ``episode_steps`` int32 ``[N]`` (moves of the game that ended).

Each call runs every game in one numba call (``prange`` over one chunk of consecutive games per
thread, each thread with its own scratch arrays). With ``copy=True`` (default) every returned array
is fresh; ``copy=False`` returns the env's own buffers, valid until the next call. An illegal
action raises ValueError naming the row and the action, and no game is stepped.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numba
import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from alveole_env import rules
from alveole_env.encoding import NUM_ACTIONS, OBS_SIZE, encode, encoder_tables
from alveole_env.engine import AlveoleGame
from alveole_env.errors import brief
from alveole_env.geometry import GRID_CELL, NUM_CELLS
from alveole_env.options import AlveoleOptions
from alveole_env.state import END_REASON, NUM_PLAYERS, OVER, PIECES, PLY, TURN, WINNER, check_arrays
from gamecore.vector_checks import MAX_ENVS, check_action_batch, check_count, shown, thread_limit

# spinning OpenMP workers starve the games on a shared machine; a value set by the user wins
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@njit(cache=True, nogil=True)
def _step_chunk(G, E, grid_cell, state, actions, init, moves, stack, seen, out, lo, hi, reset):  # type: ignore[no-untyped-def]
    boards, lines, scalars = state
    obs, masks, acting, rewards, terminated, truncated, final_scores, winners, end_reason, episode_steps = out
    refused = 0
    for i in range(lo, hi):
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        terminated[i] = False
        truncated[i] = False
        final_scores[i, 0] = 0
        final_scores[i, 1] = 0
        winners[i, 0] = 0
        winners[i, 1] = 0
        end_reason[i] = -1
        episode_steps[i] = 0
        restart = reset
        if not reset:
            a = actions[i]
            result = rules.apply_move(G, boards[i], lines[i], scalars[i], grid_cell[a % 81], a // 81, stack, seen)
            if result < 0:
                refused += 1
            elif scalars[i, OVER]:
                for p in range(2):
                    final_scores[i, p] = PIECES + 1 - rules.count_groups(G, boards[i], p, stack, seen)
                w = scalars[i, WINNER]
                if w >= 0:
                    winners[i, w] = 1
                    rewards[i, w] = 1.0
                    rewards[i, 1 - w] = -1.0
                    terminated[i] = True
                else:
                    truncated[i] = True
                end_reason[i] = scalars[i, END_REASON]
                episode_steps[i] = scalars[i, PLY]
                restart = True
        if restart:
            boards[i] = init[0]
            lines[i] = init[1]
            scalars[i] = init[2]
        player = scalars[i, TURN]
        count = rules.list_moves(G, boards[i], lines[i], player, moves)
        encode(E, boards[i], lines[i], player, moves, count, obs[i], masks[i])
        acting[i] = player
    return refused


@njit(cache=True, parallel=True)
def run_batch(G, E, grid_cell, state, actions, init, ws, out, nthreads, reset):  # type: ignore[no-untyped-def]
    """Step (or reset) every game, one chunk per thread; return the number of actions the engine refused."""
    n = state[0].shape[0]
    chunk = (n + nthreads - 1) // nthreads
    refused = np.zeros(nthreads, dtype=np.int64)
    for t in prange(nthreads):
        lo = t * chunk
        hi = min(n, lo + chunk)
        if lo < hi:
            refused[t] = _step_chunk(
                G, E, grid_cell, state, actions, init, ws[0][t], ws[1][t], ws[2][t], out, lo, hi, reset
            )
    return refused.sum()


@njit(cache=True, nogil=True)
def sample_masked(masks, uniform, out):  # type: ignore[no-untyped-def]
    """Write into ``out[i]`` the legal action of row ``i`` at quantile ``uniform[i]`` (uniform over the legal ones)."""
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        k = min(int(uniform[i] * count), count - 1)
        out[i] = 0
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


class AlveoleVectorEnv:
    """``num_envs`` games of Alveole stepped together (see the module docstring)."""

    def __init__(
        self,
        num_envs: int,
        options: AlveoleOptions | dict[str, Any] | None = None,
        num_threads: int = 1,
        seed: int | None = None,
        copy: bool = True,
    ) -> None:
        self.num_envs = n = check_count("num_envs", num_envs, MAX_ENVS)
        self.num_threads = check_count("num_threads", num_threads, thread_limit())
        if options is None:
            options = AlveoleOptions()
        elif not isinstance(options, AlveoleOptions):
            options = AlveoleOptions.from_dict(options)
        self.options: AlveoleOptions = options
        self.num_players = NUM_PLAYERS
        self.num_actions = NUM_ACTIONS
        self.observation_size = OBS_SIZE
        self.copy = bool(copy)
        self.rng = np.random.default_rng(seed)
        start = AlveoleGame.new(options)
        self._init = (start.board.copy(), start.lines.copy(), start.scalars.copy())
        self._state = tuple(np.repeat(x[None], n, axis=0) for x in self._init)
        self._tables = rules.tables()
        self._encoder = encoder_tables()
        self._grid_cell = GRID_CELL.copy()
        t = self.num_threads
        self._ws = (
            np.zeros((t, rules.MAX_MOVES), dtype=np.int32),
            np.zeros((t, NUM_CELLS), dtype=np.int16),
            np.zeros((t, NUM_CELLS), dtype=np.int8),
        )
        self._actions = np.zeros(n, dtype=np.int32)
        self._allocate_outputs()
        self._has_reset = False

    def _allocate_outputs(self) -> None:
        n = self.num_envs
        self._obs = np.empty((n, OBS_SIZE), dtype=np.int8)
        self._masks = np.empty((n, NUM_ACTIONS), dtype=np.int8)
        self._acting = np.empty(n, dtype=np.int32)
        self._rewards = np.empty((n, NUM_PLAYERS), dtype=np.float32)
        self._terminated = np.empty(n, dtype=np.bool_)
        self._truncated = np.empty(n, dtype=np.bool_)
        self._final_scores = np.empty((n, NUM_PLAYERS), dtype=np.int32)
        self._winners = np.empty((n, NUM_PLAYERS), dtype=np.int8)
        self._end_reason = np.empty(n, dtype=np.int8)
        self._episode_steps = np.empty(n, dtype=np.int32)
        self._outputs = (
            self._obs,
            self._masks,
            self._acting,
            self._rewards,
            self._terminated,
            self._truncated,
            self._final_scores,
            self._winners,
            self._end_reason,
            self._episode_steps,
        )

    def _run(self, reset: bool) -> int:
        if self.copy and self._has_reset:
            self._allocate_outputs()
        numba.set_num_threads(self.num_threads)
        return int(
            run_batch(
                self._tables,
                self._encoder,
                self._grid_cell,
                self._state,
                self._actions,
                self._init,
                self._ws,
                self._outputs,
                self.num_threads,
                reset,
            )
        )

    def reset(self, seed: int | None = None) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.int32]]:
        """Start every game afresh; return (obs [N, D], masks [N, A], acting [N]).

        The rules have no randomness; ``seed`` reseeds :meth:`sample_actions`.
        """
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._run(reset=True)
        self._has_reset = True
        return self._obs, self._returned(), self._acting

    def step(self, actions: Any) -> tuple[Any, ...]:
        """Play one action in every game; return (obs, masks, acting, rewards, terminated, truncated, infos)."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        self._check_actions(actions)
        refused = self._run(reset=False)
        if refused:
            raise RuntimeError(f"the engine refused {refused} mask-legal actions (a bug; please report it)")
        infos = {
            "final_scores": self._final_scores,
            "winners": self._winners,
            "end_reason": self._end_reason,
            "episode_steps": self._episode_steps,
        }
        return self._obs, self._returned(), self._acting, self._rewards, self._terminated, self._truncated, infos

    def _returned(self) -> NDArray[np.int8]:
        # the env checks the next actions against its own masks: the caller gets a copy
        return self._masks.copy() if self.copy else self._masks

    def _check_actions(self, actions: Any) -> None:
        self._actions[:] = check_action_batch(actions, self._masks, self._explain_illegal)

    def _explain_illegal(self, i: int, action: int) -> str:
        allowed = shown(self._masks[i], NUM_ACTIONS)
        return f"action {action} of env {i} is not legal; allowed: {allowed} (no game was stepped)"

    def sample_actions(self) -> NDArray[np.int32]:
        """Return a uniformly random legal action for every game (seeded by ``seed``)."""
        out = np.empty(self.num_envs, dtype=np.int32)
        sample_masked(self._masks, self.rng.random(self.num_envs), out)
        return out

    def observe_state(self, saved: Mapping[str, Any]) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.int32]]:
        """Return (obs, masks, acting) the env shows for saved game arrays that :meth:`check_state` accepted.

        What a resumed run restores as the env's last outputs must be these (``dw train --resume``). ValueError
        naming the slot if one holds a finished game: a slot always holds a game in progress (a finished one
        restarts in the step that ends it).
        """
        boards, lines, scalars = (saved[f"_state.{k}"] for k in range(3))
        n = len(boards)
        obs, masks, acting = (
            np.zeros((n, OBS_SIZE), np.int8),
            np.zeros((n, NUM_ACTIONS), np.int8),
            np.zeros(n, np.int32),
        )
        for i in range(n):
            game = AlveoleGame.of_checked_arrays(self.options, boards[i].copy(), lines[i].copy(), scalars[i].copy())
            if game.over:
                raise ValueError(
                    f"game slot {i} holds a finished game ({game.end_reason}); a slot's game is in progress"
                )
            obs[i], masks[i] = game.observe()
            acting[i] = game.turn
        return obs, masks, acting

    def check_state(self, saved: Mapping[str, Any]) -> None:
        """Raise ValueError naming the slot unless saved game arrays are Alveole states the kernels may run on.

        ``saved`` maps this env's array names to arrays read from a file (a training checkpoint, whose games in
        progress ``dw train --resume`` restores): ``_state.0/1/2`` (every slot) and ``_init.0/1/2`` (the start).
        """
        limit = self.options.max_plies
        if all(f"_init.{k}" in saved for k in range(3)):
            try:
                check_arrays(saved["_init.0"], saved["_init.1"], saved["_init.2"], limit)
            except ValueError as exc:
                raise ValueError(f"the start position: {exc}") from None
        if not all(f"_state.{k}" in saved for k in range(3)):
            return
        boards, lines, scalars = (saved[f"_state.{k}"] for k in range(3))
        for i in range(len(boards)):
            try:
                check_arrays(boards[i], lines[i], scalars[i], limit)
            except ValueError as exc:
                raise ValueError(f"game slot {i}: {exc}") from None

    def game(self, i: int) -> AlveoleGame:
        """Return an independent engine copy of game ``i`` (what scripted seats act on)."""
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"env index must be an integer in 0..{self.num_envs - 1}, got {brief(i)}")
        board, lines, scalars = (x[i].copy() for x in self._state)
        return AlveoleGame.of_checked_arrays(self.options, board, lines, scalars)  # checked on restore

    def close(self) -> None:
        """Release nothing: the env holds only numpy arrays."""
