"""
# Alveole

| Import             | `from alveole_env import alveole_v0`                      |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['player_0', 'player_1']`                        |
| Agents             | 2                                                         |
| Action Shape       | (1,)                                                      |
| Action Values      | Discrete(486)                                             |
| Observation Shape  | (486,)                                                    |
| Observation Values | [0, 9] (int8)                                             |

Alveole is a two-player connection race on a hexagonal board of side 5 (61 cells), in the family
of Lines of Action: each player has 9 pieces; a piece moves in one of 6 directions exactly as many
cells as there are pieces (of both players) on that whole line, may jump its own pieces but not
enemy ones, and captures an enemy piece it lands on. Whoever first has all their pieces in one
connected group wins (rules: `docs/ALVEOLE.md`, `shared/rules/alveole-spec.md`). This environment
holds no rule: every transition and legality test comes from the compiled engine
(`alveole_env.rules` via `alveole_env.engine.AlveoleGame`).

### Agents

`player_0` moves first (the spec's player 1, `X`, rule A2) and `player_1` second (`O`). One
action is one whole move (rule R-3.1); there is no pass.

### Arguments

``` python
alveole_v0.env(render_mode=None, max_plies=600, render_width=600)
```

`max_plies` (1..100000) is the engine's truncation (R-4.6, not a rule); `render_width` the pixels
of the `rgb_array` image (120..4000). Unknown keywords or bad values raise `ValueError` naming them.
`raw_env(...)` takes the same arguments and has no wrappers.

### Action Space

`Discrete(486)` = 6 direction planes x the 9 x 9 grid: action `a` moves the piece on grid square
`a % 81` (row `r + 4`, column `q + 4` of axial `(q, r)`) in direction `a // 81` (E, NE, NW, W,
SW, SE). Actions are in the absolute frame for both agents. `alveole_env.encoding.action_of(cell,
direction)` and `decode_action(a)` convert; `env.unwrapped.game.action_between(src, dst)` finds the
action of a (from, to) move.

### Observation Space

A dict `{"observation": int8 (486,), "action_mask": int8 (486,)}`. The observation is 6 planes of
9 x 9 (`alveole_env.encoding.PLANES`), egocentric in its planes: the observing agent's pieces, the
opponent's, then on each board cell the number of pieces on its row, its diagonal and its column
(the move distances of R-3.2), and a plane of 1s on the 61 board cells. Off-board squares are 0.

#### Legal Actions Mask

`action_mask` is 1 for each legal move of the agent to act; all 0 for the other agent and after
the game ends. It is never empty for the agent to act: a player without a legal move has lost
already (R-4.4).

### Rewards

+1 to the winner and -1 to the loser when the game ends by a rule (`terminations`), 0 otherwise.
A game that reaches `max_plies` is **truncated** (`truncations` True): both agents get 0. On the
last step every agent's `info` holds `end_reason` (one of `alveole_env.END_REASONS`:
`mover_connected`, `opponent_connected`, `no_legal_move`, `truncated`), `winners` (agent names),
`scores` (10 - groups, per agent) and `ply`.

**Illegal actions.** `raw_env` raises `ValueError` (`alveole_env.IllegalActionError`) naming the
action, the rule that forbids it and the legal actions, and changes nothing. `env()` adds
PettingZoo's classic wrappers (`TerminateIllegalWrapper(illegal_reward=-1)`,
`AssertOutOfBoundsWrapper`, `OrderEnforcingWrapper`).

`reset(seed=, options=)`: the rules have no randomness, so `seed` changes nothing;
`options={"position": game_or_dict}` starts from an `AlveoleGame` or an `alveole_env.position`
dict (other keys are ignored, as PettingZoo's API test passes arbitrary ones).

### Rendering

`render_mode="ansi"` returns the text board (`alveole_env.render_text`), `"human"` prints it,
`"rgb_array"` returns an `uint8 [W, W, 3]` image (`alveole_env.render_image`) with the last move
and, at the end, the winning group marked.

### Other interfaces

`alveole_env.vector.AlveoleVectorEnv` steps N games per call in one compiled kernel with the
same encoding and rewards.

### Version History

* v0: Initial release (observation layout `alveole-obs-v1`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from numpy.typing import NDArray
from pettingzoo import AECEnv

from alveole_env.encoding import NUM_ACTIONS, OBS_SIZE
from alveole_env.engine import AlveoleGame
from alveole_env.errors import IllegalActionError
from alveole_env.options import AlveoleOptions
from alveole_env.state import NUM_PLAYERS, PIECES, TURN
from gamecore.aec import BoardGameAEC, as_action, check_reset_options, check_seed, classic_wrappers, game_metadata

AGENTS: tuple[str, ...] = tuple(f"player_{p}" for p in range(NUM_PLAYERS))
ENV_NAME = "alveole_v0"
#: the largest observation value: a full line of 9 pieces
OBS_HIGH = PIECES

__all__ = ["AGENTS", "ENV_NAME", "env", "raw_env"]


def env(render_mode: str | None = None, **options: Any) -> AECEnv:
    """Return the environment in PettingZoo's classic wrapper chain (see the module docs)."""
    return classic_wrappers(raw_env(render_mode=render_mode, **options))


