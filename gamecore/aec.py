"""PettingZoo AEC plumbing that every engine's ``raw_env`` shares, so each env module holds only its game.

:class:`BoardGameAEC` is the base of every game's ``raw_env``: render-mode check and ``render()`` dispatch,
the per-agent space dicts, the bookkeeping of a new game (``rewards``, ``_cumulative_rewards``,
``terminations``, ``truncations``, ``infos``, ``agent_selection``), the protocol errors of a step with no
agent to act, a done agent's dead step, the end of a game and ``close()``. A game supplies its spaces, its
step and ``_render_text`` / ``_render_image``. :func:`classic_wrappers` is PettingZoo's classic chain;
:func:`as_action`, :func:`check_seed` and :func:`check_reset_options` check what ``step`` and ``reset`` get,
with messages that name the value received (:func:`gamecore.errors.brief`) and what is allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from numpy.typing import NDArray
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECEnv

from gamecore.errors import brief

__all__ = ["BoardGameAEC", "as_action", "check_reset_options", "check_seed", "classic_wrappers", "game_metadata"]


def game_metadata(name: str, render_modes: Sequence[str] = ("human", "ansi", "rgb_array")) -> dict[str, Any]:
    """Return the ``metadata`` dict of a classic board-game env named ``name`` (versioned, e.g. ``"conquer_v0"``)."""
    return {"render_modes": list(render_modes), "name": name, "is_parallelizable": False, "render_fps": 2}


def classic_wrappers(environment: AECEnv) -> AECEnv:
    """Return ``environment`` in PettingZoo's classic chain: an illegal action scores -1 and ends the game."""
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    wrapped: AECEnv = wrappers.OrderEnforcingWrapper(environment)
    return wrapped


def as_action(action: Any, n: int, refuse: Callable[[str], Exception], *, in_range: bool = True) -> int:
    """Return ``action`` as a Python int in ``0..n-1``; raise ``refuse(message)`` if it is not one.

    A one-element integer array counts as its element (what a policy's ``sample`` returns). With
    ``in_range=False`` an integer out of range is returned as it is, for the env to explain by its rules.
    """
    if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
        action = action.reshape(-1)[0]
    if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
        raise refuse(f"action must be an integer in 0..{n - 1}, got {brief(action)}")
    if in_range and not 0 <= int(action) < n:
        raise refuse(f"action {int(action)} is out of range; the action space is Discrete({n})")
    return int(action)


def check_seed(seed: Any, *, nonnegative: bool = False) -> None:
    """Raise ValueError unless ``seed`` is None or an integer (``>= 0`` where ``nonnegative``)."""
    if seed is None:
        return
    wrong = isinstance(seed, bool) or not isinstance(seed, int | np.integer) or (nonnegative and seed < 0)
    if wrong:
        raise ValueError(f"seed must be an integer{' >= 0' if nonnegative else ''} or None, got {brief(seed)}")


def check_reset_options(options: Any, example: str = "{'position': game}") -> dict[str, Any]:
    """Return ``reset``'s ``options`` as a dict (None: empty); ValueError unless it is a mapping."""
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict such as {example} or None, got {brief(options)}")
    return dict(options or {})


class BoardGameAEC(AECEnv, EzPickle):  # type: ignore[misc]  # AECEnv is untyped
    """The AEC protocol's bookkeeping for a turn-based board game; subclasses adapt their engine.

    A subclass sets ``metadata`` (:func:`game_metadata`), calls :meth:`_check_render_mode` and
    :meth:`_declare_spaces` in ``__init__``, :meth:`_start` at the end of ``reset``, :meth:`_acting_agent`
    at the start of ``step`` and :meth:`_end_game` when its game ends; it implements ``_render_text`` and,
    if it offers ``rgb_array``, ``_render_image``.
    """

    metadata: dict[str, Any] = game_metadata("board_game_v0")
    render_mode: str | None = None

    # ---- construction --------------------------------------------------------------------------------
    def _check_render_mode(self, render_mode: str | None) -> None:
        """Set ``render_mode``; ValueError naming the value and the modes allowed if it is not one of them."""
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode {brief(render_mode)} is not supported; allowed: None, {modes}")
        self.render_mode = render_mode

    def _declare_spaces(
        self,
        agents: Sequence[str],
        observation: spaces.Box,
        num_actions: int,
        action_space: Callable[[int], spaces.Discrete] = spaces.Discrete,
    ) -> None:
        """Set ``possible_agents``, ``agents`` and every agent's ``Discrete(num_actions)`` and observation dict.

        ``action_space`` builds the action space (a ``Discrete`` subclass, e.g. one that samples a mask faster).
        """
        self.possible_agents = list(agents)
        self.agents = self.possible_agents[:]
        self.action_spaces = {a: action_space(num_actions) for a in self.possible_agents}
        mask = spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation, "action_mask": mask}) for a in self.possible_agents
        }

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ---- the protocol --------------------------------------------------------------------------------
    def _start(self, to_act: int, info: Mapping[str, Any] | None = None) -> None:
        """Reset the per-agent bookkeeping of a new game whose seat ``to_act`` acts first (each ``info`` a copy)."""
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: dict(info or {}) for a in self.agents}
        self.agent_selection = self.possible_agents[to_act]

    def _acting_agent(self, action: Any) -> str | None:
        """Return the agent whose action ``step`` plays, or None once a done agent's dead step removed it.

        RuntimeError before ``reset()`` and after every agent has been removed (nobody is left to act).
        """
        try:
            agent: str = self.agent_selection
            done = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):
            raise self._protocol_error() from None
        if done:
            self._was_dead_step(action)
            return None
        return agent

    def _protocol_error(self) -> RuntimeError:
        """Return the error for a step with no agent to act: before reset(), or after every agent is done."""
        if not hasattr(self, "terminations"):
            return RuntimeError("call reset() before step()")
        return RuntimeError(
            "the game is over and every agent has been removed (each done agent's step(None) removes it, "
            "PettingZoo's AEC convention); call reset() to start a new game"
        )

    def _end_game(self, truncated: bool, info: Mapping[str, Any]) -> None:
        """Mark every agent terminated (a rule ended the game) or truncated, each with a copy of ``info``."""
        self.terminations = dict.fromkeys(self.agents, not truncated)
        self.truncations = dict.fromkeys(self.agents, truncated)
        self.infos = {a: dict(info) for a in self.agents}

    def _show_if_human(self) -> None:
        """Print the board after a step in ``human`` mode (PettingZoo renders human mode on every step)."""
        if self.render_mode == "human":
            self.render()

    # ---- rendering -----------------------------------------------------------------------------------
    def render(self) -> str | NDArray[np.uint8] | None:
        """Return the board as text ("ansi") or an RGB image ("rgb_array"), or print it ("human")."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return self._render_image()
        text = self._render_text()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def _render_text(self) -> str:
        raise NotImplementedError(f"{type(self).__name__} has no text rendering")

    def _render_image(self) -> NDArray[np.uint8]:
        raise NotImplementedError(f"{type(self).__name__} has no image rendering")

    def close(self) -> None:
        """Release nothing: the env holds no window or external resource."""
