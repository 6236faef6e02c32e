"""Fixed facts about the game, declared once (OpenSpiel's GameType/GameInfo idea).

Everything else (spaces, network shapes, tables) is derived from these and from
:class:`dw_env.options.GameOptions`.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from dw_env.errors import brief

#: The game's working title. The original keeps it in one place (``GameInfo.Title``)
#: because the name is provisional; so do we. Change it here and nowhere else.
GAME_TITLE: Final = "Domain Wheel"

NUM_PLAYERS: Final = 3
#: Turn order (rule 3.1, resolution A3): Blue moves first, then Green, then Red.
PLAYER_NAMES: Final = ("blue", "green", "red")
#: The Spanish display names used by the original prototype.
PLAYER_DISPLAY_NAMES: Final = ("Azul", "Verde", "Rojo")
#: RGB colours used by the renderers.
PLAYER_COLOURS: Final = ((40, 110, 230), (40, 170, 70), (215, 50, 45))

#: Own turns a liberation must be held (rule 7.3, resolution A40): fixed.
LIBERATION_TURNS: Final = 2
#: Own turns the centre countdown lasts (rule 9.2, resolution A47): fixed.
COUNTDOWN_TURNS: Final = 10
#: Initial knights per player (rule 2.3).
INITIAL_KNIGHTS: Final = 2

#: Reward range of the RL environments (winners share +1, losers share -1).
REWARD_RANGE: Final = (-1.0, 1.0)


def player_index(name: str) -> int:
    """Return the seat index (0..2) of a player name ("blue", "green", "red")."""
    try:
        return PLAYER_NAMES.index(name)
    except ValueError:
        raise ValueError(f"unknown player {brief(name)}; allowed: {', '.join(PLAYER_NAMES)}") from None


def check_truncation_reward(value: Any) -> float:
    """Return ``value`` as a float if it is a finite number in the reward range, else raise ValueError."""
    low, high = REWARD_RANGE
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"truncation_reward must be a number in {low}..{high}, got {brief(value)}")
    if not low <= float(value) <= high:  # also refuses nan
        raise ValueError(f"truncation_reward={brief(value)} is out of range; allowed: {low}..{high} (REWARD_RANGE)")
    return float(value)
