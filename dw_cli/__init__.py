"""The ``dw`` command line and its benchmarks: the top floor, importing every room below it."""

import gamecore  # noqa: F401  (first: points numba's cache at the project's hashed folder)
