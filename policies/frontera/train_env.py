"""The training env of Frontera's learned agent: compiled vector envs in the PPO loop's call shape.

``dw train`` (training/ppo/ppo.py) drives every game through one vector-env API: ``reset() -> (obs, masks,
player)``, ``step(actions) -> (obs, masks, player, rewards [N, P], terminated, truncated, info)`` with
``info["winners"]`` (bool ``[N, P]``) and ``info["final_scores"]`` (``[N, P]``), int8 observations, and
``game(slot)`` for the scripted seats. :class:`FronteraTrainEnv` gives that over one or two
:class:`frontera_env.vector.FronteraVectorEnv` (one with fog off, one with fog on for a ``fog_rows`` share of the
rows, spread evenly over them: :func:`fog_layout`):

* observations are spec 6.4's, packed to int8 by :func:`policies.frontera.inputs.pack` (the player's view only);
* ``final_scores`` are the territories each seat owns when the game ends (read before the row restarts);
* ``winners`` marks the winner (none on truncation), as the arena scores a game.

:class:`TrainingSeats` makes the scripted seats play in index space (:mod:`policies.frontera.action_index`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from frontera_env import arrays
from frontera_env.board import SIZES
from frontera_env.encoding import Layout
from frontera_env.engine import Game
from frontera_env.vector import FronteraVectorEnv
from policies.base import Policy
from policies.frontera.action_index import to_indices
from policies.frontera.inputs import BUCKETS, pack

#: the seed distance between the fog-off and fog-on rows' games (row i's k-th game: seed + i + k*rows)
PART_SEED_STRIDE = 1 << 40


def fog_layout(num_envs: int, fogged: int, spread: bool = True) -> NDArray[np.bool_]:
    """Return which of ``num_envs`` rows play with fog, ``fogged`` of them.

    Spread (the default): row ``r`` is fogged when ``floor((r + 1) f / n)`` passes an integer, so the fogged rows
    are evenly spaced (every other row for a half). The PPO league gives its opponent groups consecutive rows
    (self-play first, the scripted seats last: training/ppo/league.py ``split_groups``), so spreading the fog
    gives every group its share of fog. ``spread=False``: the last rows, the layout of runs saved before
    ``env.fog_spread`` (where the scripted group played nearly all the fogged games and self-play none).
    """
    if not 0 <= fogged <= num_envs:
        raise ValueError(f"fog rows: got {fogged} of {num_envs}; allowed: 0..{num_envs}")
    rows = np.arange(num_envs)
    if not spread:
        return rows >= num_envs - fogged
    return ((rows + 1) * fogged) // max(num_envs, 1) > (rows * fogged) // max(num_envs, 1)


class _Rows(FronteraVectorEnv):
    """A vector env that keeps each row's final territory counts before the row deals its next game."""

    def __init__(self, num_envs: int, seed: int, **options: Any) -> None:
        super().__init__(num_envs, seed=seed, **options)
        self.final_counts = np.zeros((num_envs, self.players), np.int32)

    def _restart(self, rows: NDArray[np.int64]) -> None:
        owner = self.batch.owner[rows]
        self.final_counts[rows] = (owner[:, None, :] == np.arange(self.players)[None, :, None]).sum(-1)
        super()._restart(rows)


class RowGame:
    """What a scripted seat reads of one row: its game (refreshed), the map's layout and the row's mask."""

    def __init__(self, game: Game, layout: Layout, mask: NDArray[np.int8]) -> None:
        self.game, self.layout, self.mask = game, layout, mask


