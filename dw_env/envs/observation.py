"""The observation: a flat int8 vector in three blocks, written by one compiled kernel.

Version ``dw-obs-v1``. Everything is seen from a *viewer* (the agent observed): players are
relative (``me``, ``next`` = the player after me in turn order, ``after`` = the one after
that) and cells and lands are in the viewer's rotated frame (:mod:`dw_env.envs.actions`).
All values are non-negative.

``cells`` block ``[C, 15]`` (cell-major: cell ``i`` feature ``f`` at ``i * 15 + f``):

==  =======================  =======================================================
 0  ``my_king``              1 where my king stands
 1  ``my_knight``            1 where one of my knights stands
 2  ``next_king``            ... the next player's king
 3  ``next_knight``
 4  ``after_king``
 5  ``after_knight``
 6  ``throne``               1 on every throne (rule 1.3)
 7  ``selected``             phase 2: the piece chosen in phase 1
 8  ``dest_step``            phase 2: a legal destination reached by a step (rule 4.2)
 9  ``dest_king_move``       ... by a king move in own territory (rule 4.4)
10  ``dest_fast_knight``     ... by a fast-knight / territory knight move (rules 4.5, 4.7)
11  ``dest_double_step``     ... by a king's double step (rule 4.8)
12  ``dest_jump``            ... by a king's jump over an own knight (rule 4.9)
13  ``dest_swap``            ... by a king-knight swap (rule 4.10)
14  ``movable``              phase 1: my piece with at least one legal move
==  =======================  =======================================================

``lands`` block ``[L, 21]`` (land-major, after the cells block):

=====  =============================  ==================================================
0-2    ``owner_{me,next,after}``      one-hot owner (all 0: unowned)
3      ``points``                     the land's points (rule 8.1)
4      ``ring``                       land distance from the centre land
5      ``start_land``                 1 on the three start lands
6-8    ``territory_{me,next,after}``  1 if the land is in that player's territory T (R-0.6)
9-11   ``hold_{me,next,after}``       conquest hold counter (rule 6.4)
12-14  ``lib_{me,next,after}``        liberation counter (rule 7.3)
15-17  ``first_knight_{...}``         1 if conquering it would still give that player a
                                      new knight (rule 6.7: not yet conquered by them; never
                                      a start land or the centre, whose conquest ends the game)
18-20  ``distance_{me,next,after}``   land steps to that player's territory, 0 inside it
                                      (the distance factor is ``N = distance - 1``, rule 6.3)
=====  =============================  ==================================================

``global`` block ``[26]`` (last):

=====  ===================================  =============================================
0-5    ``score_{me,next,after}_{hi,lo}``    scores (rule 8.3) as base-100 pairs
6      ``end_request_points``               E (rule 9.3)
7      ``centre_min_points``                C (rule 6.8)
8      ``turns_to_conquer``                 K (rule 6.4)
9-10   ``round_{hi,lo}``                    the round (rule 3.1), base-100 pair
11-12  ``rounds_left_{hi,lo}``              rounds after this one before the engine's
                                            truncation (``max_rounds - round``), pair
13-15  ``countdown_{me,next,after}``        one-hot holder of the centre countdown (9.2)
16     ``countdown_left``                   the holder's own turns left
17     ``phase``                            0 choose a piece, 1 choose its destination
18     ``end_request_legal``                1 if the end request is legal now (rule 9.3)
19     ``fast_knights``                     option (rule 4.5)
20     ``king_may_be_alone``                option (rule 10.4; 0 means rule 4.11 applies)
21-23  ``seat_{blue,green,red}``            the viewer's absolute seat
24     ``to_act``                           1 if the viewer is the player to act
25     ``game_over``                        1 once the game has ended
=====  ===================================  =============================================

A base-100 pair stores ``v`` as ``hi = v // 100`` and ``lo = v % 100`` (so it fits int8 and
stays readable: ``v = 100 * hi + lo``); ``hi`` saturates at 127 (``v`` >= 12,800 reads as
12,799, reachable only by ``rounds_left`` with ``max_rounds`` above 12,800).

The planes that describe the acting player's options (``movable``, ``dest_*``,
``end_request_legal``) and the action mask are filled only in the observation of the
player to act; they are all 0 for any other viewer and after the game has ended.

Markov-complete: the blocks determine the engine state (board, owners, every counter,
first-conquest records except on lands where they cannot matter, countdown, turn, round,
options) plus the env's phase and selection; the seat one-hot fixes the frame, which the
rules' coordinate tie-breaks (rules 5.3, 6.7) depend on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numba import njit
from numpy.typing import NDArray

from dw_env.engine import Game
from dw_env.errors import brief
from dw_env.geometry import build_geometry
from dw_env.options import GameOptions
from dw_env.rules.layout import (
    CD_HOLDER,
    CD_LEFT,
    FIRST,
    HOLD,
    LIB,
    OVER,
    OWNER,
    P_ALONE,
    P_C,
    P_CENTRE,
    P_E,
    P_FAST,
    P_K,
    P_MAXR,
    ROUND,
    TURN,
)
from dw_env.rules.moves import movable_pieces, piece_destinations
from dw_env.rules.territory import distance_to_territory, score, territory
from dw_env.rules.turn import end_request_legal

#: Version of the observation layout; exported agents record it.
OBSERVATION_VERSION: Final = "dw-obs-v1"

_REL = ("me", "next", "after")

CELL_FEATURES: Final = (
    "my_king",
    "my_knight",
    "next_king",
    "next_knight",
    "after_king",
    "after_knight",
    "throne",
    "selected",
    "dest_step",
    "dest_king_move",
    "dest_fast_knight",
    "dest_double_step",
    "dest_jump",
    "dest_swap",
    "movable",
)
LAND_FEATURES: Final = (
    *(f"owner_{r}" for r in _REL),
    "points",
    "ring",
    "start_land",
    *(f"territory_{r}" for r in _REL),
    *(f"hold_{r}" for r in _REL),
    *(f"lib_{r}" for r in _REL),
    *(f"first_knight_{r}" for r in _REL),
    *(f"distance_{r}" for r in _REL),
)
GLOBAL_FEATURES: Final = (
    *(f"score_{r}_{half}" for r in _REL for half in ("hi", "lo")),
    "end_request_points",
    "centre_min_points",
    "turns_to_conquer",
    "round_hi",
    "round_lo",
    "rounds_left_hi",
    "rounds_left_lo",
    *(f"countdown_{r}" for r in _REL),
    "countdown_left",
    "phase",
    "end_request_legal",
    "fast_knights",
    "king_may_be_alone",
    "seat_blue",
    "seat_green",
    "seat_red",
    "to_act",
    "game_over",
)

NCF: Final = len(CELL_FEATURES)
NLF: Final = len(LAND_FEATURES)
NGF: Final = len(GLOBAL_FEATURES)

# feature offsets used by the kernel (compile-time constants)
CF_THRONE: Final = CELL_FEATURES.index("throne")
CF_SELECTED: Final = CELL_FEATURES.index("selected")
CF_DEST: Final = CELL_FEATURES.index("dest_step")  # + bit index of the move kind (layout.STEP = bit 0 ...)
CF_MOVABLE: Final = CELL_FEATURES.index("movable")
LF_OWNER: Final = LAND_FEATURES.index("owner_me")
LF_POINTS: Final = LAND_FEATURES.index("points")
LF_RING: Final = LAND_FEATURES.index("ring")
LF_START: Final = LAND_FEATURES.index("start_land")
LF_TERRITORY: Final = LAND_FEATURES.index("territory_me")
LF_HOLD: Final = LAND_FEATURES.index("hold_me")
LF_LIB: Final = LAND_FEATURES.index("lib_me")
LF_FIRST: Final = LAND_FEATURES.index("first_knight_me")
LF_DIST: Final = LAND_FEATURES.index("distance_me")
GF_SCORE: Final = GLOBAL_FEATURES.index("score_me_hi")
GF_E: Final = GLOBAL_FEATURES.index("end_request_points")
GF_C: Final = GLOBAL_FEATURES.index("centre_min_points")
GF_K: Final = GLOBAL_FEATURES.index("turns_to_conquer")
GF_ROUND: Final = GLOBAL_FEATURES.index("round_hi")
GF_ROUNDS_LEFT: Final = GLOBAL_FEATURES.index("rounds_left_hi")
GF_COUNTDOWN: Final = GLOBAL_FEATURES.index("countdown_me")
GF_COUNTDOWN_LEFT: Final = GLOBAL_FEATURES.index("countdown_left")
GF_PHASE: Final = GLOBAL_FEATURES.index("phase")
GF_END_LEGAL: Final = GLOBAL_FEATURES.index("end_request_legal")
GF_FAST: Final = GLOBAL_FEATURES.index("fast_knights")
GF_ALONE: Final = GLOBAL_FEATURES.index("king_may_be_alone")
GF_SEAT: Final = GLOBAL_FEATURES.index("seat_blue")
GF_TO_ACT: Final = GLOBAL_FEATURES.index("to_act")
GF_OVER: Final = GLOBAL_FEATURES.index("game_over")

#: the largest value any feature takes (observation space bound)
OBS_HIGH: Final = 127

# the env's control row: phase (0 choose a piece, 1 choose its destination) and the selected map cell
CTRL_PHASE: Final = 0
CTRL_SELECTED: Final = 1
NUM_CTRL: Final = 2


@dataclass(frozen=True)
class ObservationLayout:
    """Shapes and offsets of the observation blocks for one map."""

    version: str
    num_cells: int
    num_lands: int
    cells_offset: int
    cells_shape: tuple[int, int]
    lands_offset: int
    lands_shape: tuple[int, int]
    global_offset: int
    global_shape: tuple[int]
    size: int  # D: length of the observation vector
    mask_size: int  # C + 2

    @property
    def bytes_per_observation(self) -> int:
        """Return the bytes of one observation plus its action mask (both int8)."""
        return self.size + self.mask_size

    @property
    def blocks(self) -> dict[str, tuple[int, tuple[int, ...], tuple[str, ...]]]:
        """Return {block name: (offset, shape, feature names)}."""
        return {
            "cells": (self.cells_offset, self.cells_shape, CELL_FEATURES),
            "lands": (self.lands_offset, self.lands_shape, LAND_FEATURES),
            "global": (self.global_offset, self.global_shape, GLOBAL_FEATURES),
        }

    def split(self, obs: NDArray[np.int8]) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.int8]]:
        """Return views (cells [..., C, 15], lands [..., L, 21], global [..., 26]) of observations [..., D]."""
        lead = obs.shape[:-1]
        cells = obs[..., : self.lands_offset].reshape(*lead, *self.cells_shape)
        lands = obs[..., self.lands_offset : self.global_offset].reshape(*lead, *self.lands_shape)
        return cells, lands, obs[..., self.global_offset :]


def describe_observation(options: GameOptions | dict[str, object] | None = None) -> ObservationLayout:
    """Return the observation layout (block shapes and offsets) for a game's options."""
    if options is None:
        options = GameOptions()
    elif isinstance(options, dict):
        options = GameOptions.from_dict(options)
    g = build_geometry(options.land_radius, options.map_radius)
    c, n = g.num_cells, g.num_lands
    return ObservationLayout(
        version=OBSERVATION_VERSION,
        num_cells=c,
        num_lands=n,
        cells_offset=0,
        cells_shape=(c, NCF),
        lands_offset=c * NCF,
        lands_shape=(n, NLF),
        global_offset=c * NCF + n * NLF,
        global_shape=(NGF,),
        size=c * NCF + n * NLF + NGF,
        mask_size=c + 2,
    )