class raw_env(BoardGameAEC):  # noqa: N801 - PettingZoo's naming convention
    """Alveole as a PettingZoo AEC environment, without wrappers (illegal actions raise)."""

    metadata: dict[str, Any] = game_metadata(ENV_NAME)

    def __init__(self, render_mode: str | None = None, *, render_width: int = 600, **options: Any) -> None:
        EzPickle.__init__(self, render_mode=render_mode, render_width=render_width, **options)
        super().__init__()
        self._check_render_mode(render_mode)
        from alveole_env.render_image import check_width

        self.render_width = check_width(render_width, "render_width")
        self.options = AlveoleOptions.from_dict(options)
        #: the game in progress (read it for rendering and scripted seats; play only through step())
        self.game = AlveoleGame.new(self.options)
        self._declare_spaces(AGENTS, spaces.Box(low=0, high=OBS_HIGH, shape=(OBS_SIZE,), dtype=np.int8), NUM_ACTIONS)
        self._obs, self._mask = self.game.observe()

    def observe(self, agent: str) -> dict[str, NDArray[np.int8]]:
        """Return ``agent``'s observation and action mask (fresh arrays; all-0 mask unless it is to act)."""
        seat = self.possible_agents.index(agent)
        if seat == self.game.turn:
            return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}
        viewer = self.game.copy()
        viewer.scalars[TURN] = seat  # the same board seen from the other seat: planes swapped, nothing legal
        obs, _ = viewer.observe()
        return {"observation": obs, "action_mask": np.zeros(NUM_ACTIONS, dtype=np.int8)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game, or the position ``options["position"]`` (see the module docs)."""
        check_seed(seed)
        start = check_reset_options(options).get("position")
        self.game = AlveoleGame.new(self.options) if start is None else self._position_game(start)
        self._start(self.game.turn)
        self._obs, self._mask = self.game.observe()

    def _position_game(self, start: Any) -> AlveoleGame:
        if isinstance(start, Mapping):
            from alveole_env import position

            start = position.from_dict(start, self.options)
        if not isinstance(start, AlveoleGame):
            raise ValueError(
                f"reset option 'position' must be an AlveoleGame or a position dict, got {type(start).__name__}"
            )
        if start.options != self.options:
            raise ValueError(f"the position's options {start.options} differ from the env's {self.options}")
        if start.over:
            raise ValueError(f"the position is a finished game ({start.end_reason}); an env cannot start from it")
        return start.copy()

    def step(self, action: Any) -> None:
        """Play ``agent_selection``'s move ``action``; IllegalActionError (a ValueError) if it is not legal."""
        agent = self._acting_agent(action)
        if agent is None:
            return
        a = as_action(action, NUM_ACTIONS, IllegalActionError, in_range=False)
        if not (0 <= a < NUM_ACTIONS and self._mask[a]):
            self.game.play(a)  # raises, naming the rule; the mask and the engine agree
            raise RuntimeError(f"engine accepted masked-out action {a}")  # pragma: no cover
        self._cumulative_rewards[agent] = 0
        self.game.play(a)
        self._obs, self._mask = self.game.observe()
        self._clear_rewards()
        if self.game.over:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.game.turn]
        self._accumulate_rewards()
        self._show_if_human()

    def _finish(self) -> None:
        game = self.game
        scores = game.scores()
        info: dict[str, Any] = {
            "end_reason": game.end_reason,
            "winners": [self.possible_agents[p] for p in game.winners],
            "scores": {a: scores[p] for p, a in enumerate(self.possible_agents)},
            "ply": game.ply,
        }
        for p in game.winners:
            self.rewards[self.possible_agents[p]] = 1.0
            self.rewards[self.possible_agents[1 - p]] = -1.0
        self._end_game(game.truncated, info)

    def _render_image(self) -> NDArray[np.uint8]:
        from alveole_env.render_image import render

        return render(self.game, self.render_width)

    def _render_text(self) -> str:
        from alveole_env.render_text import render as render_text

        return render_text(self.game)
