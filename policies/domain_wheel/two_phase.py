"""A learned seat's turn as two env decisions: the torch-free driver shared by networks and exported packages.

A turn is the env's two actions (the human click pair). The driver encodes the position as the acting
player sees it (:func:`dw_env.envs.observation.encode_observation`, the same compiled encoder the
environments use) and asks a ``choose(observation, mask) -> action`` function for a piece, pass or end
request; for a piece it encodes the phase-2 observation with that piece selected and asks again for the
destination. Actions are in the player's rotated frame and are mapped back to map cells with the frame
tables (:mod:`dw_env.envs.actions`).

The driver is everything game-specific a seat needs: :class:`policies.domain_wheel.network_policy.NetworkPolicy` plugs a
torch network in as ``choose``, :class:`policies.onnx_policy.PackagePolicy` an onnxruntime graph. It also
names the game for strategy packages (:data:`GAME`, :data:`RULES_VERSION`) and the options that fix the
observation's shape (:func:`map_key`): a package holds one graph per accepted map.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np
from numba import typeof
from numpy.typing import NDArray

from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, Game, Move, kernel_tables, new_workspace, standard_layout
from dw_env.envs.actions import frames_of
from dw_env.envs.observation import (
    CTRL_PHASE,
    CTRL_SELECTED,
    OBSERVATION_VERSION,
    describe_observation,
    encode_observation,
)
from dw_env.envs.observation import new_encoder_workspace as encoder_workspace
from dw_env.errors import brief
from dw_env.geometry import build_geometry
from dw_env.info import NUM_PLAYERS
from dw_env.options import GameOptions

#: the game a strategy package is for, and the version of its rules (../shared/rules/domain-wheel-spec.md,
#: resolutions A0-A62); a package made for other rules is refused
GAME: Final = "domain-wheel"
RULES_VERSION: Final = "dw-rules-1"
#: the action layout: Discrete(C + 2), cells in the acting player's frame, then pass and end request
ACTION_VERSION: Final = "dw-actions-v1"
#: the observation layouts this driver encodes
OBSERVATION_VERSIONS: Final = (OBSERVATION_VERSION,)
#: the game options that fix the observation's shape; every other option is an observation feature
MAP_KEYS: Final = ("land_radius", "map_radius")

Chooser = Callable[[NDArray[np.int8], NDArray[np.int8]], int]


def map_key(options: GameOptions) -> dict[str, int]:
    """Return the options that fix the observation's and the action's sizes (the map)."""
    return {key: int(getattr(options, key)) for key in MAP_KEYS}


def map_text(key: dict[str, int]) -> str:
    """Return a map key as text, e.g. ``land_radius=1, map_radius=2``."""
    return ", ".join(f"{k}={v}" for k, v in key.items())


class TwoPhaseDriver:
    """Encodes a game for one viewer and plays a whole turn through a ``choose`` function."""

    def __init__(self, options: GameOptions) -> None:
        self.options = options
        self.geometry = build_geometry(options.land_radius, options.map_radius)
        self.layout = describe_observation(options)
        self._tables = kernel_tables(options)
        self._frames = frames_of(self.geometry)
        self._work = new_workspace(self.geometry)
        self._enc_work = encoder_workspace(self.geometry.num_cells)
        self.obs = np.zeros(self.layout.size, dtype=np.int8)
        self.mask = np.zeros(self.layout.mask_size, dtype=np.int8)
        self._ctrl = np.array([0, -1], dtype=np.int32)
        self._frame_tables = self._frames.kernel_tables()
        self._encode: Any = None  # the encoder compiled for games in the standard layout, bound on first use

    def encode(self, game: Game, viewer: int, selected: int = -1) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
        """Return ``viewer``'s (observation, mask) views: phase 1, or phase 2 with map cell ``selected`` chosen.

        The arrays are the driver's own buffers, overwritten by the next call: copy them to keep them.
        """
        # the compiled encoder indexes its frame tables by viewer and cell: check both here, cheaply
        if isinstance(viewer, bool) or not isinstance(viewer, int | np.integer) or not 0 <= viewer < NUM_PLAYERS:
            raise ValueError(f"viewer must be a seat 0..{NUM_PLAYERS - 1}, got {brief(viewer)}")
        if selected >= self.geometry.num_cells or (game.options is not self.options and game.options != self.options):
            raise ValueError(
                f"selected cell {brief(selected)} or the game's options do not fit this driver's map "
                f"({map_text(map_key(self.options))}, {self.geometry.num_cells} cells)"
            )
        self._ctrl[CTRL_PHASE], self._ctrl[CTRL_SELECTED] = (0, -1) if selected < 0 else (1, selected)
        args = (
            self._tables, self._frame_tables, game.board, game.lands, game.scalars, self._ctrl, int(viewer),
            self._work, self._enc_work, self.obs, self.mask,
        )  # fmt: skip
        if not standard_layout(game.board, game.lands, game.scalars):
            encode_observation(*args)  # another layout: the dispatcher types it
        elif self._encode is not None:
            self._encode(*args)  # the search encodes a dozen times per position: no typing of 25 arrays each
        else:
            signature = tuple(typeof(a) for a in args)
            encode_observation.compile(signature)
            self._encode = encode_observation.get_overload(signature)
            self._encode(*args)
        return self.obs, self.mask

    def cell_of(self, viewer: int, action: int) -> int:
        """Return the map cell that frame cell ``action`` of ``viewer`` names."""
        return int(self._frames.cell_from_frame[viewer, action])

    def cells_of(self, viewer: int, actions: NDArray[np.int64]) -> NDArray[np.int64]:
        """Return the map cells that frame cells ``actions`` of ``viewer`` name (:meth:`cell_of` of each)."""
        cells: NDArray[np.int64] = self._frames.cell_from_frame[viewer, actions].astype(np.int64)
        return cells

    def act(self, game: Game, seat: int, choose: Chooser) -> Move:
        """Return ``seat``'s move: a piece (phase 1) then its destination (phase 2), or pass / end request."""
        if game.over:
            return PASS_MOVE
        c = self.geometry.num_cells
        first = choose(*self.encode(game, seat))
        if first == c:
            return PASS_MOVE
        if first == c + 1:
            return END_REQUEST_MOVE
        src = self.cell_of(seat, first)
        second = choose(*self.encode(game, seat, selected=src))
        return Move(src, self.cell_of(seat, second))


