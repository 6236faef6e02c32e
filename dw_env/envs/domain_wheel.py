"""The PettingZoo AEC environment class (``raw_env``); the documentation page is :mod:`dw_env.domain_wheel_v0`.

It owns one game's flat arrays, routes actions through the compiled env step
(:mod:`dw_env.envs.transition`) and writes observations with the compiled encoder
(:mod:`dw_env.envs.observation`). It holds no rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from numpy.typing import NDArray

from dw_env.engine import Game, IllegalActionError, initial_arrays, kernel_tables, new_workspace
from dw_env.envs.action_space import ActionSpace
from dw_env.envs.actions import frames_of
from dw_env.envs.handle import entries_for, new_env_handle
from dw_env.envs.observation import (
    CTRL_PHASE,
    CTRL_SELECTED,
    NUM_CTRL,
    OBS_HIGH,
    describe_observation,
    new_encoder_workspace,
)
from dw_env.envs.transition import SELECTED
from dw_env.info import NUM_PLAYERS, PLAYER_NAMES, check_truncation_reward
from dw_env.options import GameOptions
from dw_env.rules import layout as lay
from gamecore.aec import BoardGameAEC, as_action, check_reset_options, check_seed, game_metadata

AGENTS: tuple[str, ...] = tuple(f"player_{p}" for p in range(NUM_PLAYERS))
ENV_NAME = "domain_wheel_v0"


class raw_env(BoardGameAEC):  # noqa: N801 - PettingZoo's naming convention
    """Domain Wheel as a PettingZoo AEC environment, without wrappers (illegal actions raise).

    Keyword arguments: every :class:`dw_env.options.GameOptions` field, plus
    ``score_shaping`` (bool, default False), ``truncation_reward`` (float, default 0) and
    ``render_width`` (pixels of the ``rgb_array`` image, 200..4000, default 1000).
    """

    metadata: dict[str, Any] = game_metadata(ENV_NAME)

    def __init__(
        self,
        render_mode: str | None = None,
        *,
        score_shaping: bool = False,
        truncation_reward: float = 0.0,
        render_width: int = 1000,
        **options: Any,
    ) -> None:
        EzPickle.__init__(
            self,
            render_mode=render_mode,
            score_shaping=score_shaping,
            truncation_reward=truncation_reward,
            render_width=render_width,
            **options,
        )
        super().__init__()
        self._check_render_mode(render_mode)
        if not isinstance(score_shaping, bool):
            raise ValueError(f"score_shaping must be true or false, got {score_shaping!r}")
        from dw_env.render_image import check_width

        self.render_width = check_width(render_width, "render_width")
        self.score_shaping = score_shaping
        self.truncation_reward = check_truncation_reward(truncation_reward)
        self.options = GameOptions.from_dict(options)
        board, lands, scalars = initial_arrays(self.options)
        self._initial = (board, lands, scalars)
        self._board, self._lands, self._scalars = board.copy(), lands.copy(), scalars.copy()
        self._ctrl = np.array([0, -1], dtype=np.int32)
        assert self._ctrl.shape == (NUM_CTRL,)
        #: a read-only Game view of the env's arrays (for rendering and policies; do not play on it)
        self.game = Game(self.options, self._board, self._lands, self._scalars)
        self.geometry = self.game.geometry
        self.observation_layout = describe_observation(self.options)
        self._tables = kernel_tables(self.options)
        self._frames = frames_of(self.geometry).kernel_tables()
        self._work = new_workspace(self.geometry)
        self._enc_work = new_encoder_workspace(self.geometry.num_cells)
        self._reward_buf = np.zeros(NUM_PLAYERS, dtype=np.float64)
        self._num_actions = self.geometry.num_cells + 2
        size, n_act = self.observation_layout.size, self.observation_layout.mask_size
        self._obs = np.zeros(size, dtype=np.int8)  # the acting agent's observation, kept current
        self._mask = np.zeros(n_act, dtype=np.int8)
        self._viewer = -1  # whose observation _obs holds
        self._other_obs = np.zeros(size, dtype=np.int8)
        self._other_mask = np.zeros(n_act, dtype=np.int8)
        self._handle = new_env_handle(
            self._tables, self._frames, self._work, self._enc_work, self._board, self._lands, self._scalars,
            self._ctrl, self._reward_buf, self._obs, self._mask,
        )  # fmt: skip
        self._entries = entries_for(self._handle)  # the compiled step and encoder, bound once to these arrays

        observation = spaces.Box(low=0, high=OBS_HIGH, shape=(size,), dtype=np.int8)
        self._declare_spaces(AGENTS, observation, n_act, action_space=ActionSpace)  # one-pass masked sampling
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}

    # ---- env state -----------------------------------------------------------------------
    @property
    def phase(self) -> int:
        """Return 1 while the acting player chooses a piece, 2 while it chooses that piece's destination."""
        return int(self._ctrl[CTRL_PHASE]) + 1

    @property
    def selected_cell(self) -> int:
        """Return the map cell of the piece chosen in phase 1, or -1."""
        return int(self._ctrl[CTRL_SELECTED])

    def _encode(self, viewer: int, obs: NDArray[np.int8], mask: NDArray[np.int8]) -> None:
        self._entries.encode(self._handle, viewer, obs, mask)

    def _encode_current(self) -> None:
        self._viewer = int(self._scalars[lay.TURN])
        self._encode(self._viewer, self._obs, self._mask)

    def observe(self, agent: str) -> dict[str, NDArray[np.int8]]:
        """Return ``agent``'s observation and action mask (fresh arrays; see the module docs)."""
        viewer = self._seat[agent]
        if viewer == self._viewer:
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}
        self._encode(viewer, self._other_obs, self._other_mask)
        return {"observation": self._other_obs.copy(), "action_mask": self._other_mask.copy()}

    # ---- AEC protocol --------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (the rules have no randomness, so ``seed`` changes nothing).

        ``options={"position": game}`` starts from a :class:`dw_env.engine.Game` or a
        JSON position dict (``dw_env.position``) of the same game options; other keys
        are ignored, as PettingZoo's API test passes arbitrary ones.
        """
        check_seed(seed)
        start = check_reset_options(options).get("position")
        if start is None:
            board, lands, scalars = self._initial
        else:
            game = self._position_game(start)
            board, lands, scalars = game.board, game.lands, game.scalars
        self._board[:] = board
        self._lands[:] = lands
        self._scalars[:] = scalars
        self._ctrl[CTRL_PHASE] = 0
        self._ctrl[CTRL_SELECTED] = -1
        self._start(int(self._scalars[lay.TURN]))
        self._encode_current()

    def _position_game(self, start: Any) -> Game:
        if isinstance(start, dict):
            from dw_env import position

            start = position.from_dict(start)
        if not isinstance(start, Game):
            raise ValueError(f"reset option 'position' must be a Game or a position dict, got {type(start).__name__}")
        if start.options != self.options:
            raise ValueError(f"the position's options {start.options} differ from the env's {self.options}")
        if start.over:
            raise ValueError("the position is a finished game; an env cannot start from it")
        return start

    def step(self, action: Any) -> None:
        """Play one action of ``agent_selection`` (see the module docs); raises on an illegal action."""
        agent = self._acting_agent(action)
        if agent is None:
            return
        n = self._num_actions
        a = action if type(action) is int else as_action(action, n, ValueError, in_range=False)
        if not (0 <= a < n and self._mask[a]):
            raise IllegalActionError(self._explain_illegal(agent, a))
        self._cumulative_rewards[agent] = 0
        status = self._entries.step(self._handle, a, self.score_shaping, self.truncation_reward)
        if status < 0:  # the mask said legal but the engine refused: a bug, never the user's fault
            raise RuntimeError(f"engine refused masked-legal action {a} with code {status}")
        self._viewer = turn = int(self._scalars[lay.TURN])
        if status == SELECTED:  # choosing a piece changes nothing and earns nothing
            self._clear_rewards()
        else:
            r = self._reward_buf.tolist()
            self.rewards = dict(zip(self.possible_agents, r, strict=True))
            if self._scalars[lay.OVER]:
                self._finish()
        if not self.terminations[agent] and not self.truncations[agent]:
            self.agent_selection = self.possible_agents[turn]
        self._accumulate_rewards()
        self._show_if_human()

    def _explain_illegal(self, agent: str, a: int) -> str:
        c = self.geometry.num_cells
        allowed = [int(x) for x in np.flatnonzero(self._mask)]
        names = {c: f"{c} (pass)", c + 1: f"{c + 1} (end request)"}
        shown = ", ".join(names.get(x, str(x)) for x in allowed[:40]) + (" ..." if len(allowed) > 40 else "")
        who = f"{agent} ({PLAYER_NAMES[self._seat[agent]]})"
        if not 0 <= a < c + 2:
            what = f"action {a} is out of range for {who}; the action space is Discrete({c + 2})"
        elif self.phase == 1:
            what = (
                f"action {names.get(a, a)} is not legal for {who} in phase 1 (choose a piece with a legal move, "
                f"pass, or request the end when allowed by rule 9.3)"
            )
        else:
            sel = self.geometry.cell_coord(self.selected_cell)
            what = (
                f"action {names.get(a, a)} is not legal for {who} in phase 2 (choose a destination of the piece "
                f"selected on map cell {sel}; pass and end request are not allowed in phase 2)"
            )
        return f"{what}; allowed actions: {shown}"

    def _finish(self) -> None:
        truncated = self.game.truncated
        scores = self.game.scores()
        info: dict[str, Any] = {
            "end_reason": self.game.end_reason,
            "scores": {a: scores[p] for p, a in enumerate(self.possible_agents)},
            "round": self.game.round,
        }
        if truncated:
            info["leaders"] = [self.possible_agents[p] for p in self.game.leaders()]
        else:
            info["winners"] = [self.possible_agents[p] for p in self.game.winners]
        self._end_game(truncated, info)

    # ---- rendering -----------------------------------------------------------------------
    def _phase_marks(self) -> tuple[int, list[int]]:
        """Return (selected map cell or -1, its legal destination map cells) for the renderers."""
        if self.phase != 2:
            return -1, []
        cells, _ = self.game.destination_cells(self.selected_cell)
        return self.selected_cell, [int(x) for x in cells]

    def _render_image(self) -> NDArray[np.uint8]:
        from dw_env.render_image import render_image

        selected, dests = self._phase_marks()
        return render_image(self.game, width=self.render_width, selected=selected, destinations=dests)

    def _render_text(self) -> str:
        from dw_env.render_text import render

        selected, dests = self._phase_marks()
        text = render(self.game, marks=dict.fromkeys(dests, "*"))
        if selected >= 0:
            text += f"phase 2: the piece on {self.geometry.cell_coord(selected)} is chosen; * marks its destinations\n"
        return text
