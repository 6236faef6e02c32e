"""Frontera: a Risk-like territory game for 2-6 players with dice, cards, fog of war and simultaneous deployment.

The rules are docs/FRONTERA.md's reading of the rules page; rule numbers (R-x, M-x, G-x, A-x) follow it.
"""

import gamecore  # noqa: F401  (first: points numba's cache at the project's hashed folder)