def decode_pair(hi: int, lo: int) -> int:
    """Return the value of a base-100 pair."""
    return 100 * int(hi) + int(lo)


def new_encoder_workspace(num_cells: int) -> tuple[NDArray[np.int8], NDArray[np.int32], NDArray[np.int8]]:
    """Return the encoder's own scratch ``X``: destination kinds, destination list, movable pieces."""
    return np.zeros(num_cells, np.int8), np.zeros(num_cells, np.int32), np.zeros(num_cells, np.int8)


def check_encoder_inputs(game: Game, viewer: Any, ctrl: Any, obs: Any, mask: Any) -> None:
    """Raise ValueError unless :func:`encode_observation` may run on these (the kernel checks nothing).

    ``game`` is an engine :class:`~dw_env.engine.Game` (its arrays were checked when it was
    built); ``viewer`` a seat 0..2; ``ctrl`` the int32 control row ``[phase 0/1, selected
    cell]`` (phase 1 needs a map cell); ``obs`` and ``mask`` writeable C-contiguous int8
    arrays of the layout's sizes. Callers that pass outside arrays to the compiled encoder
    (a policy, a batched evaluator) call this once per new buffer or game.
    """
    if not isinstance(game, Game):
        raise ValueError(f"game must be a dw_env.engine.Game, got {brief(game)}")
    if isinstance(viewer, bool | np.bool_) or not isinstance(viewer, int | np.integer) or not 0 <= viewer < 3:
        raise ValueError(f"viewer must be a seat 0..2, got {brief(viewer)}")
    layout = describe_observation(game.options)
    c = game.geometry.num_cells
    for name, value, dtype, shape in (
        ("ctrl", ctrl, np.int32, (NUM_CTRL,)),
        ("obs", obs, np.int8, (layout.size,)),
        ("mask", mask, np.int8, (layout.mask_size,)),
    ):
        if not isinstance(value, np.ndarray) or value.dtype != dtype or value.shape != shape:
            got = f"{value.dtype} {value.shape}" if isinstance(value, np.ndarray) else brief(value)
            raise ValueError(f"{name} must be an array of dtype {np.dtype(dtype).name} and shape {shape}, got {got}")
        if not value.flags.c_contiguous or not value.flags.writeable:
            raise ValueError(f"{name} must be a writeable C-contiguous array")
    phase, selected = int(ctrl[CTRL_PHASE]), int(ctrl[CTRL_SELECTED])
    if phase not in (0, 1) or (phase == 1 and not 0 <= selected < c):
        raise ValueError(f"ctrl must be [0, any] or [1, a cell 0..{c - 1}], got {ctrl.tolist()}")