class FronteraTrainEnv:
    """``num_envs`` Frontera games of ``options`` (policies.games.frontera.FronteraOptions) for ``dw train``."""

    def __init__(
        self, num_envs: int, options: Any, seed: int = 0, fog_rows: float | None = None, fog_spread: bool = True
    ) -> None:
        board = {"size": options.map} if options.map in SIZES else {"map_file": options.map}
        common = {"players": options.players, "cards": options.cards, "max_turns": options.turn_limit, **board}
        fogged = int(round(num_envs * fog_rows)) if fog_rows is not None else (num_envs if options.fog else 0)
        sizes = [(num_envs - fogged, False), (fogged, True)]
        self.parts = [
            _Rows(n, seed + j * PART_SEED_STRIDE, fog=fog, buckets=BUCKETS, **common)
            for j, (n, fog) in enumerate(sizes)
            if n > 0
        ]
        #: which rows play with fog; the fog-off part's rows are the others, each part's in row order
        self.fog = fog_layout(num_envs, fogged, fog_spread)
        self.num_envs, self.players = num_envs, options.players
        self.layout = self.parts[0]._envs[0].layout
        self.board = self.parts[0]._envs[0].board
        # the parts hold the fog-off rows, then the fogged ones, each in row order
        by_part = np.concatenate([np.flatnonzero(~self.fog), np.flatnonzero(self.fog)])
        #: each row's place among the parts' rows concatenated: ``concatenated[self._order]`` is in row order
        self._order = np.argsort(by_part)
        first = self.parts[0].num_envs
        self._where = [(0, int(k)) if k < first else (1, int(k) - first) for k in self._order]  # row -> (part, row)
        for j, p in enumerate(self.parts):  # the rows' state, found by --resume (training/ppo/resume.py)
            setattr(self, f"rows{j}", (*p.batch, p._games, p._steps, p.obs, p.masks, p.acting, p.final_counts))
            setattr(self, f"rng{j}", p._rng)

    def reset(self, seed: int | None = None) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.int32]]:
        """Start every row's first game; return packed obs, masks and the seat to act."""
        outs = [p.reset(None if seed is None else seed + j * PART_SEED_STRIDE) for j, p in enumerate(self.parts)]
        obs, masks = (np.concatenate([o[k] for o in outs])[self._order] for k in (0, 1))
        return pack(obs), masks, self._acting()

    def _acting(self) -> NDArray[np.int32]:
        return np.concatenate([p.acting for p in self.parts])[self._order]

    def step(self, actions: Any) -> tuple[Any, ...]:
        """Play one action per row; return obs, masks, player, rewards, terminated, truncated, info."""
        acts = np.empty(self.num_envs, dtype=np.int64)
        acts[self._order] = np.asarray(actions, dtype=np.int64)  # each part's rows, in the parts' order
        outs, at = [], 0
        for p in self.parts:
            outs.append(p.step(acts[at : at + p.num_envs]))
            at += p.num_envs
        order = self._order
        obs, masks, acting, rewards, terminated, truncated = (
            np.concatenate([o[k] for o in outs])[order] for k in range(6)
        )
        winner = np.concatenate([o[6]["winner"] for o in outs]).astype(np.int64)[order]
        winners = (winner[:, None] == np.arange(self.players)[None, :]) & (winner[:, None] >= 0)
        scores = np.concatenate([p.final_counts for p in self.parts])[order]
        info = {"winners": winners, "final_scores": scores.copy(), "winner": winner}
        return pack(obs), masks, acting, rewards, terminated, truncated, info

    def sample_actions(self) -> NDArray[np.int64]:
        """Return one uniformly random legal action per row."""
        return np.concatenate([p.sample_actions() for p in self.parts])[self._order]

    def game(self, slot: int) -> RowGame:
        """Return row ``slot``'s game (its state refreshed from the batch), layout and mask, for a scripted seat."""
        j, i = self._where[slot]
        part = self.parts[j]
        env = part._envs[i]
        arrays.sync(part.batch, i, env.game.state)
        return RowGame(env.game, self.layout, part.masks[i])

    def close(self) -> None:
        """Release nothing: the rows hold no external resource."""


class IndexSeat(Policy):
    """A scripted Frontera seat that answers with env indices (a regroup's three over three calls)."""

    def __init__(self, inner: Policy) -> None:
        super().__init__(None)
        self.inner = inner
        self.queue: list[int] = []

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)
        self.queue = []

    def state_dict(self) -> dict[str, Any]:
        return {"inner": self.inner.state_dict(), "queue": list(self.queue)}

    def load_state_dict(self, state: Any, *, num_lands: int = 2**15) -> None:
        from policies import state as st

        saved = st.check_keys(state, ("inner", "queue"), "IndexSeat")
        queue = [st.read_int(x, "IndexSeat.queue", 0, 2**31) for x in st.read_list(saved["queue"], "queue", 2)]
        self.inner.load_state_dict(saved["inner"], num_lands=num_lands)
        self.queue = queue

    def act(self, game: RowGame, seat: int) -> int:  # type: ignore[override]
        """Return the next env index of the seat's action (the rest of a regroup comes on the next calls)."""
        if self.queue:
            index = self.queue.pop(0)
            if game.mask[index]:
                return index
            self.queue = []  # the selection cannot complete as planned: decide again
        indices = to_indices(game.layout, game.game, self.inner.act(game.game, seat), game.mask)
        if not indices:
            raise ValueError(f"seat {seat} has no legal action in this row (the game is over or not its turn)")
        self.queue = indices[1:]
        return indices[0]


class TrainingSeats:
    """The adapter :class:`training.ppo.league.ScriptedSeats` asks for seats: Frontera's, in index space."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.num_players = adapter.num_players

    def make_seat(self, spec: str, seed: int | None = None) -> IndexSeat:
        return IndexSeat(self.adapter.make_seat(spec, seed))
