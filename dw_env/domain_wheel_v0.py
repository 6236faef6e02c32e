"""
# Domain Wheel

| Import             | `from dw_env import domain_wheel_v0`                      |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['player_0', 'player_1', 'player_2']`            |
| Agents             | 3                                                         |
| Action Shape       | (1,)                                                      |
| Action Values      | Discrete(C + 2): Discrete(1161) on the standard map       |
| Observation Shape  | (D,): (18692,) on the standard map                        |
| Observation Values | [0, 127] (int8)                                           |

Domain Wheel is a three-player territory game on a hexagonal map of hexagonal lands. Each
player has a king and knights; kings conquer lands by holding their throne with enough
knights around, knights liberate rivals' lands, and the game ends when someone conquers the
centre, when a centre countdown runs out, or when a player with enough points requests the
end (rules: `shared/rules/domain-wheel-spec.md`). This environment holds no rule of its own:
every transition, legality test and score comes from the compiled engine (`dw_env.rules`).

### Agents

`player_0`, `player_1`, `player_2` are Blue, Green and Red, in turn order (rule 3.1). The
same agent acts twice in a row to make one move (choose a piece, then its destination).

### Arguments

``` python
domain_wheel_v0.env(render_mode=None, land_radius=2, map_radius=4, turns_to_conquer=4,
                    fast_knights=True, king_may_be_alone=True, max_rounds=200,
                    score_shaping=False, truncation_reward=0.0, render_width=1000)
```

Every game option (`dw_env.options.GameOptions`) is a keyword argument: `land_radius` (1..5,
cells from a throne to its land's edge), `map_radius` (2..5, lands from the centre to the
border), `turns_to_conquer` (1..8), `fast_knights`, `king_may_be_alone` and `max_rounds`
(the engine's truncation, not a rule). Unknown keywords raise `ValueError` naming them.
Env options: `score_shaping` (see Rewards), `truncation_reward` (reward of every agent when
the game is truncated, a finite number in -1..1) and `render_width` (pixels of the `rgb_array`
image, an integer in 200..4000). Bad values raise `ValueError` naming the value and the range.
`raw_env(...)` takes the same arguments and has no wrappers.

### Action Space

One `Discrete(C + 2)` space over the map's `C` cells plus pass plus end request, mirroring a
human's two clicks (`dw_env.envs.action_space.ActionSpace`: gymnasium's `Discrete` with a
one-pass `sample(mask)` that draws the same actions for the same seed):

* **Phase 1, choose a piece.** Legal: each of your pieces with at least one legal move
  (engine `movable_pieces`), `C` = pass (always legal, rule 3.2b) and `C + 1` = end request
  when rule 9.3 allows it. Choosing a piece changes no game state and gives 0 reward; the
  same agent acts again.
* **Phase 2, choose its destination.** Legal: that piece's legal destinations (engine
  `piece_destinations`); pass and end request are masked out. The destination plays the
  move and runs the end of turn (rule 3.3).

Cells are named in the acting player's **frame**: the map turned by its 120-degree symmetry so
that the acting player's start land always sits where Blue's does (as PettingZoo's chess
mirrors the board for black). Helpers map actions and map cells:
`action_to_cell(geometry, player, action)`, `cell_to_action(geometry, player, cell)`,
`move_to_actions(geometry, player, move)` and `actions_to_move(geometry, player, actions)`
(`geometry` is `env.unwrapped.geometry`).

### Observation Space

A dict `{"observation": int8 (D,), "action_mask": int8 (C + 2,)}`. The observation is
egocentric (the viewer first, then the next player and the one after in turn order; cells
and lands in the viewer's frame), Markov-complete, and has three blocks (layout version
`OBSERVATION_VERSION = "dw-obs-v1"`, which exported agents record):

| Block    | Shape     | Features                                                            |
|----------|-----------|---------------------------------------------------------------------|
| `cells`  | `[C, 15]` | kings and knights by relative player (6), throne, selected piece,   |
|          |           | destination move kinds in phase 2: step, king move, fast knight,    |
|          |           | double step, jump, swap (6), movable piece in phase 1               |
| `lands`  | `[L, 21]` | owner (relative one-hot, 3), points, ring, start land, in territory |
|          |           | T per relative player (3), hold counters (3), liberation counters   |
|          |           | (3), first-conquest knight still available (3), land distance to    |
|          |           | each player's territory (3)                                         |
| `global` | `[26]`    | scores (base-100 pairs), E, C, K, round and rounds left before      |
|          |           | truncation (base-100 pairs), countdown holder (relative one-hot) and |
|          |           | turns left, phase, end request legal, options flags, the viewer's   |
|          |           | seat (one-hot), to act, game over                                   |

Values that can exceed 127 are base-100 pairs `(hi, lo)` with `value = 100 * hi + lo`.
`describe_observation(options)` returns every block's offset, shape and feature names, and
`layout.split(obs)` returns the three blocks as views; the per-feature tables are in
`dw_env.envs.observation`. The acting player's options (`movable`, destination planes,
`end_request_legal`) and the mask are all 0 in any other agent's observation.

Bytes per observation (observation + mask, int8): **19,853 on the standard map** (C = 1159,
L = 61, D = 18,692); 2,555 on the smallest map (land radius 1, map radius 2: C = 133,
L = 19, D = 2,420).

#### Legal Actions Mask

`action_mask` is the single source of legality: 1 for each legal action of the agent to
act, all 0 for the other agents and after the game ends. It is never empty for the agent to
act (pass is legal in phase 1; a chosen piece has at least one destination).

### Rewards

Default: terminal and zero-sum (rule 9.5). The `k` winners (all players with the top score)
get `+1/k` each and the others `-1/(3-k)` each; a three-way tie gives 0 to all. A game that
reaches `max_rounds` is **truncated** (`truncations` True, not a rule ending): every agent gets
`truncation_reward` (default 0) and `infos` hold the `leaders`. With `score_shaping=True`
every completed action also pays each agent the change of `(own score - mean of the rivals'
scores) / total points`, which is zero-sum and adds up to the final score difference.

On game end every agent's `info` holds `end_reason` (`centre`, `countdown`, `end_request` or
`truncation`), `scores`, `round` and `winners` (or `leaders` when truncated).

**Illegal actions.** `raw_env` raises `ValueError` (`dw_env.engine.IllegalActionError`)
naming the action, the phase and the allowed actions, and changes nothing. `env()` adds
PettingZoo's classic wrappers (`TerminateIllegalWrapper(illegal_reward=-1)`,
`AssertOutOfBoundsWrapper`, `OrderEnforcingWrapper`, as the subclasses of
`dw_env.envs.wrappers`, which read the AEC attributes from the raw env in one hop and are
read-only): an illegal action ends the game, the mover gets -1, the others 0, and a warning
says why.

**Protocol errors.** `raw_env.reset(seed=, options=)` takes an integer or None and a dict or
None (`ValueError` otherwise). `raw_env.step` before `reset()`, or after every agent has been
removed (each done agent steps `None`, PettingZoo's convention), raises `RuntimeError` saying
to call `reset()`; `env()`'s `OrderEnforcingWrapper` keeps PettingZoo's warning instead.

### Rendering

`render_mode="ansi"` returns the text board (`dw_env.render_text`), `"human"` prints it,
`"rgb_array"` returns an `uint8 [H, W, 3]` image of the hex map (`dw_env.render_image`):
owners' colours, land borders, thrones with their points, kings and knights, hold and
liberation counters, scores and the turn banner; in phase 2 the chosen piece and its
destinations are highlighted.

### Other interfaces

`dw_env.envs.vector.DomainWheelVectorEnv` steps N games per call in one compiled, threaded
kernel (same kernels, identical trajectories); `dw_env.envs.gym_single.SingleSeatEnv` is a
Gymnasium env where one seat learns and given policies play the others, with
`action_masks()` for sb3-contrib's MaskablePPO. `reset(options={"position": game})` starts
from a position (`dw_env.engine.Game` or a `dw_env.position` dict).

### Version History

* v0: Initial release (observation layout `dw-obs-v1`).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env import AECEnv

from dw_env.envs.actions import (
    action_to_cell,
    actions_to_move,
    cell_to_action,
    end_request_action,
    move_to_actions,
    num_actions,
    pass_action,
)
from dw_env.envs.domain_wheel import raw_env
from dw_env.envs.observation import OBSERVATION_VERSION, ObservationLayout, describe_observation
from dw_env.envs.wrappers import classic_chain

__all__ = [
    "OBSERVATION_VERSION",
    "ObservationLayout",
    "action_to_cell",
    "actions_to_move",
    "cell_to_action",
    "describe_observation",
    "end_request_action",
    "env",
    "move_to_actions",
    "num_actions",
    "pass_action",
    "raw_env",
]


def env(render_mode: str | None = None, **options: Any) -> AECEnv:
    """Return the environment in PettingZoo's classic wrapper chain (see the module docs)."""
    return classic_chain(raw_env(render_mode=render_mode, **options), illegal_reward=-1)
