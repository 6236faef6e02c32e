"""Batched vector env: N games stepped per call by one compiled kernel, numpy arrays in and out.

Each call runs every game in one numba call (``prange`` over thread chunks, ``nogil``, one
engine workspace per thread), using the same env step and observation kernels as the AEC
env, so for the same actions both produce identical trajectories. Finished games reset
automatically. Example::

    venv = DomainWheelVectorEnv(256, num_threads=2, seed=0)
    obs, masks, acting = venv.reset()
    for _ in range(1000):
        actions = venv.sample_actions()          # or your policy, restricted by masks
        obs, masks, acting, rewards, terminated, truncated, infos = venv.step(actions)

Outputs of ``reset`` / ``step``:

* ``obs`` int8 ``[N, D]``: the observation of the player to act (layout ``dw-obs-v1``,
  :mod:`dw_env.envs.observation`); with ``packed_observations=True`` uint8 ``[N, P]``, the same
  observation with its 0/1 positions as bits (:mod:`dw_env.envs.packed`; ``env.packing.unpack`` gives
  ``dw-obs-v1`` back, and :mod:`policies.packed_input` unpacks on the network's device).
  ``masks`` int8 ``[N, C+2]``: its action mask (never packed).
* ``acting`` int32 ``[N]``: the seat to act (0 Blue, 1 Green, 2 Red); actions are in its frame.
* ``rewards`` float32 ``[N, 3]``: this step's reward of each seat (same rules as the AEC env).
* ``terminated`` / ``truncated`` bool ``[N]``: the game ended by a rule / by ``max_rounds``;
  that row of ``obs``/``masks``/``acting`` already belongs to the next game.
* ``infos``: arrays valid on the rows that ended: ``final_scores`` int32 ``[N, 3]``,
  ``winners`` int8 ``[N, 3]`` (1 for each winner; all 0 on truncation, where the leaders
  are the top ``final_scores``), ``end_reason`` int8 ``[N]`` (``layout.END_*``),
  ``final_round`` int32 ``[N]``, ``episode_steps`` int32 ``[N]`` (env steps of the game).

With ``copy=True`` (default) every returned array is fresh: each call's kernel writes into new
arrays, so nothing is copied after the parallel step (only the masks, which the env keeps to
check the next actions); ``copy=False`` returns the env's own buffers, valid until the next
call (when the caller copies into a rollout buffer anyway).

Threads: one chunk of consecutive games per thread, each with its own engine workspace; a game
is a few tens of µs of work, so the chunks are long and the only serial parts of a call are
numba's dispatch (about 15 µs) and the action check (numpy, O(N)). :meth:`sample_actions` is
split over the same threads. With N games on T threads, each thread gets N / T games: the call
scales while N / T stays above a few games (the OpenMP wake-up of a thread is ~10-50 µs).

The first use on a fresh checkout compiles the batched kernels (about 20 s of CPU); numba
caches them in ``__pycache__`` for later runs. Threads run with ``OMP_WAIT_POLICY=PASSIVE``
unless the user set it, because spinning OpenMP workers starve the games on a busy machine.
"""

from __future__ import annotations

import os
from typing import Any

import numba
import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from dw_env.engine import Game, initial_arrays, kernel_tables, new_workspace
from dw_env.envs.actions import frames_of
from dw_env.envs.observation import (
    CTRL_PHASE,
    CTRL_SELECTED,
    NUM_CTRL,
    describe_observation,
    encode_observation,
    new_encoder_workspace,
)
from dw_env.envs.packed import observation_packing
from dw_env.envs.transition import env_step
from dw_env.errors import brief
from dw_env.info import NUM_PLAYERS, check_truncation_reward
from dw_env.options import GameOptions
from dw_env.rules.layout import END_REASON, END_TRUNCATION, OVER, ROUND, TURN, WINNERS
from dw_env.rules.territory import score
from gamecore.vector_checks import MAX_ENVS, check_action_batch, check_count, shown, thread_limit

# OpenMP worker threads spin between parallel regions by default; on a shared or oversubscribed
# machine the spinning steals the cores the games need (10x slower with 2 threads measured).
# Must be set before numba first starts its OpenMP pool; a value set by the user wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


