"""
# Conquer

| Import             | `from conquer_env import conquer_v0`                      |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['player_0', 'player_1']`                        |
| Agents             | 2                                                         |
| Action Shape       | (1,)                                                      |
| Action Values      | Discrete(W * H + 1): Discrete(226) on 15 x 15             |
| Observation Shape  | (8 * W * H,): (1800,) on 15 x 15                          |
| Observation Values | [0, 1] (int8)                                             |

Conquer (Kepung Titik; Tochki, Kropki, Dots) is the dots-enclosure game: two players place dots
on the points of a square grid; closing an 8-connected ring of your live dots around at least
one live opponent dot captures every opponent dot inside and seals the inside as your territory
(rules: `shared/rules/conquer-spec.md`, usage: `docs/CONQUER.md`). The env holds no rule: every
transition, legality test and score comes from the compiled engine (`conquer_env.engine`).

### Agents

`player_0` is Red and moves first, `player_1` is Blue (rule R-2.3); they alternate.

### Arguments

``` python
conquer_v0.env(render_mode=None, width=15, height=15, scoring="dots", start="empty",
               max_plies=None, render_cell=32)
```

Every game option (`conquer_env.options.ConquerOptions`) is a keyword: `width`, `height`
(2..64 each: 9 x 9, 15 x 15 and 39 x 32 are the named presets; `size="9x9"` or `size="small"`
sets both), `scoring` (`"dots"` or
`"territory"`, rule R-10), `start` (`"empty"` or `"cross"`, rule R-2.2) and `max_plies` (the
truncation, not a rule). `render_cell` is the pixels between grid lines of the `rgb_array`
image (8..128). Unknown keywords and bad values raise `ValueError` naming them. `raw_env(...)`
takes the same arguments and has no wrappers.

### Action Space

`Discrete(W * H + 1)` in the absolute frame: action `y * W + x` places a dot on (x, y);
action `W * H` passes (rule R-3.1). Two passes in a row end the game (rule R-9.2).

### Observation Space

A dict `{"observation": int8 (8 * W * H,), "action_mask": int8 (W * H + 1,)}`: 8 planes of
H x W, plane-major, egocentric (layout `conquer-obs-v1`, `conquer_env.encoding`): own live
dots, opponent live dots, own dead dots, opponent dead dots, own territory, opponent
territory, "the opponent just passed", on board. The mask marks the empty, unsealed points
(rule R-3.3) and the pass (always legal while the game runs).

### Rewards

At the end, +1 to the winner and -1 to the loser under the game's scoring method (rule
R-10.4); 0 to both on a draw or a truncation. Every other step gives 0. The final `infos`
hold `end_reason`, both methods' `scores` and `winners`.

### Version History

* v0: initial release.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from numpy.typing import NDArray
from pettingzoo.utils.env import AECEnv

from conquer_env import kernels
from conquer_env.encoding import num_actions, observation_size
from conquer_env.engine import SEAT_NAMES, ConquerGame, initial_arrays, workspace
from conquer_env.errors import IllegalActionError, brief
from conquer_env.layout import OVER, TO_MOVE
from conquer_env.options import ConquerOptions
from gamecore.aec import BoardGameAEC, as_action, check_reset_options, check_seed, classic_wrappers, game_metadata

__all__ = ["env", "raw_env"]


class raw_env(BoardGameAEC):  # noqa: N801 - PettingZoo's naming convention
    """Conquer as a PettingZoo AEC environment, without wrappers (illegal actions raise IllegalActionError)."""

    metadata: dict[str, Any] = game_metadata("conquer_v0", ("ansi", "rgb_array"))

    def __init__(self, render_mode: str | None = None, render_cell: int = 32, **options: Any) -> None:
        EzPickle.__init__(self, render_mode=render_mode, render_cell=render_cell, **options)
        super().__init__()
        self._check_render_mode(render_mode)
        if isinstance(render_cell, bool) or not isinstance(render_cell, int) or not 8 <= render_cell <= 128:
            raise ValueError(f"render_cell must be an integer in 8..128, got {brief(render_cell)}")
        self.render_cell = render_cell
        self.options = ConquerOptions.from_dict(options)
        n_obs, n_act = observation_size(self.options), num_actions(self.options)
        self._declare_spaces(["player_0", "player_1"], spaces.Box(0, 1, (n_obs,), np.int8), n_act)
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.game = ConquerGame.new(self.options)
        self._obs = np.zeros(n_obs, np.int8)
        self._mask = np.zeros(n_act, np.int8)

    def observe(self, agent: str) -> dict[str, NDArray[np.int8]]:
        """Return ``agent``'s observation and action mask (fresh arrays; the mask is all 0 off turn)."""
        g = self.game
        if self._seat[agent] == g.turn:
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}
        scalars = g.scalars.copy()
        scalars[TO_MOVE] = self._seat[agent]
        scalars[OVER] = 1  # off turn: nothing is legal
        obs, mask = np.zeros_like(self._obs), np.zeros_like(self._mask)
        kernels.encode(g.dots, g.owner, scalars, obs, mask)
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game (the rules have no randomness, so ``seed`` changes nothing).

        ``options={"position": game}`` starts from a :class:`ConquerGame` (or a JSON position dict) with the
        env's options; other keys are ignored, as PettingZoo's API test passes arbitrary ones.
        """
        check_seed(seed)
        start = check_reset_options(options).get("position")
        if start is None:
            self.game = ConquerGame(self.options, *initial_arrays(self.options))
        else:
            self.game = self._position_game(start).copy()
        self._start(self.game.turn)
        self._encode()

    def _position_game(self, start: Any) -> ConquerGame:
        if isinstance(start, Mapping):
            from conquer_env import position

            start = position.from_dict(start)
        if not isinstance(start, ConquerGame):
            raise ValueError(f"reset option 'position' must be a ConquerGame or a position dict, got {brief(start)}")
        if start.options != self.options:
            raise ValueError(f"the position's options {start.options} differ from the env's {self.options}")
        if start.over:
            raise ValueError("the position is a finished game; an env cannot start from it")
        return start

    def _encode(self) -> None:
        kernels.encode(self.game.dots, self.game.owner, self.game.scalars, self._obs, self._mask)

    def step(self, action: Any) -> None:
        """Play one action of ``agent_selection``; IllegalActionError naming the action and the legal ones."""
        agent = self._acting_agent(action)
        if agent is None:
            return
        a = as_action(action, len(self._mask), lambda message: IllegalActionError(message, action))
        if not self._mask[a]:
            legal = np.flatnonzero(self._mask)
            shown = ", ".join(str(int(x)) for x in legal[:30]) + (" ..." if len(legal) > 30 else "")
            raise IllegalActionError(
                f"action {a} is not legal for {agent} ({SEAT_NAMES[self._seat[agent]]}): the point is occupied or"
                f" sealed (rule R-3.3); allowed actions: {shown} ({len(self._mask) - 1} = pass)",
                a,
            )
        self._cumulative_rewards[agent] = 0
        stamp, control, queue = workspace(self.options.num_points)
        g = self.game
        flags = kernels.apply_action(g.width, g.height, g.dots, g.owner, g.scalars, a, stamp, control, queue)
        if flags < 0:
            raise RuntimeError(f"engine refused masked-legal action {a} with code {flags}")
        self._encode()
        self._clear_rewards()
        if g.over:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[g.turn]
        self._accumulate_rewards()

    def _finish(self) -> None:
        g = self.game
        truncated = g.truncated
        winners = g.winners
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = 0.0 if not winners else (1.0 if seat in winners else -1.0)
        info = {
            "end_reason": g.end_reason,
            "scores": {"dots": g.dots_scores(), "territory": g.territory_scores()},
            "winners": [self.possible_agents[s] for s in winners],
        }
        self._end_game(truncated, info)

    def _render_image(self) -> NDArray[np.uint8]:
        from conquer_env.render_image import render_image

        return render_image(self.game, cell=self.render_cell)

    def _render_text(self) -> str:
        from conquer_env.render_text import render_text

        return render_text(self.game)


def env(render_mode: str | None = None, **options: Any) -> AECEnv:
    """Return the environment in PettingZoo's classic wrapper chain (illegal action: -1 and the game ends)."""
    return classic_wrappers(raw_env(render_mode=render_mode, **options))
