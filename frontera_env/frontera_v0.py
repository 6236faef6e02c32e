"""
# Frontera

| Import             | `from frontera_env import frontera_v0`                         |
|--------------------|----------------------------------------------------------------|
| Actions            | Discrete                                                       |
| Parallel API       | No                                                             |
| Manual Control     | No                                                             |
| Agents             | `agents= ['player_0', ..., 'player_{P-1}']`                    |
| Agents             | 2 to 6                                                         |
| Action Shape       | (1,)                                                           |
| Action Values      | Discrete(N*(B+2) + 2E + 2B + 16): 507 / 795 / 1198 (B = 5)     |
| Observation Shape  | (N*(19 + max(9, K)) + 78,): 1058 / 1618 / 2318                 |
| Observation Values | [0, inf) (float32)                                             |

Frontera is a Risk-like game for 2 to 6 players with dice, cards, fog of war and a hidden simultaneous
deployment (rules: `shared/rules/frontera-spec.md`, usage: `docs/FRONTERA.md`). The env holds no rule:
legality, dice and outcomes come from the engine (`frontera_env.engine.Game`); the mask and the action
decoding are `frontera_env.encoding`, the observation `frontera_env.observation` (built from the player's
view, `frontera_env.view`, so nothing hidden leaks).

### Agents

`player_p` is seat `p`. During setup the seats deploy one after another in `order0` (spec 6.6: sequential
hidden placement); afterwards `agent_selection` is the current player. An eliminated seat is terminated at
once (it steps `None` next, PettingZoo's dead step) while the others play on. Abandonment is an engine event,
not an action: `raw_env.abandon(agent)` removes a seat at any moment (R-11.1) and treats it as a loser.

### Arguments

``` python
frontera_v0.env(render_mode=None, players=2, size="small", world_code=None, map_file=None, fog=False,
                cards=True, blitz=True, buckets=5, max_turns="default", rewards="zero_sum", render_width=800)
```

`size` is small, medium or large; the map is that size's reference map, or `generate(size, world_code)`,
or the `frontera-map/1` file `map_file` (not with `world_code`). `max_turns` is `250 * players` by default,
an integer >= 1, or None (no truncation). `rewards` is `"zero_sum"` or `"win_loss"`. Unknown keywords or bad
values raise `ValueError` naming them and what is allowed. `reset(seed=, options=)`: `seed` is the game
seed (dice, deal, deck; None draws one); `options` may change `fog`, `cards`, `blitz` and `rewards` for the
next games; the keywords that shape the spaces must keep their value; `{"position": game}` starts from a
copy of a running `frontera_env.engine.Game` on the env's map (its fog and cards options are taken); other
keys are ignored (PettingZoo's `api_test` passes arbitrary ones).

### Action Space and mask

The blocks of spec 6.2 (DEPLOY, TRADE, ATTACK, BLITZ, OCCUPY, END_ATTACK, REGROUP_FROM/TO/AMOUNT,
END_TURN) with amount buckets; `frontera_env.encoding.Layout` has the offsets. The mask (spec 6.3) is the
single source of legality and is all 0 for agents not to act. A regroup is three steps (source,
destination, amount); in setup the env declares Ready itself when the seat's armies are placed.

### Observation Space

`{"observation": float32 (S,), "action_mask": int8 (A,)}`, ego-centric (the observer is slot 0); see
`frontera_env.observation` for the layout. `infos[agent]["graph"]` holds `edge_index` (int64 [2, E], in
action order), `edge_sea` (bool [E]) and `region` (int64 [N]) for graph networks.

### Rewards

Zero-sum (spec 6.5): the winner +1, every other seat `-1/(P-1)`; an eliminated seat receives its share when
it is eliminated. At truncation the survivors share the eliminated seats' losses equally, so every game sums
to 0 (no eliminations: all 0). `rewards="win_loss"`: +1 / -1, and 0 at truncation. The final `infos` hold
`winner`, `truncated` and each seat's territory `shares`.

### Version History

* v0: initial release.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from numpy.typing import NDArray
from pettingzoo import AECEnv

from frontera_env.actions import Place, Ready, Regroup
from frontera_env.board import SIZES, FronteraMap
from frontera_env.encoding import Choose, Layout, Selection, action_mask, decode
from frontera_env.engine import Game
from frontera_env.observation import DECISIONS, ObservationLayout, decision, encode
from frontera_env.rules_errors import IllegalAction, brief
from frontera_env.state import ACTIVE, SETUP
from frontera_env.view import view
from gamecore.aec import BoardGameAEC, as_action, check_reset_options, check_seed, classic_wrappers, game_metadata

ENV_NAME = "frontera_v0"
REWARD_MODES = ("zero_sum", "win_loss")
#: the keywords that shape the spaces, fixed for an env's life
SHAPING = ("players", "size", "world_code", "map_file", "buckets", "max_turns")
#: the keywords reset(options=) may change between games
PER_GAME = ("fog", "cards", "blitz", "rewards")

__all__ = ["ENV_NAME", "EnvOptions", "env", "raw_env"]


@dataclass(frozen=True)
class EnvOptions:
    """The env's options, checked (see the module docs); ``max_turns`` 0 means no truncation."""

    players: int = 2
    size: str = "small"
    world_code: str | None = None
    map_file: str | None = None
    fog: bool = False
    cards: bool = True
    blitz: bool = True
    buckets: int = 5
    max_turns: int = 0
    rewards: str = "zero_sum"

    @classmethod
    def from_dict(cls, given: Mapping[str, Any]) -> EnvOptions:
        """Return checked options; ValueError naming an unknown key or a bad value and what is allowed."""
        allowed = (*SHAPING, *PER_GAME)
        unknown = [k for k in given if k not in allowed]
        if unknown:
            raise ValueError(f"unknown option {brief(unknown[0])}; allowed: {', '.join(allowed)}")
        players = _int(given.get("players", 2), "players", 2, 6)
        size = given.get("size", "small")
        if size not in SIZES:
            raise ValueError(f"size must be one of {', '.join(SIZES)}, got {brief(size)}")
        code, path = given.get("world_code"), given.get("map_file")
        if code is not None and path is not None:
            raise ValueError("give world_code or map_file, not both")
        if code is not None and not isinstance(code, str):
            raise ValueError(f"world_code must be a string of A-Z, 0-9 and '-', got {brief(code)}")
        if path is not None and not isinstance(path, str | os.PathLike):
            raise ValueError(f"map_file must be a path to a frontera-map/1 file, got {brief(path)}")
        max_turns = given.get("max_turns", "default")
        if isinstance(max_turns, str) and max_turns == "default":
            turns = 250 * players  # A39's RL default, 250 turns per starting player
        elif max_turns is None:
            turns = 0
        else:
            turns = _int(max_turns, "max_turns", 1, 10**9)
        return cls(
            players=players,
            size=size,
            world_code=code,
            map_file=None if path is None else os.fspath(path),
            buckets=_int(given.get("buckets", 5), "buckets", 2, 64),
            max_turns=turns,
            **_per_game(given),
        )

    def board(self) -> FronteraMap:
        """Return the map these options name: a file, a world code's, or the size's reference map."""
        from frontera_env.map_file import check_players, read_map, reference_map

        if self.map_file is not None:
            board = read_map(self.map_file)
        elif self.world_code is not None:
            from frontera_env.generator import generate

            board = generate(self.size, self.world_code)
        else:
            board = reference_map(self.size)
        check_players(board, self.players)
        return board


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer in {lo}..{hi}, got {brief(value)}")
    return int(value)