@njit(cache=True, nogil=True)
def _reset_game(board, lands, scalars, ctrl, init_board, init_lands, init_scalars):  # type: ignore[no-untyped-def]
    board[:] = init_board
    lands[:, :] = init_lands
    scalars[:] = init_scalars
    ctrl[CTRL_PHASE] = 0
    ctrl[CTRL_SELECTED] = -1


@njit(cache=True, nogil=True)
def _workspaces(ws, xs, t):  # type: ignore[no-untyped-def]
    """Return thread ``t``'s engine workspace ``W`` and encoder workspace ``X`` (views of the stacks)."""
    W = (ws[0][t], ws[1][t], ws[2][t], ws[3][t], ws[4][t], ws[5][t], ws[6][t], ws[7][t], ws[8][t])
    return W, (xs[0][t], xs[1][t], xs[2][t])


@njit(cache=True, nogil=True)
def _chunk(G, F, state, actions, init, W, X, rbuf, shaping, truncation_reward, out, lo, hi, reset):  # type: ignore[no-untyped-def]
    """Reset (``reset``) or step games ``lo..hi-1``; return how many actions the engine refused."""
    boards, lands, scalars, ctrls, steps = state
    obs, masks, acting, rewards, terminated, truncated, final_scores, winners, end_reason, final_round, ep_steps = out
    refused = 0
    for i in range(lo, hi):
        b, land, s, c = boards[i], lands[i], scalars[i], ctrls[i]
        for q in range(3):
            rewards[i, q] = 0.0
            final_scores[i, q] = 0
            winners[i, q] = 0
        terminated[i] = False
        truncated[i] = False
        end_reason[i] = 0
        final_round[i] = 0
        ep_steps[i] = 0
        if reset:
            _reset_game(b, land, s, c, init[0], init[1], init[2])
            steps[i] = 0
        else:
            if env_step(G, F, b, land, s, c, int(actions[i]), W, shaping, truncation_reward, rbuf) < 0:
                refused += 1
            steps[i] += 1
            for q in range(3):
                rewards[i, q] = rbuf[q]
            if s[OVER] == 1:
                truncated[i] = s[END_REASON] == END_TRUNCATION
                terminated[i] = not truncated[i]
                for q in range(3):
                    final_scores[i, q] = score(G, land, q)
                    winners[i, q] = (s[WINNERS] >> q) & 1
                end_reason[i] = s[END_REASON]
                final_round[i] = s[ROUND]
                ep_steps[i] = steps[i]
                steps[i] = 0
                _reset_game(b, land, s, c, init[0], init[1], init[2])
        acting[i] = s[TURN]
        # int64 viewer, as from Python: the AEC env and this loop share one compiled encoder
        encode_observation(G, F, b, land, s, c, int(acting[i]), W, X, obs[i], masks[i])
    return refused


@njit(cache=True, nogil=True, parallel=True)
def run_batch(G, F, state, actions, init, ws, xs, rbufs, shaping, truncation_reward, out, nthreads, reset):  # type: ignore[no-untyped-def]
    """Reset or step every game (one chunk per thread); reset finished games; write the outputs ``out``.

    ``state`` is (boards, lands, scalars, ctrls, steps); ``out`` is (obs, masks, acting,
    rewards, terminated, truncated, final_scores, winners, end_reason, final_round,
    episode_steps); ``actions`` must be legal under the masks. Returns the number of games
    whose engine refused the action (0 unless there is a bug).
    """
    n = actions.shape[0]
    refused = 0
    for t in prange(nthreads):
        W, X = _workspaces(ws, xs, t)
        lo, hi = t * n // nthreads, (t + 1) * n // nthreads
        refused += _chunk(G, F, state, actions, init, W, X, rbufs[t], shaping, truncation_reward, out, lo, hi, reset)
    return refused


@njit(cache=True, nogil=True)
def _sample_rows(masks, uniform, out, lo, hi):  # type: ignore[no-untyped-def]
    for i in range(lo, hi):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        k = min(int(uniform[i] * count), count - 1)
        out[i] = -1
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