@njit(cache=True, nogil=True, inline="always")
def _put_pair(obs, at, value):  # type: ignore[no-untyped-def]
    hi = value // 100
    if hi > OBS_HIGH:
        obs[at] = OBS_HIGH
        obs[at + 1] = 99
    else:
        obs[at] = hi
        obs[at + 1] = value % 100


@njit(cache=True, nogil=True)
def encode_observation(G, F, board, lands, scalars, ctrl, viewer, W, X, obs, mask):  # type: ignore[no-untyped-def]
    """Write ``viewer``'s observation into ``obs[D]`` and its action mask into ``mask[C+2]``.

    ``G`` are the engine's kernel tables, ``F`` the frame tables, ``W`` an engine workspace,
    ``X`` an encoder workspace and ``ctrl`` the env's control row (phase, selected cell).
    Returns the number of legal actions (0 unless ``viewer`` is to act).
    """
    land_throne = G[5]
    land_ring = G[8]
    land_points = G[9]
    is_start = G[10]
    params = G[12]
    to_cell = F[0]
    to_land = F[2]
    num_cells = board.shape[0]
    num_lands = lands.shape[1]
    obs[:] = 0
    mask[:] = 0
    p = scalars[TURN]
    over = scalars[OVER] == 1
    phase = ctrl[CTRL_PHASE]
    acting = viewer == p and not over

    # cells block: pieces, thrones, selection, then the acting player's options
    for c in range(num_cells):
        v = board[c]
        if v != 0:
            owner = (v - 1) >> 1
            rel = (owner - viewer + 3) % 3
            obs[to_cell[viewer, c] * NCF + 2 * rel + ((v - 1) & 1)] = 1
    for land in range(num_lands):
        obs[to_cell[viewer, land_throne[land]] * NCF + CF_THRONE] = 1
    if phase == 1:
        obs[to_cell[viewer, ctrl[CTRL_SELECTED]] * NCF + CF_SELECTED] = 1
    legal = 0
    end_ok = False
    if acting and phase == 0:
        movable = X[2]
        if movable_pieces(G, board, lands, scalars, W, movable) > 0:
            for c in range(num_cells):
                if movable[c] == 1:
                    f = to_cell[viewer, c]
                    obs[f * NCF + CF_MOVABLE] = 1
                    mask[f] = 1
                    legal += 1
        mask[num_cells] = 1  # pass is always legal (rule 3.2b)
        legal += 1
        end_ok = end_request_legal(G, lands, scalars)
        if end_ok:
            mask[num_cells + 1] = 1
            legal += 1
    elif acting:
        kinds, dlist = X[0], X[1]
        n = piece_destinations(G, board, lands, scalars, ctrl[CTRL_SELECTED], W, kinds, dlist)
        for i in range(n):
            d = dlist[i]
            f = to_cell[viewer, d]
            k = kinds[d]
            for b in range(6):
                if k & (1 << b):
                    obs[f * NCF + CF_DEST + b] = 1
            mask[f] = 1
            legal += 1

    # lands block
    base = num_cells * NCF
    centre = params[P_CENTRE]
    for land in range(num_lands):
        at = base + to_land[viewer, land] * NLF
        owner = lands[OWNER, land]
        if owner >= 0:
            obs[at + LF_OWNER + (owner - viewer + 3) % 3] = 1
        obs[at + LF_POINTS] = land_points[land]
        obs[at + LF_RING] = land_ring[land]
        obs[at + LF_START] = is_start[land]
        for rel in range(3):
            q = (viewer + rel) % 3
            obs[at + LF_HOLD + rel] = lands[HOLD + q, land]
            obs[at + LF_LIB + rel] = lands[LIB + q, land]
            if is_start[land] == 0 and land != centre and lands[FIRST + q, land] == 0:
                obs[at + LF_FIRST + rel] = 1
    tmask, dist, queue = W[3], W[4], W[2]
    for rel in range(3):
        q = (viewer + rel) % 3
        territory(G, lands, q, tmask, queue)
        distance_to_territory(G, tmask, dist, queue)
        for land in range(num_lands):
            at = base + to_land[viewer, land] * NLF
            obs[at + LF_TERRITORY + rel] = tmask[land]
            obs[at + LF_DIST + rel] = dist[land]

    # global block
    gb = base + num_lands * NLF
    for rel in range(3):
        _put_pair(obs, gb + GF_SCORE + 2 * rel, score(G, lands, (viewer + rel) % 3))
    obs[gb + GF_E] = params[P_E]
    obs[gb + GF_C] = params[P_C]
    obs[gb + GF_K] = params[P_K]
    _put_pair(obs, gb + GF_ROUND, scalars[ROUND])
    _put_pair(obs, gb + GF_ROUNDS_LEFT, max(0, params[P_MAXR] - scalars[ROUND]))
    holder = scalars[CD_HOLDER]
    if holder >= 0:
        obs[gb + GF_COUNTDOWN + (holder - viewer + 3) % 3] = 1
        obs[gb + GF_COUNTDOWN_LEFT] = scalars[CD_LEFT]
    obs[gb + GF_PHASE] = phase
    obs[gb + GF_END_LEGAL] = 1 if end_ok else 0
    obs[gb + GF_FAST] = params[P_FAST]
    obs[gb + GF_ALONE] = params[P_ALONE]
    obs[gb + GF_SEAT + viewer] = 1
    obs[gb + GF_TO_ACT] = 1 if acting else 0
    obs[gb + GF_OVER] = 1 if over else 0
    return legal
