"""Domain Wheel: rules engine and reinforcement-learning environments.

Importing the package points numba's on-disk cache at the project's hashed folder
(:mod:`gamecore.numba_cache`) before any kernel is compiled.
"""

from __future__ import annotations

import gamecore  # noqa: F401  (first: points numba's cache at the project's hashed folder)