@njit(cache=True, nogil=True, parallel=True)
def sample_masked(masks, uniform, out, nthreads=1):  # type: ignore[no-untyped-def]
    """Write into ``out[i]`` a uniformly chosen action allowed by ``masks[i]`` (``uniform`` in [0, 1)).

    The games are split into ``nthreads`` chunks, one per thread, as in :func:`run_batch`; the choice of a
    game depends only on its own mask and draw, so the result does not depend on ``nthreads``.
    """
    n = masks.shape[0]
    for t in prange(nthreads):
        _sample_rows(masks, uniform, out, t * n // nthreads, (t + 1) * n // nthreads)


def _options(options: GameOptions | dict[str, Any] | None) -> GameOptions:
    if options is None:
        return GameOptions()
    if isinstance(options, GameOptions):
        return options
    return GameOptions.from_dict(options)


class DomainWheelVectorEnv:
    """``num_envs`` games of Domain Wheel stepped together (see the module docstring)."""

    def __init__(
        self,
        num_envs: int,
        options: GameOptions | dict[str, Any] | None = None,
        num_threads: int = 1,
        seed: int | None = None,
        *,
        score_shaping: bool = False,
        truncation_reward: float = 0.0,
        copy: bool = True,
        packed_observations: bool = False,
    ) -> None:
        self.num_envs = n = check_count("num_envs", num_envs, MAX_ENVS)
        self.num_threads = check_count("num_threads", num_threads, thread_limit())
        if not isinstance(score_shaping, bool):
            raise ValueError(f"score_shaping must be true or false, got {score_shaping!r}")
        if not isinstance(packed_observations, bool):
            raise ValueError(f"packed_observations must be true or false, got {brief(packed_observations)}")
        self.options = _options(options)
        self.score_shaping = score_shaping
        self.truncation_reward = check_truncation_reward(truncation_reward)
        self.copy = bool(copy)
        self.rng = np.random.default_rng(seed)
        self.geometry = g = Game.new(self.options).geometry
        self.observation_layout = layout = describe_observation(self.options)
        self.num_actions = layout.mask_size
        self.observation_size = layout.size
        #: the packing of the observations returned (None: plain ``dw-obs-v1`` int8)
        self.packing = observation_packing(self.options) if packed_observations else None
        self._tables = kernel_tables(self.options)
        self._frames = frames_of(g).kernel_tables()
        self._init = initial_arrays(self.options)
        b, lands, s = self._init
        self._boards = np.repeat(b[None], n, axis=0)
        self._lands = np.repeat(lands[None], n, axis=0)
        self._scalars = np.repeat(s[None], n, axis=0)
        self._ctrls = np.zeros((n, NUM_CTRL), dtype=np.int32)
        t = self.num_threads
        per_thread = [new_workspace(g) for _ in range(t)]
        self._ws = tuple(np.stack([w[k] for w in per_thread]) for k in range(len(per_thread[0])))
        enc = [new_encoder_workspace(g.num_cells) for _ in range(t)]
        self._xs = tuple(np.stack([x[k] for x in enc]) for k in range(len(enc[0])))
        self._rbufs = np.zeros((t, NUM_PLAYERS), dtype=np.float64)
        self._steps = np.zeros(n, dtype=np.int32)
        self._actions = np.zeros(n, dtype=np.int32)
        self._allocate_outputs()
        self._has_reset = False

    def _allocate_outputs(self) -> None:
        """Give every output its own new array (the kernel writes every element of every output)."""
        n, layout = self.num_envs, self.observation_layout
        if self.packing is not None:  # the int8 observations are the packer's input only: allocated once
            self._packed = np.empty((n, self.packing.packed_size), dtype=np.uint8)
        if self.packing is None or not hasattr(self, "_obs"):
            self._obs = np.empty((n, layout.size), dtype=np.int8)
        self._masks = np.empty((n, layout.mask_size), dtype=np.int8)
        self._acting = np.empty(n, dtype=np.int32)
        self._rewards = np.empty((n, NUM_PLAYERS), dtype=np.float32)
        self._terminated = np.empty(n, dtype=np.bool_)
        self._truncated = np.empty(n, dtype=np.bool_)
        self._final_scores = np.empty((n, NUM_PLAYERS), dtype=np.int32)
        self._winners = np.empty((n, NUM_PLAYERS), dtype=np.int8)
        self._end_reason = np.empty(n, dtype=np.int8)
        self._final_round = np.empty(n, dtype=np.int32)
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
            self._final_round,
            self._episode_steps,
        )

    def _run(self, reset: bool) -> int:
        # copy=True: the kernel writes into new arrays, so the outputs need no copy afterwards (a copy is a
        # serial pass over N x D bytes after the parallel step; first touching new pages happens in the
        # worker threads instead)
        if self.copy and self._has_reset:
            self._allocate_outputs()
        numba.set_num_threads(self.num_threads)
        refused = int(
            run_batch(
                self._tables,
                self._frames,
                (self._boards, self._lands, self._scalars, self._ctrls, self._steps),
                self._actions,
                self._init,
                self._ws,
                self._xs,
                self._rbufs,
                self.score_shaping,
                self.truncation_reward,
                self._outputs,
                self.num_threads,
                reset,
            )
        )
        if self.packing is not None and self.packing.pack_into(self._obs, self._packed, self.num_threads):
            raise RuntimeError(
                "an observation held a value other than 0/1 at a binary position (a bug; please report it)"
            )
        return refused

    def _observations(self) -> NDArray[Any]:
        return self._obs if self.packing is None else self._packed

    def reset(self, seed: int | None = None) -> tuple[NDArray[Any], NDArray[np.int8], NDArray[np.int32]]:
        """Start every game afresh; return (obs [N, D] or packed [N, P], masks [N, C+2], acting [N]).

        The rules have no randomness; ``seed`` reseeds :meth:`sample_actions`.
        """
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self._run(reset=True)
        self._has_reset = True
        return self._observations(), self._returned(self._masks), self._acting

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
            "final_round": self._final_round,
            "episode_steps": self._episode_steps,
        }
        masks = self._returned(self._masks)
        return self._observations(), masks, self._acting, self._rewards, self._terminated, self._truncated, infos

    def _returned(self, masks: NDArray[np.int8]) -> NDArray[np.int8]:
        # the env checks the next actions against its masks: the caller gets its own copy (N x (C+2) bytes)
        return masks.copy() if self.copy else masks

    def _check_actions(self, actions: Any) -> None:
        self._actions[:] = check_action_batch(actions, self._masks, self._explain_illegal)

    def _explain_illegal(self, i: int, action: int) -> str:
        phase = int(self._ctrls[i, CTRL_PHASE]) + 1
        return (
            f"action {action} of env {i} is not legal in phase {phase} "
            f"({'choose a piece, pass or end request' if phase == 1 else 'choose a destination'}); "
            f"allowed: {shown(self._masks[i], 40)} (no game was stepped)"
        )

    def sample_actions(self) -> NDArray[np.int32]:
        """Return a uniformly random legal action for every game (seeded by ``seed``)."""
        out = np.empty(self.num_envs, dtype=np.int32)
        numba.set_num_threads(self.num_threads)
        sample_masked(self._masks, self.rng.random(self.num_envs), out, self.num_threads)
        return out

    def phase(self) -> NDArray[np.int32]:
        """Return each game's phase: 1 choose a piece, 2 choose its destination."""
        return self._ctrls[:, CTRL_PHASE] + 1

    def game(self, i: int) -> Game:
        """Return a copy of game ``i`` as an engine :class:`Game` (for inspection and rendering)."""
        if isinstance(i, bool | np.bool_) or not isinstance(i, int | np.integer) or not 0 <= i < self.num_envs:
            raise ValueError(f"env index must be an integer in 0..{self.num_envs - 1}, got {brief(i)}")
        return Game.of_checked_arrays(  # the env's state: a checked Game.new's arrays, advanced by the kernels
            self.options, self.geometry, self._boards[i].copy(), self._lands[i].copy(), self._scalars[i].copy()
        )

    def state_arrays(self, slots: Any) -> tuple[NDArray[np.int8], NDArray[np.int16], NDArray[np.int32]]:
        """Return copies of the games ``slots``'s state arrays, stacked: (boards, lands, scalars).

        Row ``j`` is game ``slots[j]`` as :meth:`game` would build it with :meth:`Game.of_checked_arrays`; three
        arrays are cheaper to send to another process than a game each (training/ppo/scripted_processes.py).
        """
        idx = np.asarray(slots)
        if idx.ndim != 1 or not (idx.size == 0 or np.issubdtype(idx.dtype, np.integer)):
            raise ValueError(f"slots must be a 1-d array of env indices, got {brief(slots)}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_envs):
            raise ValueError(f"env indices must be in 0..{self.num_envs - 1}, got {brief(slots)}")
        idx = idx.astype(np.int64)
        return self._boards[idx], self._lands[idx], self._scalars[idx]

    def close(self) -> None:
        """Release nothing: the env holds only numpy arrays."""