def _per_game(given: Mapping[str, Any]) -> dict[str, Any]:
    """Return the checked per-game options present in ``given`` (fog, cards, blitz, rewards)."""
    out: dict[str, Any] = {}
    for key in ("fog", "cards", "blitz"):
        if key in given:
            if not isinstance(given[key], bool | np.bool_):
                raise ValueError(f"{key} must be True or False, got {brief(given[key])}")
            out[key] = bool(given[key])
    if "rewards" in given:
        if given["rewards"] not in REWARD_MODES:
            raise ValueError(f"rewards must be one of {', '.join(REWARD_MODES)}, got {brief(given['rewards'])}")
        out["rewards"] = given["rewards"]
    return out


def env(render_mode: str | None = None, **options: Any) -> AECEnv:
    """Return the environment in PettingZoo's classic wrapper chain (illegal action: -1 and the game ends)."""
    return classic_wrappers(raw_env(render_mode=render_mode, **options))


class raw_env(BoardGameAEC):  # noqa: N801 - PettingZoo's naming convention
    """Frontera as a PettingZoo AEC environment, without wrappers (illegal actions raise IllegalAction)."""

    metadata: dict[str, Any] = game_metadata(ENV_NAME)

    def __init__(self, render_mode: str | None = None, render_width: int = 800, **options: Any) -> None:
        EzPickle.__init__(self, render_mode=render_mode, render_width=render_width, **options)
        super().__init__()
        self._check_render_mode(render_mode)
        from frontera_env.render_image import check_width

        self.render_width = check_width(render_width)
        self.options = EnvOptions.from_dict(options)
        self.board = self.options.board()
        self.layout = Layout.for_map(self.board, self.options.buckets)
        self.obs_layout = ObservationLayout.for_map(self.board, self.options.max_turns)
        box = spaces.Box(0, self.obs_layout.high, (self.obs_layout.size,), np.float32)
        self._declare_spaces([f"player_{p}" for p in range(self.options.players)], box, self.layout.size)
        self.graph = _graph(self.board, self.layout)
        self.selection = Selection()
        self._mask = np.zeros(self.layout.size, np.int8)
        self.game = self._new_game(0)

    def _new_game(self, seed: int) -> Game:
        o = self.options
        return Game.new(self.board, o.players, seed, fog=o.fog, cards=o.cards, max_turns=o.max_turns)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game from ``seed`` (None: a fresh one); ``options`` as the module docs say."""
        check_seed(seed, nonnegative=True)
        given = check_reset_options(options, "{'fog': True}")
        for key in SHAPING:
            if key in given and given[key] != getattr(self.options, key):
                raise ValueError(
                    f"reset option {key} would change the spaces ({brief(getattr(self.options, key))} -> "
                    f"{brief(given[key])}); construct a new env with {key}={brief(given[key])}"
                )
        self.options = replace(self.options, **_per_game(given))
        if given.get("position") is not None:
            self.game = self._position_game(given["position"])
        else:
            game_seed = int(seed) if seed is not None else int.from_bytes(os.urandom(8), "little")
            self.game = self._new_game(game_seed % 2**64)
        self.selection.clear()
        self._start(self.game.current, {"graph": self.graph})
        self._skip_agent_selection: str | None = None
        self._update_mask()

    def _position_game(self, start: Any) -> Game:
        """Return a copy of ``start`` if the env can play it: a running Game on this map with these options."""
        if not isinstance(start, Game):
            raise ValueError(f"reset option 'position' must be a frontera_env.engine.Game, got {brief(start)}")
        ctx, o = start.ctx, self.options
        if ctx.map != self.board or start.state.players != o.players or ctx.max_turns != o.max_turns:
            raise ValueError(
                f"the position's game ({start.state.players} players, max_turns {ctx.max_turns}, map "
                f"{ctx.map.size} {ctx.map.world_code!r}) differs from the env's ({o.players} players, max_turns "
                f"{o.max_turns}, map {self.board.size} {self.board.world_code!r})"
            )
        if start.over:
            raise ValueError("the position is a finished game; an env cannot start from it")
        st = start.state
        stuck = (st.status == ACTIVE) & (st.deploy_left == 0) & ~st.ready
        if st.phase == SETUP and stuck.any():
            raise ValueError(
                f"seat {int(np.flatnonzero(stuck)[0])} has placed every army but is not ready; the env declares "
                "Ready itself (spec 6.6), so apply Ready before handing it the position"
            )
        self.options = replace(o, fog=ctx.fog, cards=ctx.cards)
        return start.copy()

    def _update_mask(self) -> None:
        action_mask(self.layout, self.game, self.selection, self.options.blitz, self._mask)

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        """Return ``agent``'s observation, built from its view only, and its mask (all 0 unless it is to act)."""
        seat = self.possible_agents.index(agent)
        acting = seat == self.game.current
        sel = self.selection if acting else Selection()
        obs = np.empty(self.obs_layout.size, np.float32)
        encode(self.obs_layout, view(self.game.ctx, self.game.state, seat), sel, self._public(), obs)
        mask = self._mask.copy() if acting else np.zeros(self.layout.size, np.int8)
        return {"observation": obs, "action_mask": mask}

    def _public(self) -> tuple[int, bool]:
        return self.options.max_turns, self.options.cards

    def step(self, action: Any) -> None:
        """Play ``agent_selection``'s ``action``; IllegalAction (a ValueError) naming it and the state if masked."""
        agent = self._acting_agent(action)
        if agent is None:
            return
        a = as_action(action, self.layout.size, lambda message: IllegalAction("spec 6.2", message))
        if not self._mask[a]:
            raise self._refusal(agent, a)
        self._cumulative_rewards[agent] = 0
        self._play(a)
        self._clear_rewards()
        self._settle()
        self._update_mask()
        self._accumulate_rewards()
        self._show_if_human()

    def abandon(self, agent: str) -> None:
        """Remove ``agent``'s seat from the game at any moment (R-11.1, an engine event, not an action).

        The seat is terminated with the share of a seat that lost (spec 6.5, as an elimination) and steps
        ``None`` next; if it was to act, play passes on (R-11.1) and a pending regroup selection is dropped.
        """
        if not hasattr(self, "terminations"):
            raise RuntimeError("call reset() before abandon()")
        if agent not in self.possible_agents:
            raise ValueError(f"agent must be one of {', '.join(self.possible_agents)}, got {brief(agent)}")
        seat = self.possible_agents.index(agent)
        to_act = seat == self.game.current
        self.game.abandon(seat)  # IllegalAction if the game is over or the seat already left
        if to_act:
            self.selection.clear()
        self._clear_rewards()
        self._settle()
        self._update_mask()
        self._accumulate_rewards()

    def _play(self, a: int) -> None:
        """Apply index ``a`` (already masked legal): an engine action or one step of the regroup selection."""
        game, sel = self.game, self.selection
        decoded = decode(self.layout, game, sel, a, self.options.blitz)
        if isinstance(decoded, Choose):
            if decoded.what == "source":
                sel.source = decoded.territory
            else:
                sel.dest = decoded.territory
            return
        if decoded is None:  # the mask said legal: encoding and mask disagree, a defect to report loudly
            raise RuntimeError(f"masked-legal action {a} ({self.layout.block(a)}) decodes to nothing")
        game.apply(decoded)
        if isinstance(decoded, Regroup):
            sel.clear()
        if isinstance(decoded, Place) and game.state.deploy_left[decoded.seat] == 0:
            game.apply(Ready(decoded.seat))  # sequential hidden placement: a seat done is ready (6.6)

    def _settle(self) -> None:
        """Terminate newly eliminated seats with their share, finish an ended game, pick the next agent."""
        st, p0 = self.game.state, self.options.players
        loss = -1.0 / (p0 - 1) if self.options.rewards == "zero_sum" else -1.0
        for seat, agent in enumerate(self.possible_agents):
            if agent in self.terminations and not self.terminations[agent] and st.status[seat] != ACTIVE:
                self.rewards[agent] = loss
                self.terminations[agent] = True
        if self.game.over:
            self._finish(loss)
        else:
            self.agent_selection = self.possible_agents[self.game.current]
        self._skip_agent_selection = None  # the engine names the next seat; a stale one must not come back
        self._deads_step_first()

    def _finish(self, loss: float) -> None:
        st, p0 = self.game.state, self.options.players
        alive = [a for a in self.agents if not self.terminations[a]]
        share = (p0 - len(alive)) / ((p0 - 1) * len(alive)) if self.options.rewards == "zero_sum" else 0.0
        winner = self.game.winner
        for agent in alive:
            seat = self.possible_agents.index(agent)
            if st.truncated:
                self.rewards[agent] = share
            else:
                self.rewards[agent] = 1.0 if seat == winner else loss
            self.terminations[agent] = not st.truncated
            self.truncations[agent] = bool(st.truncated)
        summary = self.game.summary()
        outcome = {
            "graph": self.graph,
            "winner": None if winner is None else self.possible_agents[winner],
            "truncated": bool(st.truncated),
            "shares": {a: summary["shares"][p] for p, a in enumerate(self.possible_agents)},
        }
        self.infos = {a: dict(outcome) for a in self.agents}

    def _refusal(self, agent: str, a: int) -> IllegalAction:
        legal = np.flatnonzero(self._mask)
        shown = ", ".join(str(int(x)) for x in legal[:30]) + (" ..." if len(legal) > 30 else "")
        seat = self.possible_agents.index(agent)
        state = DECISIONS[decision(view(self.game.ctx, self.game.state, seat), self.selection)]
        block, arg = self.layout.block(a)
        return IllegalAction(
            "spec 6.3",
            f"action {a} ({block} {arg}) is not legal for {agent} in the {state} decision state; allowed: {shown}",
        )

    def _render_image(self) -> NDArray[np.uint8]:
        """Return the committed board drawn: regions outlined, owners' colours, army counts."""
        from frontera_env.render_image import render_image

        st = self.game.state
        return render_image(self.board, st.owner, st.armies, self.render_width)

    def _render_text(self) -> str:
        """Return the committed board as text under a line naming the turn, the phase and the seat to act."""
        from frontera_env.render_text import render_text

        st = self.game.state
        who = "setup" if st.phase == SETUP else self.game.phase
        text = f"turn {st.turn_index}, {who}, to act: seat {self.game.current}\n"
        return text + render_text(self.board, st.owner, st.armies)


def _graph(board: FronteraMap, layout: Layout) -> dict[str, NDArray[Any]]:
    """Return the static graph for graph networks: edges in action order, their sea flag, each region (6.4)."""
    sea = {(t.id, u) for t in board.territories for u in t.sea}
    edge_index = np.stack([layout.src, layout.dst])
    edge_sea = np.array([(int(s), int(t)) in sea for s, t in zip(layout.src, layout.dst, strict=True)], np.bool_)
    region = np.array([t.region for t in board.territories], np.int64)
    for array in (edge_index, edge_sea, region):
        array.flags.writeable = False
    return {"edge_index": edge_index, "edge_sea": edge_sea, "region": region}
