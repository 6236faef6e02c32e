"""Batched vector env: N Conquer games stepped per call by one compiled kernel, numpy arrays in and out.

Same API as ``dw_env.envs.vector.DomainWheelVectorEnv``, so the trainer drives it unchanged::

    venv = ConquerVectorEnv(256, options=ConquerOptions.preset("small"), seed=0)
    obs, masks, acting = venv.reset()
    for _ in range(1000):
        obs, masks, acting, rewards, terminated, truncated, infos = venv.step(venv.sample_actions())

* ``obs`` int8 ``[N, D]`` and ``masks`` int8 ``[N, A]``: the acting seat's encoding (``conquer_env.encoding``);
  ``acting`` int32 ``[N]``: the seat to act (0 Red, 1 Blue). Actions are absolute.
* ``rewards`` float32 ``[N, 2]``: +1 win / -1 loss at the end (rule R-10.4), 0 on draws, truncations and
  every other step. ``terminated`` / ``truncated`` bool ``[N]``: ended by a rule / by ``max_plies``; that
  row of ``obs``/``masks``/``acting`` already belongs to the next game (auto-reset).
* ``infos`` (valid on the rows that ended): ``final_scores`` int32 ``[N, 2]`` (the game's scoring method),
  ``winners`` int8 ``[N, 2]``, ``end_reason`` int8 ``[N]`` (index into ``END_REASONS``),
  ``episode_steps`` int32 ``[N]``.

Each call is one numba call over the rows (``prange`` over thread chunks, one flood workspace per
thread); a placement costs a bounded local flood (``conquer_env.kernels``), not a board rescan.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from conquer_env import kernels
from conquer_env.encoding import num_actions, observation_size
from conquer_env.engine import NUM_PLAYERS, ConquerGame, check_state, initial_arrays
from conquer_env.errors import brief
from conquer_env.layout import END_REASON, END_TRUNCATED, OVER, PLY, TO_MOVE
from conquer_env.options import ConquerOptions
from gamecore.vector_checks import MAX_ENVS, check_action_batch, check_count, shown

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__all__ = ["ConquerVectorEnv"]


@njit(cache=True, nogil=True)
def _chunk(width, height, dots, owner, scalars, actions, init, territory, ws, out, lo, hi, reset):  # type: ignore[no-untyped-def]
    init_dots, init_owner, init_scalars = init
    stamp, control, queue = ws
    obs, masks, acting, rewards, terminated, truncated, final_scores, winners, end_reason, steps = out
    score = np.zeros(2, np.int32)
    for i in range(lo, hi):
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        terminated[i] = False
        truncated[i] = False
        if reset:
            dots[i, :] = init_dots
            owner[i, :] = init_owner
            scalars[i, :] = init_scalars
        else:
            sc = scalars[i]
            kernels.apply_action(width, height, dots[i], owner[i], sc, actions[i], stamp, control, queue)
            if sc[OVER]:
                kernels.scores(dots[i], owner[i], territory, score)
                final_scores[i, 0] = score[0]
                final_scores[i, 1] = score[1]
                end_reason[i] = sc[END_REASON]
                steps[i] = sc[PLY]
                winners[i, 0] = 0
                winners[i, 1] = 0
                if sc[END_REASON] == END_TRUNCATED:
                    truncated[i] = True
                else:
                    terminated[i] = True
                    if score[0] != score[1]:
                        w = 0 if score[0] > score[1] else 1
                        winners[i, w] = 1
                        rewards[i, w] = 1.0
                        rewards[i, 1 - w] = -1.0
                dots[i, :] = init_dots
                owner[i, :] = init_owner
                scalars[i, :] = init_scalars
        kernels.encode(dots[i], owner[i], scalars[i], obs[i], masks[i])
        acting[i] = scalars[i, TO_MOVE]


@njit(cache=True, nogil=True, parallel=True)
def _run(  # type: ignore[no-untyped-def]
    width, height, dots, owner, scalars, actions, init, territory, stamps, controls, queues, out, nthreads, reset
):
    n = dots.shape[0]
    per = (n + nthreads - 1) // nthreads
    for t in prange(nthreads):
        lo = t * per
        hi = min(n, lo + per)
        if lo < hi:
            ws = (stamps[t], controls[t], queues[t])
            _chunk(width, height, dots, owner, scalars, actions, init, territory, ws, out, lo, hi, reset)


@njit(cache=True, nogil=True)
def _sample(masks, uniform, out):  # type: ignore[no-untyped-def]
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        k = min(int(uniform[i] * count), count - 1)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


class ConquerVectorEnv:
    """N Conquer games in lock-step arrays (see the module docs)."""

    #: the outputs' names in the tuple the kernels write (``_out.k``), as the other games' envs name them
    OUTPUT_NAMES: dict[str, str] = {
        "_out.0": "_obs",
        "_out.1": "_masks",
        "_out.2": "_acting",
        "_out.3": "_rewards",
        "_out.4": "_terminated",
        "_out.5": "_truncated",
        "_out.6": "_final_scores",
        "_out.7": "_winners",
        "_out.8": "_end_reason",
        "_out.9": "_episode_steps",
    }

    def __init__(
        self,
        num_envs: int,
        options: ConquerOptions | dict[str, Any] | None = None,
        num_threads: int = 1,
        seed: int | None = None,
        copy: bool = True,
    ) -> None:
        self.num_envs = check_count("num_envs", num_envs, MAX_ENVS)
        self.num_threads = min(check_count("num_threads", num_threads, 256), self.num_envs)
        if options is None:
            options = ConquerOptions()
        elif isinstance(options, dict):
            options = ConquerOptions.from_dict(options)
        elif not isinstance(options, ConquerOptions):
            raise ValueError(f"options must be ConquerOptions, a dict or None, got {type(options).__name__}")
        self.options = options
        self.num_players = NUM_PLAYERS
        self.copy = bool(copy)
        self.rng = np.random.default_rng(seed)
        n, p, t = self.num_envs, options.num_points, self.num_threads
        self.observation_size = observation_size(options)
        self.num_actions = num_actions(options)
        self._init = initial_arrays(options)
        self._dots = np.zeros((n, p), np.int8)
        self._owner = np.zeros((n, p), np.int8)
        self._scalars = np.zeros((n, len(self._init[2])), np.int32)
        workspaces = [kernels.new_workspace(p) for _ in range(t)]
        self._stamps, self._controls, self._queues = (np.stack([w[k] for w in workspaces]) for k in range(3))
        self._actions = np.zeros(n, np.int64)
        self._territory = options.scoring == "territory"
        self._masks = np.zeros((n, self.num_actions), np.int8)
        self._out: tuple[Any, ...] = ()
        self._started = False

    def _outputs(self) -> tuple[Any, ...]:
        n = self.num_envs
        if self.copy or not self._out:
            self._out = (
                np.zeros((n, self.observation_size), np.int8),
                np.zeros((n, self.num_actions), np.int8),
                np.zeros(n, np.int32),
                np.zeros((n, NUM_PLAYERS), np.float32),
                np.zeros(n, np.bool_),
                np.zeros(n, np.bool_),
                np.zeros((n, NUM_PLAYERS), np.int32),
                np.zeros((n, NUM_PLAYERS), np.int8),
                np.full(n, -1, np.int8),
                np.zeros(n, np.int32),
            )
        return self._out

    def _call(self, reset: bool) -> tuple[Any, ...]:
        out = self._outputs()
        w, h = self.options.width, self.options.height
        _run(
            w, h, self._dots, self._owner, self._scalars, self._actions, self._init, self._territory,
            self._stamps, self._controls, self._queues, out, self.num_threads, reset,
        )  # fmt: skip
        self._masks[:] = out[1]
        return out

    def reset(self, seed: int | None = None) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.int32]]:
        """Start every game afresh; return (obs, masks, acting). ``seed`` reseeds :meth:`sample_actions`."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        out = self._call(reset=True)
        self._started = True
        return out[0], out[1], out[2]

    def step(self, actions: Any) -> tuple[Any, ...]:
        """Apply one action per row; return (obs, masks, acting, rewards, terminated, truncated, infos)."""
        self._check_actions(actions)
        out = self._call(reset=False)
        obs, masks, acting, rewards, terminated, truncated, final_scores, winners, end_reason, steps = out
        infos = {"final_scores": final_scores, "winners": winners, "end_reason": end_reason, "episode_steps": steps}
        return obs, masks, acting, rewards, terminated, truncated, infos

    def _check_actions(self, actions: Any) -> None:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        self._actions[:] = check_action_batch(actions, self._masks, self._explain_illegal)

    def _explain_illegal(self, i: int, action: int) -> str:
        return (
            f"row {i}: action {action} is illegal (occupied, sealed or out of range, rule R-3.3); "
            f"allowed there: {shown(self._masks[i], 20)}; nothing was stepped"
        )

    def sample_actions(self) -> NDArray[np.int32]:
        """Return one uniformly random legal action per row."""
        out = np.zeros(self.num_envs, np.int32)
        _sample(self._masks, self.rng.random(self.num_envs), out)
        return out

    def observe_state(self, saved: Mapping[str, Any]) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.int32]]:
        """Return (obs, masks, acting) the env shows for saved game arrays that :meth:`check_state` accepted.

        What a resumed run restores as the env's last outputs must be these (``dw train --resume``). ValueError
        naming the slot if one holds a finished game: a slot always holds a game in progress (a finished one
        restarts in the step that ends it).
        """
        dots, owner, scalars = saved["_dots"], saved["_owner"], saved["_scalars"]
        n = len(dots)
        obs = np.zeros((n, self.observation_size), np.int8)
        masks = np.zeros((n, self.num_actions), np.int8)
        acting = np.zeros(n, np.int32)
        for i in range(n):
            if scalars[i, OVER]:
                raise ValueError(f"game slot {i} holds a finished game; a slot's game is in progress")
            kernels.encode(dots[i], owner[i], scalars[i], obs[i], masks[i])
            acting[i] = scalars[i, TO_MOVE]
        return obs, masks, acting

    def check_state(self, saved: Mapping[str, Any]) -> None:
        """Raise ValueError naming the slot unless saved game arrays are states the kernels may run on.

        ``saved`` maps this env's array names to arrays read from a file (a training checkpoint's games in
        progress, which ``dw train --resume`` restores): ``_dots``, ``_owner`` and ``_scalars``, one row per
        slot. Every value the kernels index with is checked: colour codes, no territory on the border, the
        player to move, the passes, the ending, the ply against the options' limit and the free-point count.
        """
        if all(f"_init.{k}" in saved for k in range(3)):  # the start position, as a one-slot batch
            try:
                self.check_state(
                    {
                        "_dots": saved["_init.0"][None],
                        "_owner": saved["_init.1"][None],
                        "_scalars": saved["_init.2"][None],
                    }
                )
            except ValueError as exc:
                raise ValueError(f"the start position: {exc}") from None
        if not all(name in saved for name in ("_dots", "_owner", "_scalars")):
            return
        dots, owner, scalars = saved["_dots"], saved["_owner"], saved["_scalars"]
        for i in range(len(dots)):
            try:
                check_state(self.options, dots[i], owner[i], scalars[i])
            except ValueError as exc:
                raise ValueError(f"game slot {i}: {exc}") from None

    def game(self, i: int) -> ConquerGame:
        """Return an independent engine copy of game ``i`` (what scripted seats act on)."""
        if isinstance(i, bool) or not isinstance(i, int | np.integer) or not 0 <= int(i) < self.num_envs:
            raise ValueError(f"game index must be an integer in 0..{self.num_envs - 1}, got {brief(i)}")
        k = int(i)
        dots, owner, scalars = self._dots[k].copy(), self._owner[k].copy(), self._scalars[k].copy()
        return ConquerGame.of_checked_arrays(self.options, dots, owner, scalars)  # checked on restore

    def close(self) -> None:
        """Release nothing: the env holds only arrays."""
