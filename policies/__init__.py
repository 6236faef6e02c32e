"""Everything that can sit in a seat: scripted AIs, random play, learned networks, exported packages, search.

:func:`make` takes any seat spec: a registered name (``"balanced"``), a ``dw train`` checkpoint (``.pt``), an
exported strategy package folder, or a prefixed spec such as ``search:PATH?playouts=64``
(:mod:`policies.files`).
"""

import gamecore  # noqa: F401  (first: points numba's cache at the project's hashed folder)
from policies.base import Policy
from policies.files import make_seat_policy
from policies.registry import available, display_name

make = make_seat_policy

__all__ = ["Policy", "available", "display_name", "make", "make_seat_policy"]
