"""A single-agent Gymnasium env: one seat learns, given policies play the other two seats.

The learner sees the AEC env's observation vector (``dw-obs-v1``) and acts with the same
two-phase actions; :meth:`SingleSeatEnv.action_masks` returns the legal actions, so
sb3-contrib's ``MaskablePPO`` trains on it unchanged::

    from sb3_contrib import MaskablePPO
    env = SingleSeatEnv(seat=0, land_radius=1, map_radius=2, max_rounds=30)
    MaskablePPO("MlpPolicy", env).learn(10_000)

Opponents are objects with ``act(game, seat) -> Move`` (``policies.Policy``: scripted AIs,
random play, networks, exported packages: ``policies.make_seat_policy(spec)``); by default both
play uniformly random legal moves (like ``policies.make("random")``). Between two
learner decisions the wrapper plays the opponents' moves through the AEC env (so they are
checked by the same mask), and the learner's reward is everything it earned meanwhile:
its share of the terminal reward when an opponent's move ends the game, plus shaping
rewards when ``score_shaping`` is on. Like the AEC env, it holds no rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from dw_env.engine import PASS_MOVE, Game, Move
from dw_env.envs.actions import move_to_actions
from dw_env.envs.domain_wheel import raw_env
from dw_env.envs.observation import OBS_HIGH
from dw_env.info import NUM_PLAYERS


class SingleSeatEnv(gymnasium.Env[NDArray[np.int8], int]):
    """Domain Wheel from one seat's point of view (see the module docstring).

    ``opponents``: ``None`` (random play), one policy for both other seats, a sequence of
    two policies (in turn order after the learner) or a mapping {seat: policy}. Other
    keyword arguments are the AEC env's (game options, ``score_shaping``,
    ``truncation_reward``, ``render_width``).
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        seat: int = 0,
        opponents: Any = None,
        render_mode: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        if isinstance(seat, bool) or seat not in range(NUM_PLAYERS):
            raise ValueError(f"seat must be 0 (Blue), 1 (Green) or 2 (Red), got {seat!r}")
        self.seat = seat
        self.env = raw_env(render_mode=render_mode, **env_kwargs)
        self.render_mode = render_mode
        self.agent = self.env.possible_agents[seat]
        self.opponents = self._seat_policies(opponents)
        layout = self.env.observation_layout
        self.observation_space = spaces.Box(low=0, high=OBS_HIGH, shape=(layout.size,), dtype=np.int8)
        self.action_space = spaces.Discrete(layout.mask_size)  # type: ignore[assignment]

    def _seat_policies(self, opponents: Any) -> dict[int, Any]:
        others = [(self.seat + k) % NUM_PLAYERS for k in (1, 2)]
        if opponents is None:
            return {q: _RandomMover() for q in others}
        if isinstance(opponents, Mapping):
            if sorted(opponents) != sorted(others):
                raise ValueError(f"opponents must map exactly the seats {others}, got {sorted(opponents)}")
            chosen = dict(opponents)
        elif isinstance(opponents, Sequence) and not isinstance(opponents, str):
            if len(opponents) != 2:
                raise ValueError(f"give two opponent policies (seats {others}), got {len(opponents)}")
            chosen = dict(zip(others, opponents, strict=True))
        else:
            chosen = {q: opponents for q in others}
        for q, policy in chosen.items():
            if not callable(getattr(policy, "act", None)):
                raise ValueError(f"the policy for seat {q} has no act(game, seat) method: {policy!r}")
        return chosen

    # ---- gymnasium API -------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.int8], dict[str, Any]]:
        """Start a game and play the opponents up to the learner's first decision."""
        super().reset(seed=seed)
        for q, policy in self.opponents.items():
            if hasattr(policy, "reset"):  # forget per-game plans; reseed when the episode is seeded
                policy.reset(seed=None if seed is None else seed + 1 + q)
        self.env.reset(options=options)
        self._play_opponents()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[NDArray[np.int8], float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the opponents' moves up to its next decision."""
        if self.env.game.over:
            raise RuntimeError("the game is over; call reset()")
        self.env.step(action)
        reward = self.env.rewards[self.agent]
        reward += self._play_opponents()
        over = self.env.game.over
        truncated = over and self.env.game.truncated
        return self._observation(), float(reward), over and not truncated, truncated, self._info()

    def action_masks(self) -> NDArray[np.bool_]:
        """Return the learner's legal actions as booleans (what MaskablePPO asks for)."""
        return self.env.observe(self.agent)["action_mask"].astype(bool)

    def render(self) -> Any:
        return self.env.render()

    def close(self) -> None:
        self.env.close()

    # ---- helpers -------------------------------------------------------------------------
    def _play_opponents(self) -> float:
        """Play the other seats until the learner is to act or the game ends; return the learner's rewards."""
        earned = 0.0
        game = self.env.game
        while not game.over and game.turn != self.seat:
            q = game.turn
            move = self.opponents[q].act(game, q)
            for a in move_to_actions(self.env.geometry, q, move):
                self.env.step(a)
                earned += self.env.rewards[self.agent]
        return earned

    def _observation(self) -> NDArray[np.int8]:
        return self.env.observe(self.agent)["observation"]

    def _info(self) -> dict[str, Any]:
        info = dict(self.env.infos.get(self.agent, {}))
        info["phase"] = self.env.phase
        return info


class _RandomMover:
    """The default opponent: a uniformly random legal move, passing only when none exists.

    The env stays in its room (it imports nothing from ``policies``); this is the same rule as
    ``policies.make("random")``.
    """

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, game: Game, seat: int) -> Move:
        moves = [Move(src, dst) for src in game.movable_pieces() for dst in game.destinations(src)]
        return moves[int(self.rng.integers(len(moves)))] if moves else PASS_MOVE