class DecisionGame:
    """A game as a sequence of single decisions, on the board-game engine contract (search-guided training).

    The env's two actions of one move (rule 3.2: a piece, then its destination) are two consecutive
    decisions of the same player: ``observe()`` is the acting player's phase-1 observation, or its phase-2
    one once a piece is selected; ``play(action)`` takes an action of that observation's mask (in the
    player's frame). Pass and end request (rules 3.2b, 9.3) are whole moves in one decision. So a search
    written for one-decision turns (training/search_guided/search.py) walks Domain Wheel unchanged, and
    every decision's target is a distribution over the network's own outputs. ``turn``, ``over``,
    ``truncated`` and ``winners`` are the engine's; copies share the driver (its tables and buffers), so
    the arrays ``observe`` returns are overwritten by the next call on any copy: use or copy them at once.
    """

    def __init__(self, game: Game, driver: TwoPhaseDriver, selected: int = -1) -> None:
        self.engine, self.driver, self.selected = game, driver, selected

    @property
    def turn(self) -> int:
        return self.engine.turn

    @property
    def over(self) -> bool:
        return self.engine.over

    @property
    def truncated(self) -> bool:
        return self.engine.truncated

    @property
    def winners(self) -> list[int]:
        return self.engine.winners

    def copy(self) -> DecisionGame:
        """Return an independent copy (the engine's arrays copied, the driver shared), of the same class."""
        return type(self)(self.engine.copy(), self.driver, self.selected)

    def observe(self) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
        """Return the acting player's (observation, mask) of this decision: phase 1, or phase 2 with its piece."""
        return self.driver.encode(self.engine, self.engine.turn, self.selected)

    def legal_actions(self) -> list[int]:
        """Return the legal actions of this decision, in the acting player's frame."""
        return [int(a) for a in np.flatnonzero(self.observe()[1])]

    def play(self, action: int) -> None:
        """Play one decision: a piece (the move goes on), pass or end request (phase 1), or a destination."""
        c, seat = self.driver.geometry.num_cells, self.engine.turn
        mask = self.observe()[1]
        if not 0 <= action < len(mask) or not mask[action]:
            phase = "phase 1 (a piece, pass or end request)" if self.selected < 0 else "phase 2 (a destination)"
            raise ValueError(f"action {brief(action)} is not legal in {phase}; legal: {brief(np.flatnonzero(mask))}")
        if self.selected >= 0:
            src, self.selected = self.selected, -1
            self.engine.play(Move(src, self.cell_of(seat, action)))
        elif action == c:
            self.engine.play(PASS_MOVE)
        elif action == c + 1:
            self.engine.play(END_REQUEST_MOVE)
        else:
            self.selected = self.cell_of(seat, action)

    def cell_of(self, seat: int, action: int) -> int:
        """Return the map cell that frame cell ``action`` of ``seat`` names."""
        return self.driver.cell_of(seat, action)

    def play_move(self, move: Move) -> None:
        """Play a whole engine move (a scripted seat's) at a move's first decision."""
        if self.selected >= 0:
            raise ValueError(f"a whole move {brief(move)} cannot be played after a piece was selected (phase 2)")
        self.engine.play(move)
