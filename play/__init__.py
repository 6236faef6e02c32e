"""The browser game's server (``dw play``): rooms, seats, AI turns, replays and the websocket protocol.

Game-agnostic; each game plugs in through :mod:`play.games`. See docs/PLAY.md.
"""

import gamecore  # noqa: F401  (first: points numba's cache at the project's hashed folder)
