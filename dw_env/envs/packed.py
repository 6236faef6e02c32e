"""Domain Wheel's packed observations: which positions of ``dw-obs-v1`` hold only 0 or 1.

Every cell plane is 0/1 (pieces, thrones, selection, destinations, movable: rule numbers in
:mod:`dw_env.envs.observation`), and so are the one-hot and flag features of the lands and global blocks
listed below; the counters, points, distances and base-100 pairs stay bytes. On the standard map an
observation of 18,692 bytes packs into 2,951 (the mask, 1,161 bytes, stays int8: the env checks actions
against it), so an observation with its mask goes from 19,853 to 4,112 bytes.

The packed layout (:class:`gamecore.bit_packing.BitPacking`) is an in-memory and transfer form for the
trainer; the observation of the AEC env and of exported agents stays ``dw-obs-v1``.
"""

from __future__ import annotations

import functools
from typing import Final

import numpy as np

from dw_env.envs.observation import GLOBAL_FEATURES, LAND_FEATURES, describe_observation
from dw_env.options import GameOptions
from gamecore.bit_packing import BitPacking

#: land features that are 0/1: one-hot owner, start land (rule 1.4), territory (R-0.6), first knight (6.7)
BINARY_LAND_FEATURES: Final = tuple(
    f for f in LAND_FEATURES if f.startswith(("owner_", "territory_", "first_knight_")) or f == "start_land"
)
#: global features that are 0/1: countdown holder (9.2), phase, end request legal (9.3), options, seat, flags
BINARY_GLOBAL_FEATURES: Final = tuple(
    f
    for f in GLOBAL_FEATURES
    if (f.startswith(("countdown_", "seat_")) and f != "countdown_left")
    or f in ("phase", "end_request_legal", "fast_knights", "king_may_be_alone", "to_act", "game_over")
)


def binary_positions(options: GameOptions | None = None) -> np.ndarray:
    """Return bool [D]: the positions of a ``dw-obs-v1`` observation that hold only 0 or 1 on this map."""
    layout = describe_observation(options)
    mask = np.zeros(layout.size, dtype=np.bool_)
    mask[: layout.lands_offset] = True  # every cell plane
    lands = mask[layout.lands_offset : layout.global_offset].reshape(layout.lands_shape)
    lands[:, [LAND_FEATURES.index(f) for f in BINARY_LAND_FEATURES]] = True
    mask[layout.global_offset + np.array([GLOBAL_FEATURES.index(f) for f in BINARY_GLOBAL_FEATURES])] = True
    return mask


@functools.lru_cache(maxsize=16)
def _packing(land_radius: int, map_radius: int) -> BitPacking:
    return BitPacking.of_mask(binary_positions(GameOptions(land_radius=land_radius, map_radius=map_radius)))


def observation_packing(options: GameOptions | None = None) -> BitPacking:
    """Return the packing of this map's observations (it depends only on the map's size; cached)."""
    o = options if options is not None else GameOptions()
    return _packing(o.land_radius, o.map_radius)
