"""The shared room beneath the game engines: what every engine needs and none should repeat.

Bounded error messages (:mod:`gamecore.errors`), bounded loaders for files, JSON and YAML
(:mod:`gamecore.loaders`), the compiled kernels' entry checks (:mod:`gamecore.arrays`), the PettingZoo AEC
base class of every game's ``raw_env`` (:mod:`gamecore.aec`), the vector envs' argument and action-batch
checks (:mod:`gamecore.vector_checks`) and the game records' field checks and atomic save
(:mod:`gamecore.records`). Importing it points numba's on-disk cache at the project's hashed folder
(:mod:`gamecore.numba_cache`), so every package imports it first. It imports no engine and nothing above
them (tests/test_rooms.py).
"""

from gamecore import numba_cache as _numba_cache

_numba_cache.configure()
